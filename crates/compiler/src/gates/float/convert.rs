//! Conversions: between formats, from integers and to integers (C's
//! truncation, out-of-range values as x86-64 SSE gives them).

use twofold_circuit::{Bit, Builder};

use super::super::{add, add_or_sub, extend, konst, mux, nonzero, sub, Bits};
use super::round::{normalize, round_pack, shr_sticky, Shifts};
use super::{Fmt, Parts};
use crate::types::Scalar;

/// A value of C arithmetic type `from` as type `to`, one of them at least
/// floating: between formats, from integers, to integers, and to `_Bool`
/// (whether the value is nonzero: `-0` is not, a NaN is).
pub fn convert(b: &mut Builder, x: &[Bit], from: Scalar, to: Scalar) -> Bits {
    let fmt = |s: Scalar| Fmt::of_width(s.width);
    match (from.float, to.float) {
        (true, true) => resize(b, fmt(from), fmt(to), x),
        (false, true) => from_int(b, fmt(to), x, from.signed && from.width > 1),
        (true, false) if to.width == 1 => vec![nonzero(b, &x[..x.len() - 1])],
        (true, false) => to_int(b, fmt(from), x, to.width as usize, to.signed),
        (false, false) => x.to_vec(),
    }
}

/// An integer of `x.len()` bits (signed or not) as the nearest value of
/// the format (ties to even), as `cvtsi2sd` and gcc's unsigned sequences
/// give it.
pub fn from_int(b: &mut Builder, fmt: Fmt, x: &[Bit], signed: bool) -> Bits {
    let n = x.len();
    let sign = if signed { x[n - 1] } else { Bit::Const(false) };
    let mag = add_or_sub(b, &konst(0, n), x, sign);
    let mut sig = konst(0, (fmt.frac + 3).saturating_sub(n));
    sig.extend(mag);
    let ew = fmt.exp + 2;
    let exp = konst((fmt.bias() + n as i64 - 1) as u64, ew);
    let shifts = Shifts {
        left: true,
        right: false,
    };
    round_pack(b, fmt, sign, &exp, &sig, Bit::Const(false), shifts)
}

/// A value of format `from` in format `to`: exact when `to` is wider,
/// rounded (to a subnormal, zero or infinity where need be) when narrower.
/// A NaN keeps its sign and the top of its payload, quietened.
pub fn resize(b: &mut Builder, from: Fmt, to: Fmt, x: &[Bit]) -> Bits {
    if from == to {
        return x.to_vec();
    }
    let p = Parts::of(b, from, x);
    let sig = p.sig(b);
    let exp = p.exp_eff(b);
    let ew = from.exp.max(to.exp) + 2;
    let rebias = |b: &mut Builder, e: &[Bit]| {
        let e = add(b, e, &konst(to.bias() as u64, ew));
        sub(b, &e, &konst(from.bias() as u64, ew))
    };
    // Infinities and NaNs: the fraction's top bits, quietened for a NaN.
    let mut special: Bits = if to.frac >= from.frac {
        let mut v = konst(0, to.frac - from.frac);
        v.extend_from_slice(&p.frac);
        v
    } else {
        p.frac[from.frac - to.frac..].to_vec()
    };
    special[to.frac - 1] = b.or(special[to.frac - 1], p.nan);
    special.extend(konst(to.exp_max(), to.exp));
    special.push(p.sign);
    let normal = if to.frac > from.frac {
        let (s, e) = normalize(b, &sig, &exp, ew);
        let field = rebias(b, &e);
        let mut v = konst(0, to.frac - from.frac);
        v.extend_from_slice(&s[..from.frac]);
        v.extend_from_slice(&field[..to.exp]);
        v.push(p.sign);
        mux(b, p.zero, &to.zero(p.sign), &v)
    } else {
        let e = rebias(b, &extend(&exp, ew, false));
        let shifts = Shifts {
            left: false,
            right: true,
        };
        round_pack(b, to, p.sign, &e, &sig, Bit::Const(false), shifts)
    };
    let non_finite = b.or(p.nan, p.inf);
    mux(b, non_finite, &special, &normal)
}

/// `floor(|x|)` as `m` bits and whether it is below `2^m` (false for
/// infinities and NaNs).
fn trunc_mag(b: &mut Builder, fmt: Fmt, x: &[Bit], m: usize) -> (Bits, Bit) {
    let p = Parts::of(b, fmt, x);
    let f = fmt.frac;
    // The significand scaled so that shifting right by bias + m - 1 - E
    // leaves the integer part in bits f.. of the word.
    let mut w = konst(0, m - 1);
    w.extend(p.sig(b));
    let ew = fmt.exp + 2;
    let limit = konst((fmt.bias() + m as i64 - 1) as u64, ew);
    let r = sub(b, &limit, &extend(&p.exp, ew, false));
    let fits = b.not(r[ew - 1]);
    let (shifted, _) = shr_sticky(b, &w, &r);
    (shifted[f..f + m].to_vec(), fits)
}

/// `x` converted to an `n`-bit signed integer by `cvttsd2si`/`cvttss2si`:
/// truncated, the "integer indefinite" `1 << (n-1)` when out of range or NaN.
fn cvtt(b: &mut Builder, fmt: Fmt, x: &[Bit], n: usize) -> Bits {
    let (mag, fits) = trunc_mag(b, fmt, x, n - 1);
    let v = add_or_sub(b, &konst(0, n), &extend(&mag, n, false), x[x.len() - 1]);
    mux(b, fits, &v, &konst(1 << (n - 1), n))
}

/// `x` converted to a C integer type of `bits` bits (C truncation toward
/// zero), bit for bit as gcc's x86-64 code does it: types narrower than
/// `int` and `int` itself through the 32-bit `cvtt`, `unsigned` and `long`
/// through the 64-bit one (each keeping the low bits), `unsigned long`
/// through the 64-bit one below `2^63` and the magnitude at or above it.
/// Out of range, `int` and `long` give `INT_MIN`/`LONG_MIN` (SSE's integer
/// indefinite), narrower types its low bits (0), `unsigned` the low 32
/// bits of the 64-bit conversion, `unsigned long` 0 for values at or above
/// `2^64` and `LONG_MIN` for NaN and values at or below `-2^63`.
pub fn to_int(b: &mut Builder, fmt: Fmt, x: &[Bit], bits: usize, signed: bool) -> Bits {
    if bits > 64 {
        // A 128-bit integer, through libgcc's `__fixdfti`/`__fixunsdfti`
        // (and the `sf` ones): the magnitude's 128 bits, negated for a
        // negative value (so `-2^127` is `INT128_MIN`, and a signed
        // magnitude from `2^127` on wraps as libgcc's does); from `2^128`
        // on (undefined in C) 0 here.
        let (mag, fits) = trunc_mag(b, fmt, x, bits);
        let sign = x[x.len() - 1];
        let (sign, ok) = match signed {
            true => (sign, fits),
            false => {
                let positive = b.not(sign);
                (Bit::Const(false), b.and(fits, positive))
            }
        };
        let v = add_or_sub(b, &konst(0, bits), &extend(&mag, bits, false), sign);
        return mux(b, ok, &v, &konst(0, bits));
    }
    if bits == 64 && !signed {
        let (mag, fits) = trunc_mag(b, fmt, x, 64);
        let p = Parts::of(b, fmt, x);
        let indefinite = konst(1 << 63, 64);
        let small = {
            let t = b.not(mag[63]);
            b.and(fits, t)
        };
        let neg = add_or_sub(b, &konst(0, 64), &mag, Bit::Const(true));
        let negative = mux(b, small, &neg, &indefinite);
        let positive = mux(b, fits, &mag, &konst(0, 64));
        let v = mux(b, p.sign, &negative, &positive);
        return mux(b, p.nan, &indefinite, &v);
    }
    let n = if bits == 64 || (bits == 32 && !signed) {
        64
    } else {
        32
    };
    cvtt(b, fmt, x, n)[..bits].to_vec()
}
