//! Hostile files: counts that cannot fit the file, sums that wrap, headers
//! asking for gigabytes. The readers refuse them with an error before
//! allocating anything for them (found by fuzzing, issue 12).

use twofold_circuit::binary::{read_program, write_program};
use twofold_circuit::bristol::read_bristol;
use twofold_circuit::program::MAX_ITERATIONS;
use twofold_circuit::{
    Block, Body, Carried, Circuit, CircuitError, Gate, InputValue, OutputValue, Party, Program,
    Wiring,
};

fn bristol_error(text: &str) -> String {
    match read_bristol(text, "hostile.txt") {
        Ok(c) => panic!("read a circuit of {} wires, expected an error", c.num_wires),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_mand_gate_announcing_more_wires_than_its_line_holds_is_an_error() {
    // 3 + nin + nout wraps to the line's 4 tokens, and nin is twice nout
    // modulo 2^64.
    let e = bristol_error("1 3\n1 1\n1 1\n\n6148914691236517206 12297829382473034411 0 MAND\n");
    assert!(e.contains("wires given"), "{e}");
}

#[test]
fn a_header_of_3_5_billion_wires_is_refused_before_allocating() {
    let e = bristol_error("2 3505561080\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n1 1 2 3505561079 EQW\n");
    assert!(e.contains("more than supported"), "{e}");
}

#[test]
fn more_wires_than_the_file_can_write_are_refused() {
    // 2^24 wires, a handful of gates: no file this small writes them.
    let e = bristol_error("1 16777216\n2 1 1\n1 1\n\n2 1 0 1 16777215 AND\n");
    assert!(e.contains("cannot fit in a file"), "{e}");
}

#[test]
fn input_widths_whose_sum_wraps_are_refused() {
    let e = bristol_error("1 3\n2 18446744073709551615 2\n1 1\n\n2 1 0 1 2 AND\n");
    assert!(e.contains("more input or output bits than wires"), "{e}");
    let e = bristol_error("1 3\n2 1 1\n2 18446744073709551615 2\n\n2 1 0 1 2 AND\n");
    assert!(e.contains("more input or output bits than wires"), "{e}");
}

#[test]
fn an_input_width_of_4_billion_bits_is_refused() {
    let e = bristol_error("1 4294967294\n2 4294967292 1\n1 1\n\n2 1 0 4294967292 4294967293 AND\n");
    assert!(e.contains("more than supported"), "{e}");
}

#[test]
fn value_counts_that_wrap_are_an_error() {
    let e = bristol_error("1 3\n18446744073709551615 1 1\n1 1\n\n2 1 0 1 2 AND\n");
    assert!(e.contains("input values announced"), "{e}");
}

/// A valid one-gate program with `num_wires` wires (all but three unused).
fn program_with_wires(num_wires: u32) -> Vec<u8> {
    let main = Circuit {
        num_wires,
        inputs: vec![
            InputValue {
                name: "a".into(),
                party: Party::A,
                width: 1,
            },
            InputValue {
                name: "b".into(),
                party: Party::B,
                width: 1,
            },
        ],
        outputs: vec![OutputValue {
            name: "c".into(),
            wires: vec![2],
        }],
        gates: vec![Gate::And { a: 0, b: 1, out: 2 }],
    };
    let mut bytes = Vec::new();
    write_program(&Program::from(main), &mut bytes).expect("writes to memory");
    bytes
}

#[test]
fn a_binary_program_with_more_wires_than_can_be_written_is_refused() {
    assert!(read_program(&mut &program_with_wires(3)[..]).is_ok());
    // 2^31 wires (the index the fuzzer found evaluated out of bounds), in a
    // file of a hundred bytes.
    let bytes = program_with_wires(1 << 31);
    match read_program(&mut &bytes[..]) {
        Err(CircuitError::Invalid(m)) => assert!(m.ends_with("can write at most 3"), "{m}"),
        other => panic!("expected an error, got {other:?}"),
    }
}

#[test]
fn a_block_without_wires_is_refused() {
    // Found by libFuzzer: walking it split labels into chunks of size 0.
    let empty = Block {
        position: 0,
        count: 1,
        parallel: false,
        body: Body::default(),
        shared: Vec::new(),
        carried: Vec::new(),
        inputs: Wiring::empty(),
        outputs: Wiring::empty(),
    };
    let program = Program {
        main: Circuit::default(),
        blocks: vec![empty],
    };
    match program.validate() {
        Err(CircuitError::Invalid(m)) => assert!(m.contains("has no wires"), "{m}"),
        other => panic!("expected an error, got {other:?}"),
    }
}

/// A valid program whose one loop runs `count` times: 4 carried bits,
/// each iteration ANDs them with the input's other 4.
fn program_with_loop(count: u64) -> Vec<u8> {
    let input = || InputValue {
        name: "a".into(),
        party: Party::A,
        width: 8,
    };
    let body = Circuit {
        num_wires: 12,
        inputs: vec![input()],
        outputs: vec![],
        gates: (0..4)
            .map(|i| Gate::And {
                a: 4 + i,
                b: i,
                out: 8 + i,
            })
            .collect(),
    };
    let program = Program {
        main: Circuit {
            num_wires: 12,
            inputs: vec![input()],
            outputs: vec![OutputValue {
                name: "out".into(),
                wires: (8..12).collect(),
            }],
            gates: vec![],
        },
        blocks: vec![Block {
            position: 0,
            count,
            parallel: false,
            body: Body::from(body),
            shared: (0..4).collect(),
            carried: (0..4)
                .map(|i| Carried {
                    init: 4 + i,
                    next: 8 + i,
                    last: Some(8 + i),
                })
                .collect(),
            inputs: Wiring::empty(),
            outputs: Wiring::empty(),
        }],
    };
    let mut bytes = Vec::new();
    write_program(&program, &mut bytes).expect("writes to memory");
    bytes
}

#[test]
fn a_loop_longer_than_the_compiler_allows_is_refused() {
    // The compiler's bound loads (a program it writes); 2^40 iterations,
    // patched into a small file, ran for hours.
    let bytes = program_with_loop(MAX_ITERATIONS);
    assert_eq!(
        read_program(&mut &bytes[..]).unwrap().and_count(),
        4 * MAX_ITERATIONS
    );
    let bytes = program_with_loop(1 << 40);
    match read_program(&mut &bytes[..]) {
        Err(CircuitError::Invalid(m)) => assert!(m.contains("at most 50000000"), "{m}"),
        other => panic!("expected an error, got {other:?}"),
    }
}

#[test]
fn a_truncated_binary_program_is_called_truncated() {
    let bytes = program_with_loop(3);
    for cut in [9, 20, bytes.len() - 1] {
        match read_program(&mut &bytes[..cut]) {
            Err(CircuitError::Invalid(m)) => assert!(m.contains("truncated"), "{cut}: {m}"),
            other => panic!("expected an error, got {other:?}"),
        }
    }
}
