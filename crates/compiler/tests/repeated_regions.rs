//! A region that repeats an earlier one of its frame (the same body over
//! the same wires, instance by instance) is copied from it, as unrolled
//! hashing shares the two: a loop nest written twice, or a sum that does
//! not depend on the loop around it (`s = 0; for j: s += u * x[j];` in
//! every iteration, placed ahead of each as a region over the same
//! values). Each computed every instance again: 34,230 AND gates against
//! 17,350 unrolled, and 12,795 against 6,909. Each must agree with gcc
//! (on 24 random input sets, kept and unrolled).

mod common;

use common::kept_within;

/// The same selection of 16 values written twice.
const TWICE: &str = "#include <stdint.h>
#define N 16
typedef struct { uint32_t x[N]; } In;
uint32_t mpc_main(In INPUT_A, In INPUT_B)
{
    uint32_t p[N], q[N], r = 0;
    for (int i = 0; i < N; i++)
        p[i] = INPUT_A.x[i] * INPUT_B.x[i] > 1000 ? INPUT_A.x[i] : INPUT_B.x[i];
    for (int i = 0; i < N; i++)
        q[i] = INPUT_A.x[i] * INPUT_B.x[i] > 1000 ? INPUT_A.x[i] : INPUT_B.x[i];
    for (int i = 0; i < N; i++)
        r += p[i] ^ (q[i] >> 1);
    return r;
}
";

/// The same sum of products in every iteration of the `k4` loop (found
/// by the random loop programs, seed 23).
const INVARIANT: &str = "#include <stdint.h>
#define N 8
typedef struct { int16_t x[N]; int16_t y[N]; uint32_t s; } In;
typedef struct { uint32_t r[N]; uint32_t t; uint32_t u; } Out;
Out mpc_main(In INPUT_A, In INPUT_B)
{
    Out out;
    uint32_t a[N];
    uint32_t t = INPUT_B.s, u = 1;
    for (int i = 0; i < N; i++) a[i] = INPUT_A.x[i];
    for (int k1 = 1; k1 < N; k1++)
        a[k1] = (a[k1 - 1] + 1 < (uint32_t)u) ? a[k1 - 1] + 1 : (uint32_t)u;
    for (int k2 = 0; k2 < N; k2++) {
        if ((t) & 1) { t += 26; continue; }
        u ^= t | t;
    }
    for (int k4 = 0; k4 < N; k4++) {
        uint32_t s = 0;
        for (int k5 = 0; k5 < N; k5++)
            s += (uint32_t)u * (uint32_t)INPUT_B.x[k5];
        a[k4] ^= s;
    }
    for (int i = 0; i < N; i++) out.r[i] = a[i];
    out.t = t;
    out.u = u;
    return out;
}
";

/// The same selection over fewer values, each loop leaving its last
/// product in a variable read after it: the shorter loop's last value is
/// its own.
const SHORTER: &str = "#include <stdint.h>
#define N 12
typedef struct { uint32_t x[N]; } In;
uint32_t mpc_main(In INPUT_A, In INPUT_B)
{
    uint32_t p[N], q[N], r = 0, last = 0, last2 = 0;
    for (int i = 0; i < N; i++) {
        last = INPUT_A.x[i] * INPUT_B.x[i];
        p[i] = last > 1000 ? INPUT_A.x[i] : INPUT_B.x[i];
    }
    for (int i = 0; i < N - 3; i++) {
        last2 = INPUT_A.x[i] * INPUT_B.x[i];
        q[i] = last2 > 1000 ? INPUT_A.x[i] : INPUT_B.x[i];
    }
    for (int i = 0; i < N - 3; i++)
        r += p[i] ^ (q[i] >> 1);
    return r + last * 3 + last2;
}
";

#[test]
fn a_loop_nest_written_twice_is_computed_once() {
    let (kept, _) = kept_within("twice", TWICE, 1900, 0);
    let second = (kept.loops.iter().find(|l| l.line == 9)).expect("the second loop");
    assert_eq!(second.continued, 16, "{second:?}");
}

#[test]
fn a_sum_the_loop_around_it_does_not_change_is_computed_once() {
    kept_within("invariant", INVARIANT, 1901, 6);
}

#[test]
fn a_shorter_repeat_keeps_its_own_last_values() {
    let (kept, _) = kept_within("shorter", SHORTER, 1902, 25);
    let second = (kept.loops.iter().find(|l| l.line == 11)).expect("the second loop");
    assert_eq!(second.continued, 9, "{second:?}");
}
