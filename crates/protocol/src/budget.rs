//! An estimate of a session's peak memory from its program, so that a run
//! that would not fit in `--max-memory` is refused before any work starts.
//!
//! What a party holds while a session runs, besides the program itself:
//! the walker's labels (16 bytes a wire of the main circuit, and of every
//! block body times the copies run in lockstep, per thread), the plans of
//! the frames, the garbled tables and channel buffers of each thread, and
//! the OT extension of the input bits. The estimate is meant to be an upper
//! bound of the measured peak (see docs/limits.md for the comparison).

use twofold_circuit::walk::lockstep;
use twofold_circuit::{Block, Circuit, Gate, Program};

/// Bytes of a wire label.
const LABEL_BYTES: u64 = 16;

/// Bytes a thread holds for its AND batches, the garbled tables it streams
/// and its connection's buffers (8,192 gates of 32-byte tables, flushed at
/// 128 KiB, 256 KiB read and write buffers), with slack.
const THREAD_BYTES: u64 = 1 << 20;

/// Bytes a party holds whatever the program: code, runtime, the handshake,
/// base OT.
const BASE_BYTES: u64 = 4 << 20;

/// Bytes per input bit for OT extension (its bit matrices, at most IKNP's,
/// and the labels of both choices).
const INPUT_BIT_BYTES: u64 = 96;

/// Bytes per gate of the plan of a frame (batch cuts and lockstep
/// segments) and of the copy `prepare` levels.
const PLAN_GATE_BYTES: u64 = 8;

/// The parts of a session's memory estimate, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryEstimate {
    /// The program held in memory (all parties here share it).
    pub program: u64,
    /// Labels, plans, buffers and OT of all the parties here.
    pub session: u64,
}

impl MemoryEstimate {
    /// The estimate of the peak: program and session.
    pub fn total(&self) -> u64 {
        self.program.saturating_add(self.session)
    }
}

/// Estimates the peak memory of running `program` with `threads` threads a
/// party and `parties` parties in this process (2 for `--local`).
pub fn session_memory(program: &Program, threads: u32, parties: u32) -> MemoryEstimate {
    let mut gates = program.main.gates.len() as u64;
    let mut slots = program.main.num_wires as u64;
    for block in &program.blocks {
        let (g, s) = block_size(block, 1);
        gates = gates.saturating_add(g);
        slots = slots.saturating_add(s.saturating_mul(threads as u64));
    }
    let gate_bytes = std::mem::size_of::<Gate>() as u64;
    let program_bytes = gates.saturating_mul(gate_bytes);
    let input_bits = program.main.input_bits() as u64;
    let party = slots
        .saturating_mul(LABEL_BYTES)
        .saturating_add(gates.saturating_mul(PLAN_GATE_BYTES))
        .saturating_add(THREAD_BYTES.saturating_mul(threads as u64))
        .saturating_add(input_bits.saturating_mul(INPUT_BIT_BYTES))
        .saturating_add(output_bytes(&program.main))
        .saturating_add(BASE_BYTES);
    MemoryEstimate {
        program: program_bytes,
        session: party.saturating_mul(parties as u64),
    }
}

/// Gates stored in `block` (bodies once, not per iteration) and the label
/// slots its frames take when it runs on `lanes` lanes of its parent.
fn block_size(block: &Block, lanes: u64) -> (u64, u64) {
    let lanes = lanes.saturating_mul(lockstep(block) as u64);
    let body = &block.body;
    let mut gates = body.circuit.gates.len() as u64;
    let mut slots = (body.circuit.num_wires as u64).saturating_mul(lanes);
    for inner in &body.blocks {
        let (g, s) = block_size(inner, lanes);
        gates = gates.saturating_add(g);
        slots = slots.saturating_add(s);
    }
    (gates, slots)
}

/// Bytes of the decoded outputs (a bit and a label each).
fn output_bytes(main: &Circuit) -> u64 {
    main.output_bits() as u64 * (LABEL_BYTES + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use twofold_circuit::bristol::read_bristol;

    #[test]
    fn the_estimate_grows_with_threads_and_parties() {
        let circuit = read_bristol("1 3\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n", "and.txt").unwrap();
        let program = Program::from(circuit);
        let one = session_memory(&program, 1, 1);
        assert!(one.total() >= BASE_BYTES + THREAD_BYTES);
        assert!(session_memory(&program, 4, 1).total() > one.total());
        let local = session_memory(&program, 1, 2);
        assert_eq!(local.session, 2 * one.session);
        assert_eq!(local.program, one.program);
    }
}
