//! Loops run again over what an earlier run did: an inner loop run, for
//! every outer iteration, from the same start over one element more (a
//! running maximum over the first `i` values, for every `i`), or over the
//! same elements. Unrolled, hashing shares the iterations every run
//! repeats; kept, each run's block goes on from where the last one ended
//! (`Builder::add_block`), or is not placed at all, instead of computing
//! them again. Each program here must agree with gcc, kept and unrolled,
//! and cost about the AND gates of unrolling.

mod common;

use common::kept_within;

/// Kept, `src` costs at most 5% more AND gates than unrolled, and its
/// loop at `line` has blocks that go on from earlier ones.
fn costs_what_unrolling_does(name: &str, src: &str, line: u32, seed: u64) {
    costs_about_what_unrolling_does(name, src, (line, seed), 5);
}

/// [`costs_what_unrolling_does`], kept costing at most `percent`% more.
fn costs_about_what_unrolling_does(name: &str, src: &str, (line, seed): (u32, u64), percent: u64) {
    let (kept, _) = kept_within(name, src, seed, percent);
    let inner = (kept.loops.iter())
        .find(|l| l.line == line)
        .unwrap_or_else(|| panic!("{name}: a loop at line {line}"));
    assert!(inner.kept() && inner.continued > 0, "{name}: {inner:?}");
}

/// Prefix maxima of the parties' sums: 8,385,216 AND gates kept at 512
/// values before blocks went on from earlier ones (49,152 now; 48,576
/// unrolled).
#[test]
fn prefix_maxima_cost_what_unrolling_does() {
    let src = "#include <stdint.h>\n\
        #define N 128\n\
        typedef struct { int32_t m[N]; } Out;\n\
        Out mpc_main(int32_t INPUT_A_x[N], int32_t INPUT_B_y[N]) {\n\
        \x20   int32_t v[N]; Out o;\n\
        \x20   for (int i = 0; i < N; i++) v[i] = INPUT_A_x[i] + INPUT_B_y[i];\n\
        \x20   for (int i = 0; i < N; i++) {\n\
        \x20       int32_t m = v[0];\n\
        \x20       for (int j = 1; j <= i; j++)\n\
        \x20           if (v[j] > m) m = v[j];\n\
        \x20       o.m[i] = m;\n\
        \x20   }\n\
        \x20   return o;\n\
        }\n";
    costs_what_unrolling_does("prefix_max", src, 9, 41);
}

/// Prefix maxima taken longest first: each run is the first iterations
/// of the one before, whose block is split where the shorter run ends
/// (517,888 AND gates kept before, 63.7 times unrolling's 8,128; 8,704
/// now: the first run's iterations that were lowered plainly are done
/// again by the blocks of shorter runs).
#[test]
fn prefix_maxima_taken_longest_first_cost_about_what_unrolling_does() {
    let src = "#include <stdint.h>\n\
        #define N 128\n\
        typedef struct { int32_t m[N]; } Out;\n\
        Out mpc_main(int32_t INPUT_A_x[N], int32_t INPUT_B_y) {\n\
        \x20   Out o;\n\
        \x20   for (int i = N - 1; i >= 0; i--) {\n\
        \x20       int32_t m = INPUT_A_x[0];\n\
        \x20       for (int j = 1; j <= i; j++)\n\
        \x20           if (INPUT_A_x[j] > m) m = INPUT_A_x[j];\n\
        \x20       o.m[i] = m ^ INPUT_B_y;\n\
        \x20   }\n\
        \x20   return o;\n\
        }\n";
    costs_about_what_unrolling_does("prefix_max_down", src, (8, 45), 10);
}

/// The widest range of a prefix: two values carried (the least of A's,
/// the greatest of B's), then the best difference (401,104 AND gates
/// kept at 80 values before; 18,000 now, 17,488 unrolled).
#[test]
fn prefix_ranges_cost_what_unrolling_does() {
    let src = "#include <stdint.h>\n\
        #define N 80\n\
        int32_t mpc_main(int32_t INPUT_A_x[N], int32_t INPUT_B_y[N]) {\n\
        \x20   int32_t best = 0;\n\
        \x20   for (int i = 1; i < N; i++) {\n\
        \x20       int32_t lo = INPUT_A_x[0], hi = INPUT_B_y[0];\n\
        \x20       for (int j = 1; j < i; j++) {\n\
        \x20           if (INPUT_A_x[j] < lo) lo = INPUT_A_x[j];\n\
        \x20           if (INPUT_B_y[j] > hi) hi = INPUT_B_y[j];\n\
        \x20       }\n\
        \x20       int32_t d = hi - lo;\n\
        \x20       if (d > best) best = d;\n\
        \x20   }\n\
        \x20   return best;\n\
        }\n";
    costs_what_unrolling_does("prefix_range", src, 7, 42);
}

/// The same maximum computed again in every iteration of a loop that is
/// unrolled (its iterations differ): 1,041,717 AND gates before, a block
/// of 127 iterations for each of the 128 (9,461 now, as unrolled).
#[test]
fn a_loop_run_again_over_the_same_values_is_not_done_again() {
    let src = "#include <stdint.h>\n\
        #define N 128\n\
        typedef struct { int32_t d[N]; } Out;\n\
        Out mpc_main(int32_t INPUT_A_x[N], int32_t INPUT_B_y[N]) {\n\
        \x20   Out o;\n\
        \x20   for (int i = 0; i < N; i++) {\n\
        \x20       int32_t m = INPUT_A_x[0];\n\
        \x20       for (int j = 1; j < N; j++) if (INPUT_A_x[j] > m) m = INPUT_A_x[j];\n\
        \x20       if (i % 3 == 0) o.d[i] = m - INPUT_B_y[i];\n\
        \x20       else o.d[i] = m ^ INPUT_B_y[i * 7 % N];\n\
        \x20   }\n\
        \x20   return o;\n\
        }\n";
    costs_what_unrolling_does("same_max", src, 8, 43);
}

/// The same maximum taken twice after a loop with a secret choice (the
/// last position below a secret): the second loop is not placed, its
/// result copied from the first's. The copy was stored with its inputs
/// out of order wherever the frame's constant zero was older than the
/// first loop's result (made by the loop before), which reads as an AND
/// gate: the second maximum came out 0.
#[test]
fn a_maximum_taken_again_after_a_secret_choice_is_the_first_ones() {
    let src = "#define N 64\n\
        typedef struct { int r[3]; } Out;\n\
        Out mpc_main(int INPUT_A[N], int INPUT_B) {\n\
        \x20   int last = -1;\n\
        \x20   for (int i = 0; i < N; i++) if (INPUT_A[i] < INPUT_B) last = i;\n\
        \x20   int m1 = INPUT_A[0];\n\
        \x20   for (int j = 0; j < N; j++) if (INPUT_A[j] > m1) m1 = INPUT_A[j];\n\
        \x20   int m2 = INPUT_A[0];\n\
        \x20   for (int j = 0; j < N; j++) if (INPUT_A[j] > m2) m2 = INPUT_A[j];\n\
        \x20   Out o = {{m1, m2, last}};\n\
        \x20   return o;\n\
        }\n";
    costs_what_unrolling_does("max_again", src, 9, 44);
}
