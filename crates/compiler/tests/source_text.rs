//! Source text as the lexer meets it: a byte order mark, bytes that are
//! not UTF-8, control characters, and tokens too long to quote whole in a
//! message.

use twofold_compiler::{compile, compile_file, CompileOptions};

fn main_returning(expr: &str) -> String {
    format!("int mpc_main(int INPUT_A, int INPUT_B) {{ return {expr}; }}\n")
}

fn error_of(src: &str) -> String {
    match compile(src, "prog.c", &CompileOptions::default()) {
        Ok(_) => panic!("compiled, but an error was expected"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let src = format!("\u{feff}{}", main_returning("INPUT_A"));
    compile(&src, "bom.c", &CompileOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        error_of(&format!("int x;\u{feff}\n{}", main_returning("INPUT_A"))),
        "prog.c:1:7: error: unexpected character '\u{feff}' (U+FEFF)"
    );
}

#[test]
fn a_byte_that_is_not_utf8_is_an_error_where_it_is() {
    let dir = std::env::temp_dir().join(format!("twofold-text-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let main = main_returning("INPUT_A");
    let latin1 = |before: &str| [before.as_bytes(), b"/* caf\xe9 */\n", main.as_bytes()].concat();
    std::fs::write(dir.join("main.c"), latin1("// one\n  ")).expect("write");
    std::fs::write(dir.join("latin1.h"), latin1("")).expect("write");
    let path = dir.join("main.c");
    let e = compile_file(&path, &CompileOptions::default()).expect_err("not UTF-8");
    assert_eq!((e.line, e.col), (2, 9), "{e}");
    assert!(e.message.contains("not UTF-8 text (byte 0xe9)"), "{e}");
    let src = format!("#include \"latin1.h\"\n{main}");
    let e = compile(
        &src,
        &path.display().to_string(),
        &CompileOptions::default(),
    )
    .expect_err("an included file not UTF-8");
    assert!(e.file.ends_with("latin1.h"), "{e}");
    assert_eq!((e.line, e.col), (1, 7), "{e}");
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn control_characters_are_shown_escaped() {
    let e = error_of(&main_returning("INPUT_A \0 + 1"));
    assert_eq!(e, "prog.c:1:57: error: unexpected character U+0000");
    let e = error_of("_Static_assert(0, \"a\\7b\");\n");
    assert!(e.contains("aU+0007b") && !e.contains('\u{7}'), "{e}");
}

#[test]
fn long_tokens_are_quoted_cut_to_their_start() {
    let digits = format!("1{}", "0".repeat(999_999));
    let e = error_of(&main_returning(&digits));
    assert!(e.len() < 200, "{}", &e[..200]);
    assert!(
        e.ends_with(&format!("'{}… (1000000 bytes)'", &digits[..60])),
        "{e}"
    );
    let name = "q".repeat(1_000_000);
    let e = error_of(&main_returning(&name));
    assert!(e.len() < 200, "{}", &e[..200]);
    assert!(e.contains("… (1000000 bytes)'"), "{e}");
}
