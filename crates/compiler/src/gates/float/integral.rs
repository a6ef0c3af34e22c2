//! Rounding to an integral value: `floor`, `ceil`, `trunc`, `round`.

use twofold_circuit::{Bit, Builder};

use super::super::{add, extend, konst, less, mux, sub, xor, Bits};
use super::round::shr_sticky;
use super::{quiet, Fmt, Parts};

/// Which integral value [`integral`] rounds to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// Toward minus infinity (`floor`).
    Floor,
    /// Toward plus infinity (`ceil`).
    Ceil,
    /// Toward zero (`trunc`).
    Trunc,
    /// To nearest, halves away from zero (`round`).
    Round,
}

/// `x` rounded to an integral value as `how` says (the sign is kept, so
/// `ceil(-0.5)` is `-0`; a NaN is quietened). The bits below the binary
/// point are a mask read off the exponent; the magnitude, read as an
/// integer, is moved up by the mask (or its top bit, for `round`) and the
/// mask cleared: a carry runs into the exponent by itself.
pub fn integral(b: &mut Builder, fmt: Fmt, x: &[Bit], how: Rounding) -> Bits {
    let p = Parts::of(b, fmt, x);
    let (f, n) = (fmt.frac, fmt.width() - 1);
    let ew = fmt.exp + 2;
    let bias = fmt.bias() as u64;
    let point = sub(b, &extend(&p.exp, ew, false), &konst(bias, ew));
    let (mask, _) = shr_sticky(b, &konst(u64::MAX, f), &point);
    let mask = extend(&mask, n, false);
    let mag = &x[..n];
    let step: Bits = match how {
        Rounding::Trunc => konst(0, n),
        Rounding::Round => {
            let mut lower = mask[1..].to_vec();
            lower.push(Bit::Const(false));
            xor(b, &mask, &lower)
        }
        Rounding::Floor | Rounding::Ceil => {
            let up = if how == Rounding::Floor {
                p.sign
            } else {
                b.not(p.sign)
            };
            mask.iter().map(|&k| b.and(k, up)).collect()
        }
    };
    let moved = add(b, mag, &step);
    let mut v: Bits = moved
        .iter()
        .zip(&mask)
        .map(|(&m, &k)| {
            let keep = b.not(k);
            b.and(m, keep)
        })
        .collect();
    v.push(p.sign);
    // Below one: zero or one, by the rule.
    let below_one = less(b, &p.exp, &konst(bias, fmt.exp), false);
    let one_if = match how {
        Rounding::Trunc => Bit::Const(false),
        Rounding::Round => super::super::equal(b, &p.exp, &konst(bias - 1, fmt.exp)),
        Rounding::Floor | Rounding::Ceil => {
            let nz = b.not(p.zero);
            let toward = if how == Rounding::Floor {
                p.sign
            } else {
                b.not(p.sign)
            };
            b.and(nz, toward)
        }
    };
    let mut one = konst(bias << f, n);
    one.push(p.sign);
    let small = mux(b, one_if, &one, &fmt.zero(p.sign));
    let v = mux(b, below_one, &small, &v);
    mux(b, p.nan, &quiet(fmt, x), &v)
}
