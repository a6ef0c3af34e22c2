//! Hoists: in a loop whose every iteration is probed, an expression of the
//! counter and of secrets the body does not write (`wt == c - d`,
//! `(A ^ i * i) & B`) is computed ahead of each iteration in the enclosing
//! frame, where structural hashing shares it between iterations as it
//! does unrolled; the template reads it as an input wired per iteration.
//! Each program here agrees with gcc and with `--no-loops`, keeps the loop
//! that was unrolled (or kept with many more AND gates) before, and has
//! about the AND gates of the unrolled form.

mod common;

use common::{agree_kept_and_unrolled, gcc_available};
use twofold_compiler::{compile, CompileOptions, CompiledProgram};

/// The AND gates of `src` with every loop unrolled.
fn unrolled_ands(src: &str) -> u64 {
    let opts = CompileOptions {
        loops: false,
        ..CompileOptions::default()
    };
    compile(src, "flat.c", &opts)
        .expect("compiles")
        .program
        .counts()
        .and
}

/// Checks `src` against gcc and `--no-loops`, and that its AND gates are
/// at most `ratio` times the unrolled form's; returns the kept program.
fn near_unrolled(name: &str, src: &str, seed: u64, ratio: f64) -> CompiledProgram {
    let p = agree_kept_and_unrolled(name, src, seed);
    let (kept, flat) = (p.program.counts().and, unrolled_ands(src));
    assert!(
        kept as f64 <= ratio * flat as f64,
        "{name}: {kept} AND gates kept against {flat} unrolled"
    );
    p
}

/// Whether `p` has blocks (loops or regions kept).
fn keeps_blocks(p: &CompiledProgram) -> bool {
    !p.program.blocks.is_empty()
}

/// `t += (A ^ i*i) & B`: the masked value of each iteration shares its
/// bits' ANDs with the others unrolled; a template that took `i * i` as a
/// fresh input computed every instance's (6 times the AND gates here).
/// Computed ahead, each iteration only adds a row to the sum: the loop is
/// then lowered as written, at the unrolled form's cost.
#[test]
fn a_secret_masked_by_a_counter_expression_keeps_unrolled_and_gates() {
    if !gcc_available() {
        return;
    }
    let src = "#include <stdint.h>\n\
        uint32_t mpc_main(uint32_t INPUT_A, uint32_t INPUT_B) {\n\
        \x20   uint32_t t = 0;\n\
        \x20   for (uint32_t i = 0; i < 600; i++)\n\
        \x20       t += (INPUT_A ^ (i * i)) & INPUT_B;\n\
        \x20   return t;\n\
        }\n";
    near_unrolled("masked", src, 9104, 1.05);
}

/// A 0/1 knapsack whose weights are secret: `wt == c - d` and
/// `dp[d] + val` are the same values in many of the `c` loop's `d`
/// loops, which unrolled lowering builds once; hoisted, so are they, and
/// each `d` loop is a loop of one multiplexer (before: every `d` loop
/// unrolled after probing it, at about 6 times the compile time).
#[test]
fn a_knapsack_with_secret_weights_keeps_its_scan() {
    if !gcc_available() {
        return;
    }
    let src = "#include <stdint.h>\n\
        #define N 4\n\
        #define W 64\n\
        typedef struct { uint8_t wt[N]; } Wts;\n\
        typedef struct { uint16_t val[N]; } Vals;\n\
        int mpc_main(Wts INPUT_A, Vals INPUT_B) {\n\
        \x20   uint32_t dp[W + 1];\n\
        \x20   for (int c = 0; c <= W; c++) dp[c] = 0;\n\
        \x20   for (int i = 0; i < N; i++) {\n\
        \x20       for (int c = W; c >= 0; c--) {\n\
        \x20           uint32_t take = 0;\n\
        \x20           for (int d = 0; d <= c; d++)\n\
        \x20               if (INPUT_A.wt[i] == c - d) take = dp[d] + INPUT_B.val[i];\n\
        \x20           if (take > dp[c]) dp[c] = take;\n\
        \x20       }\n\
        \x20   }\n\
        \x20   return dp[W];\n\
        }\n";
    let p = near_unrolled("knapsack", src, 9112, 1.02);
    assert!(keeps_blocks(&p), "knapsack: {:?}", p.loops);
}

/// A histogram written as a loop over buckets: `idx == b` is hoisted (a
/// decoder shared as unrolled), the bucket loop is a region, and the
/// counts (sums of a row per value counted) are reduced every few rows
/// rather than read row by row by every template.
#[test]
fn a_histogram_loop_over_buckets_is_a_region() {
    if !gcc_available() {
        return;
    }
    let src = "#include <stdint.h>\n\
        #define N 40\n\
        #define B 16\n\
        typedef struct { uint8_t idx[N]; } Idx;\n\
        typedef struct { uint16_t w[N]; } Wt;\n\
        typedef struct { uint32_t c[B]; } Hist;\n\
        Hist mpc_main(Idx INPUT_A, Wt INPUT_B) {\n\
        \x20   Hist h;\n\
        \x20   for (int b = 0; b < B; b++) h.c[b] = 0;\n\
        \x20   for (int i = 0; i < N; i++)\n\
        \x20       for (int b = 0; b < B; b++)\n\
        \x20           if (INPUT_A.idx[i] % 20 == b) h.c[b] += INPUT_B.w[i];\n\
        \x20   return h;\n\
        }\n";
    let p = near_unrolled("histogram", src, 9111, 1.05);
    let buckets = p
        .loops
        .iter()
        .find(|l| l.line == 11)
        .expect("the bucket loop");
    // (One region a run of the outer loop, every run reported.)
    let regions = buckets.blocks.iter().all(|&b| b == (16, true));
    assert!(
        regions && !buckets.blocks.is_empty(),
        "histogram: {buckets:?}"
    );
    assert_eq!(buckets.unrolled, 0, "histogram: {buckets:?}");
}

/// What the program may not evaluate is not computed ahead: the right
/// operand of `&&`, a branch of a public condition; and a sum past the
/// end of an array in an iteration a variable the body sets turns off
/// cannot be, so the loop is lowered as written from there. Results
/// agree with gcc.
#[test]
fn hoists_leave_what_the_program_does_not_evaluate() {
    if !gcc_available() {
        return;
    }
    let src = "#include <stdint.h>\n\
        typedef struct { uint8_t a[64]; } Bytes;\n\
        uint32_t mpc_main(Bytes INPUT_A, uint32_t INPUT_B) {\n\
        \x20   uint32_t t = 0;\n\
        \x20   int stop = 0;\n\
        \x20   for (int i = 0; i < 64; i++) {\n\
        \x20       if (i > 0 && ((INPUT_A.a[i - 1] ^ INPUT_B) & 1)) t += 3;\n\
        \x20       if (i & 1) t ^= (INPUT_A.a[3] ^ (uint32_t)(i * i)) & INPUT_B;\n\
        \x20   }\n\
        \x20   for (int i = 0; i < 64; i++) {\n\
        \x20       if (i == 63) stop = 1;\n\
        \x20       if (!stop) t ^= (INPUT_A.a[i + 1] + INPUT_B) & ((INPUT_B ^ (uint32_t)(i * 7)) | 1u);\n\
        \x20   }\n\
        \x20   return t;\n\
        }\n";
    let p = near_unrolled("guarded", src, 9150, 1.02);
    let past = p
        .loops
        .iter()
        .find(|l| l.line == 10)
        .expect("the second loop");
    assert!(!past.blocks.is_empty(), "{past:?}");
    let why = past.why.as_deref().unwrap_or_default();
    assert!(why.contains("cannot be computed ahead"), "{past:?}");
}

/// A body that writes an array through a pointer while it reads the same
/// array through another: hoists are found by names, so pointers about
/// keep the loop to its plan without them. Agrees with gcc.
#[test]
fn writes_through_pointers_leave_no_hoist_reading_stale_values() {
    if !gcc_available() {
        return;
    }
    let src = "#include <stdint.h>\n\
        typedef struct { uint8_t a[64]; } Bytes;\n\
        uint32_t mpc_main(Bytes INPUT_A, uint32_t INPUT_B) {\n\
        \x20   uint8_t buf[64];\n\
        \x20   for (int i = 0; i < 64; i++) buf[i] = INPUT_A.a[i];\n\
        \x20   uint8_t *p = buf;\n\
        \x20   uint8_t *q = buf;\n\
        \x20   uint32_t t = 0;\n\
        \x20   for (int i = 0; i < 64; i++) {\n\
        \x20       q[i] = (uint8_t)(INPUT_B >> 3);\n\
        \x20       t ^= (p[i] + INPUT_B) & ((INPUT_B ^ (uint32_t)(i * 7)) | 1u);\n\
        \x20   }\n\
        \x20   return t;\n\
        }\n";
    agree_kept_and_unrolled("aliased", src, 9160);
}
