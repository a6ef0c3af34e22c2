//! DP tables that start at a public sentinel far above every value the
//! loop makes (`best[v] = 1000000` in a coin change): ranges decide the
//! comparisons with it, unrolled and kept alike. Read padded to the
//! width of the table's secret values, the sentinel was an input every
//! iteration compared with (2.2 to 8.4 times the unrolled AND gates).

mod common;

use common::kept_within;

/// The coin change over `v` values and six coins, its table started at
/// `sentinel`.
fn coin_change(v: u32, sentinel: u32) -> String {
    format!(
        "#include <stdint.h>\n\
        int32_t mpc_main(int32_t INPUT_A[6], int32_t INPUT_B) {{\n\
        \x20   int32_t best[{v} + 1];\n\
        \x20   best[0] = 0;\n\
        \x20   for (int v = 1; v <= {v}; v++) best[v] = {sentinel};\n\
        \x20   for (int c = 0; c < 6; c++) {{\n\
        \x20       int coin = c * 7 + 1;\n\
        \x20       for (int v = coin; v <= {v}; v++) {{\n\
        \x20           int32_t t = best[v - coin] + (INPUT_A[c] & 3) + 1;\n\
        \x20           if (t < best[v]) best[v] = t;\n\
        \x20       }}\n\
        \x20   }}\n\
        \x20   return best[{v}] ^ INPUT_B;\n\
        }}\n"
    )
}

/// Kept, the coin change costs at most `percent`% more AND gates than
/// unrolled (and both agree with gcc).
fn costs_about_what_unrolling_does(src: &str, name: &str, percent: u64) {
    kept_within(name, src, 61, percent);
}

/// One coin, 64 values: 2,752 AND gates kept before (8.4 times), as
/// unrolled now.
#[test]
fn a_dp_started_at_a_public_sentinel_costs_what_unrolling_does() {
    let src = "typedef struct { int v[64]; } Out;\n\
        Out mpc_main(int INPUT_A, int INPUT_B) {\n\
        \x20   Out o; int best[65]; best[0] = 0;\n\
        \x20   for (int v = 1; v <= 64; v++) best[v] = 10000;\n\
        \x20   for (int v = 1; v <= 64; v++) {\n\
        \x20       int t = best[v - 1] + (INPUT_A & 3) + 1;\n\
        \x20       if (t < best[v]) best[v] = t;\n\
        \x20   }\n\
        \x20   for (int v = 0; v < 64; v++) o.v[v] = best[v + 1] ^ INPUT_B;\n\
        \x20   return o;\n\
        }\n";
    costs_about_what_unrolling_does(src, "one_coin", 0);
}

/// Six coins, 2,000 values: 540,178 AND gates kept before (2.1 times
/// unrolling's 254,527), 272,328 now.
#[test]
fn a_coin_change_started_at_a_public_sentinel_costs_about_what_unrolling_does() {
    costs_about_what_unrolling_does(&coin_change(2000, 1000000), "coins", 10);
}
