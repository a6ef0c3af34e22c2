//! Random C programs over `float` and `double`: loops that carry floating
//! scalars from one iteration to the next, update float arrays and struct
//! members, branch on float comparisons, convert between floating and
//! integer types (within the integer's range, where C defines it) and
//! call `<math.h>`. No operation changes the sign of a
//! NaN, so the only NaN is SSE's default one (inputs give `-nan`): where
//! two NaNs meet, gcc and twofold then agree whichever operand comes first.

use rand::Rng;

/// A random program (C source) over inputs `INPUT_A` and `INPUT_B` of one
/// struct type (floats, doubles and ints), returning a struct of results.
pub fn random_float_program(rng: &mut impl Rng) -> String {
    let n = rng.gen_range(2..=8usize);
    let mut body = String::new();
    for k in 0..rng.gen_range(2..=5) {
        body.push_str(&statement(rng, &format!("i{k}")));
    }
    format!(
        "#include <math.h>\n\
         #define N {n}\n\
         typedef struct {{ float x[N]; double y[N]; int k[N]; }} In;\n\
         typedef struct {{ float a[N]; float s; double d; int c; }} Out;\n\
         Out mpc_main(In INPUT_A, In INPUT_B)\n{{\n\
         \x20   Out o;\n\
         \x20   float a[N];\n\
         \x20   float s = INPUT_B.x[0];\n\
         \x20   double d = INPUT_A.y[0];\n\
         \x20   int c = 0;\n\
         \x20   for (int i = 0; i < N; i++) a[i] = INPUT_A.x[i];\n\
         {body}\
         \x20   for (int i = 0; i < N; i++) o.a[i] = a[i];\n\
         \x20   o.s = s;\n\
         \x20   o.d = d;\n\
         \x20   o.c = c;\n\
         \x20   return o;\n}}\n"
    )
}

/// A floating expression read in iteration `i`.
fn value(rng: &mut impl Rng, i: &str) -> String {
    match rng.gen_range(0..11) {
        0 => format!("INPUT_A.x[{i}]"),
        1 => format!("INPUT_B.x[N - 1 - {i}]"),
        2 => format!("INPUT_A.y[{i}]"),
        3 => format!("a[{i}]"),
        4 => "s".into(),
        5 => "d".into(),
        6 => format!("(float)INPUT_B.k[{i}]"),
        7 => format!("INPUT_A.k[{i}] * 0.25"),
        8 => ["0.5f", "1e-3", "3.0", "0x1.8p-2f", "1e30f"][rng.gen_range(0..5)].into(),
        9 => format!("INPUT_B.y[{i}] * {i}"),
        _ => format!("(double)a[{i}]"),
    }
}

fn op(rng: &mut impl Rng) -> &'static str {
    ["+", "-", "*", "/"][rng.gen_range(0..4)]
}

fn compare(rng: &mut impl Rng) -> &'static str {
    ["<", "<=", ">", ">=", "==", "!="][rng.gen_range(0..6)]
}

/// One loop (over `i`) of the program.
fn statement(rng: &mut impl Rng, i: &str) -> String {
    let (x, y) = (value(rng, i), value(rng, i));
    let (op, cmp) = (op(rng), compare(rng));
    let body = match rng.gen_range(0..9) {
        0 => format!("s = s * {x} {op} {y};"),
        1 => format!("a[{i}] = {x} {op} {y};"),
        2 => format!("d += (double){x} * {y};"),
        3 => format!("if ({x} {cmp} {y}) a[{i}] = {x}; else d = d {op} {y};"),
        // Converted within int's range: out of it the conversion is
        // undefined, and gcc folds constants other than its code computes.
        4 => format!(
            "c += (int)fmin(fmax({x} {op} 8.0f, -1e9), 1e9) \
             + (unsigned char)(int)fmin(fmax({y}, -1e9), 1e9);"
        ),
        5 => {
            let f = ["sqrtf", "floorf", "ceilf", "truncf", "roundf"][rng.gen_range(0..5)];
            let g = ["fminf", "fmaxf"][rng.gen_range(0..2)];
            format!("a[{i}] = {f}({x}) + {g}(a[{i}], {y});")
        }
        6 => {
            let inner = value(rng, "j");
            format!("for (int j = 0; j < N; j++) a[{i}] = a[{i}] {op} {inner} * {y};")
        }
        7 => format!("a[{i}] = {x} {cmp} {y} ? {x} : {y} - 1.0f;"),
        _ => format!("c += ({x} {cmp} {y}) + (s != s) + (d > 1e300 ? 2 : 0);"),
    };
    format!("    for (int {i} = 0; {i} < N; {i}++) {{\n        {body}\n    }}\n")
}
