//! What `stats` says of each loop (`CompiledProgram::loops`) matches the
//! blocks in the program.

mod common;

use common::agree_kept_and_unrolled;

/// An inner loop kept in one run of its outer loop and unrolled in the
/// next is reported kept, with the later run's iterations unrolled: it
/// was reported unrolled (the last run's report alone) while its block
/// of 64 iterations was in the program.
#[test]
fn a_loop_kept_in_an_earlier_run_is_reported_kept() {
    let src = "typedef struct { int v[64]; } Out;
Out mpc_main(int INPUT_A[2], int INPUT_B)
{
    Out o;
    int best[65];
    best[0] = 0;
    for (int v = 1; v <= 64; v++) best[v] = 10000;
    for (int c = 0; c < 2; c++) {
        int coin = c * 3 + 1;
        for (int v = coin; v <= 64; v++) {
            int t = best[v - coin] + (INPUT_A[c] & 3) + 1;
            if (t < best[v]) best[v] = t;
        }
    }
    for (int v = 0; v < 64; v++) o.v[v] = best[v + 1] ^ (INPUT_B & 1);
    return o;
}
";
    let p = agree_kept_and_unrolled("coins", src, 81);
    let inner = (p.loops.iter())
        .find(|l| l.line == 10)
        .expect("the inner loop");
    let blocks: Vec<u64> = p.program.blocks.iter().map(|b| b.count).collect();
    assert!(inner.kept(), "{inner:?}");
    assert_eq!(inner.blocks, vec![(64, false)], "{inner:?}");
    assert_eq!(blocks, vec![64]);
    assert_eq!(inner.unrolled, 61, "{inner:?}");
}
