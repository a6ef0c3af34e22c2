//! Words as signed digits `±bit · 2^col`: how sums and products read their
//! operands, and the range of a word's value from its bits.

use twofold_circuit::Bit;

use super::{signed_width, Range};

/// A signed digit: `±bit · 2^col`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Digit {
    /// The bit.
    pub(super) bit: Bit,
    /// Its column: the digit weighs `2^col`.
    pub(super) col: u32,
    /// Whether the digit is subtracted.
    pub(super) neg: bool,
}

/// The digits of a word read modulo `2^w`: the low bits positive and, when
/// the word is a sign extension of a wire, its sign bit negative.
pub(super) fn digits(x: &[Bit], w: usize) -> Vec<Digit> {
    digits_of(x, w).collect()
}

/// [`digits`] one by one, without a list: ranges are taken of every word a
/// kept loop's iterations read, and building the list each time was most
/// of what that cost.
pub(super) fn digits_of(x: &[Bit], w: usize) -> impl Iterator<Item = Digit> + '_ {
    let x = &x[..x.len().min(w)];
    let k = signed_width(x);
    let low = x
        .iter()
        .enumerate()
        .take(k - 1)
        .filter(|&(_, &b)| b != Bit::Const(false))
        .map(|(i, &b)| Digit {
            bit: b,
            col: i as u32,
            neg: false,
        });
    // The run of copies from bit k-1 up to bit w-1 is worth -top · 2^(k-1)
    // modulo 2^w, unless it reaches only bit w-1 alone.
    let top = x
        .last()
        .filter(|&&top| top != Bit::Const(false))
        .map(|&top| Digit {
            bit: top,
            col: (k - 1) as u32,
            neg: k < w,
        });
    low.chain(top)
}

/// Non-adjacent form of a constant modulo `2^w`: few signed digits.
pub(super) fn const_digits(v: u64, w: usize) -> Vec<Digit> {
    let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
    let v = v & mask;
    let mut out = Vec::new();
    let mut n = v as i128;
    let mut col = 0u32;
    while n != 0 && (col as usize) < w {
        if n & 1 == 1 {
            let d = 2 - (n & 3); // 1 or -1
            let d = if (col as usize) + 1 >= w { 1 } else { d };
            out.push(Digit {
                bit: Bit::Const(true),
                col,
                neg: d < 0,
            });
            n -= d;
        }
        n >>= 1;
        col += 1;
    }
    out
}

/// The range of the value of signed digits (the tests' oracle of
/// [`value_range_in`]).
#[cfg(test)]
pub(super) fn range_of_digits(ds: impl IntoIterator<Item = Digit>) -> Range {
    let (mut lo, mut hi) = (0i128, 0i128);
    for d in ds {
        let wgt = 1i128 << d.col;
        match (d.bit, d.neg) {
            (Bit::Const(false), _) => {}
            (Bit::Const(true), false) => {
                lo += wgt;
                hi += wgt;
            }
            (Bit::Const(true), true) => {
                lo -= wgt;
                hi -= wgt;
            }
            (_, false) => hi += wgt,
            (_, true) => lo -= wgt,
        }
    }
    Range::new(lo, hi)
}

/// The range of a word's value from its bits alone: that of its
/// [`digits_of`], in one pass over the bits (ranges are taken of
/// every word a kept loop's iterations read and write).
pub fn value_range(x: &[Bit]) -> Range {
    value_range_in(x, x.len())
}

/// The range of `x` read in a sum of `w` bits: cut to `w` bits or
/// extended by its last (that of [`digits_of`]`(x, w)`, in one pass).
pub(super) fn value_range_in(x: &[Bit], w: usize) -> Range {
    let x = &x[..x.len().min(w)];
    let k = signed_width(x);
    // The bits below the sign as masks: those fixed at one, those free.
    let (ones, free) = if k <= 65 {
        // (The common case, in 64-bit masks: one pass without branches.)
        let (ones, free) = below_sign_masks::<u64>(&x[..k - 1]);
        (u128::from(ones), u128::from(free))
    } else {
        below_sign_masks::<u128>(&x[..k - 1])
    };
    if k >= 128 {
        // (Beyond an `i128`'s bounds: any value modulo `2^128`.)
        return Range::new(i128::MIN, i128::MAX);
    }
    let (mut lo, mut hi) = (ones as i128, (ones | free) as i128);
    let wgt = 1i128 << (k - 1);
    match x.last() {
        None | Some(Bit::Const(false)) => {}
        // Negative: copies of the top bit from k-1 up to a wider word.
        Some(Bit::Const(true)) if k < w => (lo, hi) = (lo - wgt, hi - wgt),
        Some(Bit::Const(true)) => (lo, hi) = (lo + wgt, hi + wgt),
        Some(Bit::Wire(_)) if k < w => lo -= wgt,
        Some(Bit::Wire(_)) => hi += wgt,
    }
    Range::new(lo, hi)
}

/// What [`value_range`] gives for a word of `n` distinct wires, without
/// reading them: all `n`-bit unsigned values (`None` from 127 bits, where
/// they pass the range's type).
pub fn distinct_wires_range(n: usize) -> Option<Range> {
    (n < 127).then(|| Range::new(0, (1 << n) - 1))
}

/// The masks of `bits` (at most the mask type's width) fixed at one and
/// free (wires).
fn below_sign_masks<M>(bits: &[Bit]) -> (M, M)
where
    M: From<bool> + std::ops::Shl<usize, Output = M> + std::ops::BitOr<Output = M> + Default + Copy,
{
    bits.iter()
        .enumerate()
        .fold((M::default(), M::default()), |(ones, free), (i, &b)| {
            let (one, wire) = match b {
                Bit::Const(v) => (v, false),
                Bit::Wire(_) => (false, true),
            };
            (ones | (M::from(one) << i), free | (M::from(wire) << i))
        })
}
