//! The 128-bit block: wire labels, AES states, OT messages.

use std::fmt;
use std::ops::{BitAnd, BitXor, BitXorAssign};

/// A 128-bit value. Bytes are little-endian: `lsb()` is bit 0 of byte 0.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Block(pub u128);

impl Block {
    /// The all-zero block.
    pub const ZERO: Block = Block(0);

    /// Least significant bit: the point-and-permute (colour) bit of a label.
    #[inline(always)]
    pub fn lsb(self) -> bool {
        self.0 & 1 == 1
    }

    /// `self` if `bit` is set, otherwise zero (branch-free).
    #[inline(always)]
    pub fn select(self, bit: bool) -> Block {
        Block(self.0 & (bit as u128).wrapping_neg())
    }

    /// Little-endian bytes.
    #[inline(always)]
    pub fn to_bytes(self) -> [u8; 16] {
        self.0.to_le_bytes()
    }

    /// From little-endian bytes.
    #[inline(always)]
    pub fn from_bytes(bytes: [u8; 16]) -> Block {
        Block(u128::from_le_bytes(bytes))
    }
}

impl BitXor for Block {
    type Output = Block;
    #[inline(always)]
    fn bitxor(self, rhs: Block) -> Block {
        Block(self.0 ^ rhs.0)
    }
}

impl BitXorAssign for Block {
    #[inline(always)]
    fn bitxor_assign(&mut self, rhs: Block) {
        self.0 ^= rhs.0;
    }
}

impl BitAnd for Block {
    type Output = Block;
    #[inline(always)]
    fn bitand(self, rhs: Block) -> Block {
        Block(self.0 & rhs.0)
    }
}

impl From<u128> for Block {
    fn from(v: u128) -> Block {
        Block(v)
    }
}

/// Labels are secrets: the debug form never prints them.
impl fmt::Debug for Block {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Block(..)")
    }
}
