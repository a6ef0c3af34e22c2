//! Loops that compute with a table of public constants (`x * w[i]`,
//! `x & m[i]`, `x >> s[i]`, `if (f[i])`: a public model's weights, masks,
//! shifts and flags). Each iteration reads its own public value there, so
//! a kept loop's template read it as an input and multiplied, masked,
//! shifted or branched on it as on a secret: 2 to 14 times the AND gates
//! of unrolling, where each constant folds. Such loops are lowered
//! plainly, and cost what unrolling does.

mod common;

use common::kept_within;

/// The constants of a public table of `n` entries (a fixed pseudo-random
/// sequence, in `lo..lo + span`).
fn table(n: usize, lo: i64, span: i64) -> String {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (lo + (x % span as u64) as i64).to_string()
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// `n` public floating constants with fractions (`-0.704669f`).
fn fractions(n: usize) -> String {
    let ints = table(n, -1_999_999, 3_999_999);
    let as_float = |v: &str| format!("{:.6}f", v.parse::<f64>().unwrap() / 1e6);
    ints.split(',').map(as_float).collect::<Vec<_>>().join(",")
}

/// `body` (computing `o.v[i]` from `x`, a secret, and the table `T`) in a
/// loop over 64 values: kept, it costs the AND gates unrolled does,
/// agreeing with gcc, and the loop says why it was unrolled (`why`).
fn costs_what_unrolling_does(name: &str, (ty, entries): (&str, String), body: &str, why: &str) {
    let src = format!(
        "#include <stdint.h>\n\
        #define N 64\n\
        static const {ty} T[N] = {{{entries}}};\n\
        typedef struct {{ int32_t v[N]; }} V;\n\
        typedef struct {{ {ty} v[N]; }} O;\n\
        O mpc_main(V INPUT_A, V INPUT_B) {{\n\
        \x20   O o;\n\
        \x20   for (int i = 0; i < N; i++) {{ int32_t x = INPUT_A.v[i] - INPUT_B.v[i]; {body} }}\n\
        \x20   return o;\n\
        }}\n"
    );
    let (kept, flat) = kept_within(name, &src, 91, 0);
    let (k, f) = (kept.program.and_count(), flat.program.and_count());
    assert_eq!(k, f, "{name}: {k} AND gates kept, {f} unrolled");
    let l = (kept.loops.iter())
        .find(|l| l.line == 8)
        .unwrap_or_else(|| panic!("{name}: the loop"));
    assert!(
        l.why.as_deref().is_some_and(|w| w.contains(why)),
        "{name}: {l:?}"
    );
}

/// Public weights: 30,656 AND gates kept before at 64 values, 7,569
/// unrolled.
#[test]
fn products_with_public_weights_cost_what_unrolling_does() {
    let body = "o.v[i] = x * T[i];";
    costs_what_unrolling_does(
        "weights",
        ("int32_t", table(64, -300, 600)),
        body,
        "constants",
    );
}

/// Public masks and shift amounts (`x >> s[i]`: 14.5 times unrolling's AND
/// gates before, at 256 values).
#[test]
fn masks_and_shifts_by_public_tables_cost_what_unrolling_does() {
    let masks = ("int32_t", table(64, 0, 1 << 20));
    costs_what_unrolling_does("masks", masks, "o.v[i] = (x & T[i]) == 0;", "constants");
    let shifts = ("int32_t", table(64, 0, 31));
    costs_what_unrolling_does("shifts", shifts, "o.v[i] = (x >> T[i]) > 7;", "constants");
}

/// Public flags choosing a branch: both branches and a selection in every
/// iteration before (twice unrolling's AND gates).
#[test]
fn branches_on_public_flags_cost_what_unrolling_does() {
    let body = "if (T[i]) o.v[i] = x > 7; else o.v[i] = x * 3 < 100;";
    costs_what_unrolling_does("flags", ("int32_t", table(64, 0, 2)), body, "flags");
}

/// A dot product of floating values with public weights (1.4 times
/// unrolling's AND gates before).
#[test]
fn floating_products_with_public_weights_cost_what_unrolling_does() {
    let src = format!(
        "#define N 64\n\
        static const float W[N] = {{{}}};\n\
        typedef struct {{ float v[N]; }} V;\n\
        float mpc_main(V INPUT_A, V INPUT_B) {{\n\
        \x20   float s = 0.0f;\n\
        \x20   for (int i = 0; i < N; i++) s += (INPUT_A.v[i] - INPUT_B.v[i]) * W[i];\n\
        \x20   return s;\n\
        }}\n",
        fractions(64)
    );
    let (kept, flat) = kept_within("floats", &src, 92, 0);
    let (k, f) = (kept.program.and_count(), flat.program.and_count());
    assert_eq!(k, f, "{k} AND gates kept, {f} unrolled");
    let why = kept.loops[0].why.as_deref().unwrap_or_default();
    assert!(why.contains("constants"), "{:?}", kept.loops);
}

/// A value carried from one iteration to the next, public only where it
/// starts (`r = 1`, then `r = r * r % M`), is read as inputs too, but is
/// no table: both loops of eight modular exponentiations stay kept.
#[test]
fn a_product_carried_from_a_public_start_stays_kept() {
    let src = "#include <stdint.h>\n\
        #define K 8\n\
        typedef struct { uint16_t v[K]; } V;\n\
        V mpc_main(V INPUT_A, V INPUT_B) {\n\
        \x20   V o;\n\
        \x20   for (int k = 0; k < K; k++) {\n\
        \x20       uint32_t r = 1, b = INPUT_A.v[k] % 65521;\n\
        \x20       for (int i = 15; i >= 0; i--) {\n\
        \x20           r = r * r % 65521;\n\
        \x20           if ((INPUT_B.v[k] >> i) & 1) r = r * b % 65521;\n\
        \x20       }\n\
        \x20       o.v[k] = r;\n\
        \x20   }\n\
        \x20   return o;\n\
        }\n";
    let (kept, _) = common::kept_and_unrolled("power", src, 93);
    for line in [6, 8] {
        let l = (kept.loops.iter()).find(|l| l.line == line);
        assert!(l.is_some_and(|l| l.kept()), "{:?}", kept.loops);
    }
}
