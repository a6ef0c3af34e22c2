//! C11 generic selections, `_Generic(e, T1: e1, ..., default: d)`. Which
//! association is chosen depends on the type of `e`, known where the
//! selection is lowered.

use super::Parser;
use crate::ast::{Association, Expr, ExprKind};
use crate::error::{err, DResult, Loc};
use crate::lexer::Token;

/// The type qualifiers (GNU's spellings of them are read as these: see
/// [`super::parse`]).
const QUALIFIERS: [&str; 4] = ["const", "volatile", "restrict", "_Atomic"];

impl Parser<'_> {
    /// A generic selection after the `_Generic` keyword at `loc`.
    pub(super) fn generic(&mut self, loc: Loc) -> DResult<Expr> {
        self.expect("(")?;
        let controlling = self.assign_expr()?;
        let mut assocs = Vec::new();
        let mut has_default = false;
        while self.eat(",") {
            let at = self.loc();
            let first = self.pos;
            let ty = if self.is_word("default") {
                if has_default {
                    return err(at, "_Generic has more than one default association");
                }
                has_default = true;
                self.pos += 1;
                None
            } else if self.starts_type() {
                Some(self.type_name()?)
            } else {
                let found = self.describe();
                return err(
                    at,
                    format!("expected a type name or 'default' in _Generic but found {found}"),
                );
            };
            let spelled = &self.toks[first..self.pos];
            let is_qualifier = |t: &Token| t.ident().is_some_and(|w| QUALIFIERS.contains(&w));
            let qualified = spelled.iter().any(is_qualifier);
            // (A qualifier after the last `*` qualifies the type itself.)
            let outer = spelled.iter().rposition(|t| t.is("*")).map_or(0, |k| k + 1);
            let top_qualified = spelled[outer..].iter().any(is_qualifier);
            self.expect(":")?;
            let value = self.assign_expr()?;
            assocs.push(Association {
                ty,
                qualified,
                top_qualified,
                value,
            });
        }
        self.expect(")")?;
        if assocs.is_empty() {
            return err(loc, "_Generic needs at least one association");
        }
        Ok(Expr {
            kind: ExprKind::Generic(Box::new(controlling), assocs),
            loc,
        })
    }
}
