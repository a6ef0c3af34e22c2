//! `while` loops that count: `while (i < n) { ...; i++; }` is the `for`
//! loop `for (; i < n; i++) { ... }` (the parser makes it one), so that it
//! can be kept as a loop like any other.
//!
//! The two agree when the body's last statements are expressions (the
//! step: `p++; q++;` is the step `p++, q++`), no `continue` of this loop
//! skips them (a `for` runs its step after a `continue`), and nothing the
//! step names is declared in the body's own block (which would make it
//! another variable there). The rewrite is made only for a condition that
//! compares a variable the step changes by a constant, the loops that
//! counting can keep (or that walk pointers, `walks.rs`); the statements
//! of the step each change a variable by a constant.

use super::{condition, step_of, stepped_var};
use crate::ast::{Expr, ExprKind, Stmt, StmtKind};

/// `while (c) body` as a `for` loop if it counts (see the module docs),
/// else as it is.
pub fn counted_while(c: Expr, body: Stmt) -> StmtKind {
    match split_step(&c, &body) {
        Some(k) => {
            let StmtKind::Block(mut items) = body.kind else {
                unreachable!("split_step takes blocks only")
            };
            let steps = items.split_off(k).into_iter().map(|s| match s.kind {
                StmtKind::Expr(step) => step,
                _ => unreachable!("split_step found expressions last"),
            });
            let step = steps
                .reduce(|a, b| {
                    let loc = a.loc;
                    let kind = ExprKind::Comma(Box::new(a), Box::new(b));
                    Expr { kind, loc }
                })
                .expect("split_step found a step");
            let rest = Stmt {
                kind: StmtKind::Block(items),
                loc: body.loc,
            };
            StmtKind::For(None, Some(c), Some(step), Box::new(rest))
        }
        None => StmtKind::While(c, Box::new(body)),
    }
}

/// The variable the statement `s` changes by a constant, if it does.
fn stepping(s: &Stmt) -> Option<&str> {
    match &s.kind {
        StmtKind::Expr(e) => stepped_var(e).filter(|&v| step_of(e, v).is_some()),
        _ => None,
    }
}

/// The number of statements before the step, if `body` is a block whose
/// last statements each change a variable by a constant, one of them the
/// variable `c` compares, and the rewrite keeps its meaning.
fn split_step(c: &Expr, body: &Stmt) -> Option<usize> {
    let StmtKind::Block(items) = &body.kind else {
        return None;
    };
    let k = items.len()
        - items
            .iter()
            .rev()
            .take_while(|s| stepping(s).is_some())
            .count();
    let (rest, steps) = items.split_at(k);
    let (var, ..) = condition(c)?;
    if !steps.iter().any(|s| stepping(s) == Some(var)) {
        return None;
    }
    let declared = rest.iter().any(|s| match &s.kind {
        StmtKind::Decl(ds) => ds
            .iter()
            .any(|d| steps.iter().any(|s| stepping(s) == Some(&d.name))),
        _ => false,
    });
    let continues = rest.iter().any(super::progress::continues);
    (!declared && !continues).then_some(k)
}
