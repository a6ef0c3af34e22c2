//! What each computing party of the hybrid mode sees does not depend on
//! the secret input: every byte a party receives (recorded by a relay on
//! each connection) and its output shares have the same bit statistics for
//! two different inputs, and differ from run to run.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use twofold_circuit::{Builder, Party, Program};
use twofold_crypto::Prg;
use twofold_net::{ChannelOptions, Listener};
use twofold_protocol::hybrid::shares::{combine, split};
use twofold_protocol::{run_hybrid, HybridOptions, HybridPeers, Role, ShareKind};

mod views;
use views::{bit_frequencies, relay, worst_difference};

/// Bytes received by each party over one run (CP1, CP2, CP3).
type Views = [Vec<u8>; 3];

/// One run of `program` on the shares of `input`, every connection relayed;
/// returns what each party received and each party's output shares.
fn observed_run(program: &Program, input: &[bool]) -> (Views, [Vec<bool>; 3]) {
    let kind = ShareKind::Xor;
    let shares = split(kind, input, &mut Prg::from_os());
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
    let opts = HybridOptions {
        input_kinds: vec![kind],
        output_kind: kind,
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
            s.spawn(move || run_hybrid(role, &peers, program, &share, opts).unwrap())
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

/// Fraction of runs in which each bit of the views is set, per party.
fn frequencies(runs: &[Views]) -> [Vec<f64>; 3] {
    [0, 1, 2].map(|p| bit_frequencies(runs.iter().map(|v| v[p].as_slice())))
}

#[test]
fn no_single_party_view_depends_on_the_input() {
    let program = program();
    let inputs = [vec![false; 8], vec![true; 8]];
    let runs_per_input = 150;
    let mut views: [Vec<Views>; 2] = Default::default();
    for (k, input) in inputs.iter().enumerate() {
        let want = program.eval(std::slice::from_ref(input)).unwrap().remove(0);
        for _ in 0..runs_per_input {
            let (seen, outputs) = observed_run(&program, input);
            assert_eq!(
                combine(ShareKind::Xor, [&outputs[0], &outputs[1], &outputs[2]]),
                want
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

#[test]
fn no_output_share_is_the_output() {
    let program = program();
    let input = vec![true, false, true, false, false, false, false, false];
    let want = program
        .eval(std::slice::from_ref(&input))
        .unwrap()
        .remove(0);
    let mut equal = [0; 3];
    let runs = 40;
    for _ in 0..runs {
        let (_, outputs) = observed_run(&program, &input);
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
