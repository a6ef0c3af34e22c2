//! What C refuses in declarations and assignments that the parser can
//! see: an object declared `const` (or an array of such, or a struct
//! declared `const`) assigned, incremented or decremented by its name
//! (C11 6.5.16p2, 6.5.2.4p1), or through a pointer declared to point to
//! `const` values (`*p`, `p[i]`, `p->m`, with `const T *p`), and an
//! identifier declared twice in one block scope (6.7p3; `extern`
//! declarations may repeat). Other writes through pointers are not
//! checked: `const` is not part of [`CType`] (a pointer cast to drop it,
//! or copied, writes as C lets it).
//!
//! [`CType`]: crate::types::CType

use super::Parser;
use crate::ast::{Expr, ExprKind, TypeExpr, UnOp};
use crate::error::{err, DResult, Loc};
use crate::types::CType;

/// What is read-only about a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Readonly {
    /// The variable itself, declared `const`, with this many array
    /// dimensions.
    Object(u32),
    /// What it points to (`const T *p`).
    Pointee,
}

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
        if let Some(what) = readonly_part(is_const, ty) {
            self.note_readonly_part(name, what);
        }
    }

    /// Notes that `what` of `name`, declared in the innermost scope, is
    /// read-only.
    pub(super) fn note_readonly_part(&mut self, name: &str, what: Readonly) {
        if let Some(scope) = self.readonly.last_mut() {
            scope.insert(name.to_string(), what);
        }
    }

    /// Notes that the static local hoisted as the global `global` is
    /// read-only if its local `name` was noted so.
    pub(super) fn note_readonly_static(&mut self, name: &str, global: &str) {
        if let Some(&what) = self.readonly.last().and_then(|s| s.get(name)) {
            self.readonly[0].insert(global.to_string(), what);
        }
    }

    /// What is read-only of the variable `name` (as an expression names
    /// it), if anything: the innermost local of that name, else the
    /// global.
    fn readonly_of(&self, name: &str) -> Option<Readonly> {
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
            ExprKind::Ident(name) => match self.readonly_of(name)? {
                Readonly::Object(dims) => (dims >= indices).then_some(name.as_str()),
                Readonly::Pointee => None,
            },
            ExprKind::Member(b, _) if indices == 0 => self.readonly_root(b),
            _ => None,
        }
    }

    /// The pointer to read-only values whose pointee `e` is, or is a
    /// member of (`*p`, `p[i]`, `p->m`, `p[i].m`).
    fn readonly_pointer<'e>(&self, e: &'e Expr) -> Option<&'e str> {
        let pointer = match &e.kind {
            ExprKind::Unary(UnOp::Deref, p) | ExprKind::Index(p, _) | ExprKind::Arrow(p, _) => p,
            ExprKind::Member(b, _) => return self.readonly_pointer(b),
            _ => return None,
        };
        match &pointer.kind {
            ExprKind::Ident(name) => {
                (self.readonly_of(name)? == Readonly::Pointee).then_some(name.as_str())
            }
            _ => None,
        }
    }

    /// Refuses to modify `target` if it is a read-only variable, or an
    /// element or member of one.
    pub(super) fn refuse_readonly(&self, target: &Expr, how: Modified, loc: Loc) -> DResult<()> {
        let what = match how {
            Modified::Assignment => "assignment of",
            Modified::Increment => "increment of",
            Modified::Decrement => "decrement of",
        };
        if let Some(pointer) = self.readonly_pointer(target) {
            let shown = pointer.split('#').next().unwrap_or(pointer);
            return err(
                loc,
                format!("{what} a read-only location through '{shown}' (a pointer to const)"),
            );
        }
        let Some(name) = self.readonly_root(target) else {
            return Ok(());
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

/// What is read-only of a variable declared with specifiers that are
/// `const` if `is_const` and type `ty`: the object, with the array
/// dimensions the declarator gave it; or, for a pointer declared `const T
/// *p`, what it points to (`p` itself, a pointer to pointers, or an
/// element of an array of pointers is not checked).
pub(super) fn readonly_part(is_const: bool, ty: &TypeExpr) -> Option<Readonly> {
    let (mut t, mut dims) = (ty, 0);
    while let TypeExpr::Array(elem, _) = t {
        (t, dims) = (elem, dims + 1);
    }
    if !is_const {
        return None;
    }
    match t {
        TypeExpr::Pointer(inner) if dims == 0 && !matches!(**inner, TypeExpr::Pointer(_)) => {
            Some(Readonly::Pointee)
        }
        TypeExpr::Pointer(_) | TypeExpr::Typeof(_) | TypeExpr::Known(CType::Pointer(_)) => None,
        _ => Some(Readonly::Object(dims)),
    }
}
