//! Comparisons (IEEE: unordered with a NaN, `-0 == +0`) and `fmin`/`fmax`.

use twofold_circuit::{Bit, Builder};

use super::super::{mux, Bits};
use super::{nan_of, Fmt, Parts};

/// The operands' classes and the order of their bit patterns read as
/// sign-magnitude numbers: `key(x) < key(y)`.
struct Order {
    px: Parts,
    py: Parts,
}

impl Order {
    fn of(b: &mut Builder, fmt: Fmt, x: &[Bit], y: &[Bit]) -> Order {
        Order {
            px: Parts::of(b, fmt, x),
            py: Parts::of(b, fmt, y),
        }
    }

    /// Neither operand is a NaN.
    fn ordered(&self, b: &mut Builder) -> Bit {
        let u = b.or(self.px.nan, self.py.nan);
        b.not(u)
    }

    fn both_zero(&self, b: &mut Builder) -> Bit {
        b.and(self.px.zero, self.py.zero)
    }
}

/// A pattern whose unsigned order is the numeric order (for non-NaNs; -0
/// comes just below +0): the magnitude with the sign bit set for a
/// positive number, all bits flipped for a negative one.
fn key(b: &mut Builder, x: &[Bit]) -> Bits {
    let n = x.len();
    let s = x[n - 1];
    let mut k: Bits = x[..n - 1].iter().map(|&p| b.xor(p, s)).collect();
    k.push(b.not(s));
    k
}

/// `key(x) < key(y)`.
fn below(b: &mut Builder, x: &[Bit], y: &[Bit]) -> Bit {
    let (kx, ky) = (key(b, x), key(b, y));
    super::super::less(b, &kx, &ky, false)
}

/// Either operand is a NaN.
pub fn unordered(b: &mut Builder, fmt: Fmt, x: &[Bit], y: &[Bit]) -> Bit {
    let o = Order::of(b, fmt, x, y);
    let ord = o.ordered(b);
    b.not(ord)
}

/// `x < y`.
pub fn less(b: &mut Builder, fmt: Fmt, x: &[Bit], y: &[Bit]) -> Bit {
    let o = Order::of(b, fmt, x, y);
    ordered_less(b, &o, x, y, false)
}

/// `x <= y`.
pub fn less_equal(b: &mut Builder, fmt: Fmt, x: &[Bit], y: &[Bit]) -> Bit {
    let o = Order::of(b, fmt, x, y);
    ordered_less(b, &o, x, y, true)
}

/// `x < y`, or `x <= y` if `or_equal`: false with a NaN, `-0` and `+0`
/// equal, else the order of the keys.
fn ordered_less(b: &mut Builder, o: &Order, x: &[Bit], y: &[Bit], or_equal: bool) -> Bit {
    let zeros = o.both_zero(b);
    let v = if or_equal {
        let gt = below(b, y, x);
        let le = b.not(gt);
        b.or(le, zeros)
    } else {
        let lt = below(b, x, y);
        let apart = b.not(zeros);
        b.and(lt, apart)
    };
    let ord = o.ordered(b);
    b.and(v, ord)
}

/// `x == y`.
pub fn equal(b: &mut Builder, fmt: Fmt, x: &[Bit], y: &[Bit]) -> Bit {
    let o = Order::of(b, fmt, x, y);
    let same = super::super::equal(b, x, y);
    let zeros = o.both_zero(b);
    let eq = b.or(same, zeros);
    let ord = o.ordered(b);
    b.and(eq, ord)
}

/// `fmin(x, y)` as glibc computes it (`x <= y ? x : y`, so `fmin(+0, -0)`
/// is `+0`): a NaN operand gives the other one, unless it is signalling or
/// both are NaNs, which give the first NaN quietened (`x + y`).
pub fn min(b: &mut Builder, fmt: Fmt, x: &[Bit], y: &[Bit]) -> Bits {
    pick(b, fmt, x, y, false)
}

/// `fmax(x, y)` as glibc computes it (`x >= y ? x : y`); NaNs as for
/// [`min`].
pub fn max(b: &mut Builder, fmt: Fmt, x: &[Bit], y: &[Bit]) -> Bits {
    pick(b, fmt, x, y, true)
}

fn pick(b: &mut Builder, fmt: Fmt, x: &[Bit], y: &[Bit], greater: bool) -> Bits {
    let o = Order::of(b, fmt, x, y);
    let take_x = if greater {
        ordered_less(b, &o, y, x, true)
    } else {
        ordered_less(b, &o, x, y, true)
    };
    let v = mux(b, take_x, x, y);
    let v = mux(b, o.py.nan, x, &v);
    let signalling = |b: &mut Builder, p: &Parts, v: &[Bit]| {
        let q = b.not(v[fmt.frac - 1]);
        b.and(p.nan, q)
    };
    let sx = signalling(b, &o.px, x);
    let sy = signalling(b, &o.py, y);
    let both = b.and(o.px.nan, o.py.nan);
    let t = b.or(sx, sy);
    let keep_nan = b.or(t, both);
    let (nan, _) = nan_of(b, fmt, x, &o.px, y, &o.py);
    mux(b, keep_nan, &nan, &v)
}
