//! Functions called from a loop body: they may write only their own locals.

use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeSet;

use crate::ast::*;
use crate::lower::is_pure_builtin;

use super::pattern::is_pointer;
use super::{no, Res, Scope};

/// Checks a called function: it writes only its own locals and parameters
/// (not through pointers); collects the globals it reads and the functions
/// it calls.
pub(super) struct Callee<'a> {
    /// Its parameters and the locals declared so far (innermost scope last).
    pub(super) scopes: Vec<Scope>,
    /// The program's functions by name.
    pub(super) funcs: &'a HashMap<String, &'a Function>,
    /// The functions it calls.
    pub(super) calls: Vec<String>,
    /// The globals it reads.
    pub(super) globals: BTreeSet<String>,
}

impl Callee<'_> {
    fn local(&self, name: &str) -> Option<bool> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    /// Checks a statement of the function.
    pub(super) fn stmt(&mut self, s: &Stmt) -> Res {
        match &s.kind {
            StmtKind::Expr(e) => self.expr(e),
            StmtKind::Decl(ds) => {
                for d in ds {
                    if let TypeExpr::Array(_, Some(n)) = &d.ty {
                        self.expr(n)?;
                    }
                    if let Some(i) = &d.init {
                        self.init(i)?;
                    }
                    if let Some(sc) = self.scopes.last_mut() {
                        sc.insert(d.name.clone(), is_pointer(&d.ty));
                    }
                }
                Ok(())
            }
            StmtKind::Block(items) => {
                self.scopes.push(Scope::default());
                let r = items.iter().try_for_each(|s| self.stmt(s));
                self.scopes.pop();
                r
            }
            StmtKind::If(c, t, e) => {
                self.expr(c)?;
                self.stmt(t)?;
                e.as_ref().map_or(Ok(()), |e| self.stmt(e))
            }
            StmtKind::While(c, b) | StmtKind::DoWhile(b, c) | StmtKind::Switch(c, b) => {
                self.expr(c)?;
                self.stmt(b)
            }
            StmtKind::For(i, c, st, b) => {
                self.scopes.push(Scope::default());
                let r = (|| {
                    if let Some(i) = i {
                        self.stmt(i)?;
                    }
                    for e in [c, st].into_iter().flatten() {
                        self.expr(e)?;
                    }
                    self.stmt(b)
                })();
                self.scopes.pop();
                r
            }
            StmtKind::Case(_, _, b) | StmtKind::Default(b) => self.stmt(b),
            StmtKind::Return(Some(e)) => self.expr(e),
            StmtKind::Empty
            | StmtKind::StaticAssert(..)
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Return(None) => Ok(()),
        }
    }

    fn init(&mut self, i: &Init) -> Res {
        match i {
            Init::Expr(e) => self.expr(e),
            Init::List(items, _) => items.iter().try_for_each(|(_, i)| self.init(i)),
        }
    }

    fn expr(&mut self, e: &Expr) -> Res {
        match &e.kind {
            ExprKind::Ident(n) => {
                if self.local(n).is_none() && !self.funcs.contains_key(n) {
                    self.globals.insert(n.clone());
                }
                Ok(())
            }
            ExprKind::Assign(_, a, b) => {
                self.target(a)?;
                self.expr(a)?;
                self.expr(b)
            }
            ExprKind::IncDec { e: a, .. } => {
                self.target(a)?;
                self.expr(a)
            }
            ExprKind::CallPointer(..) => no("calls through a function pointer"),
            ExprKind::Call(name, args) => {
                if matches!(name.as_str(), "memcpy" | "memmove" | "memset") {
                    return no(format!("calls {name}"));
                }
                if self.local(name).is_some() {
                    return no("calls through a function pointer");
                }
                if !matches!(name.as_str(), "abs" | "labs" | "llabs") && !is_pure_builtin(name) {
                    if !self.funcs.contains_key(name) {
                        return no(format!("calls '{name}'"));
                    }
                    self.calls.push(name.clone());
                }
                args.iter().try_for_each(|a| self.expr(a))
            }
            ExprKind::Int(..)
            | ExprKind::Float(..)
            | ExprKind::Str(_)
            | ExprKind::SizeofType(_)
            | ExprKind::SizeofExpr(_) => Ok(()),
            ExprKind::Unary(_, a)
            | ExprKind::Member(a, _)
            | ExprKind::Arrow(a, _)
            | ExprKind::Cast(_, a) => self.expr(a),
            ExprKind::Binary(_, a, b)
            | ExprKind::LogAnd(a, b)
            | ExprKind::LogOr(a, b)
            | ExprKind::Comma(a, b)
            | ExprKind::Index(a, b) => {
                self.expr(a)?;
                self.expr(b)
            }
            ExprKind::Cond(a, b, c) => {
                self.expr(a)?;
                self.expr(b)?;
                self.expr(c)
            }
            ExprKind::Compound(..) => no("makes a compound literal".to_string()),
            ExprKind::StmtExpr(_) => no("has a statement expression".to_string()),
            ExprKind::Generic(..) => no("has a _Generic selection".to_string()),
        }
    }

    /// A written location: a local or parameter, not through a pointer.
    fn target(&self, e: &Expr) -> Res {
        let mut at = e;
        let mut path = false;
        loop {
            match &at.kind {
                ExprKind::Ident(n) => {
                    return match self.local(n) {
                        Some(true) if path => no("writes through a pointer"),
                        Some(_) => Ok(()),
                        None => no(format!("writes '{n}'")),
                    }
                }
                ExprKind::Index(a, _) | ExprKind::Member(a, _) => {
                    path = true;
                    at = a;
                }
                _ => return no("writes through a pointer"),
            }
        }
    }
}
