//! C front-end details found by comparing twofold with gcc on small
//! programs: how `#` and `##` spell tokens, `#if` arithmetic in
//! `uintmax_t`, GNU's named variadic macro parameters.

mod common;

use common::{agree_with_gcc, compiled, error_of};

/// `#` spells its argument as written (`010`, `'a'`, `1.50`, a string
/// with its escapes), with a space only where the argument had
/// whitespace, and escapes `"` and `\` in literals; `##` pastes the
/// spellings (`x ## 010` is `x010`, not `x0x8`).
#[test]
fn stringizing_and_pasting_keep_spellings() {
    let src = r#"
#define STR(x) #x
#define XSTR(x) STR(x)
#define CAT(a, b) a##b
#define LEN(s) (sizeof(s) - 1)
int mpc_main(int INPUT_A, int INPUT_B)
{
    int x010 = 5, x0x8 = 7;
    int r = LEN(STR(a+b)) + 10 * LEN(STR(010)) + 100 * LEN(STR('a'))
        + 1000 * LEN(STR(1.50)) + 10000 * LEN(STR("a\n"));
    r += STR('a')[0] + STR("\\")[1] + STR('\'')[2] + XSTR(CAT(1, 2))[1];
    r += LEN(STR( a /* c */ + b )) * 3 + LEN(STR(a
        b)) * 7 + LEN(XSTR(XSTR(1))) * 11 + LEN(STR(1ULL)) * 13;
    return r + CAT(x, 010) * INPUT_A + INPUT_B;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 4, 1, "stringizing_and_pasting_keep_spellings");
}

/// A preprocessing number that is no constant (`0x`, `1e`) may be pasted
/// into one, as gcc allows; one left after preprocessing is an error, and
/// one in a skipped group is none.
#[test]
fn pasting_preprocessing_numbers() {
    let src = r#"
#define CAT(a, b) a##b
#if 0
int skipped = 0x;
#endif
int mpc_main(int INPUT_A, int INPUT_B)
{
    return CAT(0x, 1F) + CAT(1e, 3) + CAT(0, x10) * INPUT_A + (int)CAT(2.5, f) + INPUT_B;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 4, 2, "pasting_preprocessing_numbers");
    assert_eq!(
        error_of("#define CAT(a, b) a##b\nint mpc_main(int INPUT_A, int INPUT_B) { return CAT(0x, ); }\n"),
        "prog.c:2:49: error: invalid or too large integer constant '0x'"
    );
    assert_eq!(
        error_of("int mpc_main(int INPUT_A, int INPUT_B) { return 1e; }\n"),
        "prog.c:1:49: error: invalid floating constant '1e'"
    );
}

/// `#if` computes in `intmax_t`, or `uintmax_t` where an operand is
/// unsigned (`-1 < 0u` is false), evaluates the operands it needs only
/// (`0 && 1 / 0`), and takes the comma operator, as gcc does.
#[test]
fn if_arithmetic_is_unsigned_where_c_says() {
    let conditions = [
        "-1 < 0u",
        "0x8000000000000000 > 0",
        "(1 ? -1 : 0u) > 0",
        "(0u - 1) / 2 == 0x7FFFFFFFFFFFFFFF",
        "-1 / 2u > 0",
        "-8u >> 1 > 0",
        "-8 >> 1 == -4",
        "1 >> 64 == 0",
        "!0u - 2 < 0",
        "0 && 1 / 0",
        "1 || 1 % 0",
        "0 ? 1 / 0 : 2",
        "(1u, -1) > 0",
        "'\\377' < 0",
    ];
    let mut src = String::new();
    for (k, c) in conditions.iter().enumerate() {
        src.push_str(&format!(
            "#if {c}\n#define R{k} {}\n#else\n#define R{k} 0\n#endif\n",
            1u32 << k
        ));
    }
    let sum: Vec<String> = (0..conditions.len()).map(|k| format!("R{k}")).collect();
    src.push_str(&format!(
        "int mpc_main(int INPUT_A, int INPUT_B) {{ return {} + INPUT_A - INPUT_B; }}\n",
        sum.join(" + ")
    ));
    let p = compiled(&src);
    agree_with_gcc(&src, &[&p], 4, 3, "if_arithmetic_is_unsigned_where_c_says");
}

/// GNU's named variadic parameter (`args...`) is `__VA_ARGS__` by
/// another name, `, ## args` included.
#[test]
fn named_variadic_parameters() {
    let src = r#"
#define COUNT(...) (sizeof((int[]){0, ##__VA_ARGS__}) / sizeof(int))
#define V(x, args...) (x * 10 + COUNT(args))
#define W(args...) COUNT(args)
int mpc_main(int INPUT_A, int INPUT_B)
{
    return V(1) + V(2, 3, 4) * 100 + W() * 1000 + W(INPUT_A, INPUT_B) * 10000 + INPUT_A;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 4, 4, "named_variadic_parameters");
}

/// A backslash ending a line joins it to the next before tokens are
/// read (C11 5.1.1.2, phase 2): inside names, numbers, strings,
/// operators and `//` comments, as gcc has it; lines still count as
/// written.
#[test]
fn line_splices_inside_tokens() {
    // (`#line 1`: gcc's harness adds lines before the program.)
    let src = "#line 1\nint mpc_main(int INPUT_A, int INPUT_B)\n{\n    int lo\\\nng_name = 4;\n    int r = long_name + 0x1\\\n0 + \"ab\\\ncd\"[2];\n    r +\\\n= INPUT_A; // a comment \\\n    r = 0;\n    return r * 100 + __LINE__ - INPUT_B;\n}\n";
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 4, 5, "line_splices_inside_tokens");
    assert_eq!(
        error_of("int mpc_main(int INPUT_A, int INPUT_B)\n{\n    int x\\\n = 1;\n    return INPUT_A + ;\n}\n"),
        "prog.c:5:22: error: expected an expression but found ';'"
    );
}

/// `_Pragma("...")` is a pragma, which changes nothing, as `#pragma`
/// lines; `#include NAME` takes the header its macros expand to.
#[test]
fn pragma_operators_and_computed_includes() {
    let src = r#"
#define HEADER <limits.h>
#include HEADER
#define QUIET(x) _Pragma("GCC diagnostic push") x _Pragma("GCC diagnostic pop")
int mpc_main(int INPUT_A, int INPUT_B)
{
    int r = INT_MAX / 1000;
    QUIET(r += INPUT_A;)
    _Pragma("once") return r - INPUT_B;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 4, 6, "pragma_operators_and_computed_includes");
}

/// `##` pastes in an object-like macro too, and `#` spaces an argument
/// as its parameter stands in the body: C11 6.10.3.3's example
/// (`hash_hash`) makes `"x ## y"`, as gcc does.
#[test]
fn pasting_in_object_like_macros() {
    let src = r#"
#define hash_hash # ## #
#define mkstr(a) # a
#define in_between(a) mkstr(a)
#define join(c, d) in_between(c hash_hash d)
#define AB a ## b
#define STR(x) #x
#define TWO(x, y) STR(x y)
int mpc_main(int INPUT_A, int INPUT_B)
{
    int ab = 7;
    int r = sizeof(join(x, y)) * 1000 + join(x, y)[2] * 10 + join(x, y)[3] + AB;
    return r + sizeof(TWO(a,b)) * 100000 + INPUT_A - INPUT_B;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 4, 7, "pasting_in_object_like_macros");
}

/// Digraphs (`<: :> <% %> %: %:%:`) are the punctuators they spell, and
/// `<stdbool.h>` defines `__bool_true_false_are_defined`, as C99 asks.
#[test]
fn digraphs_and_stdbool() {
    let src = r#"
#include <stdbool.h>
%:define CAT(a, b) a %:%: b
int mpc_main(int INPUT_A, int INPUT_B)
<%
    int d<:2:> = <% INPUT_A, 2 %>;
    int CAT(x, y) = __bool_true_false_are_defined + true;
    return d<:0:> * 3 + d<:1:> + xy - INPUT_B;
%>
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 4, 8, "digraphs_and_stdbool");
}

/// A `defined` that a macro makes in `#if` tests its operand unexpanded,
/// as gcc has it (C leaves it undefined; `#define HAS_X defined(X)` is
/// common).
#[test]
fn defined_made_by_macros_in_if() {
    let src = r#"
#define R1 1
#define R2
#define HAS(x) defined(x)
#define D1 defined(R1)
#define D2 defined R2
#define D3 defined(NOPE)
#if D1 && D2 && !D3 && !HAS(NOPE)
#define A 1
#else
#define A 2
#endif
#if D1 + D2 + HAS(NOPE2) == 2 && (D3 ? 0 : 1)
#define B 10
#else
#define B 20
#endif
int mpc_main(int INPUT_A, int INPUT_B) { return A + B + INPUT_A - INPUT_B; }
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 4, 9, "defined_made_by_macros_in_if");
}

/// `extern int g;` names the global `g`, in a block too and whether `g`
/// is defined above or below; a declaration without an initializer after
/// a definition (`int g = 17; int g;`) keeps its value: C11 6.9.2 makes
/// them one object, as gcc does.
#[test]
fn extern_and_tentative_declarations_name_one_global() {
    let src = r#"
int early = 17;
int early;
extern int early;
int later_read(void) { extern int late; return late; }
int mpc_main(int INPUT_A, int INPUT_B)
{
    extern int early;
    early += INPUT_B;
    return early * 1000 + later_read() + INPUT_A;
}
int late = 5;
"#;
    let p = compiled(src);
    agree_with_gcc(
        src,
        &[&p],
        4,
        10,
        "extern_and_tentative_declarations_name_one_global",
    );
}

/// All file-scope declarations of a name denote one object (C11 6.2.2,
/// 6.9.2): a pointer taken from an `extern` declaration points to the
/// object defined below it, an array declared without its size
/// (`extern int a[];`) gets it from a later declaration (or has one
/// element if none gives it), and a struct declared before its
/// definition is that struct; two definitions, or two types, are errors.
#[test]
fn declarations_of_a_global_denote_one_object() {
    let src = r#"
extern int g;
int *p = &g;
int g = 5;
extern int arr[];
int *q = arr;
int arr[3] = {1, 2, 3};
static int s;
static int s = 4;
int once[];
struct S;
extern struct S sv;
struct S { int a, b; };
struct S *sp = &sv;
struct S sv = {3, 4};
int a2[] = {6, 7, 8, 9};
extern int a2[];
int b2[sizeof a2 / sizeof a2[0]];
int mpc_main(int INPUT_A, int INPUT_B)
{
    g += INPUT_B;
    b2[3] = once[0] + 1;
    return *p * 1000 + q[2] * 100 + (int)sizeof arr + s + sp->b * 10 + a2[1]
        + b2[3] + (int)sizeof b2 + INPUT_A;
}
"#;
    let p = compiled(src);
    agree_with_gcc(
        src,
        &[&p],
        4,
        11,
        "declarations_of_a_global_denote_one_object",
    );
    let main = "int mpc_main(int INPUT_A, int INPUT_B) { return g + INPUT_A; }\n";
    assert_eq!(
        error_of(&format!("int g = 1;\nint g = 2;\n{main}")),
        "prog.c:2:5: error: redefinition of 'g'"
    );
    assert_eq!(
        error_of(&format!("int g;\nunsigned g;\n{main}")),
        "prog.c:2:10: error: conflicting types for 'g' (unsigned int here, int before)"
    );
}

/// `__VA_OPT__(...)` (C23, and gcc's) stands for what is in its
/// parentheses where the variable arguments expand to some tokens, else
/// for nothing (next to `##` too); GNU's `, ## __VA_ARGS__` drops the
/// comma where a call omits the variable arguments (not where it gives
/// empty ones).
#[test]
fn va_opt_and_omitted_variadic_arguments() {
    let src = r#"
#define E
#define NARGS(...) (sizeof((int[]){0 __VA_OPT__(,) __VA_ARGS__}) / sizeof(int) - 1)
#define f(a, ...) (a * 10 + NARGS(__VA_ARGS__))
#define F(a, ...) f(a __VA_OPT__(,) __VA_ARGS__)
#define g(a, ...) (a * 10 + NARGS(__VA_ARGS__))
#define G(fmt, ...) g(fmt, ##__VA_ARGS__)
#define w(a, ...) (100 + NARGS(__VA_ARGS__))
#define W(...) w(0, ##__VA_ARGS__)
#define H(...) (0 __VA_OPT__(+ __VA_ARGS__ + 1))
#define P(x, ...) x ## __VA_OPT__(y)
int mpc_main(int INPUT_A, int INPUT_B)
{
    int ay = 3, a = 4;
    int r = G(1) + G(2, 3) * 2 + W() * 3 + W(1, 2) + H() + H(5) * 7 + H(E) * 11;
    r += P(a) + P(a, 1) * 13 + F(INPUT_A) + F(INPUT_A, 2, 3) * 17 + F(1, E) * 19;
    return r + INPUT_B;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 4, 12, "va_opt_and_omitted_variadic_arguments");
}

/// gcc's predefined macros that portable code tests (`__SIZEOF_INT__`,
/// `__INT_MAX__`, `__BYTE_ORDER__`, `__INT8_TYPE__`, ...) are defined,
/// spelled as gcc spells them and agreeing with `sizeof`; `__COUNTER__`
/// counts from 0 and is `defined`. (`__GNUC__` is not: code that sees it
/// takes GNU paths.)
#[test]
fn predefined_macros_as_gcc_has_them() {
    let src = r#"
#define S(x) #x
#define XS(x) S(x)
enum { C0 = __COUNTER__, C1 = __COUNTER__, C2 = __COUNTER__ };
#if __STDC_VERSION__ == 201710L && __CHAR_BIT__ == 8 && defined(__COUNTER__) \
    && __SIZEOF_INT__ == 4 && __SIZEOF_LONG__ == 8 && __SIZEOF_POINTER__ == 8
#define SIZES 1
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && __INT_MAX__ == 2147483647 \
    && __LONG_MAX__ > __INT_MAX__ && __SCHAR_MAX__ == 127 && __SHRT_MAX__ == 32767 \
    && __LONG_LONG_MAX__ == __LONG_MAX__
#define LIMITS 1
#endif
int mpc_main(int INPUT_A, int INPUT_B)
{
    __INT8_TYPE__ i8 = (__INT8_TYPE__)300;
    __UINT16_TYPE__ u16 = (__UINT16_TYPE__)-1;
    int r = C0 + C1 * 2 + C2 * 4 + SIZES * 1000 + LIMITS * 2000 + i8 + u16;
    r += sizeof(XS(__INT_MAX__)) * 10 + sizeof(XS(__LONG_MAX__)) * 100;
    r += (sizeof(void *) == __SIZEOF_POINTER__) + (sizeof(long) == __SIZEOF_LONG__) * 3
        + (sizeof(__SIZE_TYPE__) == __SIZEOF_SIZE_T__) * 5 + (sizeof(short) == __SIZEOF_SHORT__) * 7;
    return r + INPUT_A - INPUT_B;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 4, 13, "predefined_macros_as_gcc_has_them");
}

/// GNU's escape `\e` (and `\E`) is the escape character, 27, in
/// character constants and strings.
#[test]
fn escape_e_is_the_escape_character() {
    let src = r#"
int mpc_main(int INPUT_A, int INPUT_B)
{
    return '\e' * 100 + "a\E"[1] + sizeof("\e[0m") * 10000 + INPUT_A - INPUT_B;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 4, 14, "escape_e_is_the_escape_character");
}

/// A braced initializer for a member initializes all of it, overriding
/// what designated items before it wrote there (`.b[1] = 4, .b = {5}`
/// leaves `b[1]` zero), as C11 6.7.9p19 and gcc have it; a designator
/// into the member (`.b[1] = 4`) overrides that element only.
#[test]
fn braces_override_a_whole_member() {
    let src = r#"
struct S { int a; int b[2]; } gs = { .b[1] = 4, .a = 3, .b = {5} };
struct In { int a[2]; int b; };
struct Out { struct In s; int c; };
int mpc_main(int INPUT_A, int INPUT_B)
{
    struct In s = { .a = {1, 2}, .a[0] = INPUT_A, .b = 3 };
    struct Out t = { .s.a[1] = INPUT_B, .s = { .b = 9 }, 5 };
    int m[2][2] = { [1] = { 1, 2 }, [1][0] = 3, [0] = { 4 } };
    return gs.b[1] * 1000000 + gs.b[0] * 100000 + s.a[0] * 100 + s.a[1] * 10 + s.b
        + t.s.a[1] * 1000 + t.s.b * 10000 + t.c * 7 + m[1][0] * 3 + m[1][1] * 5 + m[0][0] * 11;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 4, 15, "braces_override_a_whole_member");
}

/// An array declared without its size has as many elements as its
/// initializer fills, braces elided (C11 6.7.9p20): five scalars make
/// three two-member structs, a designator into an element (`[1].p.y = 5`)
/// goes on filling that element, and a struct value or a string fills
/// one element.
#[test]
fn array_sizes_count_elided_braces() {
    let src = r#"
struct P { int x, y; };
struct Q { struct P p; int z[2]; };
struct P gp[] = { 1, 2, 3, 4, 5 };
int mpc_main(int INPUT_A, int INPUT_B)
{
    struct P v = { INPUT_A, INPUT_B };
    struct Q q[] = { 1, 2, 3, 4, 5, 6, 7 };
    struct Q r[] = { [1].p.y = 5, 6, 7, 8, 9 };
    struct P s[] = { [0].y = 1, 2, [3] = 4 };
    struct P w[] = { v, v, 1, 2 };
    char names[][4] = { "ab", "cd", 'x', 'y' };
    int b[][2] = { {1}, {2, 3}, 4, 5 };
    union U { int i; char c[4]; } us[] = { 1, 2, {3} };
    int n = sizeof gp / sizeof gp[0] + sizeof q / sizeof q[0] * 10 + sizeof r / sizeof r[0] * 100
        + sizeof s / sizeof s[0] * 1000 + sizeof w / sizeof w[0] * 10000
        + sizeof names / sizeof names[0] * 100000 + sizeof b / sizeof b[0] * 1000000
        + sizeof us / sizeof us[0] * 10000000;
    return n + q[1].p.y + r[1].z[1] * 3 + r[2].p.x * 5 + s[1].x * 7 + names[2][1] + w[2].y * 11
        + b[2][1] * 13 + w[1].x;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 4, 16, "array_sizes_count_elided_braces");
}

/// A flexible array member (`int d[];` last in a struct) is refused: it
/// was read as a pointer, another size and layout than C's.
#[test]
fn flexible_array_members_are_refused() {
    assert_eq!(
        error_of("struct V { int n; int d[]; };\nint mpc_main(int INPUT_A, int INPUT_B) { return sizeof(struct V) + INPUT_A; }\n"),
        "prog.c:1:23: error: flexible array member 'd' is not supported (give the array a size)"
    );
}

/// A function declared in a block (`int g(int);`, `extern int h(void);`)
/// is the file's function, as C has it: the declaration is no error.
#[test]
fn functions_declared_in_blocks() {
    let src = r#"
int f(int x)
{
    int g(int), y = 2;
    extern int h(void);
    return g(x) * y + h();
}
int g(int x) { return x * 3; }
int h(void) { return 7; }
int mpc_main(int INPUT_A, int INPUT_B) { return f(INPUT_A) + INPUT_B; }
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 4, 17, "functions_declared_in_blocks");
}

/// Integer constant expressions (enum values, array sizes, case labels,
/// `_Static_assert`) compute in C's types: operands promoted and brought
/// to their common type, results wrapped to it (`~0u >> 28` is 15,
/// `-1 < 0u` is 0), as gcc does, not on mathematical integers.
#[test]
fn constant_expressions_compute_in_c_types() {
    let src = r#"
enum { A = ~0u >> 28, B = (0u - 1) / 2 > 0, C = -1 < 0u, D = (unsigned char)300,
       E = -1 / 2u > 0, F = 1 ? -1 : 0u, G = (1 ? -1 : 0u) > 0, H = (unsigned short)-1 + 1,
       I = 0 ? 1 / 0 : 2, J = sizeof(int) - 5 > 0 };
int arr[(0u - 1) % 7 + 1];
_Static_assert((-1 < 0u) == 0, "unsigned compare");
int mpc_main(int INPUT_A, int INPUT_B)
{
    int r = 0;
    switch (INPUT_A & 7) {
    case ~0u >> 30: r = 100; break;
    case -1 + 0u - 4294967295u + 4: r = 200; break;
    default: r = 300;
    }
    return A + B * 10 + C * 100 + D * 1000 + E * 3 + F * 7 + G * 11 + H * 13 + I * 17 + J * 19
        + (int)sizeof arr * 23 + r + INPUT_B;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 8, 18, "constant_expressions_compute_in_c_types");
}

/// `__func__` (and GNU's `__FUNCTION__`, `__PRETTY_FUNCTION__`) is the
/// name of the function it is in, a string.
#[test]
fn func_is_the_function_name() {
    let src = r#"
int named(void) { return sizeof(__func__) * 100 + __FUNCTION__[1]; }
int mpc_main(int INPUT_A, int INPUT_B)
{
    return named() * 1000 + sizeof __func__ + __PRETTY_FUNCTION__[4] + INPUT_A - INPUT_B;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 4, 19, "func_is_the_function_name");
}

/// A block-scope `extern` names the file-scope object even where a local
/// of an enclosing block hides it, a loop over it included (a function
/// the loop calls may change it).
#[test]
fn block_externs_name_the_global_past_hiding_locals() {
    let src = r#"
int g = 3;
int i;
void bump(void) { i += 2; }
int mpc_main(int INPUT_A, int INPUT_B)
{
    int r = 0, i = 100, g = 50;
    {
        extern int i;
        for (i = 0; i < 10; i++) {
            r += i;
            bump();
        }
        r += i * 1000;
    }
    {
        int g = 7;
        {
            extern int g;
            r += g * 10;
        }
        r += g;
    }
    return r + i * 100000 + g * 1000000 + INPUT_A - INPUT_B;
}
"#;
    let p = compiled(src);
    agree_with_gcc(
        src,
        &[&p],
        4,
        20,
        "block_externs_name_the_global_past_hiding_locals",
    );
}

/// GNU's range designators (`[lo ... hi] = x`) initialize every element
/// of the range, in arrays of scalars, structs and arrays, and inside
/// designator chains (`[1 ... 3].y`); later items override them, and an
/// undesignated item goes on after the range's end.
#[test]
fn range_designators() {
    let src = r#"
struct P { int x, y; };
static int table[10] = { [0 ... 4] = 1, [5 ... 9] = 2, [3] = 7 };
int mpc_main(int INPUT_A, int INPUT_B)
{
    int a[6] = { [1 ... 3] = INPUT_A, 9 };
    struct P ps[4] = { [0 ... 2] = { 5, 6 }, [1 ... 3].y = 8 };
    int m[3][3] = { [0 ... 2][1 ... 2] = 4 };
    char s[] = { [0 ... 3] = 'a' };
    int r = 0;
    for (int i = 0; i < 10; i++) r = r * 3 + table[i];
    for (int i = 0; i < 6; i++) r += a[i] * (i + 1);
    for (int i = 0; i < 4; i++) r += ps[i].x * 10 + ps[i].y * 100;
    for (int i = 0; i < 9; i++) r += m[i / 3][i % 3] * i;
    return r + (int)sizeof s * 1000 + s[3] + INPUT_B;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 4, 21, "range_designators");
    assert_eq!(
        error_of("int mpc_main(int INPUT_A, int INPUT_B) { int a[4] = { [2 ... 1] = 1 }; return a[0] + INPUT_A; }\n"),
        "prog.c:1:62: error: range designator is empty (its end is below its start)"
    );
    assert_eq!(
        error_of("int mpc_main(int INPUT_A, int INPUT_B) { int a[4] = { [0 ... 3] = INPUT_A++ }; return a[0]; }\n"),
        "prog.c:1:56: error: a range designator's initializer has side effects (not supported: gcc has them happen once)"
    );
}

/// The comma operator's result is a value: an array operand becomes a
/// pointer to its first element, so `sizeof(0, a)` is a pointer's size.
#[test]
fn comma_results_decay_arrays() {
    let src = r#"
int mpc_main(int INPUT_A, int INPUT_B)
{
    int arr[3] = { INPUT_A, 2, 3 };
    char cs[5];
    return (int)sizeof(0, arr) * 100 + (int)sizeof(INPUT_B, cs) * 10 + (0, arr)[0] + INPUT_B;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 4, 22, "comma_results_decay_arrays");
}
