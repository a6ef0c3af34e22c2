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
//! the security argument.
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

    #[inline]
    fn table_bytes(and_gates: usize) -> usize {
        HALVES_BYTES * and_gates + (5 * and_gates).div_ceil(8)
    }
}

// The paper's matrices. A 2×4 matrix over GF(2) is a byte: bit `4·row + col`
// for rows (L, R) of the output and columns (A_L, A_R, B_L, B_R).

/// `S1`: added to `R_ij` when `d1` is set.
const S1: u8 = 0b1001_0111;
/// `S2`: added to `R_ij` when `d2` is set.
const S2: u8 = 0b1110_1001;
/// `Rp_ij`, indexed by `2i + j`.
const RP: [u8; 4] = [0b0010_0100, 0b0000_0100, 0b0010_0000, 0];

/// The evaluator's matrix `R_ij` for colours `(i, j)` and decoded bits
/// `(d1, d2)`.
const fn r_matrix(i: usize, j: usize, d1: usize, d2: usize) -> u8 {
    RP[2 * i + j] ^ (S1 * d1 as u8) ^ (S2 * d2 as u8)
}

/// All ones if `bit`, else zero.
const fn mask(bit: bool) -> u64 {
    if bit {
        u64::MAX
    } else {
        0
    }
}

/// The evaluator's masks: for index `i | j<<1 | d1<<2 | d2<<3`, per output
/// half (L, R), a mask per source (A_L, A_R, B_L, B_R, G0, G1, G2).
static EVAL_MASKS: [[[u64; 7]; 2]; 16] = eval_masks();

const fn eval_masks() -> [[[u64; 7]; 2]; 16] {
    let mut out = [[[0; 7]; 2]; 16];
    let mut idx = 0;
    while idx < 16 {
        let (i, j, d1, d2) = (idx & 1, idx >> 1 & 1, idx >> 2 & 1, idx >> 3 & 1);
        let r = r_matrix(i, j, d1, d2);
        let mut row = 0;
        while row < 2 {
            let mut col = 0;
            while col < 4 {
                out[idx][row][col] = mask(r >> (4 * row + col) & 1 == 1);
                col += 1;
            }
            row += 1;
        }
        // C_L gets i·G0 ⊕ (i⊕j)·G2, C_R gets j·G1 ⊕ (i⊕j)·G2.
        out[idx][0][4] = mask(i == 1);
        out[idx][1][5] = mask(j == 1);
        out[idx][0][6] = mask(i != j);
        out[idx][1][6] = mask(i != j);
        idx += 1;
    }
    out
}

/// The garbler's masks: for index `a | b<<1 | r1<<2 | r2<<3`, per output
/// (C_L, C_R, G0, G1, G2), a mask per source (A⁰_L, A⁰_R, B⁰_L, B⁰_R, Δ_L,
/// Δ_R). The hash terms are added separately.
static GARBLE_MASKS: [[[u64; 6]; 5]; 16] = garble_masks();

/// The sources (as a 6-bit set over A⁰_L, A⁰_R, B⁰_L, B⁰_R, Δ_L, Δ_R) of
/// rows L and R of `W_ij = R_ij·(A^i, B^j) ⊕ f·Δ`, the part of the
/// evaluator's output that is not hash or ciphertext in case `(i, j)`, where
/// `A^i = A⁰ ⊕ i·Δ`, `f = [i = a ∧ j = b]` (the case of two 1-labels) and
/// `d1, d2` are what the evaluator decodes in that case.
const fn w_sources(i: usize, j: usize, a: usize, b: usize, r1: usize, r2: usize) -> [u8; 2] {
    let d1 = r1 ^ (i & a) ^ ((i ^ j) & (a ^ b));
    let d2 = r2 ^ (j & b) ^ ((i ^ j) & (a ^ b));
    let r = r_matrix(i, j, d1, d2);
    let mut rows = [0u8; 2];
    let mut row = 0;
    while row < 2 {
        let coef = r >> (4 * row) & 0xf;
        // Label halves, then Δ halves from A^i = A⁰ ⊕ iΔ and B^j = B⁰ ⊕ jΔ.
        let mut s = coef;
        if i == 1 {
            s ^= (coef & 0b11) << 4;
        }
        if j == 1 {
            s ^= (coef >> 2 & 0b11) << 4;
        }
        if i == a && j == b {
            s ^= 1 << (4 + row);
        }
        rows[row] = s;
        row += 1;
    }
    rows
}

const fn garble_masks() -> [[[u64; 6]; 5]; 16] {
    let mut out = [[[0; 6]; 5]; 16];
    let mut idx = 0;
    while idx < 16 {
        let (a, b, r1, r2) = (idx & 1, idx >> 1 & 1, idx >> 2 & 1, idx >> 3 & 1);
        let w00 = w_sources(0, 0, a, b, r1, r2);
        let w11 = w_sources(1, 1, a, b, r1, r2);
        let w01 = w_sources(0, 1, a, b, r1, r2);
        // C0 = W00, G0 = W11[L] ⊕ W00[L], G1 = W11[R] ⊕ W00[R],
        // G2 = W01[L] ⊕ W00[L].
        let outputs = [
            w00[0],
            w00[1],
            w11[0] ^ w00[0],
            w11[1] ^ w00[1],
            w01[0] ^ w00[0],
        ];
        let mut o = 0;
        while o < 5 {
            let mut s = 0;
            while s < 6 {
                out[idx][o][s] = mask(outputs[o] >> s & 1 == 1);
                s += 1;
            }
            o += 1;
        }
        idx += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fourth evaluator equation (case 10) and both halves of case 01
    /// hold for every colour of the 1-labels and every coin: the matrices
    /// make the garbler's system consistent.
    #[test]
    fn every_case_is_consistent() {
        for idx in 0..16 {
            let (a, b, r1, r2) = (idx & 1, idx >> 1 & 1, idx >> 2 & 1, idx >> 3 & 1);
            let w = |i, j| w_sources(i, j, a, b, r1, r2);
            let (c, g0, g1, g2) = (
                w(0, 0),
                w(1, 1)[0] ^ w(0, 0)[0],
                w(1, 1)[1] ^ w(0, 0)[1],
                w(0, 1)[0] ^ w(0, 0)[0],
            );
            // The evaluator adds i·G0 ⊕ (i⊕j)·G2 to L and j·G1 ⊕ (i⊕j)·G2 to R.
            for (i, j) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                let l = c[0] ^ if i == 1 { g0 } else { 0 } ^ if i != j { g2 } else { 0 };
                let r = c[1] ^ if j == 1 { g1 } else { 0 } ^ if i != j { g2 } else { 0 };
                assert_eq!([l, r], w(i, j), "a={a} b={b} r=({r1},{r2}) case {i}{j}");
            }
        }
    }
}
