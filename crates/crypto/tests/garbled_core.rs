//! Thousands of random circuits garbled and evaluated in memory (no network),
//! under half-gates and under three-halves: the decoded outputs equal
//! plaintext evaluation. Circuits come from the
//! builder and from random Bristol text with INV, EQ, EQW and MAND gates.

use rand::{Rng, SeedableRng};
use twofold_circuit::bristol::read_bristol;
use twofold_circuit::{Circuit, Program};
use twofold_crypto::halfgates::{ActiveLabel, ZeroLabel};
use twofold_crypto::{
    Delta, GarblingScheme, HalfGates, MemoryGarbler, Prg, SchemeGarbler, ThreeHalves,
};
use twofold_testkit::{random_circuit, random_inputs, RandomShape};

/// Garbles and evaluates `program` on `inputs` under both schemes; checks
/// that they agree and returns the decoded outputs.
fn garbled_eval(program: &Program, inputs: &[Vec<bool>], prg: &mut Prg) -> Vec<bool> {
    let half = garbled_eval_under::<HalfGates>(program, inputs, prg);
    assert_eq!(
        garbled_eval_under::<ThreeHalves>(program, inputs, prg),
        half
    );
    half
}

/// Garbles and evaluates `program` on `inputs` under `S`; returns the
/// decoded outputs.
fn garbled_eval_under<S: GarblingScheme>(
    program: &Program,
    inputs: &[Vec<bool>],
    prg: &mut Prg,
) -> Vec<bool> {
    let delta = Delta::random(prg);
    let zeros: Vec<ZeroLabel> = (0..program.main.input_bits())
        .map(|_| ZeroLabel::random(prg))
        .collect();
    let gate_id = prg.random_block().0 as u64 >> 8;
    let mut garbling = MemoryGarbler::<S>::new(delta, gate_id).unwrap();
    let out0 = program.run(&mut garbling, &zeros).unwrap();
    let active: Vec<ActiveLabel> = zeros
        .iter()
        .zip(inputs.concat())
        .map(|(z, bit)| garbling.garbler().encode(*z, bit))
        .collect();
    let mut evaluating = garbling.evaluator();
    let out = program.run(&mut evaluating, &active).unwrap();
    assert!(evaluating.unused_tables().is_empty(), "every table is used");
    // One fresh gate id (its own tweaks) per AND gate, regions and instances included.
    let garbled = garbling.garbler().next_gate_id() - gate_id;
    assert_eq!(garbled, program.and_count());
    assert_eq!(evaluating.next_gate_id() - gate_id, program.and_count());
    out.iter()
        .zip(&out0)
        .map(|(a, z)| a.decode(z.decode_bit()))
        .collect()
}

/// Random valid Bristol Fashion text using every gate kind.
fn random_bristol(rng: &mut impl Rng) -> String {
    let widths = [rng.gen_range(1..6u32), rng.gen_range(1..6u32)];
    let mut defined: u32 = widths.iter().sum();
    let mut lines = Vec::new();
    for _ in 0..rng.gen_range(1..40) {
        let w = |rng: &mut dyn rand::RngCore, defined: u32| rng.gen_range(0..defined);
        let line = match rng.gen_range(0..6) {
            0 => format!(
                "2 1 {} {} {} XOR",
                w(rng, defined),
                w(rng, defined),
                defined
            ),
            1 => format!(
                "2 1 {} {} {} AND",
                w(rng, defined),
                w(rng, defined),
                defined
            ),
            2 => format!("1 1 {} {} INV", w(rng, defined), defined),
            3 => format!("1 1 {} {} EQ", rng.gen_range(0..2), defined),
            4 => format!("1 1 {} {} EQW", w(rng, defined), defined),
            _ => {
                let l = format!(
                    "4 2 {} {} {} {} {} {} MAND",
                    w(rng, defined),
                    w(rng, defined),
                    w(rng, defined),
                    w(rng, defined),
                    defined,
                    defined + 1
                );
                defined += 1;
                l
            }
        };
        defined += 1;
        lines.push(line);
    }
    let outputs = rng.gen_range(1..=defined.min(6));
    format!(
        "{} {}\n2 {} {}\n1 {}\n\n{}\n",
        lines.len(),
        defined,
        widths[0],
        widths[1],
        outputs,
        lines.join("\n")
    )
}

#[test]
fn thousands_of_random_circuits_garble_to_their_plaintext_values() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(2024);
    let mut prg = Prg::from_os();
    for round in 0..3000 {
        let circuit: Circuit = if round % 2 == 0 {
            let shape = RandomShape {
                inputs: rng.gen_range(1..5),
                max_width: 64,
                gates: rng.gen_range(0..400),
                outputs: rng.gen_range(1..5),
            };
            random_circuit(&mut rng, &shape)
        } else {
            read_bristol(&random_bristol(&mut rng), "random").unwrap()
        };
        // Both the file's order and the levelled order.
        for c in [circuit.clone(), circuit.levelize()] {
            let program = Program::from(c);
            let inputs = random_inputs(&mut rng, &program.main);
            let want: Vec<bool> = program.eval(&inputs).unwrap().concat();
            assert_eq!(
                garbled_eval(&program, &inputs, &mut prg),
                want,
                "round {round}"
            );
        }
    }
}

#[test]
fn random_programs_with_regions_garble_to_their_plaintext_values() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(77);
    let mut prg = Prg::from_os();
    for round in 0..40 {
        let body = twofold_circuit::synthetic::layered(
            rng.gen_range(2..40),
            rng.gen_range(1..8),
            8,
            round,
        );
        let program = twofold_circuit::synthetic::repeated(&body, rng.gen_range(1..6));
        let inputs = random_inputs(&mut rng, &program.main);
        let want: Vec<bool> = program.eval(&inputs).unwrap().concat();
        assert_eq!(
            garbled_eval(&program, &inputs, &mut prg),
            want,
            "round {round}"
        );
    }
}

#[test]
fn random_programs_with_nested_loops_garble_to_their_plaintext_values() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(78);
    let mut prg = Prg::from_os();
    for round in 0..300 {
        let program = twofold_testkit::random_block_program(&mut rng, 3);
        let prepared = twofold_circuit::prepare::prepare(&program);
        let inputs = random_inputs(&mut rng, &program.main);
        let want: Vec<bool> = program.eval(&inputs).unwrap().concat();
        for p in [&program, &prepared] {
            assert_eq!(garbled_eval(p, &inputs, &mut prg), want, "round {round}");
        }
    }
}
