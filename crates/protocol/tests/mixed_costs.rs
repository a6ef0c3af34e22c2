//! The mixed cost model against the executor's counted bytes.

use std::collections::HashSet;
use std::time::Duration;

use rand::SeedableRng;
use twofold_crypto::Scheme;
use twofold_net::ChannelOptions;
use twofold_ot::Extension;
use twofold_protocol::mixed::cost::estimate;
use twofold_protocol::mixed::{run_mixed_local, MixedOptions};
use twofold_protocol::Reveal;
use twofold_testkit::{mixed_party_inputs, random_mixed_inputs, random_mixed_program};

#[test]
fn estimates_are_the_bytes_counted() {
    let channel = ChannelOptions {
        read_timeout: Duration::from_secs(30),
        write_timeout: Duration::from_secs(30),
        ..ChannelOptions::default()
    };
    let mut rng = rand::rngs::StdRng::seed_from_u64(77);
    let mut extensions = HashSet::new();
    for case in 0..12 {
        let program = random_mixed_program(&mut rng, [16, 32, 64][case % 3], 16);
        let inputs = random_mixed_inputs(&mut rng, &program);
        let opts = MixedOptions {
            reveal: Reveal::ALL[case % 3],
            scheme: [Scheme::HalfGates, Scheme::ThreeHalves][case / 3 % 2],
            ..MixedOptions::default()
        };
        let a = mixed_party_inputs(&program, &inputs, 0);
        let b = mixed_party_inputs(&program, &inputs, 1);
        let (ra, _) = run_mixed_local(&program, (&a, &b), &opts, &channel).unwrap();
        let est = estimate(&program, opts.scheme, opts.reveal).unwrap();
        // Three halves: to within a byte per garbling call.
        let slack = match opts.scheme {
            Scheme::HalfGates => 0,
            Scheme::ThreeHalves => ra.traffic.total() / 1000,
        };
        assert!(
            est.mixed.bytes.abs_diff(ra.traffic.total()) <= slack,
            "case {case}: estimated {}, counted {}",
            est.mixed.bytes,
            ra.traffic.total()
        );
        assert_eq!(est.mixed.flights, ra.flights, "case {case}");
        assert_eq!(est.rounds, ra.rounds, "case {case}");
        assert_eq!(est.ops.and_gates, ra.and_gates, "case {case}");
        let e = est.extensions;
        extensions.extend([e.a_vectors, e.b_vectors, e.garbling]);
    }
    // Instances of both kinds ran: the estimate follows the choice.
    assert!(
        extensions.contains(&Extension::Iknp) && extensions.contains(&Extension::DEFAULT),
        "{extensions:?}"
    );
}
