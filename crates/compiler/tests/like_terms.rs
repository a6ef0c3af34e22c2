//! Sums whose terms repeat or cancel cost what they add up to: a sum
//! collects like terms (copies of a bit, a bit and its complement, a
//! product added many times) before it reduces. Each program here must
//! agree with gcc, kept and unrolled, and stay within the AND gates
//! measured for it.

mod common;

use common::kept_and_unrolled;

/// The AND gates of `src` with loops kept and with `--no-loops`, each
/// checked against gcc on random inputs.
fn and_gates(name: &str, src: &str, seed: u64) -> (u64, u64) {
    let (kept, flat) = kept_and_unrolled(name, src, seed);
    (kept.program.and_count(), flat.program.and_count())
}

/// Issue 28's loop that computes with its counter: unrolled, the sum of
/// all its products by the counter and of `y ^ i` collects its terms
/// (1,540,377 AND gates before like terms, 1,840,000 kept with its sums
/// reduced each iteration); 20,933 now.
#[test]
fn the_counter_loop_collects_its_terms() {
    let src = "#include <stdint.h>\n\
        uint32_t mpc_main(uint32_t INPUT_A_x, uint32_t INPUT_B_y) {\n\
        \x20   uint32_t t = 0;\n\
        \x20   for (uint32_t i = 0; i < 20000; i++)\n\
        \x20       t += i * INPUT_A_x + (INPUT_B_y ^ i);\n\
        \x20   return t;\n\
        }\n";
    let (kept, flat) = and_gates("counter", src, 31);
    assert!(
        kept <= 30_000 && flat <= 25_000,
        "{kept} kept, {flat} unrolled"
    );
}

/// Terms that cancel (`A - A`) or complement each other (`x - (x ^ 7)`,
/// whose high bits add up to a constant): no more AND gates than before
/// like terms were collected (measured then: 8 and 764 unrolled), and
/// none for `A - A`.
#[test]
fn cancelling_terms_cost_nothing_more() {
    let cancel = "#include <stdint.h>\n\
        uint32_t mpc_main(uint32_t INPUT_A, uint32_t INPUT_B) {\n\
        \x20   uint32_t s = INPUT_B;\n\
        \x20   for (int i = 0; i < 100; i++)\n\
        \x20       s += INPUT_A - INPUT_A;\n\
        \x20   return s;\n\
        }\n";
    assert_eq!(and_gates("cancel", cancel, 32), (0, 0));
    for (n, most) in [(2, 8), (128, 764)] {
        let src = format!(
            "#include <stdint.h>\n\
             typedef struct {{ int8_t b[16]; }} In;\n\
             uint8_t mpc_main(In INPUT_A, In INPUT_B) {{\n\
             \x20   uint8_t s = 218;\n\
             \x20   for (int i = 0; i < {n}; i++)\n\
             \x20       s += (uint32_t)INPUT_B.b[i * 3 % 16] - ((uint32_t)INPUT_B.b[i * 3 % 16] ^ 7u);\n\
             \x20   return s;\n\
             }}\n"
        );
        let (kept, flat) = and_gates("complements", &src, 33);
        assert!(
            kept <= most && flat <= most,
            "{n}: {kept} kept, {flat} unrolled"
        );
    }
}

/// A product of secrets added many times (a period of 32 pairs over
/// 1,000 iterations) is reduced once per distinct product and added times
/// its count, not as that many products' partial products (measured:
/// 44,117 AND gates kept and 214,895 unrolled before like terms, 66,469
/// unrolled collecting only bits; 36,719 and 34,202 now).
#[test]
fn repeated_products_are_reduced_once() {
    let src = "#include <stdint.h>\n\
        typedef struct { uint32_t v[16]; } In;\n\
        uint32_t mpc_main(In INPUT_A, In INPUT_B) {\n\
        \x20   uint32_t s = 0;\n\
        \x20   for (int i = 0; i < 1000; i++)\n\
        \x20       s += INPUT_A.v[i % 16] * INPUT_B.v[i / 2 % 16];\n\
        \x20   return s;\n\
        }\n";
    let (kept, flat) = and_gates("products", src, 34);
    assert!(
        kept <= 40_000 && flat <= 40_000,
        "{kept} kept, {flat} unrolled"
    );
}
