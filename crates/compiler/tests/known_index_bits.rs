//! Reads at secret positions whose index has constant bits read only the
//! candidates those bits allow (a binary search's early steps, `a[2 * x +
//! 1]`, a high bit set): the programs compute what gcc computes, kept and
//! unrolled, for arrays whose lengths are not powers of two (candidates
//! left alone at a level of the multiplexer tree) and positions past the
//! end the index's bits allow but its values never reach.

mod common;

use common::agree_kept_and_unrolled;

#[test]
fn binary_searches_over_lengths_that_are_not_powers_of_two() {
    for (n, steps) in [(100, 8), (37, 7), (129, 9)] {
        let src = format!(
            "#include <stdint.h>\n#define N {n}\n\
             typedef struct {{ uint32_t v[N]; }} V;\n\
             int mpc_main(V INPUT_A, uint32_t INPUT_B) {{\n\
             \x20   uint32_t s[N];\n\
             \x20   uint32_t acc = 0;\n\
             \x20   for (int i = 0; i < N; i++) {{ acc += INPUT_A.v[i] & 0xffff; s[i] = acc; }}\n\
             \x20   int lo = 0, hi = N - 1;\n\
             \x20   for (int k = 0; k < {steps}; k++) {{\n\
             \x20       int mid = (lo + hi) >> 1;\n\
             \x20       if (s[mid] < INPUT_B) lo = mid + 1; else hi = mid;\n\
             \x20   }}\n\
             \x20   int at = lo < N ? lo : N - 1;\n\
             \x20   return lo * 1000 + (int)(s[at] & 511);\n\
             }}\n"
        );
        agree_kept_and_unrolled(&format!("bsearch{n}"), &src, 5);
    }
}

#[test]
fn positions_with_constant_bits() {
    let src = "#include <stdint.h>\n\
        typedef struct { int32_t v[45]; uint8_t x; uint8_t y; } In;\n\
        int64_t mpc_main(In INPUT_A, In INPUT_B) {\n\
        \x20   int32_t t[45];\n\
        \x20   for (int i = 0; i < 45; i++) t[i] = INPUT_A.v[i] ^ INPUT_B.v[i];\n\
        \x20   int x = INPUT_A.x & 15, y = INPUT_B.y & 7;\n\
        \x20   int64_t r = t[2 * x + 1];\n\
        \x20   r = r * 3 + t[((y & 3) | 8) + 32];\n\
        \x20   r = r * 5 + t[(x & 12) | 2];\n\
        \x20   int32_t m[5][9];\n\
        \x20   for (int i = 0; i < 5; i++) for (int j = 0; j < 9; j++) m[i][j] = t[i * 9 + j] + i;\n\
        \x20   r = r * 7 + m[(x & 2) + 1][(y << 1) & 6];\n\
        \x20   t[4 * (y & 3) + 3] = (int32_t)r;\n\
        \x20   int32_t *p = &t[1];\n\
        \x20   r += p[(x | 1) * 2] + t[3] + t[15] + t[7] + t[11];\n\
        \x20   return r;\n\
        }\n";
    agree_kept_and_unrolled("constant_bits", src, 9);
}
