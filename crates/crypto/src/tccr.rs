//! The tweakable circular correlation-robust hash of Guo, Katz, Wang and Yu
//! (IEEE S&P 2020, §7): `H(X, t) = π(π(X) ⊕ t) ⊕ π(X)` with π = AES-128 under
//! the public [`FIXED_KEY`](crate::aes::FIXED_KEY).
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
    fn hash_unchecked(&self, xs: &mut [Block], tweaks: &[Block]) {
        match &self.aes.keys {
            Keys::Soft(aes) => soft_tccr(aes, xs, tweaks),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the `HwBackend` was built after feature detection, and
            // `tweaks` is at least as long as `xs`.
            Keys::Hw(rk, hw) => unsafe { crate::aes::x86::tccr_in_place(*hw, rk, xs, tweaks) },
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

/// A batched TCCR implementation the half-gates loops are generic over, so
/// that each backend's loop is compiled with the kernel inlined.
pub(crate) trait HashKernel {
    /// The representation of labels in the loops around the hash.
    type Label: Label128;

    /// `out[i] = H(xs[i], ts[i])` for `i < n`.
    ///
    /// # Safety
    /// `xs`, `ts` and `out` must be valid for `n` blocks and `out` must not
    /// overlap the others; the CPU must support the kernel's features.
    unsafe fn hash(&self, xs: *const Block, ts: *const Block, out: *mut Block, n: usize);
}

/// 128-bit label operations for the loops around the hash: plain [`Block`]s
/// (general-purpose registers) or SSE registers.
///
/// # Safety
/// Every method requires the CPU features of the implementation; pointers
/// must be valid for one block.
pub(crate) trait Label128: Copy {
    /// `b` as a label.
    unsafe fn splat(b: Block) -> Self;
    /// Loads a block.
    unsafe fn load(p: *const Block) -> Self;
    /// Stores a block.
    unsafe fn store(self, p: *mut Block);
    /// Bitwise XOR.
    unsafe fn xor(self, o: Self) -> Self;
    /// Bitwise AND.
    unsafe fn and(self, o: Self) -> Self;
    /// All ones if the lsb is set, else all zeros.
    unsafe fn lsb_mask(self) -> Self;
}

impl Label128 for Block {
    #[inline(always)]
    unsafe fn splat(b: Block) -> Self {
        b
    }
    #[inline(always)]
    unsafe fn load(p: *const Block) -> Self {
        // SAFETY: the caller guarantees `p` is valid.
        unsafe { *p }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut Block) {
        // SAFETY: the caller guarantees `p` is valid.
        unsafe { *p = self }
    }
    #[inline(always)]
    unsafe fn xor(self, o: Self) -> Self {
        self ^ o
    }
    #[inline(always)]
    unsafe fn and(self, o: Self) -> Self {
        self & o
    }
    #[inline(always)]
    unsafe fn lsb_mask(self) -> Self {
        Block(u128::MAX).select(self.lsb())
    }
}

/// The portable kernel.
pub(crate) struct SoftKernel<'a>(pub(crate) &'a aes::Aes128);

impl HashKernel for SoftKernel<'_> {
    type Label = Block;

    #[inline(always)]
    unsafe fn hash(&self, xs: *const Block, ts: *const Block, out: *mut Block, n: usize) {
        // SAFETY: the caller guarantees the pointers are valid for `n` blocks
        // and that `out` overlaps neither input.
        let (out, ts) = unsafe {
            std::ptr::copy_nonoverlapping(xs, out, n);
            (
                std::slice::from_raw_parts_mut(out, n),
                std::slice::from_raw_parts(ts, n),
            )
        };
        soft_tccr(self.0, out, ts)
    }
}

/// A hardware kernel: the fixed-key round keys splatted into vectors `L`.
#[cfg(target_arch = "x86_64")]
pub(crate) struct HwKernel<L: crate::aes::x86::Lanes> {
    k: [L; 11],
    k1: [crate::aes::x86::X1; 11],
}

#[cfg(target_arch = "x86_64")]
impl<L: crate::aes::x86::Lanes> HwKernel<L> {
    /// Splats the round keys.
    ///
    /// # Safety
    /// The CPU must support the features of `L`.
    #[inline(always)]
    pub(crate) unsafe fn new(rk: &crate::aes::RoundKeys) -> Self {
        // SAFETY: forwarded from the caller.
        unsafe {
            HwKernel {
                k: crate::aes::x86::splat_keys(rk),
                k1: crate::aes::x86::splat_keys(rk),
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl<L: crate::aes::x86::Lanes> HashKernel for HwKernel<L> {
    type Label = crate::aes::x86::X1;

    #[inline(always)]
    unsafe fn hash(&self, xs: *const Block, ts: *const Block, out: *mut Block, n: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { crate::aes::x86::tccr_n(&self.k, &self.k1, xs, ts, out, n) }
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
