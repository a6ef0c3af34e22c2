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
/// postfix order, names resolved to indices and every type and conversion
/// found while compiling (types follow from the names' types alone), so
/// that evaluating works on values only.
#[derive(Clone, Debug)]
pub struct Compiled {
    ops: Vec<Op>,
}

/// An operation of a [`Compiled`] key, on a stack of values, each in its
/// type's range (`None`: a value the evaluator does not give, see the
/// module docs).
#[derive(Clone, Copy, Debug)]
enum Op {
    Const(i128),
    /// The value of name `k` (as resolved when compiling).
    Name(usize),
    /// A name that is no public integer, or a form not covered.
    Unknown,
    /// C's conversion to a type: to `_Bool` by comparing with 0, to
    /// others by wrapping.
    Convert(Scalar),
    /// A unary operator on a value of the (promoted) type.
    Unary(UnOp, Scalar),
    /// A binary operator on two values of the type (the usual arithmetic
    /// conversions done), or a shift of a value of the type.
    Binary(BinOp, Scalar),
    LogAnd,
    LogOr,
    /// `c ? x : y` (the conversion to the common type follows).
    Cond,
}

/// A name as the keys read it: its index and type.
pub type Resolved = (usize, Scalar);

impl Compiled {
    /// Compiles `e`; `resolve` gives the index and type of a name holding
    /// a public integer.
    pub fn new(e: &Expr, resolve: &dyn Fn(&str) -> Option<Resolved>) -> Compiled {
        let mut ops = Vec::new();
        if push_ops(e, resolve, &mut ops).is_none() {
            ops = vec![Op::Unknown];
        }
        Compiled { ops }
    }

    /// The key's values over a batch of `len` iterations, into `out`
    /// (`None` where the evaluator gives no value), reading name `k` as
    /// `name(k)`: values in the range of the type it was resolved with,
    /// the same in every iteration or one each (`None`: not a public
    /// integer). Evaluating a column at a time pays for interpreting the
    /// operations once a batch, not once an iteration, and a part that
    /// reads no name that changes is worked out once.
    pub fn eval_column(
        &self,
        name: &impl Fn(usize) -> Option<Column>,
        len: usize,
        out: &mut Vec<Option<i128>>,
    ) {
        // (Values not given are `UNKNOWN`: every value given is in the
        // range of a type of at most 64 bits.)
        let mut stack: Vec<Column> = Vec::with_capacity(8);
        let pop = |stack: &mut Vec<Column>| stack.pop().unwrap_or(Column::Same(UNKNOWN));
        for &op in &self.ops {
            let v = match op {
                Op::Const(v) => Column::Same(v),
                Op::Name(k) => name(k).unwrap_or(Column::Same(UNKNOWN)),
                Op::Unknown => Column::Same(UNKNOWN),
                Op::Convert(t) => pop(&mut stack).map(|v| match v {
                    UNKNOWN => UNKNOWN,
                    v => convert(v, t),
                }),
                Op::Unary(op, t) => pop(&mut stack).map(|v| match v {
                    UNKNOWN => UNKNOWN,
                    v => unary(op, t, v),
                }),
                Op::Binary(op, t) => {
                    let y = pop(&mut stack);
                    binary_column(op, t, pop(&mut stack), y)
                }
                // As C's `&&` and `||`: the right operand counts only where
                // the left one does not decide.
                Op::LogAnd | Op::LogOr => {
                    let decides = matches!(op, Op::LogOr);
                    let y = pop(&mut stack);
                    pop(&mut stack).zip(y, |x, y| match x {
                        UNKNOWN => UNKNOWN,
                        a if (a != 0) == decides => decides as i128,
                        _ if y == UNKNOWN => UNKNOWN,
                        _ => (y != 0) as i128,
                    })
                }
                Op::Cond => {
                    let (y, x, c) = (pop(&mut stack), pop(&mut stack), pop(&mut stack));
                    Column::zip3([c, x, y], |[c, x, y]| match (c, x, y) {
                        (UNKNOWN, _, _) | (_, UNKNOWN, _) | (_, _, UNKNOWN) => UNKNOWN,
                        (c, x, y) => {
                            if c != 0 {
                                x
                            } else {
                                y
                            }
                        }
                    })
                }
            };
            stack.push(v);
        }
        let top = pop(&mut stack);
        out.clear();
        out.extend((0..len).map(|i| Some(top.at(i)).filter(|&v| v != UNKNOWN)));
    }
}

/// On [`Compiled::eval_column`]'s stack, a value not given (see the
/// module docs).
const UNKNOWN: i128 = i128::MIN;

/// A key's value, or a name's, over a batch of iterations (see
/// [`Compiled::eval_column`]).
#[derive(Clone, Debug)]
pub enum Column {
    /// The same value in every iteration.
    Same(i128),
    /// One value an iteration.
    Each(Vec<i128>),
}

impl Column {
    /// The value in iteration `i` of the batch.
    fn at(&self, i: usize) -> i128 {
        match self {
            Column::Same(v) => *v,
            Column::Each(vs) => vs[i],
        }
    }

    /// `f` of each value.
    fn map(self, f: impl Fn(i128) -> i128) -> Column {
        match self {
            Column::Same(v) => Column::Same(f(v)),
            Column::Each(mut vs) => {
                vs.iter_mut().for_each(|v| *v = f(*v));
                Column::Each(vs)
            }
        }
    }

    /// `f` of each iteration's values of `self` and `other`.
    fn zip(self, other: Column, f: impl Fn(i128, i128) -> i128) -> Column {
        match (self, other) {
            (Column::Same(x), Column::Same(y)) => Column::Same(f(x, y)),
            (Column::Each(mut xs), Column::Same(y)) => {
                xs.iter_mut().for_each(|x| *x = f(*x, y));
                Column::Each(xs)
            }
            (Column::Same(x), Column::Each(mut ys)) => {
                ys.iter_mut().for_each(|y| *y = f(x, *y));
                Column::Each(ys)
            }
            (Column::Each(mut xs), Column::Each(ys)) => {
                xs.iter_mut().zip(&ys).for_each(|(x, &y)| *x = f(*x, y));
                Column::Each(xs)
            }
        }
    }

    /// `f` of each iteration's values of three columns.
    fn zip3(columns: [Column; 3], f: impl Fn([i128; 3]) -> i128) -> Column {
        let len = columns.iter().find_map(|c| match c {
            Column::Each(vs) => Some(vs.len()),
            Column::Same(_) => None,
        });
        match len {
            None => Column::Same(f(columns.each_ref().map(|c| c.at(0)))),
            Some(n) => Column::Each(
                (0..n)
                    .map(|i| f(columns.each_ref().map(|c| c.at(i))))
                    .collect(),
            ),
        }
    }
}

/// Appends the operations of `e` in postfix order; returns its type, or
/// `None` if it never has a value here (its operations are then left
/// out: the caller gives none).
fn push_ops(
    e: &Expr,
    resolve: &dyn Fn(&str) -> Option<Resolved>,
    ops: &mut Vec<Op>,
) -> Option<Scalar> {
    // An operand converted to `t` (a conversion only where its type is
    // another: its value is then in `t`'s range already).
    let operand = |a: &Expr, t: Option<Scalar>, ops: &mut Vec<Op>| -> Option<Scalar> {
        let ta = push_ops(a, resolve, ops)?;
        if let Some(t) = t.filter(|&t| t != ta) {
            ops.push(Op::Convert(t));
        }
        Some(ta)
    };
    Some(match &e.kind {
        ExprKind::Int(v, t) => {
            ops.push(Op::Const(t.to_i128(*v)));
            *t
        }
        ExprKind::Ident(n) => {
            let (k, t) = resolve(n)?;
            ops.push(Op::Name(k));
            t
        }
        ExprKind::Cast(TypeExpr::Known(t), a) => {
            let t = t.scalar()?;
            push_ops(a, resolve, ops)?;
            ops.push(Op::Convert(t));
            t
        }
        ExprKind::Unary(op, a) => {
            if let UnOp::Deref | UnOp::Addr = op {
                return None;
            }
            let t = operand(a, None, ops)?.promote();
            ops.push(Op::Unary(*op, t));
            if *op == UnOp::Not {
                Scalar::BOOL
            } else {
                t
            }
        }
        ExprKind::Binary(op @ (BinOp::Shl | BinOp::Shr), a, b) => {
            // The promoted left operand's type; the amount as it is.
            let t = type_of(a, resolve)?.promote();
            operand(a, Some(t), ops)?;
            operand(b, None, ops)?;
            ops.push(Op::Binary(*op, t));
            t
        }
        ExprKind::Binary(op, a, b) => {
            let t = Scalar::common(type_of(a, resolve)?, type_of(b, resolve)?);
            operand(a, Some(t), ops)?;
            operand(b, Some(t), ops)?;
            ops.push(Op::Binary(*op, t));
            if op.is_comparison() {
                Scalar::BOOL
            } else {
                t
            }
        }
        ExprKind::LogAnd(a, b) | ExprKind::LogOr(a, b) => {
            for x in [a, b] {
                if operand(x, None, ops).is_none() {
                    ops.push(Op::Unknown);
                }
            }
            ops.push(match e.kind {
                ExprKind::LogAnd(..) => Op::LogAnd,
                _ => Op::LogOr,
            });
            Scalar::BOOL
        }
        ExprKind::Cond(c, a, b) => {
            let (ta, tb) = (type_of(a, resolve)?, type_of(b, resolve)?);
            let t = Scalar::common(ta, tb);
            operand(c, None, ops)?;
            operand(a, None, ops)?;
            operand(b, None, ops)?;
            ops.push(Op::Cond);
            if (ta, tb) != (t, t) {
                ops.push(Op::Convert(t));
            }
            t
        }
        _ => return None,
    })
}

/// The type of `e` as [`push_ops`] finds it.
fn type_of(e: &Expr, resolve: &dyn Fn(&str) -> Option<Resolved>) -> Option<Scalar> {
    push_ops(e, resolve, &mut Vec::new())
}

/// `op v` for `v` of the promoted type `t`.
fn unary(op: UnOp, t: Scalar, v: i128) -> i128 {
    match op {
        UnOp::Plus => v,
        UnOp::Neg => wrap(t, v.wrapping_neg()),
        UnOp::BitNot => wrap(t, !v),
        UnOp::Not => (v == 0) as i128,
        UnOp::Deref | UnOp::Addr => unreachable!("not compiled"),
    }
}

/// `v` as a value of type `t` (C's conversion: to `_Bool` by comparing
/// with 0, to others by wrapping).
fn convert(v: i128, t: Scalar) -> i128 {
    if t.width == 1 {
        (v != 0) as i128
    } else {
        wrap(t, v)
    }
}

/// `v` wrapped into the range of `t`.
fn wrap(t: Scalar, v: i128) -> i128 {
    t.to_i128(v as u64)
}

/// `x op y` of each iteration's values (`UNKNOWN` where either is, or
/// where [`binary`] gives none). The operator is matched once a column,
/// not once a value: each arm's loop is [`binary`] of a constant operator.
fn binary_column(op: BinOp, t: Scalar, x: Column, y: Column) -> Column {
    macro_rules! by_operator {
        ($($o:ident),*) => {
            match op {
                $(BinOp::$o => x.zip(y, |a, c| known_binary(BinOp::$o, t, a, c)),)*
                op => x.zip(y, |a, c| known_binary(op, t, a, c)),
            }
        };
    }
    by_operator!(Add, Sub, Mul, And, Or, Xor, Shl, Shr, Lt, Le, Gt, Ge, Eq, Ne)
}

/// [`binary`] on values that may be `UNKNOWN`.
#[inline(always)]
fn known_binary(op: BinOp, t: Scalar, a: i128, c: i128) -> i128 {
    match (a, c) {
        (UNKNOWN, _) | (_, UNKNOWN) => UNKNOWN,
        (a, c) => binary(op, t, a, c).unwrap_or(UNKNOWN),
    }
}

/// `a op c` for values of type `t` (for a shift: `a` of type `t`, `c` the
/// amount).
#[inline(always)]
fn binary(op: BinOp, t: Scalar, a: i128, c: i128) -> Option<i128> {
    Some(match op {
        BinOp::Shl | BinOp::Shr => {
            let amount = u32::try_from(c).ok().filter(|&s| s < t.width)?;
            match op {
                BinOp::Shl => wrap(t, a << amount),
                _ if t.signed => a >> amount,
                _ => (a as u64 & t.mask()) as i128 >> amount,
            }
        }
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
        op => op.compare(a, c)? as i128,
    })
}
