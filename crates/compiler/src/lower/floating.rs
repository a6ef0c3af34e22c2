//! Floating-point operators and the `<math.h>` functions, on words that
//! hold IEEE-754 bit patterns (see [`crate::gates::float`]).

use super::*;
use crate::gates::float::{self, Fmt, Rounding};

/// The `<math.h>` functions built in: their name without the `f` suffix.
const MATH: &[&str] = &[
    "sqrt", "fabs", "floor", "ceil", "trunc", "round", "fmin", "fmax", "copysign",
];

/// The `<math.h>` functions not built in: their name without the `f` (or
/// `l`) suffix.
const MATH_MISSING: &[&str] = &[
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "logb",
    "pow",
    "cbrt",
    "hypot",
    "fmod",
    "remainder",
    "remquo",
    "fma",
    "fdim",
    "rint",
    "nearbyint",
    "lrint",
    "llrint",
    "lround",
    "llround",
    "frexp",
    "ldexp",
    "scalbn",
    "modf",
    "ilogb",
    "erf",
    "erfc",
    "tgamma",
    "lgamma",
    "nextafter",
];

/// Why `name` cannot be called, if it is a `<math.h>` function twofold
/// does not build in (or a `long double` form of one it does).
pub(super) fn missing_math(name: &str) -> Option<String> {
    let is = |m: &&str| {
        name.strip_prefix(*m)
            .is_some_and(|s| matches!(s, "" | "f" | "l"))
    };
    let long = |m: &&str| name.strip_prefix(*m) == Some("l");
    (MATH_MISSING.iter().any(is) || MATH.iter().any(long)).then(|| {
        format!(
            "a <math.h> function twofold does not provide (it provides {} and their float forms, such as sqrtf)",
            MATH.join(", ")
        )
    })
}

/// A built-in `<math.h>` function (also as GCC's `__builtin_sqrt`...) or
/// constant: its base name and the width of its `float` (32) or `double`
/// (64) operands.
pub(super) fn math_function(name: &str) -> Option<(&'static str, u32)> {
    match name {
        "__builtin_inff" | "__builtin_huge_valf" => return Some(("inf", 32)),
        "__builtin_nanf" => return Some(("nan", 32)),
        "__builtin_inf" | "__builtin_huge_val" => return Some(("inf", 64)),
        "__builtin_nan" => return Some(("nan", 64)),
        _ => {}
    }
    let name = name.strip_prefix("__builtin_").unwrap_or(name);
    MATH.iter().find_map(|&m| match name.strip_prefix(m) {
        Some("") => Some((m, 64)),
        Some("f") => Some((m, 32)),
        _ => None,
    })
}

/// Whether gcc's x86-64 code computes the commutative `x op y` (source
/// operands `a`, `b`) as `y op x`, which only shows when both are NaNs
/// (SSE returns the first): a floating `+` or `*` puts constants last and a
/// variable read as it is after any other operand (`s += a[i]` is
/// `a[i] + s`, `v * f` with `f` a `float` is `(double)f * v`).
pub(super) fn sse_swaps(op: BinOp, (a, x): (&Expr, &Val), (b, y): (&Expr, &Val)) -> bool {
    let (Val::Int(s1, _), Val::Int(s2, _)) = (x, y) else {
        return false;
    };
    let t = Scalar::common(*s1, *s2);
    if !t.float || !matches!(op, BinOp::Add | BinOp::Mul) {
        return false;
    }
    let rank = |e: &Expr, s: &Scalar| match &e.kind {
        ExprKind::Float(..) | ExprKind::Int(..) => 2,
        ExprKind::Ident(_) if *s == t => 1,
        _ => 0,
    };
    rank(a, s1) > rank(b, s2)
}

impl Lower<'_> {
    /// `a op b` rewritten as gcc's constant folder does for floating
    /// operands (`-x + y` is `y - x`, `x + -y` is `x - y`, `x - -y` is
    /// `x + y`): the same value, but with two NaN operands the result
    /// carries the other one.
    pub(super) fn sse_fold<'e>(
        &mut self,
        op: BinOp,
        a: &'e Expr,
        b: &'e Expr,
    ) -> (BinOp, &'e Expr, &'e Expr) {
        let negated = |e: &'e Expr| match &e.kind {
            ExprKind::Unary(UnOp::Neg, x) => Some(&**x),
            _ => None,
        };
        let floating = |me: &mut Self, e: &Expr| {
            me.static_type(e)
                .is_ok_and(|t| matches!(t, CType::Float { .. }))
        };
        let (na, nb) = (negated(a), negated(b));
        let rewrite = match op {
            BinOp::Add => na.is_some() || nb.is_some(),
            BinOp::Sub => nb.is_some(),
            _ => false,
        };
        if !rewrite || !(floating(self, a) || floating(self, b)) {
            return (op, a, b);
        }
        match (op, na, nb) {
            (BinOp::Add, Some(x), _) => (BinOp::Sub, b, x),
            (BinOp::Add, None, Some(y)) => (BinOp::Sub, a, y),
            (BinOp::Sub, _, Some(y)) => (BinOp::Add, a, y),
            _ => (op, a, b),
        }
    }

    /// A binary operator with a floating operand: the usual arithmetic
    /// conversions, then the IEEE operation (`+ - * /` and comparisons).
    pub(super) fn float_binop(
        &mut self,
        op: BinOp,
        (s1, w1): (Scalar, Word),
        (s2, w2): (Scalar, Word),
        loc: Loc,
    ) -> DResult<Val> {
        let t = Scalar::common(s1, s2);
        let fmt = Fmt::of_width(t.width);
        let x = w1.convert(&mut self.b, s1, t).bits(&mut self.b);
        let y = w2.convert(&mut self.b, s2, t).bits(&mut self.b);
        let b = &mut self.b;
        let value = |bits: Bits| Ok(Val::Int(t, Word::from_bits(bits)));
        let truth = |bit: Bit| Ok(Self::bool_val(bit));
        match op {
            BinOp::Add | BinOp::Sub => value(float::add(b, fmt, &x, &y, op == BinOp::Sub)),
            BinOp::Mul => value(float::mul(b, fmt, &x, &y)),
            BinOp::Div => value(float::div(b, fmt, &x, &y)),
            BinOp::Lt => truth(float::less(b, fmt, &x, &y)),
            BinOp::Gt => truth(float::less(b, fmt, &y, &x)),
            BinOp::Le => truth(float::less_equal(b, fmt, &x, &y)),
            BinOp::Ge => truth(float::less_equal(b, fmt, &y, &x)),
            BinOp::Eq => truth(float::equal(b, fmt, &x, &y)),
            BinOp::Ne => {
                let e = float::equal(b, fmt, &x, &y);
                truth(b.not(e))
            }
            _ => err(
                loc,
                format!(
                    "invalid operands to a binary operator ({} and {}): an integer operator on a floating value",
                    s1.ctype(),
                    s2.ctype()
                ),
            ),
        }
    }

    /// A unary operator on a floating value (`-` flips the sign bit, NaNs
    /// included, as gcc's `xorpd` does).
    pub(super) fn float_unary(&mut self, op: UnOp, s: Scalar, w: Word, loc: Loc) -> DResult<Val> {
        match op {
            UnOp::Plus => Ok(Val::Int(s, w)),
            UnOp::Neg => {
                let mut bits = w.bits(&mut self.b);
                let top = bits.len() - 1;
                bits[top] = self.b.not(bits[top]);
                Ok(Val::Int(s, Word::from_bits(bits)))
            }
            UnOp::Not => {
                let t = self.float_truth(&w);
                let n = self.b.not(t);
                Ok(Self::bool_val(n))
            }
            _ => err(
                loc,
                format!("wrong type argument ({}) to a unary operator", s.ctype()),
            ),
        }
    }

    /// Whether a floating value is nonzero (`-0` is zero, a NaN is not).
    pub(super) fn float_truth(&mut self, w: &Word) -> Bit {
        let bits = w.bits(&mut self.b);
        gates::nonzero(&mut self.b, &bits[..bits.len() - 1])
    }

    /// A call of a `<math.h>` function `name` (see [`math_function`]).
    pub(super) fn math_builtin(
        &mut self,
        (name, width): (&str, u32),
        args: &[Expr],
        loc: Loc,
    ) -> DResult<Val> {
        let t = Scalar::float(width);
        let fmt = Fmt::of_width(width);
        let arity = match name {
            "inf" | "nan" => 0,
            "fmin" | "fmax" | "copysign" => 2,
            _ => 1,
        };
        let constant =
            name == "nan" && matches!(args, [Expr { kind: ExprKind::Str(s), .. }] if s.is_empty());
        if args.len() != arity && !constant {
            let what = if name == "nan" {
                "one argument, the empty string".to_string()
            } else {
                format!("{arity} argument(s)")
            };
            return err(loc, format!("'{name}' takes {what}"));
        }
        let mut ops = Vec::with_capacity(arity);
        for a in args.iter().take(arity) {
            let v = self.eval(a)?;
            match self.convert(v, &t.ctype(), a.loc)? {
                Val::Int(_, w) => ops.push(w.bits(&mut self.b)),
                _ => return err(a.loc, format!("argument of '{name}' is not a number")),
            }
        }
        let b = &mut self.b;
        let n = fmt.width();
        let bits = match (name, ops.as_slice()) {
            ("inf", _) => gates::konst(fmt.infinity(), n),
            ("nan", _) => gates::konst(fmt.quiet_nan(), n),
            ("sqrt", [x]) => float::sqrt(b, fmt, x),
            ("fabs", [x]) => {
                let mut v = x.clone();
                v[n - 1] = Bit::Const(false);
                v
            }
            ("floor", [x]) => float::integral(b, fmt, x, Rounding::Floor),
            ("ceil", [x]) => float::integral(b, fmt, x, Rounding::Ceil),
            ("trunc", [x]) => float::integral(b, fmt, x, Rounding::Trunc),
            ("round", [x]) => float::integral(b, fmt, x, Rounding::Round),
            ("fmin", [x, y]) => float::min(b, fmt, x, y),
            ("fmax", [x, y]) => float::max(b, fmt, x, y),
            ("copysign", [x, y]) => {
                let mut v = x.clone();
                v[n - 1] = y[n - 1];
                v
            }
            _ => return err(loc, format!("'{name}' is not supported")),
        };
        Ok(Val::Int(t, Word::from_bits(bits)))
    }
}
