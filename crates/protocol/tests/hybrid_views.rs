//! What each computing party of the hybrid mode sees does not depend on
//! the secret input: every byte a party receives (recorded by a relay on
//! each connection) and its output shares have the same bit statistics for
//! two different inputs, and differ from run to run. The same for a mixed
//! program on the shares (issue 30): products, both conversions, a Boolean
//! step, outputs of both forms.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use twofold_circuit::mixed::eval::bits_word;
use twofold_circuit::{Builder, Kind, MixedInput, MixedOutput, MixedProgram, Party, Program, Step};
use twofold_crypto::Prg;
use twofold_net::{ChannelOptions, Listener};
use twofold_protocol::hybrid::shares::{combine, split};
use twofold_protocol::mixed3::{OutputBit, SharedMixed, Slice};
use twofold_protocol::{run_hybrid, run_mixed3, HybridOptions, HybridPeers, Role, ShareKind};

mod views;
use views::{bit_frequencies, relay, worst_difference};

/// Bytes received by each party over one run (CP1, CP2, CP3).
type Views = [Vec<u8>; 3];

/// What the parties run: a Boolean program (XOR shares in and out) or a
/// mixed one (additive shares in and out).
#[derive(Clone, Copy)]
enum Work<'a> {
    Garbled(&'a Program),
    Mixed(&'a SharedMixed),
}

/// One run of `work` on the shares of the 8-bit `input`, every connection
/// relayed; returns what each party received and each party's shares of
/// the first output.
fn observed_run(work: Work, input: &[bool]) -> (Views, [Vec<bool>; 3]) {
    let kind = match work {
        Work::Garbled(_) => ShareKind::Xor,
        Work::Mixed(_) => ShareKind::Add,
    };
    let shares = split(kind, 8, input, &mut Prg::from_os());
    // What flows each way through each relay: [forward, back].
    let logs: [[Arc<Mutex<Vec<u8>>>; 2]; 3] = Default::default();
    let listeners = [
        Listener::bind("127.0.0.1:0").unwrap(),
        Listener::bind("127.0.0.1:0").unwrap(),
    ];
    let real = listeners
        .each_ref()
        .map(|l| l.local_addr().unwrap().to_string());
    // One relay per pair of parties (each carries one connection: one
    // thread), so that every view is the same streams in the same order.
    let [cp1_cp2, cp1_cp3, cp2_cp3] = &logs;
    let relayed = |target: &String, [forward, back]: &[Arc<Mutex<Vec<u8>>>; 2]| {
        relay(target.clone(), back.clone(), forward.clone())
    };
    let cp1_for_cp2 = relayed(&real[0], cp1_cp2);
    let cp1_for_cp3 = relayed(&real[0], cp1_cp3);
    let cp2_for_cp3 = relayed(&real[1], cp2_cp3);
    let outputs = match work {
        Work::Garbled(p) => p.main.outputs.len(),
        Work::Mixed(m) => m.output_values.len(),
    };
    let opts = HybridOptions {
        input_kinds: vec![kind],
        input_lanes: vec![8],
        output_kind: kind,
        output_lanes: vec![8; outputs],
        threads: 1,
        ..HybridOptions::default()
    };
    let peers = |listener: Option<usize>, cp1: &str| HybridPeers {
        listener: listener.map(|k| &listeners[k]),
        addrs: [cp1.to_string(), cp2_for_cp3.clone()],
        wait: Duration::from_secs(10),
        channel: ChannelOptions::default(),
        keys: [None; 3],
        store_id: None,
    };
    let reports = std::thread::scope(|s| {
        let handles = [
            (Role::Cp1, peers(Some(0), &cp1_for_cp2)),
            (Role::Cp2, peers(Some(1), &cp1_for_cp2)),
            (Role::Cp3, peers(None, &cp1_for_cp3)),
        ]
        .map(|(role, peers)| {
            let (opts, share) = (&opts, vec![shares[role.index()].clone()]);
            s.spawn(move || match work {
                Work::Garbled(p) => run_hybrid(role, &peers, p, &share, opts).unwrap(),
                Work::Mixed(m) => run_mixed3(role, &peers, m, &share, opts).unwrap(),
            })
        });
        handles.map(|h| h.join().unwrap())
    });
    // Let the relays pass the last bytes on.
    std::thread::sleep(Duration::from_millis(50));
    let bytes = |log: &Arc<Mutex<Vec<u8>>>| log.lock().unwrap().clone();
    // Each party's view: what it received from its peers, in role order.
    let views = [
        [bytes(&cp1_cp2[0]), bytes(&cp1_cp3[0])].concat(),
        [bytes(&cp1_cp2[1]), bytes(&cp2_cp3[0])].concat(),
        [bytes(&cp1_cp3[1]), bytes(&cp2_cp3[1])].concat(),
    ];
    (views, reports.map(|r| r.output_shares[0].clone()))
}

/// `x > 5` on an 8-bit input, and `x + 1`.
fn program() -> Program {
    let mut b = Builder::new();
    let x = b.input("x", Party::A, 8);
    let mut carry = twofold_circuit::Bit::Const(true);
    let mut sum = Vec::new();
    for &bit in &x {
        sum.push(b.xor(bit, carry));
        carry = b.and(bit, carry);
    }
    b.output("next", &sum);
    Program::from(b.finish().unwrap())
}

/// On an 8-bit `u` shared additively: `p = u·u`, `o = A→Y(p) + 1` (a
/// Boolean step), `q = Y→A(o)·u`; outputs `q` (a word: its shares plus a
/// zero sharing) and `o` (masked in the garbled sharing).
fn mixed_program() -> SharedMixed {
    let program = MixedProgram {
        parties: 3,
        inputs: vec![MixedInput {
            name: "u".into(),
            owner: 0,
            kind: Kind::Word(8),
        }],
        programs: vec![program()],
        steps: vec![
            Step::Mul(0, 0), // 1: p
            Step::ToYao(1),  // 2
            Step::Boolean {
                program: 0,
                args: vec![2],
            }, // 3: o
            Step::ToArith(3), // 4
            Step::Mul(4, 0), // 5: q
        ],
        outputs: vec![
            MixedOutput {
                name: "q".into(),
                value: 5,
            },
            MixedOutput {
                name: "o".into(),
                value: 3,
            },
        ],
    };
    let bits = |o: usize| (0..8).map(|i| OutputBit::Of(o, i)).collect();
    SharedMixed {
        program,
        input_values: vec![("u".into(), 8)],
        sources: vec![Slice {
            value: 0,
            offset: 0,
            len: 8,
            signed: false,
        }],
        output_values: vec![("q".into(), bits(0)), ("o".into(), bits(1))],
    }
}

/// `q` of [`mixed_program`] in plaintext.
fn mixed_q(u: u8) -> Vec<bool> {
    let q = (u.wrapping_mul(u).wrapping_add(1)).wrapping_mul(u);
    (0..8).map(|i| (q >> i) & 1 == 1).collect()
}

/// Fraction of runs in which each bit of the views is set, per party.
fn frequencies(runs: &[Views]) -> [Vec<f64>; 3] {
    [0, 1, 2].map(|p| bit_frequencies(runs.iter().map(|v| v[p].as_slice())))
}

/// The views of many runs of `work` on two inputs (all 0, all 1): each
/// run's output shares (of `kind`) combine to `want` of the input, the
/// views differ from run to run, and their bit statistics do not depend
/// on the input.
fn views_do_not_depend_on_the_input(
    work: Work,
    kind: ShareKind,
    want: impl Fn(&[bool]) -> Vec<bool>,
) {
    let inputs = [vec![false; 8], vec![true; 8]];
    let runs_per_input = 150;
    let mut views: [Vec<Views>; 2] = Default::default();
    for (k, input) in inputs.iter().enumerate() {
        for _ in 0..runs_per_input {
            let (seen, outputs) = observed_run(work, input);
            assert_eq!(
                combine(kind, 8, [&outputs[0], &outputs[1], &outputs[2]]),
                want(input)
            );
            views[k].push(seen);
        }
        // Views differ from run to run (fresh randomness)...
        for (p, (first, second)) in views[k][0].iter().zip(&views[k][1]).enumerate() {
            assert_ne!(first, second, "CP{} saw the same bytes twice", p + 1);
        }
    }
    // ... and their statistics are those of the other input's runs. With
    // 150 runs a side, a bit's frequency differs by about 0.06 (one standard
    // deviation) by chance; a bit that carries the input differs by 1.
    let [a, b] = [frequencies(&views[0]), frequencies(&views[1])];
    for p in 0..3 {
        assert!(!a[p].is_empty(), "CP{} received nothing", p + 1);
        let worst = worst_difference(&a[p], &b[p]);
        assert!(
            worst < 0.35,
            "CP{}: a received bit depends on the input ({worst})",
            p + 1
        );
    }
}

/// Over many runs of `work` on one input, no party's share of the first
/// output (`want`) is the output more often than chance allows.
fn no_share_is_the_output(work: Work, want: &[bool]) {
    let input = vec![true, false, true, false, false, false, false, false];
    let mut equal = [0; 3];
    let runs = 40;
    for _ in 0..runs {
        let (_, outputs) = observed_run(work, &input);
        for p in 0..3 {
            equal[p] += (outputs[p] == want) as usize;
        }
    }
    // An 8-bit share equals the output by chance in 1 run of 256.
    for (p, n) in equal.into_iter().enumerate() {
        assert!(
            n <= 2,
            "CP{}'s share was the output in {n} of {runs} runs",
            p + 1
        );
    }
}

#[test]
fn no_single_party_view_depends_on_the_input() {
    let program = program();
    let want = |x: &[bool]| program.eval(&[x.to_vec()]).unwrap().remove(0);
    views_do_not_depend_on_the_input(Work::Garbled(&program), ShareKind::Xor, want);
}

#[test]
fn no_single_party_view_of_a_mixed_program_depends_on_the_input() {
    let m = mixed_program();
    let want = |x: &[bool]| mixed_q(bits_word(x) as u8);
    views_do_not_depend_on_the_input(Work::Mixed(&m), ShareKind::Add, want);
}

#[test]
fn no_output_share_is_the_output() {
    let program = program();
    let input = vec![true, false, true, false, false, false, false, false];
    let want = program
        .eval(std::slice::from_ref(&input))
        .unwrap()
        .remove(0);
    no_share_is_the_output(Work::Garbled(&program), &want);
    let m = mixed_program();
    no_share_is_the_output(Work::Mixed(&m), &mixed_q(bits_word(&input) as u8));
}
