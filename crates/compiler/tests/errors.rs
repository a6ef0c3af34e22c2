//! Unsupported or wrong programs give a `file:line:col: error: ...`
//! message, never a panic.

use twofold_compiler::{compile, CompileOptions};

fn error_of(src: &str, opts: &CompileOptions) -> String {
    match compile(src, "prog.c", opts) {
        Ok(_) => panic!("compiled, but an error was expected:\n{src}"),
        Err(e) => e.to_string(),
    }
}

fn check(src: &str, expected: &str) {
    assert_eq!(error_of(src, &CompileOptions::default()), expected);
}

#[test]
fn integer_operators_on_floating_values() {
    check(
        "double mpc_main(double INPUT_A, double INPUT_B)\n{\n    return INPUT_A % INPUT_B;\n}\n",
        "prog.c:3:20: error: invalid operands to a binary operator (double and double): an integer operator on a floating value",
    );
    check(
        "float mpc_main(float INPUT_A, int INPUT_B)\n{\n    return INPUT_A << INPUT_B;\n}\n",
        "prog.c:3:20: error: invalid operands to a binary operator (float and int): an integer operator on a floating value",
    );
    check(
        "float mpc_main(float INPUT_A, float INPUT_B)\n{\n    return ~INPUT_A;\n}\n",
        "prog.c:3:12: error: wrong type argument (float) to a unary operator",
    );
    check(
        "long double mpc_main(int INPUT_A, int INPUT_B)\n{\n    return INPUT_A;\n}\n",
        "prog.c:1:1: error: 'long double' is not supported (use double)",
    );
    check(
        "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    return INPUT_A * 1.5L;\n}\n",
        "prog.c:3:22: error: 'long double' constants are not supported: '1.5L'",
    );
    check(
        "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    return INPUT_A * 0x1.8;\n}\n",
        "prog.c:3:22: error: hexadecimal floating constant '0x1.8' requires an exponent",
    );
    check(
        "int mpc_main(int INPUT_A[4], float INPUT_B)\n{\n    return INPUT_A[INPUT_B];\n}\n",
        "prog.c:3:20: error: array subscript is not an integer",
    );
    check(
        "int mpc_main(double INPUT_A, int INPUT_B)\n{\n    switch (INPUT_A) { default: return 1; }\n}\n",
        "prog.c:3:13: error: switch on a non-integer value",
    );
}

#[test]
fn loop_with_secret_exit_needs_unwind() {
    // Collatz steps: no bound is known.
    check(
        "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    unsigned x = INPUT_A;\n    int n = 0;\n    while (x > 1) {\n        x = x % 2 ? 3 * x + 1 : x / 2;\n        n++;\n    }\n    return n + INPUT_B;\n}\n",
        "prog.c:5:5: error: the loop's exit depends on a secret value and it did not end within 1024 iterations; bound it with --unwind N",
    );
    // Halving a 32-bit number ends within 32 steps on every path: no bound
    // is needed.
    let src = "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    unsigned x = INPUT_A;\n    int n = 0;\n    while (x != 0) {\n        x = x / 2;\n        n++;\n    }\n    return n + INPUT_B;\n}\n";
    let p = compile(src, "prog.c", &CompileOptions::default()).expect("compiles without --unwind");
    let a = p.inputs[0].1.parse_value("1000").expect("value");
    let b = p.inputs[1].1.parse_value("5").expect("value");
    let out = p.program.eval(&[a, b]).expect("eval");
    assert_eq!(p.outputs[0].1.format_value(&out[0]), "15");
    // Subtracting 3 from a byte: ranges end it after 85 rounds.
    let src = "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    int x = INPUT_A & 0xff;\n    int n = 0;\n    while (x > 0) {\n        x -= 3;\n        n++;\n    }\n    return n + INPUT_B;\n}\n";
    let p = compile(src, "prog.c", &CompileOptions::default()).expect("compiles without --unwind");
    let a = p.inputs[0].1.parse_value("1000").expect("value");
    let b = p.inputs[1].1.parse_value("5").expect("value");
    let out = p.program.eval(&[a, b]).expect("eval");
    assert_eq!(p.outputs[0].1.format_value(&out[0]), "83");
    // With --unwind, a loop is cut after N rounds (CBMC's semantics).
    let collatz = "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    unsigned x = INPUT_A;\n    int n = 0;\n    while (x > 1) {\n        x = x % 2 ? 3 * x + 1 : x / 2;\n        n++;\n    }\n    return n + INPUT_B;\n}\n";
    let opts = CompileOptions {
        unwind: Some(20),
        ..CompileOptions::default()
    };
    let p = compile(collatz, "prog.c", &opts).expect("compiles with --unwind");
    let a = p.inputs[0].1.parse_value("6").expect("value");
    let b = p.inputs[1].1.parse_value("0").expect("value");
    let out = p.program.eval(&[a, b]).expect("eval");
    assert_eq!(p.outputs[0].1.format_value(&out[0]), "8");
}

#[test]
fn goto_and_labels() {
    check(
        "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    goto end;\nend:\n    return INPUT_A;\n}\n",
        "prog.c:3:5: error: goto is not supported",
    );
}

#[test]
fn io_calls() {
    check(
        "#include <stdio.h>\nint mpc_main(int INPUT_A, int INPUT_B)\n{\n    printf(\"%d\\n\", INPUT_A);\n    return INPUT_B;\n}\n",
        "prog.c:4:5: error: 'printf': input/output and library calls are not supported in a circuit",
    );
    // A string function twofold does not provide is named as one, in a
    // statement or in an expression whose type is asked for (`sizeof`).
    check(
        "#include <string.h>\nint mpc_main(int INPUT_A, int INPUT_B)\n{\n    char s[4] = \"abc\";\n    return strchr(s, INPUT_A) != 0;\n}\n",
        "prog.c:5:12: error: 'strchr': a C library function twofold does not provide (it provides memcpy, memmove, memset, memcmp and <string.h>'s comparisons, copies and lengths of strings): write it as a loop",
    );
    check(
        "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    return sizeof(strrchr(0, 0)) + INPUT_A;\n}\n",
        "prog.c:3:19: error: 'strrchr': a C library function twofold does not provide (it provides memcpy, memmove, memset, memcmp and <string.h>'s comparisons, copies and lengths of strings): write it as a loop",
    );
}

#[test]
fn pointer_escaping_its_object() {
    check(
        "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    int a[4] = {INPUT_A, INPUT_B, 0, 0};\n    int *p = a;\n    p = p + 5;\n    return *p;\n}\n",
        "prog.c:5:11: error: pointer arithmetic leaves the object it points into",
    );
    check(
        "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    int a[4] = {INPUT_A, INPUT_B, 0, 0};\n    return a[4];\n}\n",
        "prog.c:4:13: error: array index 4 is out of bounds [0, 4)",
    );
}

#[test]
fn recursion_without_bound() {
    check(
        "int depth(int x)\n{\n    if (x <= 0)\n        return 0;\n    return 1 + depth(x - 1);\n}\n\nint mpc_main(int INPUT_A, int INPUT_B)\n{\n    return depth(INPUT_A) + INPUT_B;\n}\n",
        "prog.c:5:16: error: recursion deeper than 1000 calls under a secret condition: its depth depends on a secret value (bound it with --unwind N)",
    );
}

/// Each limit on depth names itself: a chain of calls is not recursion, a
/// long sum is deep because it is long, and no --unwind beyond the call
/// limit bounds a recursion.
#[test]
fn depth_limits_say_which_limit() {
    let mut chain = String::from("int f1001(int x)\n{\n    return x;\n}\n");
    for k in (0..1001).rev() {
        chain += &format!("int f{k}(int x)\n{{\n    return f{}(x);\n}}\n", k + 1);
    }
    chain += "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    return f0(INPUT_A);\n}\n";
    let e = error_of(&chain, &CompileOptions::default());
    assert!(
        e.ends_with(
            "error: calls nested deeper than 1000 (a chain of calls of different functions)"
        ),
        "{e}"
    );
    let sum = format!(
        "int mpc_main(int INPUT_A, int INPUT_B)\n{{\n    return INPUT_A{};\n}}\n",
        " + INPUT_B".repeat(2001)
    );
    let e = error_of(&sum, &CompileOptions::default());
    assert!(
        e.contains("error: expression too long or nested too deep"),
        "{e}"
    );
    let recursion = "int depth(int x)\n{\n    if (x <= 0)\n        return 0;\n    return 1 + depth(x - 1);\n}\n\nint mpc_main(int INPUT_A, int INPUT_B)\n{\n    return depth(INPUT_A) + INPUT_B;\n}\n";
    let unwound = CompileOptions {
        unwind: Some(5000),
        ..CompileOptions::default()
    };
    assert_eq!(
        error_of(recursion, &unwound),
        "prog.c:5:16: error: recursion deeper than 1000 calls under a secret condition: its depth depends on a secret value: --unwind 5000 does not bound it, as calls nest at most 1000 deep (give a smaller N)"
    );
}

#[test]
fn public_recursion_is_fine() {
    let src = "int fib(int n)\n{\n    return n < 2 ? n : fib(n - 1) + fib(n - 2);\n}\n\nint mpc_main(int INPUT_A, int INPUT_B)\n{\n    return INPUT_A * fib(10) + INPUT_B;\n}\n";
    let p = compile(src, "prog.c", &CompileOptions::default()).expect("compiles");
    let a = p.inputs[0].1.parse_value("2").expect("value");
    let b = p.inputs[1].1.parse_value("1").expect("value");
    let out = p.program.eval(&[a, b]).expect("eval");
    assert_eq!(p.outputs[0].1.format_value(&out[0]), "111");
}

#[test]
fn undeclared_identifier() {
    check(
        "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    return INPUT_A + y;\n}\n",
        "prog.c:3:22: error: undeclared identifier 'y'",
    );
    check(
        "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    return frobnicate(INPUT_A);\n}\n",
        "prog.c:3:12: error: call of undeclared (or undefined) function 'frobnicate'",
    );
}

#[test]
fn syntax_errors() {
    check(
        "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    return INPUT_A + ;\n}\n",
        "prog.c:3:22: error: expected an expression but found ';'",
    );
    check(
        "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    int x = INPUT_A\n    return x;\n}\n",
        "prog.c:4:5: error: expected ';' but found 'return'",
    );
    check(
        "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    return 1;\n",
        "prog.c:2:1: error: unterminated block: expected '}'",
    );
    check(
        "int x = 'ab;\n",
        "prog.c:1:9: error: unterminated character constant",
    );
}

#[test]
fn inputs_need_an_owner() {
    check(
        "int mpc_main(int INPUT_A, int INPUT_B, int INPUT_C)\n{\n    return INPUT_A * INPUT_B * INPUT_C;\n}\n",
        "prog.c:1:40: error: input 'INPUT_C' belongs to neither party: assign it an owner (e.g. --owner INPUT_C=a)",
    );
}

/// Inputs of no bits at all leave the circuit nothing to make its constant
/// outputs from: a clear error where mpc_main is (it was "cannot finish the
/// circuit: invalid circuit" at 0:0). One bit, of either party, is enough.
#[test]
fn inputs_of_no_bits() {
    check(
        "int mpc_main(int INPUT_A[0], int INPUT_B[0])\n{\n    return 5;\n}\n",
        "prog.c:1:5: error: the program's inputs hold no bits (arrays of no elements): a circuit needs at least one input bit",
    );
    let one_bit = "int mpc_main(int INPUT_A[0], _Bool INPUT_B)\n{\n    return 5;\n}\n";
    compile(one_bit, "prog.c", &CompileOptions::default()).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn other_unsupported_constructs() {
    check(
        "union U { int a; char *b; };\nint mpc_main(int INPUT_A, int INPUT_B)\n{\n    return INPUT_A;\n}\n",
        "prog.c:1:24: error: union member 'b' holds a pointer (pointers in unions are not supported)",
    );
    check(
        "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    int a[INPUT_A & 7];\n    return INPUT_B;\n}\n",
        "prog.c:3:11: error: array size must be known at compile time (it depends on a secret)",
    );
    check(
        "#include <complex.h>\nint mpc_main(int INPUT_A, int INPUT_B)\n{\n    return INPUT_A;\n}\n",
        "prog.c:1:2: error: unsupported system header <complex.h> (built in: stdint.h, inttypes.h, stdbool.h, string.h, stddef.h, stdlib.h, limits.h, math.h, float.h, ctype.h, iso646.h)",
    );
    check(
        "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    int *p = INPUT_B ? &INPUT_A : &INPUT_B;\n    return *p;\n}\n",
        "prog.c:3:22: error: a pointer whose target object depends on a secret condition is not supported",
    );
    // 128-bit integers are supported, but not as inputs or outputs.
    for (t, name) in [
        ("__int128", "__int128"),
        ("__int128_t", "__int128"),
        ("__uint128_t", "unsigned __int128"),
    ] {
        check(
            &format!("void mpc_main()\n{{\n  {t} INPUT_A_x;\n}}\n"),
            &format!(
                "prog.c:3:{}: error: input 'INPUT_A_x' has type {name}, which holds a 128-bit integer: 128-bit integers cannot be inputs or outputs (use two 64-bit halves)",
                t.len() + 4
            ),
        );
    }
    check(
        "int mpc_main(int INPUT_A, int x)\n{\n    return INPUT_A;\n}\n",
        "prog.c:1:27: error: parameter 'x' of the entry function must be an input named INPUT_A..., INPUT_B...",
    );
}

/// C11 and C23 words twofold does not support, and `<math.h>` functions it
/// does not provide, say so (they were "expected ';'" and "call of
/// undeclared function").
#[test]
fn unsupported_keywords_and_math_functions_say_so() {
    let body = |decl: &str| {
        format!("{decl}\nint mpc_main(int INPUT_A, int INPUT_B)\n{{\n    return INPUT_A;\n}}\n")
    };
    check(
        &body("_Atomic int z;"),
        "prog.c:1:1: error: atomic types ('_Atomic') are not supported",
    );
    check(
        &body("int _Atomic z;"),
        "prog.c:1:5: error: atomic types ('_Atomic') are not supported",
    );
    for w in ["_Thread_local", "thread_local", "__thread"] {
        check(
            &body(&format!("static {w} int z;")),
            &format!("prog.c:1:8: error: thread-local storage ('{w}') is not supported"),
        );
    }
    check(
        &body("unsigned _BitInt(7) z;"),
        "prog.c:1:10: error: bit-precise integers ('_BitInt') are not supported (use the types of <stdint.h>)",
    );
    for f in ["sin", "powf", "sqrtl"] {
        check(
            &format!("#include <math.h>\ndouble mpc_main(double INPUT_A, double INPUT_B)\n{{\n    return {f}(INPUT_A);\n}}\n"),
            &format!("prog.c:4:12: error: '{f}': a <math.h> function twofold does not provide (it provides sqrt, fabs, floor, ceil, trunc, round, fmin, fmax, copysign and their float forms, such as sqrtf)"),
        );
    }
}

/// A `case` label inside a block or loop of the switch body (Duff's
/// device) is refused whether the selector is secret or public: with a
/// public one it was skipped (`switch (1) { case 0: ...; { case 1: r +=
/// x; } }` gave 0).
#[test]
fn case_labels_below_the_switch_body() {
    check(
        "int mpc_main(int INPUT_A)\n{\n    int r = 0;\n    switch (1) {\n    case 0:\n        r += 1;\n        { case 1: r += INPUT_A; }\n    }\n    return r;\n}\n",
        "prog.c:7:11: error: case label not directly inside a switch body (unsupported)",
    );
    check(
        "int mpc_main(int INPUT_A[10])\n{\n    int to = 0, i = 0, cnt = 3;\n    switch (2) {\n    case 0: do { to += INPUT_A[i++];\n    case 2: to += INPUT_A[i++];\n    } while (--cnt > 0);\n    }\n    return to;\n}\n",
        "prog.c:6:5: error: case label not directly inside a switch body (unsupported)",
    );
    // A nested switch's own labels are its own.
    let src = "int mpc_main(int INPUT_A)\n{\n    int r = 0;\n    switch (1) {\n    case 1: switch (INPUT_A & 1) { case 1: r = 5; }\n    }\n    return r;\n}\n";
    compile(src, "prog.c", &CompileOptions::default()).expect("a nested switch");
}

/// Compiles `src`; any outcome but an internal error (a caught panic) is fine.
fn no_panic(src: &str) {
    if let Err(e) = compile(src, "g.c", &CompileOptions::default()) {
        assert!(
            !e.message.contains("internal compiler error"),
            "panic on:\n{src}"
        );
    }
}

#[test]
fn garbage_never_panics() {
    let samples = [
        "",
        "int",
        "int mpc_main(",
        "}}}}",
        "#if\n",
        "#define F(x x\nF(1)",
        "int mpc_main(int INPUT_A){return INPUT_A/0;}",
        "int mpc_main(int INPUT_A){int a[2]; return a[INPUT_A];}",
        "struct S s;",
        "int mpc_main(int INPUT_A){return sizeof(struct T);}",
        "int mpc_main(int INPUT_A){ for(;;); }",
        "int mpc_main(int INPUT_A){ int *p = 0; return *p; }",
        "int mpc_main(int INPUT_A){ return ((((((((((INPUT_A)))))))))); }",
        "#include \"missing.h\"\n",
        "int mpc_main(int INPUT_A){ switch (INPUT_A) { case 1: { case 2: return 1; } } return 0; }",
        "int mpc_main(int INPUT_A){ return INPUT_A << 40 >> -3; }",
        "int a[3] = {1,2,3,4};",
        "int mpc_main(int INPUT_A){ char c = '\\q'; return c; }",
        "int mpc_main(int INPUT_A){ return 0x; }",
    ];
    for s in samples {
        no_panic(s);
    }
    // Random token soup.
    let toks = [
        "int", "mpc_main", "(", ")", "{", "}", "INPUT_A", "x", "=", "+", ";", "[", "]", "1", "if",
        "while", "*", "&", ",", "return", "struct", "#define", "\n",
    ];
    let mut state = 12345u64;
    assert!(compile(
        "int mpc_main(int INPUT_A){ int a[3]; int *p = a; return *(p + 0x7fffffffffffffff); }",
        "o.c",
        &CompileOptions::default()
    )
    .is_err());
    for _ in 0..300 {
        let mut s = String::new();
        for _ in 0..40 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            s.push_str(toks[(state >> 33) as usize % toks.len()]);
            s.push(' ');
        }
        no_panic(&s);
    }
    // Random characters, and random edits of a valid program.
    let base = "#include <stdint.h>\n#define N 4\ntypedef struct { int32_t a[N]; char c; } T;\nint f(int *p, int n) { int s = 0; for (int i = 0; i < n; i++) s += p[i] << (i & 3); return s; }\nint mpc_main(T INPUT_A, T INPUT_B) { int x = INPUT_A.a[INPUT_B.c & 3] / (INPUT_B.a[0] | 1); switch (x & 3) { case 1: x++; break; default: x--; } return f(INPUT_A.a, N) + x + 0x7fffffffffffffff; }\n";
    for _ in 0..400 {
        let mut bytes: Vec<u8> = base.as_bytes().to_vec();
        for _ in 0..3 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let at = (state >> 33) as usize % bytes.len();
            let alphabet = b" \n(){}[];,+-*/%<>=!&|^~?:'\"#.0123456789abcxyzINPUT_";
            let c = alphabet[(state >> 20) as usize % alphabet.len()];
            match (state >> 10) % 3 {
                0 => bytes[at] = c,
                1 => bytes.insert(at, c),
                _ => {
                    bytes.remove(at);
                }
            }
        }
        let s = String::from_utf8_lossy(&bytes).to_string();
        no_panic(&s);
    }
}

#[test]
fn an_input_must_have_a_size() {
    check(
        "int mpc_main(int *INPUT_A, int INPUT_B[])\n{\n    return INPUT_A[0] + INPUT_B[0];\n}\n",
        "prog.c:1:14: error: input 'INPUT_A' has type int *, which cannot be an input (declare an array with its size, e.g. int INPUT_A[8], or pass it inside a struct)",
    );
    check(
        "int mpc_main(int INPUT_A[4], int INPUT_B[])\n{\n    return INPUT_A[0] + INPUT_B[0];\n}\n",
        "prog.c:1:30: error: input 'INPUT_B' has type int *, which cannot be an input (declare an array with its size, e.g. int INPUT_B[8], or pass it inside a struct)",
    );
}

/// A parameter's array size is checked though C adjusts it to a pointer:
/// negative (as gcc refuses it) or too large, it is the error, not the
/// pointer it was adjusted to.
#[test]
fn an_array_parameter_of_a_bad_size() {
    check(
        "int mpc_main(int INPUT_A[-1], int INPUT_B)\n{\n    return INPUT_B;\n}\n",
        "prog.c:1:26: error: array size is negative",
    );
    check(
        "int mpc_main(int INPUT_A[1u << 31], int INPUT_B)\n{\n    return INPUT_B;\n}\n",
        "prog.c:1:29: error: array size is too large (more than 1073741824 elements)",
    );
    check(
        "int f(int a[-5])\n{\n    return 1;\n}\nint mpc_main(int INPUT_A, int INPUT_B)\n{\n    int z[2];\n    return f(z) + INPUT_A;\n}\n",
        "prog.c:1:13: error: array size is negative",
    );
}

/// Function pointers compile (`tests/fnptrs.rs`); a call through a null
/// or never assigned one is an error at the pointer called (the inner
/// call of `f(f(x))` runs first).
#[test]
fn function_pointers() {
    check(
        "static int twice(int (*f)(int), int x) { return f(f(x)); }\nint mpc_main(int INPUT_A, int INPUT_B)\n{\n    return twice(0, INPUT_A + INPUT_B);\n}\n",
        "prog.c:1:51: error: call through a null function pointer (or one never assigned)",
    );
    check(
        "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    int (*g)(void);\n    return g() + INPUT_A + INPUT_B;\n}\n",
        "prog.c:4:12: error: call through a null function pointer (or one never assigned)",
    );
}

#[test]
fn static_assertions_and_strings_that_do_not_fit() {
    check(
        "_Static_assert(sizeof(int) == 8, \"int has 64 bits\");\nint mpc_main(int INPUT_A, int INPUT_B) { return INPUT_A; }\n",
        "prog.c:1:1: error: static assertion failed: int has 64 bits",
    );
    check(
        "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    _Static_assert(INPUT_A, \"x\");\n    return INPUT_A;\n}\n",
        "prog.c:3:20: error: the static assertion's condition is not a constant",
    );
    check(
        "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    char s[] = \"four\";\n    _Static_assert(sizeof s == 4);\n    return s[0] + INPUT_A;\n}\n",
        "prog.c:4:5: error: static assertion failed",
    );
    check(
        "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    char s[3] = \"four\";\n    return s[0] + INPUT_A;\n}\n",
        "prog.c:3:17: error: the string literal has 4 characters, more than the array's 3",
    );
    check(
        "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    int s[3] = \"ab\";\n    return s[0] + INPUT_A;\n}\n",
        "prog.c:3:16: error: a string literal cannot initialize an array of int",
    );
}

/// A struct that is declared but never defined has no size: a value of it
/// is an error, a pointer to it is not; a definition needs a member.
#[test]
fn incomplete_structs() {
    let main = |body: &str| {
        format!("struct U;\nint mpc_main(int INPUT_A, int INPUT_B)\n{{\n    {body}\n}}\n")
    };
    check(
        &main("struct U u; return 1;"),
        "prog.c:4:14: error: 'struct U' is an incomplete type here (not defined)",
    );
    check(
        &main("return sizeof(struct U[2]);"),
        "prog.c:4:12: error: 'struct U' is an incomplete type here (not defined)",
    );
    check(
        &main("struct U *p = 0; return sizeof(p->x);"),
        "prog.c:4:37: error: 'struct U' is an incomplete type (not defined)",
    );
    check(
        "struct W { struct W w; };\nint mpc_main(int INPUT_A, int INPUT_B) { return 0; }\n",
        "prog.c:1:21: error: member 'w' has incomplete type 'struct W'",
    );
    check(
        "struct E { };\nint mpc_main(int INPUT_A, int INPUT_B) { return 0; }\n",
        "prog.c:1:1: error: a struct needs at least one member",
    );
    check(
        "struct U;\nint f(struct U u) { return 1; }\nint mpc_main(int INPUT_A, int INPUT_B) { return 0; }\n",
        "prog.c:2:7: error: 'struct U' is an incomplete type here (not defined)",
    );
}

/// GNU `c ?: b` evaluates `c` once; with side effects in `c` it is refused.
#[test]
fn gnu_conditional_with_side_effects() {
    check(
        "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    return INPUT_A++ ?: INPUT_B;\n}\n",
        "prog.c:3:22: error: 'c ?: b' with side effects in 'c' is not supported",
    );
}

/// `#error` shows its text (shortened when long).
#[test]
fn error_directives_show_their_text() {
    let err = error_of(
        "#error this program needs HAVE_FOO\nint mpc_main(int INPUT_A, int INPUT_B) { return 0; }\n",
        &CompileOptions::default(),
    );
    assert!(err.ends_with("#error this program needs HAVE_FOO"), "{err}");
    let long = format!("#error {}\nint x;\n", "word ".repeat(100));
    let err = error_of(&long, &CompileOptions::default());
    assert!(err.len() < 300 && err.ends_with("..."), "{err}");
}

/// Inputs and outputs a program file could not hold are refused when
/// compiling (a file was written that no run could read, and a result
/// nested 127 structs deep made the JSON writer give up).
#[test]
fn values_too_deep_for_a_program_file_are_refused() {
    let nested = |depth: usize| {
        let mut src = String::from("typedef struct { int v; } S0;\n");
        for d in 1..depth {
            src += &format!("typedef struct {{ S{} s; }} S{d};\n", d - 1);
        }
        src
    };
    let ok = format!(
        "{}int mpc_main(S63 INPUT_A, int INPUT_B) {{ return INPUT_B; }}\n",
        nested(64)
    );
    compile(&ok, "prog.c", &CompileOptions::default()).expect("64 levels compile");
    let input = format!(
        "{}int mpc_main(S64 INPUT_A, int INPUT_B) {{ return INPUT_B; }}\n",
        nested(65)
    );
    let err = error_of(&input, &CompileOptions::default());
    assert!(err.contains("input 'INPUT_A': its type nests"), "{err}");
    let output = format!(
        "{}S64 mpc_main(int INPUT_A, int INPUT_B) {{ S64 r = {{0}}; return r; }}\n",
        nested(65)
    );
    let err = error_of(&output, &CompileOptions::default());
    assert!(err.contains("output 'return': its type nests"), "{err}");
}

/// A variable named as an input where no input can be declared, or an
/// input with an initializer, is refused: it read as zeros (or as its
/// party's value, the initializer dropped) without a word.
#[test]
fn inputs_are_declared_only_where_they_can_be() {
    let helper = "int f(void) { int INPUT_A_z; return INPUT_A_z; }\n\
        int mpc_main(int INPUT_A_x, int INPUT_B_y) { return f() + INPUT_A_x; }\n";
    let err = error_of(helper, &CompileOptions::default());
    assert!(
        err.contains("'INPUT_A_z' is named as an input, but only the entry function"),
        "{err}"
    );
    let init =
        "int mpc_main(void) { int INPUT_A_x = 5; int INPUT_B_y; return INPUT_A_x + INPUT_B_y; }\n";
    let err = error_of(init, &CompileOptions::default());
    assert!(
        err.contains("input 'INPUT_A_x' has an initializer"),
        "{err}"
    );
    // (An initialized local of a helper is an ordinary variable.)
    let local = "int f(int v) { int INPUT_A_copy = v; return INPUT_A_copy; }\n\
        int mpc_main(int INPUT_A_x, int INPUT_B_y) { return f(INPUT_A_x) + INPUT_B_y; }\n";
    compile(local, "prog.c", &CompileOptions::default()).expect("compiles");
}

/// A loop whose condition is always true and that nothing leaves is
/// refused where lowering reaches it: it made gates (or simulated
/// iterations) for a minute and a gigabyte until the gate limit stopped
/// it. A `break` out of a `switch` or of an inner loop does not leave
/// it; a `break` of its own, a `return`, or a loop never reached does.
#[test]
fn loops_that_never_end_are_refused_at_once() {
    let never = "prog.c:4:5: error: this loop never ends: its condition is always true and nothing in it leaves it (no 'break' out of it, no 'return')";
    let head = "int mpc_main(int INPUT_A, int INPUT_B)\n{\n    int x = 0;\n";
    for body in [
        "    while (1) { x += INPUT_A; }\n",
        "    for (;;) { switch (x & 3) { case 1: break; default: x += INPUT_A; } }\n",
        "    do { for (int i = 0; i < 4; i++) if (x > INPUT_B) break; x++; } while (2 > 1);\n",
    ] {
        check(&format!("{head}{body}    return x;\n}}\n"), never);
    }
    let left = [
        "    while (1) { x += INPUT_A; if (x > 100) break; }\n    return x;\n}\n",
        "    for (;;) { x += INPUT_A; if (x > INPUT_B) return x; if (x > 9) return 0; }\n}\n",
        "    if (0) while (1) x++;\n    return x;\n}\n",
    ];
    let opts = CompileOptions {
        unwind: Some(12),
        ..CompileOptions::default()
    };
    for body in left {
        compile(&format!("{head}{body}"), "prog.c", &opts).expect("a loop that ends");
    }
    let uncalled = "int spin(int v) { while (1) v++; }\nint mpc_main(int INPUT_A, int INPUT_B) { return INPUT_A; }\n";
    compile(uncalled, "prog.c", &opts).expect("a loop never reached");
}

/// A type that is not declared (a header not included, a typedef
/// misspelled) is named as such, with the standard header that declares
/// it, in a statement, a parameter or at file scope: it was `expected ';'
/// but found 'x'`.
#[test]
fn unknown_type_names() {
    check(
        "int mpc_main(int INPUT_A, int INPUT_B) {\n    uint32_t x = INPUT_A;\n    return x;\n}\n",
        "prog.c:2:5: error: unknown type name 'uint32_t' (is #include <stdint.h> missing?)",
    );
    check(
        "int mpc_main(int INPUT_A, int INPUT_B) { mytype x = 1; return x; }\n",
        "prog.c:1:42: error: unknown type name 'mytype'",
    );
    check(
        "int f(bool b) { return b; }\nint mpc_main(int INPUT_A, int INPUT_B) { return INPUT_A; }\n",
        "prog.c:1:7: error: unknown type name 'bool' (is #include <stdbool.h> missing?)",
    );
    check(
        "size_t n;\nint mpc_main(int INPUT_A, int INPUT_B) { return INPUT_A; }\n",
        "prog.c:1:1: error: unknown type name 'size_t' (is #include <stddef.h> missing?)",
    );
}

/// A pointer walking a string (`for (p = s; *p; p++)`) stops at its
/// terminating zero on every input that has one; unrolled without
/// `--unwind`, it goes on past the array's end, and the error says how to
/// bound the loop (it blamed the pointer arithmetic alone).
#[test]
fn a_string_walk_past_the_end_suggests_unwind() {
    let src = "int mpc_main(char INPUT_A[12], int INPUT_B) {\n    int h = 0;\n    for (const char *p = INPUT_A; *p; p++) h = h * 31 + *p;\n    return h + INPUT_B;\n}\n";
    let e = error_of(src, &CompileOptions::default());
    assert!(e.contains("leaves the object"), "{e}");
    assert!(
        e.contains("the loop at line 3") && e.contains("--unwind N"),
        "{e}"
    );
    let bounded = CompileOptions {
        unwind: Some(12),
        ..CompileOptions::default()
    };
    compile(src, "prog.c", &bounded).unwrap_or_else(|e| panic!("{e}"));
}

/// Constraint violations gcc refuses are refused with its words: two
/// `default` labels in one switch, an enumerator declared twice in one
/// enum, a parameter declared twice or again in the function's outermost
/// block, and declarations of one function with conflicting types (the
/// definition's type was silently used for every call).
#[test]
fn conflicting_declarations() {
    check(
        "int mpc_main(int INPUT_A, int INPUT_B) {\n    switch (INPUT_A) { default: return 1; case 2: default: return 2; }\n    return 0;\n}\n",
        "prog.c:2:51: error: multiple default labels in one switch",
    );
    check(
        "int mpc_main(int INPUT_A, int INPUT_B) {\n    enum { X1 = 1, X2, X1 = 2 };\n    return INPUT_A + X1;\n}\n",
        "prog.c:2:24: error: redeclaration of enumerator 'X1'",
    );
    check(
        "int pd(int a, int a) { return a; }\nint mpc_main(int INPUT_A, int INPUT_B) { return pd(INPUT_A, 2); }\n",
        "prog.c:1:15: error: redefinition of parameter 'a'",
    );
    check(
        "int pr(int a, int b) { int a = 5; return a + b; }\nint mpc_main(int INPUT_A, int INPUT_B) { return pr(INPUT_A, 1); }\n",
        "prog.c:1:28: error: redeclaration of parameter 'a'",
    );
    check(
        "unsigned char pm(int a);\nint mpc_main(int INPUT_A, int INPUT_B) { return pm(INPUT_A); }\nint pm(int a) { return a; }\n",
        "prog.c:3:5: error: conflicting types for 'pm' (int pm(int) here, unsigned char pm(int) at line 1)",
    );
    check(
        "int pl(long long a);\nint pl(char a);\nint mpc_main(int INPUT_A, int INPUT_B) { return INPUT_A; }\n",
        "prog.c:2:5: error: conflicting types for 'pl' (int pl(char) here, int pl(long long) at line 1)",
    );
    // Agreeing declarations are no error: a prototype without its
    // parameters, one with them, `void` for none, a struct incomplete in
    // the prototype, a nested switch's own default, a parameter hidden in
    // an inner block.
    let ok = "int f();\nint f(int a);\nint f(int b) { { int b = 2; return b; } }\nint g(void);\nint g(void) { return 3; }\n\
              struct node;\nint h(struct node *n);\nstruct node { int v; };\nint h(struct node *n) { return n->v; }\n\
              int mpc_main(int INPUT_A, int INPUT_B) {\n    switch (INPUT_A) { default: switch (INPUT_B) { default: return f(1) + g(); } }\n}\n";
    let p = twofold_compiler::compile(ok, "ok.c", &CompileOptions::default());
    assert!(p.is_ok(), "{:?}", p.err().map(|e| e.to_string()));
}

/// A write through a pointer declared to point to `const` values (`const
/// T *p`: `*p`, `p[i]`, `p->m`, also a `const T a[]` parameter) is
/// refused, as gcc refuses it; the pointer itself may change, and a cast
/// or a copy without `const` writes as C lets it.
#[test]
fn writes_through_pointers_to_const() {
    let refused = [
        (
            "int a[2] = {1, 2}; const int *q = a; *q = INPUT_A;",
            "assignment of a read-only location through 'q' (a pointer to const)",
        ),
        (
            "int a[2] = {1, 2}; const int *q = a; q[1] = INPUT_A;",
            "assignment of a read-only location through 'q' (a pointer to const)",
        ),
        (
            "int a[2] = {1, 2}; const int *q = a; (*q)++;",
            "increment of a read-only location through 'q' (a pointer to const)",
        ),
        (
            "struct P { int x; } s = {1}; const struct P *p = &s; p->x = INPUT_A;",
            "assignment of a read-only location through 'p' (a pointer to const)",
        ),
    ];
    for (body, message) in refused {
        let src = format!("int mpc_main(int INPUT_A, int INPUT_B) {{ {body} return INPUT_B; }}\n");
        let e = error_of(&src, &CompileOptions::default());
        assert!(e.contains(message), "{body}: {e}");
    }
    for (params, body) in [("const int *s", "s[0] = 1;"), ("const int s[]", "s[1]--;")] {
        let src = format!("int f({params}) {{ {body} return 0; }}\nint mpc_main(int INPUT_A, int INPUT_B) {{ int a[2] = {{1, 2}}; return f(a) + INPUT_A; }}\n");
        let e = error_of(&src, &CompileOptions::default());
        assert!(
            e.contains("read-only location through 's'"),
            "{params}: {e}"
        );
    }
    // Valid C: the pointer moved, a cast or a copy dropping const, a
    // pointer to pointers to const, a const pointer to writable values,
    // and another `q` in an inner block.
    let ok = "int mpc_main(int INPUT_A, int INPUT_B) {\n    int a[2] = {1, 2}, b[2] = {3, 4};\n    const int *q = a;\n    q = b;\n\
              \x20   *(int *)q = INPUT_A;\n    int *r = (int *)q; r[1] = INPUT_B;\n    const int **pp = &q; *pp = a;\n\
              \x20   int *const cp = a; *cp = 7;\n    { int *q = b; *q += 1; }\n    return a[0] + b[0] + b[1] + *q;\n}\n";
    let p = twofold_compiler::compile(ok, "ok.c", &CompileOptions::default());
    assert!(p.is_ok(), "{:?}", p.err().map(|e| e.to_string()));
}
