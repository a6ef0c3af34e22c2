//! Multiplication and division.

use twofold_circuit::{Bit, Builder};

use super::super::{add, add_or_sub, extend, konst, mux, nonzero, sub, Bits};
use super::round::{normalize, normalize1, round_pack, Shifts};
use super::{nan_of, Fmt, Parts};

/// A finite nonzero operand's normalised significand (`frac + 1` bits, top
/// bit set) and exponent (a signed word of `exp + 3` bits).
fn operand(b: &mut Builder, fmt: Fmt, p: &Parts) -> (Bits, Bits) {
    let sig = p.sig(b);
    let exp = p.exp_eff(b);
    normalize(b, &sig, &exp, fmt.exp + 3)
}

/// The bias as a word of `w` bits.
fn bias(fmt: Fmt, w: usize) -> Bits {
    konst(fmt.bias() as u64, w)
}

/// Rounds a significand whose top bit may be clear (a product in [1, 4),
/// a quotient in (1/2, 2)) and whose value may lie below the normal range.
fn finish(b: &mut Builder, fmt: Fmt, sign: Bit, exp: &[Bit], sig: &[Bit]) -> Bits {
    let (sig, exp) = normalize1(b, sig, exp);
    let shifts = Shifts {
        left: false,
        right: true,
    };
    round_pack(b, fmt, sign, &exp, &sig, Bit::Const(false), shifts)
}

/// `x * y`: a full product of the significands (one AND per bit pair and a
/// full adder per partial product), then one rounding.
pub fn mul(b: &mut Builder, fmt: Fmt, x: &[Bit], y: &[Bit]) -> Bits {
    let px = Parts::of(b, fmt, x);
    let py = Parts::of(b, fmt, y);
    let f = fmt.frac;
    let sign = b.xor(px.sign, py.sign);
    let (sx, ex) = operand(b, fmt, &px);
    let (sy, ey) = operand(b, fmt, &py);
    let w = 2 * f + 2;
    let prod = super::super::mul(b, &extend(&sx, w, false), &extend(&sy, w, false));
    // The top frac + 3 bits, and below them one sticky bit.
    let mut sig = vec![nonzero(b, &prod[..f - 1])];
    sig.extend_from_slice(&prod[f - 1..]);
    let ew = ex.len();
    let sum = add(b, &ex, &ey);
    let exp = sub(b, &sum, &bias(fmt, ew));
    let exp = add(b, &exp, &konst(1, ew));
    let normal = finish(b, fmt, sign, &exp, &sig);
    let zero = b.or(px.zero, py.zero);
    let inf = b.or(px.inf, py.inf);
    let invalid = b.and(zero, inf);
    let v = mux(b, zero, &fmt.zero(sign), &normal);
    let v = mux(b, inf, &fmt.inf(sign), &v);
    let v = mux(b, invalid, &konst(fmt.default_nan(), fmt.width()), &v);
    let (nan, is_nan) = nan_of(b, fmt, x, &px, y, &py);
    mux(b, is_nan, &nan, &v)
}

/// `x / y`: non-restoring division of the significands (one adder a
/// quotient bit), the remainder giving the sticky bit, then one rounding.
pub fn div(b: &mut Builder, fmt: Fmt, x: &[Bit], y: &[Bit]) -> Bits {
    let px = Parts::of(b, fmt, x);
    let py = Parts::of(b, fmt, y);
    let f = fmt.frac;
    let sign = b.xor(px.sign, py.sign);
    let (sx, ex) = operand(b, fmt, &px);
    let (sy, ey) = operand(b, fmt, &py);
    let m = f + 3;
    let dividend = extend(&sx, m, false);
    let divisor = extend(&sy, m, false);
    let n = f + 3;
    let mut q = vec![Bit::Const(false); n];
    let mut r = sub(b, &dividend, &divisor);
    q[n - 1] = b.not(r[m - 1]);
    for i in (0..n - 1).rev() {
        let subtract = b.not(r[m - 1]);
        let mut shifted = vec![Bit::Const(false)];
        shifted.extend_from_slice(&r[..m - 1]);
        r = add_or_sub(b, &shifted, &divisor, subtract);
        q[i] = b.not(r[m - 1]);
    }
    let fix: Bits = divisor.iter().map(|&p| b.and(p, r[m - 1])).collect();
    let rem = add(b, &r, &fix);
    let mut sig = vec![nonzero(b, &rem)];
    sig.extend(q);
    let ew = ex.len();
    let diff = sub(b, &ex, &ey);
    let exp = add(b, &diff, &bias(fmt, ew));
    let normal = finish(b, fmt, sign, &exp, &sig);
    let both_zero = b.and(px.zero, py.zero);
    let both_inf = b.and(px.inf, py.inf);
    let invalid = b.or(both_zero, both_inf);
    let to_inf = b.or(px.inf, py.zero);
    let to_zero = b.or(px.zero, py.inf);
    let v = mux(b, to_zero, &fmt.zero(sign), &normal);
    let v = mux(b, to_inf, &fmt.inf(sign), &v);
    let v = mux(b, invalid, &konst(fmt.default_nan(), fmt.width()), &v);
    let (nan, is_nan) = nan_of(b, fmt, x, &px, y, &py);
    mux(b, is_nan, &nan, &v)
}
