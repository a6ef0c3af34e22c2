//! Inter-party parallelism: the same outputs as without it, and role
//! transfers that reveal nothing about the values.

use rand::{Rng, SeedableRng};
use twofold_circuit::bristol::read_bristol_file;
use twofold_circuit::synthetic::repeated;
use twofold_circuit::value::{parse_int, to_hex};
use twofold_circuit::{Party, Program};
use twofold_crypto::Scheme;
use twofold_net::ChannelOptions;
use twofold_protocol::{
    run_local, IppMode, PartyInputs, Reveal, Schedule, SessionOptions, SessionReport,
};
use twofold_testkit::{
    bristol_vectors, party_inputs, random_circuit, random_inputs, random_program, shared_data,
    RandomShape,
};

fn split(program: &Program, inputs: &[Vec<bool>]) -> (PartyInputs, PartyInputs) {
    let pick = |party| party_inputs(&program.main, inputs, party);
    (pick(Party::A), pick(Party::B))
}

fn run(
    program: &Program,
    inputs: &[Vec<bool>],
    opts: &SessionOptions,
) -> (SessionReport, SessionReport) {
    let (a, b) = split(program, inputs);
    run_local(program, &a, &b, opts, &ChannelOptions::default()).unwrap()
}

fn ipp(schedule: Schedule, threads: u32) -> SessionOptions {
    SessionOptions {
        schedule,
        threads,
        ipp: IppMode::On,
        reveal: Reveal::Both,
        // Split every AND level and region between threads, however small
        // (these programs' regions are a few gates).
        fgp_min_ands: Some(1),
        ..SessionOptions::default()
    }
}

#[test]
fn random_programs_with_regions_give_the_same_outputs_with_ipp() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(31);
    for round in 0..25 {
        let shape = RandomShape {
            inputs: rng.gen_range(1..4),
            max_width: 12,
            gates: rng.gen_range(1..300),
            outputs: rng.gen_range(1..3),
        };
        let body = random_circuit(&mut rng, &shape);
        let program = repeated(&body, rng.gen_range(1..7));
        let inputs = random_inputs(&mut rng, &program.main);
        let want = program.eval(&inputs).unwrap();
        for (schedule, threads) in [
            (Schedule::Sequential, 1),
            (Schedule::Auto, 1),
            (Schedule::Cgp, 2),
            (Schedule::Auto, 2),
        ] {
            let scheme = Scheme::ALL[round % 2];
            let opts = SessionOptions {
                scheme,
                ..ipp(schedule, threads)
            };
            let (ra, rb) = run(&program, &inputs, &opts);
            let label = format!("round {round}, {scheme}, {} x{threads}", schedule.name());
            assert_eq!(ra.outputs.unwrap(), want, "{label}");
            assert_eq!(rb.outputs.unwrap(), want, "{label}");
            assert_eq!(ra.and_gates, program.and_count(), "{label}");
        }
    }
}

/// Programs with main gates around and between their regions (the builder
/// reusing wire slots, as for C): main gates that run during regions must
/// not change the outputs.
#[test]
fn main_gates_during_regions_give_the_same_outputs() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(77);
    let mut during = 0;
    for round in 0..40 {
        let regions = rng.gen_range(1..4);
        let program = random_program(&mut rng, regions, 60);
        during += program
            .main_overlapped()
            .during
            .iter()
            .flatten()
            .map(gates_in)
            .sum::<usize>();
        let inputs = random_inputs(&mut rng, &program.main);
        let want = program.eval(&inputs).unwrap();
        for mode in [IppMode::On, IppMode::NoOverlap] {
            for (schedule, threads) in [(Schedule::Sequential, 1), (Schedule::Auto, 2)] {
                let opts = SessionOptions {
                    ipp: mode,
                    ..ipp(schedule, threads)
                };
                let (ra, rb) = run(&program, &inputs, &opts);
                let label = format!(
                    "round {round}, {} {} x{threads}",
                    mode.name(),
                    schedule.name()
                );
                assert_eq!(ra.outputs.unwrap(), want, "{label}");
                assert_eq!(rb.outputs.unwrap(), want, "{label}");
                assert_eq!(ra.and_gates, program.and_count(), "{label}");
                assert_eq!(rb.and_gates, program.and_count(), "{label}");
            }
        }
    }
    assert!(during > 100, "only {during} main gates ran during regions");
}

/// Main gates that read a wire before a region overwrites it run during the
/// region, so they must run before the region's results are written back.
#[test]
fn main_gates_during_a_region_read_what_it_overwrites_before_it_ends() {
    use twofold_circuit::{Block, Circuit, Gate, InputValue, OutputValue};
    let value = |name: &str, party, width| InputValue {
        name: name.into(),
        party,
        width,
    };
    let program = Program {
        main: Circuit {
            num_wires: 5,
            inputs: vec![value("a", Party::A, 1), value("b", Party::B, 1)],
            outputs: vec![OutputValue {
                name: "out".into(),
                wires: vec![2, 3, 4],
            }],
            // Wire 2 = a & b, read by the second gate, then overwritten by
            // the region's first instance.
            gates: vec![
                Gate::And { a: 0, b: 1, out: 2 },
                Gate::And { a: 2, b: 0, out: 3 },
            ],
        },
        blocks: vec![Block::parallel(
            2,
            Circuit {
                num_wires: 2,
                inputs: vec![value("x", Party::A, 1)],
                outputs: vec![OutputValue {
                    name: "y".into(),
                    wires: vec![1],
                }],
                gates: vec![Gate::Inv { a: 0, out: 1 }],
            },
            Vec::new(),
            &[(vec![1], vec![2]), (vec![0], vec![4])],
        )],
    };
    program.validate().unwrap();
    assert_eq!(
        program.main_overlapped().during[0]
            .iter()
            .map(gates_in)
            .sum::<usize>(),
        2
    );
    for bits in 0..4u8 {
        let inputs = vec![vec![bits & 1 == 1], vec![bits & 2 == 2]];
        let want = program.eval(&inputs).unwrap();
        for mode in [IppMode::On, IppMode::NoOverlap] {
            let opts = SessionOptions {
                ipp: mode,
                ..ipp(Schedule::Sequential, 1)
            };
            let (ra, rb) = run(&program, &inputs, &opts);
            assert_eq!(ra.outputs.unwrap(), want, "{} {bits}", mode.name());
            assert_eq!(rb.outputs.unwrap(), want, "{} {bits}", mode.name());
        }
    }
}

#[test]
fn both_parties_garble_under_ipp() {
    let body = twofold_circuit::synthetic::layered(64, 10, 16, 5);
    let program = repeated(&body, 6);
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let inputs = random_inputs(&mut rng, &program.main);
    let plain = SessionOptions {
        threads: 1,
        schedule: Schedule::Sequential,
        ..SessionOptions::default()
    };
    let (a0, b0) = run(&program, &inputs, &plain);
    let (a1, b1) = run(&program, &inputs, &ipp(Schedule::Sequential, 1));
    assert_eq!(a0.outputs, a1.outputs);
    // Without IPP all tables go from A to B; with it, B sends half of them.
    let tables = 32 * program.and_count();
    assert!(a0.bytes_sent > tables && b0.bytes_sent < tables / 10);
    let half = 32 * body.and_count() as u64 * 3;
    assert!(b1.bytes_sent > half, "B sent {} bytes", b1.bytes_sent);
    assert!(a1.bytes_sent > half && a1.bytes_sent < a0.bytes_sent);
    assert!(a1.role_transfer > std::time::Duration::ZERO);
}

#[test]
fn bristol_vectors_wrapped_in_programs_agree_with_ipp() {
    let Some(data) = shared_data() else { return };
    for v in bristol_vectors(&data) {
        let circuit = read_bristol_file(&data.join("bristol").join(&v.circuit)).unwrap();
        // Three instances on the same vector: their XOR is the vector's output.
        let program = repeated(&circuit, 3);
        let inputs: Vec<Vec<bool>> = circuit
            .inputs
            .iter()
            .zip(&v.inputs)
            .map(|(value, hex)| parse_int(hex, value.width).unwrap().repeat(3))
            .collect();
        let widths: Vec<usize> = circuit.outputs.iter().map(|o| o.wires.len()).collect();
        for scheme in Scheme::ALL {
            let opts = SessionOptions {
                scheme,
                ..ipp(Schedule::Auto, 2)
            };
            let (ra, rb) = run(&program, &inputs, &opts);
            for got in [ra.outputs.unwrap(), rb.outputs.unwrap()] {
                let flat = got.concat();
                let mut at = 0;
                for (k, w) in widths.iter().enumerate() {
                    assert_eq!(
                        to_hex(&flat[at..at + w]),
                        v.outputs[k],
                        "{} row {} {scheme}",
                        v.circuit,
                        v.row
                    );
                    at += w;
                }
            }
        }
    }
}

/// Fraction of ones at each of the 128 bit positions of `blocks`.
fn ones_per_position(blocks: &[twofold_crypto::Block]) -> Vec<f64> {
    (0..128)
        .map(|k| blocks.iter().filter(|b| (b.0 >> k) & 1 == 1).count() as f64 / blocks.len() as f64)
        .collect()
}

/// The blocks both parties send at role transfers, over many sessions with
/// the same inputs: about half the bits are ones at every position (the lsb
/// included, which would carry a share), they differ between sessions, and
/// the statistics do not change with the secret inputs.
#[test]
fn role_transfers_look_uniform_whatever_the_inputs() {
    let body = twofold_circuit::synthetic::layered(16, 2, 16, 3);
    let program = repeated(&body, 2);
    let opts = SessionOptions {
        record_transfers: true,
        ..ipp(Schedule::Sequential, 1)
    };
    let fixed = |bit: bool| -> Vec<Vec<bool>> {
        program
            .main
            .inputs
            .iter()
            .map(|v| vec![bit; v.width as usize])
            .collect()
    };
    let mut stats = Vec::new();
    for input in [fixed(false), fixed(true)] {
        let mut all = Vec::new();
        let mut previous: Option<Vec<twofold_crypto::Block>> = None;
        for _ in 0..60 {
            let (ra, rb) = run(&program, &input, &opts);
            let sent: Vec<_> = ra
                .transfers_sent
                .iter()
                .chain(&rb.transfers_sent)
                .copied()
                .collect();
            assert!(!sent.is_empty());
            if let Some(p) = &previous {
                assert_ne!(p, &sent, "transfers repeat between sessions");
            }
            all.extend_from_slice(&sent);
            previous = Some(sent);
        }
        let ones = ones_per_position(&all);
        // n >= 60 * 16 blocks: a fair bit is within 0.5 +- 0.1 with
        // overwhelming probability (more than 6 standard deviations).
        assert!(all.len() >= 960, "{} blocks", all.len());
        for (k, f) in ones.iter().enumerate() {
            assert!((f - 0.5).abs() < 0.1, "bit {k}: {f}");
        }
        stats.push(ones);
    }
    // The two inputs give the same statistics (each position within 0.14,
    // the difference of two such estimates).
    for (k, (x, y)) in stats[0].iter().zip(&stats[1]).enumerate() {
        assert!((x - y).abs() < 0.14, "bit {k}: {x} vs {y}");
    }
}

#[test]
fn parties_must_agree_on_ipp_schedule_scheme_and_fgp() {
    let body = twofold_circuit::synthetic::layered(8, 2, 8, 3);
    let program = repeated(&body, 2);
    let mut rng = rand::rngs::StdRng::seed_from_u64(4);
    let inputs = random_inputs(&mut rng, &program.main);
    let (a, b) = split(&program, &inputs);
    let listener = twofold_net::Listener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let wait = std::time::Duration::from_secs(5);
    for (oa, ob, what) in [
        (
            ipp(Schedule::Sequential, 1),
            SessionOptions {
                ipp: IppMode::Off,
                ..ipp(Schedule::Sequential, 1)
            },
            "inter-party",
        ),
        (
            ipp(Schedule::Sequential, 1),
            SessionOptions {
                ipp: IppMode::NoOverlap,
                ..ipp(Schedule::Sequential, 1)
            },
            "IPP without overlap",
        ),
        (
            ipp(Schedule::Sequential, 1),
            ipp(Schedule::Fgp, 1),
            "schedule",
        ),
        (
            ipp(Schedule::Sequential, 1),
            SessionOptions {
                scheme: Scheme::ThreeHalves,
                ..ipp(Schedule::Sequential, 1)
            },
            "garbling scheme",
        ),
        (
            ipp(Schedule::Sequential, 1),
            SessionOptions {
                fgp_min_ands: Some(100),
                ..ipp(Schedule::Sequential, 1)
            },
            "FGP threshold",
        ),
    ] {
        let p = program.clone();
        let bb = b.clone();
        let t = std::thread::spawn(move || {
            let chan =
                twofold_net::Channel::connect(addr, wait, ChannelOptions::default()).unwrap();
            let peer =
                twofold_protocol::Peer::Connect(addr.to_string(), wait, ChannelOptions::default());
            twofold_protocol::run_session(chan, &peer, Party::B, &p, &bb, &ob).unwrap_err()
        });
        let chan = listener.accept(wait).unwrap();
        let peer = twofold_protocol::Peer::Listen(&listener, wait);
        let err =
            twofold_protocol::run_session(chan, &peer, Party::A, &program, &a, &oa).unwrap_err();
        assert!(err.to_string().contains(what), "{err}");
        assert!(t.join().unwrap().to_string().contains(what));
    }
}

/// Gates in a step of the main circuit.
fn gates_in(item: &twofold_circuit::Item) -> usize {
    match item {
        twofold_circuit::Item::Gates(g) => g.len(),
        twofold_circuit::Item::Loop(_) => 0,
    }
}

/// Programs with loops and regions nested in each other: IPP (main loops
/// running during regions, regions inside loops run by A) gives the
/// plaintext outputs.
#[test]
fn nested_loops_and_regions_give_the_same_outputs_with_ipp() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(79);
    for round in 0..30 {
        let program = twofold_testkit::random_block_program(&mut rng, 2);
        let inputs = random_inputs(&mut rng, &program.main);
        let want = program.eval(&inputs).unwrap();
        for mode in [IppMode::On, IppMode::NoOverlap] {
            for (schedule, threads) in [(Schedule::Sequential, 1), (Schedule::Auto, 2)] {
                let opts = SessionOptions {
                    ipp: mode,
                    ..ipp(schedule, threads)
                };
                let (ra, rb) = run(&program, &inputs, &opts);
                assert_eq!(ra.outputs.as_ref(), Some(&want), "round {round} {mode:?}");
                assert_eq!(rb.outputs.as_ref(), Some(&want), "round {round} {mode:?}");
            }
        }
    }
}
