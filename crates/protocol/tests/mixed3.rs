//! The three-party mixed executor over loopback: arithmetic on additive
//! shares, conversions both ways, a Boolean step, inputs of both share
//! kinds and outputs of both; the combined output shares equal the mixed
//! program's plaintext evaluation, and what each party receives does not
//! depend on the inputs' values.

use rand::{Rng, SeedableRng};
use twofold_circuit::mixed::eval::{bits_word, word_bits};
use twofold_circuit::{Builder, Kind, MixedInput, MixedOutput, MixedProgram, Party, Step};
use twofold_crypto::{Block, Prg};
use twofold_net::ChannelOptions;
use twofold_protocol::hybrid::shares::{combine, split};
use twofold_protocol::mixed3::{OutputBit, SharedMixed, Slice};
use twofold_protocol::{run_mixed3_local, HybridOptions, HybridReport, ShareKind};

/// `t & c` on 32 bits, a Boolean step.
fn and_program() -> twofold_circuit::Program {
    let mut b = Builder::new();
    let t = b.input("t", Party::A, 32);
    let c = b.input("c", Party::B, 32);
    let out: Vec<_> = t.iter().zip(&c).map(|(&x, &y)| b.and(x, y)).collect();
    b.output("out", &out);
    b.finish_program().unwrap()
}

/// Input values: `u` (32 bits, shared as the test says) and `v` (32
/// bits). Program inputs: `a` = u as a word; `b` = v's low 16 bits
/// sign-extended to a 32-bit word; `c` = v's bits 8..16 zero-extended to
/// 32 garbled bits. Steps: `p = a·b`, `d = a·b + p·a`, `t = A→Y(d)`,
/// `o = t & c`, `r = Y→A(o)`, `q = r·p + 3·a`. Outputs: `q` (a word)
/// and `o`'s low 16 bits with two constant bits on top.
fn program() -> SharedMixed {
    let word = |name: &str, w| MixedInput::word(name, 0, w);
    let program = MixedProgram {
        parties: 3,
        inputs: vec![
            word("a", 32),
            word("b", 32),
            MixedInput {
                name: "c".into(),
                owner: 0,
                kind: Kind::Bits(32),
            },
        ],
        programs: vec![and_program()],
        steps: vec![
            Step::Mul(0, 1),                   // 3: p
            Step::Dot(vec![0, 3], vec![1, 0]), // 4: d
            Step::ToYao(4),                    // 5: t
            Step::Boolean {
                program: 0,
                args: vec![5, 2],
            }, // 6: o
            Step::ToArith(6),                  // 7: r
            Step::Mul(7, 3),                   // 8: r·p
            Step::MulConst(0, 3),              // 9: 3·a
            Step::Add(8, 9),                   // 10: q
        ],
        outputs: vec![
            MixedOutput {
                name: "q".into(),
                value: 10,
            },
            MixedOutput {
                name: "o".into(),
                value: 6,
            },
        ],
    };
    let mut o_bits: Vec<OutputBit> = (0..16).map(|i| OutputBit::Of(1, i)).collect();
    o_bits.extend([OutputBit::Const(true), OutputBit::Const(false)]);
    SharedMixed {
        program,
        input_values: vec![("u".into(), 32), ("v".into(), 32)],
        sources: vec![
            Slice {
                value: 0,
                offset: 0,
                len: 32,
                signed: false,
            },
            Slice {
                value: 1,
                offset: 0,
                len: 16,
                signed: true,
            },
            Slice {
                value: 1,
                offset: 8,
                len: 8,
                signed: false,
            },
        ],
        output_values: vec![
            ("q".into(), (0..32).map(|i| OutputBit::Of(0, i)).collect()),
            ("o".into(), o_bits),
        ],
    }
}

/// The output values in plaintext, from the input values.
fn expected(m: &SharedMixed, values: &[Vec<bool>]) -> Vec<Vec<bool>> {
    let inputs: Vec<Vec<bool>> = m
        .program
        .inputs
        .iter()
        .zip(&m.sources)
        .map(|(v, s)| {
            let slice = &values[s.value][s.offset as usize..(s.offset + s.len) as usize];
            let fill = s.signed && *slice.last().unwrap();
            let mut bits = slice.to_vec();
            bits.resize(v.kind.bits() as usize, fill);
            bits
        })
        .collect();
    let outs = m.program.eval(&inputs).unwrap();
    m.output_values
        .iter()
        .map(|(_, bits)| {
            bits.iter()
                .map(|b| match *b {
                    OutputBit::Const(c) => c,
                    OutputBit::Of(o, i) => outs[o][i as usize],
                })
                .collect()
        })
        .collect()
}

fn run(
    m: &SharedMixed,
    values: &[Vec<bool>],
    (input_kinds, input_lanes): ([ShareKind; 2], [u32; 2]),
    output_kind: ShareKind,
    seed: u64,
) -> ([HybridReport; 3], Vec<Vec<bool>>) {
    let mut prg = Prg::from_seed(Block(seed as u128));
    let mut shares: [Vec<Vec<bool>>; 3] = Default::default();
    for ((value, &kind), &lane) in values.iter().zip(&input_kinds).zip(&input_lanes) {
        for (p, s) in split(kind, lane, value, &mut prg).into_iter().enumerate() {
            shares[p].push(s);
        }
    }
    let output_lanes: Vec<u32> = m
        .output_values
        .iter()
        .map(|(_, b)| b.len() as u32)
        .collect();
    let opts = HybridOptions {
        input_kinds: input_kinds.to_vec(),
        input_lanes: input_lanes.to_vec(),
        output_kind,
        output_lanes: output_lanes.clone(),
        threads: 1,
        ..HybridOptions::default()
    };
    let reports = run_mixed3_local(m, &shares, &opts, &ChannelOptions::default()).unwrap();
    let combined = (0..m.output_values.len())
        .map(|j| {
            let s: [&[bool]; 3] = std::array::from_fn(|p| reports[p].output_shares[j].as_slice());
            combine(output_kind, output_lanes[j], s)
        })
        .collect();
    (reports, combined)
}

#[test]
fn mixed_programs_on_shares_equal_plaintext() {
    let m = program();
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    for round in 0..6u64 {
        let values: Vec<Vec<bool>> = match round {
            0 => vec![word_bits(0, 32), word_bits(0, 32)],
            1 => vec![word_bits(u32::MAX as u64, 32), word_bits(0x8000_ffff, 32)],
            _ => vec![
                word_bits(rng.gen::<u32>() as u64, 32),
                word_bits(rng.gen::<u32>() as u64, 32),
            ],
        };
        let want = expected(&m, &values);
        for (kinds, out) in [
            ([ShareKind::Add, ShareKind::Xor], ShareKind::Add),
            ([ShareKind::Xor, ShareKind::Add], ShareKind::Xor),
        ] {
            let (reports, got) = run(&m, &values, (kinds, [32, 32]), out, round);
            assert_eq!(
                got, want,
                "round {round}, inputs {kinds:?}, outputs {out:?}"
            );
            // CP1 garbles and CP2 evaluates the same gates; CP3 none.
            assert!(reports[0].and_gates > 0);
            assert_eq!(reports[0].and_gates, reports[1].and_gates);
            assert_eq!(reports[2].and_gates, 0);
            let q = bits_word(&got[0]);
            assert_eq!(q, bits_word(&want[0]));
        }
    }
}

/// Inputs that widen additive lanes (C's `int16_t` and `uint32_t` read
/// as wider words): `a`, `b` are the two 16-bit lanes of `u`, sign- and
/// zero-extended to 32 bits, `c` the 32-bit lane of `v` zero-extended to
/// 64, `d`, `e` the lanes of `u` again as `a`, `b`; outputs `a·b + a`,
/// `c·c`, `b` and `d·e`. `c·c` and `d·e` are fused with the widening
/// (nothing else reads their factors), `a·b` is not.
fn widening() -> SharedMixed {
    let word = |name: &str, w| MixedInput::word(name, 0, w);
    let program = MixedProgram {
        parties: 3,
        inputs: vec![
            word("a", 32),
            word("b", 32),
            word("c", 64),
            word("d", 32),
            word("e", 32),
        ],
        programs: Vec::new(),
        steps: vec![
            Step::Mul(0, 1), // 5: a·b
            Step::Add(5, 0), // 6: a·b + a
            Step::Mul(2, 2), // 7: c·c
            Step::Mul(3, 4), // 8: d·e
        ],
        outputs: ["p", "s", "b", "q"]
            .iter()
            .zip([6, 7, 1, 8])
            .map(|(name, value)| MixedOutput {
                name: name.to_string(),
                value,
            })
            .collect(),
    };
    let slice = |value, offset, len, signed| Slice {
        value,
        offset,
        len,
        signed,
    };
    let out = |o: usize, w: u32| (0..w).map(|i| OutputBit::Of(o, i)).collect();
    SharedMixed {
        program,
        input_values: vec![("u".into(), 32), ("v".into(), 32)],
        sources: vec![
            slice(0, 0, 16, true),
            slice(0, 16, 16, false),
            slice(1, 0, 32, false),
            slice(0, 0, 16, true),
            slice(0, 16, 16, false),
        ],
        output_values: vec![
            ("p".into(), out(0, 32)),
            ("s".into(), out(1, 64)),
            ("b".into(), out(2, 32)),
            ("q".into(), out(3, 32)),
        ],
    }
}

#[test]
fn widened_lanes_equal_plaintext_without_joining_their_values() {
    let m = widening();
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let edges = [0, 1, 0x7fff, 0x8000, 0xffff, 0x8000_7fff, 0xffff_ffff];
    for round in 0..12u64 {
        let (u, v) = match edges.get(round as usize) {
            Some(&e) => (e, e ^ 0x8000_0001),
            None => (rng.gen::<u32>() as u64, rng.gen::<u32>() as u64),
        };
        let values = vec![word_bits(u, 32), word_bits(v, 32)];
        let want = expected(&m, &values);
        let kinds = ([ShareKind::Add, ShareKind::Add], [16, 32]);
        let (reports, got) = run(&m, &values, kinds, ShareKind::Add, round);
        assert_eq!(got, want, "u = {u:#x}, v = {v:#x}");
        // Five wrap counts, a carry chain each, their bits injected with
        // no garbled gate; no 32- or 64-bit value is joined or converted.
        // The fused products' corrections: `c`'s carry with bits 0..31 of
        // `c` (a square: once, at twice the weight), `d`'s carry and sign
        // with `e`'s 16 low bits, `e`'s carry with `d`'s.
        let fused = 31 + 2 * 16 + 16;
        assert_eq!(reports[0].and_gates, 16 + 16 + 32 + 16 + 16 + fused);
    }
}

/// `Σ x[k]·y[k]` over the `n` 16-bit lanes of two input values shared
/// additively: products and a dot product only. Returns the reports after
/// checking the sum.
fn dot_on_shares(n: usize) -> [HybridReport; 3] {
    let dot = MixedProgram {
        parties: 3,
        inputs: (0..2 * n)
            .map(|k| MixedInput {
                name: format!("w{k}"),
                owner: 0,
                kind: Kind::Word(16),
            })
            .collect(),
        programs: vec![],
        steps: vec![Step::Dot(
            (0..n as u32).collect(),
            (n as u32..2 * n as u32).collect(),
        )],
        outputs: vec![MixedOutput {
            name: "s".into(),
            value: 2 * n as u32,
        }],
    };
    let width = 16 * n as u32;
    let m = SharedMixed {
        program: dot,
        input_values: vec![("x".into(), width), ("y".into(), width)],
        sources: (0..2 * n)
            .map(|k| Slice {
                value: k / n,
                offset: 16 * (k % n) as u32,
                len: 16,
                signed: false,
            })
            .collect(),
        output_values: vec![("s".into(), (0..16).map(|i| OutputBit::Of(0, i)).collect())],
    };
    let mut prg = Prg::from_seed(Block(9));
    let x: Vec<u64> = (1..=n as u64).collect();
    let y: Vec<u64> = (0..n as u64).map(|k| (1000 + 7 * k) & 0xffff).collect();
    let bits = |ws: &[u64]| {
        ws.iter()
            .flat_map(|&w| word_bits(w, 16))
            .collect::<Vec<bool>>()
    };
    let mut shares: [Vec<Vec<bool>>; 3] = Default::default();
    for value in [bits(&x), bits(&y)] {
        for (p, s) in split(ShareKind::Add, 16, &value, &mut prg)
            .into_iter()
            .enumerate()
        {
            shares[p].push(s);
        }
    }
    let opts = HybridOptions {
        input_kinds: vec![ShareKind::Add; 2],
        input_lanes: vec![16, 16],
        output_kind: ShareKind::Add,
        output_lanes: vec![16],
        threads: 1,
        ..HybridOptions::default()
    };
    let reports = run_mixed3_local(&m, &shares, &opts, &ChannelOptions::default()).unwrap();
    let s: [&[bool]; 3] = std::array::from_fn(|p| reports[p].output_shares[0].as_slice());
    let want = x
        .iter()
        .zip(&y)
        .fold(0u64, |acc, (a, b)| acc.wrapping_add(a * b))
        & 0xffff;
    assert_eq!(bits_word(&combine(ShareKind::Add, 16, s)), want);
    for r in &reports {
        assert_eq!(r.and_gates, 0);
    }
    reports
}

#[test]
fn an_additive_word_input_and_output_needs_no_garbling() {
    for r in dot_on_shares(8) {
        // Hellos to two peers (about 130 bytes each), the zero-sharing
        // key and one replication message of 16 words: no labels.
        assert!(r.bytes_sent < 400, "{} bytes", r.bytes_sent);
    }
}

#[test]
fn a_large_replication_goes_round_the_ring_without_blocking() {
    // 2 × 20,000 factor words of 2 bytes: 80 KB a party, past what every
    // party sends before it receives.
    for r in dot_on_shares(20_000) {
        assert!(r.bytes_sent > 80_000, "{} bytes", r.bytes_sent);
    }
}
