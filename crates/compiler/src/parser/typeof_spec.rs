//! `typeof` (C23; GNU `__typeof__`, `__typeof`) and `typeof_unqual`:
//! a type specifier naming the type of an expression or of a type name.
//! The expression is not evaluated; its type is found where the
//! declaration, cast or `sizeof` is lowered (the parser does not know the
//! types of variables). (No qualifiers are tracked, so `typeof_unqual` is
//! `typeof`.)

use super::Parser;
use crate::ast::{Expr, TypeExpr};
use crate::error::{err, DResult};

impl Parser<'_> {
    /// The parenthesized operand of `typeof`, after the keyword: a type
    /// name as written, or `TypeExpr::Typeof` of an expression.
    pub(super) fn typeof_spec(&mut self) -> DResult<TypeExpr> {
        self.expect("(")?;
        let ty = if self.starts_type() {
            self.type_name()?
        } else {
            TypeExpr::Typeof(Box::new(self.expr()?))
        };
        self.expect(")")?;
        Ok(ty)
    }

    /// The error for `typeof(expr)` where the parser needs the type itself
    /// (parameters, return types, typedefs, struct members, `_Alignof`).
    pub(super) fn typeof_here<T>(e: &Expr) -> DResult<T> {
        err(
            e.loc,
            "typeof of an expression is supported in declarations of variables, casts, sizeof and compound literals, not in a parameter, return type, typedef, struct member or _Alignof (write typeof(type-name))",
        )
    }
}
