//! What a computing party holds during a run, recorded on request for the
//! tests of its view (`tests/hybrid_views.rs`). The bytes a party receives
//! can all look random while a value it computes from them is a secret: a
//! word it decodes from garbled outputs, or the sum of a replicated pair.
//!
//! Recording is per thread: [`recording`] runs one party on the calling
//! thread and returns what it held. Elsewhere the executors only find that
//! the thread does not record; nothing is kept, printed or logged.

use std::cell::RefCell;

use twofold_circuit::ValueId;

/// A value one computing party holds at one point of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Holding {
    /// Its share of word `value` of a mixed program, each time the share
    /// is set: an input's, a product's, a linear step's, a rerandomized one
    /// (before replication or A→Y), Y→A's (`m1`, `z` or 0). `next` is the
    /// next party's share when this party holds the replicated pair.
    Word {
        /// The program's value.
        value: ValueId,
        /// Its width in bits.
        width: u32,
        /// This party's share.
        share: u64,
        /// The next party's share, if this party holds it.
        next: Option<u64>,
    },
    /// Its replicated pair of the lane sum `X = x1 + t` that stands for
    /// factor `value` of a fused product (`mixed3::fused`): `X` is the
    /// factor plus 2^`lane` times its wrap count, so only its low `lane`
    /// bits are the factor's.
    LaneSum {
        /// The program's value (the factor).
        value: ValueId,
        /// The factor's lane.
        lane: u32,
        /// The word's width in bits.
        width: u32,
        /// This party's share.
        share: u64,
        /// The next party's share.
        next: u64,
    },
    /// CP3's combination of CP2's shares with its own (XOR, or sums per
    /// lane), its share of the values it joins with CP1's shares in the
    /// garbled sharing: the hybrid mode's inputs, a mixed program's joined
    /// inputs and the words of an A→Y, in one batch.
    Joined(Vec<bool>),
    /// The bits CP2 decodes from garbled values opened to it (`z` of Y→A,
    /// of a bit injection and of masked outputs), in one batch.
    Opened(Vec<bool>),
}

thread_local! {
    /// What this thread's party has held, if the thread records.
    static HELD: RefCell<Option<Vec<Holding>>> = const { RefCell::new(None) };
}

/// Runs `party` (one party's [`run_hybrid`](super::run_hybrid) or
/// [`run_mixed3`](super::run_mixed3) on this thread; not the `_local`
/// runs, whose parties have threads of their own) and returns its result
/// and what the party held, in the order it took them.
pub fn recording<T>(party: impl FnOnce() -> T) -> (T, Vec<Holding>) {
    let outer = HELD.with(|h| h.replace(Some(Vec::new())));
    let out = party();
    let held = HELD.with(|h| h.replace(outer)).unwrap_or_default();
    (out, held)
}

/// Records what `holding` makes if this thread records.
pub(crate) fn hold(holding: impl FnOnce() -> Holding) {
    HELD.with(|h| {
        if let Some(held) = h.borrow_mut().as_mut() {
            held.push(holding());
        }
    });
}
