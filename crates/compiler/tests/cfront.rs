//! C front-end details found by comparing twofold with gcc on small
//! programs: how `#` and `##` spell tokens, `#if` arithmetic in
//! `uintmax_t`, GNU's named variadic macro parameters.

mod common;

use common::agree_with_gcc;
use twofold_compiler::{compile, CompileOptions};

fn compiled(src: &str) -> twofold_compiler::CompiledProgram {
    compile(src, "prog.c", &CompileOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn error_of(src: &str) -> String {
    match compile(src, "prog.c", &CompileOptions::default()) {
        Ok(_) => panic!("compiled, but an error was expected:\n{src}"),
        Err(e) => e.to_string(),
    }
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
