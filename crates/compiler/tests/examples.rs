//! The example programs in examples/: AND-gate targets, compile time,
//! determinism, and differential tests against gcc on random inputs.

mod common;

use std::path::{Path, PathBuf};
use std::time::Instant;

use common::{circuit_lines, gcc_available, random_value, run, run_native};
use rand::{rngs::StdRng, SeedableRng};
use twofold_compiler::{compile, compile_file, CompileOptions, CompiledProgram};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name)
}

fn build(name: &str) -> (CompiledProgram, std::time::Duration) {
    let t = Instant::now();
    let p =
        compile_file(&example(name), &CompileOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    (p, t.elapsed())
}

/// Compares the circuit with gcc on `n` random input sets.
fn differential(name: &str, p: &CompiledProgram, n: usize, seed: u64) {
    if !gcc_available() {
        eprintln!("skipping the gcc comparison of {name}: gcc is absent");
        return;
    }
    let src = std::fs::read_to_string(example(name)).expect("source");
    let mut rng = StdRng::seed_from_u64(seed);
    let sets: Vec<Vec<String>> = (0..n)
        .map(|_| {
            p.inputs
                .iter()
                .map(|(_, t)| random_value(t, &mut rng))
                .collect()
        })
        .collect();
    let native = run_native(&src, p, &sets, name.trim_end_matches(".c"));
    for (set, want) in sets.iter().zip(&native) {
        let named: Vec<(String, String)> = p
            .inputs
            .iter()
            .map(|(n, _)| n.clone())
            .zip(set.iter().cloned())
            .collect();
        let got = circuit_lines(p, &run(p, &named));
        assert_eq!(&got, want, "{name} differs from gcc on inputs {set:?}");
    }
}

fn check(name: &str, max_and: Option<u64>, max_secs: Option<f64>, runs: usize) {
    let (p, took) = build(name);
    let ands = p.program.and_count();
    println!(
        "{name}: {} gates, {ands} AND ({:.1}%), {} input bits, compiled in {took:?}",
        p.program.main.gates.len(),
        100.0 * ands as f64 / p.program.main.gates.len().max(1) as f64,
        p.program.main.input_bits()
    );
    if let Some(m) = max_and {
        assert!(ands <= m, "{name}: {ands} AND gates, target {m}");
    }
    if let Some(s) = max_secs {
        assert!(took.as_secs_f64() < s, "{name}: compiling took {took:?}");
    }
    differential(name, &p, runs, ands as u64);
}

#[test]
fn millionaires() {
    check("millionaires.c", Some(32), None, 8);
}

#[test]
fn dotproduct() {
    check("dotproduct.c", None, None, 8);
}

#[test]
fn hamming900() {
    check("hamming900.c", None, None, 8);
}

#[test]
fn hamming1600() {
    // CBMC-GC: 4,038 non-XOR gates; PCF: 6,375.
    check("hamming1600.c", Some(4038), Some(1.0), 8);
}

#[test]
fn matmul5x5() {
    // CBMC-GC: 148,650; PCF: 131,875.
    check("matmul5x5.c", Some(131_875), Some(1.0), 4);
}

#[test]
fn levenshtein() {
    check("levenshtein.c", None, None, 2);
}

#[test]
fn smith_waterman() {
    check("smith_waterman.c", None, None, 2);
}

#[test]
fn mvmul() {
    // ParCC: 3.3M gates at 37% non-linear.
    check("mvmul.c", Some(1_221_000), None, 2);
}

#[test]
fn mexp() {
    // ParCC: 21.5M gates at 41% non-linear.
    check("mexp.c", Some(8_815_000), None, 2);
}

#[test]
fn biomatch() {
    // ParCC: 66M gates at 25% non-linear.
    check("biomatch.c", Some(16_500_000), None, 2);
}

#[test]
fn compilation_is_deterministic() {
    for name in ["matmul5x5.c", "hamming900.c", "smith_waterman.c"] {
        let src = std::fs::read_to_string(example(name)).expect("source");
        let a = compile(&src, name, &CompileOptions::default()).expect("compiles");
        let b = compile(&src, name, &CompileOptions::default()).expect("compiles");
        assert_eq!(a, b, "{name} compiled twice differs");
    }
}
