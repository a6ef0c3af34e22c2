//! Bristol reader and writer: the published vectors, malformed files, round trips.

use rand::{Rng, SeedableRng};
use twofold_circuit::bristol::{read_bristol, read_bristol_file, write_bristol};
use twofold_circuit::value::{parse_int, to_hex};
use twofold_circuit::{Circuit, CircuitError, Program};
use twofold_testkit::{bristol_vectors, random_circuit, random_inputs, shared_data, RandomShape};

fn eval_hex(circuit: &Circuit, inputs: &[String]) -> Vec<String> {
    let bits: Vec<Vec<bool>> = circuit
        .inputs
        .iter()
        .zip(inputs)
        .map(|(v, x)| parse_int(x, v.width).unwrap())
        .collect();
    circuit
        .eval(&bits)
        .unwrap()
        .iter()
        .map(|o| to_hex(o))
        .collect()
}

#[test]
fn every_published_vector_evaluates_in_plaintext() {
    let Some(data) = shared_data() else { return };
    let vectors = bristol_vectors(&data);
    assert!(vectors.len() >= 80, "found only {} vectors", vectors.len());
    let mut circuits = std::collections::HashMap::new();
    for v in &vectors {
        let circuit = circuits
            .entry(v.circuit.clone())
            .or_insert_with(|| read_bristol_file(&data.join("bristol").join(&v.circuit)).unwrap());
        assert_eq!(
            eval_hex(circuit, &v.inputs),
            v.outputs,
            "{} row {}",
            v.circuit,
            v.row
        );
        // The levelled, compacted form computes the same.
        let levelled = circuit.levelize();
        assert_eq!(
            eval_hex(&levelled, &v.inputs),
            v.outputs,
            "{} row {} levelled",
            v.circuit,
            v.row
        );
    }
}

#[test]
fn sha256_two_block_message_chains_through_the_circuit() {
    let Some(data) = shared_data() else { return };
    let circuit = read_bristol_file(&data.join("bristol/sha256.txt")).unwrap();
    let message = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    let mut padded = message.to_vec();
    padded.push(0x80);
    while padded.len() % 64 != 56 {
        padded.push(0);
    }
    padded.extend_from_slice(&((message.len() as u64) * 8).to_be_bytes());
    // Big-endian bytes -> bits, wire 0 = least significant bit of the last byte.
    let to_bits = |bytes: &[u8]| -> Vec<bool> {
        bytes
            .iter()
            .rev()
            .flat_map(|b| (0..8).map(move |k| (b >> k) & 1 == 1))
            .collect()
    };
    let mut state = to_bits(&[
        0x6a, 0x09, 0xe6, 0x67, 0xbb, 0x67, 0xae, 0x85, 0x3c, 0x6e, 0xf3, 0x72, 0xa5, 0x4f, 0xf5,
        0x3a, 0x51, 0x0e, 0x52, 0x7f, 0x9b, 0x05, 0x68, 0x8c, 0x1f, 0x83, 0xd9, 0xab, 0x5b, 0xe0,
        0xcd, 0x19,
    ]);
    for block in padded.chunks(64) {
        state = circuit.eval(&[to_bits(block), state]).unwrap().remove(0);
    }
    assert_eq!(
        to_hex(&state),
        "0x248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    );
}

#[test]
fn gate_counts_of_aes() {
    let Some(data) = shared_data() else { return };
    let c = read_bristol_file(&data.join("bristol/aes_128.txt")).unwrap();
    let stats = twofold_circuit::CircuitStats::of(&c);
    assert_eq!(stats.gates, 36663);
    assert_eq!(stats.and_gates + stats.xor_gates + stats.inv_gates, 36663);
    assert_eq!(stats.and_gates, 6400);
    assert_eq!(stats.xor_gates, 28176);
    assert_eq!(stats.inv_gates, 2087);
    assert_eq!(stats.input_widths, vec![128, 128]);
}

fn parse_error(text: &str) -> (usize, String) {
    match read_bristol(text, "bad.txt") {
        Err(CircuitError::Parse {
            file,
            line,
            message,
        }) => {
            assert_eq!(file, "bad.txt");
            (line, message)
        }
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn malformed_files_are_rejected_with_their_line() {
    let cases: &[(&str, usize, &str)] = &[
        ("", 0, "empty"),
        ("1\n", 1, "ngates nwires"),
        ("1 3\n2 1 1\n1 1\n\n2 1 0 1 2 FOO\n", 5, "unknown gate"),
        ("1 3\n2 1 1\n1 1\n\n2 1 0 1 AND\n", 5, "wires given"),
        ("1 3\n2 1 1\n1 1\n\n2 1 0 9 2 AND\n", 5, "out of range"),
        (
            "2 4\n2 1 1\n1 1\n\n2 1 0 2 3 AND\n2 1 0 1 2 XOR\n",
            5,
            "before it is written",
        ),
        (
            "2 3\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n",
            5,
            "2 gates announced, 1 found",
        ),
        (
            "1 3\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n2 1 0 1 2 AND\n",
            6,
            "more gates",
        ),
        (
            "1 3\n3 1 1\n1 1\n\n2 1 0 1 2 AND\n",
            2,
            "3 input values announced",
        ),
        ("1 3\nx 1 1\n", 2, "expected an input width"),
        ("1 3\n2 1 1\n1 1\n\n1 1 5 2 EQ\n", 5, "EQ constant"),
        ("1 3\n2 1 1\n1 1\n\n3 1 0 1 1 2 MAND\n", 5, "MAND takes"),
        ("1 99999999999\n2 1 1\n1 1\n", 1, "more than supported"),
        ("0 3\n2 1 1\n1 1\n", 3, "output wire 2 is never written"),
    ];
    for (text, line, needle) in cases {
        let (l, message) = parse_error(text);
        assert_eq!(l, *line, "{text:?}: {message}");
        assert!(
            message.contains(needle),
            "{text:?}: `{message}` lacks `{needle}`"
        );
    }
}

#[test]
fn eq_eqw_mand_and_old_format_are_read() {
    // Fashion: out0 = EQ 1, out1 = EQW of input 0, out2/out3 = MAND.
    let text = "5 9\n2 2 2\n1 4\n\n1 1 1 4 EQ\n1 1 0 5 EQW\n4 2 0 1 2 3 6 7 MAND\n1 1 0 8 EQ\n1 1 2 4 INV\n";
    // Wire 4 is written twice (EQ then INV): the last write counts.
    let c = read_bristol(text, "t").unwrap();
    for x in 0..16u32 {
        let a = vec![x & 1 == 1, x & 2 == 2];
        let b = vec![x & 4 == 4, x & 8 == 8];
        let out = c.eval(&[a.clone(), b.clone()]).unwrap().remove(0);
        // Outputs are wires 5..9: [EQW(in0), in0&in2, in1&in3, 0]
        assert_eq!(out, vec![a[0], a[0] & b[0], a[1] & b[1], false]);
    }
    // Old format: `n1 n2 nout` then gates.
    let old = "1 3\n1 1 1\n2 1 0 1 2 AND\n";
    let c = read_bristol(old, "old").unwrap();
    assert_eq!(c.inputs.len(), 2);
    assert_eq!(c.eval(&[vec![true], vec![true]]).unwrap(), vec![vec![true]]);
    assert_eq!(
        c.eval(&[vec![true], vec![false]]).unwrap(),
        vec![vec![false]]
    );
}

/// HyCC writes OR gates (its `int16_in_range` circuit has them): `a | b`
/// is read as `(a ^ b) ^ (a & b)`, one AND gate.
#[test]
fn or_gates_are_read() {
    for text in [
        "1 3\n2 1 1\n1 1\n\n2 1 0 1 2 OR\n",
        "1 3\n1 1 1\n2 1 0 1 2 OR\n",
    ] {
        let c = read_bristol(text, "or").unwrap();
        assert_eq!(c.and_count(), 1);
        for x in 0..4u32 {
            let (a, b) = (x & 1 == 1, x & 2 == 2);
            let out = c.eval(&[vec![a], vec![b]]).unwrap();
            assert_eq!(out, vec![vec![a | b]], "{a} | {b}");
        }
    }
}

#[test]
fn random_bristol_text_never_panics() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let ops = ["XOR", "AND", "INV", "EQ", "EQW", "MAND", "OR", ""];
    for _ in 0..3000 {
        let mut text = format!("{} {}\n", rng.gen_range(0..4), rng.gen_range(0..8));
        text += &format!(
            "{} {} {}\n",
            rng.gen_range(0..3),
            rng.gen_range(0..3),
            rng.gen_range(0..3)
        );
        text += &format!("{} {}\n\n", rng.gen_range(0..3), rng.gen_range(0..3));
        for _ in 0..rng.gen_range(0..4) {
            let n = rng.gen_range(0..6);
            let mut line = format!("{} {}", rng.gen_range(0..4), rng.gen_range(0..3));
            for _ in 0..n {
                line += &format!(" {}", rng.gen_range(0..10));
            }
            text += &format!("{line} {}\n", ops[rng.gen_range(0..ops.len())]);
        }
        if let Ok(c) = read_bristol(&text, "fuzz") {
            c.validate().unwrap();
        }
    }
}

#[test]
fn writer_round_trips_random_circuits() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    for _ in 0..300 {
        let shape = RandomShape {
            inputs: 2,
            max_width: 6,
            gates: rng.gen_range(0..60),
            outputs: 3,
        };
        let c = random_circuit(&mut rng, &shape);
        let mut text = Vec::new();
        write_bristol(&c, &mut text).unwrap();
        let back = read_bristol(std::str::from_utf8(&text).unwrap(), "rt").unwrap();
        for _ in 0..8 {
            let inputs = random_inputs(&mut rng, &c);
            assert_eq!(c.eval(&inputs).unwrap(), back.eval(&inputs).unwrap());
        }
        // Binary format round trip, exact.
        let program = Program::from(c.clone());
        let mut bytes = Vec::new();
        twofold_circuit::binary::write_program(&program, &mut bytes).unwrap();
        let read = twofold_circuit::binary::read_program(&mut bytes.as_slice()).unwrap();
        assert_eq!(read, program);
        assert_eq!(read.hash(), program.hash());
        // Any truncation is an error, not a panic.
        let cut = rng.gen_range(0..bytes.len());
        assert!(twofold_circuit::binary::read_program(&mut &bytes[..cut]).is_err());
    }
}
