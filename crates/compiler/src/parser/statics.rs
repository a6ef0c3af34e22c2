//! Static local variables: one object for the whole program, initialized
//! once before the entry function runs (from its constant initializer, or
//! zero), shared by every call of its function (calls are inlined). Each
//! becomes a global under a name no C identifier can be (`count#0`), and
//! the parser writes that name wherever the local's name refers to it.

use super::Parser;
use crate::ast::{Decl, Expr, ExprKind};
use crate::error::{err, DResult, Loc};

impl Parser<'_> {
    /// Makes the static local `decl` a global of its own, named so in its
    /// scope from here on.
    pub(super) fn hoist_static(&mut self, mut decl: Decl) -> DResult<()> {
        let mut automatic = None;
        if let Some(init) = &decl.init {
            init.for_each_expr(&mut |e| automatic = automatic.take().or(self.reads_local(e)));
        }
        if let Some((local, at)) = automatic {
            return err(
                at,
                format!(
                    "the initializer of the static variable '{}' is not a constant: it reads the local '{local}'",
                    decl.name
                ),
            );
        }
        let global = format!("{}#{}", decl.name, self.statics_made);
        self.statics_made += 1;
        self.note_readonly_static(&decl.name, &global);
        if let Some(scope) = self.locals.last_mut() {
            scope.insert(decl.name.clone(), Some(global.clone()));
        }
        decl.name = global;
        self.hoisted.push(decl);
        Ok(())
    }

    /// The first automatic local variable (or parameter) that `e` names,
    /// and where.
    fn reads_local(&self, e: &Expr) -> Option<(String, Loc)> {
        if let ExprKind::Ident(name) = &e.kind {
            let bound = self.locals.iter().rev().find_map(|s| s.get(name));
            if let Some(None) = bound {
                return Some((name.clone(), e.loc));
            }
        }
        let mut found = None;
        crate::loops::children(e, &mut |c| {
            found = found.take().or_else(|| self.reads_local(c))
        });
        found
    }

    /// Records the (automatic) local `name`, which hides a static local of
    /// that name in an outer scope.
    pub(super) fn declare_local(&mut self, name: &str) {
        if let Some(scope) = self.locals.last_mut() {
            scope.insert(name.to_string(), None);
        }
    }

    /// The name of the object the identifier `name` refers to: a static
    /// local's global, or `name`.
    pub(super) fn variable(&self, name: &str) -> String {
        let bound = self.locals.iter().rev().find_map(|s| s.get(name));
        match bound {
            Some(Some(global)) => global.clone(),
            _ => name.to_string(),
        }
    }
}
