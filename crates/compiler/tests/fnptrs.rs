//! Function pointers, compared with gcc: declarations of every kind
//! (variables, parameters, arrays, struct members, typedefs, `const`),
//! calls through them, pointers chosen by a secret, `qsort`, and the
//! errors of what twofold refuses.

mod common;

use common::{agree_with_gcc, agree_with_gcc_on, compiled, error_of};

/// Declarations of function pointer type and the ways of calling through
/// them: a variable, `&f`, `*f`, `(*f)(x)`, an array indexed by a public
/// value, struct members through `.` and `->`, typedefs (of a pointer
/// and of a function type), a `const` pointer, a function returning a
/// pointer (through a typedef and as C spells it), comparisons with each
/// other and with NULL and 0, and `sizeof`.
#[test]
fn declarations_and_calls_through_pointers() {
    let src = r#"
#include <stddef.h>
typedef int (*binop_t)(int, int);
typedef int binop_fn(int, int);
static int add(int a, int b) { return a + b; }
static int mul(int a, int b) { return a * b; }
static int sub(int a, int b) { return a - b; }
struct calc { int (*op)(int, int); int bias; };
int (*global_op)(int, int) = sub;
static binop_t pick(int k) { return k == 0 ? add : k == 1 ? mul : sub; }
static int (*pick_raw(int k))(int, int) { if (k) return mul; return add; }
static int apply(binop_fn *f, int a, int b) { return f(a, b); }
static int apply_param(int f(int, int), int a, int b) { return (*f)(a, b); }
int mpc_main(int INPUT_A, int INPUT_B)
{
    int (*f)(int, int) = add;
    int r = f(INPUT_A, INPUT_B);
    f = &mul;
    r = r * 3 + (*f)(INPUT_A, 5);
    int (*ops[3])(int, int) = {add, mul, sub};
    for (int i = 0; i < 3; i++)
        r = r * 7 + ops[i](INPUT_A, INPUT_B);
    struct calc c = { sub, 4 };
    struct calc *pc = &c;
    r += c.op(INPUT_B, c.bias) + pc->op(INPUT_A, 1) + (*pc->op)(2, INPUT_B);
    binop_t const g = pick(1);
    int (*const volatile cf)(int, int) = sub;
    r -= cf(INPUT_B, INPUT_A);
    r ^= g(INPUT_A, 3) + pick(2)(INPUT_B, 9) + pick_raw(1)(INPUT_A, 2) + pick_raw(0)(1, 2);
    r += apply(add, INPUT_A, 1) + apply(&sub, 1, INPUT_B) + apply_param(mul, INPUT_A, 2);
    r += global_op(INPUT_A, 100);
    global_op = add;
    r += global_op(INPUT_A, 100);
    r += (&add)(INPUT_A, 1) + (*add)(2, INPUT_B) + (**f)(INPUT_B, 3) + (*&*f)(1, 1);
    binop_t none = NULL, zero = 0;
    r += (f == mul) + 2 * (f != add) + 4 * (none == NULL) + 8 * (zero == 0) + 16 * (f != 0)
        + 32 * (ops[0] == add) + 64 * (ops[1] == ops[2]) + 128 * !none + 256 * (g == pick(1));
    r += 1000 * (sizeof f + sizeof(binop_t) + sizeof ops + sizeof c.op + sizeof(int (*)(int)));
    return r;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 16, 1, "declarations_and_calls_through_pointers");
}

/// A sort written by the user that takes its comparator as a pointer:
/// insertion sort over a public length, called with two comparators.
#[test]
fn user_sort_with_a_comparator() {
    let src = r#"
typedef int (*cmp_t)(int, int);
static int ascending(int a, int b) { return a > b; }
static int by_low_byte(int a, int b) { return (a & 255) > (b & 255); }
static void sort(int *v, int n, cmp_t greater)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j + 1 < n - i; j++)
            if (greater(v[j], v[j + 1])) {
                int t = v[j];
                v[j] = v[j + 1];
                v[j + 1] = t;
            }
}
int mpc_main(int INPUT_A[5], int INPUT_B[5])
{
    int a[5], b[5];
    for (int i = 0; i < 5; i++) {
        a[i] = INPUT_A[i];
        b[i] = INPUT_B[i];
    }
    sort(a, 5, ascending);
    sort(b, 5, by_low_byte);
    int r = 0;
    for (int i = 0; i < 5; i++)
        r = r * 31 + a[i] * 3 + (b[i] & 255);
    return r;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 12, 2, "user_sort_with_a_comparator");
}

/// A pointer whose target depends on a secret — chosen by `?:` on a
/// secret, assigned in a secret branch, returned under a secret
/// condition, read at a secret index — calls each candidate under its
/// condition: the side effects of the one not chosen (a global counter,
/// a write through a pointer) do not happen. One a secret leaves null or
/// not is tested by `if (f)`, `== NULL`, `!f`.
#[test]
fn pointers_chosen_by_a_secret() {
    let src = r#"
#include <stddef.h>
static int calls;
static int add(int a, int b) { calls += 1; return a + b; }
static int mul(int a, int b) { calls += 10; return a * b; }
static int sub(int a, int b) { calls += 100; return a - b; }
static int (*choose(int s))(int, int)
{
    if (s > 0)
        return add;
    return mul;
}
static void twice(int *x) { *x *= 2; }
static void negate(int *x) { *x = -*x; }
int mpc_main(int INPUT_A, int INPUT_B)
{
    int (*f)(int, int) = INPUT_A > 0 ? add : mul;
    int r = f(INPUT_A, INPUT_B);
    int (*g)(int, int) = add;
    if (INPUT_B & 1)
        g = sub;
    else if (INPUT_B & 2)
        g = mul;
    r = r * 5 + g(INPUT_B, 7);
    void (*h)(int *) = twice;
    if (INPUT_A < INPUT_B)
        h = negate;
    int x = INPUT_A;
    h(&x);
    int (*ops[3])(int, int) = {add, mul, sub};
    int k = INPUT_B & 1;
    int (*chosen)(int, int) = k ? ops[2] : ops[0];
    r += ops[INPUT_A & 1](INPUT_B, 2) * 7 + ops[(INPUT_B & 3) % 3](INPUT_A, INPUT_B);
    struct { int (*op)(int, int); int arg; } table[2] = {{mul, 3}, {sub, 4}};
    r += table[INPUT_B > INPUT_A].op(INPUT_A, table[INPUT_B > INPUT_A].arg);
    r += choose(INPUT_A)(INPUT_B, 5) + (choose(INPUT_B) == mul);
    int (*maybe)(int, int) = NULL;
    if (INPUT_A & 4)
        maybe = sub;
    r += maybe ? maybe(INPUT_A, 1) : -1;
    r += (maybe == NULL) * 3 + (maybe != 0) * 5 + !maybe * 7 + (maybe == sub) * 11;
    if (maybe)
        r += maybe(2, INPUT_B);
    return r + x * 3 + calls * 1000 + chosen(INPUT_A, 3) + (f == add) + 2 * (g != sub);
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 24, 3, "pointers_chosen_by_a_secret");
}

/// Calls through pointers in loops that twofold keeps as loops (a public
/// index into an array of pointers, a pointer chosen by a secret in each
/// iteration) and unrolls, recursion through a pointer, and a comparator
/// for `qsort` chosen by a secret.
#[test]
fn pointers_in_loops_and_recursion() {
    let src = r#"
#include <stdlib.h>
static int add(int a, int b) { return a + b; }
static int mul(int a, int b) { return a * b; }
static int xor(int a, int b) { return a ^ b; }
static int fold(int (*f)(int, int), const int *v, int n)
{
    return n == 1 ? v[0] : f(v[n - 1], fold(f, v, n - 1));
}
static int up(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
static int down(const void *a, const void *b) { return *(const int *)b - *(const int *)a; }
int mpc_main(short INPUT_A[16], short INPUT_B[16])
{
    int (*ops[3])(int, int) = {add, mul, xor};
    int r = 0, s = 0;
    for (int i = 0; i < 16; i++)
        r += ops[i % 3](INPUT_A[i], INPUT_B[i]);
    for (int i = 0; i < 16; i++) {
        int (*f)(int, int) = INPUT_A[i] < INPUT_B[i] ? add : xor;
        s = f(s, INPUT_A[i]);
    }
    int v[6];
    for (int i = 0; i < 6; i++)
        v[i] = INPUT_A[i];
    int t = fold(mul, v, 4) + fold(ops[INPUT_A[0] & 1 ? 0 : 2], v, 6);
    qsort(v, 6, sizeof(int), INPUT_B[0] > 0 ? up : down);
    for (int i = 0; i < 6; i++)
        t = t * 3 + v[i];
    return r ^ s ^ t;
}
"#;
    let p = compiled(src);
    let unrolled = twofold_compiler::compile(
        src,
        "prog.c",
        &twofold_compiler::CompileOptions {
            loops: false,
            regions: false,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    agree_with_gcc(
        src,
        &[&p, &unrolled],
        16,
        6,
        "pointers_in_loops_and_recursion",
    );
}

/// `qsort` over an `int` array: a sorting network of compare-swaps, each
/// calling the comparator, for lengths that are no power of two. Random
/// 32-bit inputs are distinct (C's qsort is not stable: only then must
/// the results agree).
#[test]
fn qsort_of_ints() {
    let src = r#"
#include <stdlib.h>
static int ascending(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}
static int descending(const void *a, const void *b)
{
    return ascending(b, a);
}
int mpc_main(int INPUT_A[7], int INPUT_B[7])
{
    int v[7], w[7];
    for (int i = 0; i < 7; i++) {
        v[i] = INPUT_A[i];
        w[i] = INPUT_B[i];
    }
    qsort(v, 7, sizeof v[0], ascending);
    qsort(w, 7, sizeof(int), descending);
    qsort(v + 1, 0, sizeof(int), ascending);
    int r = 0;
    for (int i = 0; i < 7; i++)
        r = r * 33 + v[i] + 5 * w[i];
    return r;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 16, 4, "qsort_of_ints");
}

/// `qsort` over structs by a key: whole elements move together.
#[test]
fn qsort_of_structs_by_a_key() {
    let src = r#"
#include <stdlib.h>
struct item { int key; short tag; char name[3]; };
static int by_key(const void *a, const void *b)
{
    const struct item *x = a, *y = b;
    if (x->key < y->key)
        return -1;
    return x->key > y->key;
}
int mpc_main(int INPUT_A[5], short INPUT_B[5])
{
    struct item items[5];
    for (int i = 0; i < 5; i++) {
        items[i].key = INPUT_A[i];
        items[i].tag = INPUT_B[i];
        for (int j = 0; j < 3; j++)
            items[i].name[j] = (char)(INPUT_B[i] >> j);
    }
    qsort(items, 5, sizeof(struct item), by_key);
    int r = 0;
    for (int i = 0; i < 5; i++)
        r = r * 37 + items[i].key + items[i].tag * 11 + items[i].name[2];
    return r;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 16, 5, "qsort_of_structs_by_a_key");
}

/// `qsort`'s cost is that of its network's compare-swaps: 19 for 8
/// elements (Batcher's odd-even merge sort), each a comparison and a
/// swap of 32-bit words, so some hundreds of AND gates per compare-swap,
/// not more.
#[test]
fn qsort_costs_its_compare_swaps() {
    let src = r#"
#include <stdlib.h>
static int cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x > y;
}
int mpc_main(int INPUT_A[8])
{
    int v[8];
    for (int i = 0; i < 8; i++)
        v[i] = INPUT_A[i];
    qsort(v, 8, sizeof(int), cmp);
    return v[0] ^ v[3] ^ v[7];
}
"#;
    let p = compiled(src);
    let ands = p.program.and_count();
    // A signed 32-bit comparison is about 32 AND gates, a swap 32.
    assert!(ands <= 19 * 64, "{ands} AND gates for 19 compare-swaps");
    assert!(ands >= 19 * 32, "{ands} AND gates for 19 compare-swaps");
    // The same network written out as compare-swaps costs as much (both
    // 1,088 AND gates today).
    let by_hand = r#"
int mpc_main(int INPUT_A[8])
{
    int v[8];
    for (int i = 0; i < 8; i++)
        v[i] = INPUT_A[i];
    for (int p = 1; p < 8; p += p)
        for (int k = p; k > 0; k /= 2)
            for (int j = k % p; j + k < 8; j += k + k)
                for (int i = 0; i < k && i + j + k < 8; i++)
                    if ((i + j) / (p + p) == (i + j + k) / (p + p)) {
                        int x = v[i + j], y = v[i + j + k];
                        if (x > y) {
                            v[i + j] = y;
                            v[i + j + k] = x;
                        }
                    }
    return v[0] ^ v[3] ^ v[7];
}
"#;
    let written = compiled(by_hand).program.and_count();
    assert!(
        ands <= written,
        "qsort: {ands} AND gates, the network by hand: {written}"
    );
    let sets: Vec<Vec<String>> = [
        "{5, 3, 8, 1, 9, 2, 7, 4}",
        "{-1, 0, 2147483647, -2147483647, 3, 4, 5, 6}",
        "{8, 7, 6, 5, 4, 3, 2, 1}",
    ]
    .iter()
    .map(|s| vec![s.to_string()])
    .collect();
    agree_with_gcc_on(src, &[&p], &sets, "qsort_costs_its_compare_swaps");
}

/// What twofold refuses about function pointers, each a clear error.
#[test]
fn function_pointer_errors() {
    let cases: &[(&str, &str)] = &[
        (
            "static int add(int a, int b) { return a + b; }\n\
             int mpc_main(int INPUT_A, int INPUT_B) { int (*f)(int) = (int (*)(int))add; return f(INPUT_A); }",
            "'add' takes 2 arguments, 1 given",
        ),
        (
            "static int add(int a, int b) { return a + b; }\n\
             int mpc_main(int INPUT_A, int INPUT_B) { int (*f)(int, int) = add; return f(INPUT_A); }",
            "takes 2 arguments, 1 given",
        ),
        (
            "int mpc_main(int INPUT_A, int INPUT_B) { int (*f)(int); return f(INPUT_A); }",
            "call through a null function pointer",
        ),
        (
            "int mpc_main(int INPUT_A, int INPUT_B) { int (*f)(int) = 0; return f(INPUT_A) + (*f)(1); }",
            "call through a null function pointer",
        ),
        (
            "static int neg(int a) { return -a; }\n\
             int mpc_main(int INPUT_A, int INPUT_B) { int (*f)(int) = neg; int x[2]; int *p = (int *)f; if (INPUT_A) p = x; return *p; }",
            "a pointer whose target object depends on a secret condition is not supported",
        ),
        (
            "int mpc_main(int (*INPUT_A)(int), int INPUT_B) { return INPUT_B; }",
            "input 'INPUT_A' has type int (*)(int), which cannot be an input",
        ),
        (
            "static int neg(int a) { return -a; }\n\
             int (*mpc_main(int INPUT_A, int INPUT_B))(int) { return neg; }",
            "the entry function cannot return int (*)(int)",
        ),
        (
            "static int neg(int a) { return -a; }\n\
             union u { int (*f)(int); int x; };\n\
             int mpc_main(int INPUT_A, int INPUT_B) { union u v; v.f = neg; return v.f(INPUT_A); }",
            "union member 'f' holds a pointer (pointers in unions are not supported)",
        ),
        (
            "struct s { int (*make(int))(int); };\n\
             int mpc_main(int INPUT_A, int INPUT_B) { return INPUT_A; }",
            "prog.c:1:16: error: a function cannot be declared here",
        ),
        (
            "int mpc_main(int INPUT_A, int INPUT_B) { int x = 1; return x(INPUT_A); }",
            "called object is not a function or a function pointer",
        ),
        (
            "static int neg(int a) { return -a; }\n\
             int mpc_main(int INPUT_A, int INPUT_B) { neg = 0; return INPUT_A; }",
            "'neg' is a function, not an object",
        ),
        (
            "#include <stdlib.h>\n\
             static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }\n\
             int mpc_main(int INPUT_A[4], int INPUT_B) { qsort(INPUT_A, INPUT_B, sizeof(int), cmp); return INPUT_A[0]; }",
            "qsort's number of elements must be known at compile time",
        ),
        (
            "#include <stdlib.h>\n\
             static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }\n\
             int mpc_main(int INPUT_A[4], int INPUT_B) { void *p = INPUT_A; qsort(p, 4, sizeof(int), cmp); return INPUT_A[0]; }",
            "not a void pointer",
        ),
        (
            "#include <stdlib.h>\n\
             static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }\n\
             int mpc_main(int INPUT_A[4], int INPUT_B) { qsort(INPUT_A, 4, 2, cmp); return INPUT_A[0]; }",
            "qsort's element size 2 is not the size of int (4)",
        ),
        (
            "#include <stdlib.h>\n\
             static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }\n\
             int mpc_main(int INPUT_A[4], int INPUT_B) { qsort(INPUT_A, 5, sizeof(int), cmp); return INPUT_A[0]; }",
            "qsort's elements go past the end of the object",
        ),
        (
            "#include <stdlib.h>\n\
             static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }\n\
             int mpc_main(int INPUT_A[4], int INPUT_B) { int *p = bsearch(&INPUT_B, INPUT_A, 4, sizeof(int), cmp); return p ? *p : 0; }",
            "'bsearch': its result points to the element found",
        ),
    ];
    for (src, want) in cases {
        let e = error_of(src);
        assert!(e.starts_with("prog.c:"), "{e}\n{src}");
        assert!(e.contains(want), "got '{e}', want '{want}':\n{src}");
        assert!(!e.contains("internal"), "{e}");
    }
}
