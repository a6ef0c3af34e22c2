//! Loops that never end: a condition that is always true (none, or a
//! nonzero constant) and a body with no `break` out of the loop and no
//! `return` (twofold has no other way out: no `goto`, `exit` or
//! `longjmp`). gcc's program would run forever; a circuit cannot, so
//! lowering refuses such a loop where it reaches it, instead of making
//! gates (or simulating iterations) until a limit stops it.

use crate::ast::{Expr, Stmt, StmtKind};
use crate::parser::const_eval;

/// Whether a loop with condition `cond` (none in `for (;;)`) and `body`
/// never ends once it starts.
pub(crate) fn never_ends(cond: Option<&Expr>, body: &Stmt) -> bool {
    let always = cond.is_none_or(|c| const_eval(c).is_some_and(|v| v != 0));
    always && !leaves(body, false)
}

/// Whether `s` has a `return`, or a `break` out of the loop it is in
/// (one not inside a loop or `switch` of its own if `nested`).
fn leaves(s: &Stmt, nested: bool) -> bool {
    match &s.kind {
        StmtKind::Return(_) => true,
        StmtKind::Break => !nested,
        StmtKind::Block(items) => items.iter().any(|i| leaves(i, nested)),
        StmtKind::If(_, t, e) => {
            leaves(t, nested) || e.as_deref().is_some_and(|e| leaves(e, nested))
        }
        StmtKind::While(_, b)
        | StmtKind::DoWhile(b, _)
        | StmtKind::For(_, _, _, b)
        | StmtKind::Switch(_, b) => leaves(b, true),
        StmtKind::Case(_, _, b) | StmtKind::Default(b) => leaves(b, nested),
        _ => false,
    }
}
