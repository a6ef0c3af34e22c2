//! `while` loops that count: `while (i < n) { ...; i++; }` is the `for`
//! loop `for (; i < n; i++) { ... }` (the parser makes it one), so that it
//! can be kept as a loop like any other.
//!
//! The two agree when the body's last statement is an expression (the
//! step), no `continue` of this loop skips it (a `for` runs its step after
//! a `continue`), and nothing the step names is declared in the body's own
//! block (which would make it another variable there). The rewrite is
//! made only for a condition that compares a variable the step changes by
//! a constant, the loops that counting can keep.

use super::{condition, step_of};
use crate::ast::{Expr, Stmt, StmtKind};

/// `while (c) body` as a `for` loop if it counts (see the module docs),
/// else as it is.
pub fn counted_while(c: Expr, body: Stmt) -> StmtKind {
    match split_step(&c, &body) {
        Some(k) => {
            let StmtKind::Block(mut items) = body.kind else {
                unreachable!("split_step takes blocks only")
            };
            let Some(Stmt {
                kind: StmtKind::Expr(step),
                ..
            }) = items.pop()
            else {
                unreachable!("split_step found an expression last")
            };
            debug_assert_eq!(items.len(), k);
            let rest = Stmt {
                kind: StmtKind::Block(items),
                loc: body.loc,
            };
            StmtKind::For(None, Some(c), Some(step), Box::new(rest))
        }
        None => StmtKind::While(c, Box::new(body)),
    }
}

/// The number of statements before the step, if `body` is a block whose
/// last statement steps the variable `c` compares, and the rewrite keeps
/// its meaning.
fn split_step(c: &Expr, body: &Stmt) -> Option<usize> {
    let StmtKind::Block(items) = &body.kind else {
        return None;
    };
    let (last, rest) = items.split_last()?;
    let StmtKind::Expr(step) = &last.kind else {
        return None;
    };
    let (var, ..) = condition(c)?;
    step_of(step, var)?;
    let declared = rest.iter().any(|s| match &s.kind {
        StmtKind::Decl(ds) => ds.iter().any(|d| d.name == var),
        _ => false,
    });
    let continues = rest.iter().any(super::progress::continues);
    (!declared && !continues).then_some(rest.len())
}
