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
use twofold_testkit::{party_inputs, random_inputs, random_loop_program};

#[test]
fn random_loop_programs_agree_with_their_unrolled_form_under_every_schedule() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(909);
    let mut with_blocks = 0;
    for round in 0..16 {
        let source = random_loop_program(&mut rng);
        let kept = compile(&source, "loops.c", &CompileOptions::default())
            .unwrap_or_else(|e| panic!("{e}\n{source}"))
            .program;
        let flat = compile(
            &source,
            "loops.c",
            &CompileOptions {
                loops: false,
                ..CompileOptions::default()
            },
        )
        .unwrap_or_else(|e| panic!("{e}\n{source}"))
        .program;
        with_blocks += !kept.blocks.is_empty() as usize;
        let inputs = random_inputs(&mut rng, &kept.main);
        let want = flat.eval(&inputs).unwrap();
        assert_eq!(kept.eval(&inputs).unwrap(), want, "round {round}\n{source}");
        let (a, b) = (
            party_inputs(&kept.main, &inputs, Party::A),
            party_inputs(&kept.main, &inputs, Party::B),
        );
        let label = format!("round {round}\n{source}");
        agrees_under_every_schedule(&kept, (&a, &b), &want, 1..=2, &label);
    }
    assert!(
        with_blocks >= 8,
        "only {with_blocks} of 16 programs kept a loop"
    );
}
