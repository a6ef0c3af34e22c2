//! What lowering holds stays near its memory estimate, so that
//! `--max-memory` is a clear error instead of an abort, and programs whose
//! loops hold nothing compile in little memory: a region's public partials
//! are folded as they come, its objects reused, its gateless runs of
//! iterations cut short; big objects are refused before they are made; and
//! the inputs' bits and a mixed compilation's noted sums are counted.
//!
//! This binary allocates at most [`MEMORY_CAP`]: past it an allocation
//! fails and the test binary aborts, as the compiler did before.

mod common;

use cap::Cap;
use common::{output_scalars, run};
use twofold_compiler::error::Exceeded;
use twofold_compiler::{compile, compile_mixed, CompileError, CompileOptions, Limits};

#[global_allocator]
static ALLOCATOR: Cap<std::alloc::System> = Cap::new(std::alloc::System, usize::MAX);

/// Most memory this test binary may hold (every test at once).
const MEMORY_CAP: usize = 1 << 30;

/// Options bounding lowering's estimate at `max` bytes, with the binary's
/// allocations capped.
fn limited(max: u64) -> CompileOptions {
    ALLOCATOR
        .set_limit(MEMORY_CAP)
        .expect("below the cap so far");
    CompileOptions {
        limits: Limits::for_memory(max),
        ..CompileOptions::default()
    }
}

/// The memory error of `e`, checked to be over `max`.
fn over(e: &CompileError, max: u64) {
    assert!(
        matches!(e.exceeded, Some(Exceeded::Memory { max: m, held }) if m == max && held > max),
        "{e}"
    );
}

/// `r += i` over 2,000,000 public iterations is a region whose every
/// partial is public: 466 MB held before (a row, an object and a record
/// of the run an iteration), now nothing an iteration.
#[test]
fn a_public_sum_over_millions_of_iterations_holds_nothing_an_iteration() {
    let src = "int mpc_main(int INPUT_A_x, int INPUT_B_y) {\n\
        \x20   int r = 0;\n\
        \x20   for (int i = 0; i < 2000000; i++) r += i;\n\
        \x20   return r + INPUT_A_x;\n\
        }\n";
    let p = compile(src, "public_sum.c", &limited(16 << 20)).expect("compiles");
    let inputs = [
        ("INPUT_A_x".into(), "5".into()),
        ("INPUT_B_y".into(), "0".into()),
    ];
    let out = output_scalars(&p, &run(&p, &inputs));
    let sum = (0..2_000_000u64).sum::<u64>() + 5;
    assert_eq!(out, vec![u128::from(sum as u32)]);
}

/// A secret added 300,000 times: 545 MB held before, then a memory error
/// under 64 MiB; 29 MB now.
#[test]
fn a_secret_sum_over_many_iterations_fits_a_small_limit() {
    let src = "int mpc_main(int INPUT_A_x, int INPUT_B_y) {\n\
        \x20   int r = 0;\n\
        \x20   for (int i = 0; i < 300000; i++) r += INPUT_A_x;\n\
        \x20   return r;\n\
        }\n";
    let p = compile(src, "secret_sum.c", &limited(64 << 20)).expect("compiles");
    let inputs = [
        ("INPUT_A_x".into(), "-7".into()),
        ("INPUT_B_y".into(), "0".into()),
    ];
    let out = output_scalars(&p, &run(&p, &inputs));
    assert_eq!(out, vec![u128::from((-7i32 * 300_000) as u32)]);
}

/// An array of 40,000,000 `int`s is refused before its 3.2 GB of slots
/// are allocated.
#[test]
fn a_big_array_is_refused_before_it_is_made() {
    let src = "int mpc_main(int INPUT_A_x, int INPUT_B_y) {\n\
        \x20   int a[40000000];\n\
        \x20   a[INPUT_B_y & 7] = INPUT_A_x;\n\
        \x20   return a[3];\n\
        }\n";
    let e = compile(src, "big.c", &limited(256 << 20)).expect_err("too big");
    over(&e, 256 << 20);
    assert_eq!(e.line, 2, "{e}");
}

/// An input of 1,500,000 `int`s holds its 48 M bits in words (about
/// 8.5 bytes each): over 256 MiB, though its slots alone are not.
#[test]
fn the_inputs_bits_are_counted() {
    let src = "typedef struct { int x[1500000]; } V;\n\
        int mpc_main(V INPUT_A, int INPUT_B) { return INPUT_A.x[7] + INPUT_B; }\n";
    let e = compile(src, "input.c", &limited(256 << 20)).expect_err("too big");
    over(&e, 256 << 20);
}

/// A mixed compilation notes every product of the loop (its operands'
/// bits): 562 MB held for 100,000 products under a 256 MiB limit before.
#[test]
fn a_mixed_compilation_counts_the_sums_it_notes() {
    let src = "unsigned mpc_main(unsigned INPUT_A_x, unsigned INPUT_B_y) {\n\
        \x20   unsigned long long r = 1;\n\
        \x20   for (int i = 0; i < 100000; i++) r = r * INPUT_A_x;\n\
        \x20   return r + INPUT_B_y;\n\
        }\n";
    let e = compile_mixed(src, "products.c", &limited(64 << 20)).expect_err("too big");
    over(&e, 64 << 20);
}

/// A region kept over 2,000,000 iterations records each iteration's
/// partial (a word of bits): 965 MB held under a 100 MiB limit before;
/// the records are counted now.
#[test]
fn a_kept_runs_records_are_counted() {
    let src = "int mpc_main(int INPUT_A_x, int INPUT_B_y) {\n\
        \x20   int r = 0;\n\
        \x20   for (int i = 0; i < 2000000; i++) { if (INPUT_A_x > INPUT_B_y) r++; }\n\
        \x20   return r;\n\
        }\n";
    let e = compile(src, "region.c", &limited(100 << 20)).expect_err("too big");
    over(&e, 100 << 20);
}

/// A loop whose every iteration is probed, with a hoist (`w[i] + (i > 0 ?
/// w[i - 1] : 0)`) of an array its body reads as bits (`w[i] & 1`): the
/// body's template reduces `w[i]` and writes its bits back, so while a run
/// was open, the next iteration's hoist read the run's tokens (wires
/// standing for values not yet made, numbered from 2^31) and made gates
/// of them. Dead, they were dropped, but the program's wires spanned 2^31
/// numbers: assembling it allocated 8 GiB (15 s; an abort under a memory
/// limit). The run is closed before such a hoist is computed.
#[test]
fn hoists_read_no_values_of_an_open_run() {
    let opts = limited(256 << 20);
    let src = "
#include <stdint.h>
int64_t mpc_main(int INPUT_A[32], int INPUT_B) {
    unsigned w[32], out[32];
    int acc = 0;
    for (int i = 0; i < 32; i++) w[i] = -INPUT_A[i];
    for (int i = 0; i < 32; i++) {
        if (w[i] & 1) acc = 0; else acc += i;
        out[i] = w[i] + (i > 0 ? w[i - 1] : 0);
    }
    int64_t h = acc;
    for (int i = 0; i < 32; i++) h = h * 3 + w[i] + out[i] * 7;
    return h;
}
";
    // (Within this binary's allocation cap: past it, the test aborts.)
    compile(src, "hoist.c", &opts).unwrap_or_else(|e| panic!("{e}"));
    common::agree_kept_and_unrolled("hoist_tokens", src, 9);
}
