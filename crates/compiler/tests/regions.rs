//! Parallel regions from `for` loops: which loops are found, and that the
//! programs built with regions compute what gcc computes (regions on and
//! off), on hand-written loops and random programs with parallel loops.

mod common;

use common::{accepted, agree_with_gcc};
use rand::{rngs::StdRng, Rng, SeedableRng};
use twofold_compiler::{compile, CompileOptions, CompiledProgram};

fn opts(regions: bool) -> CompileOptions {
    CompileOptions {
        regions,
        ..CompileOptions::default()
    }
}

/// Compiles `src` with regions on and off and compares both with gcc on
/// `n` random input sets; returns the program with regions.
fn agree(name: &str, src: &str, n: usize) -> CompiledProgram {
    let with = compile(src, &format!("{name}.c"), &opts(true)).unwrap_or_else(|e| panic!("{e}"));
    let without =
        compile(src, &format!("{name}.c"), &opts(false)).unwrap_or_else(|e| panic!("{e}"));
    assert!(common::parallel_counts(&without.program.blocks).is_empty());
    let flat = CompileOptions {
        loops: false,
        ..CompileOptions::default()
    };
    let flat = compile(src, &format!("{name}.c"), &flat).unwrap_or_else(|e| panic!("{e}"));
    assert!(flat.program.blocks.is_empty());
    // Partial sums end in carry-save form, other partials are combined
    // by a tree: the count may differ a little (the examples' counts do
    // not grow: see tests/examples.rs).
    assert!(
        with.program.and_count() * 100 <= without.program.and_count() * 115 + 100 * 100,
        "{name}: {} AND gates with regions, {} without",
        with.program.and_count(),
        without.program.and_count()
    );
    agree_with_gcc(src, &[&with, &without, &flat], n, 11, name);
    with
}

/// Wraps a loop in a program over two inputs of `n` elements.
fn program(n: usize, decls: &str, body: &str, outs: &str) -> String {
    format!(
        "#include <stdint.h>\n#define N {n}\ntypedef struct {{ int32_t x[N]; uint8_t k[N]; int64_t w[N]; }} In;\n\
         typedef struct {{ {outs} }} Out;\n\
         Out mpc_main(In INPUT_A, In INPUT_B)\n{{\n    Out out;\n{decls}\n{body}\n    return out;\n}}\n"
    )
}

#[test]
fn reductions_and_own_elements_are_regions() {
    let cases = [
        (
            "sum",
            "    int32_t s = 5;",
            "    for (int i = 0; i < N; i++) s += INPUT_A.x[i] * INPUT_B.x[i];\n    out.r = s;",
        ),
        (
            "diff",
            "    int32_t s = 0;",
            // (Its terms make AND gates: `s -= x[i]` alone makes none,
            // its partials' `+ 1` kept apart, and is unrolled.)
            "    for (int i = 0; i < N; i++) { s -= INPUT_A.x[i] & INPUT_B.x[i]; if (INPUT_B.k[i] & 1) s++; }\n    out.r = s;",
        ),
        (
            "product",
            "    int32_t s = 3;",
            "    for (int i = 0; i < N; i++) s *= INPUT_A.x[i] + INPUT_B.x[i];\n    out.r = s;",
        ),
        (
            "bitwise",
            "    int32_t s = 0; int32_t o = 0; int32_t a = -1;",
            "    for (int i = 0; i < N; i++) { s ^= INPUT_A.x[i] + INPUT_B.x[i]; o |= INPUT_B.x[i] >> 3; a &= INPUT_A.x[i] - INPUT_B.x[i]; }\n    out.r = s + o + a;",
        ),
        (
            "min",
            "    int64_t best = INPUT_B.w[0];",
            "    for (int i = 0; i < N; i++) { int64_t d = INPUT_A.w[i] - INPUT_B.w[i]; if (d < best) best = d; }\n    out.r = (int32_t)(best >> 7);",
        ),
        (
            "max",
            "    int32_t best = 0;",
            "    for (int i = 0; i < N; i++) { int32_t d = INPUT_A.x[i] - INPUT_B.x[i]; best = best > d ? best : d; }\n    out.r = best;",
        ),
        (
            "own",
            "    int32_t y[N];",
            "    for (int i = 0; i < N; i++) { int32_t t = INPUT_A.x[i] * 3; if (t > INPUT_B.x[i]) t = INPUT_B.x[i]; y[i] = t; }\n    out.r = y[0] + y[1] * y[2] - y[3] + (y[4] ^ y[5]);",
        ),
        (
            "nested",
            "    int32_t m[N][3]; int32_t total = 0;",
            "    for (int i = 0; i < N; i++)\n        for (int j = 0; j < 3; j++) { m[i][j] = INPUT_A.x[i] * INPUT_B.x[j]; total += m[i][j] ^ j; }\n    out.r = m[1][2] + total;",
        ),
        (
            "c89_locals",
            "    int32_t y[N]; int i, j; int32_t acc;",
            "    for (i = 0; i < N; i++) {\n        acc = 0;\n        for (j = 0; j < 3; j++) acc += INPUT_A.x[i] * (INPUT_B.x[j] + j);\n        y[i] = acc;\n    }\n    out.r = y[0] + y[1] * y[2] + (y[3] ^ y[4]) - y[5] + i * 100 + j * 10 + acc;",
        ),
    ];
    for (name, decls, body) in cases {
        let src = program(6, decls, body, "int32_t r;");
        let p = agree(name, &src, 8);
        assert_eq!(accepted(&p), vec![6], "{name}: {:?}\n{src}", p.loops);
    }
}

#[test]
fn every_form_of_min_and_max() {
    let forms = [
        "if (d < best) best = d;",
        "if (d <= best) best = d;",
        "if (best > d) best = d;",
        "if (best >= d) { best = d; }",
        "if (d > best) best = d;",
        "if (best < d) best = d;",
        "best = d < best ? d : best;",
        "best = best < d ? best : d;",
        "best = d > best ? d : best;",
        "best = best > d ? d : best;",
        "best = best >= d ? best : d;",
        "best = d <= best ? best : d;",
    ];
    for (k, form) in forms.iter().enumerate() {
        for ty in ["int16_t", "uint32_t"] {
            let src = program(
                5,
                &format!("    {ty} best = ({ty})INPUT_B.x[0];"),
                &format!(
                    "    for (int i = 0; i < N; i++) {{ {ty} d = ({ty})(INPUT_A.x[i] - INPUT_B.x[i]); {form} }}\n    out.r = best;"
                ),
                "int64_t r;",
            );
            let p = agree(&format!("minmax{k}{ty}"), &src, 8);
            assert_eq!(accepted(&p), vec![5], "{form}: {:?}\n{src}", p.loops);
        }
    }
}

#[test]
fn regions_under_secret_branches_and_in_sequential_loops() {
    // (The condition reads other inputs than the loop: a gate made before
    // the loop that one iteration could reuse, and the others not, would
    // make the iterations differ.)
    let src = program(
        5,
        "    int32_t y[N] = {0}; int32_t s = 0;",
        "    if (INPUT_A.w[0] > INPUT_B.w[0]) {\n        for (int i = 0; i < N; i++) { y[i] = INPUT_A.x[i] * INPUT_B.x[i]; s += y[i] >> 2; }\n    }\n    out.r = s + y[0] - y[4];",
        "int32_t r;",
    );
    let p = agree("branch", &src, 8);
    assert_eq!(accepted(&p), vec![5], "{:?}", p.loops);
    // The outer loop carries y from round to round (a loop kept as such
    // after its first round); its inner loop is a region.
    let src = program(
        4,
        "    int32_t y[N] = {0};",
        "    for (int t = 0; t < 3; t++)\n        for (int i = 0; i < N; i++) y[i] += (y[i] ^ INPUT_A.x[i]) * INPUT_B.x[i];\n    out.r = y[0] + y[1] + y[2] + y[3];",
        "int32_t r;",
    );
    let p = agree("rounds", &src, 8);
    assert_eq!(accepted(&p), vec![4], "{:?}", p.loops);
    let rounds = p
        .loops
        .iter()
        .find(|l| l.line == 9)
        .expect("the outer loop");
    assert!(rounds.kept() && !rounds.blocks[0].1, "{:?}", p.loops);
}

#[test]
fn dependent_iterations_are_not_regions() {
    let cases = [
        (
            "prefix",
            "    int32_t a[N];\n    a[0] = INPUT_A.x[0];",
            "    for (int i = 1; i < N; i++) a[i] = a[i - 1] + INPUT_A.x[i];\n    out.r = a[N - 1];",
        ),
        (
            "carried",
            "    int32_t c = 1; int32_t y[N];",
            "    for (int i = 0; i < N; i++) { c = c * 3 + INPUT_A.x[i]; y[i] = c; }\n    out.r = y[2] + c;",
        ),
        (
            "same_element",
            "    int32_t a[N] = {0};",
            "    for (int i = 0; i < N; i++) a[0] = a[0] * INPUT_A.x[i] + INPUT_B.x[i];\n    out.r = a[0];",
        ),
        (
            "overwrite_first",
            "    int32_t a[N] = {0};",
            "    for (int i = 0; i < N; i++) { a[i] = INPUT_A.x[i]; a[0] = INPUT_B.x[i]; }\n    out.r = a[0] + a[1];",
        ),
        (
            "plain_sum",
            "    int32_t s = 0;",
            "    for (int i = 0; i < N; i++) s = s + INPUT_A.x[i] * INPUT_B.x[i];\n    out.r = s;",
        ),
        (
            "running_sum",
            "    int32_t s = 0; int32_t y[N];",
            "    for (int i = 0; i < N; i++) { s += INPUT_A.x[i]; y[i] = s; }\n    out.r = y[3];",
        ),
        (
            "neighbour",
            "    int32_t y[N + 1] = {0};",
            "    for (int i = 0; i < N; i++) { y[i] = INPUT_A.x[i] * INPUT_B.x[i] + y[i + 1]; }\n    out.r = y[0];",
        ),
        (
            "secret_break",
            "    int32_t s = 0;",
            "    for (int i = 0; i < N; i++) { if (INPUT_A.x[i] < 0) break; s += INPUT_A.x[i] * INPUT_B.x[i]; }\n    out.r = s;",
        ),
        (
            "argmin",
            "    int32_t best = 2147483647; int32_t at = -1;",
            "    for (int i = 0; i < N; i++) { int32_t d = INPUT_A.x[i] * INPUT_B.x[i]; if (d < best) { best = d; at = i; } }\n    out.r = best + at;",
        ),
        (
            "pointer",
            "    int32_t y[N]; int32_t *p = y;",
            "    for (int i = 0; i < N; i++) { y[i] = INPUT_A.x[i] * INPUT_B.x[i]; p[0] += y[i]; }\n    out.r = y[0];",
        ),
        (
            "carried_scalar",
            "    int32_t x = 1; int32_t y[N];",
            "    for (int i = 0; i < N; i++) { y[i] = x * INPUT_B.x[i]; x = INPUT_A.x[i]; }\n    out.r = y[0] + y[1] + y[2] + y[3] + y[4] + y[5];",
        ),
        (
            "mixed_ops",
            "    int32_t s = 1;",
            "    for (int i = 0; i < N; i++) { s += INPUT_A.x[i]; s *= INPUT_B.x[i]; }\n    out.r = s;",
        ),
    ];
    for (name, decls, body) in cases {
        let src = program(6, decls, body, "int32_t r;");
        let p = agree(name, &src, 6);
        assert!(accepted(&p).is_empty(), "{name}: {:?}\n{src}", p.loops);
    }
}

/// A loop without an initialization goes on from where its variable is:
/// a counting `while` (made a `for` without one) and `for (; ...)` are
/// regions too, and leave the variable where the loop ends.
#[test]
fn loops_from_where_their_variable_is_are_regions() {
    let cases = [
        (
            "while_up",
            "    int32_t s = 0; int i = 1;",
            "    while (i < N) { s += INPUT_A.x[i] > INPUT_B.x[i]; i++; }\n    out.r = s * 100 + i;",
        ),
        (
            "for_from_here",
            "    int32_t m = INPUT_B.x[0]; int i = 1;",
            "    for (; i < N; i += 1) { int32_t d = INPUT_A.x[i] * INPUT_B.x[i]; if (d > m) m = d; }\n    out.r = m + i;",
        ),
        (
            "while_down",
            "    int32_t y[N] = {0}; int32_t s = 0; int i = N - 1;",
            "    while (i >= 0) { y[i] = INPUT_A.x[i] * 3; s ^= INPUT_B.x[i]; i--; }\n    out.r = y[0] + y[1] - y[2] + (y[3] ^ y[4]) + y[5] + s + i;",
        ),
    ];
    for (name, decls, body) in cases {
        let src = program(6, decls, body, "int32_t r;");
        let p = agree(name, &src, 8);
        assert_eq!(accepted(&p).len(), 1, "{name}: {:?}\n{src}", p.loops);
    }
}

#[test]
fn secret_trip_count_is_not_a_region() {
    let src = program(
        6,
        "    int32_t s = 0;",
        "    for (int i = 0; i < (INPUT_B.k[0] & 7); i++) s += INPUT_A.x[i & 3] * INPUT_B.x[i & 3];\n    out.r = s;",
        "int32_t r;",
    );
    let p = compile(
        &src,
        "trip.c",
        &CompileOptions {
            unwind: Some(8),
            ..CompileOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(accepted(&p).is_empty(), "{:?}", p.loops);
}

/// Loops nested in a region are regions too, where their iterations are
/// independent (`j` is used as a value: that loop is unrolled).
#[test]
fn nested_loops_are_regions_at_every_level() {
    let src = program(
        4,
        "    int32_t c[N][N];",
        "    for (int i = 0; i < N; i++)\n        for (int j = 0; j < N; j++) {\n            int32_t acc = 0;\n            for (int k = 0; k < N; k++) acc += (INPUT_A.x[i] + j) * INPUT_B.x[k];\n            c[i][j] = acc;\n        }\n    for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) out.r[i][j] = c[i][j];",
        "int32_t r[N][N];",
    );
    let p = agree("outermost", &src, 4);
    assert_eq!(accepted(&p), vec![4, 4], "{:?}", p.loops);
}

/// A random program with one parallel loop: reductions of every kind, a
/// min or max, writes to its own elements, secret branches and an inner
/// loop, all reading the loop's inputs.
fn random_program(seed: u64) -> String {
    let mut rng = StdRng::seed_from_u64(seed);
    let n = rng.gen_range(2..7);
    let types = [
        "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
    ];
    let leaf = |rng: &mut StdRng, t: bool| -> String {
        match rng.gen_range(0..if t { 7 } else { 6 }) {
            0 => "INPUT_A.x[i]".into(),
            1 => "INPUT_B.x[i]".into(),
            2 => "INPUT_A.k[i]".into(),
            3 => "INPUT_B.w[i]".into(),
            4 => "INPUT_A.w[i]".into(),
            5 => format!("{}", rng.gen_range(-50..50)),
            _ => "t".into(),
        }
    };
    let expr = |rng: &mut StdRng, t: bool| -> String {
        let a = leaf(rng, t);
        let b = leaf(rng, t);
        let op = ["+", "-", "*", "&", "|", "^"][rng.gen_range(0..6)];
        format!("({a} {op} {b})")
    };
    let mut decls = String::new();
    let mut body = String::new();
    let mut outs = String::new();
    let mut result = String::from("0");
    body.push_str(&format!("        int32_t t = {};\n", expr(&mut rng, false)));
    let nred = rng.gen_range(1..4);
    for k in 0..nred {
        let ty = types[rng.gen_range(0..types.len())];
        let (op, init) = match rng.gen_range(0..6) {
            0 => ("+=", "7"),
            1 => ("-=", "0"),
            2 => ("*=", "1"),
            3 => ("^=", "0"),
            4 => ("|=", "0"),
            _ => ("&=", "-1"),
        };
        if rng.gen_bool(0.5) {
            decls.push_str(&format!("    {ty} s{k} = {init};\n"));
        } else {
            decls.push_str(&format!("    {ty} s{k} = ({ty})(INPUT_B.w[0] >> {k});\n"));
        }
        let upd = format!("s{k} {op} {};", expr(&mut rng, true));
        match rng.gen_range(0..3) {
            0 => body.push_str(&format!("        {upd}\n")),
            1 => body.push_str(&format!(
                "        if ({} < {}) {upd}\n",
                leaf(&mut rng, true),
                leaf(&mut rng, true)
            )),
            _ => body.push_str(&format!(
                "        for (int j = 0; j < 3; j++) s{k} {op} {} + j;\n",
                expr(&mut rng, true)
            )),
        }
        outs.push_str(&format!("{ty} s{k}; "));
        result.push_str(&format!(";\n    out.s{k} = s{k}"));
    }
    if rng.gen_bool(0.6) {
        let ty = types[rng.gen_range(0..types.len())];
        if rng.gen_bool(0.5) {
            decls.push_str(&format!(
                "    {ty} m = ({ty}){};\n",
                rng.gen_range(-100..100)
            ));
        } else {
            decls.push_str(&format!("    {ty} m = ({ty})INPUT_A.w[1];\n"));
        }
        body.push_str(&format!(
            "        {ty} d = ({ty}){};\n",
            expr(&mut rng, true)
        ));
        body.push_str(match rng.gen_range(0..4) {
            0 => "        if (d < m) m = d;\n",
            1 => "        if (m < d) m = d;\n",
            2 => "        m = d > m ? m : d;\n",
            _ => "        m = m > d ? m : d;\n",
        });
        outs.push_str(&format!("{ty} m; "));
        result.push_str(";\n    out.m = m");
    }
    if rng.gen_bool(0.6) {
        decls.push_str("    int64_t y[N];\n");
        body.push_str(&format!("        y[i] = {};\n", expr(&mut rng, true)));
        body.push_str(&format!(
            "        if ({} > 0) y[i] = y[i] * {};\n",
            leaf(&mut rng, true),
            leaf(&mut rng, true)
        ));
        outs.push_str("int64_t y[N]; ");
        result.push_str(";\n    for (int i = 0; i < N; i++) out.y[i] = y[i]");
    }
    format!(
        "#include <stdint.h>\n#define N {n}\ntypedef struct {{ int32_t x[N]; uint8_t k[N]; int64_t w[N]; }} In;\n\
         typedef struct {{ {outs}}} Out;\n\
         Out mpc_main(In INPUT_A, In INPUT_B)\n{{\n    Out out;\n{decls}    for (int i = 0; i < N; i++) {{\n{body}    }}\n    {result};\n    return out;\n}}\n"
    )
}

#[test]
fn random_parallel_loops_agree_with_gcc() {
    let mut found = 0;
    const PROGRAMS: u64 = 60;
    for seed in 0..PROGRAMS {
        let src = random_program(seed);
        let p = agree(&format!("par{seed}"), &src, 4);
        let a = accepted(&p);
        assert!(a.len() <= 1, "{:?}\n{src}", p.loops);
        found += a.len();
    }
    println!("{found} of {PROGRAMS} random parallel loops became regions");
    assert!(
        found * 10 >= PROGRAMS as usize * 9,
        "only {found} of {PROGRAMS} loops became regions"
    );
}

/// Batcher's odd-even merge sort, the textbook loop nest: the `j` loop
/// steps by `2 * k` and compares `j + k` with its bound, where `k` is a
/// public value the enclosing (unrolled) loop sets. Such a loop counts as
/// stepping by that constant, and its compare-exchanges become regions;
/// it was unrolled ("the step is not a constant change of 'j'"), and a
/// 1,024-value sort took 184 MB to compile instead of 37.
#[test]
fn steps_and_bounds_from_enclosing_loops_are_constants() {
    let src = r#"
#include <stdint.h>
#define N 256
typedef struct { uint8_t v[N / 2]; } Half;
typedef struct { uint8_t v[N]; } All;
All mpc_main(Half INPUT_A, Half INPUT_B)
{
    All a;
    for (int i = 0; i < N / 2; i++) {
        a.v[i] = INPUT_A.v[i];
        a.v[i + N / 2] = INPUT_B.v[i];
    }
    for (int p = 1; p < N; p <<= 1)
        for (int k = p; k >= 1; k >>= 1)
            for (int j = k % p; j + k < N; j += 2 * k)
                for (int i = 0; i < k; i++)
                    if (i + j + k < N && (i + j) / (2 * p) == (i + j + k) / (2 * p)) {
                        uint8_t x = a.v[i + j], y = a.v[i + j + k];
                        if (x > y) {
                            a.v[i + j] = y;
                            a.v[i + j + k] = x;
                        }
                    }
    return a;
}
"#;
    let p = common::agree_kept_and_unrolled("oem_sort", src, 11);
    let j = p.loops.iter().find(|l| l.line == 15).expect("the j loop");
    // (Every run of it the unrolled loops around it make is reported: each
    // one kept is a region.)
    let regions = j.blocks.iter().all(|&(_, parallel)| parallel);
    assert!(regions && j.blocks.len() > 1, "{j:?}");
}

/// `t += A * (i & 7)`: a reduction whose iterations are probed (they
/// compute with their counter) and whose runs stay short, so that it is
/// lowered as written. Each iteration's partial then joins the total as
/// its rows (the product by a public constant), as unrolled: it was
/// reduced to two full words an iteration (and a sum started from zero
/// held a row of zeros), and the loop cost 1.05 times the AND gates of
/// `--no-loops` at 2,000 iterations, 1.27 times at 20,000. The products
/// are shifted copies of `A`, whose like terms the total collects
/// (measured: 23,144 AND gates kept and 21,873 unrolled before like terms,
/// 2,632 when each product counted several times was reduced first; 1,174
/// now).
#[test]
fn a_reduction_lowered_as_written_costs_what_unrolling_does() {
    let src = "#include <stdint.h>\n\
        uint32_t mpc_main(uint32_t INPUT_A, uint32_t INPUT_B) {\n\
        \x20   uint32_t t = INPUT_B;\n\
        \x20   for (int i = 0; i < 2000; i++)\n\
        \x20       t += INPUT_A * (uint32_t)(i & 7);\n\
        \x20   return t;\n\
        }\n";
    let (kept, flat) = common::kept_and_unrolled("periodic", src, 23);
    let (kept, flat) = (kept.program.and_count(), flat.program.and_count());
    assert!(
        kept <= flat && flat <= 1_500,
        "{kept} AND gates kept, {flat} unrolled"
    );
}

/// A maximum over the pairs `j > i` makes a region per `i`, each of a
/// different length, so the `i` loop is unrolled and every region's
/// partials would be combined in the main circuit: after a few such
/// regions the `j` loops are kept as sequential loops carrying the
/// maximum instead, with the same AND gates. (A minimum over every `j`,
/// in a loop kept around it, stays a region.)
#[test]
fn extremes_found_again_and_again_outside_kept_loops_are_sequential_loops() {
    let pairs = "    int64_t best = 0;\n    for (int i = 0; i < N; i++)\n        \
                 for (int j = i + 1; j < N; j++) {\n            \
                 int64_t d = (int64_t)INPUT_A.x[i] - INPUT_B.x[j];\n            \
                 if (d < 0) d = -d;\n            if (d > best) best = d;\n        }\n    \
                 out.r = best;";
    let src = program(24, "", pairs, "int64_t r;");
    let p = agree("pairs", &src, 20);
    let regions = common::parallel_counts(&p.program.blocks);
    assert!(regions.len() <= 4, "{regions:?}");
    let sequential = p.program.blocks.iter().filter(|b| !b.parallel).count();
    assert!(sequential >= 12, "{sequential} sequential loops");
    let without = compile(&src, "pairs.c", &opts(false)).unwrap();
    assert_eq!(p.program.and_count(), without.program.and_count());
    let every = "    int32_t acc = 0;\n    for (int i = 0; i < N; i++) {\n        \
                 int32_t m = 2147483647;\n        for (int j = 0; j < N; j++) {\n            \
                 int32_t d = (INPUT_A.x[i] ^ INPUT_B.x[j]) + acc;\n            \
                 if (d < m) m = d;\n        }\n        acc = m;\n    }\n    out.r = acc;";
    let src = program(24, "", every, "int32_t r;");
    let p = agree("every", &src, 20);
    let counts = common::parallel_counts(&p.program.blocks);
    assert_eq!(counts, vec![24], "{counts:?} {:?}", p.loops);
}

/// A region whose last instance alone gives a value read later (the
/// others' bits of it are constant by their ranges: `d[i] * 3` of a
/// running count) wrote that value to one wire from every instance, in
/// whatever order they ran; `twofold compile` wrote a program that its
/// reader then refused ("two instances of a parallel block write wire
/// 548"). Each instance now writes wires of its own, and the program is
/// valid (as `agree` checks every program it runs).
#[test]
fn every_instance_of_a_region_writes_its_own_wires() {
    let src = "typedef struct { int v[16]; } Out;
Out mpc_main(int INPUT_A[16], int INPUT_B)
{
    Out o;
    int d[16];
    int s = 0;
    for (int i = 0; i < 16; i++) {
        s += INPUT_A[i] & 1;
        d[i] = s;
    }
    for (int i = 0; i < 16; i++)
        o.v[i] = d[i] * 3 + (INPUT_B & 0);
    return o;
}
";
    let p = agree("running_count", src, 12);
    assert!(!common::parallel_counts(&p.program.blocks).is_empty());
}
