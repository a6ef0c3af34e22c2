//! Mixed programs: binary round trip, hash, validation and plaintext
//! evaluation.

use rand::SeedableRng;
use twofold_circuit::mixed::eval::{bits_word, word_bits};
use twofold_circuit::mixed::format::{is_mixed, read_mixed, write_mixed};
use twofold_circuit::{binary, Kind, MixedInput, MixedOutput, MixedProgram, Step};
use twofold_testkit::{mixed_parts, random_mixed_inputs, random_mixed_program, random_session};

fn encode(p: &MixedProgram) -> Vec<u8> {
    let mut bytes = Vec::new();
    write_mixed(p, &mut bytes).unwrap();
    bytes
}

/// `a·b + 3` of A's and B's 16-bit words, and whether it is below B's
/// garbled input.
fn small() -> MixedProgram {
    let word = |name: &str, owner| MixedInput {
        name: name.into(),
        owner,
        kind: Kind::Word(16),
    };
    let mut p = MixedProgram {
        parties: 2,
        programs: mixed_parts(16),
        ..MixedProgram::default()
    };
    p.inputs = vec![word("a", 0), word("b", 1)];
    p.inputs.push(MixedInput {
        name: "g".into(),
        owner: 1,
        kind: Kind::Bits(16),
    });
    p.steps = vec![
        Step::Mul(0, 1),
        Step::Const {
            width: 16,
            value: 3,
        },
        Step::Add(3, 4),
        Step::ToYao(5),
        Step::Boolean {
            program: 0,
            args: vec![6, 2],
        },
    ];
    p.outputs = vec![
        MixedOutput {
            name: "sum".into(),
            value: 5,
        },
        MixedOutput {
            name: "lt".into(),
            value: 7,
        },
    ];
    p
}

#[test]
fn a_small_program_evaluates_as_written() {
    let p = small();
    p.validate().unwrap();
    let out = p
        .eval(&[
            word_bits(300, 16),
            word_bits(500, 16),
            word_bits(20_000, 16),
        ])
        .unwrap();
    let sum = (300u64 * 500 + 3) & 0xffff;
    assert_eq!(bits_word(&out[0]), sum);
    assert_eq!(out[1], vec![sum < 20_000]);
}

#[test]
fn random_programs_round_trip_and_hash_their_encoding() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(29);
    for seed in 0..30 {
        let p = random_mixed_program(&mut rng, [8, 16, 32, 64][seed % 4], 20);
        p.validate().unwrap();
        let bytes = encode(&p);
        assert!(is_mixed(&bytes));
        let again = read_mixed(&mut bytes.as_slice()).unwrap();
        assert_eq!(again, p);
        assert_eq!(again.hash(), p.hash());
        let inputs = random_mixed_inputs(&mut rng, &p);
        assert_eq!(again.eval(&inputs).unwrap(), p.eval(&inputs).unwrap());
        // Any change of a step changes the hash.
        let mut changed = p.clone();
        changed.steps.push(Step::Neg(0));
        assert_ne!(changed.hash(), p.hash());
    }
}

#[test]
fn a_boolean_program_keeps_its_format_and_hash() {
    let (program, _, _) = random_session(3);
    let mut bytes = Vec::new();
    binary::write_program(&program, &mut bytes).unwrap();
    assert!(binary::is_binary(&bytes) && !is_mixed(&bytes));
    // The Boolean hash is SHA-256 of the Boolean encoding, as before.
    use sha2::Digest;
    let direct: [u8; 32] = sha2::Sha256::digest(&bytes).into();
    assert_eq!(program.hash(), direct);
    // Wrapped as a mixed program, it has another identity.
    let mixed = MixedProgram::of_boolean(program.clone());
    assert_ne!(mixed.hash(), program.hash());
    // And the same outputs.
    let mut rng = rand::rngs::StdRng::seed_from_u64(4);
    let inputs = random_mixed_inputs(&mut rng, &mixed);
    assert_eq!(mixed.eval(&inputs).unwrap(), program.eval(&inputs).unwrap());
}

#[test]
fn every_truncation_and_byte_flip_is_an_error_or_a_valid_program() {
    let p = small();
    let bytes = encode(&p);
    for len in 0..bytes.len() {
        // Said to be truncated (it was "failed to fill whole buffer").
        let e = read_mixed(&mut &bytes[..len]).err().map(|e| e.to_string());
        assert!(
            e.as_ref().is_some_and(|e| e.contains("truncated")),
            "{len} bytes: {e:?}"
        );
    }
    for at in 0..bytes.len() {
        for flip in [1u8, 0x80, 0xff] {
            let mut bad = bytes.clone();
            bad[at] ^= flip;
            if let Ok(q) = read_mixed(&mut bad.as_slice()) {
                q.validate().unwrap();
            }
        }
    }
}

#[test]
fn invalid_programs_say_what_is_wrong() {
    let check = |p: MixedProgram, want: &str| {
        let err = p.validate().unwrap_err().to_string();
        assert!(err.contains(want), "{err} (wanted {want})");
    };
    let mut p = small();
    p.parties = 4;
    check(p, "2 or 3 parties");
    let mut p = small();
    p.steps[0] = Step::Mul(0, 9);
    check(p, "step 0: reads value 9 before it is defined");
    let mut p = small();
    p.steps[0] = Step::Mul(0, 2);
    check(p, "not a word");
    let mut p = small();
    p.steps[1] = Step::Const {
        width: 16,
        value: 1 << 16,
    };
    check(p, "does not fit in 16 bits");
    let mut p = small();
    p.steps[4] = Step::Boolean {
        program: 0,
        args: vec![6, 5],
    };
    check(
        p,
        "takes 16 garbled bits, value 5 is a 16-bit arithmetic word",
    );
    let mut p = small();
    p.steps.push(Step::ToArith(7));
    p.steps.push(Step::Inject { bit: 6, width: 8 });
    check(p, "step 6: bit injection of 16 garbled bits");
    let mut p = small();
    p.inputs[0].kind = Kind::Word(65);
    check(p, "a word of 65 bits");
    let mut p = small();
    p.outputs[0].value = 99;
    check(p, "output \"sum\" is value 99");
    let mut p = small();
    p.steps.push(Step::Dot(vec![0], vec![]));
    check(p, "a dot product of 1 and 0 words");
}
