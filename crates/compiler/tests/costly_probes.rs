//! Probing a loop's iterations pays only where runs of them lower alike.
//! Where none do and each iteration is large (it holds a loop of its own),
//! the probes stop once they cost more than lowering the iterations did:
//! a kept compilation then costs a few times the unrolled one, not the
//! compile-time budget. An inner loop whose first runs found only runs of
//! iterations too short to keep is probed again later, where its bounds
//! may make them long.

mod common;

use common::{agree_kept_and_unrolled, agree_with_gcc};
use twofold_compiler::{compile, CompileOptions, CompiledProgram, Limits};

/// A 0/1 knapsack over 32 items with secret weights: each cell reads the
/// row at a secret distance, and the row's values widen item after item,
/// so no two items lower alike.
const KNAPSACK: &str = r#"
#include <stdint.h>
#define N 32
#define W 128
typedef struct { uint8_t w[N]; } Weights;
typedef struct { uint16_t v[N]; } Values;
int mpc_main(Weights INPUT_A, Values INPUT_B)
{
    int dp[W + 1];
    for (int c = 0; c <= W; c++) dp[c] = 0;
    for (int i = 0; i < N; i++) {
        int wt = INPUT_A.w[i] % 16 + 1;
        int val = INPUT_B.v[i] % 1000;
        for (int c = W; c >= 1; c--) {
            int take = c >= wt ? dp[c - wt] + val : 0;
            if (take > dp[c]) dp[c] = take;
        }
    }
    return dp[W];
}
"#;

/// The knapsack compiles with its loops kept within 25 M steps of
/// compile-time work (unrolled, it takes about 2 M; kept, about 16 M, where
/// probing item after item took past the default 100 M and the compile
/// failed), to the unrolled AND gates; the items' loop says why it stopped
/// probing; both agree with gcc.
#[test]
fn probes_that_cost_more_than_the_iterations_stop() {
    let limits = Limits {
        max_steps: 25_000_000,
        ..Limits::default()
    };
    let opts = CompileOptions {
        limits,
        ..CompileOptions::default()
    };
    let kept = compile(KNAPSACK, "knapsack.c", &opts).unwrap_or_else(|e| panic!("{e}"));
    let flat_opts = CompileOptions {
        loops: false,
        ..opts
    };
    let flat = compile(KNAPSACK, "knapsack.c", &flat_opts).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(kept.program.and_count(), flat.program.and_count());
    let items = (kept.loops.iter().find(|l| l.iterations == 32)).expect("the items' loop");
    let why = items.why.as_deref().unwrap_or_default();
    assert!(
        why.contains("cost more than lowering its iterations"),
        "the items' loop: {why}"
    );
    agree_with_gcc(KNAPSACK, &[&kept, &flat], 6, 68, "knapsack");
}

/// A bitonic sort of 256 values written with the direction as a branch
/// between two calls: `if ((i & k) == 0) cs(&a[i], &a[l]); else cs(&a[l],
/// &a[i]);`. Its inner loop's runs alike are `k / 2` active iterations
/// long, too short to keep in the first three stages, which stopped its
/// probing for good: every stage was unrolled (1.1 s for 1,024 values
/// against 0.27 s now). It is probed again after 3, 6, ... runs, so the
/// later stages are kept as regions, with the unrolled AND gates; it sorts
/// as gcc does.
#[test]
fn short_runs_of_a_loop_replayed_from_its_keys_are_probed_again_later() {
    let src = r#"
#include <stdint.h>
#define N 256
typedef struct { uint32_t v[N / 2]; } Half;
typedef struct { uint32_t v[N]; } All;
static void cs(uint32_t *x, uint32_t *y) { if (*x > *y) { uint32_t t = *x; *x = *y; *y = t; } }
All mpc_main(Half INPUT_A, Half INPUT_B)
{
    All a;
    for (int i = 0; i < N / 2; i++) { a.v[i] = INPUT_A.v[i]; a.v[i + N / 2] = INPUT_B.v[i]; }
    for (int k = 2; k <= N; k <<= 1)
        for (int j = k >> 1; j > 0; j >>= 1)
            for (int i = 0; i < N; i++) {
                int l = i ^ j;
                if (l > i) {
                    if ((i & k) == 0) cs(&a.v[i], &a.v[l]); else cs(&a.v[l], &a.v[i]);
                }
            }
    return a;
}
"#;
    let kept = agree_kept_and_unrolled("bitonic_branches", src, 68);
    let flat_opts = CompileOptions {
        loops: false,
        ..CompileOptions::default()
    };
    let flat = compile(src, "bitonic_branches.c", &flat_opts).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(kept.program.and_count(), flat.program.and_count());
    let inner = (kept.loops.iter().find(|l| l.line == 13)).expect("the inner loop");
    assert!(inner.kept(), "{inner:?}");
    // The last stage's 128 compare-swaps are one region.
    assert!(inner.blocks.contains(&(128, true)), "{inner:?}");
}

/// K-means over 64 points and 4 centroids: the loop over the centroids
/// that finds a point's nearest runs 4 iterations, inside the loop over
/// the points, inside the rounds' loop. Neither outer loop's iterations
/// lower alike (the centroids' sums grow point after point), but each of
/// their probes probed the centroids' loop again and again (3,100 probes
/// in all, each widening of its setup probing its first iterations again):
/// the kept compilation took 25 times the work of the unrolled one
/// (probes' gates count 4 steps each), 2.9 times its time. Inside another
/// loop's probe, a loop that short is not probed again more generally, and
/// lowers the rest as written once two iterations differ: 14 times the
/// work, 1.9 times the time.
const KMEANS: &str = r#"
#include <stdint.h>
#define N 64
#define K 4
typedef struct { int16_t x[N / 2], y[N / 2]; } Points;
typedef struct { int32_t cx[K], cy[K]; } Centroids;
Centroids mpc_main(Points INPUT_A, Points INPUT_B)
{
    int32_t x[N], y[N];
    for (int i = 0; i < N / 2; i++) {
        x[i] = INPUT_A.x[i]; y[i] = INPUT_A.y[i];
        x[i + N / 2] = INPUT_B.x[i]; y[i + N / 2] = INPUT_B.y[i];
    }
    Centroids c;
    for (int k = 0; k < K; k++) { c.cx[k] = x[k]; c.cy[k] = y[k]; }
    for (int round = 0; round < 3; round++) {
        int32_t sx[K] = {0}, sy[K] = {0}, count[K] = {0};
        for (int i = 0; i < N; i++) {
            int best = 0;
            int32_t best_d = 0x7fffffff;
            for (int k = 0; k < K; k++) {
                int32_t dx = x[i] - c.cx[k], dy = y[i] - c.cy[k];
                int32_t d = dx * dx + dy * dy;
                if (d < best_d) { best_d = d; best = k; }
            }
            for (int k = 0; k < K; k++)
                if (best == k) { sx[k] += x[i]; sy[k] += y[i]; count[k]++; }
        }
        for (int k = 0; k < K; k++)
            if (count[k] > 0) { c.cx[k] = sx[k] / count[k]; c.cy[k] = sy[k] / count[k]; }
    }
    return c;
}
"#;

/// The k-means compiles kept in at most 16 times the unrolled work, to
/// the unrolled AND gates, and agrees with gcc.
#[test]
fn short_loops_inside_probes_are_not_probed() {
    kept_within_work(KMEANS, "kmeans", 16, (3, 1));
}

/// Compiles `src` with its loops kept and unrolled: the same AND gates,
/// the kept compilation in at most `ratio` times the unrolled work, both
/// agreeing with gcc on `n` inputs from `seed`. Returns the kept program.
fn kept_within_work(src: &str, name: &str, ratio: u64, (n, seed): (usize, u64)) -> CompiledProgram {
    let file = format!("{name}.c");
    let opts = CompileOptions::default();
    let kept = compile(src, &file, &opts).unwrap_or_else(|e| panic!("{e}"));
    let flat_opts = CompileOptions {
        loops: false,
        ..opts
    };
    let flat = compile(src, &file, &flat_opts).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(kept.program.and_count(), flat.program.and_count());
    assert!(
        kept.work <= flat.work * ratio,
        "kept work {} against {} unrolled",
        kept.work,
        flat.work
    );
    agree_with_gcc(src, &[&kept, &flat], n, seed, name);
    kept
}

/// A k/i/j nest over an 8 × 8 array: `h` collects a term every innermost
/// iteration, a lazy sum of thousands of rows, and each probe copies and
/// encodes what it reads. No level's iterations lower alike, yet every
/// probe of the outer loops probed the inner ones again, each reading `h`:
/// the kept compilation took 70 times the unrolled one's time. Probes
/// within another loop's that read a sum of more than 1024 bits not yet
/// reduced fail, and the loops are lowered as written.
const NEST: &str = r#"
#include <stdint.h>
#define N 8
typedef struct { int32_t m[N][N]; } M;
int32_t mpc_main(M INPUT_A, int32_t INPUT_B)
{
    int32_t m[N][N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) m[i][j] = INPUT_A.m[i][j];
    int32_t h = 0;
    int c = 0;
    for (int k = 0; k < N; k++)
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                h += m[i][k];
                c ^= INPUT_B < m[i][i];
                m[i][j] += m[k][j];
            }
    return h + c;
}
"#;

/// The nest compiles kept in at most 8 times the unrolled work (35 times
/// before), to the unrolled AND gates; the outer loop says why; both agree
/// with gcc.
#[test]
fn nested_probes_reading_large_sums_stop() {
    let kept = kept_within_work(NEST, "nest", 8, (4, 8));
    let outer = (kept.loops.iter().find(|l| l.line == 12)).expect("the outer loop");
    let why = outer.why.as_deref().unwrap_or_default();
    assert!(why.contains("read a sum of more than 1024 bits"), "{why}");
}
