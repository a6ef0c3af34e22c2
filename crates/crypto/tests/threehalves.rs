//! Three-halves garbling and evaluation against plaintext evaluation and
//! against the formulas of docs/threehalves.md.

mod common;

use common::{
    check_backends, check_bad_inputs, check_scheme, circuit_cases, in_place_runs, random_circuit,
    same_input_ands,
};
use proptest::prelude::*;
use std::collections::HashSet;
use twofold_circuit::Gate;
use twofold_crypto::threehalves::{Evaluator, Garbler};
use twofold_crypto::{
    ActiveLabel, Aes128, Backend, Block, Delta, GarblingScheme, Prg, SchemeEvaluator,
    SchemeGarbler, Tccr, ThreeHalves, ZeroLabel,
};

/// Garbles and evaluates `gates` on every backend with the same coins.
fn check_circuit(gates: &[Gate], num: usize, seed: u64, first_id: u64) {
    check_backends::<ThreeHalves>(gates, num, seed, first_id, |delta, backend| {
        (
            Garbler::with_coins(delta, first_id, backend, Block(seed as u128)).unwrap(),
            Evaluator::with_backend(first_id, backend).unwrap(),
        )
    });
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn garbled_evaluation_matches_plaintext(
        (seed, slots, len, and_bias, first_id) in circuit_cases(),
    ) {
        let (gates, num) = random_circuit(seed, slots, len, and_bias);
        check_circuit(&gates, num, seed, first_id);
    }

    /// Arbitrary table bytes (too short, too long, garbage) give an error or
    /// some labels, never a panic.
    #[test]
    fn garbage_tables_never_panic(
        seed in any::<u64>(),
        tables in prop::collection::vec(any::<u8>(), 0..400),
    ) {
        let (gates, num) = random_circuit(seed, 8, 40, 0.8);
        let mut labels = vec![ActiveLabel::from_block(Block(seed as u128)); num];
        let ands = gates.iter().filter(|g| g.is_and()).count();
        let result = Evaluator::new(0).evaluate(&gates, &mut labels, &tables);
        prop_assert_eq!(result.is_ok(), tables.len() >= ThreeHalves::table_bytes(ands));
    }
}

#[test]
fn three_halves_through_the_scheme_seam() {
    for seed in 0..16 {
        let (gates, num) = random_circuit(seed, 24, 500, 0.8);
        check_scheme::<ThreeHalves>(&gates, num, seed);
    }
}

/// Long levelled AND runs crossing chunk boundaries (and the 64-gate
/// boundaries of the coin blocks), outputs over inputs, ids near 2^64.
#[test]
fn long_and_runs_with_in_place_outputs() {
    let n = 300u32;
    let gates = in_place_runs(n);
    for first in [u64::MAX - 1000, 37] {
        check_circuit(&gates, n as usize, 7, first);
    }
}

/// The 24-byte ciphertext rows of a call's `n` gates.
fn rows(tables: &[u8], n: usize) -> Vec<&[u8]> {
    tables[..24 * n].chunks_exact(24).collect()
}

/// The five control bits of gate `m` of a call of `n` gates.
fn control(tables: &[u8], n: usize, m: usize) -> u8 {
    let bits = &tables[24 * n..];
    (0..5).fold(0, |z, k| {
        let p = 5 * m + k;
        z | ((bits[p / 8] >> (p % 8)) & 1) << k
    })
}

#[test]
fn every_and_gets_distinct_tweaks() {
    // 200 AND gates on the same inputs: only the tweaks tell them apart.
    let gates = same_input_ands(200);
    let mut prg = Prg::from_seed(Block(11));
    let delta = Delta::random(&mut prg);
    let zeros: Vec<ZeroLabel> = (0..202).map(|_| ZeroLabel::random(&mut prg)).collect();
    let coins = Block(5);
    let garbler = || Garbler::with_coins(delta, 0, Backend::best(), coins).unwrap();
    let (g, g_labels, _, tables) = common::garble_eval(garbler(), &gates, &zeros, &[true; 202]);
    assert_eq!(g.next_gate_id(), 200);
    assert_eq!(tables.len(), ThreeHalves::table_bytes(200));
    let halves: HashSet<&[u8]> = tables[..24 * 200].chunks_exact(8).collect();
    assert_eq!(halves.len(), 600);
    let outs: HashSet<u128> = g_labels[2..].iter().map(|z| z.block().0).collect();
    assert_eq!(outs.len(), 200);

    // Ids (and coins) continue across calls and copies: the same gates
    // garbled in two calls, the second by an `at_gate` copy, give the same
    // ciphertexts, control bits and labels (packed per call).
    let mut first = garbler();
    let mut labels = zeros.clone();
    let (mut t1, mut t2) = (Vec::new(), Vec::new());
    first.garble(&gates[..77], &mut labels, &mut t1).unwrap();
    let mut second = first.at_gate(77);
    second.garble(&gates[77..], &mut labels, &mut t2).unwrap();
    assert_eq!(second.next_gate_id(), 200);
    assert_eq!(labels, g_labels);
    let split_rows: Vec<&[u8]> = rows(&t1, 77).into_iter().chain(rows(&t2, 123)).collect();
    assert_eq!(split_rows, rows(&tables, 200));
    for m in 0..200 {
        let z = if m < 77 {
            control(&t1, 77, m)
        } else {
            control(&t2, 123, m - 77)
        };
        assert_eq!(z, control(&tables, 200, m), "gate {m}");
    }

    // A different first id gives different ciphertexts throughout.
    let mut shifted = Garbler::with_coins(delta, 1, Backend::best(), coins).unwrap();
    let mut t3 = Vec::new();
    shifted.garble(&gates, &mut zeros.clone(), &mut t3).unwrap();
    assert!(t3[..4800]
        .chunks_exact(8)
        .zip(tables[..4800].chunks_exact(8))
        .all(|(x, y)| x != y));
}

/// The evaluator of docs/threehalves.md, written out gate by gate from the
/// formulas (hash `H(·, 3g + k)`, low half and bit 64, the paper's matrices).
fn reference_eval(h: &Tccr, g: u64, a: Block, b: Block, row: &[u8], z: u8) -> Block {
    const S1: [[u8; 4]; 2] = [[1, 1, 1, 0], [1, 0, 0, 1]];
    const S2: [[u8; 4]; 2] = [[1, 0, 0, 1], [0, 1, 1, 1]];
    const RP: [[[u8; 4]; 2]; 4] = [
        [[0, 0, 1, 0], [0, 1, 0, 0]],
        [[0, 0, 1, 0], [0, 0, 0, 0]],
        [[0, 0, 0, 0], [0, 1, 0, 0]],
        [[0; 4]; 2],
    ];
    let t = 3 * g as u128;
    let (ha, hb, hx) = (
        h.hash(a, Block(t)),
        h.hash(b, Block(t + 1)),
        h.hash(a ^ b, Block(t + 2)),
    );
    let half = |x: Block| x.0 as u64;
    let bit = |x: Block| (x.0 >> 64) as u8 & 1;
    let (i, j) = (a.lsb() as u8, b.lsb() as u8);
    let zb = |k: u8| z >> (k - 1) & 1;
    let d1 = zb(1) ^ i & zb(3) ^ (i ^ j) & zb(5) ^ bit(ha) ^ bit(hx);
    let d2 = zb(2) ^ j & zb(4) ^ (i ^ j) & zb(5) ^ bit(hb) ^ bit(hx);
    let g_at = |k: usize| u64::from_le_bytes(row[8 * k..8 * k + 8].try_into().unwrap());
    let sel = |on: u8, v: u64| if on == 1 { v } else { 0 };
    let src = [
        a.0 as u64,
        (a.0 >> 64) as u64,
        b.0 as u64,
        (b.0 >> 64) as u64,
    ];
    let mut c = [
        half(ha) ^ half(hx) ^ sel(i, g_at(0)) ^ sel(i ^ j, g_at(2)),
        half(hb) ^ half(hx) ^ sel(j, g_at(1)) ^ sel(i ^ j, g_at(2)),
    ];
    for (r, out) in c.iter_mut().enumerate() {
        for (col, s) in src.iter().enumerate() {
            let coef = RP[2 * i as usize + j as usize][r][col] ^ d1 & S1[r][col] ^ d2 & S2[r][col];
            *out ^= sel(coef, *s);
        }
    }
    Block(c[0] as u128 | (c[1] as u128) << 64)
}

/// The garbler's tables, on every backend and for ids on both sides of the
/// coin-block and 2^63 boundaries, evaluated by the reference formulas on
/// all four input combinations give the right output label; the coins are
/// AES under the coin key at `⌊g/64⌋`.
#[test]
fn matches_reference_formulas() {
    let h = Tccr::with_backend(Backend::Portable).unwrap();
    let mut prg = Prg::from_seed(Block(99));
    let n = 70u32;
    let gates: Vec<Gate> = (0..n)
        .map(|i| Gate::And {
            a: 2 * i,
            b: 2 * i + 1,
            out: 2 * n + i,
        })
        .collect();
    for first_id in [0u64, 1, 12345, (1 << 63) - 20, u64::MAX - 80] {
        let delta = Delta::random(&mut prg);
        let d = delta.block();
        let zeros: Vec<ZeroLabel> = (0..3 * n).map(|_| ZeroLabel::random(&mut prg)).collect();
        let key = prg.random_block();
        let mut reference: Option<Vec<u8>> = None;
        for backend in Backend::available() {
            let mut garbler = Garbler::with_coins(delta, first_id, backend, key).unwrap();
            let mut labels = zeros.clone();
            let mut tables = Vec::new();
            garbler.garble(&gates, &mut labels, &mut tables).unwrap();
            for m in 0..n as usize {
                let (za, zb) = (zeros[2 * m].block(), zeros[2 * m + 1].block());
                let c0 = labels[2 * n as usize + m].block();
                let row = &tables[24 * m..24 * m + 24];
                let z = control(&tables, n as usize, m);
                for (x, y) in [(false, false), (false, true), (true, false), (true, true)] {
                    let (a, b) = (za ^ d.select(x), zb ^ d.select(y));
                    let got = reference_eval(&h, first_id + m as u64, a, b, row, z);
                    assert_eq!(got, c0 ^ d.select(x & y), "{backend} gate {m} {x}{y}");
                }
                // Unmasked, z is (r1, r2, a, b, a⊕b) with the coins from AES
                // under the coin key at ⌊g/64⌋.
                let g = first_id + m as u64;
                let t = 3 * g as u128;
                let c = |x: Block, k: u128| (h.hash(x, Block(t + k)).0 >> 64) as u8 & 1;
                let (a0, b0) = (za ^ d.select(za.lsb()), zb ^ d.select(zb.lsb()));
                let (ca, cb, cx) = (c(a0, 0), c(b0, 1), c(a0 ^ b0, 2));
                let (a1, b1) = (!za.lsb() as u8, !zb.lsb() as u8);
                let unmasked = [
                    z & 1 ^ ca ^ cx,
                    z >> 1 & 1 ^ cb ^ cx,
                    z >> 2 & 1 ^ ca ^ c(a0 ^ d, 0),
                    z >> 3 & 1 ^ cb ^ c(b0 ^ d, 1),
                    z >> 4 & 1 ^ cx ^ c(a0 ^ b0 ^ d, 2),
                ];
                let coins = Aes128::with_backend(key, Backend::Portable)
                    .unwrap()
                    .encrypt_block(Block((g >> 6) as u128));
                let r = (coins.0 >> (2 * (g % 64))) as u8;
                assert_eq!(unmasked, [r & 1, r >> 1 & 1, a1, b1, a1 ^ b1], "gate {g}");
            }
            match &reference {
                None => reference = Some(tables),
                Some(r) => assert_eq!(r, &tables, "{backend}"),
            }
        }
    }
}

#[test]
fn bad_inputs_are_errors_and_keep_tables_and_ids() {
    check_bad_inputs::<ThreeHalves>();
}
