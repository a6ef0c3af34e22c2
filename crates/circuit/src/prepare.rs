//! Making a program ready to run, in time that follows the program, not its
//! gate count: every circuit without blocks is put in level order, window
//! by window (so its independent AND gates form large batches while the
//! labels in use stay few, see [`Circuit::levelize`]), and sequential
//! loops whose bodies are narrow but whose iterations can overlap are
//! unrolled a few iterations at a time and levelled, so iterations overlap
//! (software pipelining) and the engines still get full batches. Both parties prepare alike: the result depends on the
//! program only.

use std::borrow::Cow;

use crate::circuit::{Circuit, InputValue, OutputValue, Party};
use crate::gate::Wire;
use crate::levels::CircuitStats;
use crate::program::{Block, Body, Carried, Program};
use crate::wiring::{Segment, Wiring};

/// Bodies whose median AND level is narrower than this are unrolled.
const NARROW: usize = 64;
/// Unrolling aims at AND levels this wide (median).
const TARGET_WIDTH: usize = 512;
/// At most this many iterations are unrolled into one body.
const MAX_UNROLL: u64 = 32;
/// An unrolled body has at most this many gates.
const MAX_UNROLLED_GATES: usize = 1 << 18;

/// The program ready to run (see the module docs).
pub fn prepare(program: &Program) -> Program {
    let (main, blocks) = prepare_frame(program.main.clone(), &program.blocks);
    Program { main, blocks }
}

/// [`prepared`], consuming the program: a program without blocks is
/// levelled in place (see [`Circuit::into_levelized`]), so that preparing
/// a large flat program holds one copy of its gates.
pub fn into_prepared(program: Program) -> Program {
    if is_prepared(&program) {
        return program;
    }
    let (main, blocks) = prepare_frame(program.main, &program.blocks);
    Program { main, blocks }
}

/// The program ready to run: `program` itself if it is (a program that
/// `twofold compile` wrote, say), else [`prepare`]'s copy.
pub fn prepared(program: &Program) -> Cow<'_, Program> {
    if is_prepared(program) {
        Cow::Borrowed(program)
    } else {
        Cow::Owned(prepare(program))
    }
}

/// Whether [`prepare`] would leave the program as it is.
pub fn is_prepared(program: &Program) -> bool {
    frame_is_prepared(&program.main, &program.blocks)
}

fn frame_is_prepared(circuit: &Circuit, blocks: &[Block]) -> bool {
    (if blocks.is_empty() {
        circuit.is_level_ordered()
    } else {
        circuit.segments_level_ordered(&positions(blocks))
    }) && blocks
        .iter()
        .all(|b| unroll_factor(b) == 1 && frame_is_prepared(&b.body.circuit, &b.body.blocks))
}

fn prepare_frame(mut circuit: Circuit, blocks: &[Block]) -> (Circuit, Vec<Block>) {
    if blocks.is_empty() {
        return (circuit.into_levelized(), Vec::new());
    }
    let mut out = Vec::with_capacity(blocks.len());
    for b in blocks {
        push_unrolled(prepare_block(b), &mut circuit.num_wires, &mut out);
    }
    // The gates between blocks, level by level (slots kept, so the blocks'
    // wiring holds).
    let circuit = circuit.level_segments(&positions(&out));
    (circuit, out)
}

/// Where `blocks` run.
fn positions(blocks: &[Block]) -> Vec<usize> {
    blocks.iter().map(|b| b.position).collect()
}

/// `block` with its body prepared: levelled if it has no blocks of its own
/// (its carried values kept), its blocks prepared otherwise.
fn prepare_block(b: &Block) -> Block {
    if !b.body.blocks.is_empty() {
        let (circuit, blocks) = prepare_frame(b.body.circuit.clone(), &b.body.blocks);
        return Block {
            body: Body { circuit, blocks },
            ..b.clone()
        };
    }
    let mut body = b.body.circuit.clone();
    body.outputs.push(OutputValue {
        name: "next".into(),
        wires: b.carried.iter().map(|c| c.next).collect(),
    });
    let mut levelled = body.into_levelized();
    let next = levelled.outputs.pop().map(|v| v.wires).unwrap_or_default();
    Block {
        body: Body::from(levelled),
        carried: b
            .carried
            .iter()
            .zip(next)
            .map(|(c, next)| Carried { next, ..c.clone() })
            .collect(),
        ..b.clone()
    }
}

/// Pushes `block` onto `out`, unrolled until none of the loops it becomes
/// would be unrolled again (a loop still narrow after one unrolling, and the
/// loop of the iterations left over), so that what [`prepare`] returns is
/// prepared: a program `twofold compile` wrote is run as it is, and hashes
/// as its source does once prepared. Each unrolling leaves fewer
/// iterations, so this ends.
fn push_unrolled(block: Block, num_wires: &mut Wire, out: &mut Vec<Block>) {
    match unroll_factor(&block) {
        1 => out.push(block),
        u => {
            for b in unroll(&block, u, num_wires) {
                push_unrolled(b, num_wires, out);
            }
        }
    }
}

/// How many iterations of `block` to run as one body: 1 unless it is a
/// sequential loop of plain gates whose AND levels are narrow, and either
/// its iterations overlap once run back to back (each adds at most half
/// its own AND depth, see [`depth_and_step`]) or its body is tiny (fewer
/// than [`SMALL_BODY`] gates: then only enough to reach that many, which
/// saves each instance's own cost). Iterations that cannot overlap (a
/// bubble sort's pass, where every compare-swap reads the one before)
/// unrolled only made bodies of thousands of gates that levelled no wider:
/// a 512-value bubble sort's program held half the flat gates, prepared
/// in 0.7 s and 1.2 GB, and ran its gates slower (0.64 s against 0.38).
fn unroll_factor(block: &Block) -> u64 {
    if block.parallel || !block.body.blocks.is_empty() || block.count < 4 {
        return 1;
    }
    // An iteration that reads what an earlier one wrote to the enclosing
    // circuit must wait for it: such loops keep one iteration at a time.
    let (ins, outs) = (
        span(&block.inputs, block.count),
        span(&block.outputs, block.count),
    );
    if ins.0 < outs.1 && outs.0 < ins.1 {
        return 1;
    }
    let body = &block.body.circuit;
    let stats = CircuitStats::of(body);
    let median = stats.median_ands_per_level();
    if stats.and_gates == 0 || median >= NARROW {
        return 1;
    }
    let gates = body.gates.len().max(1);
    let (depth, step) = depth_and_step(block);
    let wanted = if 2 * step <= depth {
        TARGET_WIDTH.div_ceil(median.max(1))
    } else {
        SMALL_BODY.div_ceil(gates)
    };
    (wanted as u64)
        .min((MAX_UNROLLED_GATES / gates) as u64)
        .min(MAX_UNROLL)
        .min(block.count / 2)
        .max(1)
}

/// Bodies of fewer gates than this are unrolled to about this many even
/// where their iterations cannot overlap.
const SMALL_BODY: usize = 128;

/// Iterations [`depth_and_step`] runs back to back.
const STEPS: u32 = 4;

/// The AND depth of one iteration of `block`'s body, and how much deeper
/// each further one makes [`STEPS`] iterations run back to back (each
/// starting from the carried values the one before left, its other inputs
/// ready at once): what an iteration adds once iterations overlap.
fn depth_and_step(block: &Block) -> (u32, u32) {
    let body = &block.body.circuit;
    let first_carried = block.shared.len();
    let mut level = vec![0u32; body.num_wires as usize];
    let mut carried = vec![0u32; block.carried.len()];
    let (mut one, mut all) = (0, 0);
    for step in 0..STEPS {
        level.fill(0);
        level[first_carried..first_carried + carried.len()].copy_from_slice(&carried);
        let mut most = 0;
        for g in &body.gates {
            let l = g.inputs().map(|w| level[w as usize]).max().unwrap_or(0) + g.is_and() as u32;
            level[g.out() as usize] = l;
            most = most.max(l);
        }
        if step == 0 {
            one = most;
        }
        all = most;
        for (c, value) in carried.iter_mut().zip(&block.carried) {
            *c = level[value.next as usize];
        }
    }
    (one, (all - one) / (STEPS - 1))
}

/// The smallest and one past the largest wire a wiring touches over `count`
/// iterations (`(MAX, 0)` for none).
fn span(wiring: &Wiring, count: u64) -> (i64, i64) {
    let (mut lo, mut hi) = (i64::MAX, 0);
    for seg in &wiring.segments {
        let (a, b) = match seg {
            Segment::Affine { len, start, step } => {
                let last = *start as i64 + (count as i64 - 1) * step;
                (
                    (*start as i64).min(last),
                    (*start as i64).max(last) + *len as i64,
                )
            }
            Segment::Ranges { .. } | Segment::Table { .. } => {
                let (listed, per) = seg.listed();
                // A range's wires follow its first.
                let len = if per == 1 { seg.len() as i64 } else { 1 };
                (
                    listed.iter().min().map_or(i64::MAX, |&w| w as i64),
                    listed.iter().max().map_or(0, |&w| w as i64 + len),
                )
            }
        };
        lo = lo.min(a);
        hi = hi.max(b);
    }
    (lo, hi)
}

/// `block` as a loop over `u` iterations at a time (one body holding `u`
/// copies, levelled), followed by a loop over the remaining iterations.
/// New wires of the enclosing circuit (for the values carried from one loop
/// to the other) are taken from `num_wires`.
fn unroll(block: &Block, u: u64, num_wires: &mut Wire) -> Vec<Block> {
    let groups = block.count / u;
    let rest = block.count % u;
    let body = unrolled_body(block, u as usize);
    let inputs = regroup(&block.inputs, block.count, u, groups);
    let outputs = regroup(&block.outputs, block.count, u, groups);
    let mut first = Block {
        position: block.position,
        count: groups,
        parallel: false,
        body: body.0,
        shared: block.shared.clone(),
        carried: block
            .carried
            .iter()
            .zip(&body.1)
            .map(|(c, &next)| Carried {
                init: c.init,
                next,
                last: c.last,
            })
            .collect(),
        inputs,
        outputs,
    };
    if rest == 0 {
        return vec![first];
    }
    // The first loop leaves its carried values in fresh wires; the second
    // starts from them.
    let mut second = Block {
        count: rest,
        inputs: block.inputs.slice(groups * u, block.count - groups * u),
        outputs: block.outputs.slice(groups * u, block.count - groups * u),
        ..block.clone()
    };
    for (a, b) in first.carried.iter_mut().zip(second.carried.iter_mut()) {
        let w = *num_wires;
        *num_wires += 1;
        a.last = Some(w);
        b.init = w;
    }
    vec![first, second]
}

/// The body of `u` iterations of `block`, levelled, and the wires that hold
/// its carried values at the end.
fn unrolled_body(block: &Block, u: usize) -> (Body, Vec<Wire>) {
    let body = &block.body.circuit;
    let (s, c, w) = (
        block.shared.len(),
        block.carried.len(),
        block.inputs.width(),
    );
    // One body in single assignment, its carried values as an extra output.
    let mut with_next = body.clone();
    with_next.outputs.push(OutputValue {
        name: "next".into(),
        wires: block.carried.iter().map(|v| v.next).collect(),
    });
    let one = with_next.into_ssa();
    let n_in = one.input_bits() as Wire;
    let per_copy = one.gates.len() as Wire;
    let total_in = (s + c + u * w) as Wire;
    let mut gates = Vec::with_capacity(u * one.gates.len());
    // carried[j]: the wire holding carried value j before the current copy.
    let mut carried: Vec<Wire> = (s as Wire..(s + c) as Wire).collect();
    let mut outputs = Vec::with_capacity(u * body.output_bits());
    for copy in 0..u {
        let base = total_in + copy as Wire * per_copy;
        let map = |x: Wire| -> Wire {
            if x < s as Wire {
                x
            } else if x < (s + c) as Wire {
                carried[x as usize - s]
            } else if x < n_in {
                (s + c + copy * w) as Wire + (x - (s + c) as Wire)
            } else {
                base + (x - n_in)
            }
        };
        for (i, g) in one.gates.iter().enumerate() {
            gates.push(g.rewire(map, base + i as Wire));
        }
        let values = &one.outputs;
        outputs.extend(
            values[..values.len() - 1]
                .iter()
                .flat_map(|v| v.wires.iter().map(|&x| map(x))),
        );
        carried = values[values.len() - 1]
            .wires
            .iter()
            .map(|&x| map(x))
            .collect();
    }
    let width = |n: usize| n as u32;
    let composed = Circuit {
        num_wires: total_in + u as Wire * per_copy,
        inputs: vec![
            InputValue {
                name: "shared".into(),
                party: Party::A,
                width: width(s),
            },
            InputValue {
                name: "carried".into(),
                party: Party::A,
                width: width(c),
            },
            InputValue {
                name: "iteration".into(),
                party: Party::A,
                width: width(u * w),
            },
        ],
        outputs: vec![
            OutputValue {
                name: "out".into(),
                wires: outputs,
            },
            OutputValue {
                name: "next".into(),
                wires: carried,
            },
        ],
        gates,
    };
    let mut levelled = composed.into_levelized();
    let next = levelled.outputs.pop().map(|v| v.wires).unwrap_or_default();
    (Body::from(levelled), next)
}

/// The wiring of a loop over `u` iterations at a time: iteration `g` of it
/// covers iterations `g * u .. g * u + u` of the original loop (of `count`
/// iterations), their positions laid end to end.
fn regroup(wiring: &Wiring, count: u64, u: u64, groups: u64) -> Wiring {
    debug_assert!(groups * u <= count);
    let segments = (0..u)
        .flat_map(|copy| {
            wiring
                .segments
                .iter()
                .map(move |seg| seg.every(u, copy, groups))
        })
        .collect();
    Wiring { segments }
}
