//! Unions, each in a small program compared with gcc on random inputs
//! (with loops kept and with every loop unrolled): a member written and
//! another read reinterprets the bytes, as gcc does on x86-64. Before
//! unions were supported each of these was "unions are not supported".

mod common;

use common::{agree_kept_and_unrolled, error_of};

/// [`agree_kept_and_unrolled`], with this file's seed.
fn agree(name: &str, src: &str) {
    agree_kept_and_unrolled(name, src, 5);
}

/// A secret float's IEEE bits through `union { float f; uint32_t u; }`,
/// and back: bits edited as an integer, read as a float; a double's
/// halves; a `_Bool` member.
#[test]
fn floats_and_their_bits() {
    let src = r#"
#include <stdint.h>
union FU { float f; uint32_t u; int32_t i; };
union DU { double d; uint32_t w[2]; uint64_t q; };
union BU { _Bool b; unsigned char c; };
typedef struct { uint32_t bits; float neg; uint32_t hi, lo; int sign; float half; int b; } Out;
Out mpc_main(float INPUT_A, double INPUT_B)
{
    Out o;
    union FU x;
    x.f = INPUT_A;
    o.bits = x.u;
    x.u ^= 0x80000000u;
    o.neg = x.f;
    union DU d;
    d.d = INPUT_B;
    o.hi = d.w[1];
    o.lo = d.w[0];
    o.sign = d.q >> 63;
    union FU h = { .u = 0x3f000000u };
    o.half = h.f * INPUT_A;
    union BU b;
    b.c = 0;
    b.b = INPUT_A > 1.0f;
    o.b = b.c;
    return o;
}
"#;
    agree("union_floats", src);
}

/// Bytes and halves of integers: `union { uint64_t q; uint8_t b[8];
/// uint16_t h[4]; }` read and written at public loop counters and at
/// secret indices, little-endian.
#[test]
fn bytes_of_integers() {
    let src = r#"
#include <stdint.h>
union W { uint32_t w; uint8_t b[4]; };
union Q { uint64_t q; uint8_t b[8]; uint16_t h[4]; int32_t i[2]; };
typedef struct { uint32_t sum; uint64_t q; uint32_t w; int hi; uint8_t pick; uint16_t half; } Out;
Out mpc_main(uint64_t INPUT_A, uint32_t INPUT_B)
{
    Out o;
    union Q u;
    u.q = INPUT_A;
    uint32_t s = 0;
    for (int k = 0; k < 8; k++)
        s = s * 31 + u.b[k];
    for (int k = 0; k < 4; k++)
        u.h[k] ^= (uint16_t)(INPUT_B >> k);
    o.sum = s;
    o.q = u.q;
    union W w = { INPUT_B };
    w.b[INPUT_B & 3] = 0xAB;
    o.w = w.w;
    o.hi = u.i[1];
    o.pick = u.b[INPUT_B % 8];
    u.h[(INPUT_B >> 8) & 3] = 0x1234;
    o.half = u.h[1] ^ (uint16_t)u.q;
    return o;
}
"#;
    agree("union_bytes", src);
}

/// A union of a struct with padding and a byte array: every byte the
/// struct's members define, read through the array; bytes written and the
/// members read back. `sizeof` and `offsetof` as gcc lays them out.
#[test]
fn struct_with_padding_over_bytes() {
    let src = r#"
#include <stdint.h>
#include <stddef.h>
struct R { char a; int b; short c; double d; _Bool e; };
union P { struct R r; uint8_t raw[sizeof(struct R)]; };
typedef struct { uint8_t bytes[19]; int b; short c; double d; int sizes; } Out;
Out mpc_main(int INPUT_A, double INPUT_B)
{
    Out o;
    union P p;
    p.r.a = INPUT_A;
    p.r.b = INPUT_A * 3;
    p.r.c = INPUT_A >> 3;
    p.r.d = INPUT_B;
    p.r.e = INPUT_A & 1;
    int at[19] = { 0, 4, 5, 6, 7, 8, 9, 16, 17, 18, 19, 20, 21, 22, 23, 24, 2, 3, 1 };
    for (int k = 0; k < 16; k++)
        o.bytes[k] = p.raw[at[k]];
    o.bytes[16] = o.bytes[17] = o.bytes[18] = 0;
    p.raw[4] = 0x7f;
    p.raw[9] = (uint8_t)INPUT_A;
    p.raw[23] ^= 0x80;
    o.b = p.r.b;
    o.c = p.r.c;
    o.d = p.r.d;
    o.sizes = sizeof(union P) * 1000 + offsetof(union P, r.d) * 10 + _Alignof(union P);
    return o;
}
"#;
    agree("union_padding", src);
}

/// Anonymous unions (and a struct inside one) as struct members: their
/// members are the struct's, `sizeof` and `offsetof` as gcc's; a tagged
/// value switched on its tag.
#[test]
fn anonymous_unions_in_structs() {
    let src = r#"
#include <stdint.h>
#include <stddef.h>
struct V {
    int tag;
    union {
        int i;
        float f;
        struct { uint16_t lo, hi; };
        uint8_t b[6];
    };
    char c;
};
int value(struct V v)
{
    switch (v.tag) {
    case 0: return v.i;
    case 1: return (int)v.f;
    default: return v.lo - v.hi + v.b[5];
    }
}
typedef struct { int r[4]; int sizes; } Out;
Out mpc_main(int INPUT_A, int INPUT_B)
{
    Out o;
    struct V v;
    v.tag = INPUT_B & 1;
    v.c = 9;
    v.b[4] = 0;
    v.b[5] = 0;
    if (v.tag)
        v.f = INPUT_A * 0.25f;
    else
        v.i = INPUT_A;
    o.r[0] = value(v);
    v.tag = 2;
    v.hi = INPUT_B;
    v.b[5] = 7;
    o.r[1] = value(v);
    o.r[2] = v.i + v.c;
    struct V w = { 1, { .f = 2.5f }, 3 };
    o.r[3] = value(w) + w.c;
    o.sizes = sizeof(struct V) * 100 + offsetof(struct V, c) * 10 + offsetof(struct V, hi);
    return o;
}
"#;
    agree("union_anonymous", src);
}

/// Unions as parameters, return values and copies; pointers to unions
/// and `->`; a union inside a struct inside a union; initializers (the
/// first member, designated members, in arrays with elided braces).
#[test]
fn unions_as_values_and_through_pointers() {
    let src = r#"
#include <stdint.h>
typedef union { float f; uint32_t u; } FU;
struct In { int k; FU v; };
union Outer { struct In in; uint32_t words[2]; };
FU make(uint32_t u) { FU r; r.u = u; return r; }
uint32_t twice(FU x) { x.u *= 2; return x.u; }
void bump(FU *p, int by) { p->u += by; }
typedef struct { uint32_t r[8]; } Out;
Out mpc_main(uint32_t INPUT_A, uint32_t INPUT_B)
{
    Out o;
    FU a = make(INPUT_A);
    FU b = a;
    bump(&b, INPUT_B);
    o.r[0] = twice(a) + b.u;
    FU *p = &a;
    p->f = (float)INPUT_B;
    o.r[1] = a.u;
    union Outer x;
    x.in.k = INPUT_A;
    x.in.v = b;
    o.r[2] = x.words[0] ^ x.words[1];
    x.words[1] = INPUT_B;
    o.r[3] = x.in.v.u;
    FU init = { 1.0f };
    FU des = { .u = INPUT_A };
    o.r[4] = init.u + des.u;
    FU arr[3] = { 2.0f, { .u = 5 }, [2].u = INPUT_B };
    o.r[5] = arr[0].u + arr[1].u + arr[2].u;
    union Outer y = { { 7, { .u = INPUT_B } } };
    o.r[6] = y.words[0] + y.words[1];
    o.r[7] = make(INPUT_B).f > 1.0f;
    return o;
}
"#;
    agree("union_values", src);
}

/// Arrays of unions indexed by a public loop counter and by a secret
/// index (read and written), and a member written under a secret
/// condition; a whole union assigned under one.
#[test]
fn arrays_of_unions_and_secret_conditions() {
    let src = r#"
#include <stdint.h>
union E { int32_t i; float f; uint8_t b[4]; };
typedef struct { int32_t r[6]; } Out;
Out mpc_main(int32_t INPUT_A, int32_t INPUT_B)
{
    Out o;
    union E e[8];
    for (int k = 0; k < 8; k++)
        e[k].i = INPUT_A + k * INPUT_B;
    for (int k = 0; k < 8; k++)
        e[k].b[k & 3] ^= 0x5a;
    int s = 0;
    for (int k = 0; k < 8; k++)
        s += e[k].b[(k + 1) & 3];
    o.r[0] = s;
    o.r[1] = e[INPUT_B & 7].i;
    e[INPUT_A & 7].f = 1.5f;
    o.r[2] = e[(INPUT_A + 1) & 7].b[INPUT_B & 3] + e[INPUT_A & 7].i;
    union E u;
    u.i = INPUT_A;
    if (INPUT_B > 0)
        u.i = INPUT_B;
    if (INPUT_A < INPUT_B)
        u.b[1] = 0;
    o.r[3] = u.i;
    union E v = { 0 };
    if (INPUT_A > INPUT_B)
        v = u;
    else
        v = e[3];
    o.r[4] = v.i;
    for (int k = 0; k < 4; k++)
        if (INPUT_A & (1 << k))
            v.b[k] = k;
    o.r[5] = v.i;
    return o;
}
"#;
    agree("union_arrays", src);
}

/// `memcpy` and `memset` between objects of different layouts (and over
/// parts of values, and over bit-fields) go through C's layout of the
/// bytes: a float's bits, words from a byte buffer at any offset, a
/// struct's defined bytes. Each was "between objects of different layouts
/// is not supported" or "the size does not cover whole values".
#[test]
fn memcpy_between_layouts() {
    let src = r#"
#include <stdint.h>
#include <string.h>
struct S { char a; int b; short c; };
struct BF { unsigned x : 3; int y : 5; unsigned char z; };
typedef struct { uint32_t r[12]; } Out;
Out mpc_main(int32_t INPUT_A, int32_t INPUT_B)
{
    Out o;
    float f = (float)INPUT_A / 7.0f;
    memcpy(&o.r[0], &f, sizeof f);
    uint8_t buf[8];
    memcpy(buf, &INPUT_A, 4);
    memcpy(buf + 4, &INPUT_B, 4);
    memcpy(&o.r[1], buf + 2, 4);
    uint16_t h[3];
    memcpy(h, buf + 1, 6);
    o.r[2] = h[0] + h[2] * 3;
    double d = INPUT_B * 0.5;
    uint64_t q;
    memcpy(&q, &d, 8);
    o.r[3] = q >> 29;
    struct S s = { INPUT_A, INPUT_B, INPUT_A - INPUT_B };
    uint8_t raw[sizeof s];
    memcpy(raw, &s, sizeof s);
    o.r[4] = raw[0] + raw[4] * 3 + raw[5] + raw[7] * 5 + raw[8] + raw[9] * 7;
    struct S t;
    memcpy(&t, raw, sizeof t);
    o.r[5] = t.a + t.b + t.c;
    struct BF bf;
    memset(&bf, 0xff, sizeof bf);
    o.r[6] = bf.x + bf.y * 3 + bf.z;
    memcpy(&bf, buf + 3, 2);
    o.r[7] = bf.x * 5 + bf.y * 7 + bf.z;
    memcpy(buf, &bf, 2);
    o.r[8] = buf[0] + buf[1] * 256;
    int32_t x = INPUT_A;
    memset(&x, 0, 2);
    o.r[9] = x;
    memmove(buf + 1, buf, 6);
    memcpy(&o.r[10], buf + 1, 4);
    float g;
    memcpy(&g, &o.r[1], 4);
    o.r[11] = g > 0;
    return o;
}
"#;
    agree("memcpy_layouts", src);
}

/// A scalar read and written through a pointer of another type at a
/// public position views the memory's bytes in C's layout, as gcc does
/// (without strict aliasing): `*(uint32_t *)&f`, a byte of an `int`, a
/// `float` over an `int` (also at a secret index, and moved: a leaf of
/// the same width), a `double` over two `float`s. Each was "type punning
/// is not supported".
#[test]
fn scalar_views_through_pointers() {
    let src = r#"
#include <stdint.h>
struct S { char a; int b; };
typedef struct { int32_t r[10]; } Out;
Out mpc_main(int32_t INPUT_A, int32_t INPUT_B)
{
    Out o;
    float f = (float)INPUT_A * 0.75f;
    uint32_t bits = *(uint32_t *)&f;
    *(uint32_t *)&f = bits ^ 0x80000000u;
    o.r[0] = bits;
    o.r[1] = (int)f;
    o.r[2] = *(uint8_t *)&INPUT_B;
    int32_t x = INPUT_A;
    *(uint8_t *)&x = 0x7f;
    *((uint16_t *)&x) ^= 0x1234;
    o.r[3] = x;
    struct S s = { 1, INPUT_B };
    o.r[4] = *(uint16_t *)&s.b;
    double d = INPUT_B;
    o.r[5] = *(uint64_t *)&d >> 40;
    float *fp = (float *)&x;
    *fp += 1.0f;
    o.r[6] = x;
    if (INPUT_A > INPUT_B)
        *(int16_t *)&s.b = -3;
    o.r[7] = s.b;
    float g[2] = { INPUT_A * 0.5f, INPUT_B * 0.25f };
    double dg = *(double *)g;
    o.r[8] = dg > 0;
    int32_t ai[2] = { INPUT_A, INPUT_B };
    float *fa = (float *)ai;
    fa[1] = 1.5f;
    o.r[9] = ai[1] + ((float *)ai)[INPUT_B & 1] * 2.0f;
    return o;
}
"#;
    agree("scalar_views", src);
}

/// Unions and views of bytes in loops over arrays (kept as loops by
/// default): byte views of words at the loop counter, union members
/// written at it, under secret conditions.
#[test]
fn unions_and_views_in_loops() {
    let src = r#"
#include <stdint.h>
typedef union { uint32_t w; uint8_t b[4]; float f; } U;
int mpc_main(int INPUT_A, int INPUT_B)
{
    uint32_t arr[16];
    U us[16];
    for (int i = 0; i < 16; i++) {
        arr[i] = INPUT_A * (i + 3) + INPUT_B;
        us[i].w = arr[i] ^ INPUT_B;
    }
    int s = 0;
    for (int i = 0; i < 16; i++)
        s += *(uint8_t *)&arr[i];
    for (int i = 0; i < 16; i++)
        *(uint16_t *)&arr[i] = (uint16_t)(i * INPUT_B);
    for (int i = 0; i < 16; i++)
        s = s * 3 + arr[i];
    for (int i = 0; i < 16; i++) {
        us[i].b[i & 3] = i;
        s += us[i].w;
    }
    for (int i = 0; i < 16; i++) {
        if (us[i].b[0] > 100)
            us[i].f = 2.0f;
        s ^= us[i].w;
    }
    for (int i = 0; i < 16; i++)
        s += *(int8_t *)&us[i].w;
    return s;
}
"#;
    agree("union_loops", src);
}

/// A union of an anonymous struct (holding an anonymous union and a
/// bit-field), bytes and a word, in an array in a struct: initialized by
/// designators, written at public and secret indices, selected by a
/// secret condition, passed down a recursion.
#[test]
fn nested_unions_in_arrays_in_structs() {
    let src = r#"
#include <stdint.h>
typedef union {
    struct { union { int32_t i; float f; }; char c; uint16_t h : 9; };
    uint8_t raw[12];
    uint64_t q;
} N;
struct Box { int n; N items[3]; };
int64_t walk(N x, int d)
{
    if (d == 0)
        return x.q;
    x.i += d;
    return walk(x, d - 1) + x.c;
}
int mpc_main(int INPUT_A, int INPUT_B)
{
    struct Box b = { 3, { { .i = INPUT_A }, { .raw = { 1, 2, 3, 4, 5 } }, { .q = (uint64_t)INPUT_B << 20 } } };
    int64_t r = 0;
    for (int k = 0; k < 3; k++) {
        b.items[k].c = k * INPUT_A;
        b.items[k].h = INPUT_B + k;
    }
    b.items[INPUT_A & 1].f = (float)INPUT_B * 0.5f;
    b.items[((unsigned)INPUT_B >> 1) % 3].raw[INPUT_A & 7] ^= 0x55;
    for (int k = 0; k < 3; k++)
        r = r * 7 + b.items[k].q + b.items[k].raw[8] + b.items[k].h;
    N m = INPUT_A < INPUT_B ? b.items[0] : b.items[2];
    r += m.i + walk(b.items[1], 3);
    return (int)(r ^ (r >> 32));
}
"#;
    agree("union_nested", src);
}

/// Views once refused: a `double` over two `int`s at a secret position
/// ("type punning is not supported"), and a byte of an `int` through an
/// `unsigned char *` ("byte-level pointer arithmetic is not supported"):
/// both read the bytes, as gcc does.
#[test]
fn views_once_refused() {
    agree(
        "double_over_ints",
        "#include <string.h>\nint mpc_main(int INPUT_A, int INPUT_B)\n{\n    int a[4] = { INPUT_A, INPUT_B };\n    double *p = (double *)&a[INPUT_A & 1];\n    double d = *p;\n    long long bits;\n    memcpy(&bits, &d, 8);\n    return (int)(bits >> 21);\n}\n",
    );
    agree(
        "byte_of_an_int",
        "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    unsigned char *p = (unsigned char *)&INPUT_A;\n    return p[1];\n}\n",
    );
}

/// What is refused, with a clear message: pointers in unions, unions as
/// inputs and outputs, a pointer of another layout into a union's bytes,
/// a tag used as the other kind.
#[test]
fn refused_union_uses() {
    let main = "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    return INPUT_A;\n}\n";
    assert_eq!(
        error_of(&format!("union U {{ int a; int *p; }};\n{main}")),
        "prog.c:1:23: error: union member 'p' holds a pointer (pointers in unions are not supported)"
    );
    assert_eq!(
        error_of("union U { int a; float f; };\nint mpc_main(union U INPUT_A, int INPUT_B)\n{\n    return INPUT_B;\n}\n"),
        "prog.c:2:14: error: input 'INPUT_A' has type union U, which holds a union: unions cannot be inputs or outputs (use a member's type)"
    );
    assert_eq!(
        error_of("union U { int a; float f; };\nunion U mpc_main(int INPUT_A, int INPUT_B)\n{\n    union U u = { INPUT_A };\n    return u;\n}\n"),
        "prog.c:2:9: error: the entry function's result has type union U, which holds a union: unions cannot be inputs or outputs (use a member's type)"
    );
    assert_eq!(
        error_of("struct S { union { int a; float f; }; };\nvoid mpc_main(int INPUT_A, int INPUT_B)\n{\n    struct S OUTPUT_s;\n    OUTPUT_s.a = INPUT_A;\n}\n"),
        "prog.c:4:14: error: output 'OUTPUT_s' has type struct S, which holds a union: unions cannot be inputs or outputs (use a member's type)"
    );
    assert_eq!(
        error_of("int mpc_main(int INPUT_A, int INPUT_B)\n{\n    int x = 0;\n    int *p = &x;\n    char b[8];\n    __builtin_memcpy(b, &p, 8);\n    return b[0];\n}\n"),
        "prog.c:6:5: error: 'memcpy' of a pointer into memory of another layout is not supported"
    );
    assert_eq!(
        error_of(&format!("union U {{ int a; }};\nstruct U *p;\n{main}")),
        "prog.c:2:1: error: 'U' is a union tag, used here as a struct"
    );
    // Padding written as bytes is not kept: reading it back is refused
    // (gcc gives the bytes written: 171 here, not 0).
    assert_eq!(
        error_of("#include <string.h>\nstruct P { char c; int i; };\nint mpc_main(int INPUT_A, int INPUT_B)\n{\n    struct P p;\n    unsigned char b[8];\n    memset(&p, INPUT_A, sizeof p);\n    memcpy(b, &p, sizeof p);\n    return b[1];\n}\n"),
        "prog.c:8:5: error: 'memcpy' reads padding of struct P that was written as bytes: twofold keeps no padding (copy the members instead)"
    );
    assert_eq!(
        error_of("#include <string.h>\nstruct B { unsigned a : 4; };\nint mpc_main(int INPUT_A, int INPUT_B)\n{\n    struct B s;\n    unsigned r;\n    memcpy(&s, &INPUT_A, 4);\n    memcpy(&r, &s, 4);\n    return r;\n}\n"),
        "prog.c:8:5: error: 'memcpy' reads padding of struct B that was written as bytes: twofold keeps no padding (copy the members instead)"
    );
}

/// Padding as 0, as `memset(.., 0, ..)` leaves it, copied to and from
/// bytes, with bit-fields too.
#[test]
fn zeroed_padding_through_bytes() {
    agree(
        "padding",
        r#"
#include <string.h>
#include <stdint.h>
struct P { char c; int i; };
struct BF { unsigned a : 4; unsigned b : 9; };
int mpc_main(int INPUT_A, int INPUT_B)
{
    struct P p;
    unsigned char b[8];
    memset(&p, 0, sizeof p);
    p.c = INPUT_A;
    p.i = INPUT_B;
    memcpy(b, &p, sizeof p);
    struct P q;
    memcpy(&q, b, sizeof q);
    struct BF s;
    memset(&s, 0, sizeof s);
    s.a = INPUT_A;
    s.b = INPUT_B;
    uint32_t r;
    memcpy(&r, &s, 4);
    return b[0] + b[1] * 3 + b[4] * 7 + b[5] * 11 + q.i + q.c + (int)r;
}
"#,
    );
}

/// Designators into one member of a union, one after another (found by a
/// differential scan): each initialized the whole member again, so only
/// the last one's value stayed (`{ .kind = 1, .w = a, .h = b }` over an
/// anonymous struct in an anonymous union gave `w = 0`). A designator into
/// the member written last keeps what the others wrote; one into another
/// member starts that member from zeros (C11 6.7.9p19, as gcc has it).
#[test]
fn designators_into_one_member_of_a_union_add_up() {
    let src = r#"
#include <stdint.h>
struct shape { int kind; union { struct { int w, h; }; int r; }; int z; };
struct q { int k; union { struct { int w, h; } s; int r; } u; };
union U { uint32_t u; uint8_t b[4]; };
union V { struct { int16_t a, b; } s; int32_t x; };
typedef struct { int v[12]; } Out;
Out mpc_main(int16_t INPUT_A, int16_t INPUT_B)
{
    Out o;
    struct shape s1 = { .kind = 1, .w = INPUT_A, .h = INPUT_B };
    struct q s2 = { .u.s.w = INPUT_A, .u.s.h = INPUT_B };
    struct q s3 = { 7, .u = { .s = { .w = INPUT_B } }, .u.s.h = INPUT_A };
    union U x = { .b[1] = INPUT_A, .b[2] = INPUT_B };
    union V y = { .s.a = INPUT_A, .x = INPUT_B };
    union V z = { .x = INPUT_A * 65536 + 9, .s.b = INPUT_B };
    o.v[0] = s1.w; o.v[1] = s1.h; o.v[2] = s1.kind;
    o.v[3] = s2.u.s.w; o.v[4] = s2.u.s.h;
    o.v[5] = s3.u.s.w; o.v[6] = s3.u.s.h; o.v[7] = s3.k;
    o.v[8] = (int)x.u;
    o.v[9] = y.s.b; o.v[10] = z.s.a; o.v[11] = z.s.b;
    return o;
}
"#;
    agree("union_designators", src);
}
