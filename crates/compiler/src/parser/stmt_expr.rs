//! GNU statement expressions `({ ... })`: a compound statement whose value
//! is its last expression statement's. Nothing may jump out of one:
//! `return`, and `break`, `continue` or a `case` label not inside a loop or
//! `switch` of its own, are refused.

use super::Parser;
use crate::ast::{Expr, ExprKind, Stmt, StmtKind};
use crate::error::{err, DResult, Loc};

impl Parser<'_> {
    /// A statement expression from its `{` (after the `(`) to its `)`.
    pub(super) fn stmt_expr(&mut self, loc: Loc) -> DResult<Expr> {
        let block = self.block()?;
        self.expect(")")?;
        let StmtKind::Block(items) = block.kind else {
            return err(loc, "expected a compound statement");
        };
        items
            .iter()
            .try_for_each(|s| stays(s, Enclosing::default()))?;
        Ok(Expr {
            kind: ExprKind::StmtExpr(items),
            loc,
        })
    }
}

/// What encloses a statement inside a statement expression.
#[derive(Clone, Copy, Default)]
struct Enclosing {
    /// A loop of the statement expression's own.
    lp: bool,
    /// A `switch` of its own.
    switch: bool,
}

/// Fails if `s` leaves the statement expression it is in.
fn stays(s: &Stmt, within: Enclosing) -> DResult<()> {
    let leaves = |what: &str| {
        err(
            s.loc,
            format!("{what} inside a statement expression, jumping out of it, is not supported"),
        )
    };
    match &s.kind {
        StmtKind::Return(_) => leaves("'return'"),
        StmtKind::Break if !(within.lp || within.switch) => leaves("'break'"),
        StmtKind::Continue if !within.lp => leaves("'continue'"),
        StmtKind::Case(..) | StmtKind::Default(_) if !within.switch => leaves("a 'case' label"),
        StmtKind::Block(items) => items.iter().try_for_each(|i| stays(i, within)),
        StmtKind::If(_, t, e) => {
            stays(t, within)?;
            e.as_deref().map_or(Ok(()), |e| stays(e, within))
        }
        StmtKind::While(_, b) | StmtKind::DoWhile(b, _) | StmtKind::For(_, _, _, b) => {
            stays(b, Enclosing { lp: true, ..within })
        }
        StmtKind::Switch(_, b) => stays(
            b,
            Enclosing {
                switch: true,
                ..within
            },
        ),
        StmtKind::Case(_, _, b) | StmtKind::Default(b) => stays(b, within),
        _ => Ok(()),
    }
}
