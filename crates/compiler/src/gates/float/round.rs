//! Normalising and rounding: one step shared by every operation that
//! produces a new value.

use twofold_circuit::{Bit, Builder};

use super::super::{extend, konst, less, mux, nonzero, shl_var, sub, Bits};
use super::Fmt;

/// Which shifts a result may need before it is rounded.
#[derive(Clone, Copy, Debug)]
pub(super) struct Shifts {
    /// Left, to normalise a significand with leading zeros (a cancelling
    /// subtraction, an integer), no further than the smallest exponent.
    pub left: bool,
    /// Right, for a result below the normal range (a subnormal).
    pub right: bool,
}

/// Number of bits needed to count to `n`.
pub(super) fn count_bits(n: usize) -> usize {
    (usize::BITS - n.leading_zeros()) as usize
}

/// Rounds `sign · sig / 2^(k-1) · 2^(exp - bias)` to the format, to
/// nearest with ties to even, and packs it. `sig` has `k >= frac + 3`
/// bits; `exp` is a signed word (wide enough for the exponents at hand);
/// `sticky` says whether nonzero bits lie below `sig`. Without a left
/// shift, the top bit of `sig` must be set (or `sig` zero, or the value
/// below the normal range); without a right shift, `exp >= 1`.
pub(super) fn round_pack(
    b: &mut Builder,
    fmt: Fmt,
    sign: Bit,
    exp: &[Bit],
    sig: &[Bit],
    sticky: Bit,
    shifts: Shifts,
) -> Bits {
    let k = sig.len();
    let ew = exp.len();
    let mut sig = sig.to_vec();
    let mut exp = exp.to_vec();
    let mut sticky = sticky;
    let one = konst(1, ew);
    if shifts.right {
        // Below the normal range: shift right by 1 - exp, exponent 1.
        let em1 = sub(b, &exp, &one);
        let low = em1[ew - 1];
        let back = sub(b, &one, &exp);
        let amount: Bits = back.iter().map(|&p| b.and(p, low)).collect();
        let (s, out) = shr_sticky(b, &sig, &amount);
        sig = s;
        sticky = b.or(sticky, out);
        exp = mux(b, low, &one, &exp);
    }
    if shifts.left {
        // Shift by the leading zeros, but not below exponent 1.
        let lz = extend(&leading_zeros(b, &sig), ew, false);
        let em1 = sub(b, &exp, &one);
        let fewer = less(b, &lz, &em1, true);
        let d = mux(b, fewer, &lz, &em1);
        sig = shl_var(b, &sig, &d[..count_bits(k).min(ew)]);
        exp = sub(b, &exp, &d);
    }
    let normal = sig[k - 1];
    let field: Bits = exp[..fmt.exp].iter().map(|&p| b.and(p, normal)).collect();
    let over = {
        let top = konst(fmt.exp_max(), ew);
        let under = less(b, &exp, &top, true);
        let n = b.not(under);
        b.and(n, normal)
    };
    let r = k - 2 - fmt.frac;
    let rest = nonzero(b, &sig[..r]);
    sticky = b.or(sticky, rest);
    let lsb = sig[r + 1];
    let odd_or_sticky = b.or(lsb, sticky);
    let up = b.and(sig[r], odd_or_sticky);
    // Fraction and exponent field as one integer: a carry out of the
    // fraction moves the exponent on (and reaches infinity on overflow).
    let mut packed: Bits = sig[r + 1..k - 1].to_vec();
    packed.extend(field);
    let mut inc = konst(0, packed.len());
    inc[0] = up;
    let mut out = super::super::add(b, &packed, &inc);
    out.push(sign);
    mux(b, over, &fmt.inf(sign), &out)
}

/// `x >> s` (unsigned, any amount) and whether a nonzero bit was shifted
/// out.
pub(super) fn shr_sticky(b: &mut Builder, x: &[Bit], s: &[Bit]) -> (Bits, Bit) {
    let n = x.len();
    let stages = count_bits(n);
    let mut v = x.to_vec();
    let mut sticky = Bit::Const(false);
    for (j, &sel) in s.iter().enumerate().take(stages) {
        let sh = 1usize << j;
        let lost = nonzero(b, &v[..sh.min(n)]);
        let lost = b.and(lost, sel);
        sticky = b.or(sticky, lost);
        let shifted: Bits = (0..n)
            .map(|i| v.get(i + sh).copied().unwrap_or(Bit::Const(false)))
            .collect();
        v = mux(b, sel, &shifted, &v);
    }
    if s.len() > stages {
        let big = nonzero(b, &s[stages..]);
        let left = nonzero(b, &v);
        let lost = b.and(left, big);
        sticky = b.or(sticky, lost);
        let keep = b.not(big);
        v = v.iter().map(|&p| b.and(p, keep)).collect();
    }
    (v, sticky)
}

/// The number of leading zeros of `x` (`x.len()` if it is zero), as a word
/// of [`count_bits`]`(x.len())` bits: a tree of priority encoders.
pub(super) fn leading_zeros(b: &mut Builder, x: &[Bit]) -> Bits {
    let n = x.len();
    let size = (n + 1).next_power_of_two();
    // Below the word: a one (so a zero word counts n), then zeros.
    let mut v = vec![Bit::Const(false); size - n];
    let pad = v.len() - 1;
    v[pad] = Bit::Const(true);
    v.extend_from_slice(x);
    let (count, _) = lz_tree(b, &v);
    extend(&count, count_bits(n), false)
}

/// Leading zeros of a power-of-two sized word and whether it is zero.
fn lz_tree(b: &mut Builder, v: &[Bit]) -> (Bits, Bit) {
    if v.len() == 1 {
        return (Vec::new(), b.not(v[0]));
    }
    let h = v.len() / 2;
    let (cl, zl) = lz_tree(b, &v[..h]);
    let (ch, zh) = lz_tree(b, &v[h..]);
    let mut c = mux(b, zh, &cl, &ch);
    c.push(zh);
    (c, b.and(zh, zl))
}

/// Normalises a significand (top bit set unless it is zero) and lowers its
/// exponent `exp` (widened to `ew` signed bits) by the shift.
pub(super) fn normalize(b: &mut Builder, sig: &[Bit], exp: &[Bit], ew: usize) -> (Bits, Bits) {
    let lz = leading_zeros(b, sig);
    let s = shl_var(b, sig, &lz);
    let e = sub(b, &extend(exp, ew, false), &extend(&lz, ew, false));
    (s, e)
}

/// Shifts a significand whose top bit may be clear by one place left
/// where it is, lowering the exponent to match.
pub(super) fn normalize1(b: &mut Builder, sig: &[Bit], exp: &[Bit]) -> (Bits, Bits) {
    let k = sig.len();
    let low = b.not(sig[k - 1]);
    let mut shifted = vec![Bit::Const(false)];
    shifted.extend_from_slice(&sig[..k - 1]);
    let s = mux(b, low, &shifted, sig);
    let mut dec = konst(0, exp.len());
    dec[0] = low;
    (s, sub(b, exp, &dec))
}
