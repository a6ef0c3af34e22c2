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

/// A key compiled once for evaluating every iteration: its operations in
/// postfix order, names resolved to indices (evaluating the syntax tree
/// and looking names up by string cost more than the rest of an
/// iteration's replay).
#[derive(Clone, Debug)]
pub struct Compiled {
    ops: Vec<Op>,
}

/// An operation of a [`Compiled`] key, on a stack of values (`None`: a
/// value the evaluator does not give, see the module docs).
#[derive(Clone, Copy, Debug)]
enum Op {
    Const(Public),
    /// The value of name `k` (as resolved when compiling).
    Name(usize),
    /// A name that is no public integer, or a form not covered.
    Unknown,
    Cast(Scalar),
    Unary(UnOp),
    Binary(BinOp),
    LogAnd,
    LogOr,
    Cond,
}

impl Compiled {
    /// Compiles `e`; `resolve` gives the index of a name, if it has one.
    pub fn new(e: &Expr, resolve: &dyn Fn(&str) -> Option<usize>) -> Compiled {
        let mut ops = Vec::new();
        push_ops(e, resolve, &mut ops);
        Compiled { ops }
    }

    /// The key's value, reading name `k` as `name(k)`; `stack` is scratch
    /// space reused between calls.
    pub fn eval(
        &self,
        name: &impl Fn(usize) -> Option<Public>,
        stack: &mut Vec<Option<Public>>,
    ) -> Option<Public> {
        stack.clear();
        for &op in &self.ops {
            let v = match op {
                Op::Const(v) => Some(v),
                Op::Name(k) => name(k),
                Op::Unknown => None,
                Op::Cast(t) => pop(stack).map(|v| convert(v, t)),
                Op::Unary(op) => pop(stack).and_then(|v| unary(op, v)),
                Op::Binary(op) => {
                    let (y, x) = (pop(stack), pop(stack));
                    binary(op, x?, y?)
                }
                // As C's `&&` and `||`: the right operand counts only where
                // the left one does not decide.
                Op::LogAnd | Op::LogOr => {
                    let (y, x) = (pop(stack), pop(stack));
                    let decides = matches!(op, Op::LogOr);
                    match x {
                        Some((_, a)) if (a != 0) == decides => Some(boolean(decides)),
                        Some(_) => y.map(|(_, b)| boolean(b != 0)),
                        None => None,
                    }
                }
                Op::Cond => {
                    let (y, x, c) = (pop(stack), pop(stack), pop(stack));
                    let (c, x, y) = (c?.1 != 0, x?, y?);
                    let t = Scalar::common(x.0, y.0);
                    Some(convert(if c { x } else { y }, t))
                }
            };
            stack.push(v);
        }
        pop(stack)
    }
}

/// The top of the stack (`None` if it is a value not given, or empty).
fn pop(stack: &mut Vec<Option<Public>>) -> Option<Public> {
    stack.pop().flatten()
}

/// Appends the operations of `e` in postfix order.
fn push_ops(e: &Expr, resolve: &dyn Fn(&str) -> Option<usize>, ops: &mut Vec<Op>) {
    let operands = |operands: &[&Expr], op: Op, ops: &mut Vec<Op>| {
        for a in operands {
            push_ops(a, resolve, ops);
        }
        ops.push(op);
    };
    match &e.kind {
        ExprKind::Int(v, t) => ops.push(Op::Const((*t, t.to_i128(*v)))),
        ExprKind::Ident(n) => ops.push(resolve(n).map_or(Op::Unknown, Op::Name)),
        ExprKind::Cast(TypeExpr::Known(t), a) => match t.scalar() {
            Some(s) => operands(&[a], Op::Cast(s), ops),
            None => ops.push(Op::Unknown),
        },
        ExprKind::Unary(op, a) => operands(&[a], Op::Unary(*op), ops),
        ExprKind::Binary(op, a, b) => operands(&[a, b], Op::Binary(*op), ops),
        ExprKind::LogAnd(a, b) => operands(&[a, b], Op::LogAnd, ops),
        ExprKind::LogOr(a, b) => operands(&[a, b], Op::LogOr, ops),
        ExprKind::Cond(c, a, b) => operands(&[c, a, b], Op::Cond, ops),
        _ => ops.push(Op::Unknown),
    }
}

/// `op v` (after the integer promotions).
fn unary(op: UnOp, (t, v): Public) -> Option<Public> {
    let p = t.promote();
    Some(match op {
        UnOp::Plus => (p, v),
        UnOp::Neg => wrap(p, v.wrapping_neg()),
        UnOp::BitNot => wrap(p, !v),
        UnOp::Not => boolean(v == 0),
        UnOp::Deref | UnOp::Addr => return None,
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
