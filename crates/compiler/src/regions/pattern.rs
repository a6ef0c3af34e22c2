//! The statement and expression shapes the analysis recognises: minimum and
//! maximum patterns, reductions, plain names and access roots.

use crate::ast::*;
use crate::types::CType;

use super::RedOp;

/// A minimum or maximum statement: the variable, the candidate and whether
/// it is a minimum.
pub fn minmax_parts(s: &Stmt) -> Option<(&str, &str, bool)> {
    fn cmp_sides(c: &Expr) -> Option<(BinOp, &str, &str)> {
        match &c.kind {
            ExprKind::Binary(op @ (BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge), a, b) => {
                Some((*op, ident(a)?, ident(b)?))
            }
            _ => None,
        }
    }
    let less = |op: BinOp| matches!(op, BinOp::Lt | BinOp::Le);
    match &s.kind {
        StmtKind::If(c, t, None) => {
            let (op, p, q) = cmp_sides(c)?;
            let (x, d) = plain_assign(single(t)?)?;
            // `d < x` or `x > d`: a minimum.
            let is_min = if p == d && q == x {
                less(op)
            } else if p == x && q == d {
                !less(op)
            } else {
                return None;
            };
            (x != d).then_some((x, d, is_min))
        }
        StmtKind::Expr(Expr {
            kind: ExprKind::Assign(None, lhs, rhs),
            ..
        }) => {
            let x = ident(lhs)?;
            let ExprKind::Cond(c, a, b) = &rhs.kind else {
                return None;
            };
            let (op, p, q) = cmp_sides(c)?;
            let (a, b) = (ident(a)?, ident(b)?);
            let pair = |u: &str, v: &str| (u == x && v != x) || (v == x && u != x);
            if !(pair(p, q) && pair(a, b) && ((a == p && b == q) || (a == q && b == p))) {
                return None;
            }
            let d = if p == x { q } else { p };
            // `p < q ? p : q` is the smaller one.
            let is_min = less(op) == (a == p);
            Some((x, d, is_min))
        }
        _ => None,
    }
}

/// The name an expression is, if it is a plain name.
pub(super) fn ident(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Ident(n) => Some(n),
        _ => None,
    }
}

/// The only statement of `s` (itself, or of a block of one).
fn single(s: &Stmt) -> Option<&Stmt> {
    match &s.kind {
        StmtKind::Block(items) if items.len() == 1 => single(&items[0]),
        StmtKind::Block(_) => None,
        _ => Some(s),
    }
}

/// `x = d;` with two names.
fn plain_assign(s: &Stmt) -> Option<(&str, &str)> {
    match &s.kind {
        StmtKind::Expr(Expr {
            kind: ExprKind::Assign(None, lhs, rhs),
            ..
        }) => Some((ident(lhs)?, ident(rhs)?)),
        _ => None,
    }
}

/// `x op= e`, `x++`, `x--` with a plain name: the variable and operator.
pub(super) fn reduction_stmt(e: &Expr) -> Option<(&str, RedOp)> {
    match &e.kind {
        ExprKind::IncDec { e: x, .. } => Some((ident(x)?, RedOp::Add)),
        ExprKind::Assign(Some(op), x, _) => {
            let op = match op {
                BinOp::Add | BinOp::Sub => RedOp::Add,
                BinOp::Mul => RedOp::Mul,
                BinOp::Xor => RedOp::Xor,
                BinOp::Or => RedOp::Or,
                BinOp::And => RedOp::And,
                _ => return None,
            };
            Some((ident(x)?, op))
        }
        _ => None,
    }
}

/// Whether a declared type is a pointer.
pub(super) fn is_pointer(t: &TypeExpr) -> bool {
    matches!(t, TypeExpr::Pointer(_) | TypeExpr::Known(CType::Pointer(_)))
}

/// The variable an access starts from.
pub(super) fn root(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Ident(n) => Some(n),
        ExprKind::Index(a, _) | ExprKind::Member(a, _) => root(a),
        _ => None,
    }
}
