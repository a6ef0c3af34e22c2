//! Standard C and GNU syntax: `typeof`, statement expressions, `_Generic`,
//! `_Alignas`, static local variables; compared with gcc on random inputs
//! (loops kept and unrolled), and the constructs refused, with their
//! messages.

mod common;

use common::agree_with_gcc;
use twofold_compiler::{compile, CompileOptions, CompiledProgram};

/// Compiles `src` with loops kept and unrolled, checks both against gcc
/// and returns the first.
fn agree(name: &str, src: &str) -> CompiledProgram {
    let opts = [
        CompileOptions::default(),
        CompileOptions {
            loops: false,
            ..CompileOptions::default()
        },
    ];
    let programs: Vec<_> = opts
        .iter()
        .map(|o| compile(src, &format!("{name}.c"), o).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    agree_with_gcc(src, &programs.iter().collect::<Vec<_>>(), 24, 7, name);
    programs.into_iter().next().expect("two programs")
}

/// The error compiling `src` gives.
fn error_of(src: &str) -> String {
    match compile(src, "prog.c", &CompileOptions::default()) {
        Ok(_) => panic!("compiled, but an error was expected:\n{src}"),
        Err(e) => e.to_string(),
    }
}

/// `typeof` of expressions (not evaluated) and of type names, in
/// declarations, casts, `sizeof` and compound literals, with `const`.
#[test]
fn typeof_of_expressions_and_types() {
    agree(
        "typeof",
        r#"
struct P { int x; short y[3]; };
int g[5];
typeof(g[0]) h = 7;
int mpc_main(int INPUT_A, int INPUT_B)
{
    typeof(INPUT_A) x = INPUT_A;
    __typeof__(INPUT_B + 1L) y = INPUT_B;
    __typeof(char) c = (char)INPUT_A;
    struct P p = {1, {2, 3, 4}};
    typeof(p.y) arr;
    typeof(g) g2 = {0};
    typeof(&p) pp = &p;
    const typeof(unsigned char) k = (typeof(k))(INPUT_B + 250);
    int n = 0;
    typeof(n++) m = 4;
    typeof(int *) q = &g2[1];
    typeof(*q) r = 9;
    typeof((short)INPUT_A) s = INPUT_A;
    arr[0] = (typeof(c))INPUT_B;
    *q = (typeof(struct P)){INPUT_B, {0}}.x;
    return x + (int)sizeof(y) * 100 + (int)sizeof(c) * 1000 + (int)sizeof(arr) * 10000
        + (int)sizeof(g2) * 100000 + pp->x + k + n + m + arr[0] + (int)sizeof(typeof(x))
        + g2[1] + r + s + (int)sizeof(s) + h + (int)sizeof(typeof(typeof(p.x) *));
}
"#,
    );
}

/// `typeof(expr)` where the parser needs the type itself is refused.
#[test]
fn typeof_of_an_expression_in_a_typedef() {
    assert_eq!(
        error_of("int mpc_main(int INPUT_A, int INPUT_B)\n{\n    typedef typeof(INPUT_A) T;\n    return INPUT_B;\n}\n"),
        "prog.c:3:20: error: typeof of an expression is supported in declarations of variables, casts, sizeof and compound literals, not in a parameter, return type, typedef, struct member or _Alignof (write typeof(type-name))"
    );
}
