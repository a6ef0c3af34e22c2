//! Outer scalars private to each iteration: assigned by a top-level
//! statement of the body before any other mention of them.

use std::collections::BTreeSet;

use crate::ast::*;

use super::pattern::ident;

/// Names assigned by a top-level statement `x = e;` or `for (x = e; ...)`
/// (with `e` not reading `x`) before any other mention of them.
pub(super) fn private_scalars(items: &[&Stmt]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut private = Vec::new();
    for s in items {
        let assign = match &s.kind {
            StmtKind::Expr(e) => Some(e),
            StmtKind::For(Some(init), ..) => match &init.kind {
                StmtKind::Expr(e) => Some(e),
                _ => None,
            },
            _ => None,
        };
        if let Some(Expr {
            kind: ExprKind::Assign(None, lhs, rhs),
            ..
        }) = assign
        {
            if let Some(x) = ident(lhs) {
                let mut rhs_names = BTreeSet::new();
                expr_names(rhs, &mut rhs_names);
                if !seen.contains(x) && !rhs_names.contains(x) {
                    private.push(x.to_string());
                }
            }
        }
        stmt_names(s, &mut seen);
    }
    private
}

/// Every name a statement mentions or declares.
fn stmt_names(s: &Stmt, out: &mut BTreeSet<String>) {
    match &s.kind {
        StmtKind::Empty | StmtKind::Break | StmtKind::Continue | StmtKind::Return(None) => {}
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) | StmtKind::StaticAssert(e, _) => {
            expr_names(e, out)
        }
        StmtKind::Decl(ds) => {
            for d in ds {
                out.insert(d.name.clone());
                type_names(&d.ty, out);
                if let Some(i) = &d.init {
                    init_names(i, out);
                }
            }
        }
        StmtKind::Block(items) => items.iter().for_each(|s| stmt_names(s, out)),
        StmtKind::If(c, t, e) => {
            expr_names(c, out);
            stmt_names(t, out);
            if let Some(e) = e {
                stmt_names(e, out);
            }
        }
        StmtKind::While(c, b) | StmtKind::DoWhile(b, c) | StmtKind::Switch(c, b) => {
            expr_names(c, out);
            stmt_names(b, out);
        }
        StmtKind::For(i, c, st, b) => {
            if let Some(i) = i {
                stmt_names(i, out);
            }
            for e in [c, st].into_iter().flatten() {
                expr_names(e, out);
            }
            stmt_names(b, out);
        }
        StmtKind::Case(c, hi, b) => {
            expr_names(c, out);
            hi.iter().for_each(|e| expr_names(e, out));
            stmt_names(b, out);
        }
        StmtKind::Default(b) => stmt_names(b, out),
    }
}

fn type_names(t: &TypeExpr, out: &mut BTreeSet<String>) {
    match t {
        TypeExpr::Known(_) => {}
        TypeExpr::Typeof(e) => expr_names(e, out),
        TypeExpr::Pointer(t) => type_names(t, out),
        TypeExpr::Array(t, n) => {
            if let Some(n) = n {
                expr_names(n, out);
            }
            type_names(t, out);
        }
    }
}

fn init_names(i: &Init, out: &mut BTreeSet<String>) {
    match i {
        Init::Expr(e) => expr_names(e, out),
        Init::List(items, _) => {
            for (des, i) in items {
                for d in des {
                    if let Designator::Index(e) = d {
                        expr_names(e, out);
                    }
                }
                init_names(i, out);
            }
        }
    }
}

fn expr_names(e: &Expr, out: &mut BTreeSet<String>) {
    match &e.kind {
        ExprKind::Ident(n) => {
            out.insert(n.clone());
        }
        ExprKind::Int(..) | ExprKind::Float(..) | ExprKind::Str(_) => {}
        ExprKind::SizeofType(t) => type_names(t, out),
        ExprKind::Cast(t, a) => {
            type_names(t, out);
            expr_names(a, out);
        }
        ExprKind::Unary(_, a)
        | ExprKind::Member(a, _)
        | ExprKind::Arrow(a, _)
        | ExprKind::SizeofExpr(a)
        | ExprKind::IncDec { e: a, .. } => expr_names(a, out),
        ExprKind::Binary(_, a, b)
        | ExprKind::LogAnd(a, b)
        | ExprKind::LogOr(a, b)
        | ExprKind::Comma(a, b)
        | ExprKind::Index(a, b)
        | ExprKind::Assign(_, a, b) => {
            expr_names(a, out);
            expr_names(b, out);
        }
        ExprKind::Cond(a, b, c) => {
            expr_names(a, out);
            expr_names(b, out);
            expr_names(c, out);
        }
        ExprKind::Call(_, args) => args.iter().for_each(|a| expr_names(a, out)),
        ExprKind::CallPointer(callee, args) => {
            expr_names(callee, out);
            args.iter().for_each(|a| expr_names(a, out));
        }
        ExprKind::Compound(t, init) => {
            type_names(t, out);
            init.for_each_expr(&mut |e| expr_names(e, out));
        }
        ExprKind::StmtExpr(items) => items.iter().for_each(|s| stmt_names(s, out)),
        ExprKind::Generic(c, assocs) => {
            expr_names(c, out);
            for Association { ty, value, .. } in assocs {
                ty.iter().for_each(|t| type_names(t, out));
                expr_names(value, out);
            }
        }
    }
}
