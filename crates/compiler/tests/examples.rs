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
    agree_with_gcc(&source(name), &[p], n, seed, name.trim_end_matches(".c"));
}

/// An example's source with its `#include "FILE"` lines (other examples)
/// replaced by their text, so that the harness sees every declaration.
fn source(name: &str) -> String {
    let src = std::fs::read_to_string(example(name)).expect("source");
    src.lines()
        .map(|line| match line.strip_prefix("#include \"") {
            Some(rest) => source(rest.trim_end_matches('"')),
            None => format!("{line}\n"),
        })
        .collect()
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

/// The examples of the mixed-protocol work (products of secrets, and
/// programs that mostly compare): each agrees with gcc, and none grows.
#[test]
fn matmul16_mlps_psi_and_sha256() {
    check("matmul16.c", Some(4_071_168), None, 2, None, false);
    check("mlp.c", Some(481_129), None, 6, None, false);
    check("mlp32.c", Some(805_197), None, 6, None, false);
    check("psi.c", Some(32_736), None, 6, None, false);
    check("sha256.c", Some(41_950), None, 4, None, false);
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
fn score_walk() {
    check("score_walk.c", None, None, 4, None, false);
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

// The workloads of Siim's hybrid-protocol thesis (issue 11), each compared
// with gcc on chosen inputs as well as on uniformly random ones (which alone
// would rarely give equal 128-bit words, similar strings or a source node in
// range).

/// `{a, b, ...}`.
fn braces<T: std::fmt::Display>(items: impl IntoIterator<Item = T>) -> String {
    let v: Vec<String> = items.into_iter().map(|x| x.to_string()).collect();
    format!("{{{}}}", v.join(", "))
}

fn compare_on(name: &str, p: &CompiledProgram, sets: &[Vec<String>]) {
    let src = std::fs::read_to_string(example(name)).expect("source");
    common::agree_with_gcc_on(&src, &[p], sets, name.trim_end_matches(".c"));
}

#[test]
fn millionaires4() {
    use rand::{Rng, SeedableRng};
    let p = check("millionaires4.c", Some(4), Some(1.0), 4, Some(&[]), false);
    // Every pair of 4-bit values, with random (ignored) high bits.
    let mut rng = rand::rngs::StdRng::seed_from_u64(4);
    let sets: Vec<Vec<String>> = (0..256u32)
        .map(|ab| {
            let hi = |rng: &mut rand::rngs::StdRng| rng.gen_range(0..16u32) << 4;
            vec![
                ((ab >> 4) | hi(&mut rng)).to_string(),
                ((ab & 15) | hi(&mut rng)).to_string(),
            ]
        })
        .collect();
    compare_on("millionaires4.c", &p, &sets);
}

#[test]
fn millionaires128() {
    use rand::{Rng, SeedableRng};
    let p = check(
        "millionaires128.c",
        Some(128),
        Some(1.0),
        8,
        Some(&[]),
        false,
    );
    let mut rng = rand::rngs::StdRng::seed_from_u64(128);
    let mut sets = Vec::new();
    for k in 0..32 {
        let a: [u32; 4] = rng.gen();
        let mut b = a;
        match k % 4 {
            // Equal values.
            0 => {}
            // Equal but for one word (the top words equal when it is low).
            1 => b[rng.gen_range(0..4)] = rng.gen(),
            // One bit apart.
            2 => b[rng.gen_range(0..4)] ^= 1 << rng.gen_range(0..32),
            // Equal low words, random high ones.
            _ => b[3] = rng.gen(),
        }
        let (a, b) = if rng.gen() { (a, b) } else { (b, a) };
        sets.push(vec![
            format!("{{{}}}", braces(a)),
            format!("{{{}}}", braces(b)),
        ]);
    }
    compare_on("millionaires128.c", &p, &sets);
}

#[test]
fn mult32() {
    use rand::{Rng, SeedableRng};
    // 32 x 32 partial products and 31 rows of 32-bit additions.
    let p = check("mult32.c", Some(2016), Some(1.0), 16, Some(&[]), false);
    let mut rng = rand::rngs::StdRng::seed_from_u64(32);
    let edges = [0u32, 1, 2, 0x8000_0000, 0xFFFF_FFFF, 0xFFFF_FFFE];
    let mut sets = Vec::new();
    for &a in &edges {
        for &b in &edges {
            sets.push(vec![a.to_string(), b.to_string()]);
        }
    }
    for _ in 0..8 {
        let (a, b): (u32, u32) = (rng.gen(), rng.gen());
        sets.push(vec![a.to_string(), b.to_string()]);
    }
    compare_on("mult32.c", &p, &sets);
}

#[test]
fn edit_distance128() {
    use rand::{Rng, SeedableRng};
    let p = check(
        "edit_distance128.c",
        Some(7483),
        Some(1.0),
        4,
        Some(&[]),
        false,
    );
    let mut rng = rand::rngs::StdRng::seed_from_u64(16);
    let mut sets = Vec::new();
    for k in 0..30 {
        let (a, b): (Vec<u8>, Vec<u8>) = if k < 10 {
            // Over a small alphabet: many matches.
            let alpha = rng.gen_range(1..=4u8);
            let s = |rng: &mut rand::rngs::StdRng| {
                (0..16).map(|_| b'a' + rng.gen_range(0..alpha)).collect()
            };
            (s(&mut rng), s(&mut rng))
        } else {
            // B's string is A's after a few edits, cut or padded to 16.
            let a: Vec<u8> = (0..16).map(|_| rng.gen()).collect();
            let mut b = a.clone();
            for _ in 0..(k - 10) % 6 {
                let at = rng.gen_range(0..b.len());
                match rng.gen_range(0..3) {
                    0 => b[at] = rng.gen(),
                    1 => {
                        b.remove(at);
                    }
                    _ => b.insert(at, rng.gen()),
                }
            }
            b.resize(16, b'x');
            (a, b)
        };
        sets.push(vec![
            format!("{{{}}}", braces(a)),
            format!("{{{}}}", braces(b)),
        ]);
    }
    compare_on("edit_distance128.c", &p, &sets);
}

#[test]
fn dijkstra50() {
    use rand::{Rng, SeedableRng};
    let p = check(
        "dijkstra50.c",
        Some(1_196_810),
        Some(2.0),
        2,
        // Marking the node done (`done[v] | (v == u)`, `v == u` computed
        // ahead of each iteration) and relaxing its edges.
        Some(&[50, 50]),
        false,
    );
    let mut rng = rand::rngs::StdRng::seed_from_u64(50);
    let mut sets = Vec::new();
    for k in 0..20 {
        // Sparse to complete graphs, light to heavy edges.
        let density = [0.03, 0.06, 0.1, 0.3, 1.0][k % 5];
        let heavy = k % 2 == 0;
        let rows: Vec<String> = (0..50)
            .map(|_| {
                braces((0..50).map(|_| {
                    if rng.gen_bool(density) {
                        if heavy {
                            rng.gen_range(1..=255u32)
                        } else {
                            rng.gen_range(1..=4u32)
                        }
                    } else {
                        0
                    }
                }))
            })
            .collect();
        // Now and then a source out of range: nothing is reachable.
        let source = if k == 7 { 200 } else { rng.gen_range(0..50u32) };
        sets.push(vec![format!("{{{}}}", braces(rows)), source.to_string()]);
    }
    compare_on("dijkstra50.c", &p, &sets);
}
