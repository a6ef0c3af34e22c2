//! GCC's integer built-ins (bit counts, byte swaps, overflow checks,
//! `__builtin_expect`) and `<assert.h>`'s `assert`, compared with gcc on
//! random inputs, kept loops and unrolled, and their errors.

mod common;

use common::{accepted, agree_kept_and_unrolled, error_of, output_scalars, run};
use twofold_compiler::{compile, CompileOptions, CompiledProgram};

/// [`agree_kept_and_unrolled`], with this file's seed.
fn agree(name: &str, src: &str) -> CompiledProgram {
    agree_kept_and_unrolled(name, src, 11)
}

/// Every bit-count built-in on secret words of both widths, shifted by
/// secret amounts so that short, long and zero runs of bits all occur.
#[test]
fn bit_counts_and_byte_swaps() {
    let src = r#"
#include <stdint.h>
typedef struct { uint32_t x; uint64_t y; int32_t s; int64_t t; uint8_t k; } In;
typedef struct {
    int pc, pl, par, parl, ctz, clz, ctzl, clzl, ffs, ffsl, ffs0, clrsb, clrsbl, small;
    uint16_t b16; uint32_t b32; uint64_t b64; long ex;
} Out;
Out mpc_main(In INPUT_A, In INPUT_B)
{
    Out o;
    uint32_t x = INPUT_A.x ^ INPUT_B.x;
    uint64_t y = INPUT_A.y + INPUT_B.y;
    uint32_t z = x >> (INPUT_B.k & 31);
    uint64_t u = y >> (INPUT_A.k & 63);
    o.pc = __builtin_popcount(x);
    o.pl = __builtin_popcountll(y) + __builtin_popcountl(INPUT_A.s);
    o.par = __builtin_parity(x);
    o.parl = __builtin_parityl(y);
    o.ctz = z ? __builtin_ctz(z) : -1;
    o.clz = z ? __builtin_clz(z) : -1;
    o.ctzl = u ? __builtin_ctzll(u << (INPUT_B.k & 63)) : -1;
    o.clzl = u ? __builtin_clzl(u) : -1;
    o.ffs = __builtin_ffs((int)z);
    o.ffsl = __builtin_ffsll(INPUT_A.t & (INPUT_B.t << (INPUT_A.k & 63)));
    o.ffs0 = __builtin_ffs(INPUT_A.s & 0);
    o.clrsb = __builtin_clrsb(INPUT_A.s >> (INPUT_B.k & 31));
    o.clrsbl = __builtin_clrsbl(INPUT_A.t >> (INPUT_B.k & 63)) + __builtin_clrsb(0) + __builtin_clrsb(-1);
    o.small = __builtin_popcount(INPUT_A.k) * 3 + __builtin_ctz(INPUT_B.k | 128) + __builtin_clz(1u);
    o.b16 = __builtin_bswap16((uint16_t)x);
    o.b32 = __builtin_bswap32(x);
    o.b64 = __builtin_bswap64(y);
    if (__builtin_expect(x > 5, 1))
        o.ex = 7;
    else
        o.ex = __builtin_expect(y, 0);
    return o;
}
"#;
    agree("bit_counts", src);
}

/// The overflow built-ins on every pairing of signedness and width, into
/// wider, equal and narrower results; operands narrowed by secret shifts
/// so that results both fit and overflow.
#[test]
fn overflow_checks() {
    let src = r#"
#include <stdint.h>
#include <stdbool.h>
typedef struct { int32_t a; uint32_t b; int64_t c; uint64_t d; int8_t e; uint8_t k; } In;
typedef struct {
    bool f[12];
    int32_t r32; uint32_t u32; int64_t r64; uint64_t u64a, u64b; int8_t r8; uint16_t u16;
    int64_t r64b; int32_t r32b; uint32_t u32b; int64_t r64c;
} Out;
Out mpc_main(In INPUT_A, In INPUT_B)
{
    Out o;
    int32_t a = INPUT_A.a >> (INPUT_B.k & 31);
    uint32_t b = INPUT_B.b >> (INPUT_A.k & 31);
    int64_t c = INPUT_A.c >> (INPUT_B.k & 63);
    uint64_t d = INPUT_B.d >> (INPUT_A.k & 63);
    o.f[0] = __builtin_add_overflow(a, INPUT_B.a, &o.r32);
    o.f[1] = __builtin_sub_overflow(b, a, &o.u32);
    o.f[2] = __builtin_mul_overflow(c, INPUT_B.c >> 20, &o.r64);
    o.f[3] = __builtin_mul_overflow(d, INPUT_A.d >> (INPUT_B.k & 63), &o.u64a);
    o.f[4] = __builtin_mul_overflow(c, d, &o.u64b);
    o.f[5] = __builtin_add_overflow(INPUT_A.e, INPUT_B.e, &o.r8);
    o.f[6] = __builtin_sub_overflow(INPUT_A.e, b, &o.u16);
    o.f[7] = __builtin_mul_overflow(a, b, &o.r64b);
    o.f[8] = __builtin_mul_overflow(a, INPUT_B.a >> 16, &o.r32b);
    o.f[9] = __builtin_sub_overflow(d, c, &o.u32b);
    o.f[10] = __builtin_mul_overflow(d, c, &o.r64c);
    o.f[11] = __builtin_add_overflow(7, 8, &o.r8) || __builtin_mul_overflow(100, 2, &o.r8);
    return o;
}
"#;
    agree("overflow", src);
}

/// A built-in in a loop whose iterations are independent (a parallel
/// region: the built-ins write nothing) and in a chain: both forms agree
/// with gcc.
#[test]
fn builtins_in_loops() {
    let src = r#"
#include <stdint.h>
typedef struct { uint32_t v[40]; } In;
typedef struct { int total; int32_t at[40]; uint32_t mixed; } Out;
Out mpc_main(In INPUT_A, In INPUT_B)
{
    Out o;
    o.total = 0;
    o.mixed = 0;
    for (int i = 0; i < 40; i++)
        o.at[i] = __builtin_popcount(INPUT_A.v[i] & INPUT_B.v[i]) - __builtin_clrsb((int)INPUT_B.v[i]);
    for (int i = 0; i < 40; i++) {
        o.total += __builtin_parity(INPUT_A.v[i] ^ o.mixed);
        o.mixed = __builtin_bswap32(o.mixed + INPUT_B.v[i]);
    }
    return o;
}
"#;
    let kept = agree("loops", src);
    assert_eq!(accepted(&kept), [40]);
}

/// Wrong argument counts, arguments of the wrong kind, and a result that
/// is no integer are errors that name the built-in.
/// GCC's spellings of the memory functions (`__builtin_memcpy`,
/// `__builtin_memmove`, `__builtin_memset`, as macros and generated code
/// call them) are the functions themselves; they were "call of undeclared
/// function".
#[test]
fn builtin_memory_functions() {
    agree(
        "builtin_mem",
        "typedef struct { int a[4]; } V;
V mpc_main(V INPUT_A, V INPUT_B)
{
    V r;
    __builtin_memset(&r, 0, sizeof r);
    __builtin_memcpy(r.a, INPUT_A.a, 2 * sizeof(int));
    __builtin_memmove(&r.a[2], &INPUT_B.a[1], 2 * sizeof(int));
    r.a[3] += r.a[0];
    return r;
}",
    );
}

#[test]
fn argument_errors() {
    let cases = [
        (
            "return __builtin_popcount(INPUT_A, 1);",
            "'__builtin_popcount' takes 1 argument",
        ),
        (
            "return __builtin_add_overflow(INPUT_A, 1);",
            "'__builtin_add_overflow' takes 3 arguments",
        ),
        (
            "return __builtin_ctz(1.5);",
            "argument of '__builtin_ctz' is not an integer",
        ),
        (
            "_Bool r; return __builtin_add_overflow(INPUT_A, 1, &r);",
            "the third argument of '__builtin_add_overflow' must point to an integer",
        ),
        (
            "return __builtin_frobnicate(INPUT_A);",
            "'__builtin_frobnicate'",
        ),
    ];
    for (body, want) in cases {
        let src = format!("int mpc_main(int INPUT_A, int INPUT_B) {{ {body} }}");
        let e = compile(&src, "e.c", &CompileOptions::default())
            .err()
            .unwrap_or_else(|| panic!("{body} compiled"));
        assert!(e.to_string().contains(want), "{body}: {e}");
    }
}

/// `ctz` and `clz` of zero, which gcc leaves undefined, are the operand's
/// width (as x86's `tzcnt` and `lzcnt` give them), secret or constant.
#[test]
fn counts_of_zero_are_the_width() {
    let src = r#"
typedef struct { int ctz, clz, ctzl, clzl, ctz0, clzl0; } Out;
Out mpc_main(unsigned INPUT_A, unsigned INPUT_B)
{
    Out o;
    unsigned x = INPUT_A & INPUT_B;
    unsigned long y = x;
    o.ctz = __builtin_ctz(x);
    o.clz = __builtin_clz(x);
    o.ctzl = __builtin_ctzl(y);
    o.clzl = __builtin_clzll(y);
    o.ctz0 = __builtin_ctz(0);
    o.clzl0 = __builtin_clzl(0);
    return o;
}
"#;
    let p = compile(src, "zero.c", &CompileOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let inputs = [
        ("INPUT_A".to_string(), "0xf0f0".to_string()),
        ("INPUT_B".to_string(), "0x0f0f".to_string()),
    ];
    assert_eq!(
        output_scalars(&p, &run(&p, &inputs)),
        [32, 32, 64, 64, 32, 64]
    );
}

/// The types of built-in calls where only the type is asked (`sizeof`):
/// `abs` and `labs`, `<math.h>`'s functions in both widths, GCC's
/// built-ins. They were "undeclared functions" there.
#[test]
fn sizes_of_builtin_calls() {
    let src = r#"
#include <stdlib.h>
#include <math.h>
#include <string.h>
int mpc_main(int INPUT_A, int INPUT_B)
{
    double d = 2.0;
    char buf[4];
    return (int)(sizeof(abs(INPUT_A)) + 10 * sizeof(labs(INPUT_B)) + 100 * sizeof(sqrtf(1.0f))
        + 1000 * sizeof(sqrt(d)) + 10000 * sizeof(__builtin_popcountll(INPUT_A))
        + 100000 * sizeof(__builtin_bswap16(INPUT_B)) + 1000000 * sizeof(__builtin_expect(INPUT_A, 0))
        + 10000000 * sizeof(memset(buf, 0, 4))) + INPUT_A - INPUT_B;
}
"#;
    agree("sizes", src);
}

/// `<assert.h>`'s `assert`: conditions known while compiling are checked
/// there, secret ones (and those on secret paths) are not, as with
/// `NDEBUG`; a program whose asserts hold agrees with gcc, kept loops and
/// unrolled.
#[test]
fn asserts() {
    let src = r#"
#include <assert.h>
#define N 8
static int sum(const int *a, int n)
{
    assert(n <= N);
    int s = 0;
    for (int i = 0; i < n; i++) {
        assert(i < N && a);
        s += a[i];
    }
    return s;
}
int mpc_main(int INPUT_A, int INPUT_B)
{
    int a[N] = {INPUT_A, INPUT_B, 3};
    assert(sizeof(a) == N * sizeof(int) && 0.5);
    assert((INPUT_A & 1) < 2);
    if (INPUT_A > INPUT_B)
        assert(INPUT_A != INPUT_B);
    static_assert(N == 8, "eight");
    return sum(a, N);
}
"#;
    agree("asserts", src);
    let main = |body: &str| {
        format!("#include <assert.h>\nint mpc_main(int INPUT_A, int INPUT_B)\n{{\n    {body}\n    return INPUT_A;\n}}\n")
    };
    assert_eq!(
        error_of(&main("int n = 3; assert(n == 4);")),
        "prog.c:4:16: error: assertion failed: the condition is false here in every run (the program would abort)"
    );
    // Not checked on a path a secret chooses, nor with NDEBUG.
    for ok in [
        main("if (INPUT_A > 3) assert(0);"),
        format!("#define NDEBUG\n{}", main("assert(0);")),
    ] {
        compile(&ok, "prog.c", &CompileOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    }
}
