//! Long loops that add a fresh term to a running total each iteration
//! (`s += a[i] * b[i]`, `s += max(a[i], b[i])`): left as rows, the total
//! grew by a row every iteration, no two iterations lowered alike, and the
//! loop was unrolled (a 65,536-term dot product: 1.6 s and 250 MB to
//! compile; a sum of 2^20 words passed the gate limit). From 1,024
//! iterations on, such a total is reduced each iteration and the loop is
//! kept, at a few percent more AND gates than unrolled carry-save. Totals
//! whose terms repeat or cancel across iterations, or whose prefixes the
//! loop stores, stay unrolled, where their rows collect. Array parameters
//! (pointers in C) no longer keep such loops from being regions.

mod common;

use common::kept_within;
use twofold_compiler::CompiledProgram;

/// A program over `N` = `n` values a party, of type `ty`, with a total of
/// type `acc` that the loop body `body` adds to (reading `a`, `b` and the
/// counter `i`), returning what `ret` computes.
fn program(n: usize, ty: &str, acc: &str, body: &str, ret: &str) -> String {
    format!(
        "#include <stdint.h>\n\
        #define N {n}\n\
        typedef struct {{ {ty} v[N]; }} V;\n\
        typedef struct {{ {acc} p[N]; }} P;\n\
        {acc} mpc_main(V INPUT_A, V INPUT_B) {{\n\
        \x20   const {ty} *a = INPUT_A.v, *b = INPUT_B.v;\n\
        \x20   {acc} s = 0;\n\
        \x20   for (int i = 1; i < N; i++) {{\n\
        \x20       {body}\n\
        \x20   }}\n\
        \x20   {ret}\n\
        }}\n"
    )
}

/// Whether the loop of `p` (on line 8) is kept, with nearly every
/// iteration in its blocks.
fn kept(p: &CompiledProgram, n: u64) -> bool {
    let l = p.loops.iter().find(|l| l.line == 8).expect("the loop");
    l.blocks.iter().map(|b| b.0).sum::<u64>() + 64 >= n
}

/// Running totals of fresh terms are kept over 2,048 iterations, within
/// 4% of the unrolled AND gates, and agree with gcc.
#[test]
fn totals_of_fresh_terms_are_kept() {
    let cases = [
        ("uint32_t", "uint32_t", "s += a[i] + b[i];"),
        ("int32_t", "int32_t", "s += a[i] * b[i];"),
        ("int16_t", "int32_t", "s += a[i] * b[i];"),
        ("uint32_t", "uint32_t", "s += a[i] > b[i] ? a[i] : b[i];"),
        ("uint32_t", "uint32_t", "s = s + (a[i] ^ b[i - 1]);"),
        (
            "uint32_t",
            "uint64_t",
            "int64_t d = (int64_t)a[i] - b[i]; s += (uint64_t)(d * d);",
        ),
    ];
    for (k, (ty, acc, body)) in cases.into_iter().enumerate() {
        let src = program(2048, ty, acc, body, "return s;");
        let (p, _) = kept_within(&format!("totals{k}"), &src, 4100 + k as u64, 4);
        assert!(kept(&p, 2047), "{body}: {:?}", p.loops);
    }
}

/// Totals whose terms repeat (`s += x` each iteration: unrolled, `N * x`),
/// cancel (`a[i] - a[i - 1]` telescopes, also two iterations apart),
/// share (the same term in two totals, a product made again two
/// iterations later), hold a constant (unrolled, one constant), add a
/// narrow row beside a wide one, or whose prefixes the loop stores cost
/// no more AND gates than unrolled (they stay unrolled, or are regions,
/// or are no regions where their terms cancel):
/// reduced each iteration they cost up to 128 times the AND gates (65
/// times two iterations apart, 2x for the stored prefixes, the repeated
/// term, the two totals and the constant, 1.6x for the narrow row).
#[test]
fn totals_that_collect_across_iterations_cost_what_unrolling_does() {
    let cases = [
        ("s += b[0]; s += a[i];", "return s;"),
        ("s += a[i] - a[i - 1];", "return s + b[0];"),
        ("s += a[i] ^ b[i]; o.p[i] = s;", "return o.p[N / 2] ^ s;"),
        ("if (i >= 2) s += a[i] - a[i - 2];", "return s + b[0];"),
        (
            "if (i >= 2) s += (a[i] ^ b[i]) * 3 + (a[i - 2] ^ b[i - 2]);",
            "return s;",
        ),
        (
            "s += a[i] ^ b[i]; t += a[i] ^ b[i];",
            "return s ^ (t << 1);",
        ),
        ("s += (a[i] ^ b[i]) + 7;", "return s;"),
        ("s += a[i] + (b[i] & 0xFF);", "return s;"),
        // As regions (array parameters): a repeated term beside one that
        // changes, terms cancelling through a pointer into the same
        // array, a product made for two totals.
        ("s += a[i] + b[i] + y;", "return s;"),
        ("if (i < N - 2) s += c[i] - a[i];", "return s + b[0];"),
        (
            "if (i >= 2) { s += a[i] * b[i]; t += a[i - 2] * b[i - 2]; }",
            "return s - t;",
        ),
        // Regions over a struct's array: terms cancelling, scaled or not
        // (a region cost 130 and 64 times the AND gates).
        ("s += INPUT_A.v[i] - INPUT_A.v[i - 1];", "return s + b[0];"),
        (
            "if (i >= 2) s += 3 * INPUT_A.v[i] - INPUT_A.v[i - 2] * 3;",
            "return s;",
        ),
    ];
    for (k, (body, ret)) in cases.into_iter().enumerate() {
        let src = program(2048, "uint32_t", "uint32_t", body, ret).replace(
            "uint32_t s = 0;",
            "uint32_t s = 0, t = 0, y = b[0] ^ 5; P o = {{0}}; const uint32_t *c = a + 2;",
        );
        kept_within(&format!("collect{k}"), &src, 4200 + k as u64, 0);
    }
}

/// A 65,536-term dot product compiles as one kept block: a few hundred
/// gates made where unrolling made millions.
#[test]
fn a_long_dot_product_compiles_as_a_loop() {
    let src = program(
        65_536,
        "int32_t",
        "int32_t",
        "s += a[i] * b[i];",
        "return s;",
    );
    let p = common::compiled(&src);
    assert!(kept(&p, 65_535), "{:?}", p.loops);
    let program = &p.program;
    let made = program.main.gates.len()
        + (program.blocks.iter())
            .map(|b| b.body.circuit.gates.len())
            .sum::<usize>();
    assert!(made < 20_000, "{made} gates made");
    // One 32-bit multiply-accumulate an iteration.
    let ands = program.and_count();
    assert!((65_535 * 1_000..65_535 * 1_100).contains(&ands), "{ands}");
}

/// Counts and bit counts over array parameters (pointers in C), whose
/// terms are cheap to make but costly to carry reduced, are regions, as
/// over a struct's array: each iteration's term is added after the loop,
/// at the unrolled AND gates (they were unrolled: "the body accesses
/// memory through a pointer"). A pointer to what the loop writes keeps it
/// sequential, and every form agrees with gcc.
#[test]
fn array_parameters_make_regions() {
    let regions = [
        "if (a[i] > b[i]) s++;",
        "s += __builtin_popcount(a[i] ^ b[i]);",
    ];
    for (k, body) in regions.into_iter().enumerate() {
        let src = program(2048, "uint32_t", "uint32_t", body, "return s;");
        let (p, _) = kept_within(&format!("region{k}"), &src, 4300 + k as u64, 0);
        let l = p.loops.iter().find(|l| l.line == 8).expect("the loop");
        assert!(l.blocks.iter().any(|b| b.1), "{body}: {l:?}");
    }
    // Pointers at what the loop writes: a reduction, an array it fills.
    let aliased = [
        (
            "uint32_t t = 0; uint32_t *q = &s;",
            "s += a[i] > b[i]; t += q[0];",
            "return s + t;",
        ),
        (
            "P o = {{0}}; uint32_t *q = o.p;",
            "o.p[i] = a[i] + 1; s += q[i] * b[i];",
            "return s + o.p[N - 1];",
        ),
    ];
    for (k, (decl, body, ret)) in aliased.into_iter().enumerate() {
        let src = program(2048, "uint32_t", "uint32_t", body, ret)
            .replace("uint32_t s = 0;", &format!("uint32_t s = 0; {decl}"));
        let (p, _) = common::kept_and_unrolled(&format!("aliased{k}"), &src, 4400 + k as u64);
        let l = p.loops.iter().find(|l| l.line == 8).expect("the loop");
        assert!(!l.blocks.iter().any(|b| b.1), "{body}: {l:?}");
    }
}
