//! Word-level building blocks over [`Bit`]s, minimising AND gates.
//!
//! Words are bit vectors, bit 0 first. Constant bits fold away in the
//! builder, so public operands cost nothing. Additions, subtractions and
//! multiplications are collected as columns of signed bits and reduced with
//! full adders (one AND each): a two-operand add is a ripple-carry adder
//! (n-1 ANDs for n bits), the low half of an n x n product costs about n^2
//! ANDs, squaring about half of that. Results are computed only up to the
//! width the operands can reach ("narrowing"), and extended from there.

mod bitwise;
mod compare;
mod count;
mod digits;
mod divide;
pub mod float;
mod ranges;
mod shift;
mod sum;

use twofold_circuit::Bit;

pub use crate::range::Range;
pub use bitwise::{and, mux, not, or, xor};
pub use compare::{equal, less, nonzero};
pub use count::{first_set, popcount};
pub use digits::{distinct_wires_range, value_range};
pub use divide::{sdivrem, udivrem};
pub use ranges::{bucket, bucket_in, fits, narrow, narrows, Widening, WIDEST_RANGED};
pub use shift::{shl_var, shr_var};
pub use sum::{add, add_or_sub, full_adder, mul, neg, sub, Sum};

/// A word: bits, least significant first.
pub type Bits = Vec<Bit>;

/// The constant `v` as `w` bits.
pub fn konst(v: u64, w: usize) -> Bits {
    (0..w)
        .map(|i| Bit::Const(i < 64 && (v >> i) & 1 == 1))
        .collect()
}

/// The value of a word if all its bits are constants.
pub fn const_value(x: &[Bit]) -> Option<u64> {
    let mut v = 0u64;
    for (i, b) in x.iter().enumerate() {
        match b {
            Bit::Const(true) if i < 64 => v |= 1 << i,
            Bit::Const(_) => {}
            Bit::Wire(_) => return None,
        }
    }
    Some(v)
}

/// The top bit that is not a copy of the bits above it: the word equals the
/// sign extension (if the run is a wire or `true`) or zero extension of its
/// low `k` bits. Returns `k` (at least 1).
pub fn eff_width(x: &[Bit]) -> usize {
    let Some(&top) = x.last() else { return 0 };
    let k = signed_width(x);
    if top == Bit::Const(false) { k - 1 } else { k }.max(1)
}

/// Extends (or truncates) `x` to `w` bits, with sign extension if `signed`.
pub fn extend(x: &[Bit], w: usize, signed: bool) -> Bits {
    let fill = if signed {
        x.last().copied().unwrap_or(Bit::Const(false))
    } else {
        Bit::Const(false)
    };
    (0..w).map(|i| x.get(i).copied().unwrap_or(fill)).collect()
}

/// Number of bits left when the constant-zero top bits are dropped (the
/// unsigned significant width; at least 1).
pub fn uwidth(x: &[Bit]) -> usize {
    let mut k = x.len();
    while k > 1 && x[k - 1] == Bit::Const(false) {
        k -= 1;
    }
    k.max(1)
}

/// Number of low bits whose sign extension gives the word.
fn signed_width(x: &[Bit]) -> usize {
    let Some(&top) = x.last() else { return 1 };
    let mut k = x.len();
    while k > 1 && x[k - 2] == top {
        k -= 1;
    }
    k
}

/// Number of bits of `v` (0 for 0).
fn bitlen(v: u128) -> usize {
    (128 - v.leading_zeros()) as usize
}

#[cfg(test)]
mod tests;
