//! Loops that walk pointers: `for (p = a; p < a + n; p++)`, `for (p = a,
//! q = b; p != end; p++, q++)`. The loop variable is a pointer, which a
//! counted loop cannot be kept by, so the loop was unrolled. It is
//! rewritten to count the distance walked, the pointers staying where
//! they start while the body runs:
//!
//! ```c
//! { init; long n = (a + n) - p, w; for (w = 0; w < n; w += 1) body[p := p + w]; p += w; }
//! ```
//!
//! where the body reads `*p` as `p[w]`, `p[k]` as `p[w + k]` and `p->m`
//! as `p[w].m`, which are the affine accesses a kept loop moves. The two
//! agree when nothing but the body's own mentions can read or write the
//! pointers while the body runs (automatic locals whose address the
//! function never takes), the body neither writes them nor declares
//! others of those names nor `break`s out, every pointer the step moves
//! moves once, by the same constant, and the condition compares one of them
//! with a bound that names none of them and that the body cannot change:
//! `p + w < E` is `w < E - p` for pointers into one array. The bound is
//! read once, before the loop (read in the condition, an array member's
//! address kept its iterations from lowering alike), so it may name only
//! automatic locals whose address is never taken and that the body does
//! not assign, wholly or a member (an element, which the bound cannot
//! read, it may), and read no memory but through them (`a + n`, `&a[n]`,
//! `s.v + s.len`; not `a + *n`), calling nothing.

use super::expand::fixed_in;
use super::reduce::{for_each_root_mut, init_roots};
use super::rewrite::Scopes;
use super::{mentions, step_of};
use crate::ast::*;
use crate::types::{CType, Scalar};

/// Rewrites the loop `s` if it walks pointers and the rewrite keeps its
/// meaning (see the module docs).
pub(super) fn rewrite(scopes: &mut Scopes, s: &mut Stmt) {
    let StmtKind::For(_, Some(cond), Some(step), body) = &s.kind else {
        return;
    };
    let Some((walked, by)) = steps(step) else {
        return;
    };
    let walks = |v: &str| scopes.private_pointer(v) && fixed_in(body, v);
    if !walked.iter().all(|v| walks(v)) {
        return;
    }
    let Some((op, leader, bound)) = compared(cond, &walked) else {
        return;
    };
    if !stable(scopes, body, &bound) {
        return;
    }
    let StmtKind::For(init, _, _, body) = std::mem::replace(&mut s.kind, StmtKind::Empty) else {
        unreachable!("a for loop")
    };
    let loc = s.loc;
    let at = |kind: ExprKind| Expr { kind, loc };
    let name = format!("__walk{}", scopes.walks);
    let count = format!("__walks{}", scopes.walks);
    scopes.walks += 1;
    let w = || at(ExprKind::Ident(name.clone()));
    let ident = |v: &str| at(ExprKind::Ident(v.to_string()));
    let long = TypeExpr::Known(CType::Int {
        bits: 64,
        signed: true,
    });
    let mut body = *body;
    for_each_root_mut(&mut body, &mut |e| moved(e, &walked, &w));
    let distance = at(ExprKind::Binary(
        BinOp::Sub,
        Box::new(bound),
        Box::new(ident(&leader)),
    ));
    let test = at(ExprKind::Binary(op, Box::new(w()), Box::new(ident(&count))));
    let zero = at(ExprKind::Int(0, Scalar::INT));
    let start = at(ExprKind::Assign(None, Box::new(w()), Box::new(zero)));
    let (toward, size) = if by > 0 {
        (BinOp::Add, by)
    } else {
        (BinOp::Sub, -by)
    };
    let size = at(ExprKind::Int(size as u64, Scalar::INT));
    let advance = at(ExprKind::Assign(
        Some(toward),
        Box::new(w()),
        Box::new(size),
    ));
    let statement = |kind: StmtKind| Stmt { kind, loc };
    let local = |name: &str, init: Option<Init>| Decl {
        name: name.to_string(),
        ty: long.clone(),
        init,
        is_extern: false,
        loc,
    };
    let declared = statement(StmtKind::Decl(vec![
        local(&count, Some(Init::Expr(distance))),
        local(&name, None),
    ]));
    let counted = StmtKind::For(
        Some(Box::new(statement(StmtKind::Expr(start)))),
        Some(test),
        Some(advance),
        Box::new(body),
    );
    let moved_on = walked.iter().map(|v| {
        let on = ExprKind::Assign(Some(BinOp::Add), Box::new(ident(v)), Box::new(w()));
        statement(StmtKind::Expr(at(on)))
    });
    let items = (init.map(|i| *i).into_iter())
        .chain([declared, statement(counted)])
        .chain(moved_on);
    s.kind = StmtKind::Block(items.collect());
}

/// The variables a step moves (`p++`, `++p, ++q`, `p += 2`), each once,
/// and the constant all of them move by, if they move alike.
fn steps(step: &Expr) -> Option<(Vec<String>, i128)> {
    let mut moves = Vec::new();
    let mut parts = vec![step];
    while let Some(e) = parts.pop() {
        if let ExprKind::Comma(a, b) = &e.kind {
            parts.extend([b.as_ref(), a.as_ref()]);
            continue;
        }
        let var = super::stepped_var(e)?;
        if moves.iter().any(|(v, _)| v == var) {
            return None;
        }
        moves.push((var.to_string(), step_of(e, var)?));
    }
    let by = moves.first()?.1;
    let alike = by != 0 && by.abs() < 1 << 16 && moves.iter().all(|(_, b)| *b == by);
    alike.then(|| (moves.into_iter().map(|(v, _)| v).collect(), by))
}

/// How the condition compares one of the `walked` pointers with a bound
/// that names none of them and has no side effects: the comparison
/// (pointer on the left), the pointer and the bound.
fn compared(cond: &Expr, walked: &[String]) -> Option<(BinOp, String, Expr)> {
    let ExprKind::Binary(op, a, b) = &cond.kind else {
        return None;
    };
    let mirrored = match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        BinOp::Ne => BinOp::Ne,
        _ => return None,
    };
    let walked_ident = |e: &Expr| match &e.kind {
        ExprKind::Ident(v) if walked.contains(v) => Some(v.clone()),
        _ => None,
    };
    let (op, leader, bound) = match (walked_ident(a), walked_ident(b)) {
        (Some(v), None) => (*op, v, b),
        (None, Some(v)) => (mirrored, v, a),
        _ => return None,
    };
    let free = !bound.has_side_effects() && walked.iter().all(|v| !mentions(bound, v));
    free.then(|| (op, leader, (**bound).clone()))
}

/// `e` with each of the `walked` pointers moved by `w()` (see the module
/// docs).
fn moved(e: &mut Expr, walked: &[String], w: &dyn Fn() -> Expr) {
    let is_walked = |x: &Expr| matches!(&x.kind, ExprKind::Ident(v) if walked.contains(v));
    let loc = e.loc;
    let at = |kind: ExprKind| Expr { kind, loc };
    match &mut e.kind {
        ExprKind::Index(p, k) if is_walked(p) => {
            moved(k, walked, w);
            // `p[0]` is `p[w]`, the place `*p` reads, not another.
            if !matches!(k.kind, ExprKind::Int(0, _)) {
                let k0 = std::mem::replace(&mut **k, w());
                **k = at(ExprKind::Binary(BinOp::Add, Box::new(w()), Box::new(k0)));
            } else {
                **k = w();
            }
        }
        ExprKind::Unary(UnOp::Deref, p) if is_walked(p) => {
            let p = std::mem::replace(p, Box::new(w()));
            e.kind = ExprKind::Index(p, Box::new(w()));
        }
        ExprKind::Arrow(p, m) if is_walked(p) => {
            let element = at(ExprKind::Index(p.clone(), Box::new(w())));
            e.kind = ExprKind::Member(Box::new(element), std::mem::take(m));
        }
        ExprKind::Ident(v) if walked.contains(v) => {
            let p = at(ExprKind::Ident(std::mem::take(v)));
            e.kind = ExprKind::Binary(BinOp::Add, Box::new(p), Box::new(w()));
        }
        kind => for_children!(
            kind,
            |a: &mut Expr| moved(a, walked, w),
            |init: &mut Init| init_roots(init, &mut |x| moved(x, walked, w)),
            // Statement expressions: `fixed_in` refuses bodies with them.
            |_: &mut Vec<Stmt>| {}
        ),
    }
}

/// Whether the bound `e` has the same value in every iteration of `body`
/// (see the module docs).
fn stable(scopes: &Scopes, body: &Stmt, e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Int(..) | ExprKind::SizeofType(_) | ExprKind::SizeofExpr(_) => true,
        ExprKind::Ident(v) => scopes.private(v) && fixed_in(body, v) && !assigns_part(body, v),
        ExprKind::Binary(op, a, b) => {
            !matches!(
                op,
                BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
            ) && stable(scopes, body, a)
                && stable(scopes, body, b)
        }
        ExprKind::Cast(_, a)
        | ExprKind::Member(a, _)
        | ExprKind::Unary(UnOp::Neg | UnOp::Plus | UnOp::BitNot, a) => stable(scopes, body, a),
        ExprKind::Unary(UnOp::Addr, a) => match &a.kind {
            ExprKind::Index(a, i) => stable(scopes, body, a) && stable(scopes, body, i),
            _ => stable(scopes, body, a),
        },
        _ => false,
    }
}

/// Whether `body` assigns a member of `v` (`v.len = ...`, `v.a.b++`):
/// an element (`v.a[i] = ...`) is not read by a bound.
fn assigns_part(body: &Stmt, v: &str) -> bool {
    let mut found = false;
    body.for_each_expr(&mut |e| {
        super::visit(e, &mut |x| {
            if let ExprKind::Assign(_, t, _) | ExprKind::IncDec { e: t, .. } = &x.kind {
                let mut base = t.as_ref();
                while let ExprKind::Member(a, _) = &base.kind {
                    base = a;
                }
                found |= matches!(&base.kind, ExprKind::Ident(n) if n == v);
            }
        })
    });
    found
}
