//! Language features, each in a small program compared with gcc on random
//! inputs: pointers, structs, memcpy/memset, switch, break and continue,
//! recursion, secret 2-D indices, initializers, the preprocessor (loops
//! with secret exits: `secret_exits.rs`).

mod common;

use common::{agree_with_gcc, circuit_lines, run};
use twofold_compiler::{compile, CompileOptions};

fn agree(name: &str, src: &str, opts: &CompileOptions) {
    let p = compile(src, &format!("{name}.c"), opts).unwrap_or_else(|e| panic!("{e}"));
    agree_with_gcc(src, &[&p], 16, 7, name);
}

fn default() -> CompileOptions {
    CompileOptions::default()
}

#[test]
fn pointers_structs_and_calls() {
    let src = r#"
#include <stdint.h>
typedef struct { char tag; int32_t v[6]; int16_t w; } Rec;
typedef struct { int32_t sum; int32_t best; int16_t w; uint8_t idx; } Out;

static void add_all(int32_t *p, int n, int32_t k) { for (int i = 0; i < n; i++) p[i] += k; }
static int32_t sum(const int32_t *p, int n) { int32_t s = 0; while (n-- > 0) s += *p++; return s; }
static void bump(Rec *r) { r->w = r->w * 3 + r->tag; }
static int32_t *pick(int32_t *a, int i) { return &a[i]; }

Out mpc_main(Rec INPUT_A, Rec INPUT_B)
{
    Out o;
    Rec c = INPUT_A;
    add_all(c.v + 1, 4, INPUT_B.v[0]);
    bump(&c);
    *pick(c.v, 5) ^= INPUT_B.v[5];
    o.sum = sum(c.v, 6) + sum(&INPUT_B.v[2], 3);
    o.best = c.v[0];
    o.idx = 0;
    for (uint8_t i = 1; i < 6; i++)
        if (c.v[i] > o.best) { o.best = c.v[i]; o.idx = i; }
    o.w = c.w;
    return o;
}
"#;
    agree("pointers", src, &default());
}

/// Inputs declared as arrays of the entry function (C adjusts them to
/// pointers): the inputs are the arrays, the parameters point into them.
#[test]
fn array_parameters_of_the_entry_function() {
    let src = r#"
#include <stdint.h>
typedef struct { int32_t dot; int32_t corner; int16_t tail; uint32_t size; } Out;

static int32_t dot(const int16_t *a, const int16_t *b, int n)
{
    int32_t s = 0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

Out mpc_main(int16_t INPUT_A[6], int16_t INPUT_B[2][3])
{
    Out o;
    o.dot = dot(INPUT_A, INPUT_B[0], 3) - dot(INPUT_A + 3, &INPUT_B[1][0], 3);
    INPUT_A[5] += INPUT_B[1][2];
    o.corner = INPUT_B[1][2] * *(INPUT_A + 1);
    o.tail = INPUT_A[5];
    o.size = sizeof INPUT_A * 100 + sizeof INPUT_B[0];
    return o;
}
"#;
    agree("array_parameters", src, &default());
    let typedefd = r#"
#include <stdint.h>
typedef uint8_t Key[4];
uint8_t mpc_main(Key INPUT_A, Key INPUT_B)
{
    uint8_t x = 0;
    for (int i = 0; i < 4; i++) x ^= INPUT_A[i] + INPUT_B[3 - i];
    return x;
}
"#;
    agree("typedef_array_parameters", typedefd, &default());
}

/// `int (*p)[4]`: a pointer to arrays of 4 (rows of a matrix), as a
/// parameter, a local, in a cast and under `sizeof`.
#[test]
fn pointers_to_arrays() {
    let src = r#"
#include <stdint.h>
typedef struct { int32_t m[3][4]; } M;

static int32_t trace(int32_t (*m)[4], int n)
{
    int32_t s = 0;
    for (int i = 0; i < n; i++) s += m[i][i];
    return s;
}

int32_t mpc_main(M INPUT_A, M INPUT_B)
{
    int32_t (*row)[4] = INPUT_A.m;
    int32_t (*p)[4] = &INPUT_B.m[1];
    int32_t s = trace(row, 3) + (*p)[2] - p[1][3];
    s += (int32_t)(sizeof(int32_t (*)[4]) * 10 + sizeof *p);
    row++;
    (*row)[1] ^= s;
    return s * 1000 + row[0][1] + trace((int32_t (*)[4])&INPUT_B.m[0][1], 2);
}
"#;
    agree("pointers_to_arrays", src, &default());
}

/// `(T){ ... }` makes an unnamed object: a value, an argument, an array
/// that decays, an lvalue whose address is taken, with designators, and
/// in loop bodies (which are then unrolled, not regions).
#[test]
fn compound_literals() {
    let src = r#"
#include <stdint.h>
typedef struct { int16_t x, y; } P;
typedef struct { P p[3]; uint8_t n; int32_t t[4]; int32_t acc; } S;

static int32_t norm1(P p) { return (p.x < 0 ? -p.x : p.x) + (p.y < 0 ? -p.y : p.y); }
static int32_t sum(const int32_t *a, int n) { int32_t s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }

S mpc_main(P INPUT_A, P INPUT_B)
{
    S s = { .p = { [2] = { .y = 5 }, [0] = INPUT_A }, .n = 3, .t = { 1, [3] = 9 } };
    s.p[1] = (P){ INPUT_B.y, INPUT_B.x };
    P q = (P){ .x = 7 };
    s.t[2] = q.x + q.y + norm1((P){ (int16_t)(INPUT_A.x - INPUT_B.x), 3 });
    s.t[1] = sum((int32_t[]){ INPUT_A.x, INPUT_B.y, 5 }, 3) + (int32_t[3]){ 1, 2, INPUT_A.y }[2];
    P *pp = &(P){ 1, 2 };
    pp->x += INPUT_B.x;
    s.n = (uint8_t)(pp->x + (P){ 4, 5 }.y);
    s.acc = 0;
    for (int i = 0; i < 4; i++)
        s.acc += norm1((P){ (int16_t)(INPUT_A.x + i), INPUT_B.y });
    int32_t d[3];
    for (int i = 0; i < 3; i++)
        d[i] = (P){ s.p[i].y, s.p[i].x }.x * 2;
    s.t[0] = d[0] - d[1] + d[2];
    return s;
}
"#;
    agree("compound_literals", src, &default());
}

/// String literals are arrays of `char`: initializers of `char` arrays
/// (joined when adjacent, NUL-padded, sized from the string), values that
/// decay to pointers, under `sizeof` and indexed; `_Static_assert` at file
/// and block scope.
#[test]
fn string_literals_and_static_assertions() {
    let src = r#"
#include <stdint.h>
#include <string.h>
_Static_assert(sizeof(int32_t) == 4, "int32_t has 32 bits");

static int32_t hash(const char *s) { int32_t h = 0; while (*s) h = h * 31 + *s++; return h; }

typedef struct { int32_t a; int32_t b; int32_t c; uint8_t u[4]; int32_t n; } O;

O mpc_main(int32_t INPUT_A, int32_t INPUT_B)
{
    _Static_assert(sizeof(long) == 8, "long has 64 bits");
    O o;
    char s[] = "hello";
    char t[8] = "ab" "cd";
    _Static_assert(sizeof s == 6 && sizeof t == 8, "sized from the string, or as declared");
    unsigned char u[4] = "\xff\x01z";
    o.a = 0;
    for (int i = 0; i < 5; i++) o.a = o.a * 31 + s[i];
    o.a ^= INPUT_A;
    o.b = hash(t) + hash("wor" "ld") * INPUT_B + (int32_t)sizeof("xyz") + (int32_t)sizeof s * 100;
    o.c = "abcdef"[INPUT_A & 3] + t[7] + t[4];
    memcpy(o.u, u, 4);
    o.n = t[5] == 0;
    return o;
}
"#;
    agree("strings", src, &default());
}

/// Pointers chosen by secret conditions within one object (an argmax by
/// pointer, the best two of an array of structs, one of two arrays in a
/// struct): read, written, subtracted and compared.
#[test]
fn pointers_chosen_by_secret_conditions() {
    let src = r#"
#include <stdint.h>
#include <stddef.h>
typedef struct { int32_t a[8]; } V;
typedef struct { int16_t k; int32_t v; } E;
typedef struct { E e[5]; int32_t x[4]; int32_t y[4]; } T;
typedef struct { int32_t max; int32_t at; int32_t order; int32_t sum; int32_t xy; } O;

static int32_t *find_max(int32_t *b, int32_t *e)
{
    int32_t *m = b;
    for (int32_t *p = b + 1; p < e; p++)
        if (*p > *m) m = p;
    return m;
}

O mpc_main(V INPUT_A, T INPUT_B)
{
    O o;
    int32_t c[8];
    for (int i = 0; i < 8; i++) c[i] = INPUT_A.a[i] ^ INPUT_B.x[i & 3];
    int32_t *m = find_max(c, c + 8);
    ptrdiff_t at = m - c;
    int32_t *q = &c[3];
    o.max = *m;
    *m = -*m;
    o.at = (int32_t)at + (int32_t)(q - m) * 100;
    o.order = (q > m) + (q == m) * 2 + (q <= m) * 4;
    T t = INPUT_B;
    E *best = &t.e[0], *second = &t.e[1];
    for (int i = 1; i < 5; i++) {
        E *x = &t.e[i];
        if (x->k > best->k) { second = best; best = x; }
        else if (x->k > second->k) second = x;
    }
    best->v += c[0];
    int32_t *pv = INPUT_A.a[1] > 0 ? &best->v : &second->v;
    *pv ^= 0x55;
    o.sum = (int32_t)(best - t.e) * 10 + (int32_t)(second - t.e);
    for (int i = 0; i < 5; i++) o.sum = o.sum * 3 + t.e[i].v + t.e[i].k;
    int32_t *row = INPUT_A.a[2] > 0 ? t.x : t.y;
    row[1] += 7;
    o.xy = t.x[1] * 1000 + t.y[1];
    return o;
}
"#;
    agree("secret_pointers", src, &default());
}

/// The preprocessor's conditionals, line splices, `#undef` and
/// statement-like macros, against gcc; the predefined macros (`__LINE__`
/// is where the compiled file has it, so not against gcc's harness, which
/// adds lines before it).
#[test]
fn preprocessor_and_predefined_macros() {
    let src = r#"
#include <stdint.h>
#ifndef GUARD
#define GUARD
#define SWAP(a, b) do { int32_t _t = (a); (a) = (b); (b) = _t; } while (0)
#define SUM3(x, y, z) \
    ((x) + \
     (y) + (z))
#endif
#define TMP 5
#undef TMP
#define TMP 7
#if defined(GUARD) && TMP == 7 && __STDC__ && __STDC_VERSION__ >= 201112L
#define OK 1
#elif TMP > 10
#define OK 2
#else
#define OK 3
#endif
int32_t mpc_main(int32_t INPUT_A, int32_t INPUT_B)
{
    int32_t a = INPUT_A, b = INPUT_B;
    if (a > b) SWAP(a, b);
    return SUM3(a, b * 2, OK) + TMP;
}
"#;
    agree("preprocessor", src, &default());
    let lines = "int mpc_main(int INPUT_A, int INPUT_B)\n{\n\n    return __LINE__ * 100 + INPUT_A + INPUT_B;\n}\n";
    let p = compile(lines, "lines.c", &default()).unwrap_or_else(|e| panic!("{e}"));
    let r = run(
        &p,
        &[
            ("INPUT_A".into(), "5".into()),
            ("INPUT_B".into(), "1".into()),
        ],
    );
    assert_eq!(circuit_lines(&p, &r), ["406"]);
}

#[test]
fn memcpy_memset_and_layout() {
    let src = r#"
#include <stdint.h>
#include <string.h>
typedef struct { char c; int32_t a[4]; uint8_t b[3]; } S;
typedef struct { S s; uint32_t size; int32_t m[4]; } Out;

Out mpc_main(S INPUT_A, S INPUT_B)
{
    Out o;
    memset(&o, 0, sizeof o);
    memcpy(&o.s, &INPUT_A, sizeof(S));
    memcpy(o.s.a + 1, INPUT_B.a, 2 * sizeof(int32_t));
    memset(o.s.b, 0x5a, 2);
    memset(o.m, 0xff, sizeof o.m);
    o.m[2] = o.s.a[3] + INPUT_B.c;
    o.size = sizeof(S) * 100 + sizeof o.s.b;
    return o;
}
"#;
    agree("memcpy", src, &default());
}

#[test]
fn switch_do_while_break_continue() {
    let src = r#"
typedef struct { int x; int y; unsigned char k[5]; } In;
int mpc_main(In INPUT_A, In INPUT_B)
{
    int acc = 0;
    for (int i = 0; i < 5; i++) {
        unsigned char k = INPUT_A.k[i] ^ INPUT_B.k[i];
        switch (k & 7) {
        case 0: acc += 1;
        case 1: acc += 10; break;
        case 4: continue;
        case 5: if (INPUT_A.x > INPUT_B.y) break; acc -= 7;
        default: acc ^= k;
        }
        if (acc > 100 + INPUT_B.x % 50) break;
        acc *= 2;
    }
    int n = 0;
    do { acc -= 3; n++; } while (n < 4 && acc > INPUT_A.y);
    return acc + n;
}
"#;
    // `n` changes after a secret exit, but stays public on the paths
    // still running: no --unwind is needed.
    agree("switch", src, &default());
}

#[test]
fn recursion_and_secret_returns() {
    let src = r#"
#include <stdlib.h>
static int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
static int clamp(int x, int lo, int hi) { if (x < lo) return lo; if (x > hi) return hi; return x; }
static int collatz(unsigned x, int depth) {
    if (depth == 0 || x <= 1) return 0;
    if (x % 2 == 0) return 1 + collatz(x / 2, depth - 1);
    return 1 + collatz(3 * x + 1, depth - 1);
}
int mpc_main(int INPUT_A, int INPUT_B)
{
    return clamp(INPUT_A, -1000, 1000) * fact(6) + collatz(INPUT_B & 63, 12) + abs(INPUT_A % 77) + (int)llabs(INPUT_B * -3LL);
}
"#;
    agree("recursion", src, &default());
}

#[test]
fn secret_indices_2d() {
    let src = r#"
#include <stdint.h>
typedef struct { uint8_t i, j; int16_t v; } In;
typedef struct { int16_t m[3][5]; int16_t r; } Out;
Out mpc_main(In INPUT_A, In INPUT_B)
{
    Out o;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 5; c++)
            o.m[r][c] = r * 10 + c;
    int i = INPUT_A.i % 3, j = INPUT_B.j % 5;
    o.m[i][j] += INPUT_A.v;
    o.m[INPUT_B.i % 3][INPUT_A.j % 5] -= INPUT_B.v;
    int16_t *row = o.m[(i + 1) % 3];
    row[j] = row[(j + 2) % 5] * 2;
    o.r = o.m[j % 3][i];
    return o;
}
"#;
    agree("index2d", src, &default());
}

#[test]
fn initializers_enums_bools_and_macros() {
    let src = r#"
#include <stdbool.h>
#include <limits.h>
#define SQ(x) ((x) * (x))
#define CAT(a, b) a##b
#if defined(SQ) && CHAR_BIT == 8
#define FACTOR 3
#else
#define FACTOR 5
#endif
enum color { RED, GREEN = 5, BLUE };
typedef struct { int x, y; } Pt;
static const Pt corners[] = { {1, 2}, [2] = {.y = 7, .x = -3} };
static const int table[2][3] = { 1, 2, 3, 4, 5, 6 };
typedef struct { int a; bool b; signed char c; long long d; } Out;
Out mpc_main(int INPUT_A, unsigned INPUT_B)
{
    int CAT(va, lue) = SQ(INPUT_A % 100) * FACTOR;
    bool flag = INPUT_B;
    char s[] = { 'a', '\n', '\x7f', 0 };
    Out o = { value + corners[2].x + corners[1].y + BLUE, flag, s[2] + (char)INPUT_B };
    o.d = (long long)INPUT_A * INT_MAX + table[1][INPUT_B % 3 == 1] + sizeof s;
    return o;
}
"#;
    agree("initializers", src, &default());
}

#[test]
fn short_circuit_side_effects_and_ternaries() {
    let src = r#"
typedef struct { int a, b, c; } Out;
Out mpc_main(int INPUT_A, int INPUT_B)
{
    Out o = {0, 0, 0};
    int n = 0;
    if (INPUT_A > 0 && (n += 2) > 1) o.a = 1;
    if (INPUT_B > 0 || (n += 5)) o.b = n;
    o.c = INPUT_A < INPUT_B ? (n++, INPUT_A) : (n--, INPUT_B);
    o.a += n;
    o.b += (unsigned)INPUT_A < 5u ? -1 : 1;
    return o;
}
"#;
    agree("shortcircuit", src, &default());
}

#[test]
fn cbmc_gc_locals_convention() {
    let src = r#"
void main(void)
{
    int INPUT_A_a[4];
    int INPUT_B_b;
    int OUTPUT_max = INT_MIN_GUARD;
    int OUTPUT_count;
    for (int i = 0; i < 4; i++) {
        if (INPUT_A_a[i] > OUTPUT_max) OUTPUT_max = INPUT_A_a[i];
        if (INPUT_A_a[i] > INPUT_B_b) OUTPUT_count++;
    }
}
"#;
    let src = src.replace("INT_MIN_GUARD", "(-2147483647 - 1)");
    let p = compile(&src, "locals.c", &default()).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = p.inputs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["INPUT_A_a", "INPUT_B_b"]);
    let outs: Vec<&str> = p.outputs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(outs, ["OUTPUT_max", "OUTPUT_count"]);
    assert_eq!(p.program.main.inputs[0].party, twofold_compiler::Party::A);
    assert_eq!(p.program.main.inputs[1].party, twofold_compiler::Party::B);
    let r = run(
        &p,
        &[
            ("INPUT_A_a".into(), "{3, -9, 12, 5}".into()),
            ("INPUT_B_b".into(), "4".into()),
        ],
    );
    assert_eq!(circuit_lines(&p, &r), ["12", "2"]);
}

#[test]
fn values_round_trip() {
    let src = "typedef struct { char c; short s[2]; _Bool b; unsigned long long u; } T;\nT mpc_main(T INPUT_A, int INPUT_B) { return INPUT_A; }\n";
    let p = compile(src, "t.c", &default()).expect("compiles");
    let t = &p.inputs[0].1;
    assert_eq!(t.width(), 8 + 32 + 1 + 64);
    let bits = t
        .parse_value("{'a', {-3, 0x7fff}, 1, 18446744073709551615}")
        .expect("parses");
    assert_eq!(
        t.format_value(&bits),
        "{97, {-3, 32767}, 1, 18446744073709551615}"
    );
    let bits = t
        .parse_value("{.s = {[1] = 5}, .c = -1}")
        .expect("designators");
    assert_eq!(t.format_value(&bits), "{-1, {0, 5}, 0, 0}");
    assert_eq!(t.json_value(&bits).to_json_string(), "[-1,[0,5],0,0]");
    let flat = t.parse_value("{1, 2, 3, 0, 4}").expect("brace elision");
    assert_eq!(t.format_value(&flat), "{1, {2, 3}, 0, 4}");
    assert!(t.parse_value("{1, {2, 3}, 0, 4, 5}").is_err());
    assert!(t.parse_value("{300}").is_err());
    let e = t.parse_value("{1, {2, x}}").expect_err("bad number");
    assert_eq!(e.to_string(), "<value>:1:9: error: invalid number 'x'");
    // The token as given: it was lowercased and cut at '_' or '.'
    // ('int', 'nope', 'input'), or empty before a parenthesis.
    for (value, token) in [
        ("{1, {2, INT_MAX}}", "'INT_MAX'"),
        ("{1, {2, Nope}}", "'Nope'"),
        ("INPUT_B.s=3", "'INPUT_B.s'"),
        ("(1)", "'(1)'"),
    ] {
        let e = t.parse_value(value).expect_err(value).to_string();
        assert!(e.ends_with(&format!("invalid number {token}")), "{e}");
    }
    let e = t.parse_value("{1, -}").expect_err("no number").to_string();
    assert!(e.ends_with("expected a number"), "{e}");
    // C's nested designators: not supported, and said so.
    for value in ["{.s[1] = 5}", "{.s.x = 5}", "{[1][0] = 5}"] {
        let e = t.parse_value(value).expect_err(value).to_string();
        assert!(e.contains("nested designators are not supported"), "{e}");
    }
    let out = p
        .program
        .eval(&[
            t.parse_value("{1, {2, 3}, 1, 4}").expect("ok"),
            p.inputs[1].1.parse_value("0").expect("ok"),
        ])
        .expect("eval");
    assert_eq!(p.outputs[0].1.format_value(&out[0]), "{1, {2, 3}, 1, 4}");
}

#[test]
fn counting_is_cheap() {
    // Accumulating single bits costs about one AND gate per bit, whether
    // written as `+=` or as a conditional increment.
    for body in [
        "d += INPUT_A.b[i] != INPUT_B.b[i];",
        "if (INPUT_A.b[i] != INPUT_B.b[i]) d++;",
    ] {
        let src = format!(
            "typedef struct {{ _Bool b[1000]; }} B;\nint mpc_main(B INPUT_A, B INPUT_B)\n{{\n    int d = 0;\n    for (int i = 0; i < 1000; i++)\n        {body}\n    return d;\n}}\n"
        );
        let p = compile(&src, "count.c", &default()).expect("compiles");
        assert!(
            p.program.and_count() < 1030,
            "{body}: {} AND gates",
            p.program.and_count()
        );
        agree("count", &src, &default());
    }
}

#[test]
fn value_ranges_narrow_dynamic_programs() {
    // Edit distance with `int` cells: the cells' ranges keep them as narrow
    // as with byte cells.
    let src = |t: &str| {
        format!(
            "#define LEN 20\ntypedef struct {{ unsigned char s[LEN]; }} S;\ntypedef {t} d_t;\nint mpc_main(S INPUT_A, S INPUT_B)\n{{\n    d_t prev[LEN + 1], cur[LEN + 1];\n    for (int j = 0; j <= LEN; j++) prev[j] = j;\n    for (int i = 1; i <= LEN; i++) {{\n        cur[0] = i;\n        for (int j = 1; j <= LEN; j++) {{\n            d_t a = prev[j] + 1, b = cur[j - 1] + 1;\n            d_t c = prev[j - 1] + ((INPUT_A.s[i - 1] & 3) != (INPUT_B.s[j - 1] & 3));\n            d_t m = a < b ? a : b;\n            cur[j] = c < m ? c : m;\n        }}\n        for (int j = 0; j <= LEN; j++) prev[j] = cur[j];\n    }}\n    return prev[LEN];\n}}\n"
        )
    };
    let wide = src("int");
    let narrow = src("unsigned char");
    let pw = compile(&wide, "lev_int.c", &default()).expect("compiles");
    let pn = compile(&narrow, "lev_u8.c", &default()).expect("compiles");
    assert!(
        pw.program.and_count() * 10 <= pn.program.and_count() * 11,
        "int cells: {} AND gates, byte cells: {}",
        pw.program.and_count(),
        pn.program.and_count()
    );
    agree("lev_int", &wide, &default());
    agree("lev_u8", &narrow, &default());
}

/// A value whose range is signed (`-2..=1`, `-32768..=32767`) chosen
/// against one whose bits read as a large unsigned number keeps its
/// negative values: the two ranges read the same bits in different windows
/// (found by the random mixed programs: the lesser came out as 1, the
/// widened choice as 0x7fffffff), unrolled and in a kept loop.
#[test]
fn ranges_read_in_signed_and_unsigned_windows_meet_soundly() {
    let lesser = r#"
#include <stdint.h>
int32_t mpc_main(int32_t INPUT_A[4], int32_t INPUT_B[4])
{
    int32_t s = 0;
    for (int i = 0; i < 4; i++) {
        int32_t b = INPUT_B[i] >> 30;
        int32_t p = INPUT_A[i] & 0x7fff0000;
        s += p < b ? p : b;
    }
    return s;
}
"#;
    let widened = r#"
#include <stdint.h>
int64_t mpc_main(int16_t INPUT_A[4], int32_t INPUT_B[4])
{
    int64_t s = 0;
    for (int i = 0; i < 4; i++) {
        uint32_t t = (INPUT_B[i] > 0) ? 0x40000000u : INPUT_A[i];
        s += (int64_t)t;
    }
    return s;
}
"#;
    let a = [-1i64, 5, 0x7fff_ffff, -0x8000_0000];
    let b = [-1i64, 0x4000_0000, 0, -7];
    let lesser_of = |x: i64, y: i64| ((x as i32) & 0x7fff_0000).min((y as i32) >> 30);
    let want_lesser = (0..4).fold(0i32, |s, i| s.wrapping_add(lesser_of(a[i], b[i])));
    let a16 = [-1i64, 7, -32768, 300];
    let widen = |x: i64, y: i64| {
        if (y as i32) > 0 {
            0x4000_0000u32 as i64
        } else {
            (x as i16) as i32 as u32 as i64
        }
    };
    let want_widened: i64 = (0..4).map(|i| widen(a16[i], b[i])).sum();
    let list = |v: &[i64]| {
        format!(
            "{{{}}}",
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(",")
        )
    };
    for opts in [
        default(),
        CompileOptions {
            loops: false,
            ..default()
        },
    ] {
        for (src, inputs, want) in [
            (lesser, (list(&a), list(&b)), want_lesser as i64),
            (widened, (list(&a16), list(&b)), want_widened),
        ] {
            let p = compile(src, "windows.c", &opts).expect("compiles");
            let given = [
                ("INPUT_A".to_string(), inputs.0),
                ("INPUT_B".to_string(), inputs.1),
            ];
            let out = common::output_scalars(&p, &run(&p, &given));
            assert_eq!(
                out,
                [common::modw(
                    want as i128,
                    if src == lesser { 32 } else { 64 }
                )]
            );
        }
    }
    agree("windows_lesser", lesser, &default());
    agree("windows_widened", widened, &default());
}

#[test]
fn the_greater_or_lesser_of_two_values_keeps_their_ranges() {
    // The lesser of a in [0, 15] and b in [100, 107] is in [0, 15] (4
    // bits, not the 7 of both ranges together); the greater of c in
    // [-100, 5] and d in [0, 10] is in [0, 10] (no sign); each written
    // either way round; and values whose bits read as unsigned wrap
    // (ordered as the comparison orders them).
    let src = r#"
#include <stdint.h>
int mpc_main(uint8_t INPUT_A, uint8_t INPUT_B)
{
    int a = INPUT_A & 15, b = (INPUT_B & 7) + 100;
    int c = (INPUT_A >> 1) - 100, d = INPUT_B % 11;
    int n = b >= a ? a : b;
    int m = c > d ? c : d;
    unsigned ua = INPUT_A - 3u, ub = INPUT_B;
    unsigned um = ua > ub ? ua : ub;
    unsigned un = ub < ua ? ub : ua;
    return n * n * n + m * m * m + (int)(um >> 24) + (int)(un & 255);
}
"#;
    let p = compile(src, "extremes.c", &default()).expect("compiles");
    // Written so that the choice is not seen as the greater or lesser.
    let plain = src
        .replace("b >= a ? a : b", "b >= a ? a : b + 0")
        .replace("c > d ? c : d", "c > d ? c : d + 0");
    let q = compile(&plain, "extremes_plain.c", &default()).expect("compiles");
    assert!(
        p.program.and_count() < q.program.and_count(),
        "{} AND gates with the ranges of the greater and the lesser, {} without",
        p.program.and_count(),
        q.program.and_count()
    );
    agree("extremes", src, &default());
    agree("extremes_plain", &plain, &default());
}

#[test]
fn vlas_globals_and_arrays_of_structs() {
    let src = r#"
#include <stdint.h>
typedef struct { int16_t x, y; } Pt;
typedef struct { Pt p[6]; uint8_t k; } In;
static int calls;
static int total[3] = {1, 2, 3};

static int norm1(const Pt *p) { calls++; return (p->x < 0 ? -p->x : p->x) + (p->y < 0 ? -p->y : p->y); }

static int sum_first(const Pt *pts, int n)
{
    int d[n];
    for (int i = 0; i < n; i++) d[i] = norm1(&pts[i]);
    int s = 0;
    for (int i = 0; i < n; i++) s += d[i];
    return s;
}

int mpc_main(In INPUT_A, In INPUT_B)
{
    const int n = 4;
    Pt *q = &INPUT_B.p[INPUT_A.k % 6];
    q->x += INPUT_A.p[0].y;
    total[INPUT_B.k % 3] += q->x;
    return sum_first(INPUT_A.p, n) * 7 + sum_first(INPUT_B.p, 6) + total[0] - total[2] + calls;
}
"#;
    agree("vla", src, &default());
}

/// `memset` over `float` and `double` leaves writes the bytes into their
/// IEEE bits, as over integers; it was refused as "over pointers".
#[test]
fn memset_over_floating_values() {
    let src = r#"
#include <string.h>
typedef struct { double d; float f[2]; int k; } S;
S mpc_main(int INPUT_A, int INPUT_B)
{
    S s;
    double z[2];
    z[1] = 7;
    memset(z, 0, sizeof z);
    s.d = INPUT_A + z[0] + z[1];
    s.f[0] = 1;
    s.f[1] = 2;
    s.k = 3;
    memset(&s.f[1], INPUT_B & 0x3f, sizeof(float) + sizeof(int));
    if (INPUT_A & 1)
        memset(&s, 0x3f, sizeof(double));
    return s;
}
"#;
    agree("memset_floats", src, &default());
}

/// `i[a]` is `a[i]`, and GNU `c ?: b` is `c ? c : b` with `c` evaluated
/// once (both were errors).
#[test]
fn reversed_subscripts_and_gnu_conditionals() {
    let src = r#"
typedef struct { int s[4]; } Out;
Out mpc_main(int INPUT_A, int INPUT_B)
{
    Out o;
    int a[4] = { INPUT_A, INPUT_B, 3, 4 };
    int k = 2;
    o.s[0] = 1[a] + k[a] * (INPUT_A & 3)[a];
    o.s[1] = INPUT_A ?: INPUT_B;
    o.s[2] = (INPUT_A & 1) ?: a[3] ?: 7;
    o.s[3] = (unsigned char)INPUT_B ?: -1;
    return o;
}
"#;
    agree("gnu_forms", src, &default());
}

/// `true` and `false` in an input value are 1 and 0, as <stdbool.h>
/// defines them (they were refused as `invalid number 'true'`).
#[test]
fn input_values_take_true_and_false() {
    let src = "#include <stdbool.h>\ntypedef struct { bool f[3]; int n; } T;\nint mpc_main(T INPUT_A, bool INPUT_B) { return INPUT_A.n + INPUT_B; }\n";
    let p = compile(src, "t.c", &default()).expect("compiles");
    let t = &p.inputs[0].1;
    let bits = t
        .parse_value("{{true, false, true}, 5}")
        .expect("true and false");
    assert_eq!(t.format_value(&bits), "{{1, 0, 1}, 5}");
    let e = t
        .parse_value("{{True, 0, 0}, 5}")
        .expect_err("C's spelling only");
    assert!(e.to_string().contains("invalid number 'True'"), "{e}");
}
