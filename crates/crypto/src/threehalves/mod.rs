//! Three-halves garbling (Rosulek–Roy, *Three Halves Make a Whole?*,
//! CRYPTO 2021) with free XOR, as pure cores: 1.5κ + 5 bits per AND gate
//! (24 bytes and 5 bits at κ = 128) instead of half-gates' 2κ.
//!
//! Labels are sliced in halves, `X = X_L ‖ X_R` (low and high 64 bits); the
//! evaluator computes each half of the output label separately, as a linear
//! combination of hash outputs, three half-size ciphertexts `G0, G1, G2`
//! and the halves of its input labels. The combination of input halves is
//! a 2×4 bit matrix `R_ij` that depends on the colours `(i, j)` and on two
//! random coins of the garbler (*dicing*); the evaluator learns its `R_ij`
//! from five control bits. See `docs/threehalves.md` for the derivation and
//! the security argument; `gate` holds the per-gate algebra, `kernel` the
//! batched chunks around it.
//!
//! For an AND gate with id `g` the hash `H` is the [TCCR hash](crate::tccr)
//! with tweaks `3g`, `3g + 1`, `3g + 2` for the `A`, `B` and `A ⊕ B`
//! queries; of each output, the low 64 bits are the half-label part `h` and
//! bit 64 the control-bit mask `c`.
//!
//! * evaluator, holding `A`, `B` with colours `i = lsb(A)`, `j = lsb(B)`:
//!   `hA, hB, hX = H(A, 3g), H(B, 3g+1), H(A⊕B, 3g+2)`;
//!   `d1 = z1 ⊕ i·z3 ⊕ (i⊕j)·z5 ⊕ c(hA) ⊕ c(hX)`,
//!   `d2 = z2 ⊕ j·z4 ⊕ (i⊕j)·z5 ⊕ c(hB) ⊕ c(hX)`,
//!   `R_ij = Rp_ij ⊕ d1·S1 ⊕ d2·S2`,
//!   `C_L = h(hA) ⊕ h(hX) ⊕ i·G0 ⊕ (i⊕j)·G2 ⊕ R_ij[L]·(A_L, A_R, B_L, B_R)`,
//!   `C_R = h(hB) ⊕ h(hX) ⊕ j·G1 ⊕ (i⊕j)·G2 ⊕ R_ij[R]·(A_L, A_R, B_L, B_R)`.
//! * garbler: with `A⁰`, `B⁰` the colour-0 labels, `a`, `b` the colours of
//!   the 1-labels and coins `r1`, `r2`, it solves the four evaluator
//!   equations for `C0, G0, G1, G2` (cases 00, 11 and 01 determine them,
//!   the matrices make the fourth consistent) and masks
//!   `z = (r1, r2, a, b, a⊕b)` with the hash bits.
//!
//! The coins come from AES under a key drawn from the OS when the garbler
//! is made, evaluated at the gate id, so a garbler and its
//! [`at_gate`](crate::SchemeGarbler::at_gate) copies garble identically.
//!
//! Tables of one call for `n` AND gates: `24n` bytes of `G0, G1, G2` (each 8
//! bytes little-endian) in gate order, then `⌈5n/8⌉` bytes of control bits,
//! gate `m`'s `z1..z5` at bits `5m..5m+5` (bit 0 of byte 0 first).
//!
//! Gate order, chunking and error handling are those of half-gates (the
//! gate loops both share).

mod evaluator;
mod garbler;
mod gate;
mod kernel;

pub use evaluator::Evaluator;
pub use garbler::Garbler;

use crate::scheme::{GarblingScheme, Scheme};

/// Bytes of ciphertext (`G0, G1, G2`) per AND gate.
const HALVES_BYTES: usize = 24;

/// The three-halves scheme.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ThreeHalves;

impl GarblingScheme for ThreeHalves {
    const KIND: Scheme = Scheme::ThreeHalves;
    type Garbler = Garbler;
    type Evaluator = Evaluator;

    const PER_GATE_TABLES: bool = false;

    #[inline]
    fn table_bytes(and_gates: usize) -> usize {
        HALVES_BYTES * and_gates + (5 * and_gates).div_ceil(8)
    }
}
