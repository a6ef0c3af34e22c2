//! Values read padded: where a loop's iterations read values of different
//! widths (a DP's cells, growing row by row) or different public values,
//! a probe reads them in a form that serves them all (see
//! `Setup::widths` and `Setup::general`).

use super::*;

/// Whether a public value of `significant` bits, read where values are
/// padded to `k` bits, is a sentinel: not one whose public values differ
/// between iterations (`general`), and at least [`SENTINEL_BITS`] wider
/// (a DP's first row, `prev[j] = j`, is a bit wider than its cells at
/// first, and is read padded).
pub(in crate::lower) fn sentinel(significant: Option<usize>, k: usize, general: bool) -> bool {
    !general && significant.is_some_and(|n| n >= k + SENTINEL_BITS)
}

/// How many bits wider than the padded values a sentinel is (16 times).
const SENTINEL_BITS: usize = 4;

/// Wires from here up stand for bits of a padded value (see
/// [`padded_form`]); no other wire reaches them.
pub(in crate::lower) const MARKER_BASE: Wire = Wire::MAX - (1 << 16);

/// The bits of a value that may be padded (a public value or bits).
pub(super) fn value_bits(v: &Slot) -> Option<Bits> {
    match v {
        Slot::Val(Word::Const { v, w }) => Some(gates::konst(*v, *w as usize)),
        Slot::Val(Word::Bits(bits, _)) => Some(bits.to_vec()),
        _ => None,
    }
}

/// How many low bits of `bits` carry the value: the rest are zeros, or
/// copies of the last of these (its sign).
pub(super) fn significant(bits: &[Bit]) -> usize {
    let w = bits.len();
    let unsigned = (0..=w)
        .rev()
        .find(|&n| n == 0 || bits[n - 1] != Bit::Const(false))
        .unwrap_or(0);
    let signed = (1..=w)
        .find(|&n| bits[n..].iter().all(|&b| b == bits[n - 1]))
        .unwrap_or(w);
    unsigned.min(signed)
}

/// A value read where a loop's iterations read values of different widths
/// (or different public values): its low `k` bits (at least those it needs;
/// all of them, if public) as they are or, where they are only zeros or
/// copies of its sign, as markers (`MARKER_BASE + position`), and the bits
/// above as the extension of those; with the value's bits (marker
/// `MARKER_BASE + p` stands for bit `p`). `None` for a sum or a pointer.
pub(in crate::lower) fn padded_form(v: &Slot, k: usize) -> Option<(Slot, Vec<Bit>)> {
    let bits = value_bits(v)?;
    let public = matches!(v, Slot::Val(Word::Const { .. }));
    let n = significant(&bits);
    let k = k.max(n).min(bits.len());
    let marked = |p: usize| public || p >= n;
    let signed = n > 0 && n < bits.len() && bits[n] == bits[n - 1];
    let mut form: Bits = Vec::with_capacity(bits.len());
    for (p, &b) in bits.iter().enumerate() {
        form.push(if p >= k {
            if signed || (public && bits[bits.len() - 1] == Bit::Const(true)) {
                form[k - 1]
            } else {
                Bit::Const(false)
            }
        } else if marked(p) {
            Bit::Wire(MARKER_BASE + p as Wire)
        } else {
            b
        });
    }
    let range = gates::value_range(&form);
    Some((Slot::Val(Word::Bits(Rc::from(form), range)), bits))
}
