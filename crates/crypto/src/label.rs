//! The two views of a wire's labels: the garbler's 0-label and the
//! evaluator's active label (the same for every garbling scheme).

use crate::block::Block;
use crate::delta::Delta;

/// The garbler's view of a wire: its 0-label (the 1-label is `0-label ⊕ Δ`).
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
#[repr(transparent)]
pub struct ZeroLabel(pub Block);

/// The evaluator's view of a wire: the one label it holds.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
#[repr(transparent)]
pub struct ActiveLabel(pub Block);

impl ZeroLabel {
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
    /// The plaintext bit of an output wire, given the garbler's decoding bit.
    #[inline]
    pub fn decode(self, decode_bit: bool) -> bool {
        self.0.lsb() ^ decode_bit
    }
}
