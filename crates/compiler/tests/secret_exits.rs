//! Loops and recursion whose end depends on a secret, each compared with
//! gcc on random inputs: bounded by `--unwind`, or ending by themselves
//! where a counter stays public on the paths still running.

mod common;

use common::{agree_with_gcc, agree_with_gcc_on};
use twofold_compiler::{compile, CompileOptions};

fn agree(name: &str, src: &str, opts: &CompileOptions) {
    let p = compile(src, &format!("{name}.c"), opts).unwrap_or_else(|e| panic!("{e}"));
    agree_with_gcc(src, &[&p], 16, 7, name);
}

fn default() -> CompileOptions {
    CompileOptions::default()
}

/// 24 input sets of two structs of eight `int`s in `-offset..span-offset`
/// (a fixed sequence): small values, so that equalities and exits occur.
fn small_sets(span: u64, offset: i64) -> Vec<Vec<String>> {
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut small = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % span) as i64 - offset
    };
    (0..24)
        .map(|_| {
            (0..2)
                .map(|_| {
                    let v: Vec<String> = (0..8).map(|_| small().to_string()).collect();
                    format!("{{{{{}}}}}", v.join(", "))
                })
                .collect()
        })
        .collect()
}

#[test]
fn secret_loop_exit_with_unwind() {
    let src = r#"
#include <stdint.h>
typedef struct { uint32_t a; uint32_t b; } P;
typedef struct { uint32_t gcd; int steps; } Out;
Out mpc_main(P INPUT_A, P INPUT_B)
{
    Out o;
    uint32_t a = (INPUT_A.a & 0xffff) | 1, b = (INPUT_B.b & 0xffff) | 1;
    o.steps = 0;
    while (b != 0) {
        uint32_t t = a % b;
        a = b;
        b = t;
        o.steps++;
    }
    o.gcd = a;
    return o;
}
"#;
    // Euclid on 16-bit numbers takes at most 24 steps.
    let opts = CompileOptions {
        unwind: Some(25),
        ..CompileOptions::default()
    };
    agree("gcd", src, &opts);
}

/// A loop whose condition was secret goes on counting its iterations
/// where the condition has become true on the paths still running: here
/// the path `x == 0` (which has returned) would shift forever. It was
/// unrolled until the 50 M iterations limit (a hang); now `--unwind`
/// bounds it, and without it the error comes at once.
#[test]
fn a_secret_loop_whose_condition_turns_true_is_bounded() {
    let src = r#"
#include <stdint.h>
typedef struct { uint32_t x; int16_t y; } In;
int mpc_main(In INPUT_A, In INPUT_B)
{
    uint32_t x = INPUT_A.x ^ INPUT_B.x;
    if ((INPUT_B.y & 3) == 0)
        x &= 0xffff0000u;
    if (x == 0)
        return 32;
    int n = 0;
    while ((x & 1) == 0) {
        x >>= 1;
        n++;
    }
    return n;
}
"#;
    let opts = CompileOptions {
        unwind: Some(32),
        ..CompileOptions::default()
    };
    agree("ctz", src, &opts);
    let e = compile(src, "ctz.c", &default()).unwrap_err().to_string();
    assert!(e.contains("did not end within 1024 iterations"), "{e}");
}

/// `while (1)` ends by its breaks as `for (;;)` does: a break on a secret
/// path makes its later iterations count toward `--unwind`. It was never
/// counted, and grew past the gates limit whatever `--unwind` said.
#[test]
fn while_1_with_a_secret_break_is_bounded_like_for_ever() {
    let src = r#"
typedef struct { int a[5]; } In;
int mpc_main(In INPUT_A, In INPUT_B)
{
    int k = 0;
    while (1) {
        if (k >= 5) break;
        if (INPUT_A.a[k] < INPUT_B.a[k]) break;
        k++;
    }
    return k;
}
"#;
    let opts = CompileOptions {
        unwind: Some(5),
        ..CompileOptions::default()
    };
    agree("while1", src, &opts);
}

/// A secret `return` is a secret exit as a secret `break` is: the
/// iterations after it count toward `--unwind` (and the default bound).
/// They were not counted, and such a loop made gates until the gate limit
/// stopped it, whatever `--unwind` said.
#[test]
fn loops_left_by_a_secret_return_are_bounded_by_unwind() {
    let src = r#"
int mpc_main(int INPUT_A, int INPUT_B)
{
    unsigned x = INPUT_A & 7;
    for (;;) {
        x += 3;
        if (x > (unsigned)(INPUT_B & 15) + 8)
            return (int)x;
        if (x == 13)
            return -1;
    }
}
"#;
    let opts = CompileOptions {
        unwind: Some(9),
        ..CompileOptions::default()
    };
    agree("for_ever_return", src, &opts);
    let while_1 = src.replace("for (;;)", "while (1)");
    agree("while1_return", &while_1, &opts);
    // (Ranges end that loop by themselves; this one has none to end it.)
    let unbounded = "int mpc_main(unsigned INPUT_A, unsigned INPUT_B)\n{\n    for (;;) {\n        INPUT_A += 3;\n        if (INPUT_A == INPUT_B)\n            return 1;\n    }\n}\n";
    let e = compile(unbounded, "unbounded.c", &default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("did not end within 1024 iterations"), "{e}");
}

#[test]
fn secret_recursion_depth_with_unwind() {
    let src = r#"
static int depth(int x) { if (x <= 0) return 0; return 2 + depth(x - 1); }
static int sum_digits(unsigned x) { return x == 0 ? 0 : x % 10 + sum_digits(x / 10); }
int mpc_main(int INPUT_A, unsigned INPUT_B)
{
    return depth(INPUT_A & 7) * 100 + sum_digits(INPUT_B & 0xffff);
}
"#;
    // depth recurses at most 7 times, sum_digits at most 5 (+1 each).
    let opts = CompileOptions {
        unwind: Some(8),
        ..CompileOptions::default()
    };
    agree("secret_recursion", src, &opts);
}

#[test]
fn linear_search_with_break_stays_small() {
    let src = "typedef struct { int a[64]; } Arr;\nint mpc_main(Arr INPUT_A, int INPUT_B)\n{\n    int i;\n    for (i = 0; i < 64; i++)\n        if (INPUT_A.a[i] == INPUT_B)\n            break;\n    return i;\n}\n";
    let p = compile(src, "find.c", &default()).expect("compiles without --unwind");
    // 64 equality tests of 31 AND gates, and the index's multiplexers.
    assert!(
        p.program.and_count() < 2600,
        "{} AND gates",
        p.program.and_count()
    );
    agree("find", src, &default());
}

/// A `for` loop with a `continue` on a secret path and a secret `break`
/// after it: the counter is stepped on every path still running, so it
/// stays public there and the loop ends by itself, nested too. The paths
/// still running after the body were not known to have run it from its
/// start, so the counter was secret after both and the loop needed
/// `--unwind`.
#[test]
fn continue_then_secret_break_needs_no_unwind() {
    let src = r#"
typedef struct { int a[8]; } In;
typedef struct { int sum, last, pairs; } Out;
Out mpc_main(In INPUT_A, In INPUT_B)
{
    Out o = {0, -1, 0};
    int i = 0;
    for (; i < 8; i++) {
        if (INPUT_A.a[i] % 3 == 0)
            continue;
        if (INPUT_A.a[i] == INPUT_B.a[0])
            break;
        o.sum += INPUT_A.a[i];
        for (int j = 0; j < 4; j++) {
            if (INPUT_B.a[j] < 0)
                continue;
            if (INPUT_B.a[j] == INPUT_A.a[i])
                break;
            o.pairs++;
        }
    }
    o.last = i;
    return o;
}
"#;
    agree("continue_break", src, &default());
    // Small inputs, so that every path is taken.
    let p = compile(src, "continue_break.c", &default()).unwrap_or_else(|e| panic!("{e}"));
    agree_with_gcc_on(src, &[&p], &small_sets(7, 2), "continue_break_small");
}

/// Loops whose counter steps on the paths still running, after an update
/// on a secret path (`if (x) found = 1; else i++;`), a secret `break`
/// before the condition of a `do`-`while`, or a secret `break` before a
/// public one in `for (;;)`: what each path holds is a merge of merges,
/// given back through each condition known on the path (its negation
/// too), so the counter stays public and no `--unwind` is needed.
#[test]
fn counters_merged_twice_stay_public_on_running_paths() {
    let src = r#"
typedef struct { int a[8]; } In;
typedef struct { int found, at, sum, upto, first, total; } Out;
Out mpc_main(In INPUT_A, In INPUT_B)
{
    Out o = {0, 0, 0, 0, 0, 0};
    int i = 0;
    while (i < 8 && !o.found) {
        if (INPUT_A.a[i] == INPUT_B.a[0])
            o.found = 1;
        else
            i++;
    }
    o.at = i;
    int j = 0;
    do {
        if (INPUT_A.a[j] > INPUT_B.a[1])
            break;
        o.sum += INPUT_A.a[j];
        j++;
    } while (j < 8);
    o.upto = j;
    int k = 0;
    for (;;) {
        if (INPUT_A.a[k] < INPUT_B.a[k])
            break;
        o.total += INPUT_B.a[k];
        k++;
        if (k == 8)
            break;
    }
    o.first = k;
    return o;
}
"#;
    agree("merged_twice", src, &default());
    // Small values, so that every exit is taken.
    let p = compile(src, "merged_twice.c", &default()).unwrap_or_else(|e| panic!("{e}"));
    agree_with_gcc_on(src, &[&p], &small_sets(7, 3), "merged_twice_small");
}

/// Random programs whose loops a secret ends early (testkit's
/// `random_secret_exit_program`): each compiles without `--unwind`, and
/// kept and unrolled agree with gcc on random and on small inputs.
#[test]
fn random_secret_exits_end_by_themselves_and_agree_with_gcc() {
    use rand::SeedableRng;
    let mut rng = rand::rngs::StdRng::seed_from_u64(31);
    for round in 0..30 {
        let src = twofold_testkit::random_secret_exit_program(&mut rng);
        let name = format!("exits{round}.c");
        let compile_with = |loops| {
            let opts = CompileOptions {
                loops,
                ..CompileOptions::default()
            };
            compile(&src, &name, &opts).unwrap_or_else(|e| panic!("{e}\n{src}"))
        };
        let (kept, flat) = (compile_with(true), compile_with(false));
        agree_with_gcc(&src, &[&kept, &flat], 4, 300 + round, &name);
    }
}

/// A loop left by a secret `return` and another secret exit (a `break`,
/// a found flag in the condition, a `break` of an outer loop): once the
/// condition fails on every path still running, the loop ends, though the
/// merged flags do not fold to show that no path runs. These compiled
/// for ever (a search helper: `return i` on a match, `break` past the
/// key), or read past an array where the next iteration's index would
/// be.
#[test]
fn a_secret_return_beside_another_secret_exit_ends_the_loop() {
    let src = r#"
typedef struct { int a[8]; } In;
typedef struct { int find, one, flag, nested; } Out;
static int find(const int *a, int key)
{
    for (int i = 0; i < 8; i++) {
        if (a[i] == key)
            return i;
        if (a[i] > key)
            break;
    }
    return -1;
}
static int one(int x, int y)
{
    for (int j = 0; j < 1; j++) {
        if (x) return 1;
        if (y) break;
    }
    return 0;
}
static int flag(const int *a, int k)
{
    int i = 0, found = 0;
    while (i < 2 && !found) {
        if (a[i] == k) found = 1;
        if (a[i + 1] == k) return 7;
        i++;
    }
    return found + 2 * i;
}
static int nested(const int *a, const int *b)
{
    int s = 0;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 2; j++) {
            if (a[i] == b[j]) return 10 + i;
            s += j;
        }
        if (b[2] == i) break;
    }
    return s;
}
Out mpc_main(In INPUT_A, In INPUT_B)
{
    int sorted[8];
    for (int i = 0; i < 8; i++)
        sorted[i] = INPUT_A.a[0] + 2 * i;
    Out o;
    o.find = find(sorted, INPUT_B.a[0]);
    o.one = one(INPUT_A.a[1] & 1, INPUT_B.a[1] & 1);
    o.flag = flag(INPUT_A.a, INPUT_B.a[2]);
    o.nested = nested(INPUT_A.a, INPUT_B.a);
    return o;
}
"#;
    let p = compile(src, "return_and_break.c", &default()).unwrap_or_else(|e| panic!("{e}"));
    agree_with_gcc_on(src, &[&p], &small_sets(7, 2), "return_and_break");
    agree("return_and_break", src, &default());
}

/// Loops whose counter is stepped on every path going on, inside secret
/// branches that `continue` as well as after them, beside a secret
/// `break` too: merged from paths that each hold the same value, the
/// counter is that constant (where the paths go on), though no gate folds
/// to show it. It was secret, so these needed `--unwind`, and an array
/// read at the counter failed as out of bounds even with it.
#[test]
fn a_counter_stepped_in_every_secret_branch_stays_public() {
    let src = r#"
typedef struct { int a[8]; } In;
typedef struct { int modes, steps, skips, until, scan; } Out;
static int modes(const int *a, int m)
{
    int out = 0, i = 0;
    while (i < 8) {
        if (m == 1) { out += a[i]; i++; continue; }
        if (m == 2) { out -= a[i]; ++i; continue; }
        if (a[i] < 0) { out ^= a[i]; i += 1; continue; }
        out ^= a[i];
        i++;
    }
    return out;
}
static int steps(int x, int y)
{
    int i = 0;
    while (i < 4) {
        if (x) { i++; continue; }
        if (y) { i++; continue; }
        i++;
    }
    return i;
}
static int skips(const int *a, const int *b)
{
    int n = 0, j = 0;
    do {
        if (a[j] == b[j]) { j += 2; continue; }
        if (a[j] > b[j]) { n++; j += 2; continue; }
        n += 2;
        j += 2;
    } while (j < 8);
    return n + j;
}
static int until(const int *a, int stop)
{
    int i = 0;
    while (i < 6) {
        if (a[i] == stop) break;
        if (a[i] != 1) { i++; continue; }
        i++;
    }
    return i;
}
static int scan(const int *a, int k)
{
    int i = 0, n = 0;
    for (;;) {
        if (a[i] == k) break;
        if (a[i] < 0) {
            i++;
            if (i == 8) break;
            continue;
        }
        n += a[i];
        i++;
        if (i == 8) break;
    }
    return n * 10 + i;
}
Out mpc_main(In INPUT_A, In INPUT_B)
{
    Out o;
    o.modes = modes(INPUT_A.a, INPUT_B.a[0] & 3);
    o.steps = steps(INPUT_A.a[1] & 1, INPUT_B.a[1] & 1);
    o.skips = skips(INPUT_A.a, INPUT_B.a);
    o.until = until(INPUT_A.a, INPUT_B.a[2]);
    o.scan = scan(INPUT_A.a, INPUT_B.a[3]);
    return o;
}
"#;
    let p = compile(src, "stepped.c", &default()).unwrap_or_else(|e| panic!("{e}"));
    agree_with_gcc_on(src, &[&p], &small_sets(5, 2), "stepped_small");
    agree("stepped", src, &default());
}

/// A merge's loop runs until both inputs are taken (`while (i < n || j <
/// n)`), each iteration stepping one of two secret counters: where every
/// path is done, the condition is false though no gate folds it, and the
/// loop ends by itself (small merges); an iteration past the end, lowered
/// on a path that never runs (larger ones, under `--unwind`), writes
/// `out[k]` past the array, which was refused as out of bounds.
#[test]
fn merges_end_when_every_path_is_done() {
    let small = r#"
typedef struct { int v[4]; } Out;
Out mpc_main(int INPUT_A, int INPUT_B)
{
    Out o = {{0}};
    int i = 0, j = 0, k = 0;
    while (i < 2 || j < 2) {
        if (j >= 2 || (i < 2 && (INPUT_A >> k & 1))) i++; else j++;
        o.v[k++] = i * 10 + j + INPUT_B;
    }
    return o;
}
"#;
    agree("merge_steps", small, &default());
    // Four iterations' steps and sums, not a fifth and sixth on no path.
    let p = compile(small, "merge_steps.c", &default()).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        p.program.and_count() < 200,
        "{} AND gates",
        p.program.and_count()
    );
    let merge = r#"
#define N 6
typedef struct { int v[N]; } Arr;
typedef struct { int v[2 * N]; } Out;
Out mpc_main(Arr INPUT_A, Arr INPUT_B)
{
    Out o;
    int i = 0, j = 0, k = 0;
    for (int m = 1; m < N; m++) {
        INPUT_A.v[m] = INPUT_A.v[m - 1] + (INPUT_A.v[m] & 7);
        INPUT_B.v[m] = INPUT_B.v[m - 1] + (INPUT_B.v[m] & 7);
    }
    while (i < N || j < N) {
        if (j >= N || (i < N && INPUT_A.v[i] <= INPUT_B.v[j])) o.v[k++] = INPUT_A.v[i++];
        else o.v[k++] = INPUT_B.v[j++];
    }
    return o;
}
"#;
    let opts = CompileOptions {
        unwind: Some(2 * 6),
        ..CompileOptions::default()
    };
    agree("merge", merge, &opts);
}

/// Loops whose exit depends on secrets, but whose counters step towards
/// their bounds on every path that goes on, run at most as many
/// iterations as the counters' distances allow, without `--unwind`: a
/// merge, a sorted-set intersection (`continue` and a step), a merge from
/// the ends down, an early exit on a flag, offsets and `<=`. Each needed
/// `--unwind` before.
#[test]
fn counters_stepping_to_their_bounds_end_secret_loops() {
    let shapes = [
        // Merge, then the tails.
        "int i = 0, j = 0, k = 0;
    while (i < N && j < N) {
        if (a[i] <= b[j]) o.v[k++] = a[i++];
        else o.v[k++] = b[j++];
    }
    while (i < N) o.v[k++] = a[i++];
    while (j < N) o.v[k++] = b[j++];",
        // Intersection: both step on equality, `continue`, a step.
        "unsigned i = 0, j = 0; int k = 0;
    for (; i < N && j < N; o.v[2 * N - 1] += 1) {
        if (a[i] < b[j]) { i++; continue; }
        if (a[i] > b[j]) { j += 1; continue; }
        o.v[k++] = a[i];
        i = i + 1;
        j++;
    }",
        // From the ends down, with offsets and `>=`.
        "int i = N - 1, j = N, k = 2 * N - 1;
    while (i >= 0 && j - 1 >= 0) {
        if (a[i] > b[j - 1]) o.v[k--] = a[i--];
        else o.v[k--] = b[--j];
    }",
        // A flag ends it sooner; a path that breaks makes no progress.
        "int i = 0, j = 0, found = 0, k = 0;
    while (i + 1 <= N && j <= N - 1 && !found) {
        if (a[i] + b[j] == 3) break;
        if (a[i] == b[j]) { found = 1; o.v[0] = i++ * 16 + j; }
        else if (a[i] < b[j]) i++;
        else j++;
        o.v[++k] = i - j;
    }
    o.v[1] += found;",
    ];
    for (n, shape) in shapes.iter().enumerate() {
        let src = format!(
            "#define N 8
typedef struct {{ int v[N]; }} Arr;
typedef struct {{ int v[2 * N]; }} Out;
Out mpc_main(Arr INPUT_A, Arr INPUT_B)
{{
    Out o = {{{{0}}}};
    int *a = INPUT_A.v, *b = INPUT_B.v;
    for (int m = 1; m < N; m++) {{
        a[m] = a[m - 1] + (a[m] & 3);
        b[m] = b[m - 1] + (b[m] & 3);
    }}
    {shape}
    return o;
}}
"
        );
        let name = format!("progress_{n}");
        let p = compile(&src, &format!("{name}.c"), &default()).unwrap_or_else(|e| panic!("{e}"));
        agree_with_gcc_on(&src, &[&p], &small_sets(5, 2), &name);
        agree_with_gcc(&src, &[&p], 8, 3, &name);
    }
}

/// A loop that may not step towards its bounds on some path (a counter
/// stepped back, a path with no step, a counter reached through a
/// pointer, a bound that changes) still needs `--unwind`.
#[test]
fn loops_without_progress_on_every_path_need_unwind() {
    let shapes = [
        "if (a[i] < b[j]) i++; else if (a[i] > b[j]) j++;",
        "if (a[i] < b[j]) i++; else { j += 2; i--; }",
        "int *p = &i; if (a[i] < b[j]) (*p)++; else j++;",
        "if (a[i] < b[j]) i++; else { j++; n++; }",
    ];
    for shape in shapes {
        let src = format!(
            "typedef struct {{ int v[8]; }} Arr;
int mpc_main(Arr INPUT_A, Arr INPUT_B)
{{
    int *a = INPUT_A.v, *b = INPUT_B.v;
    int i = 0, j = 0, n = 8;
    while (i < n && j < 8) {{
        {shape}
    }}
    return i + j;
}}
"
        );
        let e = match compile(&src, "prog.c", &default()) {
            Ok(_) => panic!("compiled without --unwind:\n{src}"),
            Err(e) => e.to_string(),
        };
        assert!(e.contains("bound it with --unwind N"), "{e}\n{src}");
    }
}

/// A flag the condition tests (`!found`, `found == 0`) that a path sets to
/// a constant other than 0 ends the loop there, as a `break` would: a
/// search for a bit of `s` equal to its own low bits, stepping its counter
/// on every other path, ends by itself, where it needed `--unwind` before
/// (the counter alone did not stay public on the paths still running). It
/// finds what gcc finds.
#[test]
fn a_flag_set_on_a_path_ends_the_loop_there() {
    let shapes = [
        (
            "!found",
            "if ((t & 7) == ((s >> k) & 1)) found = 1; else k++;",
        ),
        (
            "found == 0",
            "if ((t & 7) == ((s >> k) & 1)) { found = 2; continue; } k++;",
        ),
        (
            "0 == found",
            "if ((t & 7) == ((s >> k) & 1)) { found = 1; } else { k += 1; }",
        ),
    ];
    for (n, (test, shape)) in shapes.iter().enumerate() {
        let src = format!(
            "typedef struct {{ int v[8]; }} Arr;
int mpc_main(Arr INPUT_A, Arr INPUT_B)
{{
    unsigned s = INPUT_B.v[0] ^ INPUT_A.v[1], t = s;
    int k = 0, found = 0;
    while (k < 10 && {test}) {{
        {shape}
    }}
    return k * 10 + found;
}}
"
        );
        let name = format!("flag_{n}");
        let p = compile(&src, &format!("{name}.c"), &default()).unwrap_or_else(|e| panic!("{e}"));
        agree_with_gcc_on(&src, &[&p], &small_sets(5, 2), &name);
        agree_with_gcc(&src, &[&p], 8, 5, &name);
    }
}

/// A flag written any other way (set back to 0 on a path that does not
/// step, set through a pointer) proves nothing: the loop still needs
/// `--unwind`.
#[test]
fn a_flag_written_otherwise_needs_unwind() {
    let shapes = [
        "int *f = &found; if (a[k] == x) found = 1; else if (a[k] > x) *f = 0; else k++;",
        "if (a[k] == x) found = 1; else if (a[k] > x) found = 0; else k++;",
        "if (a[k] == x) found = 1; else if (a[k] > x) found = found; else k++;",
    ];
    for shape in shapes {
        let src = format!(
            "typedef struct {{ int v[8]; }} Arr;
int mpc_main(Arr INPUT_A, Arr INPUT_B)
{{
    int *a = INPUT_A.v, x = INPUT_B.v[0];
    int k = 0, found = 0;
    while (k < 8 && !found) {{
        {shape}
    }}
    return k * 10 + found;
}}
"
        );
        let e = match compile(&src, "prog.c", &default()) {
            Ok(_) => panic!("compiled without --unwind:\n{src}"),
            Err(e) => e.to_string(),
        };
        assert!(e.contains("bound it with --unwind N"), "{e}\n{src}");
    }
}

/// Recursion that branches on a secret at every call, both sides calling
/// again: 2^14 calls, every call at one depth branching on the same bit
/// (`x >> d & 1`). Each branch went through the merges of every call
/// made before on that bit: 48 s for depth 13, 5 minutes for 14.
#[test]
fn recursion_branching_on_shared_secret_bits() {
    let src = r#"
static int ones(int x, int n)
{
    if (n == 0)
        return x & 1;
    if (x & 1)
        return 1 + ones(x >> 1, n - 1);
    return ones(x >> 1, n - 1) - (x >> 2 & 1);
}
int mpc_main(int INPUT_A, int INPUT_B)
{
    return ones(INPUT_A ^ INPUT_B, 14);
}
"#;
    agree("recursion_shared_bits", src, &default());
}

/// An unrolled loop branching on the same secret condition in every
/// iteration: each iteration listed its merged locations on that
/// condition again, and each branch went through all of them (47 s to
/// compile 20,000 iterations with `--no-loops`; 0.14 s listed once).
#[test]
fn unrolled_branches_on_one_secret_condition() {
    let src = r#"
int mpc_main(int INPUT_A, int INPUT_B)
{
    int t = 0, u = 1;
    for (int i = 0; i < 20000; i++) {
        if (INPUT_A > 5) { t += i; u ^= t; } else t ^= i;
    }
    return t + u + INPUT_B;
}
"#;
    let opts = CompileOptions {
        loops: false,
        ..CompileOptions::default()
    };
    agree("one_condition", src, &opts);
}

/// A loop cut at `--unwind` says so in its report (`stats`): an input
/// that needs more iterations gets the values after the bound.
#[test]
fn a_loop_cut_at_the_bound_is_reported() {
    let src = "unsigned mpc_main(unsigned INPUT_A, unsigned INPUT_B)
{
    unsigned a = INPUT_A, b = INPUT_B;
    while (b != 0) { unsigned t = a % b; a = b; b = t; }
    return a;
}";
    let opts = CompileOptions {
        unwind: Some(45),
        ..CompileOptions::default()
    };
    let p = compile(src, "gcd.c", &opts).unwrap_or_else(|e| panic!("{e}"));
    let cut: Vec<_> = p.loops.iter().filter(|l| l.line == 4).collect();
    assert_eq!(cut.len(), 1, "{:?}", p.loops);
    let why = cut[0].why.as_deref().unwrap_or_default();
    assert!(why.contains("cut at 45 iterations (--unwind)"), "{why}");
}

/// A counter's comparison beside comparisons of secrets (`a[i] != x`, a
/// running sum against a secret budget, in either order) bounds the
/// loop: such a term made the whole condition count nothing, and the
/// loop was refused past 1,024 iterations without `--unwind`.
#[test]
fn a_counter_beside_secret_comparisons_bounds_the_loop() {
    let conditions = ["i < N && a[i] != x", "i < N && s < x", "s < x && i < N"];
    for (n, c) in conditions.iter().enumerate() {
        let src = format!(
            "#define N 1100
int mpc_main(int INPUT_A[N], int INPUT_B)
{{
    int *a = INPUT_A, x = INPUT_B, i = 0, s = 0;
    while ({c}) {{ s += a[i] & 7; i++; }}
    return i * 8 + (s & 7);
}}
"
        );
        let name = format!("counted_beside_{n}");
        let p = compile(&src, &format!("{name}.c"), &default()).unwrap_or_else(|e| panic!("{e}"));
        agree_with_gcc(&src, &[&p], 4, 5, &name);
    }
}
