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

/// Each party's share of each input value, for `inputs` split as `kinds`.
fn share_inputs(inputs: &[Vec<bool>], kinds: &[ShareKind], prg: &mut Prg) -> [Vec<Vec<bool>>; 3] {
    let mut shares: [Vec<Vec<bool>>; 3] = Default::default();
    for (value, &kind) in inputs.iter().zip(kinds) {
        for (p, share) in split(kind, value, prg).into_iter().enumerate() {
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
    let shares = share_inputs(&inputs, &[ShareKind::Xor], &mut Prg::from_os());
    (program, shares)
}

fn reconstruct(reports: &[HybridReport; 3], kind: ShareKind) -> Vec<Vec<bool>> {
    (0..reports[0].output_shares.len())
        .map(|k| {
            combine(
                kind,
                [0, 1, 2].map(|p| reports[p].output_shares[k].as_slice()),
            )
        })
        .collect()
}

/// Runs `program` in the hybrid mode on random inputs shared as random
/// kinds, with outputs shared as `output_kind`; checks the result.
fn agrees(program: &Program, rng: &mut impl Rng, opts: HybridOptions) {
    let inputs = random_inputs(rng, &program.main);
    let want = program.eval(&inputs).unwrap();
    let kinds: Vec<ShareKind> = inputs
        .iter()
        .map(|_| ShareKind::ALL[rng.gen_range(0..2)])
        .collect();
    let mut prg = Prg::from_seed(Block(rng.gen()));
    let shares = share_inputs(&inputs, &kinds, &mut prg);
    let output_kind = opts.output_kind;
    let opts = HybridOptions {
        input_kinds: kinds,
        ..opts
    };
    let reports = run_hybrid_local(program, &shares, &opts, &ChannelOptions::default()).unwrap();
    assert_eq!(reconstruct(&reports, output_kind), want);
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
    let shares = share_inputs(&inputs, &kinds, &mut Prg::from_os());
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
}

#[test]
fn parties_that_disagree_on_share_kinds_all_stop_with_an_error() {
    use std::time::Duration;
    use twofold_net::Listener;
    use twofold_protocol::{run_hybrid, HybridPeers, Role};

    let (program, shares) = small_shared(34);
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
            let (program, shares, addrs) = (&program, &shares, addrs.clone());
            let listener = (role != Role::Cp3).then(|| &listeners[role.index()]);
            s.spawn(move || {
                let opts = HybridOptions {
                    // CP3 takes the input for additive shares.
                    input_kinds: vec![if role == Role::Cp3 {
                        ShareKind::Add
                    } else {
                        ShareKind::Xor
                    }],
                    threads: 1,
                    ..HybridOptions::default()
                };
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
