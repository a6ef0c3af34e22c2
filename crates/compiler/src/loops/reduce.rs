//! Strength reduction: in a loop over `i`, a product `i * x` of the loop
//! variable with a value `x` the loop does not change becomes a variable
//! that follows it — set to the product before the first iteration, `x`
//! times the step added after each.
//!
//! Unrolled, `i * x` with `i` public costs a few shifted rows of `x`; kept
//! as a loop, the template would have to take `i` as an input and multiply
//! in every iteration (a thousand AND gates at 32 bits). The variable costs
//! one addition an iteration instead, and what is left of the counter
//! (`y ^ i`) costs nothing as an input, so the loop can be kept (issue 28's
//! counter loop, `t += i * x + (y ^ i)`).
//!
//! The value the product takes is the same in every iteration, modulo the
//! product's width: `i` moves by the step without wrapping (the loop
//! analysis proves that), and multiplication distributes over addition
//! modulo `2^w`.

use super::children;
use crate::ast::*;
use crate::types::CType;

/// A product to replace: its factor other than the loop variable, and
/// where it was first seen (its value before the first iteration is the
/// product as written there).
#[derive(Clone, Debug)]
pub struct Product {
    /// The factor the loop does not change (a variable, a member of one,
    /// an element at a constant index).
    pub factor: Expr,
    /// The product as first written.
    pub first: Expr,
}

/// The products of the loop variable `var` with a factor the loop body
/// does not change, each factor once; none if the body may change values
/// behind names (pointers, address-taking, calls) or skip the end of an
/// iteration (`continue`), where an update added at the end would not run.
/// `pointer(name)` says whether a name holds a pointer (or members or
/// elements that are) where the loop starts: writing through one may
/// change any factor.
pub fn products(body: &Stmt, var: &str, pointer: &dyn Fn(&str) -> bool) -> Vec<Product> {
    let mut scan = Scan::default();
    if scan.stmt(body, 0).is_none() || scan.changed.iter().any(|n| pointer(n)) {
        return Vec::new();
    }
    let mut found: Vec<Product> = Vec::new();
    // (The rewriting walk, on a copy: one walk over statements for both.)
    for_each_expr_mut(&mut body.clone(), &mut |e| {
        let e = &*e;
        if let Some(factor) = factor_of(e, var) {
            let fixed = root(factor).is_some_and(|r| !scan.changed.iter().any(|c| c == r));
            if fixed && !found.iter().any(|p| same(&p.factor, factor)) {
                found.push(Product {
                    factor: factor.clone(),
                    first: e.clone(),
                });
            }
        }
    });
    found
}

/// `body` with every product of `var` with `products[k]`'s factor replaced
/// by `replacements[k]`, and `updates` run at its end.
pub fn rewrite(
    body: &Stmt,
    var: &str,
    products: &[Product],
    replacements: &[Expr],
    updates: Vec<Stmt>,
) -> Stmt {
    let mut body = body.clone();
    for_each_expr_mut(&mut body, &mut |e| {
        let Some(factor) = factor_of(e, var) else {
            return;
        };
        if let Some(k) = products.iter().position(|p| same(&p.factor, factor)) {
            *e = replacements[k].clone();
        }
    });
    let loc = body.loc;
    let mut items = vec![body];
    items.extend(updates);
    Stmt {
        kind: StmtKind::Block(items),
        loc,
    }
}

/// The factor of `e` other than `var`, if `e` is `var * factor` or
/// `factor * var` with a factor of a fixed place.
fn factor_of<'e>(e: &'e Expr, var: &str) -> Option<&'e Expr> {
    let ExprKind::Binary(BinOp::Mul, a, b) = &e.kind else {
        return None;
    };
    let is_var = |x: &Expr| matches!(&x.kind, ExprKind::Ident(v) if v == var);
    let factor = match (is_var(a), is_var(b)) {
        (true, false) => b,
        (false, true) => a,
        _ => return None,
    };
    root(factor).filter(|r| *r != var).map(|_| factor.as_ref())
}

/// The variable a place names (`x`, `s.m`, `a[3].m`), if it is one at a
/// fixed position.
fn root(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Ident(v) => Some(v),
        ExprKind::Cast(t, a) if integer(t) => root(a),
        ExprKind::Member(a, _) => root(a),
        ExprKind::Index(a, k) if matches!(k.kind, ExprKind::Int(..)) => root(a),
        _ => None,
    }
}

/// Whether two places are written the same way.
fn same(a: &Expr, b: &Expr) -> bool {
    match (&a.kind, &b.kind) {
        (ExprKind::Ident(x), ExprKind::Ident(y)) => x == y,
        (ExprKind::Member(x, m), ExprKind::Member(y, n)) => m == n && same(x, y),
        (ExprKind::Cast(t, x), ExprKind::Cast(u, y)) => match (t, u) {
            (TypeExpr::Known(t), TypeExpr::Known(u)) => t == u && same(x, y),
            _ => false,
        },
        (ExprKind::Index(x, i), ExprKind::Index(y, j)) => match (&i.kind, &j.kind) {
            (ExprKind::Int(i, _), ExprKind::Int(j, _)) => i == j && same(x, y),
            _ => false,
        },
        _ => false,
    }
}

/// What a loop body changes: the variables it writes or declares.
#[derive(Default)]
struct Scan {
    changed: Vec<String>,
}

impl Scan {
    /// Notes what `s` changes; `None` if it may change what a name holds
    /// unseen, or continues the loop (`loops` deep in nested loops).
    fn stmt(&mut self, s: &Stmt, loops: u32) -> Option<()> {
        match &s.kind {
            StmtKind::Continue if loops == 0 => None,
            StmtKind::Empty | StmtKind::StaticAssert(..) | StmtKind::Continue => Some(()),
            StmtKind::Break | StmtKind::Return(_) => Some(()),
            StmtKind::Expr(e) => self.expr(e),
            StmtKind::Decl(ds) => ds.iter().try_for_each(|d| {
                // (A pointer declared here may point where a factor is.)
                let pointer = matches!(
                    d.ty,
                    TypeExpr::Pointer(_) | TypeExpr::Known(crate::types::CType::Pointer(_))
                );
                if pointer {
                    return None;
                }
                self.changed.push(d.name.clone());
                match &d.init {
                    Some(init) => {
                        let mut ok = Some(());
                        init.for_each_expr(&mut |e| ok = ok.and(self.expr(e)));
                        ok
                    }
                    None => Some(()),
                }
            }),
            StmtKind::Block(items) => items.iter().try_for_each(|i| self.stmt(i, loops)),
            StmtKind::If(c, t, e) => {
                self.expr(c)?;
                self.stmt(t, loops)?;
                e.as_deref().map_or(Some(()), |e| self.stmt(e, loops))
            }
            StmtKind::While(c, b) | StmtKind::DoWhile(b, c) => {
                self.expr(c)?;
                self.stmt(b, loops + 1)
            }
            StmtKind::For(init, c, step, b) => {
                if let Some(i) = init {
                    self.stmt(i, loops + 1)?;
                }
                c.iter().chain(step).try_for_each(|e| self.expr(e))?;
                self.stmt(b, loops + 1)
            }
            StmtKind::Switch(e, b) | StmtKind::Case(e, _, b) => {
                self.expr(e)?;
                self.stmt(b, loops)
            }
            StmtKind::Default(b) => self.stmt(b, loops),
        }
    }

    fn expr(&mut self, e: &Expr) -> Option<()> {
        match &e.kind {
            ExprKind::Call(..) | ExprKind::CallPointer(..) | ExprKind::Arrow(..) => return None,
            ExprKind::Unary(UnOp::Deref | UnOp::Addr, _) => return None,
            ExprKind::Assign(_, target, _) | ExprKind::IncDec { e: target, .. } => {
                self.changed.push(written(target)?.to_string());
            }
            _ => {}
        }
        let mut ok = Some(());
        children(e, &mut |c| ok = ok.and(self.expr(c)));
        ok
    }
}

/// The variable an assignment's target writes into (`x`, `a[i].m`).
fn written(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Ident(v) => Some(v),
        ExprKind::Member(a, _) | ExprKind::Index(a, _) => written(a),
        _ => None,
    }
}

/// Calls `f` on every expression in `s`, innermost last, letting it
/// replace them.
pub(super) fn for_each_expr_mut(s: &mut Stmt, f: &mut impl FnMut(&mut Expr)) {
    for_each_root_mut(s, &mut |e| expr_mut(e, f));
}

/// Calls `f` on each expression of `s` that is not inside another (a
/// condition, an initializer's values), letting it replace them.
pub(super) fn for_each_root_mut(s: &mut Stmt, f: &mut impl FnMut(&mut Expr)) {
    match &mut s.kind {
        StmtKind::Expr(e) => f(e),
        StmtKind::Return(e) => e.iter_mut().for_each(f),
        StmtKind::Decl(ds) => {
            for d in ds {
                if let Some(init) = &mut d.init {
                    init_roots(init, f);
                }
            }
        }
        StmtKind::Block(items) => items.iter_mut().for_each(|i| for_each_root_mut(i, f)),
        StmtKind::If(c, t, e) => {
            f(c);
            for_each_root_mut(t, f);
            if let Some(e) = e {
                for_each_root_mut(e, f);
            }
        }
        StmtKind::While(c, b) | StmtKind::DoWhile(b, c) => {
            f(c);
            for_each_root_mut(b, f);
        }
        StmtKind::For(init, c, step, b) => {
            if let Some(i) = init {
                for_each_root_mut(i, f);
            }
            c.iter_mut().chain(step).for_each(&mut *f);
            for_each_root_mut(b, f);
        }
        StmtKind::Switch(e, b) => {
            f(e);
            for_each_root_mut(b, f);
        }
        StmtKind::Case(k, hi, b) => {
            f(k);
            hi.iter_mut().for_each(&mut *f);
            for_each_root_mut(b, f);
        }
        StmtKind::Default(b) => for_each_root_mut(b, f),
        StmtKind::Empty | StmtKind::StaticAssert(..) | StmtKind::Break | StmtKind::Continue => {}
    }
}

fn init_mut(init: &mut Init, f: &mut impl FnMut(&mut Expr)) {
    init_roots(init, &mut |e| expr_mut(e, f));
}

/// Calls `f` on each value of an initializer.
pub(super) fn init_roots(init: &mut Init, f: &mut impl FnMut(&mut Expr)) {
    match init {
        Init::Expr(e) => f(e),
        Init::List(items, _) => items.iter_mut().for_each(|(_, i)| init_roots(i, f)),
    }
}

/// `f` on `e` and, if it left `e` as it was, on its sub-expressions.
pub(crate) fn expr_mut(e: &mut Expr, f: &mut impl FnMut(&mut Expr)) {
    let before = std::mem::discriminant(&e.kind);
    f(e);
    if std::mem::discriminant(&e.kind) != before {
        return;
    }
    for_children!(
        &mut e.kind,
        |a: &mut Expr| expr_mut(a, f),
        |init: &mut Init| init_mut(init, f),
        |items: &mut Vec<Stmt>| items.iter_mut().for_each(|s| for_each_expr_mut(s, f))
    );
}

/// Whether a cast is to an integer type (`(long long)x`: the factor
/// widened as C widens it before multiplying).
fn integer(t: &TypeExpr) -> bool {
    matches!(t, TypeExpr::Known(CType::Int { .. }))
}
