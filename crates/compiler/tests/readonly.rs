//! What gcc refuses in declarations is refused, with a message: a
//! `const` object modified by its name, a name declared twice in one
//! block, an `extern` object never defined but used; and what gcc
//! accepts around them (pointers to `const`, shadowing, `extern` then
//! the definition, `sizeof` of an undefined `extern`) compiles and
//! computes what gcc computes.

mod common;

use std::process::Command;

use common::{agree_kept_and_unrolled, error_of, gcc_available};

/// Whether gcc refuses to compile and link `src` (with a `main` calling
/// nothing: an undefined object is a link error).
fn gcc_refuses(src: &str, tag: &str) -> bool {
    let dir = std::env::temp_dir().join(format!("twofold-readonly-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("prog.c");
    std::fs::write(
        &file,
        format!("{src}\nint main(void) {{ return mpc_main(1, 2); }}\n"),
    )
    .unwrap();
    let out = Command::new("gcc")
        .args(["-w", "-o"])
        .arg(dir.join("prog"))
        .arg(&file)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    !out.status.success()
}

#[test]
fn modifying_a_const_object_redeclaring_or_reading_an_undefined_extern_is_refused() {
    let head = "int mpc_main(int INPUT_A, int INPUT_B)\n{\n";
    let cases = [
        (
            "    const int k = 3;\n    k = INPUT_A;\n    return k + INPUT_B;\n}\n",
            "prog.c:4:7: error: assignment of the read-only variable 'k' (declared const)",
        ),
        (
            "    const int a[2][2] = {{1, 2}, {3, 4}};\n    a[1][0] += INPUT_A;\n    return a[1][0];\n}\n",
            "prog.c:4:13: error: assignment of a part of the read-only variable 'a' (declared const)",
        ),
        (
            "    const struct { int v, w; } s = {1, 2};\n    s.w++;\n    return s.w + INPUT_B;\n}\n",
            "prog.c:4:8: error: increment of a part of the read-only variable 's' (declared const)",
        ),
        (
            "    static const int t = 5;\n    --t;\n    return t + INPUT_B;\n}\n",
            "prog.c:4:5: error: decrement of the read-only variable 't' (declared const)",
        ),
        (
            "    int x = INPUT_A;\n    int x = INPUT_B;\n    return x;\n}\n",
            "prog.c:4:9: error: redefinition of 'x' in the same scope",
        ),
    ];
    for (k, (body, expected)) in cases.iter().enumerate() {
        let src = format!("{head}{body}");
        assert_eq!(error_of(&src), *expected, "{src}");
        if gcc_available() {
            assert!(gcc_refuses(&src, &k.to_string()), "gcc accepts:\n{src}");
        }
    }
    let parameter =
        "int mpc_main(const int INPUT_A, int INPUT_B)\n{\n    INPUT_A++;\n    return INPUT_A;\n}\n";
    let global = "const int g = 4;\nint mpc_main(int INPUT_A, int INPUT_B)\n{\n    g = INPUT_B;\n    return g;\n}\n";
    let undefined =
        "extern int g;\nint mpc_main(int INPUT_A, int INPUT_B)\n{\n    return g + INPUT_A;\n}\n";
    let refused = [
        (
            parameter,
            "prog.c:3:12: error: increment of the read-only variable 'INPUT_A' (declared const)",
        ),
        (
            global,
            "prog.c:4:7: error: assignment of the read-only variable 'g' (declared const)",
        ),
        (
            undefined,
            "prog.c:4:12: error: 'g' is declared extern but never defined (undefined reference)",
        ),
    ];
    for (k, (src, expected)) in refused.iter().enumerate() {
        assert_eq!(error_of(src), *expected, "{src}");
        if gcc_available() {
            assert!(gcc_refuses(src, &format!("p{k}")), "gcc accepts:\n{src}");
        }
    }
}

#[test]
fn what_gcc_accepts_around_const_and_extern_compiles() {
    let src = r#"
#include <stdint.h>
typedef int *int_ptr;
extern int later[3];
extern int only_declared;
extern int unused(int);
static const int8_t table[4] = {3, -1, 4, -1};
int later[3] = {5, 6, 7};
struct pair { const int *p; int v; };
int mpc_main(int INPUT_A, int INPUT_B)
{
    int a[3] = {INPUT_A, INPUT_B, 1};
    const int *p = a;
    p++;
    int *const q = a;
    q[2] = INPUT_A ^ INPUT_B;
    const int_ptr r = a;
    r[0] += 7;
    const int k = INPUT_A;
    int sum = k + *p;
    {
        int k = 2;
        k += INPUT_B;
        sum += k;
    }
    extern int later[3];
    extern int later[3];
    const struct pair s = {a, 9};
    sum += s.p[1] + s.v + table[INPUT_B & 3];
    for (const int *it = a; it < a + 3; it++)
        sum += *it;
    return sum + later[1] + (int)sizeof(only_declared);
}
"#;
    agree_kept_and_unrolled("readonly_accepted", src, 73);
}
