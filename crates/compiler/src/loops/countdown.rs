//! Loops that count down in their condition: `while (n--)`, `while (n-- >
//! 0)`, `for (unsigned i = N; i-- > 0; )`. The condition changes the
//! variable, so the loop has no step a counted loop could be kept by. It
//! is rewritten as one that tests first and steps last, its body reading
//! the value the condition left:
//!
//! ```c
//! { for (; n > 0; n--) body[n := n - 1]; n--; }
//! ```
//!
//! The two agree when nothing but the body's own mentions can read the
//! variable while the body runs — it is an automatic local of the function
//! whose address is never taken there — and the body neither writes it
//! (nor declares another of that name, nor asks an expression's type) nor
//! `break`s out of the loop:
//! `continue` steps and tests it as the condition did, and after the last
//! test the variable holds one less than the value tested (wrapping as the
//! post-decrement did).

use super::expand::fixed_in;
use super::reduce::for_each_expr_mut;
use super::rewrite::Scopes;
use crate::ast::*;

/// Rewrites the loop `s` if its condition counts a variable down and
/// the rewrite keeps its meaning.
pub(super) fn rewrite(scopes: &Scopes, s: &mut Stmt) {
    let (init, cond, body) = match &mut s.kind {
        StmtKind::For(init, Some(c), None, body) => (init.take(), c, body),
        StmtKind::While(c, body) => (None, c, body),
        _ => return,
    };
    let tested = tested(cond)
        .filter(|(var, ..)| scopes.private(var) && fixed_in(body, var) && typeless(body));
    let Some((var, op, zero)) = tested else {
        if let StmtKind::For(slot, ..) = &mut s.kind {
            *slot = init;
        }
        return;
    };
    let loc = s.loc;
    let at = |kind: ExprKind| Expr { kind, loc };
    let ident = || at(ExprKind::Ident(var.clone()));
    let one = at(ExprKind::Int(1, crate::types::Scalar::INT));
    let left = at(ExprKind::Binary(
        BinOp::Sub,
        Box::new(ident()),
        Box::new(one),
    ));
    let mut body = std::mem::replace(
        &mut **body,
        Stmt {
            kind: StmtKind::Empty,
            loc,
        },
    );
    for_each_expr_mut(&mut body, &mut |e| {
        if matches!(&e.kind, ExprKind::Ident(n) if *n == var) {
            *e = left.clone();
        }
    });
    let test = at(ExprKind::Binary(op, Box::new(ident()), Box::new(zero)));
    let down = || {
        at(ExprKind::IncDec {
            pre: false,
            inc: false,
            e: Box::new(ident()),
        })
    };
    let looped = StmtKind::For(None, Some(test), Some(down()), Box::new(body));
    let items = init.map(|i| *i).into_iter().chain([
        Stmt { kind: looped, loc },
        Stmt {
            kind: StmtKind::Expr(down()),
            loc,
        },
    ]);
    s.kind = StmtKind::Block(items.collect());
}

/// Whether `body` asks no expression's type (`sizeof e`, `_Generic`): `n
/// - 1` has the type of `n` promoted, which only they could tell apart
/// from `n`'s (its value is `n`'s, which is at least 1 in the body).
fn typeless(body: &Stmt) -> bool {
    let mut asks = false;
    body.for_each_expr(&mut |e| {
        super::visit(e, &mut |x| {
            asks |= matches!(x.kind, ExprKind::SizeofExpr(_) | ExprKind::Generic(..))
        })
    });
    !asks
}

/// The variable `e` post-decrements (`v--`), if it is one.
fn post_decremented(e: &Expr) -> Option<&str> {
    let ExprKind::IncDec {
        pre: false,
        inc: false,
        e: v,
    } = &e.kind
    else {
        return None;
    };
    match &v.kind {
        ExprKind::Ident(name) => Some(name.as_str()),
        _ => None,
    }
}

/// The variable a condition post-decrements and tests against zero (`v--`,
/// `v-- > 0`, `v-- != 0`, or mirrored), how it tests it, and the zero.
fn tested(cond: &Expr) -> Option<(String, BinOp, Expr)> {
    let is_zero = |e: &Expr| matches!(e.kind, ExprKind::Int(0, _));
    if let Some(var) = post_decremented(cond) {
        let zero = Expr {
            kind: ExprKind::Int(0, crate::types::Scalar::INT),
            loc: cond.loc,
        };
        return Some((var.to_string(), BinOp::Ne, zero));
    }
    let ExprKind::Binary(op, a, b) = &cond.kind else {
        return None;
    };
    let (var, op, zero) = match (op, post_decremented(a), post_decremented(b)) {
        (BinOp::Gt | BinOp::Ne, Some(var), _) if is_zero(b) => (var, *op, b),
        (BinOp::Lt, _, Some(var)) if is_zero(a) => (var, BinOp::Gt, a),
        (BinOp::Ne, _, Some(var)) if is_zero(a) => (var, BinOp::Ne, a),
        _ => return None,
    };
    Some((var.to_string(), op, (**zero).clone()))
}
