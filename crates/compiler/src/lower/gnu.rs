//! GCC's integer built-ins, as gcc computes them on x86-64:
//! `__builtin_popcount`, `__builtin_parity`, `__builtin_ctz`,
//! `__builtin_clz`, `__builtin_ffs`, `__builtin_clrsb` (each also with the
//! `l` and `ll` suffixes, on 64-bit operands), `__builtin_bswap16/32/64`,
//! `__builtin_add_overflow`, `__builtin_sub_overflow`,
//! `__builtin_mul_overflow`, `__builtin_expect` and
//! `__builtin_unreachable` (which, as reaching it is undefined, does
//! nothing). `ctz` and `clz` of zero, which gcc leaves undefined, are the
//! operand's width here.

use super::*;
use crate::range::Range;

/// What a built-in on the bits of one integer computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BitCount {
    Popcount,
    Parity,
    Ctz,
    Clz,
    Ffs,
    Clrsb,
}

/// The arithmetic of an overflow built-in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Checked {
    Add,
    Sub,
    Mul,
}

/// A GCC built-in this module computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Builtin {
    /// An `int` from the bits of an operand of this type.
    Count(BitCount, Scalar),
    /// The operand (of this type) with its bytes reversed.
    Bswap(Scalar),
    /// Whether the exact result overflowed the type it is stored in.
    Overflow(Checked),
    /// Its first argument, as a `long`.
    Expect,
    /// Nothing (`void`): a program that reaches it has no defined result.
    Unreachable,
}

/// Sums (`gates::Sum`) track their ranges in 128-bit integers: wider
/// products are made by [`wide_product`].
const MAX_SUM_BITS: usize = 120;

/// `long`, the type of `__builtin_expect`.
const LONG: Scalar = Scalar::int(64, true);

/// The built-in `name` stands for, if it is one.
fn builtin(name: &str) -> Option<Builtin> {
    let rest = name.strip_prefix("__builtin_")?;
    match rest {
        "bswap16" => return Some(Builtin::Bswap(Scalar::int(16, false))),
        "bswap32" => return Some(Builtin::Bswap(Scalar::int(32, false))),
        "bswap64" => return Some(Builtin::Bswap(Scalar::int(64, false))),
        "add_overflow" => return Some(Builtin::Overflow(Checked::Add)),
        "sub_overflow" => return Some(Builtin::Overflow(Checked::Sub)),
        "mul_overflow" => return Some(Builtin::Overflow(Checked::Mul)),
        "expect" => return Some(Builtin::Expect),
        "unreachable" => return Some(Builtin::Unreachable),
        _ => {}
    }
    let (base, width) = match rest.strip_suffix("ll").or_else(|| rest.strip_suffix('l')) {
        Some(base) => (base, 64),
        None => (rest, 32),
    };
    let (count, signed) = match base {
        "popcount" => (BitCount::Popcount, false),
        "parity" => (BitCount::Parity, false),
        "ctz" => (BitCount::Ctz, false),
        "clz" => (BitCount::Clz, false),
        "ffs" => (BitCount::Ffs, true),
        "clrsb" => (BitCount::Clrsb, true),
        _ => return None,
    };
    Some(Builtin::Count(count, Scalar::int(width, signed)))
}

/// Whether `name` is one of these built-ins that writes nothing (all but
/// the overflow built-ins, which store through a pointer).
pub(crate) fn is_pure_builtin(name: &str) -> bool {
    builtin(name).is_some_and(|b| !matches!(b, Builtin::Overflow(_)))
}

/// The type a call of the built-in `name` has, if it is one.
pub(super) fn return_type(name: &str) -> Option<CType> {
    Some(match builtin(name)? {
        Builtin::Count(..) => CType::INT,
        Builtin::Bswap(t) => t.ctype(),
        Builtin::Overflow(_) => CType::Bool,
        Builtin::Expect => LONG.ctype(),
        Builtin::Unreachable => CType::Void,
    })
}

impl Lower<'_> {
    /// A call of the built-in `name`, if it is one of these.
    pub(super) fn gnu_builtin(
        &mut self,
        name: &str,
        args: &[Expr],
        loc: Loc,
    ) -> Option<DResult<Val>> {
        let b = builtin(name)?;
        let want = match b {
            Builtin::Count(..) | Builtin::Bswap(_) => 1,
            Builtin::Overflow(_) => 3,
            Builtin::Expect => 2,
            Builtin::Unreachable => 0,
        };
        if args.len() != want {
            let s = match want {
                1 => "",
                _ => "s",
            };
            return Some(err(loc, format!("'{name}' takes {want} argument{s}")));
        }
        Some(match b {
            Builtin::Count(count, t) => self.integer_arg(name, &args[0], t).map(|x| {
                let (bits, r) = self.count_bits(count, &x);
                Val::Int(Scalar::INT, Word::from_bits_ranged(bits, r))
            }),
            Builtin::Bswap(t) => self.integer_arg(name, &args[0], t).map(|x| {
                let bytes: Bits = x.chunks(8).rev().flatten().copied().collect();
                Val::Int(t, Word::from_bits(bytes))
            }),
            Builtin::Overflow(op) => self.overflow_builtin(name, op, args, loc),
            Builtin::Expect => {
                let v = self.integer_arg(name, &args[0], LONG);
                // The expected value is evaluated too (its side effects).
                v.and_then(|v| {
                    self.integer_arg(name, &args[1], LONG)?;
                    Ok(Val::Int(LONG, Word::from_bits(v)))
                })
            }
            Builtin::Unreachable => Ok(Val::Void),
        })
    }

    /// The bits of argument `a` of `name`, converted to `t`.
    fn integer_arg(&mut self, name: &str, a: &Expr, t: Scalar) -> DResult<Bits> {
        let v = self.eval(a)?;
        if !matches!(&v, Val::Int(s, _) if !s.float) {
            return err(a.loc, format!("argument of '{name}' is not an integer"));
        }
        match self.convert(v, &t.ctype(), a.loc)? {
            Val::Int(_, w) => Ok(w.bits(&mut self.b)),
            _ => err(a.loc, format!("argument of '{name}' is not an integer")),
        }
    }

    /// `count` of the bits `x`, as a 32-bit `int`, and its range.
    fn count_bits(&mut self, count: BitCount, x: &[Bit]) -> (Bits, Range) {
        let b = &mut self.b;
        let n = x.len() as u64;
        match count {
            BitCount::Popcount => gates::popcount(b, x, 32),
            BitCount::Parity => {
                let p = x.iter().fold(Bit::Const(false), |p, &bit| b.xor(p, bit));
                let mut bits = gates::konst(0, 32);
                bits[0] = p;
                (bits, Range::new(0, 1))
            }
            // Zero's, which gcc leaves undefined, is the width.
            BitCount::Ctz => gates::first_set(b, x.iter().copied(), 0, n, 32),
            BitCount::Clz => gates::first_set(b, x.iter().rev().copied(), 0, n, 32),
            // One more than the trailing zeros, or 0 for zero.
            BitCount::Ffs => gates::first_set(b, x.iter().copied(), 1, 0, 32),
            BitCount::Clrsb => {
                // The bits below the sign that equal it, from the top.
                let (&sign, below) = x.split_last().expect("an operand has bits");
                let differs: Bits = below.iter().map(|&bit| b.xor(bit, sign)).collect();
                gates::first_set(b, differs.into_iter().rev(), 0, n - 1, 32)
            }
        }
    }

    /// `__builtin_{add,sub,mul}_overflow(a, b, res)`: `*res` takes the
    /// exact result wrapped to its type; the call is whether that changed
    /// it. The exact result is computed wide enough to hold it.
    fn overflow_builtin(
        &mut self,
        name: &str,
        op: Checked,
        args: &[Expr],
        loc: Loc,
    ) -> DResult<Val> {
        let operand = |me: &mut Self, a: &Expr| -> DResult<(Bits, Scalar)> {
            match me.eval(a)? {
                Val::Int(s, w) if !s.float => {
                    let s = if s.width == 1 {
                        Scalar::int(1, false)
                    } else {
                        s
                    };
                    Ok((w.bits(&mut me.b), s))
                }
                _ => err(a.loc, format!("argument of '{name}' is not an integer")),
            }
        };
        let (x, sx) = operand(self, &args[0])?;
        let (y, sy) = operand(self, &args[1])?;
        let target = Expr {
            kind: ExprKind::Unary(UnOp::Deref, Box::new(args[2].clone())),
            loc: args[2].loc,
        };
        let place = self.place(&target)?;
        let to = match place.ty {
            CType::Int { bits, signed } if bits > 1 => Scalar::int(bits, signed),
            _ => {
                return err(
                    args[2].loc,
                    format!("the third argument of '{name}' must point to an integer (not _Bool)"),
                )
            }
        };
        // Wide enough for every exact result and every value of `to`, each
        // as a signed integer.
        let exact_bits = |s: Scalar| s.width + u32::from(!s.signed);
        let (bx, by) = (exact_bits(sx), exact_bits(sy));
        let w = match op {
            Checked::Add | Checked::Sub => bx.max(by) + 1,
            Checked::Mul => bx + by,
        }
        .max(exact_bits(to)) as usize;
        let (x, y) = (
            gates::extend(&x, w, sx.signed),
            gates::extend(&y, w, sy.signed),
        );
        let b = &mut self.b;
        let exact = match op {
            Checked::Add => gates::add(b, &x, &y),
            Checked::Sub => gates::sub(b, &x, &y),
            Checked::Mul if w <= MAX_SUM_BITS => gates::mul(b, &x, &y),
            Checked::Mul => wide_product(b, &x, &y),
        };
        let stored = exact[..to.width as usize].to_vec();
        let same = gates::equal(b, &exact, &gates::extend(&stored, w, to.signed));
        let overflow = b.not(same);
        self.write(&place, Val::Int(to, Word::from_bits(stored)), loc)?;
        Ok(Self::bool_val(overflow))
    }
}

/// `x · y` modulo `2^w` (`w` the operands' width) for words too wide for
/// `gates::mul`: shifted rows of partial products added by ripple-carry
/// adders (about `w²` AND gates).
fn wide_product(b: &mut Builder, x: &[Bit], y: &[Bit]) -> Bits {
    let w = x.len();
    let mut acc = gates::konst(0, w);
    for (j, &yj) in y.iter().enumerate() {
        if yj == Bit::Const(false) {
            continue;
        }
        let mut carry = Bit::Const(false);
        for i in j..w {
            let partial = b.and(x[i - j], yj);
            (acc[i], carry) = gates::full_adder(b, acc[i], partial, carry);
        }
    }
    acc
}
