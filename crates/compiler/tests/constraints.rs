//! Constraint violations gcc refuses with an error are refused, with its
//! meaning and the place: a non-constant file-scope initializer, an array
//! of voids, a function returning an array, an invalid integer suffix,
//! `signed unsigned`, `restrict` on a non-pointer, a name declared as a
//! type and an object in one scope, a duplicate label, a block-scope
//! function declared `static`, a block-scope `extern` with an initializer.
//! What C allows beside each still compiles and computes as gcc does.

mod common;

use common::{agree_with_gcc, compiled, error_of};

/// A program whose `mpc_main` body is `body`, after `before` at file scope.
fn program(before: &str, body: &str) -> String {
    format!("{before}\nint mpc_main(int INPUT_A, int INPUT_B) {{\n    {body}\n}}\n")
}

#[test]
fn constraint_violations_are_refused() {
    let refused = [
        (
            program("int gx = 5;\nint gy = gx + 1;", "return gy + INPUT_A;"),
            "prog.c:2:10: error: initializer element is not constant",
        ),
        (
            program("int ga[3];\nint gb = ga[1];", "return gb;"),
            "prog.c:2:10: error: initializer element is not constant",
        ),
        (
            program("int f(void) { return 1; }\nint gc = f();", "return gc;"),
            "prog.c:2:10: error: initializer element is not constant",
        ),
        (
            program("", "void arr[3];\n    return INPUT_A;"),
            "error: declaration of an array of voids",
        ),
        (
            program("typedef int A2[2];\nA2 fa(void);", "return INPUT_A;"),
            "prog.c:2:4: error: a function cannot return an array",
        ),
        (
            program("", "return INPUT_A + 10uu;"),
            "error: invalid suffix on integer constant '10uu'",
        ),
        (
            program("", "return INPUT_A + 10lL;"),
            "error: invalid suffix on integer constant '10lL'",
        ),
        (
            program("", "signed unsigned x = 3;\n    return INPUT_A + x;"),
            "prog.c:3:12: error: both 'signed' and 'unsigned' in declaration specifiers",
        ),
        (
            program("", "unsigned unsigned x = 3;\n    return INPUT_A + x;"),
            "prog.c:3:14: error: duplicate 'unsigned'",
        ),
        (
            program("", "restrict int x = 3;\n    return INPUT_A + x;"),
            "prog.c:3:5: error: invalid use of 'restrict' (only a pointer type may be)",
        ),
        (
            program("typedef int T;\nint T = 3;", "return INPUT_A;"),
            "prog.c:2:5: error: 'T' redeclared as a different kind of symbol",
        ),
        (
            program(
                "",
                "int x = 0;\n    l: x++;\n    l: x++;\n    return INPUT_A + x;",
            ),
            "prog.c:5:5: error: duplicate label 'l'",
        ),
        (
            program("", "static int g(void);\n    return INPUT_A;"),
            "prog.c:3:16: error: invalid storage class for function 'g'",
        ),
        (
            program("", "extern int e = 3;\n    return INPUT_A + e;"),
            "prog.c:3:16: error: 'e' has both 'extern' and an initializer",
        ),
    ];
    for (src, message) in refused {
        let e = error_of(&src);
        assert!(e.contains(message), "{src}\ngave: {e}\nwanted: {message}");
    }
}

/// Beside each refusal, what C allows: initializers that take addresses
/// or read `const` objects (as gcc allows), every valid integer suffix,
/// `restrict` on a pointer (also through a typedef), one label name in two
/// functions, a name an inner scope declares again as another kind, a
/// block-scope `extern` without an initializer and a `static` object.
#[test]
fn what_c_allows_beside_them_compiles() {
    let src = "#include <stdint.h>\n\
        const int ca = 5;\n\
        int cb = ca + 1;\n\
        static const int t[3] = {1, 2, 3};\n\
        int cc = t[1] * 2;\n\
        int x = 3;\n\
        int *p = &x;\n\
        int arr[4] = {4, 5, 6, 7};\n\
        int *q = arr + 2;\n\
        int *r = &arr[1];\n\
        const char *s = \"abc\";\n\
        int len = sizeof(arr) / sizeof(arr[0]);\n\
        int f(void) { return 1; }\n\
        int (*fp)(void) = f;\n\
        struct pt { int a, b; } g = {1, 2};\n\
        int *pa = &g.b;\n\
        int h = (int)(3.5 * 2) + (1 ? 2 : 3);\n\
        typedef int *ip;\n\
        typedef int T;\n\
        int e = 40;\n\
        int k(int v) { int n = 0; l: n++; return n + v; }\n\
        int mpc_main(int INPUT_A, int INPUT_B) {\n\
        \x20   restrict ip rp = &x;\n\
        \x20   int *restrict rq = arr;\n\
        \x20   uint64_t u = 10ull + 10LLU + 10uL + 10Lu + 10u + 10l + 10LL;\n\
        \x20   int T = 2;\n\
        \x20   extern int e;\n\
        \x20   static int st = 7;\n\
        \x20   l: st += 1;\n\
        \x20   return cb + cc + *p + *q + *r + s[1] + len + fp() + *pa + h + *rp + rq[3]\n\
        \x20       + (int)u + T + e + st + k(2) + INPUT_A - INPUT_B;\n\
        }\n";
    let program = compiled(src);
    agree_with_gcc(src, &[&program], 8, 120, "allowed");
}
