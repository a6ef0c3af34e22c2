//! A sum converted to a narrower type before the wider sum is reduced
//! (`lo = (uint32_t)t; hi = t >> 32;`, the step of multi-word arithmetic)
//! takes the wider sum's low bits once those are made, instead of being
//! reduced again from the same rows. Unrolled, hashing shared those gates
//! anyway; kept, a loop's block left the narrower sum as rows for the
//! enclosing frame to reduce again (a 16-word schoolbook product cost
//! 768,992 AND gates kept against 524,256 unrolled).

mod common;

use common::{agree_with_gcc, compiled, kept_and_unrolled};

/// Kept, `src` costs no more AND gates than unrolled (both agreeing with
/// gcc).
fn costs_what_unrolling_does(name: &str, src: &str, seed: u64) {
    let (kept, flat) = kept_and_unrolled(name, src, seed);
    let (k, f) = (kept.program.and_count(), flat.program.and_count());
    assert!(k <= f, "{name}: {k} AND gates kept, {f} unrolled");
    assert!(
        kept.loops.iter().any(|l| l.kept()),
        "{name}: {:?}",
        kept.loops
    );
}

/// A multi-word number times a word: each step's low half is stored, its
/// high half carried.
#[test]
fn a_number_times_a_word_costs_what_unrolling_does() {
    let src = "#include <stdint.h>\n\
        #define L 8\n\
        typedef struct { uint32_t w[L + 1]; } Out;\n\
        Out mpc_main(uint32_t INPUT_A_x, uint32_t INPUT_B_y[L]) {\n\
        \x20   Out r; uint64_t carry = 0;\n\
        \x20   for (int j = 0; j < L; j++) {\n\
        \x20       uint64_t t = (uint64_t)INPUT_A_x * INPUT_B_y[j] + carry;\n\
        \x20       r.w[j] = (uint32_t)t;\n\
        \x20       carry = t >> 32;\n\
        \x20   }\n\
        \x20   r.w[L] = (uint32_t)carry;\n\
        \x20   return r;\n\
        }\n";
    costs_what_unrolling_does("times_word", src, 11);
}

/// The schoolbook product of two multi-word numbers: each row adds its
/// products to the words the rows before it stored.
#[test]
fn a_schoolbook_product_costs_what_unrolling_does() {
    let src = "#include <stdint.h>\n\
        #define L 4\n\
        typedef struct { uint32_t w[2 * L]; } Out;\n\
        Out mpc_main(uint32_t INPUT_A_a[L], uint32_t INPUT_B_b[L]) {\n\
        \x20   Out r;\n\
        \x20   for (int i = 0; i < 2 * L; i++) r.w[i] = 0;\n\
        \x20   for (int i = 0; i < L; i++) {\n\
        \x20       uint64_t carry = 0;\n\
        \x20       for (int j = 0; j < L; j++) {\n\
        \x20           uint64_t t = (uint64_t)INPUT_A_a[i] * INPUT_B_b[j] + r.w[i + j] + carry;\n\
        \x20           r.w[i + j] = (uint32_t)t;\n\
        \x20           carry = t >> 32;\n\
        \x20       }\n\
        \x20       r.w[i + L] = (uint32_t)carry;\n\
        \x20   }\n\
        \x20   return r;\n\
        }\n";
    costs_what_unrolling_does("schoolbook", src, 12);
}

/// Narrowings of signed and unsigned sums to every smaller width, read
/// before and after the wider sum is reduced, and compared (their ranges
/// must be what their bits hold): the values gcc gives.
#[test]
fn narrowed_sums_read_after_the_wider_one_agree_with_gcc() {
    let src = "#include <stdint.h>\n\
        typedef struct { int64_t v[12]; } Out;\n\
        Out mpc_main(int16_t INPUT_A_a, int16_t INPUT_A_b, int16_t INPUT_B_c, int8_t INPUT_B_d) {\n\
        \x20   Out o;\n\
        \x20   int32_t t = INPUT_A_a * INPUT_B_c + INPUT_A_b - INPUT_B_d;\n\
        \x20   int8_t s8 = (int8_t)t; uint8_t u8 = (uint8_t)t;\n\
        \x20   int16_t s16 = (int16_t)t; uint16_t u16 = t;\n\
        \x20   int32_t hi = t >> 9;\n\
        \x20   o.v[0] = hi; o.v[1] = s8; o.v[2] = u8; o.v[3] = s16; o.v[4] = u16;\n\
        \x20   o.v[5] = s8 < 0; o.v[6] = u8 > 200; o.v[7] = s16 < -1000;\n\
        \x20   o.v[8] = u16 >= 32768; o.v[9] = s8 + u8 + s16;\n\
        \x20   uint64_t w = (uint64_t)(uint32_t)INPUT_A_a * (uint32_t)INPUT_B_c + (uint32_t)INPUT_A_b;\n\
        \x20   uint32_t w32 = (uint32_t)w; int16_t w16 = (int16_t)w;\n\
        \x20   o.v[10] = (int64_t)(w >> 40) * 3 + (w32 > 4000000000u) + (w16 < 0);\n\
        \x20   o.v[11] = w32 - w16;\n\
        \x20   return o;\n\
        }\n";
    agree_with_gcc(src, &[&compiled(src)], 64, 13, "narrowed");
}
