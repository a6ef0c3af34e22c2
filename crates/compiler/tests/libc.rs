//! The C library twofold's headers define in C: `<string.h>`'s lengths,
//! comparisons and copies of strings, `memcmp`, and `<stdlib.h>`'s `div`,
//! compared with gcc (and glibc) on random inputs, kept loops and
//! unrolled; a program's own definition of such a function, and the
//! errors.

mod common;

use common::{agree_kept_and_unrolled, error_of, output_scalars, run};
use twofold_compiler::{compile, CompileOptions};

/// Strings over a small alphabet made from the inputs, so that equal
/// prefixes, early ends and empty strings are all common.
const STRINGS: &str = r#"
#include <string.h>
#include <stdlib.h>
#include <stdint.h>
typedef struct { uint8_t c[8]; int n; } In;
static void make(char *s, const In *in)
{
    for (int i = 0; i < 8; i++)
        s[i] = (in->c[i] & 3) ? 'a' + (in->c[i] >> 7) : 0;
}
static int sign(int x) { return (x > 0) - (x < 0); }
"#;

/// Every function on secret strings: what each returns, and the bytes
/// the copies leave (glibc's comparisons of strings return the
/// difference of the first bytes that differ, as twofold's do; its
/// `memcmp`, on a path it takes for some sizes and where the stack lies,
/// only the sign: -1 where twofold and other runs gave -97, so only the
/// sign is compared).
#[test]
fn string_functions_agree_with_gcc() {
    let src = format!(
        "{STRINGS}
typedef struct {{
    int len_a, len_b, nlen, cmp, sgn, ncmp, mcmp, mcmp_int, cat_len, q, r;
    long lq; long long llr;
    char cpy[12], ncpy[6], cat[12];
}} Out;
Out mpc_main(In INPUT_A, In INPUT_B)
{{
    Out o;
    char a[8], b[8];
    make(a, &INPUT_A);
    make(b, &INPUT_B);
    a[7] = 0;
    b[7] = 0;
    o.len_a = strlen(a);
    o.len_b = __builtin_strlen(b);
    o.nlen = strnlen(a, 3);
    o.cmp = strcmp(a, b);
    o.sgn = sign(strcmp(b, a));
    o.ncmp = strncmp(a, b, 2);
    o.mcmp = sign(memcmp(a, b, 5));
    o.mcmp_int = sign(memcmp(&INPUT_A.n, &INPUT_B.n, sizeof(int)));
    memset(o.cpy, 'x', sizeof o.cpy);
    strcpy(o.cpy, a);
    memset(o.ncpy, 'y', sizeof o.ncpy);
    strncpy(o.ncpy, b, sizeof o.ncpy);
    memset(o.cat, 'z', sizeof o.cat);
    strcpy(o.cat, a);
    strncat(o.cat, b, 4);
    o.cat_len = strlen(o.cat);
    div_t d = div(INPUT_A.n, (INPUT_B.n & 15) + 1);
    o.q = d.quot;
    o.r = d.rem;
    o.lq = ldiv(-(long)INPUT_A.n, 7).quot;
    o.llr = lldiv((long long)INPUT_B.n * 3, -5).rem;
    return o;
}}"
    );
    agree_kept_and_unrolled("strings", &src, 3);
}

/// The functions called in a loop over public counts, on rows of an
/// array, and from a function of the program: `strcat` onto a string
/// of secret length, `strcmp` against every row.
#[test]
fn string_functions_in_loops() {
    let src = format!(
        "{STRINGS}
typedef struct {{ int equal, less, total; char joined[20]; }} Out;
static int equals(const char *x, const char *y) {{ return strcmp(x, y) == 0; }}
Out mpc_main(In INPUT_A, In INPUT_B)
{{
    Out o = {{ 0, 0, 0, {{ 0 }} }};
    char rows[4][4];
    char key[8];
    for (int r = 0; r < 4; r++) {{
        make(key, &INPUT_A);
        for (int i = 0; i < 3; i++)
            rows[r][i] = key[(i + r) % 4];
        rows[r][3] = 0;
    }}
    make(key, &INPUT_B);
    key[3] = 0;
    for (int r = 0; r < 4; r++) {{
        o.equal += equals(rows[r], key);
        o.less += strcmp(rows[r], key) < 0;
        o.total += strlen(rows[r]);
        strcat(o.joined, rows[r]);
    }}
    return o;
}}"
    );
    agree_kept_and_unrolled("string_loops", &src, 5);
}

/// A program's own `strlen` is the one it calls, header or not.
#[test]
fn a_program_defines_its_own() {
    let src = "#include <string.h>
size_t strlen(const char *s) { return 42; }
int mpc_main(int INPUT_A, int INPUT_B) { char s[4] = \"ab\"; return strlen(s) + INPUT_A - INPUT_B; }";
    let p = compile(src, "own.c", &CompileOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let inputs = [
        ("INPUT_A".to_string(), "5".to_string()),
        ("INPUT_B".to_string(), "2".to_string()),
    ];
    assert_eq!(output_scalars(&p, &run(&p, &inputs)), vec![45]);
}

#[test]
fn errors() {
    let cases = [
        (
            "int f(int x) { return x; }\nint f(int x) { return -x; }\nint mpc_main(int INPUT_A, int INPUT_B) { return f(INPUT_A); }",
            "redefinition of 'f' (first defined at line 1)",
        ),
        (
            "#include <string.h>\nint mpc_main(int INPUT_A, int INPUT_B) { char s[4] = \"abc\"; return strlen(&s[INPUT_A & 3]); }",
            "prog.c:2:68: error: in 'strlen': a string function needs a pointer with a public offset",
        ),
        // A `char *` over an `int` reads its bytes (tests/bytes.rs); over
        // pointers it cannot.
        (
            "#include <string.h>\nint mpc_main(int INPUT_A, int INPUT_B) { int *q[2] = { &INPUT_A, &INPUT_B }; return strlen((char *)q); }",
            "in 'strlen': access as char through the bytes of int *[2]: pointers cannot be read or written as bytes",
        ),
        (
            "#include <string.h>\nint mpc_main(int INPUT_A, int INPUT_B) { char s[4] = \"abc\"; return strchr(s, 'b') != 0; }",
            "'strchr': a C library function twofold does not provide",
        ),
    ];
    for (src, want) in cases {
        let e = error_of(src);
        assert!(e.contains(want), "{src}: {e}");
    }
}

/// Called without its header (declared by the program, as C allows, or
/// as GCC's built-in): the header is read after the program. A program's
/// own `strncmp` and `strlen`, and its macros, leave the other functions
/// as they are.
#[test]
fn without_the_header_and_beside_the_programs_names() {
    let src = r#"
#include <stdint.h>
typedef struct { uint8_t c[8]; } In;
int strcmp(const char *, const char *);
int mpc_main(In INPUT_A, In INPUT_B)
{
    char a[8], b[8];
    for (int i = 0; i < 8; i++) {
        a[i] = (INPUT_A.c[i] & 3) ? 'a' + (INPUT_A.c[i] >> 7) : 0;
        b[i] = (INPUT_B.c[i] & 3) ? 'a' + (INPUT_B.c[i] >> 7) : 0;
    }
    a[7] = b[7] = 0;
    return strcmp(a, b) * 100 + (int)__builtin_strlen(a);
}"#;
    agree_kept_and_unrolled("no_header", src, 7);
    let src = "#define n 10
#define len 3
#include <string.h>
int strncmp(const char *a, const char *b, size_t k) { return 77; }
size_t strlen(const char *s) { return 1000; }
int mpc_main(int INPUT_A, int INPUT_B)
{
    char a[4] = \"ab\", b[4] = \"ab\", d[8] = \"x\";
    a[1] += INPUT_A;
    strcat(d, a);
    return strcmp(a, b) + strnlen(a, 5) * n + d[1] * len + strlen(a);
}";
    let p = compile(src, "names.c", &CompileOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let inputs = [
        ("INPUT_A".to_string(), "1".to_string()),
        ("INPUT_B".to_string(), "0".to_string()),
    ];
    // strcmp("ac", "ab") = 1, strnlen = 2, d = "xac": 'a' * 3, own strlen 1000.
    assert_eq!(
        output_scalars(&p, &run(&p, &inputs)),
        vec![1 + 20 + 97 * 3 + 1000]
    );
}
