//! The example programs in examples/: AND-gate targets, compile time,
//! determinism, and differential tests against gcc on random inputs.

mod common;

use std::path::{Path, PathBuf};
use std::time::Instant;

use common::{accepted, agree_with_gcc};
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
    let src = std::fs::read_to_string(example(name)).expect("source");
    agree_with_gcc(&src, &[p], n, seed, name.trim_end_matches(".c"));
}

/// Gates executed, counting every region instance.
fn total_gates(p: &CompiledProgram) -> usize {
    p.program.counts().gates as usize
}

/// Compiles an example (regions on), checks its AND gates against `max_and`,
/// its compile time, that its accepted regions have `regions` instances
/// (when given), and compares it with gcc. With `without`, the example is
/// also compiled without regions: it must agree with gcc too and have at
/// least as many AND gates.
fn check(
    name: &str,
    max_and: Option<u64>,
    max_secs: Option<f64>,
    runs: usize,
    regions: Option<&[usize]>,
    without: bool,
) -> CompiledProgram {
    let (p, took) = build(name);
    let ands = p.program.and_count();
    println!(
        "{name}: {} gates, {ands} AND ({:.1}%), {} input bits, compiled in {took:?}, regions {:?}",
        total_gates(&p),
        100.0 * ands as f64 / total_gates(&p).max(1) as f64,
        p.program.main.input_bits(),
        p.loops
    );
    if let Some(m) = max_and {
        assert!(ands <= m, "{name}: {ands} AND gates, target {m}");
    }
    if let Some(s) = max_secs {
        assert!(took.as_secs_f64() < s, "{name}: compiling took {took:?}");
    }
    if let Some(want) = regions {
        assert_eq!(accepted(&p), want, "{name}: regions {:?}", p.loops);
    }
    differential(name, &p, runs, ands);
    if without {
        let opts = CompileOptions {
            regions: false,
            ..CompileOptions::default()
        };
        let q = compile_file(&example(name), &opts).unwrap_or_else(|e| panic!("{e}"));
        assert!(common::parallel_counts(&q.program.blocks).is_empty());
        assert!(
            ands <= q.program.and_count(),
            "{name}: {ands} AND gates with regions, {} without",
            q.program.and_count()
        );
        differential(name, &q, runs, ands + 1);
    }
    p
}

#[test]
fn millionaires() {
    check("millionaires.c", Some(32), None, 8, Some(&[]), true);
}

#[test]
fn dotproduct() {
    check("dotproduct.c", None, None, 8, Some(&[16]), true);
}

#[test]
fn hamming900() {
    check("hamming900.c", None, None, 8, Some(&[]), true);
}

#[test]
fn hamming1600() {
    // CBMC-GC: 4,038 non-XOR gates; PCF: 6,375.
    check("hamming1600.c", Some(4038), Some(1.0), 8, Some(&[]), true);
}

#[test]
fn matmul5x5() {
    // CBMC-GC: 148,650; PCF: 131,875.
    check(
        "matmul5x5.c",
        Some(131_875),
        Some(1.0),
        4,
        Some(&[5, 5, 5]),
        true,
    );
}

#[test]
fn levenshtein() {
    check("levenshtein.c", None, None, 2, Some(&[]), false);
}

#[test]
fn smith_waterman() {
    check("smith_waterman.c", None, None, 2, None, true);
}

#[test]
fn mvmul() {
    // ParCC: 3.3M gates at 37% non-linear.
    check("mvmul.c", Some(1_221_000), None, 2, Some(&[16, 16]), true);
}

#[test]
fn mexp() {
    // ParCC: 21.5M gates at 41% non-linear.
    check("mexp.c", Some(8_815_000), None, 2, Some(&[32]), false);
}

#[test]
fn biomatch() {
    // ParCC: 66M gates at 25% non-linear.
    check(
        "biomatch.c",
        Some(16_500_000),
        None,
        2,
        Some(&[512, 4]),
        false,
    );
}

#[test]
fn match_and_risk() {
    let p = check("match_and_risk.c", None, None, 2, Some(&[256, 4]), false);
    // The risk recurrence needs none of the distances: nearly all of the
    // main circuit's AND gates can run during the region.
    let main_ands = p.program.main.and_count() as u64;
    let during = p.program.main_overlapped().during_ands(&p.program, 0);
    assert!(during * 10 > main_ands * 9, "{during} of {main_ands}");
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
