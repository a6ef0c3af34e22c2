//! Loops that compute with their counter and carry a sum each iteration
//! reads the bits of (`r = (r ^ y) + (x ^ i)`): the sum an iteration
//! leaves is reduced where it is left rather than where the next one
//! reads it — the same gates, moved — so consecutive iterations lower
//! alike and the loop is kept, with the unrolled form's AND gates. Sums
//! whose rows carry on from one iteration to the next (`r = r * 3 + ...`)
//! are left unrolled, where their rows collect. Each must agree with gcc.

mod common;

use common::agree_with_gcc;
use twofold_compiler::{compile, CompileOptions};

/// Loop bodies over `x`, `y` (A's and B's `uint32_t`), the counter `i` and
/// the accumulator `r`, with whether the loop must be kept.
const CASES: &[(&str, bool)] = &[
    ("r = (r ^ y) + (x ^ i);", true),
    ("{ uint32_t t = x ^ i; r = (r ^ y) + t; }", true),
    ("r = (r & y) - (x ^ (i * 3));", true),
    ("r = ((r >> 1) | y) + (x ^ i) + 5;", true),
    ("r = r * 3 + (x ^ i);", true),
    // The rows carry on (each iteration's sum holds the last one's rows,
    // and the like terms of all collect): unrolled, as before.
    ("r = r + (x ^ i);", false),
    ("r += (x ^ i) + (y & i);", false),
];

fn program(body: &str) -> String {
    format!(
        "#include <stdint.h>\n\
         uint32_t mpc_main(uint32_t INPUT_A, uint32_t INPUT_B) {{\n\
         \x20   uint32_t x = INPUT_A, y = INPUT_B, r = y;\n\
         \x20   for (uint32_t i = 0; i < 3000; i++)\n\
         \x20       {body}\n\
         \x20   return r;\n\
         }}\n"
    )
}

#[test]
fn sums_each_iteration_reads_are_reduced_where_they_are_left() {
    for (n, &(body, kept)) in CASES.iter().enumerate() {
        let src = program(body);
        let p = compile(&src, "settled.c", &CompileOptions::default())
            .unwrap_or_else(|e| panic!("{e}\n{src}"));
        let flat_opts = CompileOptions {
            loops: false,
            ..CompileOptions::default()
        };
        let flat = compile(&src, "settled.c", &flat_opts).unwrap_or_else(|e| panic!("{e}"));
        let l = p.loops.iter().find(|l| l.line == 4).expect("the loop");
        assert_eq!(!l.blocks.is_empty(), kept, "{body}: {l:?}");
        if kept {
            // Nearly every iteration in one block.
            let kept_iterations: u64 = l.blocks.iter().map(|b| b.0).sum();
            assert!(kept_iterations >= 2990, "{body}: {l:?}");
        }
        // The reduction is only moved: no more AND gates than unrolled.
        let (a, b) = (p.program.and_count(), flat.program.and_count());
        assert!(a <= b, "{body}: {a} AND gates kept against {b} unrolled");
        agree_with_gcc(
            &src,
            &[&p, &flat],
            3,
            1300 + n as u64,
            &format!("settled{n}"),
        );
    }
}
