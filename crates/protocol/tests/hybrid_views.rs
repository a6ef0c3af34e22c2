//! What each computing party of the hybrid mode sees does not depend on
//! the secret input. For two different inputs, over many runs, these have
//! the same bit statistics:
//!
//! * every byte a party receives (recorded by a relay on each connection);
//! * every value it holds (`hybrid::held`): the words it decodes from
//!   garbled outputs, its shares and replicated pairs (with their sums),
//!   CP3's combinations of CP2's shares with its own, its output shares;
//! * the output shares of every two parties combined: outputs leave as
//!   fresh three-party sharings, so that a later run on them (where CP2
//!   sends CP3 its shares) reveals nothing either.
//!
//! What a party receives and holds differs from run to run, and no share
//! it holds, nor the sum of its replicated pair, is the value it shares
//! more often than chance. The same for a mixed program on the shares
//! (issue 30): products, both conversions, a Boolean step, outputs of
//! both forms.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use twofold_circuit::mixed::eval::{bits_word, word_bits};
use twofold_circuit::mixed::mask;
use twofold_circuit::{
    Builder, MixedInput, MixedOutput, MixedProgram, Party, Program, Step, ValueId,
};
use twofold_crypto::Prg;
use twofold_net::{ChannelOptions, Listener};
use twofold_protocol::hybrid::held::{recording, Holding};
use twofold_protocol::hybrid::shares::{combine, combine_two, split};
use twofold_protocol::mixed3::{OutputBit, SharedMixed, Slice};
use twofold_protocol::{run_hybrid, run_mixed3, HybridOptions, HybridPeers, Role, ShareKind};

mod views;
use views::{bit_frequencies, relay, worst_difference};

/// One byte view per party (CP1, CP2, CP3).
type Views = [Vec<u8>; 3];

/// What one run showed each party (CP1, CP2, CP3).
struct Seen {
    /// The bytes it received.
    received: Views,
    /// What it held, in order.
    held: [Vec<Holding>; 3],
    /// Its share of each output value.
    outputs: [Vec<Vec<bool>>; 3],
}

/// What the parties run: a Boolean program (XOR shares in and out) or a
/// mixed one (additive shares in and out).
#[derive(Clone, Copy)]
enum Work<'a> {
    Garbled(&'a Program),
    Mixed(&'a SharedMixed),
}

/// One run of `work` on the shares of the 8-bit `input`, every connection
/// relayed, every party recording what it holds.
fn observed_run(work: Work, input: &[bool]) -> Seen {
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
            s.spawn(move || {
                recording(|| match work {
                    Work::Garbled(p) => run_hybrid(role, &peers, p, &share, opts).unwrap(),
                    Work::Mixed(m) => run_mixed3(role, &peers, m, &share, opts).unwrap(),
                })
            })
        });
        handles.map(|h| h.join().unwrap())
    });
    // Let the relays pass the last bytes on.
    std::thread::sleep(Duration::from_millis(50));
    let bytes = |log: &Arc<Mutex<Vec<u8>>>| log.lock().unwrap().clone();
    // Each party's view: what it received from its peers, in role order.
    let received = [
        [bytes(&cp1_cp2[0]), bytes(&cp1_cp3[0])].concat(),
        [bytes(&cp1_cp2[1]), bytes(&cp2_cp3[0])].concat(),
        [bytes(&cp1_cp3[1]), bytes(&cp2_cp3[1])].concat(),
    ];
    let [cp1, cp2, cp3] = reports;
    Seen {
        received,
        held: [cp1.1, cp2.1, cp3.1],
        outputs: [cp1.0, cp2.0, cp3.0].map(|r| r.output_shares),
    }
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
/// Boolean step), `q = Y→A(o)·u`, and `s = v·v` for `v`, `u`'s lane
/// sign-extended to 16 bits (its wrap count injected); outputs `q` (a
/// word: its shares plus a zero sharing), `o` and `s` (masked in the
/// garbled sharing).
fn mixed_program() -> SharedMixed {
    let word = |name: &str, w| MixedInput::word(name, 0, w);
    let program = MixedProgram {
        parties: 3,
        inputs: vec![word("u", 8), word("v", 16)],
        programs: vec![program()],
        steps: vec![
            Step::Mul(0, 0), // 2: p
            Step::ToYao(2),  // 3
            Step::Boolean {
                program: 0,
                args: vec![3],
            }, // 4: o
            Step::ToArith(4), // 5
            Step::Mul(5, 0), // 6: q
            Step::Mul(1, 1), // 7: s
        ],
        outputs: [("q", 6), ("o", 4), ("s", 7)]
            .map(|(name, value)| MixedOutput {
                name: name.into(),
                value,
            })
            .to_vec(),
    };
    let bits = |o: usize, w: u32| (0..w).map(|i| OutputBit::Of(o, i)).collect();
    let lane = |signed| Slice {
        value: 0,
        offset: 0,
        len: 8,
        signed,
    };
    SharedMixed {
        program,
        input_values: vec![("u".into(), 8)],
        sources: vec![lane(false), lane(true)],
        output_values: vec![
            ("q".into(), bits(0, 8)),
            ("o".into(), bits(1, 8)),
            ("s".into(), bits(2, 16)),
        ],
    }
}

/// The words of [`mixed_program`] in plaintext, by value: `u`, `v`, `p`,
/// `o` (as Y→A makes it a word), `q`, `s`.
fn mixed_words(u: u8) -> impl Fn(ValueId) -> u64 {
    let p = u.wrapping_mul(u);
    let o = p.wrapping_add(1);
    let q = o.wrapping_mul(u);
    let v = u as i8 as i16 as u16;
    move |id| match id {
        0 => u.into(),
        1 => v.into(),
        2 => p.into(),
        5 => o.into(),
        6 => q.into(),
        7 => v.wrapping_mul(v).into(),
        _ => unreachable!("value {id} is bits"),
    }
}

/// The outputs of [`mixed_program`] in plaintext: `q`, `o`, `s`.
fn mixed_outputs(input: &[bool]) -> Vec<Vec<bool>> {
    let words = mixed_words(bits_word(input) as u8);
    vec![
        word_bits(words(6), 8),
        word_bits(words(5), 8),
        word_bits(words(7), 16),
    ]
}

/// Bits packed into bytes, least significant first.
fn packed(bits: &[bool]) -> Vec<u8> {
    let byte = |c: &[bool]| c.iter().rev().fold(0u8, |acc, &b| acc << 1 | b as u8);
    bits.chunks(8).map(byte).collect()
}

/// The bits of what a party held: each share, and of a replicated pair
/// also the next share and their sum (what the party learns of the
/// value); CP3's joined shares; what CP2 decoded.
fn held_bits(held: &[Holding]) -> Vec<bool> {
    let mut bits = Vec::new();
    for h in held {
        match *h {
            Holding::Word {
                width, share, next, ..
            } => {
                bits.extend(word_bits(share, width));
                if let Some(next) = next {
                    bits.extend(word_bits(next, width));
                    bits.extend(word_bits(share.wrapping_add(next), width));
                }
            }
            Holding::LaneSum {
                width, share, next, ..
            } => {
                bits.extend(word_bits(share, width));
                bits.extend(word_bits(next, width));
                bits.extend(word_bits(share.wrapping_add(next), width));
            }
            Holding::Joined(ref bits_held) | Holding::Opened(ref bits_held) => {
                bits.extend(bits_held)
            }
        }
    }
    bits
}

/// Each party's view of the values it held in a run: what it held, then
/// its output shares.
fn held_views(seen: &Seen) -> Views {
    [0, 1, 2].map(|p| {
        let mut bits = held_bits(&seen.held[p]);
        bits.extend(seen.outputs[p].concat());
        packed(&bits)
    })
}

/// Per party, the output shares (of `kind`) of the other two combined:
/// the output less that party's share.
fn others_outputs(kind: ShareKind, seen: &Seen) -> Views {
    [0, 1, 2].map(|p| {
        let [a, b] = [(p + 1) % 3, (p + 2) % 3].map(|q| &seen.outputs[q]);
        let bits: Vec<bool> = a
            .iter()
            .zip(b)
            .flat_map(|(x, y)| combine_two(kind, 8, x, y))
            .collect();
        packed(&bits)
    })
}

/// Fails unless each party's `views` (per run, per party: one list for
/// each input) have every bit set about as often under both inputs. With
/// 150 runs a side, a bit's frequency differs by about 0.06 (one standard
/// deviation) by chance; a bit that carries the input differs by 1.
fn same_statistics(what: &str, views: [Vec<Views>; 2]) {
    let frequencies =
        |runs: &[Views]| [0, 1, 2].map(|p| bit_frequencies(runs.iter().map(|v| v[p].as_slice())));
    let [a, b] = [frequencies(&views[0]), frequencies(&views[1])];
    for p in 0..3 {
        assert!(!a[p].is_empty(), "CP{}: no bit {what}", p + 1);
        assert_eq!(
            a[p].len(),
            b[p].len(),
            "CP{}: {what} differ in length",
            p + 1
        );
        let worst = worst_difference(&a[p], &b[p]);
        assert!(
            worst < 0.35,
            "CP{}: a bit {what} depends on the input ({worst})",
            p + 1
        );
    }
}

/// The runs of `work` on two inputs (all 0, all 1): each run's output
/// shares (of `kind`) combine to `want` of the input, the bit statistics
/// of what each party receives and holds do not depend on the input, nor
/// do those of any two parties' output shares combined, and what each
/// party receives and holds differs from run to run.
fn views_do_not_depend_on_the_input(
    work: Work,
    kind: ShareKind,
    want: impl Fn(&[bool]) -> Vec<Vec<bool>>,
) {
    let inputs = [vec![false; 8], vec![true; 8]];
    let runs_per_input = 150;
    let mut runs: [Vec<Seen>; 2] = Default::default();
    for (k, input) in inputs.iter().enumerate() {
        for _ in 0..runs_per_input {
            let seen = observed_run(work, input);
            for (j, want) in want(input).iter().enumerate() {
                let [a, b, c] = &seen.outputs;
                assert_eq!(&combine(kind, 8, [&a[j], &b[j], &c[j]]), want);
            }
            runs[k].push(seen);
        }
    }
    let views = |f: &dyn Fn(&Seen) -> Views| runs.each_ref().map(|r| r.iter().map(f).collect());
    same_statistics("received", views(&|s| s.received.clone()));
    same_statistics("held", views(&held_views));
    same_statistics(
        "of the others' output shares combined",
        views(&|s| others_outputs(kind, s)),
    );
    // Fresh randomness in every run: a view as short as one byte repeats
    // by chance in 1 pair of consecutive runs of 256, a fixed seed in all.
    for runs in &runs {
        let held: Vec<_> = runs.iter().map(held_views).collect();
        for p in 0..3 {
            let received = repeats(runs.iter().map(|run| &run.received[p]));
            let kept = repeats(held.iter().map(|h| &h[p]));
            let limit = runs.len() / 4;
            assert!(
                received < limit,
                "CP{} received the same bytes as in the run before in {received} runs",
                p + 1
            );
            assert!(
                kept < limit,
                "CP{} held the same as in the run before in {kept} runs",
                p + 1
            );
        }
    }
}

/// How many views of a run are the same as the run's before.
fn repeats<T: PartialEq>(views: impl Iterator<Item = T>) -> usize {
    let views: Vec<T> = views.collect();
    views.windows(2).filter(|w| w[0] == w[1]).count()
}

/// Over many runs of `work` on one input, no party's share of an output
/// (`want`) is the output, and no word share a party holds, nor the sum of
/// a replicated pair, is the word (`words`: each word in plaintext by its
/// value) more often than chance. Each word's shares, recorded in the same
/// order by the three parties, sum to the word, and a pair's next share
/// is the next party's.
fn no_share_is_the_value(
    work: Work,
    input: &[bool],
    want: &[Vec<bool>],
    words: impl Fn(ValueId) -> u64,
) {
    let runs = 40;
    // Per party: runs in which each output share, then each word held,
    // was the value.
    let mut equal: [Vec<usize>; 3] = Default::default();
    for _ in 0..runs {
        let seen = observed_run(work, input);
        let held = seen.held.each_ref().map(|h| {
            // Each word held, with the bits its shares sum to the value in
            // (a fused factor's lane sum: the lane's).
            let words = h.iter().filter_map(|h| match *h {
                Holding::Word {
                    value,
                    width,
                    share,
                    next,
                } => Some((value, width, width, share, next)),
                Holding::LaneSum {
                    value,
                    lane,
                    width,
                    share,
                    next,
                } => Some((value, width, lane, share, Some(next))),
                Holding::Joined(_) | Holding::Opened(_) => None,
            });
            words.collect::<Vec<_>>()
        });
        for p in 0..3 {
            let mut hits: Vec<bool> = seen.outputs[p]
                .iter()
                .zip(want)
                .map(|(s, w)| s == w)
                .collect();
            for (r, &(value, width, exact, share, next)) in held[p].iter().enumerate() {
                let plain = words(value) & mask(width);
                let shares = [0, 1, 2].map(|q| held[q][r]);
                assert!(
                    shares.iter().all(|s| s.0 == value),
                    "CP{}: words out of order",
                    p + 1
                );
                let sum = shares.iter().fold(0u64, |acc, s| acc.wrapping_add(s.3));
                assert_eq!(
                    sum & mask(exact),
                    plain & mask(exact),
                    "value {value}: shares of another value"
                );
                if let Some(next) = next {
                    assert_eq!(
                        next,
                        shares[(p + 1) % 3].3,
                        "value {value}: not the next share"
                    );
                }
                let pair = next.map(|n| share.wrapping_add(n) & mask(width));
                hits.push(share == plain || pair == Some(plain));
            }
            equal[p].resize(hits.len(), 0);
            for (n, hit) in equal[p].iter_mut().zip(hits) {
                *n += hit as usize;
            }
        }
    }
    // An 8-bit share (or a pair's sum) is the value by chance in 1 run of
    // 256 (128): over 40 runs, 6 is far out of reach, a leak is 40.
    for (p, counts) in equal.iter().enumerate() {
        for (k, &n) in counts.iter().enumerate() {
            assert!(
                n <= 5,
                "CP{}: its share #{k} (outputs first) was the value in {n} of {runs} runs",
                p + 1
            );
        }
    }
}

#[test]
fn no_single_party_view_depends_on_the_input() {
    let program = program();
    let want = |x: &[bool]| program.eval(&[x.to_vec()]).unwrap();
    views_do_not_depend_on_the_input(Work::Garbled(&program), ShareKind::Xor, want);
}

#[test]
fn no_single_party_view_of_a_mixed_program_depends_on_the_input() {
    let m = mixed_program();
    views_do_not_depend_on_the_input(Work::Mixed(&m), ShareKind::Add, mixed_outputs);
}

#[test]
fn no_share_is_the_value_it_shares() {
    let input = word_bits(5, 8);
    let program = program();
    let want = program.eval(std::slice::from_ref(&input)).unwrap();
    let no_words = |v| unreachable!("the hybrid mode holds no word ({v})");
    no_share_is_the_value(Work::Garbled(&program), &input, &want, no_words);
    let m = mixed_program();
    let want = mixed_outputs(&input);
    let words = mixed_words(5);
    no_share_is_the_value(Work::Mixed(&m), &input, &want, words);
}
