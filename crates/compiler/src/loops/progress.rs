//! A public bound on the length of a loop whose exit depends on secrets,
//! from the counters its condition compares: a merge of two sorted arrays,
//!
//! ```c
//! while (i < n && j < m) {
//!     if (a[i] <= b[j]) out[k++] = a[i++]; else out[k++] = b[j++];
//! }
//! ```
//!
//! stops where it does by secrets, but every iteration steps `i` or `j`
//! towards its bound, so it runs at most `(n - i) + (m - j) - 1` times.
//!
//! The condition is a conjunction (`&&`) of which some terms compare a
//! variable with a bound (`i < n`, `j + 1 <= m`, `k >= 0`; the form loops
//! are kept by, see [`super::condition`]); the other terms only end the
//! loop sooner. A term `!found` (or `found == 0`) names a *flag*: a path
//! that sets it to a constant other than 0 (`found = 1`), and writes it
//! no other way, leaves the loop at the next test, as a `break` does
//! (`while (i < n && !found) { if (a[i] == x) found = 1; else i++; }`). Each counter's *distance* is how far it is from failing
//! its term (`n - 1 - i`), at least 0 while the loop runs. The body and
//! the step only move counters towards their bounds (`i++`, `i += 2`,
//! `i = i + 1`; `--` for a counter compared from below), and every path
//! through them that goes on to the next iteration moves them `p` steps in
//! all, at least 1: the sum of the distances falls by `p` an iteration, so
//! at most `sum / p + 1` iterations run. Paths that `break` or `return`
//! leave the loop and do not count. The lowering checks what the source
//! cannot: the counters and bounds are public at the loop's start, the
//! bounds do not change, and no value passes its type's range (see
//! `lower::stmt`).

use super::{children, condition, mentions, offset_var};
use crate::ast::{BinOp, Expr, ExprKind, Stmt, StmtKind, UnOp};
use crate::parser::const_eval;

/// A counter the loop's condition bounds: `var + offset op bound`.
pub struct Counter<'a> {
    /// The variable.
    pub var: &'a str,
    /// The constant added to it in the comparison.
    pub offset: i128,
    /// The comparison, the variable on its left: `<`, `<=` (it counts up)
    /// or `>`, `>=` (down).
    pub op: BinOp,
    /// The bound.
    pub bound: &'a Expr,
    /// The most the body and the step can move it in one iteration.
    pub most: i128,
}

impl Counter<'_> {
    /// Whether it counts up (towards a bound above it).
    pub fn up(&self) -> bool {
        matches!(self.op, BinOp::Lt | BinOp::Le)
    }
}

/// The counters of a loop that makes progress, and how far they move in
/// all on every path that goes on (`None`: no path goes on).
pub struct Progress<'a> {
    /// The counters, each variable once.
    pub counters: Vec<Counter<'a>>,
    /// The flags (see the module docs).
    pub flags: Vec<&'a str>,
    /// The least progress an iteration that goes on makes, at least 1.
    pub per_iteration: Option<u64>,
}

impl Progress<'_> {
    /// The most iterations that can run, given each counter's distance
    /// from its bound at the start (in `counters`' order; negative if the
    /// term fails at once).
    pub fn most_iterations(&self, distances: &[i128]) -> u64 {
        if distances.iter().any(|&d| d < 0) {
            return 0;
        }
        match self.per_iteration {
            None => 1,
            Some(p) => {
                let sum: i128 = distances.iter().sum();
                u64::try_from(sum / i128::from(p) + 1).unwrap_or(u64::MAX)
            }
        }
    }
}

/// The counters of `while (cond) body` (or `for (; cond; step) body`) and
/// the progress every iteration makes, if it makes some on every path.
pub fn analyze<'a>(
    cond: &'a Expr,
    step: Option<&Expr>,
    body: &Stmt,
    counts: &mut impl FnMut(&str, &Expr) -> bool,
) -> Option<Progress<'a>> {
    if cond.has_side_effects() {
        return None;
    }
    let mut terms = Vec::new();
    conjuncts(cond, &mut terms);
    let mut counters: Vec<Counter<'a>> = Vec::new();
    let mut flags = Vec::new();
    for t in terms {
        let Some((var, offset, op, bound)) = condition(t) else {
            flags.extend(flag(t));
            continue;
        };
        // A comparison that counts nothing (`a[i] != x`, `s < secret`,
        // a variable compared twice) only ends the loop sooner.
        let counter = op != BinOp::Ne
            && !mentions(bound, var)
            && !counters.iter().any(|c| c.var == var)
            && counts(var, bound);
        if !counter {
            continue;
        }
        if counters
            .iter()
            .any(|c| mentions(bound, c.var) || mentions(c.bound, var))
        {
            return None;
        }
        counters.push(Counter {
            var,
            offset,
            op,
            bound,
            most: 0,
        });
    }
    if counters.is_empty() {
        return None;
    }
    if flags.iter().any(|f| counters.iter().any(|c| c.var == *f)) {
        return None;
    }
    let mut walk = Walk {
        counters: &mut counters,
        flags: &flags,
    };
    let flow = walk.stmt(body)?;
    let stepped = match step {
        Some(s) => walk.expr(s)?,
        None => 0,
    };
    // A bound may not change: nothing the body writes is named in one.
    if counters
        .iter()
        .any(|c| writes_any(body, c.bound) || step.is_some_and(|s| writes_in(s, c.bound)))
    {
        return None;
    }
    let per_iteration = least(flow.through, flow.cont).map(|p| p + stepped);
    if per_iteration == Some(0) {
        return None;
    }
    Some(Progress {
        counters,
        flags,
        per_iteration,
    })
}

/// The flag a condition's term tests for 0: `!f`, `f == 0` or `0 == f`.
fn flag(t: &Expr) -> Option<&str> {
    fn name(e: &Expr) -> Option<&str> {
        match &e.kind {
            ExprKind::Ident(v) => Some(v.as_str()),
            _ => None,
        }
    }
    match &t.kind {
        ExprKind::Unary(UnOp::Not, f) => name(f),
        ExprKind::Binary(BinOp::Eq, a, b) => match (const_eval(a), const_eval(b)) {
            (None, Some(0)) => name(a),
            (Some(0), None) => name(b),
            _ => None,
        },
        _ => None,
    }
}

/// The terms of a conjunction, in order (`a && b && c` gives `a`, `b`,
/// `c`).
pub(super) fn conjuncts<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    match &e.kind {
        ExprKind::LogAnd(a, b) => {
            conjuncts(a, out);
            conjuncts(b, out);
        }
        _ => out.push(e),
    }
}

/// The least progress of the paths through a statement that reach its
/// end (`through`) and that reach a `continue` of the loop (`cont`);
/// `None` where no path does.
#[derive(Clone, Copy)]
struct Flow {
    through: Option<u64>,
    cont: Option<u64>,
}

impl Flow {
    const fn straight(p: u64) -> Flow {
        Flow {
            through: Some(p),
            cont: None,
        }
    }
}

/// The lesser of two optional amounts (`None`: no path).
fn least(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) | (None, x) => x,
    }
}

/// Walks the body, checking every write to a counter and adding up their
/// moves; `None` where a counter changes in any other way.
struct Walk<'c, 'a> {
    counters: &'c mut Vec<Counter<'a>>,
    flags: &'c [&'a str],
}

impl Walk<'_, '_> {
    fn counter(&mut self, e: &Expr) -> Option<usize> {
        match &e.kind {
            ExprKind::Ident(v) => self.counters.iter().position(|c| c.var == v),
            _ => None,
        }
    }

    fn stmt(&mut self, s: &Stmt) -> Option<Flow> {
        Some(match &s.kind {
            StmtKind::Empty | StmtKind::StaticAssert(..) => Flow::straight(0),
            // Setting a flag leaves the loop at the next test.
            StmtKind::Expr(e) if self.sets_flag(e) => Flow {
                through: None,
                cont: None,
            },
            StmtKind::Expr(e) => Flow::straight(self.expr(e)?),
            StmtKind::Decl(ds) => {
                let mut p = 0;
                for d in ds {
                    let named = |v: &str| v == d.name;
                    if self.counters.iter().any(|c| named(c.var))
                        || self.flags.iter().any(|f| named(f))
                    {
                        return None; // Another variable of that name.
                    }
                    let mut sized = true;
                    d.ty.for_each_size(&mut |e| sized &= !e.has_side_effects());
                    sized.then_some(())?;
                    if let Some(init) = &d.init {
                        let mut ok = true;
                        init.for_each_expr(&mut |e| match self.expr(e) {
                            Some(q) => p += q,
                            None => ok = false,
                        });
                        ok.then_some(())?;
                    }
                }
                Flow::straight(p)
            }
            StmtKind::Block(items) => {
                let mut flow = Flow::straight(0);
                for item in items {
                    let next = self.stmt(item)?;
                    flow = Flow {
                        through: flow.through.zip(next.through).map(|(a, b)| a + b),
                        cont: least(flow.cont, flow.through.zip(next.cont).map(|(a, b)| a + b)),
                    };
                }
                flow
            }
            StmtKind::If(c, t, e) => {
                let pc = self.expr(c)?;
                let ft = self.stmt(t)?;
                let fe = match e {
                    Some(e) => self.stmt(e)?,
                    None => Flow::straight(0),
                };
                Flow {
                    through: least(ft.through, fe.through).map(|p| p + pc),
                    cont: least(ft.cont, fe.cont).map(|p| p + pc),
                }
            }
            StmtKind::Break | StmtKind::Return(_) => Flow {
                through: None,
                cont: None,
            },
            StmtKind::Continue => Flow {
                through: None,
                cont: Some(0),
            },
            // A nested loop or switch may not touch a counter; it makes
            // no progress. A `continue` in a switch goes on with this loop.
            StmtKind::While(..) | StmtKind::DoWhile(..) | StmtKind::For(..) => {
                self.untouched(s)?;
                Flow::straight(0)
            }
            StmtKind::Switch(..) => {
                self.untouched(s)?;
                Flow {
                    through: Some(0),
                    cont: continues(s).then_some(0),
                }
            }
            StmtKind::Case(..) | StmtKind::Default(_) => return None,
        })
    }

    /// `Some` if no counter or flag is written (or has its address taken)
    /// in `s`.
    fn untouched(&self, s: &Stmt) -> Option<()> {
        let mut touched = false;
        each_expr(s, &mut |e| {
            touched |= self.counters.iter().any(|c| written(e, c.var))
                || self.flags.iter().any(|f| written(e, f));
        });
        (!touched).then_some(())
    }

    /// Whether `e` sets a flag to a constant other than 0.
    fn sets_flag(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Assign(None, t, v) => {
                let is_flag = |t: &Expr| matches!(&t.kind, ExprKind::Ident(x) if self.flags.contains(&x.as_str()));
                is_flag(t) && const_eval(v).is_some_and(|c| c != 0)
            }
            _ => false,
        }
    }

    /// The least progress of every evaluation of `e`; `None` where it
    /// writes a flag (other than as a statement setting it).
    fn expr(&mut self, e: &Expr) -> Option<u64> {
        if self.flags.iter().any(|f| written(e, f)) {
            return None;
        }
        if let Some((k, by)) = self.counter_move(e)? {
            self.counters[k].most += by;
            return u64::try_from(by).ok();
        }
        Some(match &e.kind {
            ExprKind::LogAnd(a, b) | ExprKind::LogOr(a, b) => {
                let p = self.expr(a)?;
                self.expr(b)?;
                p
            }
            ExprKind::Cond(c, a, b) => self.expr(c)? + self.expr(a)?.min(self.expr(b)?),
            // Their parts may move a counter on some paths only.
            ExprKind::StmtExpr(_) | ExprKind::Generic(..) => return None,
            _ => {
                let mut p = Some(0u64);
                children(e, &mut |c| p = p.zip(self.expr(c)).map(|(a, b)| a + b));
                p?
            }
        })
    }

    /// A move of a counter towards its bound (`Some(Some((counter,
    /// amount)))`), not a write of one (`Some(None)`), or a write of one
    /// that is no such move (`None`).
    fn counter_move(&mut self, e: &Expr) -> Option<Option<(usize, i128)>> {
        let (target, by) = match &e.kind {
            ExprKind::IncDec { e: t, inc, .. } => (t, if *inc { 1 } else { -1 }),
            ExprKind::Assign(Some(op @ (BinOp::Add | BinOp::Sub)), t, c) => {
                let Some(k) = self.counter(t) else {
                    return Some(None);
                };
                let c = const_eval(c)?;
                return self.towards(k, if *op == BinOp::Add { c } else { -c });
            }
            ExprKind::Assign(None, t, rhs) => {
                let Some(k) = self.counter(t) else {
                    return Some(None);
                };
                let (v, c) = offset_var(rhs)?;
                return (v == self.counters[k].var).then(|| self.towards(k, c))?;
            }
            ExprKind::Assign(_, t, _) | ExprKind::Unary(UnOp::Addr, t) => {
                return self.counter(t).is_none().then_some(None);
            }
            _ => return Some(None),
        };
        match self.counter(target) {
            Some(k) => self.towards(k, by),
            None => Some(None),
        }
    }

    /// Counter `k` moved by `by`: its progress, if towards its bound.
    fn towards(&self, k: usize, by: i128) -> Option<Option<(usize, i128)>> {
        let progress = if self.counters[k].up() { by } else { -by };
        (progress >= 0).then_some(Some((k, progress)))
    }
}

/// Whether `e` itself writes `var` or takes its address.
fn written(e: &Expr, var: &str) -> bool {
    let is_var = |t: &Expr| matches!(&t.kind, ExprKind::Ident(v) if v == var);
    match &e.kind {
        ExprKind::IncDec { e: t, .. } | ExprKind::Assign(_, t, _) => is_var(t),
        ExprKind::Unary(UnOp::Addr, t) => is_var(t),
        _ => false,
    }
}

/// Whether `s` writes a variable that `bound` names.
fn writes_any(s: &Stmt, bound: &Expr) -> bool {
    let mut names = Vec::new();
    super::idents_of(bound, &mut names);
    let mut found = false;
    each_expr(s, &mut |x| found |= names.iter().any(|n| written(x, n)));
    found
}

/// Whether `e` (or an expression in it) writes a variable `bound` names.
fn writes_in(e: &Expr, bound: &Expr) -> bool {
    let mut names = Vec::new();
    super::idents_of(bound, &mut names);
    let mut found = false;
    super::visit(e, &mut |x| found |= names.iter().any(|n| written(x, n)));
    found
}

/// Calls `f` on every expression in `s`, sub-expressions included.
fn each_expr(s: &Stmt, f: &mut impl FnMut(&Expr)) {
    s.for_each_expr(&mut |e| super::visit(e, f));
}

/// Whether `s` (a function's body) takes the address of a variable named
/// `var` anywhere: only then can anything but its own name change it.
pub fn takes_address(s: &Stmt, var: &str) -> bool {
    let mut found = false;
    each_expr(s, &mut |e| {
        found |= matches!(&e.kind, ExprKind::Unary(UnOp::Addr, t)
            if matches!(&t.kind, ExprKind::Ident(v) if v == var));
    });
    found
}

/// Whether `s` holds a `continue` of the loop it is in (not of a loop
/// nested in it).
pub(super) fn continues(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Continue => true,
        StmtKind::While(..) | StmtKind::DoWhile(..) | StmtKind::For(..) => false,
        StmtKind::Block(items) => items.iter().any(continues),
        StmtKind::If(_, t, e) => continues(t) || e.as_deref().is_some_and(continues),
        StmtKind::Switch(_, b) | StmtKind::Case(_, _, b) | StmtKind::Default(b) => continues(b),
        _ => false,
    }
}
