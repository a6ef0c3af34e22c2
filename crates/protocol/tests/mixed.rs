//! The two-party mixed executor against plaintext evaluation: random mixed
//! programs, every reveal mode, both garbling schemes, a TLS link.

use std::time::Duration;

use rand::SeedableRng;
use twofold_circuit::mixed::eval::word_bits;
use twofold_circuit::{Kind, MixedInput, MixedOutput, MixedProgram, Party, Step};
use twofold_crypto::Scheme;
use twofold_net::{Channel, ChannelOptions, KeyPair, Security};
use twofold_protocol::mixed::{run_mixed, run_mixed_local, MixedOptions};
use twofold_protocol::{ProtocolError, Reveal};
use twofold_testkit::{mixed_parts, mixed_party_inputs, random_mixed_inputs, random_mixed_program};

fn channel() -> ChannelOptions {
    ChannelOptions {
        read_timeout: Duration::from_secs(30),
        write_timeout: Duration::from_secs(30),
        ..ChannelOptions::default()
    }
}

/// Runs `program` on `inputs` between the two parties and checks the
/// outputs against plaintext evaluation.
fn agrees(program: &MixedProgram, inputs: &[Vec<bool>], opts: &MixedOptions) {
    let want = program.eval(inputs).unwrap();
    let a = mixed_party_inputs(program, inputs, 0);
    let b = mixed_party_inputs(program, inputs, 1);
    let (ra, rb) = run_mixed_local(program, (&a, &b), opts, &channel()).unwrap();
    for (party, report) in [(Party::A, &ra), (Party::B, &rb)] {
        if opts.reveal.reveals_to(party) {
            assert_eq!(report.outputs.as_ref(), Some(&want), "party {party}");
        } else {
            assert_eq!(report.outputs, None, "party {party}");
        }
    }
    // Both count the same bytes: what one sends, the other receives.
    assert_eq!(ra.traffic.total(), rb.traffic.total());
    assert_eq!(ra.and_gates, rb.and_gates);
}

#[test]
fn random_mixed_programs_agree_with_plaintext() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(2900);
    for case in 0..12 {
        let w = [8, 16, 32, 64][case % 4];
        let program = random_mixed_program(&mut rng, w, 24);
        let inputs = random_mixed_inputs(&mut rng, &program);
        let opts = MixedOptions {
            reveal: Reveal::ALL[case % 3],
            scheme: if case % 2 == 0 {
                Scheme::HalfGates
            } else {
                Scheme::ThreeHalves
            },
            threads: case % 3,
        };
        agrees(&program, &inputs, &opts);
    }
}

/// `Σ x[k]·y[k]` of A's and B's 32-bit vectors, then whether it is below
/// B's bound, injected back and added: products, a dot product, a
/// comparison and bit injection, over TLS.
#[test]
fn a_dot_product_compared_runs_over_tls() {
    let mut program = MixedProgram {
        parties: 2,
        programs: mixed_parts(32),
        ..MixedProgram::default()
    };
    let word = |name: String, owner| MixedInput {
        name,
        owner,
        kind: Kind::Word(32),
    };
    program.inputs = (0..4).map(|k| word(format!("x{k}"), 0)).collect();
    program
        .inputs
        .extend((0..4).map(|k| word(format!("y{k}"), 1)));
    program.inputs.push(word("bound".into(), 1));
    program.steps = vec![
        Step::Dot((0..4).collect(), (4..8).collect()),
        Step::ToYao(9),
        Step::ToYao(8),
        Step::Boolean {
            program: 0,
            args: vec![10, 11],
        },
        Step::Inject { bit: 12, width: 32 },
        Step::Add(9, 13),
        Step::Mul(14, 14),
    ];
    program.outputs = vec![
        MixedOutput {
            name: "dot".into(),
            value: 9,
        },
        MixedOutput {
            name: "below".into(),
            value: 12,
        },
        MixedOutput {
            name: "square".into(),
            value: 15,
        },
    ];
    let values: Vec<u64> = vec![3, 1 << 20, 7, u32::MAX as u64, 5, 6, 1 << 13, 9, 1 << 30];
    let inputs: Vec<Vec<bool>> = values.iter().map(|&x| word_bits(x, 32)).collect();
    let want = program.eval(&inputs).unwrap();
    let (ka, kb) = (KeyPair::generate().unwrap(), KeyPair::generate().unwrap());
    let tls = |ours: &KeyPair, peer: &KeyPair| ChannelOptions {
        security: Security::tls(ours, &[peer.public()]).unwrap(),
        ..channel()
    };
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let opts = MixedOptions::default();
    let (pa, pb) = (program.clone(), program.clone());
    let b_inputs = mixed_party_inputs(&program, &inputs, 1);
    let b_tls = tls(&kb, &ka);
    let b = std::thread::spawn(move || {
        let chan = Channel::connect(addr, Duration::from_secs(10), b_tls).unwrap();
        run_mixed(chan, Party::B, &pb, &b_inputs, &opts)
    });
    let (stream, _) = listener.accept().unwrap();
    let chan = Channel::accepted(stream, tls(&ka, &kb)).unwrap();
    let a_inputs = mixed_party_inputs(&program, &inputs, 0);
    let a = run_mixed(chan, Party::A, &pa, &a_inputs, &opts).unwrap();
    let b = b.join().unwrap().unwrap();
    assert_eq!(a.outputs.as_ref(), Some(&want));
    assert_eq!(b.outputs.as_ref(), Some(&want));
    // Products by depth: the dot product (1), the conversions (2), the
    // injection (3), the square (4).
    assert_eq!(a.rounds, 4);
}

#[test]
fn parties_running_different_programs_stop_at_the_handshake() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let one = random_mixed_program(&mut rng, 16, 6);
    let mut other = one.clone();
    other.steps.push(Step::Neg(0));
    let inputs = random_mixed_inputs(&mut rng, &one);
    let (a, b) = Channel::pair(&channel()).unwrap();
    let opts = MixedOptions::default();
    let b_inputs = mixed_party_inputs(&other, &inputs, 1);
    let peer = std::thread::spawn(move || run_mixed(b, Party::B, &other, &b_inputs, &opts));
    let err = run_mixed(
        a,
        Party::A,
        &one,
        &mixed_party_inputs(&one, &inputs, 0),
        &opts,
    )
    .unwrap_err();
    assert!(
        matches!(err, ProtocolError::Mismatch { what, .. } if what.contains("program")),
        "{err}"
    );
    assert!(peer.join().unwrap().is_err());
}

/// Products of A's and B's words, squared, then times the first product
/// again, for `n` pairs: three layers of products however many pairs.
fn product_chain(n: u32) -> MixedProgram {
    let word = |name: String, owner| MixedInput {
        name,
        owner,
        kind: Kind::Word(32),
    };
    let mut p = MixedProgram {
        parties: 2,
        ..MixedProgram::default()
    };
    p.inputs = (0..n).map(|k| word(format!("a{k}"), 0)).collect();
    p.inputs.extend((0..n).map(|k| word(format!("b{k}"), 1)));
    let first = 2 * n;
    p.steps = (0..n).map(|k| Step::Mul(k, n + k)).collect();
    p.steps
        .extend((0..n).map(|k| Step::Mul(first + k, first + k)));
    p.steps
        .extend((0..n).map(|k| Step::Mul(first + n + k, first + k)));
    p.outputs = (0..n)
        .map(|k| MixedOutput {
            name: format!("r{k}"),
            value: first + 2 * n + k,
        })
        .collect();
    p
}

#[test]
fn rounds_and_messages_follow_the_depth_not_the_number_of_products() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let mut flights = Vec::new();
    for n in [1, 64] {
        let program = product_chain(n);
        let inputs = random_mixed_inputs(&mut rng, &program);
        let want = program.eval(&inputs).unwrap();
        let (a, b) = run_mixed_local(
            &program,
            (
                &mixed_party_inputs(&program, &inputs, 0),
                &mixed_party_inputs(&program, &inputs, 1),
            ),
            &MixedOptions::default(),
            &channel(),
        )
        .unwrap();
        assert_eq!(a.outputs.as_ref(), Some(&want));
        assert_eq!(b.outputs.as_ref(), Some(&want));
        assert_eq!(a.rounds, 3, "{n} pairs");
        flights.push(a.flights);
    }
    assert_eq!(flights[0], flights[1]);
}
