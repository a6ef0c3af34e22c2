//! The garbling-scheme seam: what code that streams garbled tables needs to
//! know about a scheme, so that a second scheme is an addition beside
//! [`HalfGates`](crate::halfgates::HalfGates), not an edit of its users.
//!
//! A scheme keeps free XOR (a wire's 1-label is its 0-label ⊕ Δ, XOR and INV
//! gates make no table) and garbles every AND gate into
//! [`TABLE_BLOCKS`](GarblingScheme::TABLE_BLOCKS) blocks of table, in gate
//! order. Both sides number the AND gates from a first id given at
//! construction; garbler and evaluator built with the same first id agree.

use crate::block::Block;
use crate::delta::Delta;
use crate::error::CryptoError;
use crate::label::{ActiveLabel, ZeroLabel};
use twofold_circuit::Gate;

/// A garbling scheme: its table size and its two sides.
pub trait GarblingScheme {
    /// Blocks of garbled table per AND gate.
    const TABLE_BLOCKS: usize;
    /// The garbling side.
    type Garbler: SchemeGarbler;
    /// The evaluating side.
    type Evaluator: SchemeEvaluator;
}

/// The garbling side of a scheme: holds Δ and the id of the next AND gate.
pub trait SchemeGarbler: Clone + Send + Sync + Sized {
    /// A garbler with offset `delta` whose first AND gate gets id
    /// `first_gate_id`, on the fastest AES backend.
    fn new(delta: Delta, first_gate_id: u64) -> Self;

    /// The free-XOR offset Δ.
    fn delta(&self) -> Delta;

    /// The id the next AND gate will get.
    fn next_gate_id(&self) -> u64;

    /// Garbles `gates` over 0-labels indexed by wire, appending
    /// [`TABLE_BLOCKS`](GarblingScheme::TABLE_BLOCKS) blocks per AND gate to
    /// `tables`. On failure `tables` and the gate counter are unchanged and
    /// `labels` must be discarded.
    fn garble(
        &mut self,
        gates: &[Gate],
        labels: &mut [ZeroLabel],
        tables: &mut Vec<Block>,
    ) -> Result<(), CryptoError>;

    /// The label encoding `bit` on a wire with 0-label `zero`:
    /// `zero ⊕ bit·Δ` (free XOR makes this the same for every scheme).
    #[inline]
    fn encode(&self, zero: ZeroLabel, bit: bool) -> ActiveLabel {
        zero.encode(self.delta(), bit)
    }
}

/// The evaluating side of a scheme: holds the id of the next AND gate.
pub trait SchemeEvaluator: Clone + Send + Sync + Sized {
    /// An evaluator whose first AND gate gets id `first_gate_id`, on the
    /// fastest AES backend.
    fn new(first_gate_id: u64) -> Self;

    /// The id the next AND gate will get.
    fn next_gate_id(&self) -> u64;

    /// Evaluates `gates` on active labels indexed by wire, consuming exactly
    /// [`TABLE_BLOCKS`](GarblingScheme::TABLE_BLOCKS) blocks per AND gate
    /// from the front of `tables` (extra blocks are ignored). On failure the
    /// gate counter is unchanged and `labels` must be discarded.
    fn evaluate(
        &mut self,
        gates: &[Gate],
        labels: &mut [ActiveLabel],
        tables: &[Block],
    ) -> Result<(), CryptoError>;
}
