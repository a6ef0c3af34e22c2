//! The two views of a wire's labels: the garbler's 0-label and the
//! evaluator's active label (the same for every garbling scheme).
//!
//! The fields are private so that the two views cannot be mixed by accident.
//! Labels are made by the garbler ([`ZeroLabel::random`],
//! [`ZeroLabel::encode`]) and by the garbling cores; protocol code that
//! receives or unblinds a label as a raw block (from the network, from OT, or
//! after a role transfer) wraps it with the explicitly named `from_block`
//! constructors, and reads it back with `block`.

use crate::block::Block;
use crate::delta::Delta;
use crate::prg::Prg;

/// The garbler's view of a wire: its 0-label (the 1-label is `0-label ⊕ Δ`).
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
#[repr(transparent)]
pub struct ZeroLabel(Block);

/// The evaluator's view of a wire: the one label it holds.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
#[repr(transparent)]
pub struct ActiveLabel(Block);

impl ZeroLabel {
    /// A fresh random 0-label (for a wire the garbler introduces).
    #[inline]
    pub fn random(prg: &mut Prg) -> ZeroLabel {
        ZeroLabel(prg.random_block())
    }

    /// The 0-label whose value is `block`. For protocol code that holds a
    /// 0-label as a block (an OT output, a label unblinded after a role
    /// transfer); the caller vouches that `block` is a 0-label under the Δ
    /// in use.
    #[inline]
    pub fn from_block(block: Block) -> ZeroLabel {
        ZeroLabel(block)
    }

    /// The 0-label as a block (to blind, send or compare it).
    #[inline]
    pub fn block(self) -> Block {
        self.0
    }

    /// The decoding bit of an output wire, sent to the evaluator:
    /// `lsb` of the 0-label.
    #[inline]
    pub fn decode_bit(self) -> bool {
        self.0.lsb()
    }

    /// The label encoding `bit` on this wire: `0-label ⊕ bit·Δ`.
    #[inline]
    pub fn encode(self, delta: Delta, bit: bool) -> ActiveLabel {
        ActiveLabel(self.0 ^ delta.block().select(bit))
    }
}

impl ActiveLabel {
    /// The active label whose value is `block`. For protocol code that holds
    /// an active label as a block (received from the garbler, an OT output,
    /// a label unblinded after a role transfer).
    #[inline]
    pub fn from_block(block: Block) -> ActiveLabel {
        ActiveLabel(block)
    }

    /// The active label as a block (to blind, send or compare it).
    #[inline]
    pub fn block(self) -> Block {
        self.0
    }

    /// The plaintext bit of an output wire, given the garbler's decoding bit.
    #[inline]
    pub fn decode(self, decode_bit: bool) -> bool {
        self.0.lsb() ^ decode_bit
    }
}

/// A wire-indexed label array as the gate loops see it: where it starts and
/// how many labels it holds. Whoever makes one answers for what other
/// threads do to the labels while a loop runs over it.
#[derive(Clone, Copy)]
pub(crate) struct RawLabels {
    pub(crate) ptr: *mut Block,
    pub(crate) len: usize,
}

impl RawLabels {
    /// The labels of `labels` (both label views are transparent
    /// [`Block`]s: the same memory); the borrow keeps other threads away
    /// while the caller holds it.
    pub(crate) fn of<L: WireLabel>(labels: &mut [L]) -> RawLabels {
        RawLabels {
            ptr: labels.as_mut_ptr() as *mut Block,
            len: labels.len(),
        }
    }
}

/// A label of either view (sealed: [`ZeroLabel`] and [`ActiveLabel`]),
/// a transparent [`Block`].
pub trait WireLabel: Copy + Default + Send + Sync + sealed::Sealed {}
impl WireLabel for ZeroLabel {}
impl WireLabel for ActiveLabel {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::ZeroLabel {}
    impl Sealed for super::ActiveLabel {}
}
