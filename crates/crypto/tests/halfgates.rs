//! Half-gates garbling and evaluation against plaintext evaluation.

mod common;

use common::{
    check_backends, check_bad_inputs, check_scheme, circuit_cases, in_place_runs, random_circuit,
    same_input_ands,
};
use proptest::prelude::*;
use std::collections::HashSet;
use twofold_circuit::Gate;
use twofold_crypto::{
    blocks_as_bytes, ActiveLabel, Backend, Block, Delta, Evaluator, Garbler, HalfGates, Prg, Tccr,
    ZeroLabel,
};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn garbled_evaluation_matches_plaintext(
        (seed, slots, len, and_bias, first_id) in circuit_cases(),
    ) {
        let (gates, num) = random_circuit(seed, slots, len, and_bias);
        check_circuit(&gates, num, seed, first_id);
    }
}

#[test]
fn half_gates_through_the_scheme_seam() {
    for seed in 0..16 {
        let (gates, num) = random_circuit(seed, 24, 500, 0.8);
        check_scheme::<HalfGates>(&gates, num, seed);
    }
}

/// Long levelled AND runs crossing chunk boundaries, every gate overwriting
/// one of its own inputs, and a gate id near the end of the 64-bit space.
#[test]
fn long_and_runs_with_in_place_outputs() {
    let n = 300u32;
    let gates = in_place_runs(n);
    check_circuit(&gates, n as usize, 7, u64::MAX - 1000);
}

/// Garbles and evaluates `gates` on every backend (see [`check_backends`]).
fn check_circuit(gates: &[Gate], num: usize, seed: u64, first_id: u64) {
    check_backends::<HalfGates>(gates, num, seed, first_id, |delta, backend| {
        (
            Garbler::with_backend(delta, first_id, backend).unwrap(),
            Evaluator::with_backend(first_id, backend).unwrap(),
        )
    });
}

/// One half-gates garbler on a circuit, with the tables.
fn garble_eval(
    gates: &[Gate],
    zeros: &[ZeroLabel],
    bits: &[bool],
    delta: Delta,
) -> (Garbler, Vec<ZeroLabel>, Vec<ActiveLabel>, Vec<u8>) {
    common::garble_eval(Garbler::new(delta, 0), gates, zeros, bits)
}

#[test]
fn every_and_gets_distinct_tweaks() {
    // 200 AND gates on the same inputs: only the tweak tells them apart.
    let gates = same_input_ands(200);
    let mut prg = Prg::from_seed(Block(11));
    let delta = Delta::random(&mut prg);
    let zeros: Vec<ZeroLabel> = (0..202).map(|_| ZeroLabel::random(&mut prg)).collect();
    let (garbler, g_labels, _, tables) = garble_eval(&gates, &zeros, &[true; 202], delta);
    assert_eq!(garbler.next_gate_id(), 200);
    let distinct: HashSet<&[u8]> = tables.chunks_exact(16).collect();
    assert_eq!(distinct.len(), 400);
    let outs: HashSet<u128> = g_labels[2..].iter().map(|z| z.block().0).collect();
    assert_eq!(outs.len(), 200);

    // Ids continue across calls: garbling in two calls gives the same tables.
    let mut split = Garbler::new(delta, 0);
    let mut labels = zeros.clone();
    let mut t2 = Vec::new();
    split.garble(&gates[..77], &mut labels, &mut t2).unwrap();
    assert_eq!(split.next_gate_id(), 77);
    split.garble(&gates[77..], &mut labels, &mut t2).unwrap();
    assert_eq!(t2, tables);
    assert_eq!(labels, g_labels);

    // A different first id gives different tables throughout.
    let mut shifted = Garbler::new(delta, 1);
    let mut t3 = Vec::new();
    shifted.garble(&gates, &mut zeros.clone(), &mut t3).unwrap();
    assert!(t3
        .chunks_exact(16)
        .zip(tables.chunks_exact(16))
        .all(|(x, y)| x != y));
}

#[test]
fn wrong_table_or_id_gives_a_wrong_label() {
    let gates = [Gate::And { a: 0, b: 1, out: 2 }];
    let mut prg = Prg::from_os();
    let delta = Delta::random(&mut prg);
    for trial in 0..64 {
        let zeros: Vec<ZeroLabel> = (0..3).map(|_| ZeroLabel::random(&mut prg)).collect();
        let bits = [trial & 1 == 1, trial & 2 == 2, false];
        let (garbler, g_labels, active, tables) = garble_eval(&gates, &zeros, &bits, delta);
        let good0 = g_labels[2].block();
        let valid = |l: ActiveLabel| l.block() == good0 || l.block() == good0 ^ delta.block();
        let eval = |tables: &[u8], id: u64| {
            let mut labels = active.clone();
            Evaluator::new(id)
                .evaluate(&gates, &mut labels, tables)
                .unwrap();
            labels[2]
        };
        let right = eval(&tables, 0);
        assert_eq!(right, garbler.encode(g_labels[2], bits[0] & bits[1]));
        // The colour bits select which table rows the evaluator uses.
        let (sa, sb) = (active[0].block().lsb(), active[1].block().lsb());
        for (row, used) in [(0, sa), (1, sb)] {
            let mut bad = tables.clone();
            bad[16 * row + trial % 16] ^= 1 << (trial % 8);
            let out = eval(&bad, 0);
            assert_eq!(out != right, used, "row {row}");
            assert_eq!(valid(out), !used);
        }
        // A wrong gate id always breaks the output.
        assert!(!valid(eval(&tables, 1)));
    }
}

#[test]
fn free_gates() {
    let gates = [Gate::Xor { a: 0, b: 1, out: 2 }, Gate::Inv { a: 2, out: 3 }];
    let mut prg = Prg::from_seed(Block(3));
    let delta = Delta::random(&mut prg);
    let zeros: Vec<ZeroLabel> = (0..4).map(|_| ZeroLabel::random(&mut prg)).collect();
    let (_, g, active, tables) = garble_eval(&gates, &zeros, &[true, false, false, false], delta);
    assert!(tables.is_empty());
    assert_eq!(g[2].block(), zeros[0].block() ^ zeros[1].block());
    assert_eq!(g[3].block(), g[2].block() ^ delta.block());
    let mut e = active;
    Evaluator::new(0).evaluate(&gates, &mut e, &tables).unwrap();
    assert_eq!(e[3], e[2]);
    assert!(!e[3].decode(g[3].decode_bit()));
    assert!(e[2].decode(g[2].decode_bit()));
}

#[test]
fn bad_inputs_are_errors_and_keep_tables_and_ids() {
    check_bad_inputs::<HalfGates>();
}

/// The garbler and evaluator against the formulas of DESIGN.md computed
/// directly with the TCCR hash and tweaks `j = 2g`, `j' = 2g + 1`, on every
/// backend, for first ids on both sides of 2^63 and near 2^64.
#[test]
fn matches_reference_formulas() {
    let h = Tccr::with_backend(Backend::Portable).unwrap();
    let mut prg = Prg::from_seed(Block(99));
    // A run of 37 independent ANDs (full vectors and a padded tail), one
    // overwriting its own input, an XOR, an INV, then two more ANDs.
    let mut gates: Vec<Gate> = (0..37)
        .map(|i| Gate::And {
            a: i % 8,
            b: (i * 3 + 1) % 8,
            out: 8 + i,
        })
        .collect();
    gates.push(Gate::And { a: 3, b: 4, out: 3 });
    gates.push(Gate::Xor {
        a: 8,
        b: 9,
        out: 45,
    });
    gates.push(Gate::Inv { a: 45, out: 46 });
    gates.push(Gate::And {
        a: 45,
        b: 46,
        out: 47,
    });
    gates.push(Gate::And {
        a: 3,
        b: 10,
        out: 10,
    });
    let num = 48;
    for first_id in [0u64, 1, 12345, (1 << 63) - 20, (1 << 63) - 2, u64::MAX - 50] {
        let delta = Delta::random(&mut prg);
        let d = delta.block();
        let zeros: Vec<ZeroLabel> = (0..num).map(|_| ZeroLabel::random(&mut prg)).collect();
        let bits: Vec<bool> = (0..num).map(|_| prg.random_bool()).collect();
        let active: Vec<ActiveLabel> = zeros
            .iter()
            .zip(&bits)
            .map(|(z, &b)| ActiveLabel::from_block(z.block() ^ d.select(b)))
            .collect();

        // Reference garbling, sequentially.
        let mut z: Vec<Block> = zeros.iter().map(|l| l.block()).collect();
        let mut expect_tables = Vec::new();
        let mut g = first_id;
        for gate in &gates {
            match *gate {
                Gate::And { a, b, out } => {
                    let (a0, b0) = (z[a as usize], z[b as usize]);
                    let (j, j1) = (Block((g as u128) * 2), Block((g as u128) * 2 + 1));
                    let (pa, pb) = (a0.lsb(), b0.lsb());
                    let tg = h.hash(a0, j) ^ h.hash(a0 ^ d, j) ^ d.select(pb);
                    let wg = h.hash(a0, j) ^ tg.select(pa);
                    let te = h.hash(b0, j1) ^ h.hash(b0 ^ d, j1) ^ a0;
                    let we = h.hash(b0, j1) ^ (te ^ a0).select(pb);
                    z[out as usize] = wg ^ we;
                    expect_tables.extend([tg, te]);
                    g += 1;
                }
                Gate::Xor { a, b, out } => z[out as usize] = z[a as usize] ^ z[b as usize],
                Gate::Inv { a, out } => z[out as usize] = z[a as usize] ^ d,
            }
        }

        // Reference evaluation, sequentially, on the reference tables.
        let mut x: Vec<Block> = active.iter().map(|l| l.block()).collect();
        let mut g = first_id;
        let mut rows = expect_tables.chunks_exact(2);
        for gate in &gates {
            match *gate {
                Gate::And { a, b, out } => {
                    let (la, lb) = (x[a as usize], x[b as usize]);
                    let (j, j1) = (Block((g as u128) * 2), Block((g as u128) * 2 + 1));
                    let row = rows.next().unwrap();
                    let (tg, te) = (row[0], row[1]);
                    x[out as usize] = h.hash(la, j)
                        ^ tg.select(la.lsb())
                        ^ h.hash(lb, j1)
                        ^ (te ^ la).select(lb.lsb());
                    g += 1;
                }
                Gate::Xor { a, b, out } => x[out as usize] = x[a as usize] ^ x[b as usize],
                Gate::Inv { a, out } => x[out as usize] = x[a as usize],
            }
        }

        for backend in Backend::available() {
            let mut garbler = Garbler::with_backend(delta, first_id, backend).unwrap();
            let mut g_labels = zeros.clone();
            let mut tables = Vec::new();
            garbler.garble(&gates, &mut g_labels, &mut tables).unwrap();
            assert_eq!(
                tables,
                blocks_as_bytes(&expect_tables),
                "{backend} {first_id}"
            );
            assert_eq!(g_labels.iter().map(|l| l.block()).collect::<Vec<_>>(), z);

            let mut e_labels = active.clone();
            Evaluator::with_backend(first_id, backend)
                .unwrap()
                .evaluate(&gates, &mut e_labels, &tables)
                .unwrap();
            assert_eq!(e_labels.iter().map(|l| l.block()).collect::<Vec<_>>(), x);
        }
    }
}
