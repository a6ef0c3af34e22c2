//! The tweakable circular correlation-robust hash of Guo, Katz, Wang and Yu
//! (IEEE S&P 2020, §7): `H(X, t) = π(π(X) ⊕ t) ⊕ π(X)` with π = AES-128 under
//! the public [`FIXED_KEY`].
//!
//! Two AES calls per hash. Batches are hashed group by group: the first AES
//! pass of a whole group of blocks, then the second, so the AES pipeline
//! always has many independent blocks in flight.

use crate::aes::{soft_encrypt, Aes128, Backend, Keys, FIXED_KEY};
use crate::block::Block;
use crate::error::CryptoError;

/// The TCCR hash `H(X, t) = π(π(X) ⊕ t) ⊕ π(X)` on one AES backend.
#[derive(Clone, Debug)]
pub struct Tccr {
    aes: Aes128,
}

impl Default for Tccr {
    fn default() -> Tccr {
        Tccr::new()
    }
}

impl Tccr {
    /// The hash on the fastest backend of this CPU.
    pub fn new() -> Tccr {
        Tccr {
            aes: Aes128::fixed().clone(),
        }
    }

    /// The hash on the given backend, or an error if the CPU lacks it.
    pub fn with_backend(backend: Backend) -> Result<Tccr, CryptoError> {
        Ok(Tccr {
            aes: Aes128::with_backend(FIXED_KEY, backend)?,
        })
    }

    /// The backend in use.
    pub fn backend(&self) -> Backend {
        self.aes.backend()
    }

    /// `H(x, tweak)` for one input (prefer [`Tccr::hash_in_place`] for many).
    pub fn hash(&self, x: Block, tweak: Block) -> Block {
        let mut xs = [x];
        self.hash_unchecked(&mut xs, &[tweak]);
        xs[0]
    }

    /// Replaces every `xs[i]` by `H(xs[i], tweaks[i])`, batched.
    ///
    /// Fails (leaving `xs` untouched) if the slices differ in length.
    pub fn hash_in_place(&self, xs: &mut [Block], tweaks: &[Block]) -> Result<(), CryptoError> {
        if xs.len() != tweaks.len() {
            return Err(CryptoError::LengthMismatch {
                left: xs.len(),
                right: tweaks.len(),
            });
        }
        self.hash_unchecked(xs, tweaks);
        Ok(())
    }

    /// `hash_in_place` with `tweaks.len() >= xs.len()` already established.
    pub(crate) fn hash_unchecked(&self, xs: &mut [Block], tweaks: &[Block]) {
        match &self.aes.keys {
            Keys::Soft(aes) => soft_tccr(aes, xs, tweaks),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the `HwBackend` was built after feature detection, and
            // `tweaks` is at least as long as `xs`.
            Keys::Hw(rk, hw) => unsafe { crate::x86::tccr_in_place(*hw, rk, xs, tweaks) },
            #[cfg(not(target_arch = "x86_64"))]
            Keys::Hw(..) => unreachable!("no hardware AES backend on this architecture"),
        }
    }

    /// The expanded fixed key (for the half-gates kernels).
    pub(crate) fn keys(&self) -> &Keys {
        &self.aes.keys
    }
}

/// Portable TCCR in place; `ts` is at least as long as `xs`.
pub(crate) fn soft_tccr(aes: &aes::Aes128, xs: &mut [Block], ts: &[Block]) {
    const CHUNK: usize = 64;
    let mut s = [Block::ZERO; CHUNK];
    let mut u = [Block::ZERO; CHUNK];
    for (xc, tc) in xs.chunks_mut(CHUNK).zip(ts.chunks(CHUNK)) {
        let n = xc.len();
        s[..n].copy_from_slice(xc);
        soft_encrypt(aes, &mut s[..n]);
        for ((ui, si), ti) in u.iter_mut().zip(&s[..n]).zip(tc) {
            *ui = *si ^ *ti;
        }
        soft_encrypt(aes, &mut u[..n]);
        for ((xi, ui), si) in xc.iter_mut().zip(&u[..n]).zip(&s[..n]) {
            *xi = *ui ^ *si;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_definition() {
        let pi = Aes128::with_backend(FIXED_KEY, Backend::Portable).unwrap();
        for backend in Backend::available() {
            let h = Tccr::with_backend(backend).unwrap();
            for (x, t) in [(Block(0), Block(0)), (Block(u128::MAX), Block(7))] {
                let px = pi.encrypt_block(x);
                let expect = pi.encrypt_block(px ^ t) ^ px;
                assert_eq!(h.hash(x, t), expect, "{backend}");
            }
        }
    }

    #[test]
    fn tweak_matters_and_lengths_checked() {
        let h = Tccr::new();
        let x = Block(0xdead_beef);
        assert_ne!(h.hash(x, Block(0)), h.hash(x, Block(1)));
        let mut xs = [x; 3];
        assert_eq!(
            h.hash_in_place(&mut xs, &[Block(0); 2]),
            Err(CryptoError::LengthMismatch { left: 3, right: 2 })
        );
        assert_eq!(xs, [x; 3]);
        h.hash_in_place(&mut xs, &[Block(0), Block(1), Block(0)])
            .unwrap();
        assert_eq!(xs[0], xs[2]);
        assert_ne!(xs[0], xs[1]);
    }
}
