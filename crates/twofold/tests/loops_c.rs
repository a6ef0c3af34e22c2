//! Random C programs with loops kept as loops (carried scalars and arrays,
//! DP rows, nested loops, public-index reads and writes, regions inside
//! loops): the protocol gives what the same program fully unrolled
//! computes, under every schedule, on 1 and 2 threads, with and without
//! inter-party parallelism.

mod common;

use common::agrees_under_every_schedule;
use rand::SeedableRng;
use twofold_circuit::Party;
use twofold_compiler::{compile, CompileOptions};
use twofold_testkit::{party_inputs, random_float_program, random_inputs, random_loop_program};

/// Compiles `source` with loops kept and unrolled and checks that the
/// protocol on the kept form gives the unrolled form's plaintext outputs
/// on random inputs under every schedule; whether a loop was kept.
fn agrees_with_its_unrolled_form(source: &str, rng: &mut rand::rngs::StdRng, label: &str) -> bool {
    let compiled = |loops: bool| {
        let opts = CompileOptions {
            loops,
            ..CompileOptions::default()
        };
        compile(source, "loops.c", &opts)
            .unwrap_or_else(|e| panic!("{e}\n{source}"))
            .program
    };
    let (kept, flat) = (compiled(true), compiled(false));
    let inputs = random_inputs(rng, &kept.main);
    let want = flat.eval(&inputs).unwrap();
    let label = format!("{label}\n{source}");
    assert_eq!(kept.eval(&inputs).unwrap(), want, "{label}");
    let (a, b) = (
        party_inputs(&kept.main, &inputs, Party::A),
        party_inputs(&kept.main, &inputs, Party::B),
    );
    agrees_under_every_schedule(&kept, (&a, &b), &want, 1..=2, &label);
    !kept.blocks.is_empty()
}

#[test]
fn random_loop_programs_agree_with_their_unrolled_form_under_every_schedule() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(909);
    let mut with_blocks = 0;
    for round in 0..16 {
        let source = random_loop_program(&mut rng);
        let label = format!("round {round}");
        with_blocks += agrees_with_its_unrolled_form(&source, &mut rng, &label) as usize;
    }
    assert!(
        with_blocks >= 8,
        "only {with_blocks} of 16 programs kept a loop"
    );
}

/// testkit's random programs over `float` and `double` likewise (their
/// agreement with gcc is checked in the compiler's tests).
#[test]
fn random_float_programs_agree_with_their_unrolled_form_under_every_schedule() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(910);
    let mut with_blocks = 0;
    for round in 0..4 {
        let source = random_float_program(&mut rng);
        let label = format!("float round {round}");
        with_blocks += agrees_with_its_unrolled_form(&source, &mut rng, &label) as usize;
    }
    assert!(
        with_blocks >= 2,
        "only {with_blocks} of 4 programs kept a loop"
    );
}
