//! Loops rewritten once a function is read, so that they count a variable
//! a counted loop can be kept by: loops that count down in their condition
//! (`countdown.rs`) and loops that walk pointers (`walks.rs`). Both need
//! to know which names are automatic locals whose address the function
//! never takes (nothing but their own mentions reads or writes them), and
//! which of those are pointers.

use rustc_hash::FxHashMap as HashMap;
use rustc_hash::FxHashSet as HashSet;

use super::{countdown, walks};
use crate::ast::*;
use crate::types::CType;

/// Rewrites the loops of a function's `body` (its parameters `params`:
/// name and type), inner loops first.
pub fn rewrite_loops(body: &mut Stmt, params: &[(String, CType)]) {
    let mut taken = HashSet::default();
    body.for_each_expr(&mut |e| {
        super::visit(e, &mut |x| {
            if let ExprKind::Unary(UnOp::Addr, a) = &x.kind {
                if let ExprKind::Ident(name) = &a.kind {
                    taken.insert(name.clone());
                }
            }
        })
    });
    let params = params
        .iter()
        .map(|(name, t)| (name.clone(), matches!(t, CType::Pointer(_))));
    let mut scopes = Scopes {
        names: vec![params.collect()],
        taken,
        walks: 0,
    };
    scopes.stmt(body);
}

/// The automatic locals in scope, innermost scope last, each with whether
/// it is a pointer; the names whose address the function takes; and how
/// many loops were made walks (each counts with a variable of its own).
pub(super) struct Scopes {
    names: Vec<HashMap<String, bool>>,
    taken: HashSet<String>,
    pub(super) walks: usize,
}

impl Scopes {
    /// Whether `name` is an automatic local here whose address is never
    /// taken.
    pub(super) fn private(&self, name: &str) -> bool {
        !self.taken.contains(name) && self.names.iter().any(|s| s.contains_key(name))
    }

    /// Whether `name` is such a local, declared a pointer.
    pub(super) fn private_pointer(&self, name: &str) -> bool {
        let innermost = self.names.iter().rev().find_map(|s| s.get(name));
        !self.taken.contains(name) && innermost == Some(&true)
    }

    fn scoped(&mut self, f: impl FnOnce(&mut Scopes)) {
        self.names.push(HashMap::default());
        f(self);
        self.names.pop();
    }

    /// Rewrites the loops in `s`, inner ones first.
    fn stmt(&mut self, s: &mut Stmt) {
        match &mut s.kind {
            StmtKind::Block(items) => self.scoped(|me| items.iter_mut().for_each(|i| me.stmt(i))),
            StmtKind::Decl(ds) => {
                let scope = self.names.last_mut().expect("a scope");
                for d in ds {
                    let pointer = matches!(
                        d.ty,
                        TypeExpr::Pointer(_) | TypeExpr::Known(CType::Pointer(_))
                    );
                    scope.insert(d.name.clone(), pointer);
                }
            }
            StmtKind::If(_, t, e) => {
                self.scoped(|me| me.stmt(t));
                if let Some(e) = e {
                    self.scoped(|me| me.stmt(e));
                }
            }
            StmtKind::For(..) => {
                self.scoped(|me| {
                    let StmtKind::For(init, _, _, body) = &mut s.kind else {
                        unreachable!("a for loop")
                    };
                    if let Some(init) = init {
                        me.stmt(init);
                    }
                    me.scoped(|me| me.stmt(body));
                    countdown::rewrite(me, s);
                    walks::rewrite(me, s);
                });
            }
            StmtKind::While(_, b) => {
                self.scoped(|me| me.stmt(b));
                countdown::rewrite(self, s);
            }
            StmtKind::DoWhile(b, _)
            | StmtKind::Switch(_, b)
            | StmtKind::Case(_, _, b)
            | StmtKind::Default(b) => self.scoped(|me| me.stmt(b)),
            _ => {}
        }
    }
}
