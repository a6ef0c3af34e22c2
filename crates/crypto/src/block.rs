//! The 128-bit block: wire labels, AES states, OT messages.

use std::fmt;
use std::ops::{BitAnd, BitXor, BitXorAssign};

/// A 128-bit value. Bytes are little-endian: `lsb()` is bit 0 of byte 0.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Block(pub u128);

/// A block is wiped by writing its default, zero.
impl zeroize::DefaultIsZeroes for Block {}

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

/// The blocks' little-endian bytes, without copying (16 bytes per block).
#[cfg(target_endian = "little")]
pub fn blocks_as_bytes(blocks: &[Block]) -> &[u8] {
    // SAFETY: `Block` is a transparent `u128` without padding; on a
    // little-endian target its in-memory bytes are exactly `to_bytes()`, and
    // `u8` has no alignment requirement. The length covers the same memory.
    unsafe { std::slice::from_raw_parts(blocks.as_ptr() as *const u8, 16 * blocks.len()) }
}

/// The blocks' little-endian bytes, mutable: reading 16 bytes per block into
/// it (e.g. from the network) sets each block to `Block::from_bytes` of them.
#[cfg(target_endian = "little")]
pub fn blocks_as_bytes_mut(blocks: &mut [Block]) -> &mut [u8] {
    // SAFETY: as in `blocks_as_bytes`; moreover every bit pattern is a valid
    // `u128`, so any bytes written leave valid blocks.
    unsafe { std::slice::from_raw_parts_mut(blocks.as_mut_ptr() as *mut u8, 16 * blocks.len()) }
}

/// Copies little-endian bytes into `out` (16 bytes per block); fails unless
/// `bytes.len() == 16 * out.len()`.
pub fn blocks_from_bytes(bytes: &[u8], out: &mut [Block]) -> Result<(), crate::CryptoError> {
    if bytes.len() != 16 * out.len() {
        return Err(crate::CryptoError::LengthMismatch {
            left: bytes.len(),
            right: 16 * out.len(),
        });
    }
    for (b, chunk) in out.iter_mut().zip(bytes.chunks_exact(16)) {
        let mut a = [0u8; 16];
        a.copy_from_slice(chunk);
        *b = Block::from_bytes(a);
    }
    Ok(())
}

/// The blocks encoded by `bytes` (16 little-endian bytes each); fails if the
/// length is not a multiple of 16.
pub fn blocks_from_byte_vec(bytes: &[u8]) -> Result<Vec<Block>, crate::CryptoError> {
    if !bytes.len().is_multiple_of(16) {
        return Err(crate::CryptoError::BadByteLength(bytes.len()));
    }
    let mut out = vec![Block::ZERO; bytes.len() / 16];
    blocks_from_bytes(bytes, &mut out)?;
    Ok(out)
}

#[cfg(all(test, target_endian = "little"))]
mod tests {
    use super::*;

    #[test]
    fn byte_views_are_little_endian() {
        let blocks = [Block(0x0102), Block(u128::MAX - 1)];
        let bytes = blocks_as_bytes(&blocks);
        assert_eq!(bytes.len(), 32);
        assert_eq!(bytes[..16], blocks[0].to_bytes());
        assert_eq!(bytes[0], 0x02);
        assert_eq!(bytes[16], 0xfe);
        assert_eq!(blocks_from_byte_vec(bytes).unwrap(), blocks);
        let mut back = [Block::ZERO; 2];
        blocks_as_bytes_mut(&mut back).copy_from_slice(bytes);
        assert_eq!(back, blocks);
        assert!(blocks_from_byte_vec(&bytes[..31]).is_err());
        assert!(blocks_from_bytes(bytes, &mut [Block::ZERO; 3]).is_err());
    }
}
