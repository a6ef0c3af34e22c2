//! The tree that combines a region's partials (a running maximum's
//! candidates, a product's factors): outside other loops its wide levels
//! are parallel blocks of one combine each, not copies in the main
//! circuit, and the programs compute what gcc computes, with regions, without
//! and unrolled.

mod common;

use common::{accepted, agree_with_gcc, parallel_counts};
use twofold_compiler::{compile, CompileOptions, CompiledProgram};

/// 300 values: the tree's levels have 150 and 75 pairs (blocks), then 37
/// pairs and an odd one out (gates).
const N: usize = 300;

/// Compiles `src` with regions, without, and unrolled; checks all three
/// against gcc, and that regions cost no more AND gates than unrolling
/// and `slack` more. Returns the program with regions.
fn agree(name: &str, src: &str, slack: u64) -> CompiledProgram {
    let compiled = |opts: CompileOptions| {
        compile(src, &format!("{name}.c"), &opts).unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    let with = compiled(CompileOptions::default());
    let without = compiled(CompileOptions {
        regions: false,
        ..CompileOptions::default()
    });
    let flat = compiled(CompileOptions {
        loops: false,
        ..CompileOptions::default()
    });
    assert!(
        with.program.and_count() <= flat.program.and_count() + slack,
        "{name}: {} AND gates with regions, {} unrolled",
        with.program.and_count(),
        flat.program.and_count()
    );
    agree_with_gcc(src, &[&with, &without, &flat], 6, 29, name);
    with
}

/// A program reducing over two inputs of [`N`] elements.
fn program(decls: &str, body: &str) -> String {
    format!(
        "#include <stdint.h>\n#define N {N}\n\
         typedef struct {{ int32_t x[N]; uint8_t k[N]; int64_t w[N]; }} In;\n\
         int64_t mpc_main(In INPUT_A, In INPUT_B)\n{{\n{decls}\n{body}\n}}\n"
    )
}

#[test]
fn wide_levels_of_combining_trees_are_blocks() {
    let cases = [
        (
            "max_xor",
            "    uint32_t m = 0;",
            "    for (int i = 0; i < N; i++) { uint32_t d = INPUT_A.x[i] ^ INPUT_B.x[i]; if (d > m) m = d; }\n    return m;",
        ),
        (
            "min_secret_start",
            "    int64_t best = INPUT_B.w[7];",
            "    for (int i = 0; i < N; i++) { int64_t d = INPUT_A.w[i] - INPUT_B.w[i]; best = d < best ? d : best; }\n    return best;",
        ),
        (
            // Candidates widened from bytes: their high bits are constant
            // zeros in every partial, so constants in the blocks' body.
            "max_of_bytes",
            "    int32_t m = -5;",
            "    for (int i = 0; i < N; i++) { int32_t d = INPUT_A.k[i] + INPUT_B.k[i]; if (m < d) m = d; }\n    return m;",
        ),
        (
            "signed_min16",
            "    int16_t m = 0;",
            "    for (int i = 0; i < N; i++) { int16_t d = (int16_t)(INPUT_A.x[i] - INPUT_B.x[i]); if (d <= m) m = d; }\n    return m;",
        ),
        (
            "product",
            "    int32_t p = 3;",
            "    for (int i = 0; i < N; i++) p *= INPUT_A.x[i] | 1;\n    return p;",
        ),
        (
            "or_and",
            "    uint32_t o = 0; uint32_t a = 0xffffffffu;",
            "    for (int i = 0; i < N; i++) { o |= INPUT_A.x[i] & INPUT_B.x[i]; a &= INPUT_A.x[i] | INPUT_B.x[i]; }\n    return (int64_t)o * 3 + a;",
        ),
    ];
    for (name, decls, body) in cases {
        let src = program(decls, body);
        let p = agree(name, &src, 0);
        assert_eq!(accepted(&p), vec![N], "{name}: {:?}", p.loops);
        let blocks = parallel_counts(&p.program.blocks);
        for level in [150, 75] {
            let tree = blocks.iter().filter(|&&c| c == level).count();
            // (or_and has two trees.)
            let trees = if name == "or_and" { 2 } else { 1 };
            assert_eq!(
                tree, trees,
                "{name}: a level of {level} pairs is no block: {blocks:?}"
            );
        }
        assert!(
            !blocks.contains(&37),
            "{name}: a narrow level is a block: {blocks:?}"
        );
    }
}

#[test]
fn trees_of_regions_in_an_outer_loop_agree_with_gcc() {
    // A region a round, each round's tree combined with a start read from
    // the inputs.
    let src = program(
        "    int64_t total = 0;",
        "    for (int t = 0; t < 3; t++) {\n        int32_t m = INPUT_B.x[t];\n        for (int i = 0; i < N; i++) { int32_t d = (INPUT_A.x[i] ^ t) - INPUT_B.x[i]; if (d > m) m = d; }\n        total += m;\n    }\n    return total;",
    );
    // (A region's instance computes its candidate with one AND gate more
    // than unrolling does: this was so before trees became blocks.)
    let p = agree("rounds", &src, 3 * N as u64);
    let blocks = parallel_counts(&p.program.blocks);
    assert!(blocks.contains(&N), "{:?}: {blocks:?}", p.loops);
}
