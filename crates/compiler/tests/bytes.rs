//! Byte-level access to wider objects through `char` pointers (as gcc
//! does on x86-64, little-endian), and `__int128`, compared with gcc.

mod common;

use common::{agree_kept_and_unrolled, agree_with_gcc, agree_with_gcc_on, compiled, error_of};

/// The bytes of a scalar read and written through an `unsigned char *`,
/// at public offsets and by pointer arithmetic.
#[test]
fn bytes_of_a_scalar() {
    let src = r#"
#include <stdint.h>
uint32_t mpc_main(uint32_t INPUT_A, uint32_t INPUT_B)
{
    uint32_t v = INPUT_A ^ INPUT_B;
    unsigned char *p = (unsigned char *)&v;
    uint32_t s = 0;
    for (int i = 0; i < 4; i++)
        s = s * 131 + p[i];
    p[1] = (unsigned char)(INPUT_A >> 5);
    *(p + 3) += 7;
    unsigned char *q = p + 4;
    s += (uint32_t)(q - p) * 1000;
    s += (p < q) + (p + 2 == q - 2) * 10;
    signed char *sp = (signed char *)&v;
    int t = sp[2] + sp[3];
    return s ^ v ^ (uint32_t)t;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 16, 1, "bytes_of_a_scalar");
}

/// The bytes of arrays of `uint32_t`, `uint16_t` and `int64_t`, read and
/// written through byte pointers walking them, and the arrays read back.
#[test]
fn bytes_of_arrays() {
    let src = r#"
#include <stdint.h>
typedef struct { uint32_t w[4]; uint16_t h[3]; int64_t l[2]; } In;
uint64_t mpc_main(In INPUT_A, In INPUT_B)
{
    uint32_t w[4];
    uint16_t h[3];
    int64_t l[2];
    for (int i = 0; i < 4; i++) w[i] = INPUT_A.w[i] ^ INPUT_B.w[i];
    for (int i = 0; i < 3; i++) h[i] = INPUT_A.h[i] + INPUT_B.h[i];
    for (int i = 0; i < 2; i++) l[i] = INPUT_A.l[i] - INPUT_B.l[i];
    uint64_t s = 0;
    const unsigned char *p = (const unsigned char *)w;
    for (int i = 0; i < (int)sizeof w; i++)
        s = s * 31 + p[i];
    uint8_t *q = (uint8_t *)h;
    for (uint8_t *e = q + sizeof h; q < e; q += 2)
        q[1] ^= q[0];
    signed char *r = (signed char *)&l[1];
    r[7] = (signed char)INPUT_A.h[0];
    r[0] = -3;
    char *c = (char *)l;
    s += c[3] + c[12];
    unsigned char *last = (unsigned char *)&w[3] + 3;
    *last = 0x5a;
    s += (uint64_t)(last - (unsigned char *)w);
    for (int i = 0; i < 4; i++) s = s * 7 + w[i];
    for (int i = 0; i < 3; i++) s = s * 7 + h[i];
    for (int i = 0; i < 2; i++) s = s * 7 + (uint64_t)l[i];
    return s;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 16, 2, "bytes_of_arrays");
}

/// The bytes of a struct with padding as gcc lays it out (the padding
/// zeroed by `memset` first), read through a byte pointer, and its
/// members written through the bytes.
#[test]
fn bytes_of_a_struct_with_padding() {
    let src = r#"
#include <stddef.h>
#include <stdint.h>
#include <string.h>
struct S { char c; uint32_t x; uint16_t h; uint64_t y; unsigned char t[3]; };
uint32_t mpc_main(uint32_t INPUT_A, uint64_t INPUT_B)
{
    struct S s;
    memset(&s, 0, sizeof s);
    s.c = (char)INPUT_A;
    s.x = INPUT_A * 2654435761u;
    s.h = (uint16_t)INPUT_B;
    s.y = INPUT_B ^ ((uint64_t)INPUT_A << 17);
    s.t[0] = 1; s.t[1] = (unsigned char)(INPUT_B >> 8); s.t[2] = 3;
    const uint8_t *b = (const uint8_t *)&s;
    uint32_t sum = 0;
    for (size_t i = 0; i < sizeof s; i++)
        sum = sum * 33 + b[i];
    uint8_t *w = (uint8_t *)&s;
    w[4] = 0x11;
    w[offsetof(struct S, y) + 2] = (uint8_t)INPUT_A;
    w[offsetof(struct S, t) + 1] ^= 0xff;
    return sum + s.x + (uint32_t)s.y + (uint32_t)(s.y >> 32) + s.t[1] + s.c + s.h;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 16, 3, "bytes_of_a_struct_with_padding");
}

/// A secret byte index into a scalar and into an array of wider
/// elements: reads and writes at that byte, and a wider view at a secret
/// byte offset of a byte array.
#[test]
fn secret_byte_index() {
    let src = r#"
#include <stdint.h>
uint32_t mpc_main(uint32_t INPUT_A, uint32_t INPUT_B)
{
    uint64_t v = (uint64_t)INPUT_A * INPUT_B + INPUT_B;
    unsigned char *p = (unsigned char *)&v;
    unsigned i = INPUT_B & 7;
    uint32_t r = p[i];
    p[(INPUT_A >> 3) & 7] = (unsigned char)INPUT_B;
    uint16_t a[4] = { (uint16_t)INPUT_A, (uint16_t)(INPUT_A >> 16), 7, (uint16_t)INPUT_B };
    unsigned char *q = (unsigned char *)a + (INPUT_A & 3);
    r = r * 257 + q[2];
    q[1] += 9;
    unsigned char buf[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
    buf[INPUT_A % 12] = (unsigned char)INPUT_B;
    uint32_t w = *(uint32_t *)(buf + (INPUT_B % 9));
    return r ^ (uint32_t)v ^ (uint32_t)(v >> 32) ^ a[0] ^ ((uint32_t)a[1] << 16) ^ w;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 24, 4, "secret_byte_index");
}

/// `memcpy`, `memmove`, `memset` and `memcmp` between objects of
/// different types, and through byte pointers into them.
#[test]
fn memcpy_between_types() {
    let src = r#"
#include <stdint.h>
#include <string.h>
struct P { uint16_t a; uint32_t b; };
uint32_t mpc_main(uint32_t INPUT_A, uint32_t INPUT_B)
{
    uint32_t v[2] = { INPUT_A, INPUT_B };
    unsigned char buf[8];
    memcpy(buf, v, sizeof buf);
    uint16_t h[4];
    memcpy(h, buf, 8);
    uint64_t whole;
    memmove(&whole, h, sizeof whole);
    unsigned char *p = (unsigned char *)&whole;
    memset(p + 2, 0xAB, 3);
    struct P s = { (uint16_t)INPUT_B, INPUT_A };
    uint32_t t[2] = { 0, 0 };
    memcpy((unsigned char *)t + 1, &s.b, 4);
    int c = memcmp(&v[0], &s.b, 4) == 0;
    int d = memcmp(buf, h, 8);
    int e = memcmp(v, t, 8) < 0;
    return (uint32_t)whole ^ (uint32_t)(whole >> 32) ^ h[1] ^ t[0] ^ t[1] ^ c ^ (d << 1) ^ (e << 2);
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 16, 5, "memcpy_between_types");
}

/// A checksum function taking `const uint8_t *` and a length, called on
/// the bytes of a scalar and of an array of wider elements, and FNV-1a
/// over the bytes of a struct.
#[test]
fn checksum_and_fnv_over_bytes() {
    let src = r#"
#include <stdint.h>
#include <stddef.h>
#include <string.h>
static uint32_t checksum(const uint8_t *data, size_t n)
{
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < n; i++) {
        a = (a + data[i]) % 65521;
        b = (b + a) % 65521;
    }
    return (b << 16) | a;
}
static uint64_t fnv1a(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t h = 14695981039346656037ull;
    while (n--) {
        h ^= *p++;
        h *= 1099511628211ull;
    }
    return h;
}
struct Rec { uint8_t tag; uint32_t id; int16_t delta; };
uint64_t mpc_main(uint32_t INPUT_A, uint32_t INPUT_B)
{
    uint32_t v = INPUT_A ^ INPUT_B;
    uint16_t ws[3] = { (uint16_t)INPUT_A, (uint16_t)INPUT_B, 77 };
    struct Rec r;
    memset(&r, 0, sizeof r);
    r.tag = (uint8_t)(INPUT_A >> 24);
    r.id = INPUT_B;
    r.delta = (int16_t)(INPUT_A - INPUT_B);
    uint64_t h = fnv1a(&r, sizeof r);
    return h ^ checksum((const uint8_t *)&v, sizeof v)
             ^ ((uint64_t)checksum((const unsigned char *)ws, sizeof ws) << 20);
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 12, 6, "checksum_and_fnv_over_bytes");
}

/// Byte access inside loops that could be kept (over the elements of an
/// array of structs, at secret byte positions within each), kept and
/// unrolled alike; a write at a secret byte position that may fall in
/// padding; `strlen` over the bytes of an `int`.
#[test]
fn bytes_in_loops_and_padding() {
    let src = r#"
#include <stdint.h>
#include <string.h>
struct E { uint16_t k; uint32_t v; };
uint32_t mpc_main(uint32_t INPUT_A[6], uint32_t INPUT_B[6])
{
    struct E e[6];
    memset(e, 0, sizeof e);
    for (int i = 0; i < 6; i++) {
        e[i].k = (uint16_t)(INPUT_A[i] >> 3);
        e[i].v = INPUT_A[i] ^ INPUT_B[i];
    }
    uint32_t s = 0;
    for (int i = 0; i < 6; i++) {
        const unsigned char *b = (const unsigned char *)&e[i];
        s = s * 3 + b[0] + b[5] + b[INPUT_B[i] & 7];
    }
    unsigned char *w = (unsigned char *)&e[2];
    w[INPUT_A[0] % 8] = 0x7f;
    for (int i = 0; i < 6; i++) s = s * 5 + e[i].k + e[i].v;
    int r = (int)(INPUT_A[1] & 0xffffff);
    return s + (uint32_t)strlen((char *)&r);
}
"#;
    agree_kept_and_unrolled("bytes_in_loops_and_padding", src, 7);
}

/// What stays refused: pointers read as bytes, a byte pointer whose
/// target object depends on a secret, and 128-bit integers as inputs or
/// outputs (their values cannot be spelled there).
#[test]
fn refusals_that_remain() {
    assert_eq!(
        error_of("__int128 mpc_main(long INPUT_A, long INPUT_B) { return (__int128)INPUT_A * INPUT_B; }"),
        "prog.c:1:10: error: the entry function's result has type __int128, which holds a 128-bit integer: 128-bit integers cannot be inputs or outputs (use two 64-bit halves)"
    );
    assert_eq!(
        error_of("struct P { unsigned __int128 x; };\nlong mpc_main(struct P INPUT_A, long INPUT_B) { return INPUT_B; }"),
        "prog.c:2:15: error: input 'INPUT_A' has type struct P, which holds a 128-bit integer: 128-bit integers cannot be inputs or outputs (use two 64-bit halves)"
    );
    let pointer_bytes = error_of(
        r#"
int mpc_main(int INPUT_A, int INPUT_B)
{
    int x = INPUT_A;
    int *q = &x;
    unsigned char *p = (unsigned char *)&q;
    return p[1] + INPUT_B;
}
"#,
    );
    assert!(
        pointer_bytes.contains("pointers cannot be read or written as bytes"),
        "{pointer_bytes}"
    );
    let secret_target = error_of(
        r#"
int mpc_main(int INPUT_A, int INPUT_B)
{
    int x = INPUT_A, y = INPUT_B;
    unsigned char *p = INPUT_A > INPUT_B ? (unsigned char *)&x : (unsigned char *)&y;
    return p[1];
}
"#,
    );
    assert!(
        secret_target.contains("target object depends on a secret"),
        "{secret_target}"
    );
}

/// Serialising and parsing: wider values written and read through
/// pointers into a byte array at public and secret offsets (unaligned,
/// as x86-64 allows), and a struct read through a pointer into bytes.
#[test]
fn wider_values_over_bytes() {
    let src = r#"
#include <stdint.h>
struct H { uint16_t kind; uint16_t len; uint32_t id; };
uint32_t mpc_main(uint32_t INPUT_A, uint32_t INPUT_B)
{
    unsigned char buf[16] = { 0 };
    *(uint32_t *)(buf + 1) = INPUT_A;
    *(uint16_t *)&buf[6] = (uint16_t)INPUT_B;
    ((uint32_t *)buf)[2] ^= INPUT_B * 3;
    uint64_t *wide = (uint64_t *)(buf + 8);
    *wide += INPUT_A;
    uint32_t r = *(uint32_t *)(buf + (INPUT_B % 13));
    struct H *h = (struct H *)(buf + 4);
    r += h->kind * 3 + h->len * 5 + h->id;
    h->len = (uint16_t)(INPUT_A >> 7);
    const uint32_t *words = (const uint32_t *)buf;
    for (int i = 0; i < 4; i++)
        r = r * 17 + words[i];
    return r;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 16, 8, "wider_values_over_bytes");
}

/// `__int128` and `unsigned __int128` (and `__int128_t`, `__uint128_t`):
/// a 64x64→128 product, + - * / % and shifts, signed and unsigned
/// comparisons, casts to and from narrower types, constants from 64-bit
/// literals, in locals, an array and a struct; the halves printed.
#[test]
fn int128_arithmetic() {
    let src = r#"
#include <stdint.h>
typedef struct { uint64_t v[24]; } Out;
struct W { __int128_t s; __uint128_t u; };
static uint64_t mulhi(uint64_t a, uint64_t b)
{
#ifdef __SIZEOF_INT128__
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
#else
    return 0;
#endif
}
Out mpc_main(uint64_t INPUT_A, uint64_t INPUT_B)
{
    Out o;
    int k = 0;
    o.v[k++] = mulhi(INPUT_A, INPUT_B ^ 0x9e3779b97f4a7c15ull);
    unsigned __int128 a = INPUT_A, b = INPUT_B;
    unsigned __int128 p = (unsigned __int128)INPUT_A * INPUT_B;
    o.v[k++] = (uint64_t)p;
    o.v[k++] = (uint64_t)(p >> 64);
    o.v[k++] = (uint64_t)((a + b) >> 64);
    __int128 s = -(__int128)INPUT_A;
    __int128 m = -1;
    o.v[k++] = (uint64_t)(m >> 64);
    o.v[k++] = (uint64_t)(s >> 64) + (uint64_t)s;
    o.v[k++] = (uint64_t)(p / 3);
    o.v[k++] = (uint64_t)((p / (b | 1)) >> 1);
    o.v[k++] = (uint64_t)(p % (a | 1));
    __int128 q = (__int128)p - ((__int128)INPUT_B << 70);
    o.v[k++] = (uint64_t)(q / -7);
    o.v[k++] = (uint64_t)((q / -7) >> 64);
    o.v[k++] = (uint64_t)(q % 1000003);
    o.v[k++] = (uint64_t)(q >> 100);
    o.v[k++] = (q < 0) + 2 * (p > a) + 4 * (s < (__int128)INPUT_B) + 8 * (q == q + 1);
    o.v[k++] = (uint64_t)(p << (INPUT_A & 63) >> 64);
    o.v[k++] = (uint64_t)(q >> (INPUT_B & 127));
    o.v[k++] = (uint32_t)(p >> 40) + (int8_t)(q >> 3);
    unsigned __int128 arr[3] = { p, a, 0x123456789abcdefULL };
    arr[INPUT_A % 3] += ~(unsigned __int128)0;
    for (int i = 0; i < 3; i++) {
        o.v[k++] = (uint64_t)arr[i] ^ (uint64_t)(arr[i] >> 64);
    }
    struct W w = { q, p * p };
    o.v[k++] = (uint64_t)(w.u >> 64) ^ (uint64_t)w.u;
    o.v[k++] = (uint64_t)(w.s >> 64) ^ (uint64_t)(w.s / 5);
    o.v[k++] = sizeof(__int128) + _Alignof(unsigned __int128) * 100 + sizeof(struct W) * 10000;
    o.v[k++] = (uint64_t)(p % 0xfffffffbu) + (uint64_t)(q % -0x7fffffffffll);
    return o;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 24, 9, "int128_arithmetic");
}

/// A 128-bit accumulator of 64x64-bit products over arrays, in loops
/// kept and unrolled, and the bytes of a 128-bit value.
#[test]
fn int128_in_loops() {
    let src = r#"
#include <stdint.h>
typedef struct { uint64_t lo, hi, b; } Out;
Out mpc_main(uint64_t INPUT_A[8], uint64_t INPUT_B[8])
{
    unsigned __int128 acc = 0;
    for (int i = 0; i < 8; i++)
        acc += (unsigned __int128)INPUT_A[i] * INPUT_B[i];
    __int128 diff = 0;
    for (int i = 0; i < 8; i++)
        diff -= (__int128)(int64_t)INPUT_A[i] * (int64_t)INPUT_B[7 - i];
    const unsigned char *p = (const unsigned char *)&diff;
    uint64_t b = 0;
    for (int i = 0; i < 16; i++)
        b = b * 257 + p[i];
    Out o = { (uint64_t)acc, (uint64_t)(acc >> 64), b ^ (uint64_t)(diff >> 64) };
    return o;
}
"#;
    agree_kept_and_unrolled("int128_in_loops", src, 11);
}

/// `__int128` at the edges: products of the extreme 64-bit values,
/// signed division and remainder of negative values, shifts across the
/// halves, comparisons near the sign bit.
#[test]
fn int128_edge_values() {
    let src = r#"
#include <stdint.h>
typedef struct { uint64_t v[12]; } Out;
Out mpc_main(int64_t INPUT_A, int64_t INPUT_B)
{
    Out o;
    __int128 x = (__int128)INPUT_A * INPUT_B;
    unsigned __int128 u = (unsigned __int128)(uint64_t)INPUT_A * (uint64_t)INPUT_B;
    __int128 d = x / (INPUT_B | 1);
    __int128 r = x % (INPUT_A | 3);
    o.v[0] = (uint64_t)x;
    o.v[1] = (uint64_t)(x >> 64);
    o.v[2] = (uint64_t)(u >> 64);
    o.v[3] = (uint64_t)d ^ (uint64_t)(d >> 64);
    o.v[4] = (uint64_t)r ^ (uint64_t)(r >> 64);
    o.v[5] = (uint64_t)(x >> 127) + (uint64_t)(u >> 127) * 2;
    o.v[6] = (uint64_t)((u << 63) >> 64);
    o.v[7] = (x < 0) + 2 * (x > (__int128)INPUT_A) + 4 * (u >= (unsigned __int128)1 << 126);
    o.v[8] = (uint64_t)(u / ((unsigned __int128)(uint64_t)INPUT_B | 1));
    o.v[9] = (uint64_t)(-x >> 64);
    o.v[10] = (uint64_t)((__int128)(int32_t)INPUT_B << 96 >> 64);
    o.v[11] = (uint64_t)(x + (__int128)0x7fffffffffffffffLL * 2);
    return o;
}
"#;
    let p = compiled(src);
    let edges = [
        "0",
        "1",
        "-1",
        "0x7fffffffffffffff",
        "-9223372036854775808",
        "-7",
        "3037000499",
    ];
    let sets: Vec<Vec<String>> = edges
        .iter()
        .flat_map(|a| {
            edges
                .iter()
                .map(move |b| vec![a.to_string(), b.to_string()])
        })
        .collect();
    agree_with_gcc_on(src, &[&p], &sets, "int128_edge_values");
}

/// `__int128` to and from `double` and `float` (libgcc's conversions:
/// rounded to nearest, truncated toward zero).
#[test]
fn int128_floating_conversions() {
    let src = r#"
#include <stdint.h>
typedef struct { uint64_t v[5]; } Out;
Out mpc_main(int64_t INPUT_A, int64_t INPUT_B)
{
    Out o;
    __int128 x = INPUT_A;
    x *= INPUT_B;
    unsigned __int128 u = (unsigned __int128)(uint64_t)INPUT_A << 60;
    double d = (double)x;
    float f = (float)u;
    uint64_t bits;
    __builtin_memcpy(&bits, &d, 8);
    o.v[0] = bits;
    uint32_t fb;
    __builtin_memcpy(&fb, &f, 4);
    o.v[1] = fb;
    __int128 back = (__int128)(d / 3.0);
    o.v[2] = (uint64_t)back;
    o.v[3] = (uint64_t)(back >> 64);
    o.v[4] = (uint64_t)(unsigned __int128)(f * 0.5f);
    return o;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 24, 10, "int128_floating_conversions");
}

/// A struct holding a pointer: the bytes of its other members through a
/// byte pointer.
#[test]
fn bytes_beside_pointers() {
    let src = r#"
#include <stdint.h>
#include <string.h>
struct N { char name[8]; const int *ref; uint32_t id; };
uint32_t mpc_main(uint32_t INPUT_A, uint32_t INPUT_B)
{
    int x = (int)INPUT_B;
    struct N n = { "abc", &x, INPUT_A };
    n.name[INPUT_B & 3] = 0;
    const unsigned char *id = (const unsigned char *)&n.id;
    uint32_t r = (uint32_t)n.name[1] * 1000 + *n.ref;
    for (int i = 0; i < 4; i++)
        r = r * 31 + id[i];
    unsigned char *b = (unsigned char *)&n;
    return r + b[1] + b[16] + b[19];
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 16, 12, "bytes_beside_pointers");
}

/// Null pointers compared and subtracted with each other and with
/// pointers into objects, byte pointers among them (an object's length
/// was looked up for the null pointer, which has none: a panic).
#[test]
fn null_pointers_compare() {
    let src = r#"
#include <stddef.h>
#include <stdint.h>
int mpc_main(uint32_t INPUT_A, uint32_t INPUT_B)
{
    int *p = NULL, *q = NULL;
    unsigned char *b = NULL, *c = 0;
    uint32_t v = INPUT_A;
    unsigned char *w = (unsigned char *)&v;
    int r = (p == q) + 2 * (p != q) + 4 * (b == c) + 8 * (w != b) + 16 * (int)(p - q);
    b = w + 1;
    return r + 32 * (b == NULL) + (b ? b[INPUT_B & 1] : 7);
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 8, 13, "null_pointers_compare");
}
