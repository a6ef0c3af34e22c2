//! Source analysis of loops that may be kept as loops (their body stored
//! once, run many times) instead of unrolled.
//!
//! A `for` loop is a candidate when it counts a loop variable from a public
//! start by a constant step while a comparison with a bound holds
//! (`i < n`, `i <= n`, `i > n`, `i >= n`, `i != n`, `i + c < n`, or a
//! conjunction of these, `i < k && i + j < n`, which ends where its first
//! term fails; the bounds read by nothing the body writes). The step and
//! the constant `c` may
//! read variables that hold public values where the loop starts and that
//! the body does not change (`j += 2 * k`, `j + k < n`, with `k` set by an
//! enclosing loop). The body uses the loop variable only to
//! say *where* it reads and writes:
//! - in an array subscript or pointer index that is affine in it
//!   (`a[i]`, `m[2 * i + 1][j]`, `p[n - i]`), and
//! - as the amount of a shift (`x >> i`, `(e >> (31 - i)) & 1`), affine in
//!   it too;
//! - as a value stored into an array element (`row[0] = i`) or moved into
//!   a local the body reads nowhere else (`at = i`, `at = c ? i : at`,
//!   the position of a running best): each iteration's value is wired in.
//!
//! A loop whose body uses the variable in any other way (`i ^ j` as an
//! index, `if (i & k)`, `t += i * x`) is a candidate too, but its
//! iterations cannot be told from two of them: each one is probed (see
//! [`Induction::each`]).
//!
//! The body may not change the loop variable, take its address, declare
//! inputs or outputs, `return`, or `break` out of the loop. Everything else
//! the iterations depend on is public state or secret values, which the
//! lowering compares from one iteration to the next: the source proposes,
//! the lowering decides (see `lower::keep`).

/// Passes the direct sub-expressions in an expression's `kind` (a
/// reference, shared or not) to `f`, and a compound literal's initializer
/// to `init`: one walk for readers and for rewriters.
/// A statement expression's items go to `stmts`.
macro_rules! for_children {
    ($kind:expr, $f:expr, $init:expr, $stmts:expr) => {
        match $kind {
            ExprKind::Int(..)
            | ExprKind::Float(..)
            | ExprKind::Str(_)
            | ExprKind::Ident(_)
            | ExprKind::SizeofType(_) => {}
            ExprKind::Unary(_, a)
            | ExprKind::IncDec { e: a, .. }
            | ExprKind::Member(a, _)
            | ExprKind::Arrow(a, _)
            | ExprKind::Cast(_, a)
            | ExprKind::SizeofExpr(a) => $f(a),
            ExprKind::Binary(_, a, b)
            | ExprKind::LogAnd(a, b)
            | ExprKind::LogOr(a, b)
            | ExprKind::Assign(_, a, b)
            | ExprKind::Comma(a, b)
            | ExprKind::Index(a, b) => {
                $f(a);
                $f(b);
            }
            ExprKind::Cond(c, a, b) => {
                $f(c);
                $f(a);
                $f(b);
            }
            ExprKind::Call(_, args) => {
                for a in args {
                    $f(a);
                }
            }
            ExprKind::CallPointer(callee, args) => {
                $f(callee);
                for a in args {
                    $f(a);
                }
            }
            ExprKind::Compound(_, init) => $init(init),
            ExprKind::StmtExpr(items) => $stmts(items),
            ExprKind::Generic(c, assocs) => {
                $f(c);
                for $crate::ast::Association { value, .. } in assocs {
                    $f(value);
                }
            }
        }
    };
}

mod calls;
pub mod countdown;
pub mod counter;
pub(crate) mod endless;
pub mod expand;
pub mod progress;
pub mod public;
pub mod reduce;
pub mod rewrite;
mod walks;
pub mod whiles;

use rustc_hash::FxHashSet as HashSet;

use crate::ast::*;
use crate::error::Loc;
use crate::parser::const_eval;
use crate::types::Scalar;

/// A loop's variable, how it moves and where the body uses it.
#[derive(Clone, Debug)]
pub struct Induction {
    /// The loop variable.
    pub var: String,
    /// The condition with the variable on the left: `var + offset op
    /// bound`.
    pub op: BinOp,
    /// The bound.
    pub bound: Expr,
    /// The constant added to the variable in the condition (`j + 1 < n`).
    pub offset: i128,
    /// The other terms of a condition that is a conjunction
    /// (`i < k && i + j < n`), each as `var + offset op bound`: the loop
    /// ends where the first of its terms fails.
    pub also: Vec<Bound>,
    /// The step added to the variable after each iteration.
    pub step: i128,
    /// The shifts whose amount uses the variable (by location).
    pub shifts: HashSet<Loc>,
    /// Where the variable's value is stored into an array element
    /// (`row[0] = i`) or moved into a local (`at = i`): its uses there, by
    /// location.
    pub stored: HashSet<Loc>,
    /// Those of `stored` that move the value into a local (see [`moved`]).
    pub moved: HashSet<Loc>,
    /// Whether the body uses the variable other than affinely to say where
    /// it reads and writes (or as a shift amount or stored value): then
    /// what an iteration does is known only by lowering it, and every
    /// iteration is probed.
    pub each: bool,
    /// Whether its products with the variable were strength-reduced (see
    /// [`reduce`]): the sums it then carries on may be reduced each
    /// iteration.
    pub reduced: bool,
}

impl Induction {
    /// The terms of the condition, each as (`op`, `bound`, `offset`):
    /// `var + offset op bound`.
    pub fn terms(&self) -> impl Iterator<Item = (BinOp, &Expr, i128)> {
        let first = std::iter::once((self.op, &self.bound, self.offset));
        first.chain(self.also.iter().map(|b| (b.op, &b.bound, b.offset)))
    }
}

/// A term `var + offset op bound` of a loop's condition.
#[derive(Clone, Debug)]
pub struct Bound {
    /// The comparison.
    pub op: BinOp,
    /// The bound.
    pub bound: Expr,
    /// The constant added to the variable.
    pub offset: i128,
}

/// Whether the loop `for (...; cond; step) body` may be kept, and how its
/// variable moves; otherwise why not.
pub fn analyze(cond: Option<&Expr>, step: Option<&Expr>, body: &Stmt) -> Result<Induction, String> {
    analyze_with(cond, step, body, &|_| None)
}

/// [`analyze`], where `public(v)` is the type and value of a variable that
/// holds a public integer where the loop starts: such a variable in the
/// condition or the step counts as its value there (`j += 2 * k`, `j + k
/// < n`, with `k` set by an enclosing loop), provided the body does not
/// change it.
pub fn analyze_with(
    cond: Option<&Expr>,
    step: Option<&Expr>,
    body: &Stmt,
    public: &dyn Fn(&str) -> Option<(Scalar, u64)>,
) -> Result<Induction, String> {
    let cond = cond.ok_or("the loop has no condition")?;
    // The variable the step changes is the loop's; the others read there
    // and in the condition may be public values.
    let stepped = step.and_then(stepped_var);
    let mut fixed = HashSet::default();
    let cond = &with_values(cond, stepped, public, &mut fixed);
    let not_counted = "the condition is not a comparison of a variable with a bound";
    let mut terms = Vec::new();
    progress::conjuncts(cond, &mut terms);
    let (var, offset, op, bound) = condition(terms[0]).ok_or(not_counted)?;
    let mut also = Vec::new();
    for term in &terms[1..] {
        match condition(term) {
            Some((v, offset, op, bound)) if v == var => also.push(Bound {
                op,
                bound: bound.clone(),
                offset,
            }),
            _ => return Err(not_counted.into()),
        }
    }
    let step = &with_values(
        step.ok_or("the loop has no step")?,
        stepped,
        public,
        &mut fixed,
    );
    let step = step_of(step, var).ok_or(format!("the step is not a constant change of '{var}'"))?;
    if step == 0 {
        return Err("the step is zero".into());
    }
    let bounds = || std::iter::once(bound).chain(also.iter().map(|b| &b.bound));
    if bounds().any(|b| mentions(b, var) || b.has_side_effects()) {
        return Err("the bound depends on the loop variable or has side effects".into());
    }
    let mut bound_vars: HashSet<String> = bounds().flat_map(idents).collect();
    bound_vars.extend(fixed);
    let mut check = Check {
        var,
        bound_vars,
        shifts: HashSet::default(),
        stored: HashSet::default(),
        moves: Vec::new(),
        each: false,
        loops: 0,
        switches: 0,
    };
    check.stmt(body)?;
    check.settle_moves(body);
    Ok(Induction {
        var: var.to_string(),
        op,
        bound: bound.clone(),
        offset,
        also,
        step,
        shifts: check.shifts,
        stored: check.stored,
        moved: check.moves.iter().map(|m| m.at).collect(),
        each: check.each,
        reduced: false,
    })
}

/// `var op bound` (or `bound op var`, mirrored).
fn condition(c: &Expr) -> Option<(&str, i128, BinOp, &Expr)> {
    let ExprKind::Binary(op, a, b) = &c.kind else {
        return None;
    };
    let mirror = |op: BinOp| match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        o => o,
    };
    if !matches!(
        op,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Ne
    ) {
        return None;
    }
    match (offset_var(a), offset_var(b)) {
        (Some((v, off)), _) if !mentions(b, v) => Some((v, off, *op, b.as_ref())),
        (_, Some((v, off))) if !mentions(a, v) => Some((v, off, mirror(*op), a.as_ref())),
        _ => None,
    }
}

/// The variable `e` names and the constant added to it: `v` (0), `v + c`,
/// `c + v` or `v - c`, and these again (`v + c + d`, a condition's public
/// values made constants), for constants adding to at most 2^16.
pub(crate) fn offset_var(e: &Expr) -> Option<(&str, i128)> {
    let small = |x: &Expr| const_eval(x).filter(|c| c.abs() <= 1 << 16);
    let (v, offset) = match &e.kind {
        ExprKind::Ident(v) => (v.as_str(), 0),
        ExprKind::Binary(BinOp::Add, a, b) => match small(b) {
            Some(c) => {
                let (v, off) = offset_var(a)?;
                (v, off + c)
            }
            None => {
                let (v, off) = offset_var(b)?;
                (v, off + small(a)?)
            }
        },
        ExprKind::Binary(BinOp::Sub, a, c) => {
            let (v, off) = offset_var(a)?;
            (v, off - small(c)?)
        }
        _ => return None,
    };
    (offset.abs() <= 1 << 16).then_some((v, offset))
}

/// The variable a step assigns or increments (`j++`, `j += k`).
fn stepped_var(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::IncDec { e: t, .. } | ExprKind::Assign(_, t, _) => match &t.kind {
            ExprKind::Ident(v) => Some(v.as_str()),
            _ => None,
        },
        _ => None,
    }
}

/// `e` with the variables other than `var` for which `public` gives a
/// value made that constant; their names are added to `fixed`.
fn with_values(
    e: &Expr,
    var: Option<&str>,
    public: &dyn Fn(&str) -> Option<(Scalar, u64)>,
    fixed: &mut HashSet<String>,
) -> Expr {
    let mut out = e.clone();
    reduce::expr_mut(&mut out, &mut |x| {
        let ExprKind::Ident(v) = &x.kind else {
            return;
        };
        if Some(v.as_str()) != var {
            if let Some((s, value)) = public(v) {
                fixed.insert(v.clone());
                x.kind = ExprKind::Int(value, s);
            }
        }
    });
    out
}

/// The constant a step adds to `var`: `var++`, `var -= 2`, `var = var + 3`.
fn step_of(e: &Expr, var: &str) -> Option<i128> {
    let is_var = |x: &Expr| matches!(&x.kind, ExprKind::Ident(v) if v == var);
    match &e.kind {
        ExprKind::IncDec { e: t, inc, .. } if is_var(t) => Some(if *inc { 1 } else { -1 }),
        ExprKind::Assign(Some(op @ (BinOp::Add | BinOp::Sub)), t, c) if is_var(t) => {
            let c = const_eval(c)?;
            Some(if *op == BinOp::Add { c } else { -c })
        }
        ExprKind::Assign(None, t, rhs) if is_var(t) => match &rhs.kind {
            ExprKind::Binary(BinOp::Add, a, c) | ExprKind::Binary(BinOp::Add, c, a)
                if is_var(a) =>
            {
                Some(const_eval(c)?)
            }
            ExprKind::Binary(BinOp::Sub, a, c) if is_var(a) => Some(-const_eval(c)?),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `e` mentions the identifier `var`.
pub fn mentions(e: &Expr, var: &str) -> bool {
    let mut found = false;
    visit(e, &mut |x| {
        if matches!(&x.kind, ExprKind::Ident(v) if v == var) {
            found = true;
        }
    });
    found
}

/// The identifiers `e` mentions.
fn idents(e: &Expr) -> HashSet<String> {
    let mut out = HashSet::default();
    visit(e, &mut |x| {
        if let ExprKind::Ident(v) = &x.kind {
            out.insert(v.clone());
        }
    });
    out
}

/// Adds the identifiers `e` mentions to `out` (once each).
pub(crate) fn idents_of(e: &Expr, out: &mut Vec<String>) {
    visit(e, &mut |x| {
        if let ExprKind::Ident(v) = &x.kind {
            if !out.contains(v) {
                out.push(v.clone());
            }
        }
    });
}

/// The identifiers whose objects `s` may write by name: the roots of
/// what it assigns, steps or takes the address of (through subscripts,
/// members and casts), and every identifier a call's arguments mention
/// (an array passed is a pointer to it). Writes through other pointers
/// are not seen.
pub(crate) fn names_written(s: &Stmt) -> HashSet<String> {
    let mut out = HashSet::default();
    s.for_each_expr(&mut |e| add_names_written(e, &mut out));
    out
}

/// Adds to `out` the identifiers `e` may write by name (see
/// [`names_written`]).
pub(crate) fn add_names_written(e: &Expr, out: &mut HashSet<String>) {
    visit(e, &mut |x| match &x.kind {
        ExprKind::Assign(_, place, _)
        | ExprKind::IncDec { e: place, .. }
        | ExprKind::Unary(UnOp::Addr, place) => out.extend(place_root(place)),
        ExprKind::Call(_, args) | ExprKind::CallPointer(_, args) => {
            args.iter().for_each(|a| out.extend(idents(a)))
        }
        _ => {}
    });
}

/// The variable a place is part of, if it names one.
fn place_root(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Ident(v) => Some(v.clone()),
        ExprKind::Index(a, _) | ExprKind::Member(a, _) | ExprKind::Cast(_, a) => place_root(a),
        _ => None,
    }
}

/// Calls `f` on `e` and every expression inside it.
pub(crate) fn visit(e: &Expr, f: &mut impl FnMut(&Expr)) {
    f(e);
    children(e, &mut |c| visit(c, f));
}

/// Whether `e` mentions `var` other than inside an array subscript (where
/// it only says which element is read: the element is a value like any).
fn bare(e: &Expr, var: &str) -> bool {
    match &e.kind {
        ExprKind::Ident(v) => v == var,
        ExprKind::Index(base, _) => bare(base, var),
        _ => {
            let mut found = false;
            children(e, &mut |c| found |= bare(c, var));
            found
        }
    }
}

/// Whether `e` is affine in `var`: built from it and expressions without
/// bare uses of it by `+`, `-`, and `*` with one side free of it.
fn affine(e: &Expr, var: &str) -> bool {
    if !bare(e, var) {
        return true;
    }
    match &e.kind {
        ExprKind::Ident(v) => v == var,
        ExprKind::Unary(UnOp::Neg | UnOp::Plus, a) => affine(a, var),
        ExprKind::Binary(BinOp::Add | BinOp::Sub, a, b) => affine(a, var) && affine(b, var),
        ExprKind::Binary(BinOp::Mul, a, b) => {
            (!bare(a, var) && affine(b, var)) || (!bare(b, var) && affine(a, var))
        }
        _ => false,
    }
}

/// The walk over the body.
struct Check<'a> {
    var: &'a str,
    bound_vars: HashSet<String>,
    shifts: HashSet<Loc>,
    stored: HashSet<Loc>,
    /// Assignments that move the variable's value into a local (see
    /// [`moved`]), kept among `stored` only if the body reads that local
    /// nowhere else.
    moves: Vec<Move>,
    each: bool,
    loops: u32,
    switches: u32,
}

/// The loop variable's value moved into a variable: `target = i`, or
/// `target = c ? i : target` (a position tracked beside a running best).
#[derive(Clone)]
struct Move {
    target: String,
    /// Where the variable is read.
    at: Loc,
    /// How often the assignment names `target`.
    mentions: usize,
}

/// `e` without the casts around it.
fn uncast(mut e: &Expr) -> &Expr {
    while let ExprKind::Cast(_, a) = &e.kind {
        e = a;
    }
    e
}

/// Where `target = v` moves the value of `var` into `target`, with the
/// condition that selects it and how often the assignment names `target`:
/// `v` is `var` (cast or not), or `c ? var : target` (or mirrored).
fn moved<'e>(var: &str, target: &str, v: &'e Expr) -> Option<(Loc, Option<&'e Expr>, usize)> {
    let is = |e: &Expr, name: &str| matches!(&uncast(e).kind, ExprKind::Ident(x) if x == name);
    let v = uncast(v);
    match &v.kind {
        ExprKind::Ident(x) if x == var => Some((v.loc, None, 1)),
        ExprKind::Cond(c, a, b) if is(a, var) && is(b, target) => Some((uncast(a).loc, Some(c), 2)),
        ExprKind::Cond(c, a, b) if is(b, var) && is(a, target) => Some((uncast(b).loc, Some(c), 2)),
        _ => None,
    }
}

impl Check<'_> {
    /// Keeps the moves of the variable's value into locals that the body
    /// reads nowhere else (where the value is only carried, a public value
    /// per iteration costs what the constant does); the others make each
    /// iteration probed, as any other use.
    fn settle_moves(&mut self, body: &Stmt) {
        let moves = std::mem::take(&mut self.moves);
        let mut kept = Vec::new();
        for m in &moves {
            let mut named = 0;
            body.for_each_expr(&mut |e| {
                visit(e, &mut |x| {
                    named += usize::from(matches!(&x.kind, ExprKind::Ident(v) if *v == m.target));
                })
            });
            let moving: usize = (moves.iter())
                .filter(|o| o.target == m.target)
                .map(|o| o.mentions)
                .sum();
            if named == moving {
                kept.push(m.clone());
            } else {
                self.stored.remove(&m.at);
                self.each = true;
            }
        }
        self.moves = kept;
    }

    fn stmt(&mut self, s: &Stmt) -> Result<(), String> {
        match &s.kind {
            StmtKind::Empty | StmtKind::StaticAssert(..) | StmtKind::Continue => Ok(()),
            StmtKind::Expr(e) => self.expr(e),
            StmtKind::Decl(ds) => {
                for d in ds {
                    if d.name == self.var {
                        return Err(format!("the body declares another '{}'", self.var));
                    }
                    if d.name.starts_with("INPUT_") || d.name.starts_with("OUTPUT_") {
                        return Err(format!("the body declares '{}'", d.name));
                    }
                    self.type_expr(&d.ty)?;
                    if let Some(init) = &d.init {
                        self.init(init)?;
                    }
                }
                Ok(())
            }
            StmtKind::Block(items) => items.iter().try_for_each(|i| self.stmt(i)),
            StmtKind::If(c, t, e) => {
                self.expr(c)?;
                self.stmt(t)?;
                e.as_deref().map_or(Ok(()), |e| self.stmt(e))
            }
            StmtKind::While(c, b) | StmtKind::DoWhile(b, c) => {
                self.expr(c)?;
                self.nested_loop(b)
            }
            StmtKind::For(init, c, step, b) => {
                if let Some(i) = init {
                    self.stmt(i)?;
                }
                for e in c.iter().chain(step) {
                    self.expr(e)?;
                }
                self.nested_loop(b)
            }
            StmtKind::Switch(e, b) => {
                self.expr(e)?;
                self.switches += 1;
                let r = self.stmt(b);
                self.switches -= 1;
                r
            }
            StmtKind::Case(_, _, inner) | StmtKind::Default(inner) => self.stmt(inner),
            StmtKind::Break if self.loops > 0 || self.switches > 0 => Ok(()),
            StmtKind::Break => Err("the body breaks out of the loop".into()),
            StmtKind::Return(_) => Err("the body returns".into()),
        }
    }

    fn nested_loop(&mut self, body: &Stmt) -> Result<(), String> {
        self.loops += 1;
        let r = self.stmt(body);
        self.loops -= 1;
        r
    }

    fn init(&mut self, init: &Init) -> Result<(), String> {
        match init {
            Init::Expr(e) => self.expr(e),
            Init::List(items, _) => items.iter().try_for_each(|(designators, i)| {
                for d in designators {
                    if let Designator::Index(e) = d {
                        self.expr(e)?;
                    }
                }
                self.init(i)
            }),
        }
    }

    /// Array sizes in a type may not use the loop variable.
    fn type_expr(&mut self, t: &TypeExpr) -> Result<(), String> {
        match t {
            TypeExpr::Array(inner, size) => {
                if let Some(e) = size {
                    self.expr(e)?;
                }
                self.type_expr(inner)
            }
            TypeExpr::Pointer(inner) => self.type_expr(inner),
            _ => Ok(()),
        }
    }

    fn expr(&mut self, e: &Expr) -> Result<(), String> {
        let var = self.var;
        match &e.kind {
            ExprKind::Ident(v) if v == var => {
                // Any other use: each iteration is probed.
                self.each = true;
                Ok(())
            }
            ExprKind::Index(base, sub) => {
                self.expr(base)?;
                if bare(sub, var) && affine(sub, var) {
                    self.free_parts(sub)
                } else {
                    self.expr(sub)
                }
            }
            ExprKind::Binary(BinOp::Shl | BinOp::Shr, x, amount)
            | ExprKind::Assign(Some(BinOp::Shl | BinOp::Shr), x, amount)
                if bare(amount, var) && affine(amount, var) =>
            {
                self.shifts.insert(e.loc);
                self.expr(x)?;
                self.free_parts(amount)
            }
            ExprKind::Assign(op, t, v) => {
                self.target(t)?;
                self.expr(t)?;
                // The value itself stored into an array element (as a DP
                // row's first entry is): a public value per iteration.
                let stored = uncast(v);
                match (&stored.kind, &t.kind) {
                    (ExprKind::Ident(x), ExprKind::Index(..)) if x == var && op.is_none() => {
                        self.stored.insert(stored.loc);
                        Ok(())
                    }
                    (_, ExprKind::Ident(target)) if op.is_none() => match moved(var, target, v) {
                        Some((at, guard, mentions)) => {
                            self.stored.insert(at);
                            self.moves.push(Move {
                                target: target.clone(),
                                at,
                                mentions,
                            });
                            guard.map_or(Ok(()), |g| self.expr(g))
                        }
                        None => self.expr(v),
                    },
                    _ => self.expr(v),
                }
            }
            ExprKind::IncDec { e: t, .. } => {
                self.target(t)?;
                self.expr(t)
            }
            ExprKind::Unary(UnOp::Addr, a) if matches!(&a.kind, ExprKind::Ident(v) if v == var) => {
                Err(format!("the body takes the address of '{var}'"))
            }
            ExprKind::Cast(t, a) => {
                self.type_expr(t)?;
                self.expr(a)
            }
            ExprKind::SizeofType(t) => self.type_expr(t),
            // Its items are checked as the body's statements are.
            ExprKind::StmtExpr(items) => items.iter().try_for_each(|s| self.stmt(s)),
            ExprKind::Compound(t, init) => {
                self.type_expr(t)?;
                let mut r = Ok(());
                init.for_each_expr(&mut |c| {
                    if r.is_ok() {
                        r = self.expr(c);
                    }
                });
                r
            }
            _ => {
                let mut r = Ok(());
                children(e, &mut |c| {
                    if r.is_ok() {
                        r = self.expr(c);
                    }
                });
                r
            }
        }
    }

    /// The parts of an affine expression without bare uses of the
    /// variable.
    fn free_parts(&mut self, e: &Expr) -> Result<(), String> {
        if !bare(e, self.var) {
            return self.expr(e);
        }
        let mut r = Ok(());
        children(e, &mut |c| {
            if r.is_ok() {
                r = self.free_parts(c);
            }
        });
        r
    }

    /// What an assignment writes: not the loop variable, not the bound.
    fn target(&self, t: &Expr) -> Result<(), String> {
        let mut base = t;
        while let ExprKind::Index(a, _) | ExprKind::Member(a, _) = &base.kind {
            base = a;
        }
        match &base.kind {
            ExprKind::Ident(v) if v == self.var => {
                Err(format!("the body changes the loop variable '{v}'"))
            }
            ExprKind::Ident(v) if self.bound_vars.contains(v) => {
                Err(format!("the body changes '{v}', which the bound reads"))
            }
            _ => Ok(()),
        }
    }
}

/// Calls `f` on the direct sub-expressions of `e`.
pub(crate) fn children(e: &Expr, f: &mut impl FnMut(&Expr)) {
    for_children!(
        &e.kind,
        f,
        |init: &Init| init.for_each_expr(f),
        |items: &Vec<Stmt>| items.iter().for_each(|s| s.for_each_expr(f))
    );
}
