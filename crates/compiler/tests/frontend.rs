//! Front-end details where we once differed from gcc: `#line`, arrays of
//! characters from strings in braces, constant expressions that are not
//! constant, and how types are named in messages.

mod common;

use common::{agree_with_gcc, circuit_lines, compiled, error_of, run};

/// `#line` renumbers what follows (so `__LINE__` is gcc's, even in gcc's
/// harness, which adds lines before the program), and messages use it;
/// with a file name, `__FILE__` and messages name that file.
#[test]
fn line_directive() {
    let src = "int mpc_main(int INPUT_A, int INPUT_B)\n{\n#line 100\n    int x = __LINE__;\n# 7 \"other.c\"\n    int y = __LINE__;\n#define L 30\n#line L\n    return x * 1000 + y * 10 + __LINE__ + INPUT_A - INPUT_B;\n}\n";
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 4, 1, "line_directive");
    let r = run(
        &p,
        &[
            ("INPUT_A".into(), "0".into()),
            ("INPUT_B".into(), "0".into()),
        ],
    );
    assert_eq!(circuit_lines(&p, &r), ["100100"]);
    assert_eq!(
        error_of(
            "int mpc_main(int INPUT_A, int INPUT_B)\n{\n#line 50\n    return INPUT_A + ;\n}\n"
        ),
        "prog.c:50:22: error: expected an expression but found ';'"
    );
    assert_eq!(
        error_of("#line x\nint mpc_main(int INPUT_A, int INPUT_B) { return 0; }\n"),
        "prog.c:1:1: error: #line needs a line number from 1 to 2147483647"
    );
    // A file name renames what follows too: `__FILE__` and messages.
    let named = "#line 100 \"foo.c\"\nint mpc_main(int INPUT_A, int INPUT_B) { return sizeof(__FILE__) * 1000 + __FILE__[0] + __LINE__ + INPUT_A - INPUT_B; }\n";
    agree_with_gcc(named, &[&compiled(named)], 2, 2, "line_file");
    assert_eq!(
        error_of(
            "# 7 \"other.c\"\nint mpc_main(int INPUT_A, int INPUT_B) { return INPUT_A + ; }\n"
        ),
        "other.c:7:59: error: expected an expression but found ';'"
    );
}

/// `char a[2][4] = {"ab", "cde"}` and `char a[] = {"ab"}`, as gcc has them.
#[test]
fn strings_in_braces() {
    let src = r#"
typedef struct { char name[6]; int n; } Item;
typedef struct { char a[2][4]; char b[3]; char c[5]; Item it[2]; int size; } Out;

Out mpc_main(int INPUT_A, int INPUT_B)
{
    Out o;
    char a[2][4] = {"ab", "cde"};
    char b[] = {"ab"};
    char c[5] = {"xyz"};
    Item it[2] = {{"one", 1}, {{"two"}, 2}};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++) o.a[i][j] = a[i][j] + INPUT_A;
    for (int i = 0; i < 3; i++) o.b[i] = b[i] - INPUT_B;
    for (int i = 0; i < 5; i++) o.c[i] = c[i];
    o.it[0] = it[0];
    o.it[1] = it[1];
    o.size = sizeof b * 100 + sizeof it[0].name;
    return o;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 4, 2, "strings_in_braces");
}

#[test]
fn static_assertion_of_a_division_by_zero() {
    assert_eq!(
        error_of(
            "_Static_assert(1/0, \"d\");\nint mpc_main(int INPUT_A, int INPUT_B) { return 0; }\n"
        ),
        "prog.c:1:17: error: the static assertion's condition is not a constant"
    );
}

/// Array types are named as declared: `int[2][3]` for `int x[2][3]`.
#[test]
fn array_types_in_messages() {
    let p = compiled(
        "int mpc_main(int INPUT_A[2][3], int INPUT_B) { return INPUT_A[1][2] + INPUT_B; }\n",
    );
    let (_, ty) = &p.inputs[0];
    assert_eq!(ty.name(), "int[2][3]");
    let e = ty.parse_value("5").expect_err("a scalar for an array");
    assert_eq!(e.message, "expected '{' for a value of type int[2][3]");
}

/// A string literal is a value for an array of characters, braced or not,
/// with C's escapes; its terminating zero goes where there is room.
#[test]
fn string_values_for_character_arrays() {
    let p = compiled(
        "typedef struct { char name[4]; unsigned char tag[2]; int n; } T;\nint mpc_main(T INPUT_A, int INPUT_B) { return INPUT_A.name[1] + INPUT_B; }\n",
    );
    let (_, ty) = &p.inputs[0];
    let value = |text: &str| ty.parse_value(text).map(|bits| ty.format_value(&bits));
    assert_eq!(
        value("{\"ab\", \"\\n\", 7}").unwrap(),
        "{{97, 98, 0, 0}, {10, 0}, 7}"
    );
    assert_eq!(
        value("{{\"abcd\"}, {\"\\\"\\0\"}, -1}").unwrap(),
        "{{97, 98, 99, 100}, {34, 0}, -1}"
    );
    let long = value("{\"abcde\"}").expect_err("too long");
    assert_eq!(long.message, "the string is longer than char[4]");
    let int = value("{\"ab\", \"c\", \"d\"}").expect_err("not characters");
    assert_eq!(
        int.message,
        "a string is a value for an array of characters, not int"
    );
    assert_eq!(
        value("{\"a\\q\"}").expect_err("escape").message,
        "unknown escape sequence '\\q'"
    );
    // Numeric escapes, as in C's literals: `"\01A"` is {1, 'A'}, not
    // {0, '1', 'A'}; a character constant is an `int` of a `char`.
    assert_eq!(
        value("{\"\\01A\", \"\\x41\", '\\xff'}").unwrap(),
        "{{1, 65, 0, 0}, {65, 0}, -1}"
    );
    assert_eq!(
        value("{\"\\101\\x42\", {'\\01', '\\a'}, '\\n'}").unwrap(),
        "{{65, 66, 0, 0}, {1, 7}, 10}"
    );
    assert_eq!(
        value("{\"ab").expect_err("unterminated").message,
        "unterminated string"
    );
}

/// Macros expand with the definitions in force where they are used (an
/// `#undef` and a new `#define` later do not reach back: X-macros), and
/// hide sets follow tokens through macro arguments: the C standard's
/// example (C11 6.10.3.5), a macro whose argument names itself, and a
/// macro name passed as an argument, all as gcc has them.
#[test]
fn macros_expand_where_used_with_their_hide_sets() {
    let src = r#"
int zz[1];
int N = 4;
int f(int a) { return a + 1000; }
int t(int a) { return a * 7; }
int m(int a, int b) { return a * 3 + b; }
#define X 1
int a = X;
#undef X
#define X 2
#define LIST ITEM(p, 3) ITEM(q, 5)
#define ITEM(name, v) int name = v;
LIST
#undef ITEM
#define ITEM(name, v) + name * v
#define x 3
#define f(a) f(x * (a))
#undef x
#define x 2
#define g f
#define z zz[0]
#define h g(~
#define m(a) a(w)
#define w 0,1
#define t(a) a
#define q(x) x
#define N F(N)
#define F(v) (v + 5)
#define k(a) a*j
#define j(a) k(a)
int mpc_main(int INPUT_A, int INPUT_B)
{
    zz[0] = INPUT_B;
    int y = INPUT_A;
    int j = 3;
    int r = f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);
    int s = g(x+(3,4)-w) | h 5) & m
(f)^m(m);
    return r * 31 + s + N + q(q(N)) + a * 10 + X LIST + k(2)(9);
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 6, 7, "macros_where_used");
    let r = run(
        &p,
        &[
            ("INPUT_A".into(), "5".into()),
            ("INPUT_B".into(), "9".into()),
        ],
    );
    // gcc's value: 33726 + a * 10 + X (12) + p * 3 + q * 5 (34) + 2*9*j
    // (54).
    assert_eq!(circuit_lines(&p, &r), ["33826"]);
}
