//! Helpers shared by the garbling-scheme tests: random levelled circuits and
//! garbling then evaluating them against plaintext evaluation.

#![allow(dead_code)] // each test binary uses its own subset

use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::HashSet;
use twofold_circuit::{eval_gates, Gate};
use twofold_crypto::{
    ActiveLabel, Backend, Block, Delta, GarblingScheme, Prg, SchemeEvaluator, SchemeGarbler,
    ZeroLabel,
};

/// A random gate list over `slots` initial wires. Outputs go to fresh wires or
/// overwrite existing ones (slot reuse, including a gate's own inputs). Runs
/// of consecutive AND gates are levelled: no AND reads a slot written earlier
/// in its run. Returns the gates and the final number of wires.
pub fn random_circuit(seed: u64, slots: usize, len: usize, and_bias: f64) -> (Vec<Gate>, usize) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut num = slots;
    let mut gates = Vec::with_capacity(len);
    // Slots written by the current run of AND gates.
    let mut written: HashSet<u32> = HashSet::new();
    while gates.len() < len {
        // Inputs come from the `num` existing wires; the output is a fresh
        // wire or any existing one.
        let fresh = rng.gen_bool(0.3);
        let out = if fresh {
            num as u32
        } else {
            rng.gen_range(0..num) as u32
        };
        let mut gate = None;
        if rng.gen_bool(and_bias) {
            // An AND whose inputs were not written earlier in this run.
            let mut pick = || {
                (0..8)
                    .map(|_| rng.gen_range(0..num) as u32)
                    .find(|w| !written.contains(w))
            };
            if let (Some(a), Some(b)) = (pick(), pick()) {
                written.insert(out);
                gate = Some(Gate::And { a, b, out });
            }
        }
        let gate = gate.unwrap_or_else(|| {
            // A free gate ends the AND run.
            written.clear();
            let a = rng.gen_range(0..num) as u32;
            let b = rng.gen_range(0..num) as u32;
            if rng.gen_bool(0.7) {
                Gate::Xor { a, b, out }
            } else {
                Gate::Inv { a, out }
            }
        });
        gates.push(gate);
        num += usize::from(fresh);
    }
    (gates, num)
}

/// Random circuit cases `(seed, slots, len, and_bias, first_id)` for
/// [`random_circuit`] and [`check_backends`]: first ids on both sides of the
/// 64-gate and 2^63 boundaries and near 2^64.
pub fn circuit_cases() -> impl Strategy<Value = (u64, usize, usize, f64, u64)> {
    (
        any::<u64>(),
        2usize..40,
        0usize..600,
        prop::sample::select(vec![0.3, 0.8, 0.97, 1.0]),
        prop::sample::select(vec![
            0u64,
            1,
            63,
            1 << 40,
            (1 << 63) - 37,
            u64::MAX / 2,
            u64::MAX - 5000,
        ]),
    )
}

/// Garbles and evaluates `gates` under `S` on every available backend, with
/// garbler and evaluator from `sides(Δ, backend)` (both numbering AND gates
/// from `first_id`); checks every final wire label against the plaintext
/// values, the table size, and that all backends produce identical tables.
pub fn check_backends<S: GarblingScheme>(
    gates: &[Gate],
    num: usize,
    seed: u64,
    first_id: u64,
    sides: impl Fn(Delta, Backend) -> (S::Garbler, S::Evaluator),
) {
    let mut prg = Prg::from_seed(Block(seed as u128 | 1 << 100));
    let delta = Delta::random(&mut prg);
    let bits: Vec<bool> = (0..num).map(|_| prg.random_bool()).collect();
    let zeros: Vec<ZeroLabel> = (0..num).map(|_| ZeroLabel::random(&mut prg)).collect();

    let mut reference_tables: Option<Vec<u8>> = None;
    let mut plain = bits.clone();
    eval_gates(gates, &mut plain);
    let ands = gates.iter().filter(|g| g.is_and()).count();

    for backend in Backend::available() {
        let (mut garbler, mut evaluator) = sides(delta, backend);
        let mut g_labels = zeros.clone();
        let active: Vec<ActiveLabel> = zeros
            .iter()
            .zip(&bits)
            .map(|(z, &b)| garbler.encode(*z, b))
            .collect();
        let mut e_labels = active;
        let mut tables = vec![5u8]; // garble appends
        garbler.garble(gates, &mut g_labels, &mut tables).unwrap();
        assert_eq!(tables[0], 5);
        assert_eq!(tables.len(), 1 + S::table_bytes(ands));
        evaluator
            .evaluate(gates, &mut e_labels, &tables[1..])
            .unwrap();
        assert_eq!(garbler.next_gate_id(), first_id + ands as u64);
        assert_eq!(evaluator.next_gate_id(), first_id + ands as u64);
        for w in 0..num {
            assert_eq!(
                e_labels[w],
                garbler.encode(g_labels[w], plain[w]),
                "{backend}: wire {w}"
            );
            assert_eq!(e_labels[w].decode(g_labels[w].decode_bit()), plain[w]);
        }
        match &reference_tables {
            None => reference_tables = Some(tables),
            Some(r) => assert_eq!(r, &tables, "{backend} tables differ"),
        }
    }
}

/// Garbles and evaluates `gates` through the [`GarblingScheme`] seam only
/// (as the protocol engines do) and checks the table size and every final
/// wire against plaintext evaluation.
pub fn check_scheme<S: GarblingScheme>(gates: &[Gate], num: usize, seed: u64) {
    let mut prg = Prg::from_seed(Block(seed as u128 | 1 << 90));
    let delta = Delta::random(&mut prg);
    let bits: Vec<bool> = (0..num).map(|_| prg.random_bool()).collect();
    let zeros: Vec<ZeroLabel> = (0..num).map(|_| ZeroLabel::random(&mut prg)).collect();
    let mut plain = bits.clone();
    eval_gates(gates, &mut plain);
    let ands = gates.iter().filter(|g| g.is_and()).count();

    let mut garbler = S::Garbler::new(delta, 3).unwrap();
    let mut evaluator = S::Evaluator::new(3);
    let mut e_labels: Vec<ActiveLabel> = zeros
        .iter()
        .zip(&bits)
        .map(|(z, &b)| garbler.encode(*z, b))
        .collect();
    let mut g_labels = zeros;
    let mut tables = Vec::new();
    garbler.garble(gates, &mut g_labels, &mut tables).unwrap();
    assert_eq!(tables.len(), S::table_bytes(ands));
    evaluator.evaluate(gates, &mut e_labels, &tables).unwrap();
    assert_eq!(garbler.delta(), delta);
    assert_eq!(garbler.next_gate_id(), 3 + ands as u64);
    assert_eq!(evaluator.next_gate_id(), 3 + ands as u64);
    for w in 0..num {
        assert_eq!(
            e_labels[w],
            garbler.encode(g_labels[w], plain[w]),
            "wire {w}"
        );
    }
}

/// Garbles `gates` with `garbler`; returns it, the final 0-labels, the
/// active input labels of `bits` and the tables.
pub fn garble_eval<G: SchemeGarbler>(
    mut garbler: G,
    gates: &[Gate],
    zeros: &[ZeroLabel],
    bits: &[bool],
) -> (G, Vec<ZeroLabel>, Vec<ActiveLabel>, Vec<u8>) {
    let mut g_labels = zeros.to_vec();
    let mut tables = Vec::new();
    garbler.garble(gates, &mut g_labels, &mut tables).unwrap();
    let active: Vec<ActiveLabel> = zeros
        .iter()
        .zip(bits)
        .map(|(z, &b)| garbler.encode(*z, b))
        .collect();
    (garbler, g_labels, active, tables)
}

/// `n` AND gates on the same two input wires 0 and 1, outputs on fresh
/// wires from 2: only the gate id tells them apart.
pub fn same_input_ands(n: u32) -> Vec<Gate> {
    (0..n)
        .map(|i| Gate::And {
            a: 0,
            b: 1,
            out: 2 + i,
        })
        .collect()
}

/// Long levelled AND runs over `n` wires crossing chunk boundaries, every
/// gate of the first run overwriting one of its own inputs (each slot is read
/// before, or by the same gate that, overwrites it), then a second run, an
/// XOR and an INV in between and after.
pub fn in_place_runs(n: u32) -> Vec<Gate> {
    let mut gates: Vec<Gate> = (0..n - 1)
        .map(|i| Gate::And {
            a: i,
            b: i + 1,
            out: i,
        })
        .collect();
    gates.push(Gate::Xor { a: 0, b: 1, out: 2 });
    gates.extend((0..n / 2).map(|i| Gate::And {
        a: 2 * i,
        b: 2 * i + 1,
        out: 2 * i + 1,
    }));
    gates.push(Gate::Inv { a: 5, out: 5 });
    gates
}

/// Bad input to `S`'s garbler and evaluator gives the precise errors, never
/// a panic, and leaves the tables and gate counters as they were: wires out
/// of range (also past the first hash chunk), tables one byte short, and
/// gate ids that would overflow (filling the id space exactly is fine).
pub fn check_bad_inputs<S: GarblingScheme>() {
    use twofold_crypto::CryptoError;
    let mut prg = Prg::from_seed(Block(4));
    let delta = Delta::random(&mut prg);
    let zeros: Vec<ZeroLabel> = (0..4).map(|_| ZeroLabel::random(&mut prg)).collect();
    let bad_wire = [
        Gate::And { a: 0, b: 1, out: 2 },
        Gate::Xor { a: 0, b: 9, out: 3 },
    ];
    let mut garbler = S::Garbler::new(delta, 5).unwrap();
    let mut labels = zeros.clone();
    let mut tables = vec![1u8];
    assert_eq!(
        garbler.garble(&bad_wire, &mut labels, &mut tables),
        Err(CryptoError::WireOutOfRange {
            gate: 1,
            wire: 9,
            num_wires: 4
        })
    );
    // Tables and the counter are unchanged; the labels are to be discarded.
    assert_eq!(tables, [1]);
    assert_eq!(garbler.next_gate_id(), 5);
    let inv_out = [Gate::Inv { a: 0, out: 4 }];
    assert!(garbler.garble(&inv_out, &mut labels, &mut tables).is_err());
    let mut long: Vec<Gate> = (0..150).map(|_| Gate::And { a: 0, b: 1, out: 2 }).collect();
    long.push(Gate::And { a: 0, b: 1, out: 4 });
    assert_eq!(
        garbler.garble(&long, &mut labels, &mut tables),
        Err(CryptoError::WireOutOfRange {
            gate: 150,
            wire: 4,
            num_wires: 4
        })
    );
    assert_eq!(tables, [1]);
    assert_eq!(garbler.next_gate_id(), 5);

    let mut evaluator = S::Evaluator::new(5);
    let mut active: Vec<ActiveLabel> = zeros
        .iter()
        .map(|z| ActiveLabel::from_block(z.block()))
        .collect();
    let plenty = vec![0u8; S::table_bytes(200)];
    assert!(evaluator.evaluate(&bad_wire, &mut active, &plenty).is_err());
    assert!(evaluator.evaluate(&long, &mut active, &plenty).is_err());
    let needed = S::table_bytes(150);
    assert_eq!(
        evaluator.evaluate(&long[..150], &mut active, &plenty[..needed - 1]),
        Err(CryptoError::TablesTooShort {
            needed,
            got: needed - 1
        })
    );
    assert_eq!(evaluator.next_gate_id(), 5);
    evaluator
        .evaluate(&long[..150], &mut active, &plenty[..needed])
        .unwrap();
    assert_eq!(evaluator.next_gate_id(), 155);

    let two_ands = [
        Gate::And { a: 0, b: 1, out: 2 },
        Gate::And { a: 0, b: 1, out: 3 },
    ];
    let mut end = S::Garbler::new(delta, u64::MAX - 1).unwrap();
    assert_eq!(
        end.garble(&two_ands, &mut labels, &mut tables),
        Err(CryptoError::GateIdOverflow)
    );
    let mut end = S::Evaluator::new(u64::MAX - 1);
    assert_eq!(
        end.evaluate(&two_ands, &mut active, &plenty),
        Err(CryptoError::GateIdOverflow)
    );
    let mut end = S::Garbler::new(delta, u64::MAX - 2).unwrap();
    end.garble(&two_ands, &mut labels, &mut tables).unwrap();
    assert_eq!(end.next_gate_id(), u64::MAX);
}
