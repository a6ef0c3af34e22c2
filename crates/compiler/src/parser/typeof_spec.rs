//! `typeof` (C23; GNU `__typeof__`, `__typeof`) and `typeof_unqual`:
//! a type specifier naming the type of an expression or of a type name;
//! GNU's `__auto_type`, the type of the declarator's initializer.
//! The expression is not evaluated; its type is found where the
//! declaration, cast or `sizeof` is lowered (the parser does not know the
//! types of variables). (No qualifiers are tracked, so `typeof_unqual` is
//! `typeof`.)

use super::Parser;
use crate::ast::{Expr, ExprKind, TypeExpr};
use crate::error::{err, DResult};
use crate::types::Scalar;

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

    /// The type `__auto_type` (just read) stands for: that of the
    /// initializer of the declarator after it (`__auto_type x = e`), an
    /// array's decayed to a pointer, as `typeof((0, e))` has it. The
    /// initializer is read ahead here, and read again as such.
    pub(super) fn auto_type(&mut self) -> DResult<TypeExpr> {
        let start = self.pos;
        let loc = self.loc();
        while self
            .peek()
            .is_some_and(|t| !t.is("=") && !t.is(";") && !t.is("{"))
        {
            self.pos += 1;
        }
        if !self.eat("=") {
            return err(loc, "'__auto_type' needs a declarator with an initializer");
        }
        let init = self.assign_expr()?;
        self.pos = start;
        let zero = Expr {
            kind: ExprKind::Int(0, Scalar::INT),
            loc,
        };
        Ok(TypeExpr::Typeof(Box::new(Expr {
            kind: ExprKind::Comma(Box::new(zero), Box::new(init)),
            loc,
        })))
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
