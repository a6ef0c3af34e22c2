//! What C refuses in declarations and assignments that the parser can
//! see: an object declared `const` (or an array of such, or a struct
//! declared `const`) assigned, incremented or decremented by its name
//! (C11 6.5.16p2, 6.5.2.4p1), and an identifier declared twice in one
//! block scope (6.7p3; `extern` declarations may repeat). A write
//! through a pointer is not checked: `const` is not part of [`CType`].
//!
//! [`CType`]: crate::types::CType

use super::Parser;
use crate::ast::{Expr, ExprKind, TypeExpr};
use crate::error::{err, DResult, Loc};
use crate::types::CType;

/// How an lvalue is modified, for the message.
#[derive(Clone, Copy)]
pub(super) enum Modified {
    Assignment,
    Increment,
    Decrement,
}

impl Modified {
    /// `++` if `inc`, else `--`.
    pub(super) fn of_step(inc: bool) -> Modified {
        match inc {
            true => Modified::Increment,
            false => Modified::Decrement,
        }
    }
}

impl Parser<'_> {
    /// Notes that `name`, declared in the innermost scope with
    /// specifiers that are `const` if `is_const` and type `ty` (as the
    /// declarator made it), is read-only if [`readonly_dims`] says so.
    pub(super) fn note_readonly(&mut self, name: &str, is_const: bool, ty: &TypeExpr) {
        if let Some(dims) = readonly_dims(is_const, ty) {
            self.note_readonly_dims(name, dims);
        }
    }

    /// Notes that `name`, declared in the innermost scope, is read-only
    /// with `dims` array dimensions.
    pub(super) fn note_readonly_dims(&mut self, name: &str, dims: u32) {
        if let Some(scope) = self.readonly.last_mut() {
            scope.insert(name.to_string(), dims);
        }
    }

    /// Notes that the static local hoisted as the global `global` is
    /// read-only if its local `name` was noted so.
    pub(super) fn note_readonly_static(&mut self, name: &str, global: &str) {
        if let Some(&dims) = self.readonly.last().and_then(|s| s.get(name)) {
            self.readonly[0].insert(global.to_string(), dims);
        }
    }

    /// The array dimensions of the variable `name` (as an expression
    /// names it) if it is read-only: the innermost local of that name,
    /// else the global.
    fn readonly_dims(&self, name: &str) -> Option<u32> {
        let scopes = self.locals.iter().zip(&self.readonly).rev();
        for (locals, readonly) in scopes {
            if locals.contains_key(name) {
                return readonly.get(name).copied();
            }
        }
        self.readonly[0].get(name).copied()
    }

    /// The read-only variable `e` is, or is an element (`[]` within its
    /// declared dimensions) or member (`.`) of.
    fn readonly_root<'e>(&self, e: &'e Expr) -> Option<&'e str> {
        let (mut base, mut indices) = (e, 0);
        while let ExprKind::Index(b, _) = &base.kind {
            (base, indices) = (b, indices + 1);
        }
        match &base.kind {
            ExprKind::Ident(name) => {
                (self.readonly_dims(name)? >= indices).then_some(name.as_str())
            }
            ExprKind::Member(b, _) if indices == 0 => self.readonly_root(b),
            _ => None,
        }
    }

    /// Refuses to modify `target` if it is a read-only variable, or an
    /// element or member of one.
    pub(super) fn refuse_readonly(&self, target: &Expr, how: Modified, loc: Loc) -> DResult<()> {
        let Some(name) = self.readonly_root(target) else {
            return Ok(());
        };
        let what = match how {
            Modified::Assignment => "assignment of",
            Modified::Increment => "increment of",
            Modified::Decrement => "decrement of",
        };
        // (A static local is named by its global: `count#0`.)
        let shown = name.split('#').next().unwrap_or(name);
        let part = match target.kind {
            ExprKind::Ident(_) => "",
            _ => "a part of ",
        };
        err(
            loc,
            format!("{what} {part}the read-only variable '{shown}' (declared const)"),
        )
    }

    /// Refuses a second declaration of `name` in the innermost block
    /// scope, unless both are `extern` declarations.
    pub(super) fn refuse_redeclaration(
        &self,
        name: &str,
        is_extern: bool,
        loc: Loc,
    ) -> DResult<()> {
        let Some(before) = self.locals.last().and_then(|s| s.get(name)) else {
            return Ok(());
        };
        let extern_before = before.as_deref() == Some(crate::ast::file_scope_alias(name).as_str());
        if is_extern && extern_before {
            return Ok(());
        }
        err(loc, format!("redefinition of '{name}' in the same scope"))
    }
}

/// The array dimensions the declarator gave a read-only object declared
/// with specifiers that are `const` if `is_const` and type `ty`; `None`
/// if it is not read-only or is a pointer (`const int *p` points to
/// read-only values; `p`, or an element of a `const` pointer, is not
/// checked).
pub(super) fn readonly_dims(is_const: bool, ty: &TypeExpr) -> Option<u32> {
    let (mut t, mut dims) = (ty, 0);
    while let TypeExpr::Array(elem, _) = t {
        (t, dims) = (elem, dims + 1);
    }
    let pointer = matches!(t, TypeExpr::Pointer(_) | TypeExpr::Typeof(_))
        || matches!(t, TypeExpr::Known(CType::Pointer(_)));
    (is_const && !pointer).then_some(dims)
}
