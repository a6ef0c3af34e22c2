//! Loops that walk pointers (`for (p = a; p < a + n; p++)`, `while (p <
//! end) { ...; p++; q++; }`) are kept like counted loops where that keeps
//! their meaning (`loops/walks.rs`: the loop counts the distance walked),
//! and compute what gcc computes, kept and unrolled, also where they are
//! not rewritten (the pointer's address taken, the body moving it, a
//! `break`, pointers moved by different steps). Before, every such loop
//! was unrolled. `*(a + i)` is `a[i]`, so loops reading that way are kept
//! too.

mod common;

use common::agree_kept_and_unrolled;

/// A program over two inputs of 64 elements: `decls`, then `code`, which
/// leaves its result in `r`.
fn program(decls: &str, code: &str) -> String {
    format!(
        "#include <stdint.h>\n#define N 64\n\
         typedef struct {{ int32_t x, y; }} Pt;\n\
         typedef struct {{ int32_t x[N]; uint8_t k[N]; Pt p[N]; }} In;\n\
         int64_t mpc_main(In INPUT_A, In INPUT_B)\n{{\n    int64_t r = 0;\n{decls}\n{code}\n    return r;\n}}\n"
    )
}

/// Checks each of the `cases` (name, declarations, code) against gcc,
/// kept and unrolled; with `kept`, that a loop was kept.
fn check(cases: &[(&str, &str, &str)], kept: bool, seed: u64) {
    for &(name, decls, code) in cases {
        let src = program(decls, code);
        let p = agree_kept_and_unrolled(name, &src, seed);
        let any_kept = p.loops.iter().any(|l| l.kept());
        assert!(any_kept || !kept, "{name}: {:?}\n{src}", p.loops);
    }
}

#[test]
fn loops_walking_pointers_are_kept() {
    let cases = [
        (
            "declared_in_loop",
            "",
            "    for (const int32_t *p = INPUT_A.x; p < INPUT_A.x + N; p++) r += *p > 5;",
        ),
        (
            "two_pointers_to_an_end",
            "    const int32_t *p, *q, *end = INPUT_A.x + N;",
            "    for (p = INPUT_A.x, q = INPUT_B.x; p != end; ++p, ++q) r += *p * (int64_t)*q;\n    r = r * 100 + (p - INPUT_A.x) + (q - INPUT_B.x);",
        ),
        (
            "while_with_members",
            "    const Pt *a = INPUT_A.p, *b = INPUT_B.p, *end = INPUT_A.p + N;",
            "    while (a < end) { int32_t dx = a->x - b->x, dy = a[0].y - (*b).y; r += (int64_t)dx * dx + (int64_t)dy * dy; a++; b++; }\n    r += a - INPUT_A.p;",
        ),
        (
            "by_two",
            "    const uint8_t *p = INPUT_A.k;",
            "    for (; p < INPUT_A.k + N; p += 2) r += (p[0] ^ INPUT_B.k[3]) > 7;",
        ),
        (
            "down",
            "    const int32_t *p;",
            "    for (p = INPUT_A.x + N; p > INPUT_A.x; p--) r = (r ^ p[-1]) * 3 + INPUT_B.x[5];",
        ),
        (
            "mirrored_bound",
            "    const uint8_t *p = INPUT_B.k, *s = INPUT_A.k;",
            "    for (; INPUT_B.k + N - 1 >= p; p++, s++) if (*p > *s) r += *(p + 0) - s[0];\n    r = r * 1000 + (s - INPUT_A.k);",
        ),
        (
            "offsets",
            "    int i = 0;",
            "    for (i = 0; i < N; i++) r += *(INPUT_A.x + i) > *(i + INPUT_B.x);",
        ),
    ];
    check(&cases, true, 29);
}

/// Where the rewrite would change the meaning it is not made, and the
/// loops still compute what gcc computes; so do walks rewritten but not
/// kept (reading at an offset from the pointer, which a region reads only
/// at its own place).
#[test]
fn walks_not_rewritten_agree_with_gcc() {
    let cases = [
        (
            "offset_read",
            "    const uint8_t *p = INPUT_A.k;",
            "    for (; p < INPUT_A.k + N; p += 2) r += (p[0] ^ p[1]) > INPUT_B.k[3];",
        ),
        (
            "subtracted",
            "    const int32_t *p;",
            "    for (p = INPUT_A.x + N; p > INPUT_A.x; p--) r = (r ^ p[-1]) + *(INPUT_B.x + (p - INPUT_A.x) - 1);",
        ),
        (
            "bound_read_from_memory",
            "    const int32_t *p = INPUT_A.x; int n = 40; int *pn = &n;",
            "    for (; p < INPUT_A.x + *pn; p++) { r += *p; if (r > 1000) *pn = 30; }",
        ),
        (
            "bound_member_assigned",
            "    struct { const int32_t *v; int len; } s = { INPUT_A.x, 50 };\n    const int32_t *p = s.v;",
            "    for (; p < s.v + s.len; p++) { r += *p; if (p == s.v + 5) s.len = 20; }",
        ),
        (
            "address_taken",
            "    const int32_t *p = INPUT_A.x; const int32_t **pp = &p;",
            "    for (; p < INPUT_A.x + N; p++) r += **pp > INPUT_B.x[0];",
        ),
        (
            "moved_in_body",
            "    const int32_t *p;",
            "    for (p = INPUT_A.x; p < INPUT_A.x + N - 1; p++) { r += *p; if (((p - INPUT_A.x) & 7) == 3) p++; }",
        ),
        (
            "break_out",
            "    const int32_t *p;",
            "    for (p = INPUT_A.x; p < INPUT_A.x + N; p++) { if (p == INPUT_A.x + 40) break; r += *p; }\n    r = r * 100 + (p - INPUT_A.x);",
        ),
        (
            "stepped_twice",
            "    const int32_t *p = INPUT_A.x;",
            "    for (; p < INPUT_A.x + N; p++, p++) r = r * 3 + *p;\n    r += p - INPUT_A.x;",
        ),
        (
            "unlike_steps",
            "    const uint8_t *p = INPUT_A.k, *q = INPUT_B.k;",
            "    for (; p < INPUT_A.k + N / 2; p++, q += 2) r += *p < *q;",
        ),
        (
            "bound_moves_with_it",
            "    const int32_t *p = INPUT_A.x, *q = INPUT_A.x + N - 1;",
            "    for (; p < q; p++, q--) r += *p - *q;",
        ),
    ];
    check(&cases, false, 31);
}
