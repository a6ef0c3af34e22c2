//! The budgets of lowering ([`crate::Limits`]): steps of compile-time work
//! and an estimate of the memory lowering holds, so that a program whose
//! loops make no gates (or whose gates the builder shares) still ends in a
//! clear error instead of running for hours or exhausting memory.
//!
//! A step is a statement or an expression lowered or a loop iteration
//! checked against a template; a gate asked of the builder while probing
//! an iteration counts as [`PROBE_GATE_STEPS`] steps. The memory estimate counts what grows with
//! the work: the gates of the frames being built, the range tapes being
//! recorded, the objects (their leaves), the probes that loops hold
//! (their frames, canonical forms and tapes, charged while they live), and
//! the sums a mixed compilation notes.

use std::cell::Cell;

use super::*;
use crate::error::{exceeded, Exceeded};
use crate::range::Tape;

/// Steps between two checks of the budgets.
const CHECK_EVERY: u64 = 1 << 12;

/// Gates asked of the builder after which the next step checks the
/// budgets, however few steps made them.
const CHECK_EVERY_GATES: u64 = 1 << 18;

/// Steps a gate asked of the builder while probing counts for: it is
/// hashed, kept in the probe's frame, put in its canonical form and its
/// ranges taped, and all of it is thrown away if the probe does not match
/// (measured: several times the time of a statement step).
const PROBE_GATE_STEPS: u64 = 4;

/// Bytes a gate of a frame being built costs over the compilation: the
/// gate, the builder's structural hash entry and the slack of both growing
/// by doubling while lowering, then the copies finishing the program makes
/// (dead-gate removal, renumbering). Measured: a flat 23 M-gate program
/// peaks at 1.6 GiB, about 72 bytes a gate.
pub const GATE_BYTES: u64 = 72;

/// Bytes a gate of an ended probe holds: the gate, its share of the
/// probe's canonical form (a few `i128` each) and their slack.
const PROBE_GATE_BYTES: u64 = 120;

/// Bytes an object holds besides its leaves.
const OBJECT_BYTES: u64 = std::mem::size_of::<Object>() as u64 + 64;

/// Bytes a leaf of an object holds: its slot and its type (words of
/// secret bits add their bits, counted as gates where they are made).
const LEAF_BYTES: u64 = (std::mem::size_of::<Slot>() + std::mem::size_of::<CType>()) as u64;

/// Bytes a word kept apart from objects holds (a region's partial).
const WORD_BYTES: u64 = std::mem::size_of::<Word>() as u64;

/// Bytes a bit of a word kept apart from objects holds.
const BIT_BYTES: u64 = std::mem::size_of::<Bit>() as u64;

/// Bytes an input bit costs: its bit in its word and its wire (measured:
/// 8.5 bytes a bit for the words of an input of 1,000,000 `int`s), and
/// the copies a kept loop reading it makes.
const INPUT_BIT_BYTES: u64 = 16;

/// Objects of at least this many leaves check the budgets when made.
const BIG_OBJECT: usize = 1 << 16;

thread_local! {

    /// Bytes charged by the values that hold a [`Charge`] (the compiler
    /// runs on a thread of its own, so this is one compilation's).
    static CHARGED: Cell<u64> = const { Cell::new(0) };
}

/// Memory a value kept by the lowering stands for, counted in the
/// estimate while the value lives.
#[derive(Debug)]
pub(super) struct Charge(u64);

impl Charge {
    /// The charge of a probe: its frame's gates (nested blocks' too) and
    /// its tape.
    pub(super) fn probe(gates: u64, tape: &Tape) -> Charge {
        Charge::new(gates * PROBE_GATE_BYTES + tape.bytes())
    }

    /// The charge of `n` words of `bits` bits in all, kept apart from
    /// objects (a region's partials).
    pub(super) fn words(n: usize, bits: u64) -> Charge {
        Charge::new(n as u64 * WORD_BYTES + bits * BIT_BYTES)
    }

    /// The charge of `bytes` bytes.
    pub(super) fn new(bytes: u64) -> Charge {
        CHARGED.with(|c| c.set(c.get() + bytes));
        Charge(bytes)
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        CHARGED.with(|c| c.set(c.get().saturating_sub(self.0)));
    }
}

impl Lower<'_> {
    /// Fails once the gates held exceed [`crate::Limits::max_gates`]
    /// (checked as each loop iteration ends and each call starts, so a loop
    /// or a recursion that would build gates without end stops early).
    pub(super) fn check_gates(&self, loc: Loc) -> DResult<()> {
        let watched = self.opts.watch.as_ref().map_or(u64::MAX, Watch::max_gates);
        let max = self.opts.limits.max_gates.min(watched);
        if self.b.held_gates() as u64 > max {
            return exceeded(loc, Exceeded::Gates { max });
        }
        Ok(())
    }

    /// Counts one step of work at `loc`; every [`CHECK_EVERY`] steps,
    /// fails if the work or the memory held went past the limits.
    pub(super) fn step(&mut self, loc: Loc) -> DResult<()> {
        self.steps += 1;
        // (A step may make millions of gates: reducing a long sum.)
        let made = self.b.requested_gates();
        if self.steps.is_multiple_of(CHECK_EVERY) || made >= self.next_check {
            self.next_check = made + CHECK_EVERY_GATES;
            self.check_budgets(loc)?;
        }
        Ok(())
    }

    /// Fails if the steps or the memory held went past the limits.
    pub(super) fn check_budgets(&self, loc: Loc) -> DResult<()> {
        let limits = &self.opts.limits;
        if self.work() > limits.max_steps {
            let max = limits.max_steps;
            return exceeded(loc, Exceeded::Steps { max });
        }
        let watched = self.opts.watch.as_ref().map_or(u64::MAX, Watch::max_work);
        if self.effort() > watched {
            return exceeded(loc, Exceeded::Steps { max: watched });
        }
        let held = self.held_bytes();
        let watched = self.opts.watch.as_ref().map_or(u64::MAX, Watch::max_memory);
        let max = limits.max_memory.min(watched);
        if held > max {
            return exceeded(loc, Exceeded::Memory { max, held });
        }
        // A bound set from another thread takes effect within steps, not
        // only where the next loop iteration or call starts.
        if let Some(max) = self.opts.watch.as_ref().map(Watch::max_gates) {
            if self.b.held_gates() as u64 > max {
                return exceeded(loc, Exceeded::Gates { max });
            }
        }
        Ok(())
    }

    /// Checks the budgets after making an object of `leaves` leaves, if it
    /// is a big one.
    pub(super) fn check_object(&self, leaves: usize, loc: Loc) -> DResult<()> {
        if leaves >= BIG_OBJECT {
            self.check_budgets(loc)?;
        }
        Ok(())
    }

    /// The work so far: steps, and gates asked of the builder while
    /// probing, [`PROBE_GATE_STEPS`] steps each (speculative work, undone
    /// when iterations do not match; the gates of the program itself are
    /// bounded by [`crate::Limits::max_gates`]).
    pub(super) fn work(&self) -> u64 {
        let probing = self
            .probes
            .first()
            .map_or(0, |p| self.b.requested_gates() - p.requested);
        let gates = self.speculative + probing;
        self.steps + gates.saturating_mul(PROBE_GATE_STEPS)
    }

    /// The work so far and every gate asked of the builder, a step each
    /// (see [`crate::CompiledProgram::work`]): what [`Watch::max_work`]
    /// bounds.
    pub(super) fn effort(&self) -> u64 {
        self.work() + self.b.requested_gates()
    }

    /// Notes that a probe begun when the builder had been asked for
    /// `requested` gates ended: if it was the outermost, the gates asked
    /// since are speculative work done.
    pub(super) fn end_speculation(&mut self, requested: u64) {
        if self.probes.is_empty() {
            self.speculative += self.b.requested_gates() - requested;
        }
    }

    /// Drops the objects from `keep` on (made by a probe), and their leaves
    /// from the count.
    pub(super) fn truncate_objects(&mut self, keep: usize) {
        let dropped: usize = self.objs[keep..].iter().map(|o| o.slots.len()).sum();
        self.leaves -= dropped as u64;
        self.objs.truncate(keep);
    }

    /// The estimate of the bytes lowering holds (see the module docs).
    pub(super) fn held_bytes(&self) -> u64 {
        let gates = self.b.held_gates() as u64 * GATE_BYTES;
        let objects = self.objs.len() as u64 * OBJECT_BYTES
            + self.leaves * LEAF_BYTES
            + self.input_bits * INPUT_BIT_BYTES;
        let noted = crate::mixed::notes::held_bytes();
        gates + objects + Tape::held_bytes() + CHARGED.with(Cell::get) + noted
    }
}
