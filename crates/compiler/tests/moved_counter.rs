//! The loop variable moved into a local that the body reads nowhere else
//! (`at = i` under a secret condition, `at = c ? i : at`: the position of
//! a running best, the last match): each iteration's value is wired in as
//! its own input, so the iterations lower alike and the loop is kept,
//! where reading it as a constant made each iteration's selection differ
//! (the runs were shorter than a block). Kept, the programs compute what
//! gcc computes, with about the unrolled AND gates.

mod common;

use common::agree_with_gcc;
use twofold_compiler::{compile, CompileOptions, CompiledProgram};

fn compiled(src: &str, loops: bool) -> CompiledProgram {
    let opts = CompileOptions {
        loops,
        ..CompileOptions::default()
    };
    compile(src, "moved.c", &opts).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

/// Compiles `body` (its one loop) kept and unrolled: the loop is
/// kept or not as `kept` says, with at most `slack` percent more AND gates
/// than unrolled, and both agree with gcc.
fn check(body: &str, kept: bool, slack: u64, seed: u64) {
    let src = format!(
        "#include <stdint.h>\n\
         #define N 256\n\
         typedef struct {{ int32_t v[N]; }} T;\n\
         int mpc_main(T INPUT_A, T INPUT_B) {{\n\
         \x20   int32_t best = INPUT_A.v[0] - INPUT_B.v[0]; int at = 0, last = -1, count = 0;\n\
         {body}\n\
         \x20   return at * 1000 + last * 7 + count + best;\n\
         }}\n"
    );
    let with = compiled(&src, true);
    let flat = compiled(&src, false);
    let [l] = &with.loops[..] else {
        panic!("one loop: {:?}", with.loops);
    };
    assert_eq!(l.kept(), kept, "{l:?}\n{src}");
    let (a, b) = (with.program.and_count(), flat.program.and_count());
    assert!(
        a * 100 <= b * (100 + slack),
        "{a} AND gates kept, {b} unrolled\n{src}"
    );
    agree_with_gcc(&src, &[&with, &flat], 6, seed, &format!("moved{seed}"));
}

#[test]
fn the_position_of_a_running_best_is_kept() {
    check(
        "    for (int i = 1; i < N; i++) { int32_t s = INPUT_A.v[i] - INPUT_B.v[i]; if (s > best) { best = s; at = i; } }",
        true,
        5,
        1,
    );
}

#[test]
fn a_position_selected_beside_the_best_is_kept() {
    check(
        "    for (int i = 1; i < N; i++) { int32_t s = INPUT_A.v[i] ^ INPUT_B.v[i]; _Bool c = s < best; best = c ? s : best; at = c ? i : at; }",
        true,
        5,
        2,
    );
}

/// From `last = -1`: the position's range widens one iteration after the
/// counter's does, so each power of two costs two or three probes and
/// the first runs are too short to keep; probing goes on past them.
#[test]
fn the_last_match_is_kept() {
    check(
        "    for (int i = 0; i < N; i++) if ((INPUT_A.v[i] & 7) == (INPUT_B.v[i] & 7)) last = i;",
        true,
        5,
        3,
    );
}

/// A position the body also computes with is a use like any other: the
/// iterations are probed one by one, as before, and still compute what gcc
/// does.
#[test]
fn a_position_read_in_the_body_is_not_wired_in() {
    check(
        "    for (int i = 0; i < N; i++) { if (INPUT_A.v[i] > INPUT_B.v[i]) at = i; count += at & 3; }",
        false,
        0,
        4,
    );
}

/// Random programs that track positions and sort by odd-even merge
/// networks agree with gcc and with their unrolled form, with about its
/// AND gates, and keep some of those loops.
#[test]
fn random_position_programs_agree_with_gcc_and_their_unrolled_form() {
    use rand::SeedableRng;
    let mut rng = rand::rngs::StdRng::seed_from_u64(2026);
    let mut kept = 0;
    for round in 0..40 {
        let src = twofold_testkit::random_position_program(&mut rng);
        let with = compiled(&src, true);
        let flat = compiled(&src, false);
        kept += with.loops.iter().filter(|l| l.kept()).count();
        let (a, b) = (with.program.and_count(), flat.program.and_count());
        assert!(
            a * 100 <= b * 110 + 1000,
            "round {round}: {a} AND gates kept, {b} unrolled\n{src}"
        );
        agree_with_gcc(
            &src,
            &[&with, &flat],
            2,
            round,
            &format!("positions{round}"),
        );
    }
    assert!(kept >= 20, "{kept} loops kept");
}
