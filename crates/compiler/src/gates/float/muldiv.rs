//! Multiplication and division.

use twofold_circuit::{Bit, Builder};

use super::super::{add, add_or_sub, extend, konst, mux, nonzero, sub, Bits};
use super::round::{normalize, normalize1, round_pack, Shifts};
use super::{nan_of, Fmt, Parts};

/// Two operands: their classes, the sign of their product or quotient,
/// and each one's normalised significand (`frac + 1` bits, top bit set
/// unless it is zero) with its exponent (a signed word of `exp + 3` bits).
struct Operands {
    fmt: Fmt,
    px: Parts,
    py: Parts,
    sign: Bit,
    x: (Bits, Bits),
    y: (Bits, Bits),
}

impl Operands {
    fn of(b: &mut Builder, fmt: Fmt, x: &[Bit], y: &[Bit]) -> Operands {
        let px = Parts::of(b, fmt, x);
        let py = Parts::of(b, fmt, y);
        let sign = b.xor(px.sign, py.sign);
        let mut normal = |p: &Parts| {
            let sig = p.sig(b);
            let exp = p.exp_eff(b);
            normalize(b, &sig, &exp, fmt.exp + 3)
        };
        let (x, y) = (normal(&px), normal(&py));
        Operands {
            fmt,
            px,
            py,
            sign,
            x,
            y,
        }
    }

    /// The result: `normal` unless an operand is special, `zero` or `inf`
    /// say the result is a signed zero or infinity, `invalid` the default
    /// NaN; a NaN operand gives the first one, quietened.
    fn result(
        &self,
        b: &mut Builder,
        (x, y): (&[Bit], &[Bit]),
        normal: &[Bit],
        zero: Bit,
        inf: Bit,
        invalid: Bit,
    ) -> Bits {
        let fmt = self.fmt;
        let v = mux(b, zero, &fmt.zero(self.sign), normal);
        let v = mux(b, inf, &fmt.inf(self.sign), &v);
        let v = mux(b, invalid, &konst(fmt.default_nan(), fmt.width()), &v);
        let (nan, is_nan) = nan_of(b, fmt, x, &self.px, y, &self.py);
        mux(b, is_nan, &nan, &v)
    }
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
    let o = Operands::of(b, fmt, x, y);
    let ((sx, ex), (sy, ey)) = (&o.x, &o.y);
    let f = fmt.frac;
    let w = 2 * f + 2;
    let prod = super::super::mul(b, &extend(sx, w, false), &extend(sy, w, false));
    // The top frac + 3 bits, and below them one sticky bit.
    let mut sig = vec![nonzero(b, &prod[..f - 1])];
    sig.extend_from_slice(&prod[f - 1..]);
    let ew = ex.len();
    let sum = add(b, ex, ey);
    let exp = sub(b, &sum, &bias(fmt, ew));
    let exp = add(b, &exp, &konst(1, ew));
    let normal = finish(b, fmt, o.sign, &exp, &sig);
    let zero = b.or(o.px.zero, o.py.zero);
    let inf = b.or(o.px.inf, o.py.inf);
    let invalid = b.and(zero, inf);
    o.result(b, (x, y), &normal, zero, inf, invalid)
}

/// `x / y`: non-restoring division of the significands (one adder a
/// quotient bit), the remainder giving the sticky bit, then one rounding.
pub fn div(b: &mut Builder, fmt: Fmt, x: &[Bit], y: &[Bit]) -> Bits {
    let o = Operands::of(b, fmt, x, y);
    let ((sx, ex), (sy, ey)) = (&o.x, &o.y);
    let f = fmt.frac;
    let m = f + 3;
    let dividend = extend(sx, m, false);
    let divisor = extend(sy, m, false);
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
    let diff = sub(b, ex, ey);
    let exp = add(b, &diff, &bias(fmt, ew));
    let normal = finish(b, fmt, o.sign, &exp, &sig);
    let both_zero = b.and(o.px.zero, o.py.zero);
    let both_inf = b.and(o.px.inf, o.py.inf);
    let invalid = b.or(both_zero, both_inf);
    let to_inf = b.or(o.px.inf, o.py.zero);
    let to_zero = b.or(o.px.zero, o.py.inf);
    o.result(b, (x, y), &normal, to_zero, to_inf, invalid)
}
