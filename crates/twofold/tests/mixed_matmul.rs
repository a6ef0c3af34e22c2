//! An 8×8 int32 matrix product of A's and B's matrices, as a mixed program
//! of dot products and as the C program compiled to garbled circuits: the
//! same result, the mixed run moving a small part of the bytes, and the
//! cost model's figures close to both runs.

use rand::{Rng, SeedableRng};
use twofold::api::SecureProgram;
use twofold_circuit::mixed::eval::{bits_word, word_bits};
use twofold_circuit::Party;
use twofold_crypto::Scheme;
use twofold_net::ChannelOptions;
use twofold_protocol::mixed::cost::estimate;
use twofold_protocol::mixed::{run_mixed_local, MixedOptions};
use twofold_protocol::{run_local, Reveal, SessionOptions};
use twofold_testkit::{matmul_c, matrix_initializer, mixed_matmul, mixed_party_inputs};

const N: usize = 8;

#[test]
fn a_mixed_matrix_product_moves_a_small_part_of_the_boolean_bytes() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(16);
    let x: Vec<u64> = (0..N * N).map(|_| rng.gen::<u32>() as u64).collect();
    let y: Vec<u64> = (0..N * N).map(|_| rng.gen::<u32>() as u64).collect();

    // The garbled-circuit run of the C program.
    let c = SecureProgram::compile(&matmul_c(N)).unwrap();
    let a = c
        .inputs_of(Party::A, &[("INPUT_A", &matrix_initializer(N, &x))])
        .unwrap();
    let b = c
        .inputs_of(Party::B, &[("INPUT_B", &matrix_initializer(N, &y))])
        .unwrap();
    let channel = ChannelOptions::default();
    let (ba, bb) = run_local(c.program(), &a, &b, &SessionOptions::default(), &channel).unwrap();
    let boolean_bytes = ba.bytes_sent + bb.bytes_sent;
    let boolean_out: Vec<u64> = ba
        .outputs
        .unwrap()
        .concat()
        .chunks(32)
        .map(bits_word)
        .collect();

    // The mixed program.
    let program = mixed_matmul(N, 32);
    let inputs: Vec<Vec<bool>> = x.iter().chain(&y).map(|&v| word_bits(v, 32)).collect();
    let want: Vec<u64> = program
        .eval(&inputs)
        .unwrap()
        .iter()
        .map(|o| bits_word(o))
        .collect();
    assert_eq!(boolean_out, want, "the two forms compute the same product");
    let (ma, mb) = run_mixed_local(
        &program,
        (
            &mixed_party_inputs(&program, &inputs, 0),
            &mixed_party_inputs(&program, &inputs, 1),
        ),
        &MixedOptions::default(),
        &channel,
    )
    .unwrap();
    let got: Vec<u64> = ma.outputs.unwrap().iter().map(|o| bits_word(o)).collect();
    assert_eq!(got, want);
    assert_eq!(mb.outputs.unwrap().len(), N * N);
    let mixed_bytes = ma.traffic.total();
    assert!(
        mixed_bytes * 20 <= boolean_bytes,
        "mixed {mixed_bytes} bytes, Boolean {boolean_bytes}"
    );
    // One layer of products and the opening: 2 + 2 messages after setup.
    assert_eq!(ma.rounds, 1);

    // The cost model: exact for the mixed run, within 10% of the
    // garbled-circuit run.
    let est = estimate(&program, Scheme::default(), Reveal::Both).unwrap();
    assert_eq!(est.mixed.bytes, mixed_bytes);
    let ratio = est.yao.bytes as f64 / boolean_bytes as f64;
    assert!(
        (0.9..1.1).contains(&ratio),
        "estimated {} garbled bytes, measured {boolean_bytes}",
        est.yao.bytes
    );
}
