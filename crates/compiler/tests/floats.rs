//! `float` and `double` compared with gcc (`-O0 -ffp-contract=off`, x86-64
//! SSE) bit for bit: arithmetic, comparisons, conversions, literals,
//! `<math.h>`, and floats in loops, structs and arrays. Inputs mix
//! special values (zeros, infinities, NaN, subnormals, integer-range
//! boundaries) with random ones.

mod common;

use common::agree_with_gcc_on;
use rand::{rngs::StdRng, Rng, SeedableRng};
use twofold_compiler::{compile, CType, CompileOptions, CompiledProgram};
use twofold_testkit::random_float_program;

/// Values worth trying for a floating type. The only NaN is `-nan`, the
/// default NaN that invalid operations give: where two different NaNs meet
/// in a commutative `+` or `*`, gcc's code generator may put either first
/// (its result carries the first), so only [`nan_operands`] mixes them.
const SPECIAL: &[&str] = &[
    "0",
    "-0.0",
    "inf",
    "-inf",
    "-nan",
    "1",
    "-1",
    "0.5",
    "-0.5",
    "1.5",
    "2.5",
    "-2.5",
    "3",
    "0.1",
    "1e-310",
    "-4.9e-324",
    "1e-40",
    "2147483647.5",
    "2147483648",
    "-2147483649",
    "4294967296",
    "4294967295.9",
    "-1e10",
    "9.2233720368547758e18",
    "-9.2233720368547758e18",
    "1.8446744073709552e19",
    "1e30",
    "1.7976931348623157e308",
    "3.4028235e38",
    "65535.5",
    "-32768.7",
    "255.9",
    "-128.5",
];

/// A random value of a floating type, as text.
fn real(rng: &mut StdRng, bits: u32) -> String {
    match rng.gen_range(0..6) {
        0 => SPECIAL[rng.gen_range(0..SPECIAL.len())].to_string(),
        1 => format!("{}", rng.gen_range(-100i32..100)),
        2 => format!("{}", rng.gen_range(-4.0f64..4.0)),
        3 if bits == 32 => format!("{:?}", f32::from_bits(rng.gen::<u32>())),
        3 => format!("{:?}", f64::from_bits(rng.gen::<u64>())),
        4 => format!("{:e}", rng.gen_range(-1e12f64..1e12)),
        _ => format!(
            "{:e}",
            rng.gen_range(-1.0f64..1.0) * 2f64.powi(rng.gen_range(-140..140))
        ),
    }
    .replace("NaN", "-nan")
}

/// A random value of `ty` as a C initializer: floats by [`real`], integers
/// uniformly over their bits.
fn value(ty: &CType, rng: &mut StdRng) -> String {
    match ty {
        CType::Float { bits } => real(rng, *bits),
        CType::Array(e, n) => {
            let items: Vec<String> = (0..*n).map(|_| value(e, rng)).collect();
            format!("{{{}}}", items.join(", "))
        }
        CType::Struct(s) => {
            let items: Vec<String> = s.fields.iter().map(|(_, t)| value(t, rng)).collect();
            format!("{{{}}}", items.join(", "))
        }
        t => common::random_value(t, rng),
    }
}

fn compiled(name: &str, src: &str) -> CompiledProgram {
    compile(src, &format!("{name}.c"), &CompileOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// Compiles `src` and compares it with gcc on `n` random input sets.
fn agree(name: &str, src: &str, n: usize, seed: u64) -> CompiledProgram {
    let p = compiled(name, src);
    let mut rng = StdRng::seed_from_u64(seed);
    let sets: Vec<Vec<String>> = (0..n)
        .map(|_| p.inputs.iter().map(|(_, t)| value(t, &mut rng)).collect())
        .collect();
    agree_with_gcc_on(src, &[&p], &sets, name);
    p
}

#[test]
fn arithmetic_and_comparisons() {
    let src = r#"
typedef struct { double x; float y; } Pair;
typedef struct { double d[8]; float f[8]; int cmp[16]; } Out;

Out mpc_main(Pair INPUT_A, Pair INPUT_B)
{
    Out o;
    double a = INPUT_A.x, b = INPUT_B.x;
    float p = INPUT_A.y, q = INPUT_B.y;
    o.d[0] = a + b;
    o.d[1] = a - b;
    o.d[2] = a * b;
    o.d[3] = a / b;
    o.d[4] = -a;
    o.d[5] = a;
    o.d[5] += q;
    o.d[5] *= 0.1;
    o.d[5]++;
    o.d[6] = a < b ? a * 2.0 : b - 1e-3;
    o.d[7] = 0x1.8p3 * a + 1.5e-310;
    o.f[0] = p + q;
    o.f[1] = p - q;
    o.f[2] = p * q;
    o.f[3] = p / q;
    o.f[4] = (float)a;
    o.f[5] = p * 2.5f - 1;
    o.f[6] = p;
    o.f[6]--;
    o.f[6] /= q;
    o.f[7] = q ? p : -p;
    int k = 0;
    o.cmp[k++] = a < b;
    o.cmp[k++] = a <= b;
    o.cmp[k++] = a > b;
    o.cmp[k++] = a >= b;
    o.cmp[k++] = a == b;
    o.cmp[k++] = a != b;
    o.cmp[k++] = p < q;
    o.cmp[k++] = p >= q;
    o.cmp[k++] = p == q;
    o.cmp[k++] = a == p;
    o.cmp[k++] = !a;
    o.cmp[k++] = a && q;
    o.cmp[k++] = p || b;
    o.cmp[k++] = (a > 1.0) + 2 * (q < -1.0f);
    if (a > b) o.cmp[k] = 7; else o.cmp[k] = -7;
    k++;
    o.cmp[k] = a != a;
    return o;
}
"#;
    agree("float_arith", src, 64, 1);
}

#[test]
fn nan_operands() {
    // Variables as operands: gcc keeps them in source order, and the first
    // NaN operand wins, quietened.
    let src = r#"
typedef struct { double d[4]; float f[4]; } Out;

Out mpc_main(double INPUT_A[2], float INPUT_B[2])
{
    Out o;
    double a = INPUT_A[0], b = INPUT_A[1];
    float p = INPUT_B[0], q = INPUT_B[1];
    o.d[0] = a + b; o.d[1] = a - b; o.d[2] = a * b; o.d[3] = a / b;
    o.f[0] = p + q; o.f[1] = p - q; o.f[2] = p * q; o.f[3] = p / q;
    return o;
}
"#;
    let p = compiled("float_nans", src);
    let nans = ["nan", "-nan", "0x1.8p-1", "inf"];
    let mut sets = Vec::new();
    for x in nans {
        for y in nans {
            sets.push(vec![format!("{{{x}, {y}}}"), format!("{{{x}, {y}}}")]);
        }
    }
    agree_with_gcc_on(src, &[&p], &sets, "float_nans");
}

/// Two different NaNs meeting in a commutative `+` or `*`: the result
/// carries the operand gcc's code puts first (constants last, a variable
/// read as it is after any other operand; `-x + y` is `y - x`). Two
/// operands that are neither variables nor constants (array elements,
/// results) are left out: gcc's order for them varies (docs/floats.md).
#[test]
fn nan_operand_order() {
    let src = r#"
typedef struct { double d[16]; float f[4]; } Out;

Out mpc_main(double INPUT_A[4], float INPUT_B[2])
{
    Out o;
    double a = INPUT_A[0], b = INPUT_A[1];
    float p = INPUT_B[0], q = INPUT_B[1];
    double s = a, t = b;
    int k = 0;
    o.d[k++] = a + INPUT_A[2];
    o.d[k++] = INPUT_A[2] + a;
    o.d[k++] = a * p;
    o.d[k++] = p * a;
    o.d[k++] = a + b * INPUT_A[3];
    o.d[k++] = a * b + INPUT_A[3];
    o.d[k++] = (INPUT_A[2] + a) * b;
    o.d[k++] = 2.0 * a;
    o.d[k++] = a + 1.0;
    s += INPUT_A[2];
    o.d[k++] = s;
    t *= a * INPUT_A[3];
    o.d[k++] = t;
    o.d[k++] = b * INPUT_A[3] + a;
    o.d[k++] = a + b;
    o.d[k++] = b * a;
    o.d[k++] = -a + b;
    o.d[k++] = a + -b;
    o.f[0] = p + q;
    o.f[1] = q * p;
    o.f[2] = p + INPUT_B[1];
    o.f[3] = INPUT_B[0] * q;
    return o;
}
"#;
    let p = compiled("float_nan_order", src);
    let nans = ["nan", "-nan", "0x1.8p-1"];
    let mut sets = Vec::new();
    for x in nans {
        for y in nans {
            for z in nans {
                sets.push(vec![
                    format!("{{{x}, {y}, {z}, {x}}}"),
                    format!("{{{y}, {z}}}"),
                ]);
            }
        }
    }
    agree_with_gcc_on(src, &[&p], &sets, "float_nan_order");
}

#[test]
fn conversions() {
    let src = r#"
typedef struct {
    signed char sc; unsigned char uc; short s; unsigned short us;
    int i; unsigned u; long long l; unsigned long long ul; _Bool b;
} Ints;
typedef struct { float f; Ints n; } In;
typedef struct { Ints fromd; Ints fromf; double d[10]; float f[10]; } Out;

#define TO_INTS(name, T) static Ints name(T x) \
{ \
    Ints r; \
    r.sc = x; r.uc = x; r.s = x; r.us = x; r.i = x; r.u = x; r.l = x; r.ul = x; r.b = x; \
    return r; \
}
TO_INTS(to_ints, double)
TO_INTS(to_ints_f, float)

Out mpc_main(double INPUT_A, In INPUT_B)
{
    Out o;
    Ints n = INPUT_B.n;
    o.fromd = to_ints(INPUT_A);
    o.fromf = to_ints_f(INPUT_B.f);
    o.d[0] = n.sc; o.d[1] = n.uc; o.d[2] = n.s; o.d[3] = n.us; o.d[4] = n.i;
    o.d[5] = n.u; o.d[6] = n.l; o.d[7] = n.ul; o.d[8] = n.b; o.d[9] = INPUT_B.f;
    o.f[0] = n.sc; o.f[1] = n.uc; o.f[2] = n.s; o.f[3] = n.us; o.f[4] = n.i;
    o.f[5] = n.u; o.f[6] = n.l; o.f[7] = n.ul; o.f[8] = n.b; o.f[9] = INPUT_A;
    return o;
}
"#;
    agree("float_conv", src, 96, 2);
}

/// Doubles and floats converted to 128-bit integers as libgcc's
/// `__fixdfti` and `__fixunsdfti` (and the `sf` ones) convert them:
/// `-2^127`, in range, gave 0 instead of `INT128_MIN`, as did `2^127`
/// (libgcc's `INT128_MIN`). Unsigned conversions of magnitudes (a negative
/// value's is undefined in C, and not libgcc's here).
#[test]
fn conversions_to_128_bits() {
    let src = r#"
typedef struct { unsigned long long hi, lo; } Half;
typedef struct { Half sd, ud, sf, uf; } Out;
static Half halves(unsigned __int128 v)
{
    Half h = { (unsigned long long)(v >> 64), (unsigned long long)v };
    return h;
}
Out mpc_main(double INPUT_A, float INPUT_B)
{
    Out o;
    o.sd = halves((unsigned __int128)(__int128)INPUT_A);
    o.ud = halves((unsigned __int128)(INPUT_A < 0 ? -INPUT_A : INPUT_A));
    o.sf = halves((unsigned __int128)(__int128)INPUT_B);
    o.uf = halves((unsigned __int128)(INPUT_B < 0 ? -INPUT_B : INPUT_B));
    return o;
}
"#;
    let p = compiled("float_to_128", src);
    let values = [
        "-0x1p127",
        "0x1p127",
        "-0x1.fffffffffffffp126",
        "0x1.fffffffffffffp126",
        "-1e38",
        "1e38",
        "-5.5",
        "0.75",
        "-0x1.8p126",
        "0x1p64",
    ];
    let sets: Vec<Vec<String>> = values
        .iter()
        .zip(values.iter().rev())
        .map(|(a, b)| vec![a.to_string(), b.to_string()])
        .collect();
    agree_with_gcc_on(src, &[&p], &sets, "float_to_128");
}

#[test]
fn literals() {
    let src = r#"
typedef struct { double d[14]; float f[10]; } Out;

Out mpc_main(int INPUT_A, int INPUT_B)
{
    Out o = {
        { 0.1, 1e-320, 0x1.8p3, 0x.8p-1, 1., .5e1, 1e400, 0x1p-1074, 0x1.fffffffffffffp1023,
          0x1.00000000000008p0, 0x1.000000000000081p0, 2.4703282292062328e-324,
          123456789012345678901234567890.0, 0X1P+4 },
        { 0.1f, 1e-45f, 0x1.fffffep127f, 3.4028235e38f, 0x1.000001p0f, 0x1.0000011p0f,
          16777217.0f, 7.006492e-46f, 1.1754942e-38F, 0x3p-2f }
    };
    o.d[0] += INPUT_A;
    o.f[0] += INPUT_B;
    return o;
}
"#;
    agree("float_literals", src, 4, 3);
}

/// A `?:` whose condition is constant evaluates one side; the other's
/// type still counts (the usual arithmetic conversions), and was taken as
/// an error where it computed on floating values (`x * i` for a double
/// `x`), as was `sizeof` of such an expression.
#[test]
fn the_type_of_a_side_not_evaluated() {
    let src = r#"
typedef struct { double d[4]; float f; int n; } Out;

Out mpc_main(double INPUT_A, float INPUT_B)
{
    Out o;
    double x = INPUT_A;
    int i = 1;
    o.d[0] = x * i > x * i ? x * i : x * i - 1.0f;
    o.d[1] = i > 5 ? -x : x * 2;
    o.d[2] = i < 5 ? INPUT_B : i;
    o.d[3] = 1 ? i : x * INPUT_B;
    o.f = 0 ? x : INPUT_B / 3;
    o.n = sizeof(x * i) + sizeof(-INPUT_B) + sizeof(i ? INPUT_B : i);
    return o;
}
"#;
    agree("float_static_types", src, 8, 5);
}

#[test]
fn math_functions() {
    let src = r#"
#include <math.h>
typedef struct { double d[14]; float f[14]; } Out;

Out mpc_main(double INPUT_A[2], float INPUT_B[2])
{
    Out o;
    double x = INPUT_A[0], y = INPUT_A[1];
    float p = INPUT_B[0], q = INPUT_B[1];
    o.d[0] = sqrt(x); o.d[1] = fabs(x); o.d[2] = floor(x); o.d[3] = ceil(x);
    o.d[4] = trunc(x); o.d[5] = round(x); o.d[6] = fmin(x, y); o.d[7] = fmax(x, y);
    o.d[8] = copysign(x, y); o.d[9] = INFINITY; o.d[10] = -HUGE_VAL; o.d[11] = sqrt(p);
    o.d[12] = NAN; o.d[13] = fmin(x, NAN);
    o.f[0] = sqrtf(p); o.f[1] = fabsf(p); o.f[2] = floorf(p); o.f[3] = ceilf(p);
    o.f[4] = truncf(p); o.f[5] = roundf(p); o.f[6] = fminf(p, q); o.f[7] = fmaxf(p, q);
    o.f[8] = copysignf(p, q); o.f[9] = INFINITY; o.f[10] = NAN; o.f[11] = fmaxf(NAN, q);
    o.f[12] = sqrtf(-p * p); o.f[13] = floor(p);
    return o;
}
"#;
    agree("float_math", src, 96, 4);
}

#[test]
fn loops_structs_and_arrays() {
    let src = r#"
#define N 12
typedef struct { float w; double v; } Reading;
typedef struct { float mean; float var; double dot; double best; int at; float cum[N]; } Stats;

Stats mpc_main(Reading INPUT_A[N], float INPUT_B[N])
{
    Stats s;
    float sum = 0, sq = 0;
    double dot = 0.0, best = -INFINITY_D;
    int at = -1;
    for (int i = 0; i < N; i++) {
        float x = INPUT_A[i].w - INPUT_B[i];
        sum += x;
        sq += x * x;
        s.cum[i] = sum;
        dot += INPUT_A[i].v * INPUT_B[i];
        if (INPUT_A[i].v > best) { best = INPUT_A[i].v; at = i; }
    }
    s.mean = sum / N;
    s.var = sq / N - s.mean * s.mean;
    s.dot = dot;
    s.best = best;
    s.at = at;
    return s;
}
"#;
    let src = src.replace("INFINITY_D", "1e308 * 10");
    agree("float_loops", &src, 24, 5);
}

/// `examples/float_stats.c` and `examples/linear_model.c` against gcc.
#[test]
fn float_examples() {
    for (name, n) in [("float_stats", 24), ("linear_model", 32)] {
        let path = format!("{}/../../examples/{name}.c", env!("CARGO_MANIFEST_DIR"));
        let src = std::fs::read_to_string(path).expect("example");
        let p = agree(name, &src, n, 6);
        println!(
            "{name}: {} AND gates, loops {:?}",
            p.program.and_count(),
            p.loops
        );
        // Every loop is kept as a loop: the sums are sequential, in order.
        assert!(p.loops.iter().all(|l| !l.is_region()), "{:?}", p.loops);
    }
}

/// Random programs with floats in loops, structs and arrays (testkit's)
/// against gcc, with loops kept and unrolled.
#[test]
fn random_float_programs() {
    let mut rng = StdRng::seed_from_u64(31);
    for k in 0..12 {
        let src = random_float_program(&mut rng);
        let tag = format!("float_random{k}");
        let p = agree(&tag, &src, 6, k);
        let flat = CompileOptions {
            loops: false,
            ..CompileOptions::default()
        };
        let q = compile(&src, "flat.c", &flat).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            q.program.and_count() > 0,
            p.program.and_count() > 0,
            "{src}"
        );
        let sets: Vec<Vec<String>> = (0..4)
            .map(|_| q.inputs.iter().map(|(_, t)| value(t, &mut rng)).collect())
            .collect();
        agree_with_gcc_on(&src, &[&p, &q], &sets, &format!("{tag}_flat"));
    }
}

/// Outputs print a NaN with its sign, as C's `printf` does (`0.0 / 0.0`
/// gives SSE's default NaN, which is negative: gcc prints `-nan`), so that
/// they read back to the same value, in text and in JSON.
#[test]
fn a_negative_nan_prints_with_its_sign() {
    for (ty, bits) in [("double", 64), ("float", 32)] {
        let src =
            format!("{ty} mpc_main({ty} INPUT_A, {ty} INPUT_B) {{ return INPUT_A * INPUT_B; }}\n");
        let p = compiled("nan_sign", &src);
        let t = &p.outputs[0].1;
        for text in ["-nan", "nan", "-inf", "-0.0", "1.5"] {
            let v = t.parse_value(text).expect("a floating value");
            assert_eq!(t.format_value(&v), text, "{ty}");
        }
        let negative = t.parse_value("-nan").expect("-nan");
        assert!(negative[bits - 1], "{ty}: -nan has its sign bit set");
        assert_eq!(t.json_value(&negative).to_json_string(), "\"-nan\"");
    }
}

/// A floating value or a string begins an aggregate whose braces it elides
/// in an input value, as an integer does (C11 6.7.9p20): `{1.5, 2, 3}` for
/// `struct { double x[3]; }`.
#[test]
fn input_values_elide_braces_before_floats_and_strings() {
    let src = "typedef struct { double x[3]; } D;\n\
        typedef struct { char name[4]; int v; } E;\n\
        typedef struct { E e[2]; float f[2][2]; } T;\n\
        double mpc_main(D INPUT_A, T INPUT_B) { return INPUT_A.x[0] + INPUT_B.f[1][0]; }\n";
    let p = compiled("elided", src);
    let (d, t) = (&p.inputs[0].1, &p.inputs[1].1);
    for (text, braced) in [
        ("{1.5, 2, 3}", "{1.5, 2.0, 3.0}"),
        ("{{1.5, 2, 3}}", "{1.5, 2.0, 3.0}"),
        ("{inf, -nan, 0x1p1}", "{inf, -nan, 2.0}"),
    ] {
        let v = d
            .parse_value(text)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(d.format_value(&v), format!("{{{braced}}}"), "{text}");
    }
    let v =
        (t.parse_value("{\"ab\", 1, \"cd\", 2, 0.5, 1, 2.5}")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        t.format_value(&v),
        "{{{{97, 98, 0, 0}, 1}, {{99, 100, 0, 0}, 2}}, {{0.5, 1.0}, {2.5, 0.0}}}"
    );
}
