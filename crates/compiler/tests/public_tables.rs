//! Loops whose iterations read their own entry of a public table (`W[i]`:
//! model weights, filter taps, masks, shift amounts). A kept loop's
//! template reads such entries as inputs, which costs nothing more where
//! an entry is added or compared, but turns a product by a constant into
//! a multiplier of two secrets, and a mask or a shift by one into gates:
//! 4 times the unrolled AND gates for `x * W[i]`, 14 times for `x >>
//! S[i]`. Where the template costs more than the iterations' own probes,
//! the entries stay constants and the iterations cost what unrolling
//! does.

mod common;

use common::kept_within;

/// A C table of `n` entries, drawn from `seed` in `lo..=hi`.
fn table(n: usize, seed: u64, (lo, hi): (i64, i64)) -> String {
    let mut state = seed;
    let entries: Vec<String> = (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let span = (hi - lo + 1) as u64;
            (lo + ((state >> 33) % span) as i64).to_string()
        })
        .collect();
    entries.join(",")
}

/// A program of `N` = `n` values a party over the table `W` (of `ty`
/// entries in `range`), whose loop body is `body` (reading `x`, the
/// parties' values combined, and writing `o.v[i]` or `s`).
fn program(n: usize, (ty, range): (&str, (i64, i64)), body: &str, sum: bool) -> String {
    let w = table(n, n as u64 * 7 + body.len() as u64, range);
    let (ret, init, out) = if sum {
        ("int32_t", "int32_t s = 0;", "return s;")
    } else {
        ("V", "V o;", "return o;")
    };
    format!(
        "#include <stdint.h>\n\
        #define N {n}\n\
        static const {ty} W[N] = {{{w}}};\n\
        typedef struct {{ int32_t v[N]; }} V;\n\
        {ret} mpc_main(V INPUT_A, V INPUT_B) {{\n\
        \x20   {init}\n\
        \x20   for (int i = 0; i < N; i++) {{\n\
        \x20       int32_t x = INPUT_A.v[i] - INPUT_B.v[i];\n\
        \x20       {body}\n\
        \x20   }}\n\
        \x20   {out}\n\
        }}\n"
    )
}

/// Products, masks and shifts by table entries cost what unrolling does
/// (30,656 AND gates kept before for the 64 products, 7,569 unrolled;
/// 40,036 for the 256 shifts, 3,040 unrolled), and agree with gcc. The
/// templates thrown away count no product of two secrets (which would
/// start a mixed compilation under `--protocol auto` for nothing).
#[test]
fn products_masks_and_shifts_by_table_entries_cost_what_unrolling_does() {
    let cases = [
        (
            "products",
            program(
                64,
                ("int32_t", (1 << 20, i32::MAX as i64)),
                "o.v[i] = (x * (W[i] & 255)) > 0;",
                false,
            ),
        ),
        (
            "masks",
            program(
                256,
                ("uint32_t", (0, i32::MAX as i64)),
                "o.v[i] = (x & W[i]) == 0;",
                false,
            ),
        ),
        (
            "shifts",
            program(
                256,
                ("int", (0, 31)),
                "o.v[i] = ((uint32_t)x >> W[i]) > 7;",
                false,
            ),
        ),
        (
            "weights",
            program(
                1024,
                ("int32_t", (-100, 100)),
                "s += (x > 0 ? x : 0) * W[i];",
                true,
            ),
        ),
        (
            "clamped",
            program(
                64,
                ("int32_t", (1, 1000)),
                "int32_t p = x * W[i]; o.v[i] = p < 1000 ? p : 1000;",
                false,
            ),
        ),
    ];
    for (seed, (name, src)) in (90..).zip(&cases) {
        let (kept, _) = kept_within(name, src, seed, 0);
        assert_eq!(kept.secret_products, 0, "{name}");
    }
}

/// Entries that cost no more read as inputs (added, compared) keep the
/// loop: one template over the whole table, within a few AND gates of
/// unrolling.
#[test]
fn sums_and_comparisons_with_table_entries_stay_kept() {
    let cases = [
        (
            "added",
            program(
                256,
                ("int32_t", (0, 1 << 24)),
                "o.v[i] = (x + W[i]) > 0;",
                false,
            ),
        ),
        (
            "compared",
            program(256, ("int32_t", (0, 1 << 24)), "o.v[i] = x > W[i];", false),
        ),
    ];
    for (seed, (name, src)) in (95..).zip(&cases) {
        let (kept, _) = kept_within(name, src, seed, 5);
        let l = &kept.loops.iter().find(|l| l.line == 7).expect("the loop");
        let kept_iterations: u64 = l.blocks.iter().map(|b| b.0).sum();
        assert!(kept_iterations * 10 >= 9 * 256, "{name}: {l:?}");
    }
}

/// A public matrix times the parties' vector, row by row with a ReLU: the
/// inner loop over a row's entries costs what unrolling does (98,815 AND
/// gates kept before at 4 x 64, 20,122 unrolled).
#[test]
fn a_public_matrix_times_a_secret_vector_costs_what_unrolling_does() {
    let (rows, cols) = (4, 64);
    let w: Vec<String> = (0..rows)
        .map(|r| format!("{{{}}}", table(cols, 11 + r as u64, (-100, 100))))
        .collect();
    let src = format!(
        "#include <stdint.h>\n\
        #define N {cols}\n\
        #define M {rows}\n\
        static const int W[M][N] = {{{}}};\n\
        typedef struct {{ int32_t v[N]; }} V;\n\
        typedef struct {{ int32_t v[M]; }} O;\n\
        O mpc_main(V INPUT_A, V INPUT_B) {{\n\
        \x20   O o;\n\
        \x20   for (int r = 0; r < M; r++) {{\n\
        \x20       int32_t s = 0;\n\
        \x20       for (int c = 0; c < N; c++) s += (INPUT_A.v[c] - INPUT_B.v[c]) * W[r][c];\n\
        \x20       o.v[r] = s > 0 ? s : 0;\n\
        \x20   }}\n\
        \x20   return o;\n\
        }}\n",
        w.join(",")
    );
    let (kept, _) = kept_within("matrix", &src, 97, 0);
    assert_eq!(kept.secret_products, 0);
}

/// Float weights (`s += (a - b) * W[i]`) stay one kept loop: read as
/// inputs they cost less than half again the costlier constant's AND
/// gates (1.45 times in all), where lowering every float product plainly
/// took 7 times the compile.
#[test]
fn float_weights_stay_kept() {
    let n = 64;
    let w: Vec<String> = (0..n)
        .map(|k| format!("{:.6}f", ((k * 37 % 101) as f64 - 50.0) / 25.0))
        .collect();
    let src = format!(
        "#define N {n}\n\
        static const float W[N] = {{{}}};\n\
        typedef struct {{ float v[N]; }} V;\n\
        float mpc_main(V INPUT_A, V INPUT_B) {{\n\
        \x20   float s = 0.0f;\n\
        \x20   for (int i = 0; i < N; i++) s += (INPUT_A.v[i] - INPUT_B.v[i]) * W[i];\n\
        \x20   return s;\n\
        }}\n",
        w.join(",")
    );
    let (kept, _) = common::kept_and_unrolled("floats", &src, 99);
    let l = kept.loops.iter().find(|l| l.line == 6).expect("the loop");
    assert!(l.kept() && l.unrolled * 4 < l.iterations, "{l:?}");
}
