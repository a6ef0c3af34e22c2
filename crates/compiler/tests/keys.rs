//! Keys evaluated on public integers: a loop probed each decides what an
//! iteration does from public expressions of its counter (its keys), which
//! are evaluated directly with C's conversions rather than lowered. Each
//! key here turns on a conversion rule (mixed signedness, narrowing casts,
//! arithmetic shifts, division of negatives, `?:` and `&&`); each
//! iteration's value is wired into its instance, so a wrong value for one
//! iteration makes the output differ from gcc's. (The key is applied to a
//! product of bits: a sum there would be computed ahead of the iteration,
//! see `hoists.rs`, leaving the template no gate to keep.)

mod common;

use std::process::Command;

use common::{agree_with_gcc, gcc_available};
use twofold_compiler::ast::StmtKind;
use twofold_compiler::loops::public::{Column, Compiled};
use twofold_compiler::types::Scalar;
use twofold_compiler::{compile, lexer, parser, CompileOptions};

/// Conditions of `i` (0..96), `n = 7`, `u = 4000000000u` and
/// `c = (signed char)-3`.
const KEYS: &[&str] = &[
    "(i ^ n) > i",
    "(unsigned)(i - 40) < 10u",
    "i - 40 < u",
    "(signed char)(i * 37) < 0",
    "(-i >> 2) % 3 == -1",
    "(~i & 12) == 0",
    "(short)(i << 11) > 0",
    "i / -3 < -10",
    "i % -5 == 1",
    "((long long)i * 1000000007LL) % 7 > 3",
    "(i * u) >> 31",
    "c * i < -100 ? 1 : (i & 1)",
    "(i && (i & n)) || i == 90",
    "i != 50 && 100 / (i - 50) > 1",
    "i == 60 || 7 % (i - 60) == 1",
    "!(i % 7)",
    "(unsigned char)(c + i) > 200",
    "(i << 3 >> 5) == 2",
    "(1u << (i & 31)) > 65536u",
    "(_Bool)(i & 8) + (i > 50) == 1",
];

fn program(key: &str) -> String {
    format!(
        "#include <stdint.h>\n\
         typedef struct {{ uint8_t v[96]; }} Bytes;\n\
         Bytes mpc_main(Bytes INPUT_A, Bytes INPUT_B) {{\n\
         \x20   Bytes r;\n\
         \x20   int n = 7;\n\
         \x20   unsigned u = 4000000000u;\n\
         \x20   signed char c = -3;\n\
         \x20   for (int i = 0; i < 96; i++) {{\n\
         \x20       r.v[i] = (INPUT_A.v[i] & INPUT_B.v[i]) ^ ({key});\n\
         \x20   }}\n\
         \x20   return r;\n\
         }}\n"
    )
}

#[test]
fn keys_take_the_values_gcc_gives_them() {
    if !gcc_available() {
        eprintln!("skipping: gcc is absent");
        return;
    }
    for (n, key) in KEYS.iter().enumerate() {
        let src = program(key);
        let p = compile(&src, "keys.c", &CompileOptions::default())
            .unwrap_or_else(|e| panic!("{e}\n{src}"));
        let kept = p.loops.iter().find(|l| l.line == 8).expect("the loop");
        assert!(!kept.blocks.is_empty(), "{key}: the loop is kept: {kept:?}");
        agree_with_gcc(&src, &[&p], 2, 700 + n as u64, &format!("key{n}"));
    }
}

/// gcc's value of `key` for `i` in 0..96, with the names of [`KEYS`].
fn gcc_values(key: &str, tag: &str) -> Vec<i128> {
    let dir = std::env::temp_dir().join(format!("twofold-keys-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let (cfile, exe) = (dir.join("k.c"), dir.join("k"));
    let c = format!(
        "#include <stdio.h>\n\
         int main(void) {{\n\
         \x20   int n = 7;\n\
         \x20   unsigned u = 4000000000u;\n\
         \x20   signed char c = -3;\n\
         \x20   for (int i = 0; i < 96; i++)\n\
         \x20       printf(\"%lld\\n\", (long long)({key}));\n\
         \x20   return 0;\n\
         }}\n"
    );
    std::fs::write(&cfile, &c).expect("write the program");
    let built = Command::new("gcc")
        .args(["-O0", "-fwrapv", "-w", "-o"])
        .arg(&exe)
        .arg(&cfile)
        .output()
        .expect("run gcc");
    assert!(built.status.success(), "gcc failed on {key}");
    let run = Command::new(&exe).output().expect("run the program");
    let _ = std::fs::remove_dir_all(&dir);
    String::from_utf8_lossy(&run.stdout)
        .lines()
        .map(|l| l.parse().expect("a number a line"))
        .collect()
}

/// The evaluator of keys itself (not the lowering it leaves undefined
/// cases to) gives each key gcc's value in every iteration.
#[test]
fn the_key_evaluator_gives_gcc_values() {
    if !gcc_available() {
        eprintln!("skipping: gcc is absent");
        return;
    }
    let names = [
        ("i", Scalar::INT),
        ("n", Scalar::INT),
        ("u", Scalar::int(32, false)),
        ("c", Scalar::int(8, true)),
    ];
    let resolve = |n: &str| {
        let k = names.iter().position(|(m, _)| *m == n)?;
        Some((k, names[k].1))
    };
    let mut got = Vec::new();
    for (n, key) in KEYS.iter().enumerate() {
        let src = format!("int f(void) {{ return {key}; }}");
        let toks = lexer::lex(&src, 0).expect("lexed");
        let program = parser::parse(&toks, 64).expect("parsed");
        let StmtKind::Block(body) = &program.functions[0].body.kind else {
            panic!("a function body")
        };
        let StmtKind::Return(Some(e)) = &body[0].kind else {
            panic!("a return")
        };
        let compiled = Compiled::new(e, &resolve);
        let wants = gcc_values(key, &n.to_string());
        // All iterations as one batch: `i` takes each, the others are fixed.
        let name = |k| {
            Some(match k {
                0 => Column::Each((0..wants.len() as i128).collect()),
                _ => Column::Same([7, 4_000_000_000, -3][k - 1]),
            })
        };
        compiled.eval_column(&name, wants.len(), &mut got);
        for (i, want) in wants.into_iter().enumerate() {
            assert_eq!(got[i], Some(want), "{key} at i = {i}");
        }
    }
}

/// A condition that looks like a key (the counter beside a value the loop
/// does not write) but is secret, as the value is: the loop is lowered
/// iteration by iteration. It was an internal error.
#[test]
fn a_secret_beside_the_counter_is_no_key() {
    common::agree_kept_and_unrolled(
        "secret_key",
        "typedef struct { int r[32]; } Out;
Out mpc_main(int INPUT_A, int INPUT_B)
{
    Out o;
    unsigned char s = INPUT_A;
    for (int i = 0; i < 32; i++)
        o.r[i] = INPUT_B;
    for (int i = 0; i < 32; i++)
        if (i + s == 5)
            o.r[i] = i;
    for (int i = 0; i < 32; i++)
        if ((i << (s & 31)) == -1 || i * s == 12 || i + s > 300)
            o.r[i] += 100;
    return o;
}",
        17,
    );
}

/// A key that guards what is evaluated (`i > 0 && a[i - 1]`, `c >= w &&
/// dp[c - w]`, `i == 0 || ...`, `i + 1 < n ? a[i + 1] : 0`) stays a
/// constant in each template: read as a fresh input, the guarded operand
/// was evaluated where the key is false, and the program was refused
/// ("array index -1 is out of bounds"), the textbook knapsack among them.
#[test]
fn keys_that_guard_an_access_are_not_read_as_inputs() {
    common::agree_kept_and_unrolled(
        "guards",
        "typedef struct { int v[16]; } Arr;
static const int W[8] = {3, 1, 4, 1, 5, 2, 6, 2};
typedef struct { int r[16]; int k[16]; int g[16]; } Out;
Out mpc_main(Arr INPUT_A, Arr INPUT_B)
{
    Out o;
    for (int i = 0; i < 16; i++) {
        o.r[i] = INPUT_A.v[i] & 1;
        if (i > 0 && INPUT_A.v[i - 1] > INPUT_B.v[i])
            o.r[i] = 2;
        if (i == 0 || INPUT_B.v[i - 1] > 3)
            o.r[i] += 4;
        o.g[i] = i + 1 < 16 ? INPUT_A.v[i + 1] : INPUT_B.v[0];
    }
    int dp[9][17];
    for (int c = 0; c <= 16; c++)
        dp[0][c] = 0;
    for (int i = 1; i <= 8; i++) {
        int w = W[i - 1], v = INPUT_A.v[i - 1] & 255;
        for (int c = 0; c <= 16; c++) {
            dp[i][c] = dp[i - 1][c];
            if (c >= w && dp[i - 1][c - w] + v > dp[i][c])
                dp[i][c] = dp[i - 1][c - w] + v;
        }
    }
    for (int c = 0; c < 16; c++)
        o.k[c] = dp[8][c + 1];
    return o;
}",
        23,
    );
}
