//! The global free-XOR offset Δ.

use crate::block::Block;
use crate::prg::Prg;

/// The garbler's global free-XOR offset: a wire's 1-label is its 0-label ⊕ Δ.
///
/// The least significant bit is always 1 (point-and-permute). Δ is secret:
/// its `Debug` form does not print it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Delta(Block);

impl Delta {
    /// A fresh uniformly random Δ (127 random bits, lsb forced to 1).
    pub fn random(prg: &mut Prg) -> Delta {
        Delta::from_block(prg.random_block())
    }

    /// Δ from a given block, with its lsb forced to 1.
    pub fn from_block(b: Block) -> Delta {
        Delta(Block(b.0 | 1))
    }

    /// The offset as a block.
    #[inline(always)]
    pub fn block(self) -> Block {
        self.0
    }
}

/// For the Drop of whatever holds Δ: a wiped Δ is zero, not a valid offset.
impl zeroize::Zeroize for Delta {
    fn zeroize(&mut self) {
        self.0.zeroize();
    }
}

impl std::fmt::Debug for Delta {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Delta(..)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lsb_is_one() {
        let mut p = Prg::from_seed(Block(1));
        for _ in 0..100 {
            assert!(Delta::random(&mut p).block().lsb());
        }
        assert_eq!(Delta::from_block(Block(0)).block(), Block(1));
    }
}
