//! Calls in loops probed each (see `loops::calls`): a loop whose body calls
//! a function keeps its keys when what the call may write is known by
//! name, and every call agrees with gcc and with the program unrolled —
//! above all where the call writes what a key or a value computed ahead
//! of the iteration reads.

mod common;

use common::agree_with_gcc;
use twofold_compiler::{compile, CompileOptions, CompiledProgram};

fn compiled(src: &str, loops: bool) -> CompiledProgram {
    let opts = CompileOptions {
        loops,
        ..CompileOptions::default()
    };
    compile(src, "calls.c", &opts).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

/// A bitonic sort of 64 values whose compare-swap is `swap`, called as
/// `call`, with `before` at file scope.
fn sort(before: &str, call: &str) -> String {
    format!(
        "#include <stdint.h>\n\
         typedef struct {{ uint32_t v[32]; }} Half;\n\
         typedef struct {{ uint32_t v[64]; }} All;\n\
         {before}\n\
         All mpc_main(Half INPUT_A, Half INPUT_B) {{\n\
         \x20   All a;\n\
         \x20   for (int i = 0; i < 32; i++) {{ a.v[i] = INPUT_A.v[i]; a.v[i + 32] = INPUT_B.v[i]; }}\n\
         \x20   for (int k = 2; k <= 64; k <<= 1)\n\
         \x20       for (int j = k >> 1; j > 0; j >>= 1)\n\
         \x20           for (int i = 0; i < 64; i++) {{\n\
         \x20               int l = i ^ j;\n\
         \x20               if (l > i) {call};\n\
         \x20           }}\n\
         \x20   return a;\n\
         }}\n"
    )
}

/// The innermost loop's report (the last loop of [`sort`]).
fn inner(p: &CompiledProgram) -> &twofold_compiler::LoopVerdict {
    p.loops
        .iter()
        .max_by_key(|l| l.line)
        .expect("the inner loop")
}

#[test]
fn a_sort_whose_compare_swap_is_called_through_pointers_keeps_its_loop() {
    let swap = "static void swap(uint32_t *x, uint32_t *y, int up) {\n\
                \x20   if ((*x > *y) == up) { uint32_t t = *x; *x = *y; *y = t; }\n\
                }";
    let called = sort(swap, "swap(&a.v[i], &a.v[l], (i & k) == 0)");
    let inline = sort(
        "",
        "{ uint32_t x = a.v[i], y = a.v[l]; \
         if ((x > y) == ((i & k) == 0)) { a.v[i] = y; a.v[l] = x; } }",
    );
    let (with, flat, written) = (
        compiled(&called, true),
        compiled(&called, false),
        compiled(&inline, true),
    );
    let l = inner(&with);
    assert!(l.kept() && l.disabled > 0, "{l:?}");
    assert_eq!(with.program.and_count(), written.program.and_count());
    assert_eq!(with.program.and_count(), flat.program.and_count());
    agree_with_gcc(&called, &[&with, &flat], 4, 31, "called_swap");
}

/// Calls that write what the plan must not take as unchanged: a global a
/// key reads, an array a value computed ahead of the iteration reads
/// (passed whole, as an element's place, or through a nested call), a
/// global written two calls down. Each computes what gcc does.
#[test]
fn calls_that_write_what_keys_read_agree_with_gcc() {
    let programs = [
        // The key `l > i + g` reads `g`, which the call changes on a
        // secret.
        sort(
            "static int g = 0;\n\
             static void swap(uint32_t *x, uint32_t *y, int up) {\n\
             \x20   if ((*x > *y) == up) { uint32_t t = *x; *x = *y; *y = t; g ^= 1; }\n\
             }",
            "{ if (l > i + g) swap(&a.v[i], &a.v[l], (i & k) == 0); }",
        ),
        // Two calls down, a public global the key reads moves.
        sort(
            "static int g = 0;\n\
             static void bump(void) { g = (g + 1) & 3; }\n\
             static void swap(uint32_t *x, uint32_t *y, int up) {\n\
             \x20   bump();\n\
             \x20   if ((*x > *y) == up) { uint32_t t = *x; *x = *y; *y = t; }\n\
             }",
            "{ if ((l & 3) != g) swap(&a.v[i], &a.v[l], (i & k) == 0); }",
        ),
        // The call moves a public global before the key reads it.
        sort(
            "static int g = 0;\n\
             static void bump(void) { g = (g + 1) & 3; }\n\
             static void swap(uint32_t *x, uint32_t *y, int up) {\n\
             \x20   if ((*x > *y) == up) { uint32_t t = *x; *x = *y; *y = t; }\n\
             }",
            "{ bump(); if ((l & 3) != g) swap(&a.v[i], &a.v[l], (i & k) == 0); }",
        ),
        // The call changes a secret global that a value of the counter,
        // otherwise computed ahead of the iteration, reads after it.
        sort(
            "static uint32_t s = 0;\n\
             static void mix(uint32_t v) { s = s * 3 + v; }\n\
             static void swap(uint32_t *x, uint32_t *y, int up) {\n\
             \x20   if ((*x > *y) == up) { uint32_t t = *x; *x = *y; *y = t; }\n\
             }",
            "{ mix(a.v[i]); a.v[i] ^= ((s ^ i) & 7) > 3; \
             if (l > i) swap(&a.v[i], &a.v[l], (i & k) == 0); }",
        ),
        // A global array written through the function's own pointer to
        // it, then read by a value of the counter.
        sort(
            "static uint32_t g[64];\n\
             static void put(int m, uint32_t x) { uint32_t *q = g; q[m] = x; }\n\
             static void swap(uint32_t *x, uint32_t *y, int up) {\n\
             \x20   if ((*x > *y) == up) { uint32_t t = *x; *x = *y; *y = t; }\n\
             }",
            "{ put(i, a.v[l]); a.v[i] ^= (g[i] ^ i) > 1000u; \
             if (l > i) swap(&a.v[i], &a.v[l], (i & k) == 0); }",
        ),
        // The array is passed whole and its element read after the call.
        sort(
            "static void add(uint32_t *v, int n, uint32_t d) { v[n] += d; }",
            "{ add(a.v, i, 7); if (a.v[i] > a.v[l] + 3) a.v[l] ^= 5; }",
        ),
        // An element's place, then the element compared.
        sort(
            "static void dec(uint32_t *p) { *p = *p - (*p >> 3); }",
            "{ dec(&a.v[l]); if (a.v[l] < 1000u + i) a.v[i] += 1; }",
        ),
    ];
    for (n, src) in programs.iter().enumerate() {
        let (with, flat) = (compiled(src, true), compiled(src, false));
        agree_with_gcc(
            src,
            &[&with, &flat],
            3,
            40 + n as u64,
            &format!("writes{n}"),
        );
    }
}

/// Calls whose writes are not known by name leave the body unplanned, and
/// still compute what gcc does: recursion, a global pointer, a returned
/// pointer, a loop inside the function.
#[test]
fn calls_whose_writes_are_not_known_agree_with_gcc() {
    let programs = [
        sort(
            "static uint32_t depth(uint32_t x, int n) { return n == 0 ? x : depth(x ^ 1, n - 1); }\n\
             static void swap(uint32_t *x, uint32_t *y, int up) {\n\
             \x20   if ((*x > *y) == up) { uint32_t t = *x; *x = depth(*y, 2); *y = t; }\n\
             }",
            "swap(&a.v[i], &a.v[l], (i & k) == 0)",
        ),
        sort(
            "static uint32_t cell = 0;\n\
             static uint32_t *where = &cell;\n\
             static void swap(uint32_t *x, uint32_t *y, int up) {\n\
             \x20   if ((*x > *y) == up) { uint32_t t = *x; *x = *y; *y = t; *where += 1; }\n\
             }",
            "{ swap(&a.v[i], &a.v[l], (i & k) == 0); a.v[0] ^= cell & 1; }",
        ),
        sort(
            "static uint32_t *pick(uint32_t *x, uint32_t *y) { return x; }\n\
             static void swap(uint32_t *x, uint32_t *y, int up) {\n\
             \x20   if ((*x > *y) == up) { uint32_t t = *x; *x = *y; *y = t; }\n\
             }",
            "swap(pick(&a.v[i], &a.v[l]), &a.v[l], (i & k) == 0)",
        ),
        sort(
            "static void swap(uint32_t *x, uint32_t *y, int up) {\n\
             \x20   for (int r = 0; r < 2; r++)\n\
             \x20       if ((*x > *y) == up) { uint32_t t = *x; *x = *y; *y = t; }\n\
             }",
            "swap(&a.v[i], &a.v[l], (i & k) == 0)",
        ),
    ];
    for (n, src) in programs.iter().enumerate() {
        let (with, flat) = (compiled(src, true), compiled(src, false));
        agree_with_gcc(
            src,
            &[&with, &flat],
            2,
            50 + n as u64,
            &format!("unknown{n}"),
        );
    }
}
