//! Loop conditions that count: a conjunction of comparisons of the loop
//! variable with public bounds (`i < k && i + j + k < n`, as Batcher's
//! odd-even merge sort bounds its inner loop) ends where its first term
//! fails, and a variable plus several constants (`i + j + k` once `j` and
//! `k` are public) is a variable with an offset. Such loops are kept, and
//! compute what gcc computes and what their unrolled form computes.

mod common;

use common::agree_with_gcc;
use twofold_compiler::{compile, CompileOptions, CompiledProgram};

fn compiled(src: &str, loops: bool) -> CompiledProgram {
    let opts = CompileOptions {
        loops,
        ..CompileOptions::default()
    };
    compile(src, "conditions.c", &opts).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

/// Four loops, each ended by a different term of its condition: the
/// second of two upper bounds, a `!=`, a lower bound counting down past a
/// variable plus two constants, and a public product.
const CONJUNCTIONS: &str = "#include <stdint.h>
#define N 40
typedef struct { uint32_t v[N]; } V;
V mpc_main(V INPUT_A, V INPUT_B) {
    V r;
    int n = 50, m = 7;
    for (int i = 0; i < N; i++) r.v[i] = 0;
    for (int i = 0; i < n && i + 3 < N; i++)
        r.v[i] += (INPUT_A.v[i] & INPUT_B.v[i + 3]) + 1;
    for (int i = 2; i < N && i != 20; i++)
        r.v[i] ^= INPUT_A.v[i - 2] | INPUT_B.v[i];
    for (int i = N - 1; i >= 0 && i + 2 + 1 > 10; i--)
        r.v[i] += INPUT_A.v[i] < INPUT_B.v[N - 1 - i];
    for (int i = 0; i < 30 && i < m * 3; i += 3)
        r.v[i + 1] -= INPUT_A.v[i] * INPUT_B.v[i + 1];
    return r;
}
";

#[test]
fn conjunctions_of_bounds_are_counted() {
    let kept = compiled(CONJUNCTIONS, true);
    let flat = compiled(CONJUNCTIONS, false);
    for line in [8, 10, 12, 14] {
        let l = kept
            .loops
            .iter()
            .find(|l| l.line == line)
            .expect("the loop");
        let said = l.why.as_deref().unwrap_or("");
        assert!(!said.contains("not a comparison"), "line {line}: {l:?}");
    }
    for (line, trips) in [(8, 37), (10, 18), (12, 32)] {
        let l = kept
            .loops
            .iter()
            .find(|l| l.line == line)
            .expect("the loop");
        assert!(l.kept() && l.iterations == trips, "line {line}: {l:?}");
    }
    agree_with_gcc(CONJUNCTIONS, &[&kept, &flat], 6, 41, "conjunctions");
}

/// Batcher's odd-even merge sort of 64 values, its inner loop bounded by
/// a conjunction: kept, it sorts as gcc does, with the unrolled AND gates.
#[test]
fn an_odd_even_merge_sort_keeps_its_inner_loops() {
    let src = "#include <stdint.h>
#define N 64
typedef struct { uint32_t v[N / 2]; } H;
typedef struct { uint32_t v[N]; } A;
static void cs(uint32_t *x, uint32_t *y) {
    uint32_t a = *x, b = *y;
    int s = a > b;
    *x = s ? b : a;
    *y = s ? a : b;
}
A mpc_main(H INPUT_A, H INPUT_B) {
    A a;
    for (int i = 0; i < N / 2; i++) { a.v[i] = INPUT_A.v[i]; a.v[i + N / 2] = INPUT_B.v[i]; }
    for (int p = 1; p < N; p <<= 1)
        for (int k = p; k >= 1; k >>= 1)
            for (int j = k % p; j + k < N; j += 2 * k)
                for (int i = 0; i < k && i + j + k < N; i++)
                    if ((i + j) / (2 * p) == (i + j + k) / (2 * p))
                        cs(&a.v[i + j], &a.v[i + j + k]);
    return a;
}
";
    let kept = compiled(src, true);
    let flat = compiled(src, false);
    let inner = kept.loops.iter().find(|l| l.line == 17).expect("the loop");
    let said = inner.why.as_deref().unwrap_or("");
    assert!(!said.contains("not a comparison"), "{inner:?}");
    assert_eq!(kept.program.and_count(), flat.program.and_count());
    agree_with_gcc(src, &[&kept, &flat], 4, 43, "odd-even merge sort");
}
