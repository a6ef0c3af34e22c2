//! Loops that count down in their condition (`while (n--)`, `for
//! (unsigned i = N; i-- > 0; )`) are kept like counted loops where that
//! keeps their meaning, and compute what gcc computes, kept and unrolled,
//! also where they are not rewritten (the variable's address taken, a
//! global, the body writing it, asking its type, or declaring another).

mod common;

use common::agree_kept_and_unrolled;

/// A program over two inputs of 40 elements: `decls`, then `code`, which
/// leaves its result in `r`.
fn program(globals: &str, decls: &str, code: &str) -> String {
    format!(
        "#include <stdint.h>\n#define N 40\n\
         typedef struct {{ int32_t x[N]; uint8_t k[N]; }} In;\n{globals}\n\
         int64_t mpc_main(In INPUT_A, In INPUT_B)\n{{\n    int64_t r = 0;\n{decls}\n{code}\n    return r;\n}}\n"
    )
}

/// Whether some loop of `p` was kept (as a loop or a region).
fn kept(p: &twofold_compiler::CompiledProgram) -> bool {
    p.loops.iter().any(|l| l.kept())
}

#[test]
fn loops_counting_down_in_their_condition_are_kept() {
    let cases = [
        (
            "for_unsigned",
            "",
            "    for (unsigned i = N; i-- > 0; ) r += INPUT_A.x[i] > INPUT_B.x[i];",
        ),
        (
            "while_bare",
            "    unsigned n = N;",
            "    while (n--) { r += (INPUT_A.x[n] ^ INPUT_B.x[n]) > 100; }\n    r = r * 10 + (n == 0xffffffffu);",
        ),
        (
            "while_signed_gt",
            "    int n = N - 3;",
            "    while (n-- > 0) { int32_t d = INPUT_A.x[n] * INPUT_B.k[n]; if (d > 5) r += d; }\n    r = r * 100 + n;",
        ),
        (
            "mirrored",
            "    long n = 30;",
            "    while (0 != n--) r += INPUT_B.x[n + 10] * INPUT_A.k[n];\n    r = r * 1000 + n;",
        ),
        (
            "byte_counter",
            "    unsigned char n = 35;",
            "    while (0 < n--) r += (INPUT_A.x[n] & 255) > INPUT_B.k[n];\n    r += n;",
        ),
    ];
    for (name, decls, code) in cases {
        let src = program("", decls, code);
        let p = agree_kept_and_unrolled(name, &src, 17);
        assert!(kept(&p), "{name}: {:?}\n{src}", p.loops);
    }
}

#[test]
fn loops_the_rewrite_would_change_agree_with_gcc() {
    let cases = [
        (
            // (Rewritten, but not kept: a secret continue and a running sum.)
            "continued",
            "",
            "    long n = 30;",
            "    while (0 != n--) { if ((INPUT_A.k[n] & 1) == 0) continue; r += INPUT_B.x[n + 10] - n; }\n    r = r * 1000 + n;",
        ),
        (
            "address_taken",
            "",
            "    unsigned n = N; unsigned *p = &n;",
            "    while (n--) r += INPUT_A.x[*p] - INPUT_B.x[n];",
        ),
        (
            "global_counter",
            "unsigned g;\nstatic int32_t at(const int32_t *x) { return x[g]; }",
            "    g = N;",
            "    while (g--) r += at(INPUT_A.x) * 3 - INPUT_B.x[g];",
        ),
        (
            "written",
            "",
            "    int n = N;",
            "    while (n-- > 0) { r += INPUT_A.x[n]; if (INPUT_B.k[0] == 7) n = n - 0; }\n    r += n;",
        ),
        (
            "sizeof",
            "",
            "    unsigned char n = 20;",
            "    while (n--) r += INPUT_A.x[n] * (int64_t)sizeof n;",
        ),
        (
            "shadowed",
            "",
            "    int n = 9;",
            "    while (n--) { r += INPUT_B.x[n]; { int n = 2; r += n; } }\n    r += n;",
        ),
    ];
    for (name, globals, decls, code) in cases {
        let src = program(globals, decls, code);
        agree_kept_and_unrolled(name, &src, 23);
    }
}
