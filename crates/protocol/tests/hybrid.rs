//! The three-party hybrid mode over loopback: shares in, shares out, and the
//! combined output shares equal plaintext evaluation; what each computing
//! party sees does not depend on the secret inputs.

use rand::{Rng, SeedableRng};
use twofold_circuit::Program;
use twofold_crypto::{Block, Prg, Scheme};
use twofold_net::ChannelOptions;
use twofold_protocol::hybrid::shares::{combine, split};
use twofold_protocol::{
    run_hybrid_local, HybridOptions, HybridReport, ProtocolError, Schedule, ShareKind,
};
use twofold_testkit::{
    random_block_program, random_circuit, random_inputs, random_program, RandomShape,
};

/// Each party's share of each input value, for `inputs` split as `kinds`
/// in lanes of `lanes` bits (empty: each value's whole width).
fn share_inputs(
    inputs: &[Vec<bool>],
    kinds: &[ShareKind],
    lanes: &[u32],
    prg: &mut Prg,
) -> [Vec<Vec<bool>>; 3] {
    let mut shares: [Vec<Vec<bool>>; 3] = Default::default();
    for (k, (value, &kind)) in inputs.iter().zip(kinds).enumerate() {
        let lane = lanes.get(k).copied().unwrap_or(value.len() as u32);
        for (p, share) in split(kind, lane, value, prg).into_iter().enumerate() {
            shares[p].push(share);
        }
    }
    shares
}

/// The output values the three reports' shares stand for.
/// A small random program of one input and that input's XOR shares
/// (program and input drawn from `seed`).
fn small_shared(seed: u64) -> (Program, [Vec<Vec<bool>>; 3]) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let shape = RandomShape {
        inputs: 1,
        max_width: 8,
        gates: 40,
        outputs: 1,
    };
    let program = Program::from(random_circuit(&mut rng, &shape));
    let inputs = random_inputs(&mut rng, &program.main);
    let shares = share_inputs(&inputs, &[ShareKind::Xor], &[], &mut Prg::from_os());
    (program, shares)
}

/// The output values the three reports' shares stand for, shared as
/// `kind` in lanes of `lanes` bits.
fn reconstruct(reports: &[HybridReport; 3], kind: ShareKind, lanes: &[u32]) -> Vec<Vec<bool>> {
    (0..reports[0].output_shares.len())
        .map(|k| {
            combine(
                kind,
                lanes[k],
                [0, 1, 2].map(|p| reports[p].output_shares[k].as_slice()),
            )
        })
        .collect()
}

/// A random lane for a value of `width` bits: one of its divisors.
fn random_lane(rng: &mut impl Rng, width: usize) -> u32 {
    let divisors: Vec<u32> = (1..=width.max(1) as u32)
        .filter(|&d| (width as u32).is_multiple_of(d))
        .collect();
    divisors[rng.gen_range(0..divisors.len())]
}

/// Runs `program` in the hybrid mode on random inputs shared as random
/// kinds in random lanes, with outputs shared as `output_kind` in random
/// lanes; checks the result.
fn agrees(program: &Program, rng: &mut impl Rng, opts: HybridOptions) {
    let inputs = random_inputs(rng, &program.main);
    let want = program.eval(&inputs).unwrap();
    let kinds: Vec<ShareKind> = inputs
        .iter()
        .map(|_| ShareKind::ALL[rng.gen_range(0..2)])
        .collect();
    let input_lanes: Vec<u32> = inputs.iter().map(|v| random_lane(rng, v.len())).collect();
    let output_lanes: Vec<u32> = want.iter().map(|v| random_lane(rng, v.len())).collect();
    let mut prg = Prg::from_seed(Block(rng.gen()));
    let shares = share_inputs(&inputs, &kinds, &input_lanes, &mut prg);
    let output_kind = opts.output_kind;
    let opts = HybridOptions {
        input_kinds: kinds,
        input_lanes,
        output_lanes: output_lanes.clone(),
        ..opts
    };
    let reports = run_hybrid_local(program, &shares, &opts, &ChannelOptions::default()).unwrap();
    assert_eq!(reconstruct(&reports, output_kind, &output_lanes), want);
    // Only CP1 and CP2 touch gates; they agree on how many.
    assert_eq!(reports[0].and_gates, reports[1].and_gates);
    assert_eq!(reports[2].and_gates, 0);
}

#[test]
fn random_circuits_through_shares_equal_plaintext() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(31);
    for round in 0..40 {
        let shape = RandomShape {
            inputs: rng.gen_range(1..5),
            max_width: 40,
            gates: rng.gen_range(0..400),
            outputs: rng.gen_range(1..4),
        };
        let program = Program::from(random_circuit(&mut rng, &shape));
        let opts = HybridOptions {
            output_kind: ShareKind::ALL[round % 2],
            threads: 1,
            ..HybridOptions::default()
        };
        agrees(&program, &mut rng, opts);
    }
}

#[test]
fn programs_with_regions_and_loops_under_every_schedule_and_scheme() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(32);
    for round in 0..12 {
        let program = if round % 2 == 0 {
            random_program(&mut rng, 2, 300)
        } else {
            random_block_program(&mut rng, 2)
        };
        for (schedule, threads) in [
            (Schedule::Sequential, 1),
            (Schedule::Fgp, 2),
            (Schedule::Cgp, 2),
            (Schedule::Auto, 3),
        ] {
            let opts = HybridOptions {
                output_kind: ShareKind::ALL[round % 2],
                threads,
                schedule,
                scheme: Scheme::ALL[round / 2 % 2],
                // Split every AND level, so FGP runs.
                fgp_min_ands: Some(1),
                ..HybridOptions::default()
            };
            agrees(&program, &mut rng, opts);
        }
    }
}

#[test]
fn disagreeing_terms_are_refused_by_every_party() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(33);
    let shape = RandomShape {
        inputs: 2,
        max_width: 8,
        gates: 50,
        outputs: 1,
    };
    let program = Program::from(random_circuit(&mut rng, &shape));
    let inputs = random_inputs(&mut rng, &program.main);
    let kinds = vec![ShareKind::Xor; inputs.len()];
    let shares = share_inputs(&inputs, &kinds, &[], &mut Prg::from_os());
    // Too few shares.
    let short = [
        shares[0][..1].to_vec(),
        shares[1].clone(),
        shares[2].clone(),
    ];
    let opts = HybridOptions {
        input_kinds: kinds,
        threads: 1,
        ..HybridOptions::default()
    };
    let err = run_hybrid_local(&program, &short, &opts, &ChannelOptions::default()).unwrap_err();
    assert!(matches!(err, ProtocolError::Inputs(_)), "{err}");
    // Lanes that do not cut the values: 0 bits, not a divisor, too few.
    let width = program.main.inputs[0].width;
    let out_width = program.main.outputs[0].wires.len() as u32;
    for (input_lanes, output_lanes, says) in [
        (vec![0, 1], vec![], "lanes of 0 bits"),
        (vec![1, width + 1], vec![], "lanes of"),
        (vec![1], vec![], "1 lanes given"),
        (vec![], vec![out_width + 1], "output"),
    ] {
        let opts = HybridOptions {
            input_lanes,
            output_lanes,
            ..opts.clone()
        };
        let err = run_hybrid_local(&program, &shares, &opts, &ChannelOptions::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains(says), "{err}");
    }
}

/// A program of one 8-bit input, its own output.
fn identity8() -> Program {
    let mut b = twofold_circuit::Builder::new();
    let x = b.input("x", twofold_circuit::Party::A, 8);
    b.output("y", &x);
    Program::from(b.finish().unwrap())
}

#[test]
fn additive_inputs_and_outputs_are_shared_per_lane() {
    // Four 8-bit lanes of one 32-bit value: each byte combines modulo 256.
    let mut b = twofold_circuit::Builder::new();
    let x = b.input("x", twofold_circuit::Party::A, 32);
    let y = b.input("y", twofold_circuit::Party::B, 32);
    let z: Vec<_> = x.iter().zip(&y).map(|(&p, &q)| b.xor(p, q)).collect();
    b.output("z", &z);
    let program = Program::from(b.finish().unwrap());
    let bytes = |v: [u8; 4]| -> Vec<bool> {
        v.iter()
            .flat_map(|&x| (0..8).map(move |i| (x >> i) & 1 == 1))
            .collect()
    };
    let inputs = [bytes([255, 0, 128, 7]), bytes([1, 2, 3, 4])];
    let kinds = [ShareKind::Add; 2];
    let mut prg = Prg::from_os();
    let shares = share_inputs(&inputs, &kinds, &[8, 8], &mut prg);
    let opts = HybridOptions {
        input_kinds: kinds.to_vec(),
        input_lanes: vec![8, 8],
        output_kind: ShareKind::Add,
        output_lanes: vec![8],
        threads: 1,
        ..HybridOptions::default()
    };
    let reports = run_hybrid_local(&program, &shares, &opts, &ChannelOptions::default()).unwrap();
    let want = bytes([255 ^ 1, 2, 128 ^ 3, 7 ^ 4]);
    assert_eq!(
        reconstruct(&reports, ShareKind::Add, &[8]),
        std::slice::from_ref(&want)
    );
    // Per byte: the shares' bytes sum to the output's byte modulo 256.
    let byte =
        |bits: &[bool], k: usize| (0..8).fold(0u32, |acc, i| acc | (bits[8 * k + i] as u32) << i);
    for k in 0..4 {
        let sum: u32 = reports.iter().map(|r| byte(&r.output_shares[0], k)).sum();
        assert_eq!(sum % 256, byte(&want, k), "byte {k}");
    }
    // `pre` and `post` add per lane: 7 AND gates a lane, not 31 a value.
    let whole = HybridOptions {
        input_lanes: vec![32, 32],
        output_lanes: vec![32],
        ..opts.clone()
    };
    let shares = share_inputs(&inputs, &kinds, &[32, 32], &mut prg);
    let as_whole = run_hybrid_local(&program, &shares, &whole, &ChannelOptions::default()).unwrap();
    assert_eq!(reconstruct(&as_whole, ShareKind::Add, &[32]), [want]);
    assert_eq!(reports[0].and_gates, 4 * (2 * 7 + 2 * 7));
    assert_eq!(as_whole[0].and_gates, 2 * 31 + 2 * 31);
}

/// Runs the three parties of `program` between threads, each with its
/// shares and the options `opts` gives it; returns their errors.
fn three_failing(
    program: &Program,
    shares: &[Vec<Vec<bool>>; 3],
    opts: impl Fn(twofold_protocol::Role) -> HybridOptions + Sync,
) -> [ProtocolError; 3] {
    use std::time::Duration;
    use twofold_net::Listener;
    use twofold_protocol::{run_hybrid, HybridPeers, Role};

    let listeners = [
        Listener::bind("127.0.0.1:0").unwrap(),
        Listener::bind("127.0.0.1:0").unwrap(),
    ];
    let addrs = listeners
        .each_ref()
        .map(|l| l.local_addr().unwrap().to_string());
    let started = std::time::Instant::now();
    let errors = std::thread::scope(|s| {
        let handles = Role::ALL.map(|role| {
            let (addrs, opts) = (addrs.clone(), &opts);
            let listener = (role != Role::Cp3).then(|| &listeners[role.index()]);
            s.spawn(move || {
                let opts = opts(role);
                let peers = HybridPeers {
                    listener,
                    addrs,
                    wait: Duration::from_secs(2),
                    channel: ChannelOptions::default(),
                    keys: [None; 3],
                    store_id: None,
                };
                run_hybrid(role, &peers, program, &shares[role.index()], &opts).unwrap_err()
            })
        });
        handles.map(|h| h.join().unwrap())
    });
    assert!(started.elapsed() < Duration::from_secs(10));
    errors
}

#[test]
fn parties_that_disagree_on_share_kinds_all_stop_with_an_error() {
    use twofold_protocol::Role;

    let (program, shares) = small_shared(34);
    let errors = three_failing(&program, &shares, |role| HybridOptions {
        // CP3 takes the input for additive shares.
        input_kinds: vec![if role == Role::Cp3 {
            ShareKind::Add
        } else {
            ShareKind::Xor
        }],
        threads: 1,
        ..HybridOptions::default()
    });
    // CP1, the first CP3 meets, names the difference.
    assert!(
        matches!(
            &errors[0],
            ProtocolError::Mismatch {
                what: "the share kinds of the inputs",
                ..
            }
        ),
        "{}",
        errors[0]
    );
}

#[test]
fn parties_that_disagree_on_lanes_all_stop_with_an_error() {
    use twofold_protocol::Role;

    let program = identity8();
    let input = [vec![true; 8]];
    let kinds = [ShareKind::Add];
    let shares = share_inputs(&input, &kinds, &[8], &mut Prg::from_os());
    // CP3 cuts the additive input into bits, the others take it whole.
    let errors = three_failing(&program, &shares, |role| HybridOptions {
        input_kinds: kinds.to_vec(),
        input_lanes: vec![if role == Role::Cp3 { 1 } else { 8 }],
        threads: 1,
        ..HybridOptions::default()
    });
    for error in &errors {
        assert!(!matches!(error, ProtocolError::Internal(_)), "{error}");
    }
    let message = errors[0].to_string();
    assert!(
        message.contains("the lanes of the additive shares")
            && message.contains("input value 0: lanes of 8 bits")
            && message.contains("input value 0: lanes of 1 bits"),
        "{message}"
    );
    // Lanes of bitwise shares do not matter; those of additive outputs do.
    let xor = share_inputs(&input, &[ShareKind::Xor], &[], &mut Prg::from_os());
    let errors = three_failing(&program, &xor, |role| HybridOptions {
        input_kinds: vec![ShareKind::Xor],
        input_lanes: vec![if role == Role::Cp3 { 1 } else { 8 }],
        output_kind: ShareKind::Add,
        output_lanes: vec![if role == Role::Cp2 { 2 } else { 8 }],
        threads: 1,
        ..HybridOptions::default()
    });
    let message = errors[0].to_string();
    assert!(message.contains("output value 0"), "{message}");
}

#[test]
fn an_authenticated_party_without_a_pinned_role_key_is_refused() {
    // Every connection is TLS with pinned keys, but no key is tied to a
    // role: a party holding any pinned key could claim any role, so the
    // parties refuse to meet (fail closed) rather than accept anyone.
    use std::time::Duration;
    use twofold_net::Listener;
    use twofold_protocol::{run_hybrid, HybridPeers, Role};

    let (program, shares) = small_shared(29);
    let pairs = [(); 3].map(|()| twofold_net::KeyPair::generate().unwrap());
    let started = std::time::Instant::now();
    let channel = |role: Role| {
        let peers: Vec<_> = Role::ALL
            .into_iter()
            .filter(|&r| r != role)
            .map(|r| pairs[r.index()].public())
            .collect();
        ChannelOptions {
            security: twofold_net::Security::tls(&pairs[role.index()], &peers).unwrap(),
            read_timeout: Duration::from_secs(2),
            write_timeout: Duration::from_secs(2),
            ..ChannelOptions::default()
        }
    };
    let listeners = [Role::Cp1, Role::Cp2].map(|r| {
        Listener::bind("127.0.0.1:0")
            .unwrap()
            .with_options(channel(r))
            .unwrap()
    });
    let addrs = listeners
        .each_ref()
        .map(|l| l.local_addr().unwrap().to_string());
    let errors = std::thread::scope(|s| {
        let handles = Role::ALL.map(|role| {
            let (program, shares, addrs) = (&program, &shares, addrs.clone());
            let listener = (role != Role::Cp3).then(|| &listeners[role.index()]);
            let channel = channel(role);
            s.spawn(move || {
                let opts = HybridOptions {
                    input_kinds: vec![ShareKind::Xor],
                    threads: 1,
                    ..HybridOptions::default()
                };
                let peers = HybridPeers {
                    listener,
                    addrs,
                    wait: Duration::from_secs(2),
                    channel,
                    keys: [None; 3],
                    store_id: None,
                };
                run_hybrid(role, &peers, program, &shares[role.index()], &opts)
            })
        });
        handles.map(|h| h.join().unwrap())
    });
    for (role, result) in Role::ALL.into_iter().zip(errors) {
        assert!(result.is_err(), "{role} ran with no role key pinned");
    }
    assert!(started.elapsed() < Duration::from_secs(15));
}
