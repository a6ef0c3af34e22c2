//! C11 generic selections, `_Generic(e, T1: e1, ..., default: d)`. Which
//! association is chosen depends on the type of `e`, known where the
//! selection is lowered.

use super::Parser;
use crate::ast::{Association, Expr, ExprKind};
use crate::error::{err, DResult, Loc};

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
            let qualified = self.toks[first..self.pos]
                .iter()
                .any(|t| t.ident().is_some_and(|w| QUALIFIERS.contains(&w)));
            self.expect(":")?;
            let value = self.assign_expr()?;
            assocs.push(Association {
                ty,
                qualified,
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
