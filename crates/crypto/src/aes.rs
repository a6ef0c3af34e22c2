//! AES-128 block encryption on [`Block`]s.

use crate::block::Block;
use aes::cipher::{generic_array::GenericArray, BlockEncrypt, KeyInit};

/// AES-128 under an arbitrary key, for batch encryption of blocks.
///
/// The key schedule is secret when the key is: `Debug` does not print it.
#[derive(Clone)]
pub struct Aes128 {
    soft: aes::Aes128,
}

impl Aes128 {
    /// Expands `key` (its little-endian bytes are the AES key bytes).
    pub fn new(key: Block) -> Aes128 {
        let soft = aes::Aes128::new(&GenericArray::from(key.to_bytes()));
        Aes128 { soft }
    }

    /// Encrypts every block in place (ECB): each block's little-endian bytes
    /// are one AES input block.
    pub fn encrypt_blocks(&self, blocks: &mut [Block]) {
        const CHUNK: usize = 16;
        let mut buf = [GenericArray::default(); CHUNK];
        for chunk in blocks.chunks_mut(CHUNK) {
            for (g, b) in buf.iter_mut().zip(chunk.iter()) {
                *g = GenericArray::from(b.to_bytes());
            }
            self.soft.encrypt_blocks(&mut buf[..chunk.len()]);
            for (g, b) in buf.iter().zip(chunk.iter_mut()) {
                *b = Block::from_bytes((*g).into());
            }
        }
    }

    /// Encrypts one block.
    pub fn encrypt_block(&self, block: Block) -> Block {
        let mut b = [block];
        self.encrypt_blocks(&mut b);
        b[0]
    }
}

impl std::fmt::Debug for Aes128 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Aes128(..)")
    }
}
