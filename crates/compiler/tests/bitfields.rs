//! Bit-fields, each in a small program compared with gcc on random inputs
//! (with loops kept and with every loop unrolled): values reduced to their
//! width as gcc stores them, promotions to `int`, and gcc's x86-64 layout.
//! Before bit-fields were supported each of these was "bit-fields are not
//! supported".

mod common;

use common::{agree_kept_and_unrolled, error_of};

/// [`agree_kept_and_unrolled`], with this file's seed.
fn agree(name: &str, src: &str) {
    agree_kept_and_unrolled(name, src, 9);
}

/// Unsigned, signed, `_Bool` and `char`-typed bit-fields written from
/// secret values (assignments, compound assignments, `++`, initializers)
/// and read back: the low bits, sign-extended in a signed one, promoted
/// to `int` (`s.x - 5` is negative), an unsigned one of 32 bits to
/// `unsigned int`.
#[test]
fn values_reduced_to_their_width() {
    let src = r#"
struct B {
    unsigned x : 3;
    int y : 5;
    _Bool b : 1;
    int : 4;
    unsigned char c : 2;
    signed char e : 7;
    int one : 1;
    unsigned u : 32;
};
typedef struct { int r[12]; } Out;
Out mpc_main(int INPUT_A, int INPUT_B)
{
    Out o;
    struct B s = { INPUT_A, INPUT_B, INPUT_A, INPUT_B };
    o.r[0] = s.x - 5;
    o.r[1] = s.y;
    o.r[2] = s.b * 10 + s.c;
    s.x = INPUT_B;
    s.y += INPUT_A;
    s.b = INPUT_B & 4;
    s.c = INPUT_A >> 2;
    s.e = INPUT_A * 3;
    s.one = INPUT_B;
    s.u = INPUT_B;
    o.r[3] = s.x + s.y * 7 + s.b * 11 + s.c * 13 + s.e;
    o.r[4] = s.one;
    o.r[5] = s.u + 1 > 0;
    o.r[6] = (s.y = INPUT_A);
    o.r[7] = s.x++;
    o.r[8] = ++s.x;
    o.r[9] = --s.y;
    o.r[10] = s.x * 100 + s.y;
    o.r[11] = (s.x - 8 < 0) + (s.y < -3) * 2 + (s.u > 7) * 4;
    return o;
}
"#;
    agree("bitfield_values", src);
}

/// `sizeof`, `offsetof` and `_Alignof` of structs with bit-fields as gcc
/// lays them out on x86-64: packed into units of the declared type, a
/// field that would cross one moving to the next, `: 0` moving to the
/// next unit, unnamed fields not aligning the struct; the members after
/// them written and read.
#[test]
fn layout_as_gcc() {
    let src = r#"
#include <stddef.h>
struct A { char a; int b : 4; int : 0; char c; long d : 3; };
struct B { char a; int : 0; char b; };
struct C { short a : 9; short b : 9; char c; };
struct D { char a; int : 4; };
struct E { int a : 1; int : 0; };
struct F { unsigned char a : 7; unsigned char b : 2; unsigned char c : 7; short s; };
struct G { int a : 31; int b : 2; char z[3]; };
typedef struct { int sizes[7]; int offs[6]; int aligns; int after; } Out;
Out mpc_main(int INPUT_A, int INPUT_B)
{
    Out o;
    o.sizes[0] = sizeof(struct A);
    o.sizes[1] = sizeof(struct B);
    o.sizes[2] = sizeof(struct C);
    o.sizes[3] = sizeof(struct D);
    o.sizes[4] = sizeof(struct E);
    o.sizes[5] = sizeof(struct F);
    o.sizes[6] = sizeof(struct G);
    o.offs[0] = offsetof(struct A, c);
    o.offs[1] = offsetof(struct B, b);
    o.offs[2] = offsetof(struct C, c);
    o.offs[3] = offsetof(struct F, s);
    o.offs[4] = offsetof(struct G, z);
    o.offs[5] = offsetof(struct G, z[2]);
    o.aligns = _Alignof(struct A) * 100 + _Alignof(struct B) * 10 + _Alignof(struct D);
    struct F f = { INPUT_A, INPUT_B, INPUT_A >> 3, INPUT_B };
    struct G g;
    g.a = INPUT_A;
    g.b = INPUT_B;
    g.z[2] = INPUT_A;
    o.after = f.a + f.b * 3 + f.c * 5 + f.s + g.a + g.b + g.z[2];
    return o;
}
"#;
    agree("bitfield_layout", src);
}

/// Structs with bit-fields in arrays (a public loop counter, a secret
/// index), copied, passed and returned, written under secret conditions,
/// and initialized positionally (unnamed fields skipped) and by
/// designators.
#[test]
fn bit_fields_in_arrays_values_and_secret_conditions() {
    let src = r#"
struct P { unsigned tag : 2; int : 3; int v : 11; _Bool on : 1; };
struct P make(int v) { struct P p = { .v = v, .tag = 3 }; return p; }
int weigh(struct P p) { return p.tag * 1000 + p.v + p.on; }
typedef struct { int r[6]; } Out;
Out mpc_main(int INPUT_A, int INPUT_B)
{
    Out o;
    struct P ps[6];
    for (int k = 0; k < 6; k++) {
        ps[k].tag = k;
        ps[k].v = INPUT_A * (k + 1) - INPUT_B;
        ps[k].on = (INPUT_B >> k) & 1;
    }
    int s = 0;
    for (int k = 0; k < 6; k++)
        s += weigh(ps[k]);
    o.r[0] = s;
    o.r[1] = weigh(ps[INPUT_B & 3]);
    ps[INPUT_A & 3].v = INPUT_B;
    o.r[2] = ps[0].v + ps[1].v * 3 + ps[2].v * 5 + ps[3].v * 7;
    struct P q = make(INPUT_A);
    if (INPUT_A > INPUT_B)
        q.v = INPUT_B * 3;
    if (INPUT_B & 1)
        q = ps[5];
    o.r[3] = weigh(q);
    struct P init = { 5, INPUT_B, 1 };
    o.r[4] = init.tag * 100000 + init.v * 10 + init.on;
    for (int k = 0; k < 4; k++)
        if ((INPUT_A >> k) & 1)
            ps[k].tag += 3;
    o.r[5] = ps[0].tag + ps[1].tag * 4 + ps[2].tag * 16 + ps[3].tag * 64;
    return o;
}
"#;
    agree("bitfield_arrays", src);
}

/// Bit-fields in unions: a register's fields over its raw word and its
/// bytes (an anonymous struct of bit-fields), bit-fields as union members
/// themselves, in arrays at public and secret indices, under secret
/// conditions, designated initializers; `sizeof` as gcc's.
#[test]
fn bit_fields_in_unions() {
    let src = r#"
#include <stdint.h>
union R {
    uint32_t raw;
    struct { unsigned lo : 4; unsigned mid : 12; int hi : 13; _Bool f : 1; };
    uint8_t b[4];
};
union X { unsigned x : 3; signed char c; int y : 7; };
struct T { int tag; union R r; };
typedef struct { int r[8]; } Out;
Out mpc_main(int INPUT_A, int INPUT_B)
{
    Out o;
    union R r;
    r.raw = INPUT_A;
    o.r[0] = r.lo + r.mid * 3 + r.hi * 5 + r.f;
    r.mid = INPUT_B;
    r.hi = INPUT_A >> 3;
    o.r[1] = r.raw;
    r.f = 1;
    r.lo = INPUT_B >> 4;
    o.r[2] = r.b[0] + r.b[3] * 7;
    union X x;
    x.c = INPUT_B;
    o.r[3] = x.x + x.y * 3;
    x.x = INPUT_A;
    o.r[3] = o.r[3] * 31 + x.c;
    union R arr[4];
    for (int i = 0; i < 4; i++)
        arr[i].raw = INPUT_A * (i + 1);
    arr[INPUT_B & 3].mid = 77;
    if (INPUT_A > INPUT_B)
        arr[1].hi = -5;
    int s = 0;
    for (int i = 0; i < 4; i++)
        s = s * 3 + arr[i].raw + arr[i].hi;
    o.r[4] = s + arr[INPUT_A & 3].hi;
    union R init = { .mid = INPUT_B };
    o.r[5] = init.raw;
    o.r[6] = sizeof(union X) * 100 + sizeof(union R);
    struct T t;
    t.tag = 1;
    t.r = r;
    t.r.lo = 3;
    o.r[7] = t.r.raw;
    return o;
}
"#;
    agree("bitfield_unions", src);
}

/// What C forbids and what is refused, with a clear message.
#[test]
fn refused_bit_field_uses() {
    let with = |decl: &str, body: &str| {
        format!("struct S {{ {decl} }};\nint mpc_main(int INPUT_A, int INPUT_B)\n{{\n    struct S s = {{ 0 }};\n    {body}\n}}\n")
    };
    let cases = [
        (
            with("int x : 3;", "int *p = &s.x; return *p;"),
            "prog.c:5:14: error: taking the address of bit-field 'x'",
        ),
        (
            with("int x : 3;", "return sizeof(s.x);"),
            "prog.c:5:12: error: 'sizeof' of bit-field 'x'",
        ),
        (
            with("int x : 3;", "return __builtin_offsetof(struct S, x);"),
            "prog.c:5:41: error: offsetof of bit-field 'x'",
        ),
        (
            with("char x : 9;", "return s.x;"),
            "prog.c:1:21: error: the width of bit-field 'x' (9) is not within its type (char)",
        ),
        (
            with("int x : 0;", "return s.x;"),
            "prog.c:1:20: error: bit-field 'x' has width 0",
        ),
        (
            with("long x : 40;", "return s.x;"),
            "prog.c:1:21: error: bit-field 'x' is wider than 32 bits, which is not supported",
        ),
        (
            with("float x : 3;", "return s.x;"),
            "prog.c:1:20: error: bit-field 'x' has type float, which is not an integer type",
        ),
        (
            with("int x : INPUT_A;", "return s.x;"),
            "prog.c:1:20: error: the width of bit-field 'x' is not a constant",
        ),
    ];
    for (src, want) in cases {
        assert_eq!(error_of(&src), want, "{src}");
    }
    assert_eq!(
        error_of("struct S { int x : 3; };\nint mpc_main(struct S INPUT_A, int INPUT_B)\n{\n    return INPUT_A.x;\n}\n"),
        "prog.c:2:14: error: input 'INPUT_A' has type struct S, which holds a bit-field: bit-fields cannot be inputs or outputs (use a struct without bit-fields)"
    );
}

/// A struct that begins with an unnamed bit-field (padding before its
/// first member) is set and copied whole through `memset` and `memcpy`,
/// also as elements of an array.
#[test]
fn leading_padding_through_bytes() {
    agree(
        "leading",
        r#"
#include <string.h>
#include <stdint.h>
struct S { unsigned : 2; unsigned f : 4; unsigned g : 7; };
int mpc_main(int INPUT_A, int INPUT_B)
{
    struct S s, t, arr[3];
    memset(&s, 0, sizeof s);
    s.f = INPUT_A;
    s.g = INPUT_B;
    memcpy(&t, &s, sizeof s);
    memset(arr, 0, sizeof arr);
    memcpy(&arr[1], &t, sizeof t);
    arr[2].g = INPUT_A + INPUT_B;
    uint32_t w[3];
    memcpy(w, arr, sizeof arr);
    return t.f + 16 * t.g + arr[1].f * 3 + arr[1].g * 5 + (int)(w[1] ^ w[2]);
}
"#,
    );
}

/// Bit-fields that fill their units exactly are still bit-fields to
/// `memset` (the fill cut to each field's width) and to a pointer of the
/// unit's type, read and written through C's bytes.
#[test]
fn full_units_through_bytes_and_pointers() {
    agree(
        "full_units",
        r#"
#include <string.h>
struct F { unsigned a : 16; unsigned c : 16; int d; };
struct G { unsigned short a : 5, c : 11; short d; };
struct T { unsigned a : 3; unsigned b : 13; };
int mpc_main(int INPUT_A, int INPUT_B)
{
    struct F f;
    struct G g;
    memset(&f, INPUT_A, sizeof f);
    memset(&g, INPUT_B, sizeof g);
    struct T t;
    memset(&t, 0, sizeof t);
    t.a = INPUT_A;
    t.b = INPUT_B;
    unsigned before = *(unsigned *)&t;
    unsigned *p = (unsigned *)&t;
    *p = (unsigned)INPUT_A * 1000u;
    return (int)(f.a + f.c * 3u + (unsigned)f.d + g.a * 5u + g.c * 7u + (unsigned)g.d + before
        + t.a * 100000u + t.b);
}
"#,
    );
}
