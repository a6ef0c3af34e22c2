//! What each party of the mixed executor receives does not depend on the
//! inputs: over a program with a cross product, a Beaver product, A→Y, a
//! garbled comparison, bit injection and Y→A, every bit position of the
//! bytes a party receives (recorded by a relay) is set about as often for
//! two very different inputs with the same output, and the bytes differ
//! from run to run.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use twofold_circuit::mixed::eval::word_bits;
use twofold_circuit::{Kind, MixedInput, MixedOutput, MixedProgram, Party, Step};
use twofold_net::{Channel, ChannelOptions, Listener};
use twofold_protocol::mixed::{run_mixed, MixedOptions};
use twofold_testkit::{mixed_parts, mixed_party_inputs};

mod views;
use views::{bit_frequencies, relay, worst_difference};

/// `x·y` of A's and B's 8-bit words (a cross product), squared (a Beaver
/// product), compared with B's garbled bound (A→Y and a garbled
/// comparison); the result is injected, multiplied in and converted back
/// (bit injection, Y→A). The output is the comparison only.
fn program() -> MixedProgram {
    let mut p = MixedProgram {
        parties: 2,
        programs: mixed_parts(8),
        ..MixedProgram::default()
    };
    let input = |name: &str, owner, kind| MixedInput {
        name: name.into(),
        owner,
        kind,
    };
    p.inputs = vec![
        input("x", 0, Kind::Word(8)),
        input("y", 1, Kind::Word(8)),
        input("bound", 1, Kind::Bits(8)),
    ];
    p.steps = vec![
        Step::Mul(0, 1),
        Step::Mul(3, 3),
        Step::ToYao(3),
        Step::Boolean {
            program: 0,
            args: vec![5, 2],
        },
        Step::Inject { bit: 6, width: 8 },
        Step::Mul(7, 4),
        Step::ToYao(8),
        Step::ToArith(9),
    ];
    p.outputs = vec![MixedOutput {
        name: "below".into(),
        value: 6,
    }];
    p
}

/// One run on `inputs` through a relay; returns what A and B received.
fn observed_run(program: &MixedProgram, inputs: &[Vec<bool>]) -> [Vec<u8>; 2] {
    let (to_b, to_a) = (Arc::default(), Arc::default());
    let listener = Listener::bind("127.0.0.1:0").unwrap();
    let target = listener.local_addr().unwrap().to_string();
    let addr = relay(target, Arc::clone(&to_b), Arc::clone(&to_a));
    let opts = MixedOptions::default();
    let want = program.eval(inputs).unwrap();
    std::thread::scope(|s| {
        let b = s.spawn(|| {
            let chan = Channel::connect(
                addr.as_str(),
                Duration::from_secs(10),
                ChannelOptions::default(),
            )
            .unwrap();
            let mine = mixed_party_inputs(program, inputs, 1);
            run_mixed(chan, Party::B, program, &mine, &opts).unwrap()
        });
        let chan = listener.accept(Duration::from_secs(10)).unwrap();
        let mine = mixed_party_inputs(program, inputs, 0);
        let a = run_mixed(chan, Party::A, program, &mine, &opts).unwrap();
        assert_eq!(a.outputs, Some(want.clone()));
        assert_eq!(b.join().unwrap().outputs, Some(want));
    });
    std::thread::sleep(Duration::from_millis(50));
    let bytes = |log: &Arc<Mutex<Vec<u8>>>| log.lock().unwrap().clone();
    [bytes(&to_a), bytes(&to_b)]
}

/// Fraction of runs in which each bit of each party's view is set.
fn frequencies(runs: &[[Vec<u8>; 2]]) -> [Vec<f64>; 2] {
    [0, 1].map(|p| bit_frequencies(runs.iter().map(|v| v[p].as_slice())))
}

#[test]
fn no_partys_view_depends_on_the_inputs() {
    let program = program();
    // x·y is 0 and 1 (255·255 mod 256): both below the bound 255.
    let inputs = [[0u64, 0, 255], [255, 255, 255]]
        .map(|v| v.iter().map(|&x| word_bits(x, 8)).collect::<Vec<_>>());
    let runs_per_input = 150;
    let mut views: [Vec<[Vec<u8>; 2]>; 2] = Default::default();
    for (k, given) in inputs.iter().enumerate() {
        for _ in 0..runs_per_input {
            views[k].push(observed_run(&program, given));
        }
        for (p, (first, second)) in views[k][0].iter().zip(&views[k][1]).enumerate() {
            assert_ne!(first, second, "party {p} saw the same bytes twice");
        }
    }
    // With 150 runs a side, a bit's frequency differs by about 0.06 (one
    // standard deviation) by chance; a bit that carries the input by 1.
    let [a, b] = [frequencies(&views[0]), frequencies(&views[1])];
    for p in 0..2 {
        assert!(!a[p].is_empty(), "party {p} received nothing");
        assert_eq!(
            a[p].len(),
            b[p].len(),
            "party {p}: views of different lengths"
        );
        let worst = worst_difference(&a[p], &b[p]);
        assert!(
            worst < 0.35,
            "party {p}: a received bit depends on the input ({worst})"
        );
    }
}
