//! Evaluating a counter key (see [`super::counter`]) on public integers
//! directly, with C's conversions, instead of lowering it to words: a loop
//! probed each evaluates its keys once an iteration, and lowering a key
//! costs more than applying the iteration's template.
//!
//! The evaluator covers what keys are built from — constants, names,
//! casts, unary and binary operators, `&&`, `||` and `?:` — with the
//! lowering's semantics: the usual arithmetic conversions, wrapping
//! arithmetic, comparisons as 0 or 1. Where the lowering defines a value
//! C leaves undefined (a shift by the width or more, a division by zero,
//! `INT_MIN / -1`) or the expression has another form, it gives `None`
//! and the caller lowers the key instead.

use crate::ast::{BinOp, Expr, ExprKind, TypeExpr, UnOp};
use crate::types::Scalar;

/// A public integer: its type and its value in that type's range.
pub type Public = (Scalar, i128);

/// The value of `e`, reading names through `name`.
pub fn eval(e: &Expr, name: &mut dyn FnMut(&str) -> Option<Public>) -> Option<Public> {
    Some(match &e.kind {
        ExprKind::Int(v, t) => (*t, t.to_i128(*v)),
        ExprKind::Ident(n) => name(n)?,
        ExprKind::Cast(TypeExpr::Known(t), a) => convert(eval(a, name)?, t.scalar()?),
        ExprKind::Unary(op, a) => {
            let (t, v) = eval(a, name)?;
            let p = t.promote();
            match op {
                UnOp::Plus => (p, v),
                UnOp::Neg => wrap(p, v.wrapping_neg()),
                UnOp::BitNot => wrap(p, !v),
                UnOp::Not => boolean(v == 0),
                UnOp::Deref | UnOp::Addr => return None,
            }
        }
        ExprKind::Binary(op, a, b) => binary(*op, eval(a, name)?, eval(b, name)?)?,
        ExprKind::LogAnd(a, b) => boolean(eval(a, name)?.1 != 0 && eval(b, name)?.1 != 0),
        ExprKind::LogOr(a, b) => boolean(eval(a, name)?.1 != 0 || eval(b, name)?.1 != 0),
        ExprKind::Cond(c, a, b) => {
            let c = eval(c, name)?.1 != 0;
            let (x, y) = (eval(a, name)?, eval(b, name)?);
            let t = Scalar::common(x.0, y.0);
            convert(if c { x } else { y }, t)
        }
        _ => return None,
    })
}

/// `v` as a value of type `t` (C's conversion: to `_Bool` by comparing
/// with 0, to others by wrapping).
fn convert((_, v): Public, t: Scalar) -> Public {
    if t.width == 1 {
        boolean(v != 0)
    } else {
        wrap(t, v)
    }
}

/// `v` wrapped into the range of `t`.
fn wrap(t: Scalar, v: i128) -> Public {
    (t, t.to_i128(v as u64))
}

/// A truth value as the lowering gives it.
fn boolean(b: bool) -> Public {
    (Scalar::BOOL, b as i128)
}

/// `x op y` with the usual arithmetic conversions (shifts: the promoted
/// left operand's type).
fn binary(op: BinOp, x: Public, y: Public) -> Option<Public> {
    if let BinOp::Shl | BinOp::Shr = op {
        let t = x.0.promote();
        let amount = u32::try_from(y.1).ok().filter(|&a| a < t.width)?;
        let v = convert(x, t).1;
        return Some(match op {
            BinOp::Shl => wrap(t, v << amount),
            _ if t.signed => (t, v >> amount),
            _ => (t, (v as u64 & t.mask()) as i128 >> amount),
        });
    }
    let t = Scalar::common(x.0, y.0);
    let (a, c) = (convert(x, t).1, convert(y, t).1);
    Some(match op {
        BinOp::Add => wrap(t, a + c),
        BinOp::Sub => wrap(t, a - c),
        BinOp::Mul => wrap(t, a.wrapping_mul(c)),
        BinOp::Div | BinOp::Rem => {
            // Division by zero and the one overflowing quotient are left to
            // the lowering.
            if c == 0 || (t.signed && c == -1 && a == t.to_i128(1 << (t.width - 1))) {
                return None;
            }
            wrap(t, if op == BinOp::Div { a / c } else { a % c })
        }
        BinOp::And => wrap(t, a & c),
        BinOp::Or => wrap(t, a | c),
        BinOp::Xor => wrap(t, a ^ c),
        BinOp::Lt => boolean(a < c),
        BinOp::Le => boolean(a <= c),
        BinOp::Gt => boolean(a > c),
        BinOp::Ge => boolean(a >= c),
        BinOp::Eq => boolean(a == c),
        BinOp::Ne => boolean(a != c),
        BinOp::Shl | BinOp::Shr => unreachable!("shifts are handled above"),
    })
}
