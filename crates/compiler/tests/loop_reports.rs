//! What `stats` says of each loop (`CompiledProgram::loops`) matches the
//! blocks in the program.

mod common;

use common::agree_kept_and_unrolled;

/// An inner loop kept in one run of its outer loop and unrolled in the
/// next is reported kept, with the later run's iterations unrolled: it
/// was reported unrolled (the last run's report alone) while its block
/// of 64 iterations was in the program. (The start is secret: from a
/// public sentinel such as 10000, ranges decide every comparison and
/// both runs are lowered plainly, as cheap as unrolled.)
#[test]
fn a_loop_kept_in_an_earlier_run_is_reported_kept() {
    let src = "typedef struct { int v[64]; } Out;
Out mpc_main(int INPUT_A[2], int INPUT_B)
{
    Out o;
    int best[65];
    best[0] = 0;
    for (int v = 1; v <= 64; v++) best[v] = INPUT_B | 1000;
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

/// An inner loop lowered once for every iteration of an unrolled outer
/// loop reports every run: its blocks are the program's, and its
/// iterations, kept and unrolled, are all the runs' (it reported the last
/// run alone, "unrolled", with 40-odd blocks in the program).
#[test]
fn every_run_of_a_loop_in_an_unrolled_one_is_reported() {
    let src = "typedef struct { int v[24]; } Out;
Out mpc_main(Out INPUT_A, int INPUT_B)
{
    Out a = INPUT_A;
    for (int i = 0; i < 23; i++)
        for (int j = 0; j < 23 - i; j++) {
            int x = a.v[j], y = a.v[j + 1];
            int swap = x > y + INPUT_B;
            a.v[j] = swap ? y : x;
            a.v[j + 1] = swap ? x : y;
        }
    return a;
}
";
    let p = agree_kept_and_unrolled("bubble", src, 82);
    let inner = (p.loops.iter())
        .find(|l| l.line == 6)
        .expect("the inner loop");
    let blocks: Vec<u64> = p.program.blocks.iter().map(|b| b.count).collect();
    let reported: Vec<u64> = inner.blocks.iter().map(|&(n, _)| n).collect();
    assert!(blocks.len() > 1, "{blocks:?}");
    assert_eq!(reported, blocks, "{inner:?}");
    let kept: u64 = blocks.iter().sum();
    assert_eq!(kept + inner.unrolled, 23 * 24 / 2, "{inner:?}");
    assert_eq!(inner.iterations, 23 * 24 / 2, "{inner:?}");
}
