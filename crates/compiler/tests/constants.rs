//! C's constants and the types they take, and type specifiers, each in a
//! small program compared with gcc on random inputs: integer literals,
//! enumerations, the limits the standard headers define, and specifiers
//! in any order.

mod common;

use common::agree_with_gcc;
use twofold_compiler::{compile, CompileOptions};

fn agree(name: &str, src: &str) {
    let p = compile(src, &format!("{name}.c"), &CompileOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    agree_with_gcc(src, &[&p], 16, 7, name);
}

/// Integer constants take the first type of C's list that holds them: a
/// decimal one without `u` is signed (int, then long), a hexadecimal,
/// octal or binary one may be unsigned at each width. Decimal constants
/// past INT_MAX were unsigned int (`x < 2147483648` false for -1).
#[test]
fn integer_constants_take_the_types_c_gives_them() {
    let src = r#"
typedef struct { int lt[6]; int size[8]; long long wide[4]; } Out;
Out mpc_main(int INPUT_A, int INPUT_B)
{
    Out o;
    o.lt[0] = INPUT_A < 2147483648;
    o.lt[1] = -2147483648 < INPUT_B;
    o.lt[2] = INPUT_A < 4294967295;
    o.lt[3] = INPUT_A < 0x80000000;
    o.lt[4] = INPUT_A < 020000000000;
    o.lt[5] = INPUT_A < 2147483648u;
    o.size[0] = sizeof(2147483647);
    o.size[1] = sizeof(2147483648);
    o.size[2] = sizeof(0x7fffffff);
    o.size[3] = sizeof(0xffffffff);
    o.size[4] = sizeof(0x100000000);
    o.size[5] = sizeof(4294967295u);
    o.size[6] = sizeof(1l);
    o.size[7] = sizeof(0xffffffffffffffff);
    o.wide[0] = 2147483648 * 2 + INPUT_A;
    o.wide[1] = 0x80000000 * 2 + INPUT_B;
    o.wide[2] = -9223372036854775807 - 1 < INPUT_A;
    o.wide[3] = 0xffffffffffffffff > INPUT_B;
    return o;
}
"#;
    agree("integer_constants", src);
}

/// The limits `<stdint.h>`, `<limits.h>` and `<stdlib.h>` define, and
/// `wchar_t`, as gcc's headers on x86-64 give them (values and types).
#[test]
fn standard_header_limits() {
    let src = r#"
#include <stdint.h>
#include <limits.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
typedef struct { long long m[12]; unsigned long long u[5]; int s[6]; } Out;
Out mpc_main(long long INPUT_A, long long INPUT_B)
{
    Out o;
    wchar_t w = (wchar_t)INPUT_B;
    o.m[0] = (INTMAX_MAX == LLONG_MAX) + (INPUT_A & 0xffff);
    o.m[1] = PTRDIFF_MAX == LONG_MAX;
    o.m[2] = INTMAX_MIN + (INPUT_B & 7);
    o.m[3] = INTPTR_MIN;
    o.m[4] = INT_FAST16_MAX;
    o.m[5] = INT_FAST32_MIN;
    o.m[6] = INT_LEAST8_MIN + INT_LEAST16_MAX + INT_FAST8_MAX;
    o.m[7] = INTMAX_C(5000000000) + SIG_ATOMIC_MAX + WCHAR_MIN;
    o.m[8] = sizeof(INT_FAST16_MAX) + sizeof(INTPTR_MAX) + sizeof(wchar_t) + sizeof(INTMAX_C(1));
    o.m[9] = MB_LEN_MAX + (long long)RAND_MAX + EXIT_SUCCESS + EXIT_FAILURE;
    o.m[10] = w < WCHAR_MAX;
    o.m[11] = INT_LEAST64_MIN < INPUT_A;
    o.u[0] = UINTMAX_MAX - (unsigned long long)INPUT_A;
    o.u[1] = UINTPTR_MAX;
    o.u[2] = UINT_FAST32_MAX + UINT_LEAST32_MAX;
    o.u[3] = UINTMAX_C(1) << 63;
    o.u[4] = WINT_MAX + UINT_FAST8_MAX + UINT_LEAST8_MAX + UINT_LEAST16_MAX + UINT_LEAST64_MAX;
    o.s[0] = sizeof(UINT_FAST16_MAX);
    o.s[1] = sizeof(PTRDIFF_MIN);
    o.s[2] = sizeof(SIG_ATOMIC_MIN);
    o.s[3] = sizeof(WINT_MIN);
    o.s[4] = sizeof(INT_FAST64_MIN);
    o.s[5] = sizeof(INT_FAST8_MIN);
    return o;
}
"#;
    agree("header_limits", src);
}

/// An enumeration takes gcc's type: `unsigned int` without negative
/// values, `int` with them, 64 bits where its values need them; its
/// constants are `int` where they fit. It was always a signed `int`.
#[test]
fn enumerations_take_the_types_gcc_gives_them() {
    let src = r#"
enum Colour { RED, GREEN, BLUE };
enum Sign { MINUS = -1, PLUS = 1 };
enum Big { LOW = 1, HIGH = 0xffffffff };
enum Wide { NARROW = 3, WIDE = 1L << 40 };
enum Mixed { NEG = -1, POS = 0x80000000 };
typedef struct { int lt[6]; int size[7]; long long v[3]; } Out;
Out mpc_main(int INPUT_A, int INPUT_B)
{
    Out o;
    enum Colour c = INPUT_A;
    enum Sign s = INPUT_B;
    enum Wide w = INPUT_A;
    enum Mixed m = INPUT_B;
    o.lt[0] = c < 0;
    o.lt[1] = s < 0;
    o.lt[2] = RED - 1 < 0;
    o.lt[3] = HIGH > 0;
    o.lt[4] = w < 0;
    o.lt[5] = m < 0;
    o.size[0] = sizeof(enum Colour);
    o.size[1] = sizeof(HIGH);
    o.size[2] = sizeof(LOW);
    o.size[3] = sizeof(enum Wide);
    o.size[4] = sizeof(NARROW);
    o.size[5] = sizeof(WIDE);
    o.size[6] = sizeof(POS);
    o.v[0] = c >> 1;
    o.v[1] = (enum Big)INPUT_B / 3;
    o.v[2] = WIDE + INPUT_A;
    return o;
}
"#;
    agree("enumerations", src);
}

/// Type specifiers in any order: `short int`, `int short`, `unsigned
/// short int`, `long int long`... `short int` was a 32-bit `int` (its
/// `int` replaced the `short`): 70,000 stayed 70,000 and `sizeof` was 4.
#[test]
fn type_specifiers_combine_in_any_order() {
    let src = r#"
typedef struct { long long v[10]; int size[6]; } Out;
Out mpc_main(int INPUT_A, short int INPUT_B)
{
    Out o;
    short int a = INPUT_A;
    int short b = INPUT_A;
    signed short int c = INPUT_A;
    short unsigned int d = INPUT_A;
    int unsigned short e = INPUT_A;
    long int long f = INPUT_A;
    unsigned long int g = INPUT_A;
    short int t[2] = { INPUT_A, INPUT_B };
    o.v[0] = a; o.v[1] = b; o.v[2] = c; o.v[3] = d; o.v[4] = e;
    o.v[5] = f * 100000; o.v[6] = g; o.v[7] = t[0] + t[1];
    o.v[8] = (short int)(INPUT_A * 3); o.v[9] = INPUT_B + 1;
    o.size[0] = sizeof(short int); o.size[1] = sizeof(int short);
    o.size[2] = sizeof(unsigned short int); o.size[3] = sizeof(long int);
    o.size[4] = sizeof(long long int); o.size[5] = sizeof INPUT_B;
    return o;
}
"#;
    agree("type_specifiers", src);
    for bad in [
        "short long",
        "char int",
        "int int",
        "long char",
        "long long long",
        "unsigned void",
        "signed _Bool",
        "short double",
    ] {
        let src = format!("int mpc_main(int INPUT_A, int INPUT_B) {{ {bad} x = 1; return x; }}");
        let err = compile(&src, "bad.c", &CompileOptions::default()).expect_err(bad);
        assert!(
            err.to_string().contains("invalid combination"),
            "{bad}: {err}"
        );
    }
}

/// Wide character constants take their types (`L'x'` an `int`, `u'x'` an
/// `unsigned short`, `U'x'` an `unsigned int`) and whole escapes;
/// `_Alignof` and `<stdalign.h>`'s `alignof` give C's alignments; `$` may
/// be part of a name, and a group `#if 0` skips may hold characters C
/// has no use for. All were refused before.
#[test]
fn wide_characters_alignments_and_stray_characters() {
    let src = r#"
#include <stdint.h>
#include <stdalign.h>
typedef struct { char c; int64_t x; short s[3]; } S;
typedef struct { long long v[9]; int size[4]; int align[6]; } Out;
#if 0
  mail me @ `host` \ $ here
#endif
Out mpc_main(int INPUT_A, int INPUT_B)
{
    Out o;
    int my$count = INPUT_B;
    o.v[0] = L'a' + INPUT_A;
    o.v[1] = u'b' * INPUT_A;
    o.v[2] = U'c' - INPUT_B;
    o.v[3] = L'\xffffffff' < INPUT_A;
    o.v[4] = U'\xffffffff' > INPUT_B;
    o.v[5] = u'\xffff' + INPUT_A;
    o.v[6] = L'\x1234' ^ INPUT_B;
    o.v[7] = '\xff' + my$count;
    o.v[8] = (U'z' - 200) / 2;
    o.size[0] = sizeof(L'a'); o.size[1] = sizeof(u'a');
    o.size[2] = sizeof(U'a'); o.size[3] = sizeof('a');
    o.align[0] = _Alignof(char); o.align[1] = _Alignof(S);
    o.align[2] = alignof(short[5]); o.align[3] = __alignof__(int64_t *);
    o.align[4] = _Alignof(double); o.align[5] = sizeof(S);
    return o;
}
"#;
    agree("wide_characters", src);
    let compile_err = |src: &str| {
        compile(src, "bad.c", &CompileOptions::default())
            .expect_err(src)
            .to_string()
    };
    let stray = compile_err("int mpc_main(int INPUT_A, int INPUT_B) { return INPUT_A @ INPUT_B; }");
    assert!(stray.contains('@'), "{stray}");
    let opaque = compile_err(
        "struct T; int mpc_main(int INPUT_A, int INPUT_B) { return _Alignof(struct T); }",
    );
    assert!(opaque.contains("incomplete"), "{opaque}");
}

/// `__FILE__` is the name of the file being compiled, as a string.
#[test]
fn file_names_its_file() {
    let src = "int mpc_main(int INPUT_A, int INPUT_B) { return sizeof(__FILE__) * 100 + __FILE__[0] + INPUT_A * 0 + INPUT_B * 0; }";
    let p = compile(src, "walk.c", &CompileOptions::default()).expect("compiles");
    let out = p
        .program
        .eval(&[vec![false; 32], vec![false; 32]])
        .expect("runs");
    let value = out[0].iter().rev().fold(0u32, |v, &b| v << 1 | b as u32);
    assert_eq!(value, 7 * 100 + u32::from(b'w'));
}

/// A count a loop makes (`n++` three times, `n += 2`) is public after
/// the loop, kept or not: an array's size, `qsort`'s element count. Kept,
/// the loop's like terms left `0 + 3` as a sum of constant words, read as
/// a secret ("array size must be known at compile time").
#[test]
fn counts_made_by_loops_are_public_sizes() {
    let src = "#include <stdlib.h>\n\
        static int cmp(const void *a, const void *b) {\n\
        \x20   int x = *(const int *)a, y = *(const int *)b;\n\
        \x20   return (x > y) - (x < y);\n\
        }\n\
        int mpc_main(int INPUT_A_a[8], int INPUT_B_b) {\n\
        \x20   int n = 0, m = 1;\n\
        \x20   for (int i = 0; i < 3; i++) n++;\n\
        \x20   for (int i = 0; i < 3; i++) m += 2;\n\
        \x20   int v[n];\n\
        \x20   for (int i = 0; i < n; i++) v[i] = INPUT_A_a[i] + INPUT_B_b;\n\
        \x20   int d[8];\n\
        \x20   for (int i = 0; i < 8; i++) d[i] = INPUT_A_a[i] ^ INPUT_B_b;\n\
        \x20   qsort(d, m, sizeof(int), cmp);\n\
        \x20   return v[n - 1] + d[0] * 3 + d[m - 1];\n\
        }\n";
    for loops in [true, false] {
        let opts = CompileOptions {
            loops,
            ..CompileOptions::default()
        };
        let p = compile(src, "counts.c", &opts).unwrap_or_else(|e| panic!("{e}"));
        agree_with_gcc(src, &[&p], 16, 8, "counts");
    }
}

/// A decimal constant past LLONG_MAX without `u` has no standard type;
/// gcc gives it `__int128` (with a warning), and twofold does too, in
/// expressions and in constant expressions: `-9223372036854775808`, the
/// common spelling of INT64_MIN, is negative (it was unsigned long,
/// silently: `x > -9223372036854775808` was false for 5).
#[test]
fn decimal_constants_past_llong_max_are_int128_as_in_gcc() {
    let src = r#"
typedef struct { int r[6]; } Out;
Out mpc_main(long long INPUT_A, int INPUT_B)
{
    Out o;
    enum { E = 1 + (-9223372036854775808 < 0) };
    int arr[E];
    o.r[0] = INPUT_A > -9223372036854775808;
    o.r[1] = (int)sizeof(9223372036854775808) + 100 * (int)sizeof(18446744073709551615);
    o.r[2] = (int)sizeof(arr);
    o.r[3] = (int)((INPUT_B - 9223372036854775808) >> 64);
    o.r[4] = 0;
    switch (INPUT_B & 1) { case (18446744073709551615 > 5): o.r[4] = 7; break; default: break; }
    o.r[5] = 18446744073709551615 / 3 > INPUT_A;
    return o;
}
"#;
    agree("int128_constants", src);
}
