//! Addition and subtraction.

use twofold_circuit::{Bit, Builder};

use super::super::{add_or_sub, extend, konst, less, mux, nonzero, xor, Bits};
use super::round::{round_pack, shr_sticky, Shifts};
use super::{nan_of, Fmt, Parts};

/// `x + y`, or `x - y` if `subtract`.
///
/// The larger magnitude is found with one comparator; the smaller operand
/// is aligned to it with three extra bits (the lowest one sticky), the two
/// are added or subtracted with one adder, and the result is normalised
/// and rounded once.
pub fn add(b: &mut Builder, fmt: Fmt, x: &[Bit], y: &[Bit], subtract: bool) -> Bits {
    let px = Parts::of(b, fmt, x);
    let py = Parts::of(b, fmt, y);
    let (f, n) = (fmt.frac, fmt.width() - 1);
    let sx = px.sign;
    let sy = if subtract { b.not(py.sign) } else { py.sign };
    let swap = less(b, &x[..n], &y[..n], false);
    let big = mux(b, swap, &y[..n], &x[..n]);
    let both = xor(b, &x[..n], &y[..n]);
    let small = xor(b, &both, &big);
    let sign = b.mux(swap, sy, sx);
    let zero_big = b.mux(swap, py.exp_zero, px.exp_zero);
    let zero_small = {
        let t = b.xor(px.exp_zero, py.exp_zero);
        b.xor(t, zero_big)
    };
    // Significands with a carry bit above and three bits below.
    let widen = |b: &mut Builder, v: &[Bit], zero: Bit| -> Bits {
        let mut w = konst(0, 3);
        w.extend_from_slice(&v[..f]);
        w.push(b.not(zero));
        w.push(Bit::Const(false));
        w
    };
    let eff = |b: &mut Builder, v: &[Bit], zero: Bit| -> Bits {
        let mut e = v[f..n].to_vec();
        e[0] = b.or(e[0], zero);
        e
    };
    let e_big = eff(b, &big, zero_big);
    let e_small = eff(b, &small, zero_small);
    let sig_big = widen(b, &big, zero_big);
    let sig_small = widen(b, &small, zero_small);
    let d = super::super::sub(b, &e_big, &e_small);
    let (mut aligned, lost) = shr_sticky(b, &sig_small, &d);
    aligned[0] = b.or(aligned[0], lost);
    let eff_sub = b.xor(sx, sy);
    let s = add_or_sub(b, &sig_big, &aligned, eff_sub);
    // An exact zero is +0 unless both operands are -0.
    let s_zero = {
        let nz = nonzero(b, &s);
        b.not(nz)
    };
    let both_neg = b.and(sx, sy);
    let sign = b.mux(s_zero, both_neg, sign);
    let ew = fmt.exp + 2;
    let exp = super::super::add(b, &extend(&e_big, ew, false), &konst(1, ew));
    let shifts = Shifts {
        left: true,
        right: false,
    };
    let normal = round_pack(b, fmt, sign, &exp, &s, Bit::Const(false), shifts);
    let any_inf = b.or(px.inf, py.inf);
    let both_inf = b.and(px.inf, py.inf);
    let invalid = b.and(both_inf, eff_sub);
    let inf = mux(b, invalid, &konst(fmt.default_nan(), n + 1), &fmt.inf(sign));
    let v = mux(b, any_inf, &inf, &normal);
    let (nan, is_nan) = nan_of(b, fmt, x, &px, y, &py);
    mux(b, is_nan, &nan, &v)
}
