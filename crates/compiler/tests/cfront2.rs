//! More C front-end details found by comparing twofold with gcc on small
//! programs: attributes and `#pragma pack`, ...

mod common;

use common::{agree_with_gcc, agree_with_gcc_on, compiled, error_of};

/// `packed` and `aligned(n)` on a struct (after `struct` or after its
/// members), `aligned` on a member, `#pragma pack` (`push`, `pop`, `()`)
/// lay structs out as gcc does: sizes, offsets, and the bytes a union
/// sees, bit-fields of a packed struct crossing their units included.
#[test]
fn packed_and_aligned_layouts() {
    let src = r#"
#include <stddef.h>
typedef struct { char c; int x; } T1 __attribute__((packed));
typedef struct __attribute__((packed)) { char c; int x; } T2;
struct __attribute__((packed, aligned(4))) S4 { char c; int x; };
struct S5 { char c; int x; } __attribute__((aligned(16)));
struct S6 { char c; int x __attribute__((aligned)); };
__attribute__((packed)) struct S7 { char c; int x; };
struct S8 { char c; struct S5 in; };
struct __attribute__((__packed__)) S9 { char c; struct S5 in; long long y; };
struct __attribute__((packed)) B { unsigned a : 3; unsigned b : 30; char c; unsigned d : 7; };
struct S11 { char c; int x; } __attribute__((packed)) v11;
#pragma pack(push, 1)
struct S12 { char c; int x; short y; };
#pragma pack(pop)
#pragma pack(2)
struct S13 { char c; int x; };
struct B2 { char c; unsigned a : 15; unsigned b : 20; };
#pragma pack()
struct S14 { char c; int x; };
union U { struct B b; unsigned char bytes[7]; };
int mpc_main(int INPUT_A, int INPUT_B)
{
    int r = sizeof(T1) + 3 * sizeof(T2) + 7 * sizeof(struct S4) + 11 * _Alignof(struct S4)
        + 13 * sizeof(struct S5) + 17 * sizeof(struct S6) + 19 * sizeof(struct S7)
        + 23 * sizeof(struct S8) + 29 * offsetof(struct S8, in) + 31 * sizeof(struct S9)
        + 37 * offsetof(struct S9, y) + 41 * sizeof(struct B) + 43 * sizeof(v11)
        + 47 * sizeof(struct S12) + 53 * sizeof(struct S13) + 59 * sizeof(struct S14)
        + 61 * sizeof(struct B2) + 67 * _Alignof(struct B2);
    union U u = {0};
    u.b.a = INPUT_A;
    u.b.b = INPUT_B;
    u.b.c = INPUT_A >> 3;
    u.b.d = INPUT_B >> 5;
    for (int i = 0; i < 7; i++)
        r = r * 3 + u.bytes[i];
    u.bytes[INPUT_A & 3] ^= 0xA5;
    return r + u.b.a * 5 + u.b.b + u.b.d * 7 + u.b.c;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 8, 1, "packed_and_aligned_layouts");
}

/// A `packed` enumeration has the narrowest type that holds its values.
#[test]
fn packed_enumerations() {
    let src = r#"
enum __attribute__((packed)) E1 { A1, B1, C1 };
enum E2 { A2 = -1, B2 = 100 } __attribute__((packed));
enum __attribute__((__packed__)) E3 { A3 = 300 };
enum E4 { A4 = -40000 } __attribute__((packed));
struct S { char c; enum E1 e; enum E3 f; };
int mpc_main(int INPUT_A, int INPUT_B)
{
    enum E1 e = INPUT_A;
    enum E2 f = INPUT_B;
    enum E3 g = INPUT_A * 100;
    return sizeof(enum E1) + 10 * sizeof(enum E2) + 100 * sizeof(enum E3)
        + 1000 * sizeof(enum E4) + 10000 * sizeof(struct S) + e * 3 + f * 5 + g + (e < 0) * 7;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 8, 2, "packed_enumerations");
}

/// Attributes that change nothing twofold computes are read wherever gcc
/// takes them: after a function's parameters, as a statement
/// (`fallthrough`), C23's `[[...]]`; those that would change a type in
/// ways twofold cannot follow are refused, not read over.
#[test]
fn attributes_where_gcc_takes_them() {
    let src = r#"
static int sq(int x) __attribute__((const)), cube(int x);
[[nodiscard]] static int sq(int x) { return x * x; }
static int cube(int x) { return x * x * x; }
void __attribute__((noreturn)) never(void);
int g __attribute__((unused)) = 3;
int mpc_main(int INPUT_A, int INPUT_B)
{
    int f(int) __attribute__((pure));
    [[maybe_unused]] int z = 0;
    __attribute__((unused)) int w = 1;
    int r = sq(INPUT_A) + cube(INPUT_B & 7) + g + w;
    switch (INPUT_A & 3) {
    case 0:
        r++;
        __attribute__((fallthrough));
    case 1:
        r += 2;
        [[fallthrough]];
    case 2:
        r *= 3;
        break;
    default:
        r -= 4;
    }
    return r;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 8, 3, "attributes_where_gcc_takes_them");
    for (attribute, src) in [
        ("aligned", "typedef int I16 __attribute__((aligned(16)));"),
        (
            "vector_size",
            "typedef int v4 __attribute__((vector_size(16)));",
        ),
        (
            "packed",
            "struct S { char c; int x __attribute__((packed)); };",
        ),
    ] {
        let e = error_of(&format!(
            "{src}\nint mpc_main(int INPUT_A, int INPUT_B) {{ return INPUT_A; }}\n"
        ));
        assert!(e.contains(&format!("the attribute '{attribute}'")), "{e}");
    }
}

/// A pointer converts to `_Bool` (in a cast, an initializer, an
/// assignment, a return) as it compares unequal to a null pointer.
#[test]
fn pointers_convert_to_bool() {
    let src = r#"
#include <stdbool.h>
struct N { int v; struct N *next; };
bool nz(const int *p) { return p; }
int mpc_main(int INPUT_A, int INPUT_B)
{
    int a[3] = {INPUT_A, INPUT_B, 3};
    int *p = a, *q = 0;
    bool b1 = p, b2 = q;
    _Bool b3 = (_Bool)(a + 2);
    struct N n2 = {INPUT_B, 0}, n1 = {INPUT_A, &n2};
    bool has = n1.next, last = n2.next;
    b1 = q;
    b2 = &a[1];
    return b1 + 2 * b2 + 4 * b3 + 8 * nz(p) + 16 * nz(q) + 32 * has + 64 * last
        + 128 * (bool)p * INPUT_A;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 4, 4, "pointers_convert_to_bool");
}

/// `<ctype.h>`, `<float.h>`, `<iso646.h>`, and `<math.h>`'s classification
/// macros and `M_` constants give what gcc with glibc gives: `isdigit` a
/// bit of glibc's table, `isinf(-inf)` -1, `signbit` of a `float` its
/// sign bit in place.
#[test]
fn ctype_float_iso646_and_math_classification() {
    let src = r#"
#include <ctype.h>
#include <float.h>
#include <iso646.h>
#include <math.h>
int parse(const char *s)
{
    int v = 0, sign = 1;
    while (isspace(*s))
        s++;
    if (*s == '-') {
        sign = -1;
        s++;
    }
    while (isdigit(*s))
        v = v * 10 + (*s++ - '0');
    return v * sign;
}
int mpc_main(int INPUT_A, int INPUT_B)
{
    int r = 0;
    for (int c = -1; c < 130; c++)
        r = r * 31 + isupper(c) + islower(c) + isalpha(c) + isdigit(c) + isxdigit(c)
            + isspace(c) + isprint(c) + isgraph(c) + isblank(c) + iscntrl(c) + ispunct(c)
            + isalnum(c) + isascii(c) + toascii(c) + tolower(c) * 3 + toupper(c) * 5;
    char buf[8] = {' ', '-', '1', '2', 'x', 0};
    buf[2] = '0' + (INPUT_A & 7);
    r += parse(buf) + toupper(INPUT_A & 127) + isalpha(INPUT_B & 127) + isdigit(INPUT_A & 255);
    r += (FLT_MAX > 1e38) + (DBL_EPSILON < 1e-15) * 2 + FLT_MANT_DIG + DBL_DIG
        + (int)(DBL_MIN * 1e308) + (FLT_MIN > 0) + (DBL_MAX > 1e308) + (FLT_EPSILON * 1e7 > 1);
    r += (INPUT_A > 0 and INPUT_B > 0) + (not INPUT_A) * 2 + (INPUT_A xor INPUT_B)
        + (compl INPUT_A bitand 7);
    double d = INPUT_A / (double)INPUT_B, inf = INPUT_A * 1e308 * 10;
    float f = INPUT_B / (float)INPUT_A;
    r += isnan(d) + isinf(d) * 2 + isfinite(d) * 4 + isnormal(d) * 8 + fpclassify(d) * 16
        + signbit(d) * 32 + signbit(f);
    r += isnan(f) + isinf(f) * 2 + isfinite(f) * 4 + isnormal(f) * 8 + fpclassify(f) * 16;
    r += isinf(inf) * 3 + isinf(-inf) * 5 + isnan(inf - inf) * 7 + fpclassify(inf)
        + fpclassify(d * 1e-310) * 11 + fpclassify(0.0 * d) * 13 + signbit(-0.0 * INPUT_A) * 17;
    r += isgreater(d, f) + isless(d, 1.0) * 2 + isunordered(d, inf - inf) * 4
        + islessgreater(d, f) * 8 + isgreaterequal(f, d) * 16 + islessequal(f, 0) * 32;
    return r + (int)(M_PI * 1000) + (int)(M_E * 1000) + (int)(M_SQRT2 * 1000);
}
"#;
    let p = compiled(src);
    agree_with_gcc_on(
        src,
        &[&p],
        &[
            vec!["5".into(), "-7".into()],
            vec!["0".into(), "0".into()],
            vec!["-3".into(), "0".into()],
            vec!["200".into(), "3".into()],
            vec!["0".into(), "5".into()],
        ],
        "ctype_float_iso646_and_math_classification",
    );
}

/// `_Pragma("pack(...)")` packs as `#pragma pack` does, `pop` with a
/// label pops back to where that label was pushed, and a malformed
/// `#pragma pack` is read over, as gcc does.
#[test]
fn pragma_pack_operators_and_labels() {
    let src = r#"
#pragma pack(3)
#pragma pack
struct Z { char c; int x; };
#define PACKED_BEGIN _Pragma("pack(push, 1)")
#define PACKED_END _Pragma("pack(pop)")
PACKED_BEGIN
struct A { char c; int x; short s; };
PACKED_END
struct B { char c; int x; };
_Pragma("pack(2)") struct C { char c; int x; }; _Pragma("pack()")
struct D { char c; long long y; };
#pragma pack(push, r1, 4)
#pragma pack(push, 1)
struct E { char c; long long y; };
#pragma pack(pop, r1)
struct F { char c; long long y; };
#pragma pack(8)
struct G { char c; long long y; };
int mpc_main(int INPUT_A, int INPUT_B)
{
    return sizeof(struct A) + 10 * sizeof(struct B) + 100 * sizeof(struct C)
        + 1000 * sizeof(struct D) + 10000 * sizeof(struct E) + 100000 * sizeof(struct F)
        + 1000000 * sizeof(struct G) + 10000000 * sizeof(struct Z) + INPUT_A - INPUT_B;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 2, 6, "pragma_pack_operators_and_labels");
}

/// A generic selection takes postfix operators: a selection of functions
/// is called (`_Generic(x, float: fabsf, default: fabs)(x)`, the
/// arguments evaluated once), a selection of arrays indexed.
#[test]
fn generic_selections_of_functions_are_called() {
    let src = r#"
#include <math.h>
#include <stdlib.h>
static int twice(int x) { return 2 * x; }
static double half(double x) { return x / 2; }
#define HALVE(x) _Generic((x), double: half, float: half, default: twice)(x)
#define FABS(x) _Generic((x), float: fabsf, default: fabs)(x)
int mpc_main(int INPUT_A, int INPUT_B)
{
    int k = 0;
    int r = HALVE(INPUT_A) + (int)(HALVE(INPUT_B * 1.0) * 10) + (int)FABS(INPUT_A * 0.5f)
        + (int)FABS(-3.5 * INPUT_B);
    r += _Generic(k++, int: twice, default: abs)(k++) + k;
    r += _Generic(INPUT_A, int: (int[]){1, 2, 3})[INPUT_B & 1];
    return r;
}
"#;
    let p = compiled(src);
    agree_with_gcc(
        src,
        &[&p],
        4,
        7,
        "generic_selections_of_functions_are_called",
    );
}

/// `__builtin_unreachable()` does nothing: reaching it is undefined, so
/// every program gcc defines computes the same without it.
#[test]
fn builtin_unreachable_does_nothing() {
    let src = r#"
static int sign(int x)
{
    if (x > 0)
        return 1;
    if (x < 0)
        return -1;
    if (x == 0)
        return 0;
    __builtin_unreachable();
}
int mpc_main(int INPUT_A, int INPUT_B)
{
    switch (INPUT_A & 3) {
    case 0: case 1: case 2: case 3:
        INPUT_B += INPUT_A & 3;
        break;
    default:
        __builtin_unreachable();
    }
    if (INPUT_A > 1000000 && INPUT_A < 1000002)
        __builtin_unreachable();
    return sign(INPUT_A) * 10 + INPUT_B;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 6, 8, "builtin_unreachable_does_nothing");
}

/// GNU's spellings of keywords (`__signed`, `__volatile__`, `__const__`,
/// `__restrict__`, `__inline`) are the keywords, and `__extension__` is
/// read over wherever it stands, in an expression too.
#[test]
fn gnu_keyword_spellings() {
    let src = r#"
static __inline__ int f(int x) { return x + 1; }
static __inline int g(const int *__restrict__ p) { return *p * 2; }
int mpc_main(int INPUT_A, int INPUT_B)
{
    __signed int s = INPUT_A;
    __signed__ char c = INPUT_B;
    __volatile__ int v = 3;
    __volatile int w = 4;
    __const int k = 5;
    __const__ int m = 6;
    long long x = __extension__ 1LL << 40;
    __extension__ int e = 2;
    return f(s) + g(&k) + v + w + m + c + (int)(x >> 38) + e * 100;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 4, 9, "gnu_keyword_spellings");
}

/// GNU's `__auto_type` declares a variable of its initializer's type (an
/// array's decayed to a pointer), as in the usual `MAX` macro.
#[test]
fn auto_type_takes_the_initializers_type() {
    let src = r#"
#define MAX(a, b) ({ __auto_type _a = (a); __auto_type _b = (b); _a > _b ? _a : _b; })
struct P { int x; short y; };
int mpc_main(int INPUT_A, int INPUT_B)
{
    __auto_type x = INPUT_A * 2LL;
    __auto_type c = (char)INPUT_B;
    int arr[3] = {INPUT_A, 2, 3};
    __auto_type p = arr;
    __auto_type s = (struct P){INPUT_A, 7};
    const __auto_type d = INPUT_B / 2.0;
    int i = 0;
    int m = MAX(INPUT_A, i++);
    for (__auto_type k = 0u; k < 3; k++)
        i += k - 5 > 0;
    return sizeof(x) + (int)x + sizeof(c) * 100 + c + sizeof(p) * 1000 + p[2] + s.y
        + sizeof(s) * 10000 + (int)(d * 4) + m + i;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 4, 10, "auto_type_takes_the_initializers_type");
}

/// K&R's implicit `int`, which gcc takes: a function defined or declared
/// at file scope without a type, a declaration with only a storage class
/// or qualifier (`static x;`, `const y = 3;`).
#[test]
fn implicit_int() {
    let src = r#"
twice(x) { return x * 2; }
static thrice(int x) { return x * 3; }
extern later(int);
int mpc_main(int INPUT_A, int INPUT_B)
{
    static calls;
    const y = 3;
    register z = INPUT_A;
    calls++;
    return twice(INPUT_A) + thrice(INPUT_B) + later(y) + z + calls;
}
later(v) short v; { return v + 7; }
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 4, 11, "implicit_int");
}

/// `#elifdef` and `#elifndef` (C23, which gcc 12 takes) test whether a
/// macro is defined, rather than being skipped.
#[test]
fn elifdef_and_elifndef() {
    let src = r#"
#define A 1
#ifdef B
#define X 1
#elifdef A
#define X 2
#else
#define X 3
#endif
#ifndef A
#define Y 10
#elifndef B
#define Y 20
#else
#define Y 30
#endif
#if 0
#elifdef B
#define Z 100
#elifndef A
#define Z 200
#else
#define Z 300
#endif
int mpc_main(int INPUT_A, int INPUT_B) { return X + Y + Z + INPUT_A - INPUT_B; }
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 2, 12, "elifdef_and_elifndef");
}

/// `__has_include` finds the headers twofold has (built in, or files
/// beside the program), and `__has_attribute` the attributes it follows
/// or reads over; `#ifdef` finds both defined, as gcc does.
#[test]
fn has_include_and_has_attribute() {
    let src = r#"
#if __has_include(<stdint.h>) && __has_include(<math.h>) && !__has_include("no_such_header.h")
#include <stdint.h>
#define H 1
#else
#define H 2
#endif
#if defined(__has_include) && defined __has_attribute
#define D 10
#else
#define D 20
#endif
#if __has_attribute(packed) && __has_attribute(__aligned__) && __has_attribute(gnu::unused)
#define PACKED __attribute__((packed))
#else
#define PACKED
#endif
struct PACKED S { char c; int32_t x; };
int mpc_main(int INPUT_A, int INPUT_B) { return H + D + 100 * sizeof(struct S) + INPUT_A - INPUT_B; }
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 2, 13, "has_include_and_has_attribute");
}

/// GCC's math and classification built-ins (`__builtin_fabs`,
/// `__builtin_isnan`, `__builtin_isinf_sign`, `__builtin_fpclassify`,
/// ...) and `__builtin_assume_aligned` are what gcc gives, without a
/// header.
#[test]
fn math_and_classification_builtins() {
    let src = r#"
int mpc_main(int INPUT_A, int INPUT_B)
{
    double d = INPUT_A / (double)INPUT_B, inf = INPUT_A * 1e308 * 10;
    float f = INPUT_B * 0.25f;
    int r = (int)__builtin_fabs(-2.5 * INPUT_A) + (int)__builtin_sqrt(16.0 + INPUT_B * INPUT_B)
        + (int)__builtin_floorf(f) + (int)__builtin_copysign(2.0, INPUT_A);
    r += __builtin_isnan(d) + __builtin_isinf(inf) * 2 + __builtin_isinf(-inf) * 4
        + __builtin_isinf_sign(-inf) * 8 + __builtin_isfinite(d) * 16 + __builtin_isnormal(f) * 32;
    r += __builtin_fpclassify(1, 2, 3, 4, 5, d) * 64 + __builtin_fpclassify(1, 2, 3, 4, 5, f * 1e-40f) * 128
        + (__builtin_signbit(f) != 0) * 256 + __builtin_signbit(d) * 512;
    r += __builtin_isgreater(d, f) + __builtin_isunordered(d, inf - inf) * 2 + (int)__builtin_huge_val() * 0;
    int *p = __builtin_assume_aligned(&INPUT_A, 4);
    return r + *p;
}
"#;
    let p = compiled(src);
    agree_with_gcc_on(
        src,
        &[&p],
        &[
            vec!["5".into(), "-7".into()],
            vec!["0".into(), "3".into()],
            vec!["-3".into(), "0".into()],
            vec!["200".into(), "3".into()],
        ],
        "math_and_classification_builtins",
    );
}

/// `__builtin_constant_p` tells integer constant expressions (1) from
/// others (0), as gcc without optimization, and `__builtin_choose_expr`
/// picks by a constant, evaluating only what it picks.
#[test]
fn constant_p_and_choose_expr() {
    let src = r#"
#define IS_CONST(x) __builtin_constant_p(x)
int mpc_main(int INPUT_A, int INPUT_B)
{
    int k = 0;
    int r = IS_CONST(3) + IS_CONST(2 * 4 + 1) * 2 + IS_CONST(INPUT_A) * 4 + IS_CONST(k++) * 8;
    r += __builtin_choose_expr(sizeof(long) == 8, INPUT_A, k++) * 16;
    r += __builtin_choose_expr(0, k++, INPUT_B) + k * 100;
    return r;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 4, 14, "constant_p_and_choose_expr");
}

/// `atoi`, `atol` and `atoll` read strings with secret characters as
/// glibc does: white space, a sign, digits up to the first other
/// character.
#[test]
fn atoi_and_kin() {
    let src = r#"
#include <stdlib.h>
int mpc_main(int INPUT_A, int INPUT_B)
{
    char buf[12] = "  -12a4";
    buf[2] = " -+9"[INPUT_A & 3];
    buf[3] = '0' + (INPUT_B & 7);
    buf[5] = (INPUT_A & 4) ? 0 : '7';
    char big[16] = "4000000000";
    big[0] = '0' + (INPUT_B & 7);
    const char *lit = "\t\n+42x";
    return atoi(buf) * 1000 + atoi(lit) + (int)(atol(big) % 100000)
        + (int)(atoll("-9000000000") / 1000000) + atoi(big) + atoi("") + atoi("-") + atoi("+-3");
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 8, 15, "atoi_and_kin");
}

/// A `_Generic` association of a qualified type (`const int`, not `const
/// char *`) matches no controlling type, which lvalue conversion leaves
/// unqualified: `int` is chosen for a `const int` variable.
#[test]
fn generic_qualified_associations_never_match() {
    let src = r#"
#define KIND(x) _Generic((x), const int: 1, int: 2, volatile unsigned: 3, unsigned: 4, default: 9)
int mpc_main(int INPUT_A, int INPUT_B)
{
    const int k = INPUT_A;
    volatile unsigned v = INPUT_B;
    return KIND(k) + KIND(INPUT_A) * 10 + KIND(v) * 100 + _Generic(k, const int: 7, default: 8) * 1000
        + _Generic((const int)INPUT_B, int: 5, default: 6) * 10000 + INPUT_A;
}
"#;
    let p = compiled(src);
    agree_with_gcc(
        src,
        &[&p],
        4,
        16,
        "generic_qualified_associations_never_match",
    );
}

/// Text that `#if 0` skips need not be C: an apostrophe (`doesn't`) or a
/// character no token begins with (`£`) is an error only where it is left
/// after preprocessing, as gcc has it (it was refused wherever it stood:
/// "unterminated character constant").
#[test]
fn skipped_groups_may_hold_stray_quotes() {
    let src = "#if 0\nThis block doesn't compile; it's old code (£5).\n#endif\n\
        int mpc_main(int INPUT_A, int INPUT_B) { return INPUT_A - INPUT_B; }\n";
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 2, 13, "stray_quotes");
    let left = "int mpc_main(int INPUT_A, int INPUT_B) { return INPUT_A £ 2; }\n";
    let e = twofold_compiler::compile(left, "prog.c", &Default::default()).expect_err("stray");
    assert_eq!(
        e.to_string(),
        "prog.c:1:57: error: unexpected character '£' (U+00A3)"
    );
}
