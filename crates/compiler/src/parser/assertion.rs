//! Static assertions: `_Static_assert(condition, "message");` (C11) and
//! `static_assert` (C23, the message optional).

use super::expr::const_eval;
use super::Parser;
use crate::ast::StmtKind;
use crate::error::{err, static_assertion_failed, DResult};
use crate::lexer::Tok;

impl Parser<'_> {
    /// A `_Static_assert(condition, "message");` (or `static_assert`, the
    /// message optional as in C23) at the current token, if there is one:
    /// checked here when the condition is a constant the parser can
    /// evaluate; else, in a block, left to the lowering as a statement
    /// (`sizeof x` needs the type of `x`), and at file scope an error.
    pub(super) fn static_assertion(&mut self, in_block: bool) -> DResult<Option<Assertion>> {
        if !(self.is_word("_Static_assert") || self.is_word("static_assert")) {
            return Ok(None);
        }
        let loc = self.loc();
        self.pos += 1;
        self.expect("(")?;
        let condition = self.cond_expr()?;
        let message = match self.eat(",") {
            true => match self.peek().map(|t| &t.tok) {
                Some(Tok::Str(..)) => String::from_utf8_lossy(&self.string_bytes()).into_owned(),
                _ => return err(self.loc(), "expected the message of the static assertion"),
            },
            false => String::new(),
        };
        self.expect(")")?;
        self.expect(";")?;
        match const_eval(&condition) {
            Some(0) => err(loc, static_assertion_failed(&message)),
            Some(_) => Ok(Some(Assertion::Checked)),
            None if in_block => Ok(Some(Assertion::Deferred(StmtKind::StaticAssert(
                condition, message,
            )))),
            None => err(
                condition.loc,
                "the static assertion's condition is not a constant",
            ),
        }
    }
}

/// A static assertion the parser read (see [`Parser::static_assertion`]).
pub(super) enum Assertion {
    /// Checked (and it holds).
    Checked,
    /// Left to the lowering, as this statement.
    Deferred(StmtKind),
}
