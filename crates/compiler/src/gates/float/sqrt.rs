//! Square root.

use twofold_circuit::{Bit, Builder};

use super::super::{add, add_or_sub, extend, konst, mux, nonzero, sub, Bits};
use super::round::{normalize, round_pack, Shifts};
use super::{quiet, Fmt, Parts};

/// `sqrt(x)`, correctly rounded: the integer square root of the
/// significand by the non-restoring method (one adder a root bit, each as
/// wide as the root so far), the remainder giving the sticky bit.
pub fn sqrt(b: &mut Builder, fmt: Fmt, x: &[Bit]) -> Bits {
    let p = Parts::of(b, fmt, x);
    let f = fmt.frac;
    let sig = p.sig(b);
    let exp = p.exp_eff(b);
    let (s, e) = normalize(b, &sig, &exp, fmt.exp + 3);
    let ew = e.len();
    let unbiased = sub(b, &e, &konst(fmt.bias() as u64, ew));
    let odd = unbiased[0];
    // The significand, doubled for an odd exponent, then f + 2 zeros.
    let n = f + 2;
    let mut doubled = vec![Bit::Const(false)];
    doubled.extend_from_slice(&s);
    let m = mux(b, odd, &doubled, &extend(&s, n, false));
    let mut radicand = konst(0, n);
    radicand.extend(m);
    let (root, rem) = isqrt(b, &radicand);
    let mut sig = vec![nonzero(b, &rem)];
    sig.extend(root);
    let mut half = unbiased[1..].to_vec();
    half.push(unbiased[ew - 1]);
    let exp = add(b, &half, &konst(fmt.bias() as u64, ew));
    let shifts = Shifts {
        left: false,
        right: false,
    };
    let normal = round_pack(
        b,
        fmt,
        Bit::Const(false),
        &exp,
        &sig,
        Bit::Const(false),
        shifts,
    );
    let nonzero_neg = {
        let nz = b.not(p.zero);
        b.and(p.sign, nz)
    };
    let same = b.or(p.zero, p.inf);
    let v = mux(b, same, x, &normal);
    let v = mux(b, nonzero_neg, &konst(fmt.default_nan(), fmt.width()), &v);
    mux(b, p.nan, &quiet(fmt, x), &v)
}

/// The integer square root of `x` (an even number of bits) and a word that
/// is zero exactly when the root is exact.
fn isqrt(b: &mut Builder, x: &[Bit]) -> (Bits, Bits) {
    let n = x.len() / 2;
    let mut r: Bits = Vec::new();
    let mut q: Bits = Vec::new();
    for step in 0..n {
        let i = n - 1 - step;
        let w = (step + 5).min(n + 3);
        let neg = r.last().copied().unwrap_or(Bit::Const(false));
        let mut shifted = vec![x[2 * i], x[2 * i + 1]];
        shifted.extend(extend(&r, w - 2, true));
        // Subtract 4q + 1 after a remainder >= 0, else add 4q + 3.
        let mut t = vec![Bit::Const(true), neg];
        t.extend_from_slice(&q);
        let subtract = b.not(neg);
        r = add_or_sub(b, &shifted, &extend(&t, w, false), subtract);
        q.insert(0, b.not(r[w - 1]));
    }
    let w = r.len();
    let mut t = vec![Bit::Const(true)];
    t.extend_from_slice(&q);
    let fix: Bits = extend(&t, w, false)
        .iter()
        .map(|&p| b.and(p, r[w - 1]))
        .collect();
    let rem = add(b, &r, &fix);
    (q, rem)
}
