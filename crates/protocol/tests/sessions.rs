//! Full two-party sessions over loopback: garbled results equal plaintext.

use rand::{Rng, SeedableRng};
use twofold_circuit::bristol::read_bristol_file;
use twofold_circuit::value::{parse_int, to_hex};
use twofold_circuit::{Party, Program};
use twofold_crypto::Scheme;
use twofold_net::ChannelOptions;
use twofold_protocol::{run_local, PartyInputs, Reveal, SessionOptions};
use twofold_testkit::{
    bristol_vectors, party_inputs, random_circuit, random_inputs, shared_data, RandomShape,
};

fn split(program: &Program, inputs: &[Vec<bool>]) -> (PartyInputs, PartyInputs) {
    let pick = |party| party_inputs(&program.main, inputs, party);
    (pick(Party::A), pick(Party::B))
}

fn opts(reveal: Reveal) -> SessionOptions {
    SessionOptions {
        reveal,
        threads: 1,
        ..SessionOptions::default()
    }
}

#[test]
fn random_circuits_garbled_equal_plaintext() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(42);
    for round in 0..150 {
        let shape = RandomShape {
            inputs: rng.gen_range(1..5),
            max_width: 40,
            gates: rng.gen_range(0..600),
            outputs: rng.gen_range(1..4),
        };
        let program = Program::from(random_circuit(&mut rng, &shape));
        let inputs = random_inputs(&mut rng, &program.main);
        let want = program.eval(&inputs).unwrap();
        let (a, b) = split(&program, &inputs);
        let reveal = [Reveal::Both, Reveal::A, Reveal::B][round % 3];
        let o = SessionOptions {
            scheme: Scheme::ALL[round / 3 % 2],
            ..opts(reveal)
        };
        let (ra, rb) = run_local(&program, &a, &b, &o, &ChannelOptions::default()).unwrap();
        assert_eq!(ra.outputs.is_some(), reveal.reveals_to(Party::A));
        assert_eq!(rb.outputs.is_some(), reveal.reveals_to(Party::B));
        for got in [ra.outputs, rb.outputs].into_iter().flatten() {
            assert_eq!(got, want, "round {round}");
        }
        assert_eq!(ra.and_gates, program.and_count());
        assert_eq!(rb.and_gates, program.and_count());
        assert_eq!(ra.bytes_sent, rb.bytes_received);
    }
}

#[test]
fn programs_with_regions_garbled_equal_plaintext() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let body = twofold_circuit::synthetic::layered(24, 6, 8, 1);
    let program = twofold_circuit::synthetic::repeated(&body, 9);
    for _ in 0..3 {
        let inputs = random_inputs(&mut rng, &program.main);
        let (a, b) = split(&program, &inputs);
        let (ra, _) = run_local(
            &program,
            &a,
            &b,
            &opts(Reveal::Both),
            &ChannelOptions::default(),
        )
        .unwrap();
        assert_eq!(ra.outputs.unwrap(), program.eval(&inputs).unwrap());
        assert_eq!(ra.and_gates, body.and_count() as u64 * 9);
    }
}

#[test]
fn every_published_vector_through_the_protocol() {
    let Some(data) = shared_data() else { return };
    let mut cache = std::collections::HashMap::new();
    for v in bristol_vectors(&data) {
        let program = cache.entry(v.circuit.clone()).or_insert_with(|| {
            Program::from(read_bristol_file(&data.join("bristol").join(&v.circuit)).unwrap())
        });
        let inputs: Vec<Vec<bool>> = program
            .main
            .inputs
            .iter()
            .zip(&v.inputs)
            .map(|(value, hex)| parse_int(hex, value.width).unwrap())
            .collect();
        let (a, b) = split(program, &inputs);
        for scheme in Scheme::ALL {
            let o = SessionOptions {
                scheme,
                ..opts(Reveal::Both)
            };
            let (ra, rb) = run_local(program, &a, &b, &o, &ChannelOptions::default()).unwrap();
            for out in [ra.outputs.unwrap(), rb.outputs.unwrap()] {
                let hex: Vec<String> = out.iter().map(|o| to_hex(o)).collect();
                assert_eq!(hex, v.outputs, "{} row {} {scheme}", v.circuit, v.row);
            }
            // The scheme's table bytes plus a setup that does not grow with
            // the circuit.
            let tables = scheme.table_bytes(ra.and_gates as usize) as u64;
            assert!(
                ra.bytes_sent >= tables && ra.bytes_sent < tables + 64 * 1024 + 64 * 256,
                "{scheme}: {}",
                ra.bytes_sent
            );
        }
    }
}

#[test]
fn wrong_inputs_are_rejected_before_anything_is_sent() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let shape = RandomShape {
        inputs: 2,
        max_width: 8,
        gates: 20,
        outputs: 1,
    };
    let program = Program::from(random_circuit(&mut rng, &shape));
    let inputs = random_inputs(&mut rng, &program.main);
    let (a, b) = split(&program, &inputs);
    // A gives B's value as well.
    let err = run_local(
        &program,
        &b,
        &a,
        &opts(Reveal::Both),
        &ChannelOptions::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("belongs to party"), "{err}");
    let mut short = a.clone();
    short[0].as_mut().unwrap().pop();
    let err = run_local(
        &program,
        &short,
        &b,
        &opts(Reveal::Both),
        &ChannelOptions::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("bits"), "{err}");
}

/// Wide levels (so FGP splits them), chains (so FGP shares them by owner)
/// and regions (so CGP splits them), under every schedule and 1..4
/// threads: identical outputs and bytes, equal to plaintext.
#[test]
fn every_schedule_and_thread_count_gives_the_same_result() {
    use twofold_protocol::Schedule;
    let mut rng = rand::rngs::StdRng::seed_from_u64(12);
    for round in 0..4u64 {
        // A main circuit with wide AND levels, and a program with a region
        // whose body is wide too.
        let wide = twofold_circuit::synthetic::layered(rng.gen_range(2100..3000), 3, 64, round);
        let body = twofold_circuit::synthetic::layered(rng.gen_range(8..2500), 2, 16, round + 100);
        // Chains with no long AND run: a body FGP shares by owner once
        // planned (from its second instance on).
        let chains = twofold_circuit::synthetic::chains(rng.gen_range(500..700), 40);
        let programs = [
            Program::from(wide),
            twofold_circuit::synthetic::repeated(&body, rng.gen_range(1..7)),
            twofold_circuit::synthetic::repeated(&chains, 3),
        ];
        for program in programs {
            let inputs = random_inputs(&mut rng, &program.main);
            let want = program.eval(&inputs).unwrap();
            let (a, b) = split(&program, &inputs);
            for scheme in Scheme::ALL {
                for schedule in Schedule::ALL {
                    for threads in 1..=4 {
                        // Split every level of 2048+ AND gates, so FGP really runs.
                        let o = SessionOptions {
                            schedule,
                            threads,
                            scheme,
                            fgp_min_ands: Some(2048),
                            ..opts(Reveal::Both)
                        };
                        let (ra, rb) =
                            run_local(&program, &a, &b, &o, &ChannelOptions::default()).unwrap();
                        let label =
                            format!("round {round}, {scheme}, {} x{threads}", schedule.name());
                        assert_eq!(ra.outputs.unwrap(), want, "{label}");
                        assert_eq!(rb.outputs.unwrap(), want, "{label}");
                        assert_eq!(ra.and_gates, program.and_count(), "{label}");
                    }
                }
            }
        }
    }
}

#[test]
fn more_threads_than_allowed_is_an_error_not_an_allocation() {
    let program = Program::from(random_circuit(
        &mut rand::rngs::StdRng::seed_from_u64(5),
        &RandomShape {
            inputs: 2,
            max_width: 8,
            gates: 20,
            outputs: 1,
        },
    ));
    let inputs = random_inputs(&mut rand::rngs::StdRng::seed_from_u64(6), &program.main);
    let (a, b) = split(&program, &inputs);
    let opts = SessionOptions {
        threads: 100_000,
        ..SessionOptions::default()
    };
    let err = run_local(&program, &a, &b, &opts, &ChannelOptions::default()).unwrap_err();
    assert!(err.to_string().contains("at most 256"), "{err}");
}

#[test]
fn more_input_bits_than_one_frame_of_labels_holds() {
    // 4.3 M input bits of A: their labels (69 MB) exceed the 64 MiB frame limit.
    let width = 4_300_000;
    let mut builder = twofold_circuit::Builder::new();
    let a = builder.input("a", Party::A, width);
    let b = builder.input("b", Party::B, 1);
    let first = builder.and(a[0], b[0]);
    let out = builder.xor(first, a[width as usize - 1]);
    builder.output("out", &[out]);
    let program = builder.finish_program().unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let inputs = random_inputs(&mut rng, &program.main);
    let (pa, pb) = split(&program, &inputs);
    let (ra, rb) = run_local(
        &program,
        &pa,
        &pb,
        &opts(Reveal::Both),
        &ChannelOptions::default(),
    )
    .unwrap();
    let want = program.eval(&inputs).unwrap();
    assert_eq!(ra.outputs.unwrap(), want);
    assert_eq!(rb.outputs.unwrap(), want);
}

/// One AND level wider than a frame can hold (2.2 M ANDs: 70 MB of
/// half-gates tables against the 64 MiB frame limit), split by FGP: the
/// tables stream in bounded frames and the outputs are right.
#[test]
fn fgp_streams_an_and_level_wider_than_a_frame() {
    use twofold_protocol::Schedule;
    let program = Program::from(twofold_circuit::synthetic::wide_level(2_200_000, 64, 7));
    assert_eq!(program.and_count(), 2_200_000);
    let mut rng = rand::rngs::StdRng::seed_from_u64(13);
    let inputs = random_inputs(&mut rng, &program.main);
    let want = program.eval(&inputs).unwrap();
    let (a, b) = split(&program, &inputs);
    for scheme in Scheme::ALL {
        let o = SessionOptions {
            schedule: Schedule::Fgp,
            threads: 2,
            scheme,
            fgp_min_ands: Some(1024),
            ..opts(Reveal::Both)
        };
        let (ra, rb) = run_local(&program, &a, &b, &o, &ChannelOptions::default())
            .unwrap_or_else(|e| panic!("{scheme}: {e}"));
        assert_eq!(ra.outputs.unwrap(), want, "{scheme}");
        assert_eq!(rb.outputs.unwrap(), want, "{scheme}");
    }
}

/// An AND of every bit of A's 8-bit input and B's `n`-bit input.
fn and_of_all(n: u32) -> Program {
    let mut b = twofold_circuit::Builder::new();
    let mut bits = b.input("a", Party::A, 8);
    bits.extend(b.input("b", Party::B, n));
    let all = bits.into_iter().reduce(|x, y| b.and(x, y)).unwrap();
    b.output("all", &[all]);
    Program::from(b.finish().unwrap())
}

/// Party B's bytes sent in a run of [`and_of_all`]`(n)` on ones.
fn evaluator_bytes(n: u32) -> u64 {
    let program = and_of_all(n);
    let inputs = vec![vec![true; 8], vec![true; n as usize]];
    let (a, b) = split(&program, &inputs);
    let o = opts(Reveal::Both);
    let (ra, rb) = run_local(&program, &a, &b, &o, &ChannelOptions::default()).unwrap();
    assert_eq!(ra.outputs, Some(vec![vec![true]]));
    rb.bytes_sent
}

#[test]
fn the_evaluators_inputs_come_by_the_extension_that_moves_fewer_bytes() {
    use twofold_ot::Extension;
    // B sends the same but for its OT batch: 32 OTs by IKNP (16 bytes an
    // OT beat SoftSpoken's 3,076 bytes of corrections), 512 by SoftSpoken.
    assert_eq!(Extension::cheapest(&[32]), Extension::Iknp);
    assert_eq!(Extension::cheapest(&[512]), Extension::DEFAULT);
    let want = Extension::DEFAULT.instance_bytes(&[512]) - Extension::Iknp.instance_bytes(&[32]);
    assert_eq!(evaluator_bytes(512) - evaluator_bytes(32), want);
}
