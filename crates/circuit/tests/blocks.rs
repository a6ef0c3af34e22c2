//! Programs with blocks (parallel regions, sequential loops, nested as deep
//! as wanted) compute what a plain reading of their definition computes —
//! whether run by the walker (with lockstep lanes), after `prepare`
//! (levelled, narrow loops unrolled), unrolled into one circuit, or read
//! back from the binary format.

use rand::{Rng, SeedableRng};
use twofold_circuit::circuit::{flatten_inputs, split_outputs};
use twofold_circuit::prepare::{is_prepared, prepare};
use twofold_circuit::walk::Recorder;
use twofold_circuit::{binary, Circuit, Program};
use twofold_testkit::{plain_frame, random_block_program, random_inputs};

fn reference_eval(program: &Program, inputs: &[Vec<bool>]) -> Vec<Vec<bool>> {
    let flat = flatten_inputs(&program.main, inputs).unwrap();
    let mut labels = vec![false; program.main.num_wires as usize];
    labels[..flat.len()].copy_from_slice(&flat);
    plain_frame(&program.main, &program.blocks, &mut labels);
    let out: Vec<bool> = program
        .main
        .output_wires()
        .map(|w| labels[w as usize])
        .collect();
    split_outputs(&program.main, &out)
}

#[test]
fn random_block_programs_run_as_defined() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let (mut blocks, mut sequential, mut nested) = (0, 0, 0);
    for round in 0..1500 {
        let depth = rng.gen_range(1..=3);
        let program = random_block_program(&mut rng, depth);
        program
            .validate()
            .unwrap_or_else(|e| panic!("round {round}: {e}\n{program:?}"));
        blocks += program.blocks.len();
        sequential += program.blocks.iter().filter(|b| !b.parallel).count();
        nested += program
            .blocks
            .iter()
            .filter(|b| !b.body.blocks.is_empty())
            .count();
        let prepared = prepare(&program);
        prepared.validate().unwrap();
        assert_stays_prepared(&prepared);
        let unrolled = program.unrolled();
        unrolled.validate().unwrap();
        // Every AND gate the program counts is executed once.
        let mut recorder = Recorder::default();
        let inputs = vec![0; program.main.input_bits()];
        program.run(&mut recorder, &inputs).unwrap();
        let executed = recorder.gates.iter().filter(|g| g.is_and()).count();
        assert_eq!(executed as u64, program.and_count());
        assert_eq!(recorder.gates.len() as u64, program.counts().gates);
        let mut bytes = Vec::new();
        binary::write_program(&program, &mut bytes).unwrap();
        let read = binary::read_program(&mut bytes.as_slice()).unwrap();
        assert_eq!(read, program);
        assert_eq!(read.hash(), program.hash());
        // Read through small buffers: gates across a buffer's end, every
        // one (5 bytes) or some (29).
        for capacity in [5, 29] {
            let mut small = std::io::BufReader::with_capacity(capacity, bytes.as_slice());
            assert_eq!(binary::read_program(&mut small).unwrap(), program);
        }
        for _ in 0..3 {
            let inputs = random_inputs(&mut rng, &program.main);
            let want = reference_eval(&program, &inputs);
            assert_eq!(program.eval(&inputs).unwrap(), want, "round {round}");
            assert_eq!(
                prepared.eval(&inputs).unwrap(),
                want,
                "round {round} (prepared)"
            );
            assert_eq!(
                unrolled.eval(&inputs).unwrap(),
                want,
                "round {round} (unrolled)"
            );
        }
    }
    assert!(
        blocks > 2000 && sequential > 1000 && nested > 500,
        "{blocks} {sequential} {nested}"
    );
}

/// `prepared`, from [`prepare`], is ready to run as it is, also after a
/// round trip through a file: what `twofold compile` writes, and what the
/// parties' handshake compares (a party that loads the file and one that
/// prepares the source must agree).
fn assert_stays_prepared(prepared: &Program) {
    assert!(is_prepared(prepared), "{prepared:?}");
    let mut bytes = Vec::new();
    binary::write_program(prepared, &mut bytes).unwrap();
    let read = binary::read_program(&mut bytes.as_slice()).unwrap();
    assert!(is_prepared(&read));
    assert_eq!(read.hash(), prepared.hash());
}

/// A program running `body` (inputs: 4 shared bits `x`, then 4 carried
/// bits `c`; carried on in wires 12..16) `count` times over A's 8 bits.
fn loop_program(body: &Circuit, count: u64, next: u32) -> Program {
    use twofold_circuit::{Block, Body, Carried, InputValue, OutputValue, Party, Wiring};
    Program {
        main: Circuit {
            num_wires: 12,
            inputs: vec![InputValue {
                name: "a".into(),
                party: Party::A,
                width: 8,
            }],
            outputs: vec![OutputValue {
                name: "out".into(),
                wires: (8..12).collect(),
            }],
            gates: vec![],
        },
        blocks: vec![Block {
            position: 0,
            count,
            parallel: false,
            body: Body::from(body.clone()),
            shared: (0..4).collect(),
            carried: (0..4)
                .map(|i| Carried {
                    init: 4 + i,
                    next: next + i,
                    last: Some(8 + i),
                })
                .collect(),
            inputs: Wiring::empty(),
            outputs: Wiring::empty(),
        }],
    }
}

/// `prepared` computes what `program` does, on random inputs.
fn assert_prepared_agrees(program: &Program, prepared: &Program, seed: u64) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    for _ in 0..20 {
        let inputs = random_inputs(&mut rng, &program.main);
        assert_eq!(
            prepared.eval(&inputs).unwrap(),
            reference_eval(program, &inputs)
        );
    }
}

/// A chain `acc = f(acc, x)` of many iterations of a tiny body: prepare
/// unrolls it a few iterations at a time (and keeps the remainder), and the
/// result is unchanged.
#[test]
fn tiny_loop_bodies_are_unrolled_by_prepare() {
    use twofold_circuit::{Gate, InputValue, Party};
    // Body: shared 4 bits x, carried 4 bits c: c' = (c & x) ^ rotate(c).
    let body = Circuit {
        num_wires: 16,
        inputs: vec![InputValue {
            name: "in".into(),
            party: Party::A,
            width: 8,
        }],
        outputs: vec![],
        gates: (0..4)
            .map(|i| Gate::And {
                a: 4 + i,
                b: i,
                out: 8 + i,
            })
            .chain((0..4).map(|i| Gate::Xor {
                a: 8 + i,
                b: 4 + (i + 1) % 4,
                out: 12 + i,
            }))
            .collect(),
    };
    for count in [0u64, 1, 5, 37, 64, 1000] {
        let program = loop_program(&body, count, 12);
        program.validate().unwrap();
        let prepared = prepare(&program);
        prepared.validate().unwrap();
        assert_stays_prepared(&prepared);
        if count >= 64 {
            assert!(prepared.blocks[0].count < count, "unrolled");
            assert!(prepared.blocks[0].body.circuit.and_count() > 4);
        }
        assert_eq!(prepared.and_count(), program.and_count());
        assert_prepared_agrees(&program, &prepared, count);
    }
}

/// Iterations that cannot overlap — every AND of one waits for the one
/// before, as in a bubble sort's pass — are not unrolled: the levels would
/// be no wider, the body only bigger.
#[test]
fn loops_whose_iterations_cannot_overlap_stay_as_they_are() {
    use twofold_circuit::{Gate, InputValue, Party};
    // Body: a chain of 80 ANDs from c0 through the x bits, each XORed with
    // a carried bit; every carried bit is the chain's end XOR itself.
    let mut gates = Vec::new();
    let mut last = 4;
    for k in 0..80u32 {
        let t = 8 + 2 * k;
        gates.push(Gate::And {
            a: last,
            b: k % 4,
            out: t,
        });
        gates.push(Gate::Xor {
            a: t,
            b: 4 + k % 4,
            out: t + 1,
        });
        last = t + 1;
    }
    gates.extend((0..4).map(|i| Gate::Xor {
        a: last,
        b: 4 + i,
        out: 168 + i,
    }));
    let body = Circuit {
        num_wires: 172,
        inputs: vec![InputValue {
            name: "in".into(),
            party: Party::A,
            width: 8,
        }],
        outputs: vec![],
        gates,
    };
    let program = loop_program(&body, 1000, 168);
    program.validate().unwrap();
    let prepared = prepare(&program);
    prepared.validate().unwrap();
    assert_stays_prepared(&prepared);
    assert_eq!(prepared.blocks.len(), 1);
    assert_eq!(prepared.blocks[0].count, 1000, "not unrolled");
    assert_prepared_agrees(&program, &prepared, 7);
}
