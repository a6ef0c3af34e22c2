//! GCC's built-ins that the parser answers, as they turn on whether an
//! expression is a constant: `__builtin_constant_p(e)` and
//! `__builtin_choose_expr(c, a, b)`.

use super::expr::const_eval;
use super::Parser;
use crate::ast::{Expr, ExprKind};
use crate::error::{err, DResult, Loc};
use crate::types::Scalar;

impl Parser<'_> {
    /// `__builtin_constant_p(e)` after its name (at `loc`): the `int` 1 if
    /// `e` is an integer constant expression, else 0 (as gcc without
    /// optimization; `e` is not evaluated).
    pub(super) fn constant_p(&mut self, loc: Loc) -> DResult<Expr> {
        self.expect("(")?;
        let e = self.assign_expr()?;
        self.expect(")")?;
        Ok(Expr {
            kind: ExprKind::Int(u64::from(const_eval(&e).is_some()), Scalar::INT),
            loc,
        })
    }

    /// `__builtin_choose_expr(c, a, b)` after its name: `a` if the
    /// constant `c` is nonzero, else `b` (the other is not evaluated).
    pub(super) fn choose_expr(&mut self) -> DResult<Expr> {
        self.expect("(")?;
        let c = self.assign_expr()?;
        self.expect(",")?;
        let a = self.assign_expr()?;
        self.expect(",")?;
        let b = self.assign_expr()?;
        self.expect(")")?;
        match const_eval(&c) {
            Some(v) if v != 0 => Ok(a),
            Some(_) => Ok(b),
            None => err(c.loc, "__builtin_choose_expr needs a constant condition"),
        }
    }
}
