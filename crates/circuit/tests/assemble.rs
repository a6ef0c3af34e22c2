//! Assembling a frame keeps what it computes: random frames of gates and
//! blocks — whose wiring mixes affine, ranges and table segments, some
//! reading what an earlier block wrote, some of whose values nobody reads —
//! give the same outputs evaluated as they are (over the builder's wire
//! numbers) and assembled (pruned, renumbered, slots reused).

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use twofold_circuit::{
    Block, Body, Carried, Circuit, Gate, InputValue, OutputValue, Party, PendingBlock, RawFrame,
    Segment, Wire, Wiring,
};
use twofold_testkit::plain_frame;

/// A random body circuit of `inputs` input wires and `outputs` output wires.
fn random_body(rng: &mut impl Rng, inputs: u32, outputs: usize) -> Circuit {
    let mut gates = Vec::new();
    for out in inputs..inputs + rng.gen_range(0..8) {
        let (a, b) = (rng.gen_range(0..out), rng.gen_range(0..out));
        gates.push(match rng.gen_range(0..3) {
            0 => Gate::Xor { a, b, out },
            1 => Gate::And { a, b, out },
            _ => Gate::Inv { a, out },
        });
    }
    let num_wires = inputs + gates.len() as u32;
    let wires = (0..outputs).map(|_| rng.gen_range(0..num_wires)).collect();
    Circuit {
        num_wires,
        inputs: vec![InputValue {
            name: "in".into(),
            party: Party::A,
            width: inputs,
        }],
        outputs: vec![OutputValue {
            name: "out".into(),
            wires,
        }],
        gates,
    }
}

/// Wiring of `count` iterations reading `len`-wire rows of wires
/// `lo..hi` (at least `len` of them): affine (possibly stepping through
/// what the block before wrote, `last`: its first output wire and width),
/// ranges, or a table.
fn random_reads(
    rng: &mut impl Rng,
    count: u64,
    len: u32,
    (lo, hi): (Wire, Wire),
    last: Option<(Wire, u32)>,
) -> Segment {
    let first = |rng: &mut dyn rand::RngCore| rng.gen_range(lo..=hi - len);
    match rng.gen_range(0..4) {
        0 => match last {
            Some((start, step)) if len <= step && start + (count as u32) * step <= hi => {
                Segment::Affine {
                    len,
                    start: start + rng.gen_range(0..=step - len),
                    step: step as i64,
                }
            }
            _ => Segment::Affine {
                len,
                start: first(rng),
                step: 0,
            },
        },
        1 | 2 => Segment::Ranges {
            len,
            starts: (0..count).map(|_| first(rng)).collect(),
        },
        _ => Segment::Table {
            len,
            wires: (0..count * len as u64)
                .map(|_| rng.gen_range(lo..hi))
                .collect(),
        },
    }
}

/// Wiring of `count` iterations writing `width` wires each to the fresh
/// wires `first..first + count * width` (each once): affine segments in
/// iteration order, ranges and table segments with the iterations (and a
/// table's wires within one) in random order.
fn random_writes(rng: &mut impl Rng, count: u64, width: u32, first: Wire) -> Wiring {
    let mut segments = Vec::new();
    let mut column = 0;
    while column < width {
        let len = rng.gen_range(1..=width - column);
        let start = first + column;
        let mut rows: Vec<Wire> = (0..count as Wire).map(|k| start + k * width).collect();
        segments.push(match rng.gen_range(0..3) {
            0 => Segment::Affine {
                len,
                start,
                step: width as i64,
            },
            1 => {
                rows.shuffle(rng);
                Segment::Ranges { len, starts: rows }
            }
            _ => {
                rows.shuffle(rng);
                let mut wires = Vec::new();
                for row in rows {
                    let mut wires_of_row: Vec<Wire> = (row..row + len).collect();
                    wires_of_row.shuffle(rng);
                    wires.extend(wires_of_row);
                }
                Segment::Table { len, wires }
            }
        });
        column += len;
    }
    Wiring { segments }
}

/// A random frame whose wires are `first..next` (its inputs the first
/// `inputs` of them), with the `next` it ends at.
fn random_frame(rng: &mut impl Rng, first: Wire, inputs: Wire) -> (RawFrame, Wire) {
    let mut frame = RawFrame::default();
    let mut next = first + inputs;
    let mut last = None;
    for _ in 0..rng.gen_range(1..8) {
        for _ in 0..rng.gen_range(0..6) {
            let (a, b) = (rng.gen_range(first..next), rng.gen_range(first..next));
            frame.gates.push(match rng.gen_bool(0.5) {
                true => Gate::Xor { a, b, out: next },
                false => Gate::And { a, b, out: next },
            });
            next += 1;
        }
        let count = rng.gen_range(1..=6);
        let mut inputs = Wiring::empty();
        for _ in 0..rng.gen_range(1..=3) {
            let len = rng.gen_range(0..=4);
            let seg = random_reads(rng, count, len, (first, next), last);
            inputs.segments.push(seg);
        }
        let shared: Vec<Wire> = (0..rng.gen_range(0..=2))
            .map(|_| rng.gen_range(first..next))
            .collect();
        let carried_count = if rng.gen_bool(0.3) {
            rng.gen_range(1..=2)
        } else {
            0
        };
        let width = rng.gen_range(1..=6);
        let body_inputs = (shared.len() + carried_count + inputs.width()) as u32;
        let body = random_body(rng, body_inputs.max(1), width as usize);
        let (outputs, read) = (random_writes(rng, count, width, next), next);
        last = Some((next, width));
        next += count as Wire * width;
        let carried = (0..carried_count)
            .map(|_| Carried {
                init: rng.gen_range(first..read),
                next: rng.gen_range(0..body.num_wires),
                last: rng.gen_bool(0.7).then(|| {
                    next += 1;
                    next - 1
                }),
            })
            .collect::<Vec<_>>();
        // A body without inputs reads one shared wire.
        let shared = match body_inputs {
            0 => vec![first],
            _ => shared,
        };
        frame.blocks.push(PendingBlock {
            position: frame.gates.len(),
            count,
            parallel: carried.is_empty(),
            body: Body {
                circuit: body,
                blocks: Vec::new(),
            },
            shared,
            carried,
            inputs,
            outputs,
        });
    }
    (frame, next)
}

/// The frame's blocks as blocks of a program over the same wires.
fn as_blocks(frame: &RawFrame) -> Vec<Block> {
    let block = |b: &PendingBlock| Block {
        position: b.position,
        count: b.count,
        parallel: b.parallel,
        body: b.body.clone(),
        shared: b.shared.clone(),
        carried: b.carried.clone(),
        inputs: b.inputs.clone(),
        outputs: b.outputs.clone(),
    };
    frame.blocks.iter().map(block).collect()
}

#[test]
fn assembled_frames_compute_what_the_frames_do() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let mut trimmed_or_pruned = 0;
    for round in 0..2000 {
        let (first, input_bits) = (rng.gen_range(0..20), rng.gen_range(4..=12));
        let (frame, next) = random_frame(&mut rng, first, input_bits);
        let outputs: Vec<Wire> = (0..rng.gen_range(1..=12))
            .map(|_| rng.gen_range(first..next))
            .collect();
        let input = InputValue {
            name: "x".into(),
            party: Party::A,
            width: input_bits,
        };
        let input_wires: Vec<Wire> = (first..first + input_bits).collect();
        let raw = Circuit {
            num_wires: next,
            inputs: Vec::new(),
            outputs: Vec::new(),
            gates: frame.gates.clone(),
        };
        let raw_blocks = as_blocks(&frame);
        let assembled = frame
            .assemble(
                vec![(input, input_wires.clone())],
                vec![("y".into(), outputs.clone())],
                &[],
            )
            .unwrap_or_else(|e| panic!("round {round}: {e}"));
        let iterations = |blocks: &[Block]| blocks.iter().map(|b| b.count).sum::<u64>();
        let widths = |blocks: &[Block]| blocks.iter().map(|b| b.outputs.width()).sum::<usize>();
        if iterations(&assembled.blocks) < iterations(&raw_blocks)
            || widths(&assembled.blocks) < widths(&raw_blocks)
        {
            trimmed_or_pruned += 1;
        }
        for _ in 0..3 {
            let bits: Vec<bool> = (0..input_bits).map(|_| rng.gen()).collect();
            let mut labels = vec![false; next as usize];
            for (&w, &b) in input_wires.iter().zip(&bits) {
                labels[w as usize] = b;
            }
            plain_frame(&raw, &raw_blocks, &mut labels);
            let want: Vec<bool> = outputs.iter().map(|&w| labels[w as usize]).collect();
            let circuit = &assembled.circuit;
            let mut labels = vec![false; circuit.num_wires as usize];
            labels[..bits.len()].copy_from_slice(&bits);
            plain_frame(circuit, &assembled.blocks, &mut labels);
            let got: Vec<bool> = circuit.outputs[0]
                .wires
                .iter()
                .map(|&w| labels[w as usize])
                .collect();
            assert_eq!(got, want, "round {round}");
        }
    }
    assert!(trimmed_or_pruned > 200, "{trimmed_or_pruned}");
}
