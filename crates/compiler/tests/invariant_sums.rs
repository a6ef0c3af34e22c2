//! A sequential loop that reads a sum computed before it and never writes
//! it (`t = (t ^ (t << 3)) - u`, `u` a sum of 16 words still lazy): the
//! sum is reduced once before the first iteration, as unrolled iterations
//! reduce it once (at the second), so the kept loop costs no more AND
//! gates than the unrolled form. Kept with the sum's rows as its inputs,
//! every iteration added them up again. Each must agree with gcc (on 24
//! random input sets, kept and unrolled).

mod common;

use common::kept_and_unrolled;

/// Loop bodies over `t` (the total the loop carries), `u` (a sum of the
/// inputs' elements made before the loop, read by it only) and the
/// counter `k`.
const BODIES: &[&str] = &[
    "t = (t ^ (t << 3)) - u;",
    "t = ((t >> 1) | 1) + u;",
    "t = (t & 0xffff) * 3 + u;",
    "t = (t ^ k) - u - u;",
    // The sum is written too: left as it is (its rows carry on).
    "{ t = (t ^ u) + k; u = u + (t & 7); }",
];

fn program(body: &str) -> String {
    format!(
        "#include <stdint.h>\n\
         typedef struct {{ uint32_t x[16]; uint32_t s; }} In;\n\
         uint32_t mpc_main(In INPUT_A, In INPUT_B)\n\
         {{\n\
         \x20   uint32_t t = INPUT_B.s, u = 1;\n\
         \x20   for (int k = 0; k < 16; k++)\n\
         \x20       u = u * 3 + (INPUT_A.x[k] ^ INPUT_B.x[k]);\n\
         \x20   for (uint32_t k = 0; k < 29; k++)\n\
         \x20       {body}\n\
         \x20   return t ^ u;\n\
         }}\n"
    )
}

#[test]
fn sums_a_loop_only_reads_are_reduced_before_it() {
    for (n, body) in BODIES.iter().enumerate() {
        let src = program(body);
        let (kept, flat) = kept_and_unrolled(&format!("invariant{n}"), &src, 1700 + n as u64);
        let l = (kept.loops.iter().find(|l| l.line == 8)).expect("the loop");
        let (a, b) = (kept.program.and_count(), flat.program.and_count());
        if n < 4 {
            assert!(!l.blocks.is_empty(), "{body}: {l:?}");
            assert!(a <= b, "{body}: {a} AND gates kept against {b} unrolled");
        }
    }
}
