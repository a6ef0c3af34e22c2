//! Garbling and evaluation speed of the half-gates cores, per AES backend.
//!
//! The circuit is wide and levelled: 4096 reused wire slots in two banks;
//! each level is a run of 2048 independent AND gates reading one bank and
//! writing the other, followed by 256 XOR gates. A batch of levels is garbled
//! and then evaluated, and batches repeat (with fresh gate ids) until at least
//! 10^7 AND gates have been processed. Each backend runs three times; the
//! median rate is printed.
//!
//! `cargo run --release -p twofold-crypto --example garble_speed [MILLION_ANDS [BACKEND]]`
//! (BACKEND: `portable`, `aes-ni`, `vaes-256` or `vaes-512`; default all).

use std::time::{Duration, Instant};
use twofold_circuit::Gate;
use twofold_crypto::{ActiveLabel, Backend, Delta, Evaluator, Garbler, Prg, ZeroLabel};

const BANK: u32 = 2048;
const XORS_PER_LEVEL: u32 = 256;
const LEVELS_PER_BATCH: usize = 8;

/// A batch of levels over slots `0..2 * BANK`.
fn build_batch(prg: &mut Prg) -> Vec<Gate> {
    let mut rnd = |n: u32| (prg.random_block().0 % n as u128) as u32;
    let mut gates = Vec::new();
    for level in 0..LEVELS_PER_BATCH {
        let (src, dst) = if level % 2 == 0 { (0, BANK) } else { (BANK, 0) };
        for k in 0..BANK {
            gates.push(Gate::And {
                a: src + rnd(BANK),
                b: src + rnd(BANK),
                out: dst + k,
            });
        }
        for _ in 0..XORS_PER_LEVEL {
            gates.push(Gate::Xor {
                a: dst + rnd(BANK),
                b: dst + rnd(BANK),
                out: dst + rnd(BANK),
            });
        }
    }
    gates
}

/// Garbles and evaluates `batches` batches; returns the garbling and the
/// evaluation time.
fn run(backend: Backend, gates: &[Gate], batches: usize, prg: &mut Prg) -> (Duration, Duration) {
    let delta = Delta::random(prg);
    let mut garbler = Garbler::with_backend(delta, 0, backend).expect("backend available");
    let mut evaluator = Evaluator::with_backend(0, backend).expect("backend available");
    let slots = 2 * BANK as usize;
    let mut zeros: Vec<ZeroLabel> = (0..slots).map(|_| ZeroLabel::random(prg)).collect();
    let mut active: Vec<ActiveLabel> = zeros
        .iter()
        .map(|&z| garbler.encode(z, prg.random_bool()))
        .collect();
    let ands = gates.iter().filter(|g| g.is_and()).count();
    let mut tables: Vec<u8> = Vec::with_capacity(32 * ands);
    let (mut t_garble, mut t_eval) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..batches {
        tables.clear();
        let t0 = Instant::now();
        garbler
            .garble(gates, &mut zeros, &mut tables)
            .expect("valid circuit");
        let t1 = Instant::now();
        evaluator
            .evaluate(gates, &mut active, &tables)
            .expect("valid tables");
        let t2 = Instant::now();
        t_garble += t1 - t0;
        t_eval += t2 - t1;
    }
    // Every evaluated label must be one of the wire's two labels.
    let d = delta.block();
    let ok = zeros
        .iter()
        .zip(&active)
        .all(|(z, a)| a.block() == z.block() || a.block() == z.block() ^ d);
    assert!(ok, "evaluation disagrees with garbling");
    (t_garble, t_eval)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let million: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let only = std::env::args().nth(2);
    let mut prg = Prg::from_os();
    let gates = build_batch(&mut prg);
    let ands_per_batch = gates.iter().filter(|g| g.is_and()).count();
    let batches = (million * 1_000_000).div_ceil(ands_per_batch);
    let total = (batches * ands_per_batch) as f64;
    println!(
        "{} AND + {} XOR gates per batch, {} batches: {:.1} M AND gates per run",
        ands_per_batch,
        gates.len() - ands_per_batch,
        batches,
        total / 1e6
    );
    println!("backend    garble M AND/s   evaluate M AND/s   (median of 3, one core)");
    for backend in Backend::available() {
        if only.as_deref().is_some_and(|o| o != backend.name()) {
            continue;
        }
        // The portable backend is much slower: a tenth of the gates suffices.
        let b = if backend == Backend::Portable {
            batches.div_ceil(10)
        } else {
            batches
        };
        let n = (b * ands_per_batch) as f64;
        let (mut g, mut e) = (Vec::new(), Vec::new());
        for _ in 0..3 {
            let (tg, te) = run(backend, &gates, b, &mut prg);
            g.push(n / tg.as_secs_f64() / 1e6);
            e.push(n / te.as_secs_f64() / 1e6);
        }
        println!(
            "{:<10} {:>14.1}   {:>16.1}",
            backend.name(),
            median(g),
            median(e)
        );
    }
}
