//! Stencils: loops over cells whose bodies visit each cell's neighbours in
//! short nested loops and skip those past an edge (`if (y >= 0 && y < N
//! ...)`, a "same" convolution, a game of life). The edge tests compute
//! with the counter, so every iteration would be probed, and the inner
//! loop's keys take another value in each of its iterations: such loops
//! were unrolled below 64 iterations, and above it a 64×64 convolution
//! probed every cell, passed the compile-time budget and was compiled
//! again unrolled (19 s and 1.2 GB). The short inner loops are now written
//! out, so the cells' iterations are replayed from their keys.

mod common;

use common::kept_within;

/// Kept, `src` agrees with gcc and with unrolling at no more AND gates,
/// and its loop at `line` is kept.
fn kept_at_unrolled_cost(name: &str, src: &str, line: u32, seed: u64) {
    let (kept, _) = kept_within(name, src, seed, 0);
    let l = (kept.loops.iter())
        .find(|l| l.line == line)
        .unwrap_or_else(|| panic!("{name}: a loop at line {line}"));
    assert!(l.kept(), "{name}: {l:?}");
}

/// A "same" 3×3 convolution of A's 16×16 image by B's kernel, with ReLU:
/// each row's loop over columns was unrolled ("fewer than 64 iterations,
/// each to be probed").
#[test]
fn a_same_convolution_keeps_its_columns() {
    let src = "#include <stdint.h>\n\
        #define N 16\n\
        typedef struct { int16_t p[N][N]; } I;\n\
        typedef struct { int16_t k[3][3]; } K;\n\
        typedef struct { int32_t p[N][N]; } O;\n\
        O mpc_main(I INPUT_A, K INPUT_B) {\n\
        \x20   O o;\n\
        \x20   for (int i = 0; i < N; i++)\n\
        \x20       for (int j = 0; j < N; j++) {\n\
        \x20           int32_t s = 0;\n\
        \x20           for (int di = -1; di <= 1; di++)\n\
        \x20               for (int dj = -1; dj <= 1; dj++) {\n\
        \x20                   int y = i + di, x = j + dj;\n\
        \x20                   if (y >= 0 && y < N && x >= 0 && x < N)\n\
        \x20                       s += (int32_t)INPUT_A.p[y][x] * INPUT_B.k[di + 1][dj + 1];\n\
        \x20               }\n\
        \x20           o.p[i][j] = s > 0 ? s : 0;\n\
        \x20       }\n\
        \x20   return o;\n\
        }\n";
    kept_at_unrolled_cost("conv_same", src, 9, 81);
}

/// Three generations of a game of life on the XOR of two 12×12 boards:
/// the neighbours' loop skips the cell itself with `continue`.
#[test]
fn a_game_of_life_keeps_its_cells() {
    let src = "#include <stdint.h>\n\
        #define N 12\n\
        typedef struct { uint8_t c[N][N]; } G;\n\
        G mpc_main(G INPUT_A, G INPUT_B) {\n\
        \x20   uint8_t g[N][N], h[N][N]; G o;\n\
        \x20   for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) g[i][j] = (INPUT_A.c[i][j] ^ INPUT_B.c[i][j]) & 1;\n\
        \x20   for (int t = 0; t < 3; t++) {\n\
        \x20       for (int i = 0; i < N; i++)\n\
        \x20           for (int j = 0; j < N; j++) {\n\
        \x20               int n = 0;\n\
        \x20               for (int di = -1; di <= 1; di++)\n\
        \x20                   for (int dj = -1; dj <= 1; dj++) {\n\
        \x20                       if (di == 0 && dj == 0) continue;\n\
        \x20                       int y = i + di, x = j + dj;\n\
        \x20                       if (y < 0 || y >= N || x < 0 || x >= N) continue;\n\
        \x20                       n += g[y][x];\n\
        \x20                   }\n\
        \x20               h[i][j] = n == 3 || (g[i][j] && n == 2);\n\
        \x20           }\n\
        \x20       for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) g[i][j] = h[i][j];\n\
        \x20   }\n\
        \x20   for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) o.c[i][j] = g[i][j];\n\
        \x20   return o;\n\
        }\n";
    kept_at_unrolled_cost("life", src, 9, 82);
}

/// Inner loops of other shapes: counting down by two, over unsigned
/// values, with a `switch` whose `break` stays inside it, a subscript the
/// inner variable scales (`a[i * d]`: each copy moves by its own stride),
/// and locals declared from counter values in nested blocks, read under
/// secret conditions.
#[test]
fn inner_loops_of_other_shapes_agree_with_gcc() {
    let src = "#include <stdint.h>\n\
        #define N 24\n\
        typedef struct { int32_t v[2 * N]; } V;\n\
        typedef struct { int32_t r[N]; } R;\n\
        R mpc_main(V INPUT_A, V INPUT_B) {\n\
        \x20   R o;\n\
        \x20   for (int i = 0; i < N; i++) {\n\
        \x20       int32_t s = INPUT_B.v[i];\n\
        \x20       for (int d = 2; d >= -2; d -= 2) {\n\
        \x20           int at = i + d;\n\
        \x20           if (at < 0 || at >= N) continue;\n\
        \x20           if (INPUT_A.v[at] > s) { int w = at - i; s += INPUT_B.v[N + w + 2]; }\n\
        \x20       }\n\
        \x20       for (unsigned k = 1; k < 3; k++) {\n\
        \x20           switch (k) {\n\
        \x20           case 1: s ^= INPUT_A.v[i * k]; break;\n\
        \x20           default: if (i * k < 2 * N) s -= INPUT_A.v[i * k] & 255; break;\n\
        \x20           }\n\
        \x20       }\n\
        \x20       o.r[i] = s;\n\
        \x20   }\n\
        \x20   return o;\n\
        }\n";
    let (kept, _) = kept_within("shapes", src, 83, 5);
    assert!(
        kept.loops.iter().any(|l| l.line == 7 && l.kept()),
        "{:?}",
        kept.loops
    );
}
