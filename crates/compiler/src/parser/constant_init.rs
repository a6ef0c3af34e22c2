//! File-scope initializers are constant expressions (C11 6.7.9p4, 6.6): they
//! may take the address of an object (`&x`, an array, a function, a string)
//! but not read an object's value (`int y = x + 1;`), call a function or
//! assign. As gcc does, a `const` object's value may be read (`const int
//! n = 4; int m = n * 2;`).

use super::readonly::Readonly;
use super::Parser;
use crate::ast::*;
use crate::error::{err, DResult, Loc};
use crate::types::CType;

/// How an expression's value is used.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Use {
    /// Its value is read (an array's or a function's is its address).
    Value,
    /// What it holds is read (`a[1]`, `s.m`: an array's elements too).
    Contents,
    /// Only its address is taken (`&e`, `&e.m`, `&e[1]`).
    Address,
}

impl Parser<'_> {
    /// Fails if `init`, the initializer of a file-scope object, reads the
    /// value of an object that is not `const` among `globals` (those
    /// declared before it), or calls or assigns.
    pub(super) fn refuse_non_constant(&self, init: &Init, globals: &[Decl]) -> DResult<()> {
        match init {
            Init::Expr(e) => self.constant(e, Use::Value, globals),
            Init::List(items, _) => {
                (items.iter()).try_for_each(|(_, i)| self.refuse_non_constant(i, globals))
            }
        }
    }

    fn constant(&self, e: &Expr, using: Use, globals: &[Decl]) -> DResult<()> {
        let walk = |e: &Expr, using: Use| self.constant(e, using, globals);
        match &e.kind {
            ExprKind::Int(..) | ExprKind::Float(..) | ExprKind::Str(_) => Ok(()),
            ExprKind::SizeofType(_) | ExprKind::SizeofExpr(_) | ExprKind::Generic(..) => Ok(()),
            ExprKind::Ident(name) => match globals.iter().rev().find(|g| g.name == *name) {
                Some(g) if !self.is_const(name) => match using {
                    Use::Contents => not_constant(e.loc),
                    Use::Value if !is_array(&g.ty) => not_constant(e.loc),
                    _ => Ok(()),
                },
                _ => Ok(()),
            },
            ExprKind::Unary(UnOp::Addr, x) => walk(x, Use::Address),
            ExprKind::Unary(UnOp::Deref, x) => walk(x, Use::Value),
            ExprKind::Unary(_, x) | ExprKind::Cast(_, x) => walk(x, using),
            ExprKind::Binary(_, a, b) | ExprKind::LogAnd(a, b) | ExprKind::LogOr(a, b) => {
                walk(a, Use::Value)?;
                walk(b, Use::Value)
            }
            ExprKind::Cond(c, a, b) => {
                walk(c, Use::Value)?;
                walk(a, using)?;
                walk(b, using)
            }
            // An element or member is read where its object is: by name
            // (`t[1]`, `s.m`: the object's own constness decides) or
            // through a pointer (whose value is read).
            ExprKind::Index(a, i) => {
                walk(i, Use::Value)?;
                walk(
                    a,
                    if using == Use::Address {
                        Use::Value
                    } else {
                        Use::Contents
                    },
                )
            }
            ExprKind::Member(x, _) if using == Use::Address => walk(x, Use::Address),
            ExprKind::Member(x, _) => walk(x, Use::Contents),
            ExprKind::Arrow(p, _) => walk(p, Use::Value),
            ExprKind::Compound(_, init) => self.refuse_non_constant(init, globals),
            // (Builtins such as `__builtin_inf()` are constants.)
            ExprKind::Call(name, args) if name.starts_with("__builtin_") => {
                args.iter().try_for_each(|a| walk(a, Use::Value))
            }
            ExprKind::Call(..)
            | ExprKind::CallPointer(..)
            | ExprKind::Assign(..)
            | ExprKind::IncDec { .. }
            | ExprKind::Comma(..)
            | ExprKind::StmtExpr(_) => not_constant(e.loc),
        }
    }

    /// Whether the file-scope object `name` is declared `const`.
    fn is_const(&self, name: &str) -> bool {
        let file = self.readonly.first();
        file.and_then(|s| s.get(name))
            .is_some_and(|r| matches!(r, Readonly::Object(_)))
    }
}

/// Whether an object of type `t` is an array (its name is its address).
fn is_array(t: &TypeExpr) -> bool {
    matches!(t, TypeExpr::Array(..) | TypeExpr::Known(CType::Array(..)))
}

fn not_constant(loc: Loc) -> DResult<()> {
    err(loc, "initializer element is not constant")
}
