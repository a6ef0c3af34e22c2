//! IEEE-754 binary floating point (binary32 and binary64) over [`Bit`]s,
//! bit-exact with x86-64 SSE as gcc uses it (`-O0 -ffp-contract=off`).
//!
//! Every operation is generic over the format ([`Fmt`]): `float` and
//! `double` share one code. Results are rounded to nearest, ties to even;
//! subnormals are kept. NaN results follow SSE: an operation with a NaN
//! operand returns the first NaN operand quietened, an invalid operation
//! (`inf - inf`, `0 * inf`, `0 / 0`, `sqrt(-1)`) the default NaN (sign set,
//! quiet bit set, payload zero). The building blocks are those of the
//! integer operations (adders, comparators, shifters), so public operands
//! fold and structural hashing shares work.

mod add;
mod compare;
mod convert;
mod integral;
mod muldiv;
mod round;
mod sqrt;

use twofold_circuit::{Bit, Builder};

use super::{konst, nonzero, Bits};

pub use add::add;
pub use compare::{equal, less, less_equal, max, min, unordered};
pub use convert::{convert, from_int, resize, to_int};
pub use integral::{integral, Rounding};
pub use muldiv::{div, mul};
pub use sqrt::sqrt;

/// A binary floating-point format: exponent and fraction widths.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fmt {
    /// Exponent bits.
    pub exp: usize,
    /// Fraction bits (the significand without its hidden bit).
    pub frac: usize,
}

impl Fmt {
    /// IEEE-754 binary32 (`float`).
    pub const F32: Fmt = Fmt { exp: 8, frac: 23 };
    /// IEEE-754 binary64 (`double`).
    pub const F64: Fmt = Fmt { exp: 11, frac: 52 };

    /// The format of `bits` wide values (32 or 64).
    pub fn of_width(bits: u32) -> Fmt {
        if bits == 32 {
            Fmt::F32
        } else {
            Fmt::F64
        }
    }

    /// Total width in bits.
    pub fn width(self) -> usize {
        1 + self.exp + self.frac
    }

    /// The exponent bias.
    pub fn bias(self) -> i64 {
        (1 << (self.exp - 1)) - 1
    }

    /// The largest exponent field (infinities and NaNs).
    fn exp_max(self) -> u64 {
        (1 << self.exp) - 1
    }

    /// Positive infinity's bit pattern.
    pub fn infinity(self) -> u64 {
        self.exp_max() << self.frac
    }

    /// The positive quiet NaN with payload zero (C's `NAN`).
    pub fn quiet_nan(self) -> u64 {
        self.infinity() | 1 << (self.frac - 1)
    }

    /// The default NaN of SSE: sign and quiet bit set, payload zero.
    pub fn default_nan(self) -> u64 {
        (1 << (self.width() - 1)) | self.quiet_nan()
    }

    /// Infinity with sign `sign`.
    fn inf(self, sign: Bit) -> Bits {
        let mut v = konst(self.infinity(), self.width());
        v[self.width() - 1] = sign;
        v
    }

    /// Zero with sign `sign`.
    fn zero(self, sign: Bit) -> Bits {
        let mut v = konst(0, self.width());
        v[self.width() - 1] = sign;
        v
    }
}

/// The fields and classes of one operand.
struct Parts {
    sign: Bit,
    /// The exponent field.
    exp: Bits,
    /// The fraction field.
    frac: Bits,
    /// The exponent field is zero (zero or subnormal).
    exp_zero: Bit,
    nan: Bit,
    inf: Bit,
    zero: Bit,
}

impl Parts {
    fn of(b: &mut Builder, fmt: Fmt, x: &[Bit]) -> Parts {
        let frac = x[..fmt.frac].to_vec();
        let exp = x[fmt.frac..fmt.frac + fmt.exp].to_vec();
        let exp_nz = nonzero(b, &exp);
        let exp_zero = b.not(exp_nz);
        let exp_max = all(b, &exp);
        let frac_nz = nonzero(b, &frac);
        let frac_zero = b.not(frac_nz);
        Parts {
            sign: x[fmt.width() - 1],
            nan: b.and(exp_max, frac_nz),
            inf: b.and(exp_max, frac_zero),
            zero: b.and(exp_zero, frac_zero),
            exp,
            frac,
            exp_zero,
        }
    }

    /// The significand with its hidden bit (`frac + 1` bits).
    fn sig(&self, b: &mut Builder) -> Bits {
        let mut s = self.frac.clone();
        let hidden = b.not(self.exp_zero);
        s.push(hidden);
        s
    }

    /// The exponent a subnormal really has: the field, 1 where it is 0.
    fn exp_eff(&self, b: &mut Builder) -> Bits {
        let mut e = self.exp.clone();
        e[0] = b.or(e[0], self.exp_zero);
        e
    }
}

/// The AND of all bits of `x`.
fn all(b: &mut Builder, x: &[Bit]) -> Bit {
    let inv: Bits = x.iter().map(|&p| b.not(p)).collect();
    let any = nonzero(b, &inv);
    b.not(any)
}

/// `x` with its quiet bit set.
fn quiet(fmt: Fmt, x: &[Bit]) -> Bits {
    let mut v = x.to_vec();
    v[fmt.frac - 1] = Bit::Const(true);
    v
}

/// The NaN result of a binary operation if either operand is a NaN: the
/// first NaN operand, quietened (SSE's rule), and whether there is one.
fn nan_of(b: &mut Builder, fmt: Fmt, x: &[Bit], px: &Parts, y: &[Bit], py: &Parts) -> (Bits, Bit) {
    let v = super::mux(b, px.nan, &quiet(fmt, x), &quiet(fmt, y));
    (v, b.or(px.nan, py.nan))
}

#[cfg(test)]
mod tests;
