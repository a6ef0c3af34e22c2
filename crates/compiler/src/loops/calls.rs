//! Calls in a loop body whose keys are planned (see [`super::counter`]):
//! what a call may write, found from the names in its arguments and in the
//! functions it runs.
//!
//! A key reads the loop's variable and invariants, and a hoist reads values
//! the body does not write: the plan needs every name the body may write.
//! Written in the body, a name is seen where it is assigned. A call writes
//! what its function assigns by name that is not its own (globals), and
//! what its arguments let it reach: an array, a member or element of one,
//! or `&x.a[i]` passes a pointer into `x`. So a call is planned when its
//! function, and every function that function calls in turn, is defined,
//! not recursive, runs no loop (a body with a loop is not planned either),
//! returns no pointer, and reaches memory only through its parameters, its
//! own locals and globals by name: no argument, parameter's target or
//! global that holds a pointer, no pointer made by a cast, no local that
//! hides a global. Anything else leaves the body unplanned, as before.

use rustc_hash::FxHashSet as HashSet;

use super::children;
use crate::ast::*;
use crate::types::CType;

/// What planning needs to know of the program around a loop body.
pub trait Context {
    /// Whether `name`, which the body does not declare, holds a public
    /// scalar now.
    fn invariant(&self, name: &str) -> bool;
    /// Whether `name`, as the loop sees it, is a scalar; `None` if no
    /// variable of that name is in scope.
    fn scalar(&self, name: &str) -> Option<bool>;
    /// Whether `name`, as the loop sees it, holds a pointer.
    fn holds_pointer(&self, name: &str) -> bool;
    /// `name`'s type, if it names a global variable.
    fn global(&self, name: &str) -> Option<&CType>;
    /// The function `name`, if the program defines it.
    fn function(&self, name: &str) -> Option<&Function>;
}

/// Functions nested deeper than this in a call are not followed.
const MAX_CALL_DEPTH: usize = 16;

/// The roots of the objects that argument `arg` may pass a pointer into:
/// the base name of each array, member or element read outside a
/// subscript (`x` of `x.r`, `&x.r[i]`, `x.r + 1`), but for bare names that
/// `is_scalar` says are scalars (their values are passed, not their
/// places). `None` if an argument holds a pointer (`holds_pointer`).
pub(super) fn reached(
    arg: &Expr,
    is_scalar: &dyn Fn(&str) -> bool,
    holds_pointer: &dyn Fn(&str) -> bool,
) -> Option<Vec<String>> {
    let mut roots = Vec::new();
    collect_roots(arg, is_scalar, &mut roots);
    if roots.iter().any(|r| holds_pointer(r)) {
        return None;
    }
    Some(roots)
}

fn collect_roots(e: &Expr, is_scalar: &dyn Fn(&str) -> bool, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Ident(n) => {
            if !is_scalar(n) {
                out.push(n.clone());
            }
        }
        ExprKind::Member(..) | ExprKind::Index(..) | ExprKind::Unary(UnOp::Addr, _) => {
            let mut base = e;
            loop {
                match &base.kind {
                    ExprKind::Member(a, _) | ExprKind::Unary(UnOp::Addr, a) => base = a,
                    ExprKind::Index(a, i) => {
                        // (A subscript's value is an integer: no place.)
                        collect_roots(i, &|_| true, out);
                        base = a;
                    }
                    _ => break,
                }
            }
            match &base.kind {
                ExprKind::Ident(n) => out.push(n.clone()),
                _ => collect_roots(base, is_scalar, out),
            }
        }
        _ => children(e, &mut |c| collect_roots(c, is_scalar, out)),
    }
}

/// The names that a call of `name` may write that are not its own (see
/// the module docs); `None` if the call does not qualify. `calling` lists
/// the functions whose calls are being followed.
pub(super) fn writes(
    cx: &dyn Context,
    name: &str,
    calling: &mut Vec<String>,
) -> Option<HashSet<String>> {
    let f = cx.function(name)?;
    if calling.iter().any(|c| c == name) || calling.len() >= MAX_CALL_DEPTH {
        return None;
    }
    let reaches_pointer = |t: &CType| match t {
        CType::Pointer(target) => target.holds_pointer(),
        t => t.holds_pointer(),
    };
    if f.ret.holds_pointer() || f.params.iter().any(|(_, t, _)| reaches_pointer(t)) {
        return None;
    }
    let mut walker = Callee {
        cx,
        own: f.params.iter().map(|(n, _, _)| n.clone()).collect(),
        written: HashSet::default(),
        calling,
    };
    walker.calling.push(name.to_string());
    let walked = walker.stmt(&f.body);
    walker.calling.pop();
    walked?;
    Some(walker.written)
}

/// A walk over a called function's body.
struct Callee<'a, 'c> {
    cx: &'a dyn Context,
    /// Its parameters and locals.
    own: HashSet<String>,
    /// The names it writes that are not its own.
    written: HashSet<String>,
    calling: &'c mut Vec<String>,
}

/// A walk over statements without loops (a loop body's, or a called
/// function's): `None` where one disqualifies what is walked.
pub(super) trait Walk {
    /// An expression statement, condition or initializer.
    fn expr(&mut self, e: &Expr) -> Option<()>;
    /// A declaration.
    fn decl(&mut self, d: &Decl) -> Option<()>;
    /// A `return` (of a value, if any).
    fn ret(&mut self, e: Option<&Expr>) -> Option<()>;

    /// Walks `s` (a nested loop disqualifies it, but `do ... while (0)`).
    fn stmt(&mut self, s: &Stmt) -> Option<()> {
        match &s.kind {
            StmtKind::Empty | StmtKind::Break | StmtKind::Continue => Some(()),
            StmtKind::StaticAssert(e, _) | StmtKind::Expr(e) => self.expr(e),
            StmtKind::Return(e) => self.ret(e.as_ref()),
            StmtKind::Decl(ds) => ds.iter().try_for_each(|d| self.decl(d)),
            StmtKind::Block(items) => items.iter().try_for_each(|i| self.stmt(i)),
            StmtKind::If(c, t, e) => {
                self.expr(c)?;
                self.stmt(t)?;
                e.as_deref().map_or(Some(()), |e| self.stmt(e))
            }
            StmtKind::Switch(e, b) => {
                self.expr(e)?;
                self.stmt(b)
            }
            StmtKind::Case(_, _, inner) | StmtKind::Default(inner) => self.stmt(inner),
            // (A nested loop written out wraps a copy that continues so:
            // it runs once.)
            StmtKind::DoWhile(b, c) if matches!(c.kind, ExprKind::Int(0, _)) => self.stmt(b),
            StmtKind::While(..) | StmtKind::DoWhile(..) | StmtKind::For(..) => None,
        }
    }
}

impl Walk for Callee<'_, '_> {
    fn expr(&mut self, e: &Expr) -> Option<()> {
        Callee::expr(self, e)
    }

    fn decl(&mut self, d: &Decl) -> Option<()> {
        // A local that hides a global would hide its writes.
        if self.cx.global(&d.name).is_some() || !matches!(d.ty, TypeExpr::Known(_)) {
            return None;
        }
        self.own.insert(d.name.clone());
        let mut ok = Some(());
        if let Some(init) = &d.init {
            init.for_each_expr(&mut |e| ok = ok.and_then(|_| Callee::expr(self, e)));
        }
        ok
    }

    fn ret(&mut self, e: Option<&Expr>) -> Option<()> {
        e.map_or(Some(()), |e| Callee::expr(self, e))
    }
}

impl Callee<'_, '_> {
    fn expr(&mut self, e: &Expr) -> Option<()> {
        match &e.kind {
            ExprKind::StmtExpr(_)
            | ExprKind::CallPointer(..)
            | ExprKind::Cast(TypeExpr::Pointer(_) | TypeExpr::Array(..), _) => return None,
            ExprKind::Ident(n) if !self.own.contains(n) => match self.cx.global(n) {
                Some(t) if t.holds_pointer() => return None,
                // An array or struct may become a pointer into it here
                // (`int *q = g;`): written, as an argument's object is.
                Some(t) if t.scalar().is_none() => _ = self.written.insert(n.clone()),
                _ => {}
            },
            // (A parameter or local of that name is a function pointer.)
            ExprKind::Call(f, _) if self.own.contains(f) => return None,
            ExprKind::Call(f, args) => {
                for a in args {
                    let own = |n: &str| self.own.contains(n);
                    let roots = reached(a, &|_| false, &|n| {
                        !own(n) && self.cx.global(n).is_some_and(CType::holds_pointer)
                    })?;
                    let foreign = roots.into_iter().filter(|r| !self.own.contains(r));
                    self.written.extend(foreign);
                    self.expr(a)?;
                }
                let nested = writes(self.cx, f, self.calling)?;
                self.written.extend(nested);
                return Some(());
            }
            ExprKind::Unary(UnOp::Addr, a) => {
                // A pointer to a global: writes through it are its.
                let mut roots = Vec::new();
                collect_roots(e, &|_| false, &mut roots);
                let foreign = roots.into_iter().filter(|r| !self.own.contains(r));
                self.written.extend(foreign);
                return self.expr(a);
            }
            ExprKind::Assign(_, t, _) | ExprKind::IncDec { e: t, .. } => {
                let mut base = t.as_ref();
                while let ExprKind::Index(a, _)
                | ExprKind::Member(a, _)
                | ExprKind::Arrow(a, _)
                | ExprKind::Unary(UnOp::Deref, a) = &base.kind
                {
                    base = a;
                }
                // (A target reached from a pointer some other way, `*(p +
                // 1)`, is reached through its parameters or locals: only
                // what the call was passed.)
                if let ExprKind::Ident(n) = &base.kind {
                    if !self.own.contains(n) {
                        self.written.insert(n.clone());
                    }
                }
            }
            _ => {}
        }
        let mut ok = Some(());
        children(e, &mut |c| ok = ok.and_then(|_| self.expr(c)));
        ok
    }
}
