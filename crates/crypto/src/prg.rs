//! Pseudo-random generator: AES-128 in counter mode under a 128-bit seed.

use crate::aes::Aes128;
use crate::block::Block;
use crate::error::CryptoError;
use zeroize::Zeroize;

/// Blocks generated per refill of the internal buffer.
const BUF_BLOCKS: usize = 8;

/// A pseudo-random generator: AES-128-CTR keyed by a 128-bit seed.
///
/// The output is the encryption of the counters 0, 1, 2, … under the seed.
/// The same seed and the same sequence of calls give the same output;
/// successive calls never reuse a counter. `Debug` does not print the state.
///
/// A `Prg` cannot be cloned: a clone would repeat the key stream.
///
/// ```compile_fail
/// fn cloneable<T: Clone>() {}
/// cloneable::<twofold_crypto::Prg>();
/// ```
pub struct Prg {
    aes: Aes128,
    /// Next unused counter value.
    counter: u128,
    /// Buffered output for single-block draws; `buf[pos..]` is unused.
    buf: [Block; BUF_BLOCKS],
    pos: usize,
    /// Unused random bits for `random_bool`, `nbits` of them in the low bits.
    bits: u128,
    nbits: u32,
}

/// Wipes the buffered output and the counter (the key is wiped with its
/// [`Aes128`]).
impl Drop for Prg {
    fn drop(&mut self) {
        self.buf.zeroize();
        self.counter.zeroize();
        self.bits.zeroize();
    }
}

impl Prg {
    /// A generator seeded from OS randomness (`getrandom`).
    ///
    /// # Panics
    /// Panics if the operating system cannot supply randomness; use
    /// [`Prg::try_from_os`] to handle that case.
    pub fn from_os() -> Prg {
        match Prg::try_from_os() {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        }
    }

    /// A generator seeded from OS randomness, or an error if the OS cannot
    /// supply it.
    pub fn try_from_os() -> Result<Prg, CryptoError> {
        let mut seed = [0u8; 16];
        getrandom::fill(&mut seed).map_err(|e| CryptoError::Randomness(e.to_string()))?;
        Ok(Prg::from_seed(Block::from_bytes(seed)))
    }

    /// A generator with the given seed (deterministic: for derived streams
    /// and tests).
    pub fn from_seed(seed: Block) -> Prg {
        Prg {
            aes: Aes128::new(seed),
            counter: 0,
            buf: [Block::ZERO; BUF_BLOCKS],
            pos: BUF_BLOCKS,
            bits: 0,
            nbits: 0,
        }
    }

    /// Writes the next `out.len()` counter blocks into `out` and encrypts them.
    fn generate(&mut self, out: &mut [Block]) {
        for b in out.iter_mut() {
            *b = Block(self.counter);
            self.counter = self.counter.wrapping_add(1);
        }
        self.aes.encrypt_blocks(out);
    }

    /// One uniformly random block.
    pub fn random_block(&mut self) -> Block {
        if self.pos == BUF_BLOCKS {
            let mut buf = [Block::ZERO; BUF_BLOCKS];
            self.generate(&mut buf);
            self.buf = buf;
            self.pos = 0;
        }
        let b = self.buf[self.pos];
        self.buf[self.pos] = Block::ZERO;
        self.pos += 1;
        b
    }

    /// Fills `out` with uniformly random blocks.
    pub fn fill_blocks(&mut self, out: &mut [Block]) {
        self.generate(out);
    }

    /// Fills `out` with uniformly random bytes.
    pub fn fill_bytes(&mut self, out: &mut [u8]) {
        let mut tmp = [Block::ZERO; 16];
        for chunk in out.chunks_mut(16 * 16) {
            let n = chunk.len().div_ceil(16);
            self.generate(&mut tmp[..n]);
            for (piece, b) in chunk.chunks_mut(16).zip(tmp.iter()) {
                piece.copy_from_slice(&b.to_bytes()[..piece.len()]);
            }
        }
    }

    /// One uniformly random bit.
    pub fn random_bool(&mut self) -> bool {
        if self.nbits == 0 {
            self.bits = self.random_block().0;
            self.nbits = 128;
        }
        let bit = self.bits & 1 == 1;
        self.bits >>= 1;
        self.nbits -= 1;
        bit
    }
}

impl std::fmt::Debug for Prg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Prg(..)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_is_deterministic_and_os_differs() {
        let mut a = Prg::from_seed(Block(42));
        let mut b = Prg::from_seed(Block(42));
        assert_eq!(a.random_block(), b.random_block());
        let mut x = Prg::from_os();
        let mut y = Prg::from_os();
        assert_ne!(x.random_block(), y.random_block());
    }

    #[test]
    fn output_is_aes_ctr_and_counters_never_repeat() {
        let seed = Block(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210);
        let aes = Aes128::new(seed);
        let mut p = Prg::from_seed(seed);
        let first = p.random_block();
        assert_eq!(first, aes.encrypt_block(Block(0)));
        let mut blocks = [Block::ZERO; 20];
        p.fill_blocks(&mut blocks);
        // The first refill used counters 0..8; bulk output continues at 8.
        for (i, b) in blocks.iter().enumerate() {
            assert_eq!(*b, aes.encrypt_block(Block(8 + i as u128)));
        }
        let mut all: Vec<u128> = blocks.iter().map(|b| b.0).collect();
        all.push(first.0);
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 21);
    }

    #[test]
    fn fill_bytes_lengths() {
        let mut p = Prg::from_seed(Block(7));
        for len in [0usize, 1, 15, 16, 17, 255, 256, 257, 1000] {
            let mut v = vec![0u8; len];
            p.fill_bytes(&mut v);
            if len >= 16 {
                assert!(v.iter().any(|&x| x != 0));
            }
        }
        let mut q = Prg::from_seed(Block(7));
        let mut v = vec![0u8; 40];
        q.fill_bytes(&mut v);
        let aes = Aes128::new(Block(7));
        assert_eq!(v[..16], aes.encrypt_block(Block(0)).to_bytes());
        assert_eq!(v[32..40], aes.encrypt_block(Block(2)).to_bytes()[..8]);
    }

    #[test]
    fn random_bool_is_balanced() {
        let mut p = Prg::from_seed(Block(9));
        let ones = (0..10_000).filter(|_| p.random_bool()).count();
        assert!((4_500..5_500).contains(&ones), "{ones}");
    }
}
