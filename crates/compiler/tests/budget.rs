//! The budgets of compiling (issue 12): programs whose loops make no gates,
//! or whose probes of nested loops do work without end while the program's
//! gates stay few, end in a clear error naming the limit, in bounded time
//! and memory; `Limits::for_memory` bounds what lowering holds.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use cap::Cap;
use twofold_circuit::binary::{read_program, write_program};
use twofold_compiler::error::Exceeded;
use twofold_compiler::{compile, CompileError, CompileOptions, Limits};

#[global_allocator]
static ALLOCATOR: Cap<std::alloc::System> = Cap::new(std::alloc::System, usize::MAX);

/// Most memory this test binary may hold (every test at once): a compiler
/// that blows up aborts the tests instead of the machine.
const MEMORY_CAP: usize = 6 << 30;

/// Compiles `src` in a thread; returns its error and how long it took.
/// Fails if it compiles or takes longer than `within`.
fn error_of(src: &str, opts: CompileOptions, within: Duration) -> (CompileError, Duration) {
    ALLOCATOR
        .set_limit(MEMORY_CAP)
        .expect("below the cap so far");
    let (tx, rx) = mpsc::channel();
    let src = src.to_string();
    let start = Instant::now();
    std::thread::spawn(move || {
        let _ = tx.send(compile(&src, "budget.c", &opts).map(|_| ()));
    });
    match rx.recv_timeout(within) {
        Ok(Err(e)) => (e, start.elapsed()),
        Ok(Ok(())) => panic!("compiled, but an error was expected"),
        Err(_) => panic!("the compiler did not finish within {within:?}"),
    }
}

/// Four nested loops of 10^5 iterations each under a secret `if`, adding
/// 12 secret bits to a 32-bit sum: every iteration differs from the last
/// (the sum gains a row; rows this narrow are not worth reducing each
/// iteration),
/// so each loop's iterations are probed as templates inside the probes of
/// the loops around it, the probes' frames and range tapes grow without
/// end while the program's gates stay few (the fuzzer's program, which
/// added a whole word — now reduced each iteration, the loops kept: past
/// 19 GB in 120 s before the budgets). Since 2026-12-06 a probe within
/// another's fails once it reads a sum of more than 1024 bits (past 32
/// rows here, `tests/costly_probes.rs`), so the loops are lowered as
/// written from there, and it is their iterations, not their probes, that
/// reach the limits.
const NESTED: &str = "
int mpc_main(int INPUT_A, int INPUT_B) {
    int r = 0;
    if (INPUT_A > INPUT_B) {
        for (int i = 0; i < 100000; i++)
            for (int j = 0; j < 100000; j++)
                for (int k = 0; k < 100000; k++)
                    for (int l = 0; l < 100000; l++)
                        r = r + (INPUT_A & 0xFFF);
    }
    return r;
}
";

#[test]
fn four_nested_loops_under_a_secret_if_end_in_the_work_budget() {
    let (e, took) = error_of(NESTED, CompileOptions::default(), Duration::from_secs(600));
    assert_eq!(
        e.exceeded,
        Some(Exceeded::Steps {
            max: Limits::default().max_steps
        }),
        "{e}"
    );
    assert!(e.message.contains("steps of compile-time work"), "{e}");
    // Where: the innermost loop, lowered as written.
    assert_eq!(e.line, 8, "{e}");
    eprintln!("the nested loops stopped after {took:?}");
}

#[test]
fn the_nested_loops_stop_at_a_memory_limit() {
    let opts = CompileOptions {
        limits: Limits::for_memory(256 << 20),
        ..CompileOptions::default()
    };
    let max = opts.limits.max_gates;
    assert!(max < Limits::default().max_gates);
    let (e, took) = error_of(NESTED, opts, Duration::from_secs(600));
    // The gates the limit allows (the loops lowered as written).
    assert_eq!(e.exceeded, Some(Exceeded::Gates { max }), "{e}");
    eprintln!("the nested loops stopped at 256 MiB after {took:?}");
}

#[test]
fn a_loop_that_makes_no_gates_ends_in_the_work_budget() {
    // 50,000,000 iterations of compile-time arithmetic (under the limit of
    // iterations a loop): minutes of work before the budget.
    let src = "
int mpc_main(int INPUT_A, int INPUT_B) {
    int r = 0;
    for (int i = 0; i < 50000000; i++)
        r = r + 1;
    return r + INPUT_A;
}
";
    let (e, took) = error_of(src, CompileOptions::default(), Duration::from_secs(600));
    assert!(matches!(e.exceeded, Some(Exceeded::Steps { .. })), "{e}");
    assert_eq!(e.line, 5, "{e}");
    eprintln!("the loop without gates stopped after {took:?}");
}

#[test]
fn objects_larger_than_the_memory_limit_are_an_error() {
    // 2^24 leaves: about 600 MiB of slots, over a 64 MiB limit at once.
    let src = "
int mpc_main(int INPUT_A, int INPUT_B) {
    int big[16777216];
    big[INPUT_B & 7] = INPUT_A;
    return big[3];
}
";
    let opts = CompileOptions {
        limits: Limits::for_memory(64 << 20),
        ..CompileOptions::default()
    };
    let (e, _) = error_of(src, opts, Duration::from_secs(120));
    assert!(matches!(e.exceeded, Some(Exceeded::Memory { .. })), "{e}");
    assert_eq!(e.line, 3, "{e}");
}

#[test]
fn a_small_memory_limit_bounds_the_gates_held() {
    let limits = Limits::for_memory(1 << 20);
    assert_eq!(limits.max_memory, 1 << 20);
    assert!(limits.max_gates < Limits::default().max_gates);
    assert_eq!(
        Limits::for_memory(u64::MAX).max_gates,
        Limits::default().max_gates
    );
}

/// A matrix product unrolled: every cell is a sum of products, reduced
/// where it is read, and the output reads them all in one statement. The
/// gate limit stops it there: before, nothing was checked while the
/// output was made (about 12 M gates and 250 MB, where a 16 MiB budget
/// allows 233 K gates).
#[test]
fn an_output_of_many_sums_stops_at_the_gate_limit() {
    let src = "
typedef struct { int m[16][16]; } M;
M mpc_main(M INPUT_A, M INPUT_B) {
    M c;
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) {
            int acc = 0;
            for (int k = 0; k < 16; k++)
                acc += INPUT_A.m[i][k] * INPUT_B.m[k][j];
            c.m[i][j] = acc;
        }
    return c;
}
";
    let limits = Limits::for_memory(16 << 20);
    let opts = CompileOptions {
        loops: false,
        limits: limits.clone(),
        ..CompileOptions::default()
    };
    let (e, _) = error_of(src, opts, Duration::from_secs(120));
    assert_eq!(
        e.exceeded,
        Some(Exceeded::Gates {
            max: limits.max_gates
        }),
        "{e}"
    );
}

/// A kept loop may run no more iterations than an unrolled one: a
/// product taken 2^31 times compiled to a `.tfp` file that no run could
/// load (blocks of 67,108,863 iterations). The longest loop allowed
/// compiles, and its file loads.
#[test]
fn a_kept_loop_runs_at_most_the_iterations_of_a_loop() {
    let src = |n: u64| {
        format!(
            "unsigned mpc_main(unsigned INPUT_A, unsigned INPUT_B) {{\n\
            \x20   unsigned long long r = INPUT_B;\n\
            \x20   for (int i = 0; i < {n}; i++) r = r * INPUT_A;\n\
            \x20   return r;\n\
            }}\n"
        )
    };
    let max = Limits::default().max_iterations;
    let e = compile(&src(max + 1), "long.c", &CompileOptions::default()).expect_err("too long");
    let runs = format!("the loop runs {} iterations: more than {max}", max + 1);
    assert!(e.message.contains(&runs), "{e}");
    // A region (a count) too, at once: one of 60,000,000 iterations held
    // 20 GB before reaching the limit.
    let region = "int mpc_main(int INPUT_A, int INPUT_B) {\n\
        \x20   int r = 0;\n\
        \x20   for (int i = 0; i < 60000000; i++) { if (INPUT_A > INPUT_B) r++; }\n\
        \x20   return r;\n\
        }\n";
    let e = compile(region, "region.c", &CompileOptions::default()).expect_err("too long");
    assert!(
        e.message.contains("the loop runs 60000000 iterations"),
        "{e}"
    );
    let kept = compile(&src(max), "long.c", &CompileOptions::default()).expect("compiles");
    assert!(kept.loops.iter().all(|l| l.kept()), "{:?}", kept.loops);
    let mut bytes = Vec::new();
    write_program(&kept.program, &mut bytes).expect("writes to memory");
    let read = read_program(&mut &bytes[..]).expect("loads");
    assert_eq!(read, kept.program);
}
