//! Source analysis of `for` loops for parallel regions: is every iteration
//! independent of the others?
//!
//! A loop is a candidate when each iteration writes only
//! - locals declared inside its body,
//! - elements of outer arrays indexed by the loop variable itself
//!   (`y.v[i] = ...`, `c.m[i][j] = ...`), every access to such an array in
//!   the body going through the same prefix up to that index, and
//! - outer scalars through a recognised reduction: `x += e`, `x -= e`,
//!   `x++`, `x--`, `x *= e`, `x ^= e`, `x |= e`, `x &= e` (each variable with
//!   one kind of operator; `e` may not read `x`), or, as a statement of the
//!   body's top level, a minimum or maximum `if (d < x) x = d;` or
//!   `x = d < x ? d : x;` (`d` a variable of the same type as `x`).
//!
//! An outer integer scalar that a top-level statement of the body assigns
//! (`x = e;` or `for (x = e; ...)`) before any other mention is private to
//! each iteration (C89-style counters declared at the top of a function);
//! it keeps the last iteration's value.
//!
//! Anything else makes the loop no candidate: `break`, `continue` or
//! `return` leaving the body, writes through pointers, taking addresses of
//! outer objects, reads through pointers, calls of functions that write
//! anything but their own locals (or read globals of the same name as what
//! the loop writes), `memcpy`/`memset`, a loop variable changed by the body,
//! a condition or step that reads what the body writes. The trip count must
//! turn out public when the loop is unrolled (checked by the lowering), and
//! the circuit graph checks independence again before a region is accepted.

use rustc_hash::FxHashMap as HashMap;
use std::collections::{BTreeMap, BTreeSet};

use crate::ast::*;
use crate::parser::const_eval;
use crate::types::CType;

/// How the partial results of a reduction variable are combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedOp {
    /// `+=`, `-=`, `++`, `--`: partials are added.
    Add,
    /// `*=`
    Mul,
    /// `^=`
    Xor,
    /// `|=`
    Or,
    /// `&=`
    And,
    /// The minimum pattern.
    Min,
    /// The maximum pattern.
    Max,
}

/// A candidate loop, as the analysis found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The loop variable.
    pub var: String,
    /// Outer scalars updated by reductions, with their operator.
    pub reductions: Vec<(String, RedOp)>,
    /// Outer variables whose elements indexed by the loop variable are
    /// written.
    pub owned: Vec<String>,
    /// Every outer variable the loop refers to (also in called functions).
    pub outer_refs: Vec<String>,
    /// Outer integer scalars each iteration assigns before any other use
    /// (`j` in `for (j = 0; ...)` with `int j;` outside): every iteration
    /// has its own copy, and the last one's value is kept.
    pub private: Vec<String>,
}

/// A minimum or maximum statement: the variable, the candidate and whether
/// it is a minimum.
pub fn minmax_parts(s: &Stmt) -> Option<(&str, &str, bool)> {
    fn cmp_sides(c: &Expr) -> Option<(BinOp, &str, &str)> {
        match &c.kind {
            ExprKind::Binary(op @ (BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge), a, b) => {
                Some((*op, ident(a)?, ident(b)?))
            }
            _ => None,
        }
    }
    let less = |op: BinOp| matches!(op, BinOp::Lt | BinOp::Le);
    match &s.kind {
        StmtKind::If(c, t, None) => {
            let (op, p, q) = cmp_sides(c)?;
            let (x, d) = plain_assign(single(t)?)?;
            // `d < x` or `x > d`: a minimum.
            let is_min = if p == d && q == x {
                less(op)
            } else if p == x && q == d {
                !less(op)
            } else {
                return None;
            };
            (x != d).then_some((x, d, is_min))
        }
        StmtKind::Expr(Expr {
            kind: ExprKind::Assign(None, lhs, rhs),
            ..
        }) => {
            let x = ident(lhs)?;
            let ExprKind::Cond(c, a, b) = &rhs.kind else {
                return None;
            };
            let (op, p, q) = cmp_sides(c)?;
            let (a, b) = (ident(a)?, ident(b)?);
            let pair = |u: &str, v: &str| (u == x && v != x) || (v == x && u != x);
            if !(pair(p, q) && pair(a, b) && ((a == p && b == q) || (a == q && b == p))) {
                return None;
            }
            let d = if p == x { q } else { p };
            // `p < q ? p : q` is the smaller one.
            let is_min = less(op) == (a == p);
            Some((x, d, is_min))
        }
        _ => None,
    }
}

fn ident(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Ident(n) => Some(n),
        _ => None,
    }
}

/// The only statement of `s` (itself, or of a block of one).
fn single(s: &Stmt) -> Option<&Stmt> {
    match &s.kind {
        StmtKind::Block(items) if items.len() == 1 => single(&items[0]),
        StmtKind::Block(_) => None,
        _ => Some(s),
    }
}

/// `x = d;` with two names.
fn plain_assign(s: &Stmt) -> Option<(&str, &str)> {
    match &s.kind {
        StmtKind::Expr(Expr {
            kind: ExprKind::Assign(None, lhs, rhs),
            ..
        }) => Some((ident(lhs)?, ident(rhs)?)),
        _ => None,
    }
}

/// One step of an access path from a variable: a member, a constant index
/// or the loop variable.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    Field(String),
    Const(i128),
    Own,
}

/// What the walk knows about a name declared in the loop body (or in a
/// called function): whether it is a pointer.
type Scope = HashMap<String, bool>;

struct Walk<'a> {
    outer: &'a dyn Fn(&str) -> Option<CType>,
    funcs: &'a HashMap<String, &'a Function>,
    var: &'a str,
    scopes: Vec<Scope>,
    /// Loops and switches entered inside the body.
    loops: u32,
    switches: u32,
    reductions: BTreeMap<String, RedOp>,
    /// Access prefixes (up to the loop variable) per outer variable.
    own: BTreeMap<String, Vec<Vec<Step>>>,
    written: BTreeSet<String>,
    /// Outer variables used other than through a reduction or an own
    /// element.
    plain: BTreeSet<String>,
    /// Global names read by called functions.
    callee_globals: BTreeSet<String>,
    checked_funcs: BTreeSet<String>,
    /// Integer locals declared at the body's top level, with their types.
    top_types: HashMap<String, CType>,
    /// Outer variables of which an array is used as a value (a pointer).
    escapes: BTreeSet<String>,
}

type Res = Result<(), String>;

fn no<T>(why: impl Into<String>) -> Result<T, String> {
    Err(why.into())
}

/// Analyses `for (init; cond; step) body`, run once `init` has run: `outer`
/// gives the type of a name visible at the loop. Returns the plan, or why
/// the loop is no candidate.
pub fn analyze(
    init: Option<&Stmt>,
    cond: Option<&Expr>,
    step: Option<&Expr>,
    body: &Stmt,
    outer: &dyn Fn(&str) -> Option<CType>,
    funcs: &HashMap<String, &Function>,
) -> Result<Plan, String> {
    let var = match init.map(|s| &s.kind) {
        Some(StmtKind::Decl(ds)) if ds.len() == 1 => ds[0].name.as_str(),
        Some(StmtKind::Expr(Expr {
            kind: ExprKind::Assign(None, lhs, _),
            ..
        })) => ident(lhs).ok_or("the loop initializes no variable")?,
        _ => return no("the loop does not start a single loop variable"),
    };
    if !matches!(outer(var), Some(CType::Int { .. })) {
        return no("the loop variable is not an integer");
    }
    let Some(cond) = cond else {
        return no("the loop has no condition");
    };
    let Some(step) = step else {
        return no("the loop has no step");
    };
    let mut w = Walk {
        outer,
        funcs,
        var,
        scopes: Vec::new(),
        loops: 0,
        switches: 0,
        reductions: BTreeMap::new(),
        own: BTreeMap::new(),
        written: BTreeSet::new(),
        plain: BTreeSet::new(),
        callee_globals: BTreeSet::new(),
        checked_funcs: BTreeSet::new(),
        top_types: HashMap::default(),
        escapes: BTreeSet::new(),
    };
    // The step changes only the loop variable, by a value the body does not
    // write.
    match &step.kind {
        ExprKind::IncDec { e, .. } if ident(e) == Some(var) => {}
        ExprKind::Assign(Some(BinOp::Add | BinOp::Sub), lhs, rhs) if ident(lhs) == Some(var) => {
            w.read(rhs)?
        }
        _ => return no("the step is not ++, --, += or -= of the loop variable"),
    }
    w.read(cond)?;
    let items: Vec<&Stmt> = match &body.kind {
        StmtKind::Block(items) => items.iter().collect(),
        _ => vec![body],
    };
    let private: Vec<String> = private_scalars(&items)
        .into_iter()
        .filter(|x| {
            x != var
                && !w.plain.contains(x)
                && matches!(outer(x), Some(CType::Int { .. } | CType::Bool))
        })
        .collect();
    w.scopes
        .push(private.iter().map(|x| (x.clone(), false)).collect());
    match &body.kind {
        StmtKind::Block(items) => {
            for s in items {
                w.top(s)?;
            }
        }
        _ => w.top(body)?,
    }
    w.scopes.pop();
    if let Some(x) = private.iter().find(|x| w.callee_globals.contains(*x)) {
        return no(format!(
            "a called function reads '{x}', which the loop writes"
        ));
    }
    let mut plan = w.finish()?;
    plan.private = private;
    Ok(plan)
}

/// Names assigned by a top-level statement `x = e;` or `for (x = e; ...)`
/// (with `e` not reading `x`) before any other mention of them.
fn private_scalars(items: &[&Stmt]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut private = Vec::new();
    for s in items {
        let assign = match &s.kind {
            StmtKind::Expr(e) => Some(e),
            StmtKind::For(Some(init), ..) => match &init.kind {
                StmtKind::Expr(e) => Some(e),
                _ => None,
            },
            _ => None,
        };
        if let Some(Expr {
            kind: ExprKind::Assign(None, lhs, rhs),
            ..
        }) = assign
        {
            if let Some(x) = ident(lhs) {
                let mut rhs_names = BTreeSet::new();
                expr_names(rhs, &mut rhs_names);
                if !seen.contains(x) && !rhs_names.contains(x) {
                    private.push(x.to_string());
                }
            }
        }
        stmt_names(s, &mut seen);
    }
    private
}

/// Every name a statement mentions or declares.
fn stmt_names(s: &Stmt, out: &mut BTreeSet<String>) {
    match &s.kind {
        StmtKind::Empty | StmtKind::Break | StmtKind::Continue | StmtKind::Return(None) => {}
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) => expr_names(e, out),
        StmtKind::Decl(ds) => {
            for d in ds {
                out.insert(d.name.clone());
                type_names(&d.ty, out);
                if let Some(i) = &d.init {
                    init_names(i, out);
                }
            }
        }
        StmtKind::Block(items) => items.iter().for_each(|s| stmt_names(s, out)),
        StmtKind::If(c, t, e) => {
            expr_names(c, out);
            stmt_names(t, out);
            if let Some(e) = e {
                stmt_names(e, out);
            }
        }
        StmtKind::While(c, b) | StmtKind::DoWhile(b, c) | StmtKind::Switch(c, b) => {
            expr_names(c, out);
            stmt_names(b, out);
        }
        StmtKind::For(i, c, st, b) => {
            if let Some(i) = i {
                stmt_names(i, out);
            }
            for e in [c, st].into_iter().flatten() {
                expr_names(e, out);
            }
            stmt_names(b, out);
        }
        StmtKind::Case(c, b) => {
            expr_names(c, out);
            stmt_names(b, out);
        }
        StmtKind::Default(b) => stmt_names(b, out),
    }
}

fn type_names(t: &TypeExpr, out: &mut BTreeSet<String>) {
    match t {
        TypeExpr::Known(_) => {}
        TypeExpr::Pointer(t) => type_names(t, out),
        TypeExpr::Array(t, n) => {
            if let Some(n) = n {
                expr_names(n, out);
            }
            type_names(t, out);
        }
    }
}

fn init_names(i: &Init, out: &mut BTreeSet<String>) {
    match i {
        Init::Expr(e) => expr_names(e, out),
        Init::List(items, _) => {
            for (des, i) in items {
                for d in des {
                    if let Designator::Index(e) = d {
                        expr_names(e, out);
                    }
                }
                init_names(i, out);
            }
        }
    }
}

fn expr_names(e: &Expr, out: &mut BTreeSet<String>) {
    match &e.kind {
        ExprKind::Ident(n) => {
            out.insert(n.clone());
        }
        ExprKind::Int(..) | ExprKind::Str => {}
        ExprKind::SizeofType(t) => type_names(t, out),
        ExprKind::Cast(t, a) => {
            type_names(t, out);
            expr_names(a, out);
        }
        ExprKind::Unary(_, a)
        | ExprKind::Member(a, _)
        | ExprKind::Arrow(a, _)
        | ExprKind::SizeofExpr(a)
        | ExprKind::IncDec { e: a, .. } => expr_names(a, out),
        ExprKind::Binary(_, a, b)
        | ExprKind::LogAnd(a, b)
        | ExprKind::LogOr(a, b)
        | ExprKind::Comma(a, b)
        | ExprKind::Index(a, b)
        | ExprKind::Assign(_, a, b) => {
            expr_names(a, out);
            expr_names(b, out);
        }
        ExprKind::Cond(a, b, c) => {
            expr_names(a, out);
            expr_names(b, out);
            expr_names(c, out);
        }
        ExprKind::Call(_, args) => args.iter().for_each(|a| expr_names(a, out)),
    }
}

impl Walk<'_> {
    fn local(&self, name: &str) -> Option<bool> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn is_outer(&self, name: &str) -> bool {
        self.local(name).is_none()
    }

    /// A statement of the body's top level (where min/max patterns live).
    fn top(&mut self, s: &Stmt) -> Res {
        if let Some((x, d, is_min)) = minmax_parts(s) {
            if self.is_outer(x) && x != self.var {
                let tx = (self.outer)(x);
                let td = match self.local(d) {
                    Some(_) => self.local_type(d),
                    None => (self.outer)(d),
                };
                if !matches!(tx, Some(CType::Int { .. })) || tx != td {
                    return no(format!(
                        "the minimum/maximum of '{x}' compares values of different types"
                    ));
                }
                self.ident_read(d);
                let op = if is_min { RedOp::Min } else { RedOp::Max };
                return self.reduction(x, op);
            }
        }
        self.stmt(s)
    }

    /// The type of a body-local scalar declared at the top level with a
    /// known type.
    fn local_type(&self, name: &str) -> Option<CType> {
        self.top_types.get(name).cloned()
    }

    fn reduction(&mut self, x: &str, op: RedOp) -> Res {
        match self.reductions.get(x) {
            Some(old) if *old != op => {
                no(format!("'{x}' is updated by different kinds of operators"))
            }
            _ => {
                self.reductions.insert(x.to_string(), op);
                Ok(())
            }
        }
    }

    fn stmt(&mut self, s: &Stmt) -> Res {
        match &s.kind {
            StmtKind::Empty => Ok(()),
            StmtKind::Expr(e) => {
                if let Some((x, op)) = reduction_stmt(e) {
                    if self.is_outer(x) && x != self.var {
                        if let ExprKind::Assign(_, _, rhs) = &e.kind {
                            self.expr(rhs)?;
                        }
                        return self.reduction(x, op);
                    }
                }
                self.expr(e)
            }
            StmtKind::Decl(ds) => {
                for d in ds {
                    self.type_expr(&d.ty)?;
                    if let Some(init) = &d.init {
                        self.init(init)?;
                    }
                    let ptr = is_pointer(&d.ty);
                    if self.scopes.len() == 1 {
                        if let TypeExpr::Known(t @ CType::Int { .. }) = &d.ty {
                            self.top_types.insert(d.name.clone(), t.clone());
                        } else {
                            self.top_types.remove(&d.name);
                        }
                    }
                    if let Some(sc) = self.scopes.last_mut() {
                        sc.insert(d.name.clone(), ptr);
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
                self.read(c)?;
                self.scoped(t)?;
                match e {
                    Some(e) => self.scoped(e),
                    None => Ok(()),
                }
            }
            StmtKind::While(c, b) | StmtKind::DoWhile(b, c) => {
                self.read(c)?;
                self.loops += 1;
                let r = self.scoped(b);
                self.loops -= 1;
                r
            }
            StmtKind::For(init, c, step, b) => {
                self.scopes.push(Scope::default());
                let r = (|| {
                    if let Some(i) = init {
                        self.stmt(i)?;
                    }
                    if let Some(c) = c {
                        self.read(c)?;
                    }
                    if let Some(st) = step {
                        self.expr(st)?;
                    }
                    self.loops += 1;
                    let r = self.scoped(b);
                    self.loops -= 1;
                    r
                })();
                self.scopes.pop();
                r
            }
            StmtKind::Switch(e, b) => {
                self.read(e)?;
                self.switches += 1;
                let r = self.scoped(b);
                self.switches -= 1;
                r
            }
            StmtKind::Case(_, b) | StmtKind::Default(b) => self.stmt(b),
            StmtKind::Break if self.loops > 0 || self.switches > 0 => Ok(()),
            StmtKind::Continue if self.loops > 0 => Ok(()),
            StmtKind::Break | StmtKind::Continue => {
                no("the body leaves the loop early (break or continue)")
            }
            StmtKind::Return(_) => no("the body returns"),
        }
    }

    fn scoped(&mut self, s: &Stmt) -> Res {
        self.scopes.push(Scope::default());
        let r = self.stmt(s);
        self.scopes.pop();
        r
    }

    fn type_expr(&mut self, t: &TypeExpr) -> Res {
        match t {
            TypeExpr::Known(_) => Ok(()),
            TypeExpr::Pointer(t) => self.type_expr(t),
            TypeExpr::Array(t, n) => {
                if let Some(n) = n {
                    self.read(n)?;
                }
                self.type_expr(t)
            }
        }
    }

    fn init(&mut self, i: &Init) -> Res {
        match i {
            Init::Expr(e) => self.expr(e),
            Init::List(items, _) => items.iter().try_for_each(|(_, i)| self.init(i)),
        }
    }

    /// An expression that must not write anything.
    fn read(&mut self, e: &Expr) -> Res {
        if e.has_side_effects() {
            return no("a condition or step has side effects");
        }
        self.expr(e)
    }

    fn ident_read(&mut self, name: &str) {
        if self.is_outer(name) && name != self.var {
            self.plain.insert(name.to_string());
        }
    }

    fn expr(&mut self, e: &Expr) -> Res {
        match &e.kind {
            ExprKind::Int(..) | ExprKind::Str | ExprKind::SizeofType(_) => Ok(()),
            ExprKind::SizeofExpr(_) => Ok(()),
            ExprKind::Ident(n) => {
                self.ident_read(n);
                Ok(())
            }
            ExprKind::Index(..) | ExprKind::Member(..) => self.access(e, false),
            ExprKind::Arrow(..) | ExprKind::Unary(UnOp::Deref, _) => {
                no("the body reads through a pointer")
            }
            ExprKind::Unary(UnOp::Addr, a) => match root(a) {
                Some(r) if !self.is_outer(r) => self.expr(a),
                _ => no("the body takes the address of an outer object"),
            },
            ExprKind::Unary(_, a) | ExprKind::Cast(_, a) => self.expr(a),
            ExprKind::IncDec { e: a, .. } => self.access(a, true),
            ExprKind::Assign(_, a, b) => {
                self.expr(b)?;
                self.access(a, true)
            }
            ExprKind::Binary(_, a, b)
            | ExprKind::LogAnd(a, b)
            | ExprKind::LogOr(a, b)
            | ExprKind::Comma(a, b) => {
                self.expr(a)?;
                self.expr(b)
            }
            ExprKind::Cond(c, a, b) => {
                self.expr(c)?;
                self.expr(a)?;
                self.expr(b)
            }
            ExprKind::Call(name, args) => {
                for a in args {
                    self.expr(a)?;
                }
                self.callee(name)
            }
        }
    }

    /// An access `a[..].m...` read, or written when `write`.
    fn access(&mut self, e: &Expr, write: bool) -> Res {
        let mut steps = Vec::new();
        let mut at = e;
        let mut indices = Vec::new();
        loop {
            match &at.kind {
                ExprKind::Ident(_) => break,
                ExprKind::Index(a, i) => {
                    indices.push(&**i);
                    steps.push(match (&i.kind, const_eval(i)) {
                        (ExprKind::Ident(n), _) if n == self.var && self.is_outer(n) => Step::Own,
                        (_, Some(k)) => Step::Const(k),
                        _ => Step::Const(-1),
                    });
                    at = a;
                }
                ExprKind::Member(a, m) => {
                    steps.push(Step::Field(m.clone()));
                    at = a;
                }
                _ => {
                    return no(if write {
                        "the body writes through a pointer"
                    } else {
                        "the body reads through a pointer"
                    })
                }
            }
        }
        for i in indices {
            self.read_index(i)?;
        }
        steps.reverse();
        let Some(name) = ident(at) else {
            return no("unexpected access");
        };
        let pointer = match self.local(name) {
            Some(p) => p,
            None => matches!((self.outer)(name), Some(CType::Pointer(_))),
        };
        if pointer && !steps.is_empty() {
            return no("the body accesses memory through a pointer");
        }
        if !self.is_outer(name) {
            return Ok(());
        }
        if name == self.var {
            return if write {
                no("the body changes the loop variable")
            } else {
                Ok(())
            };
        }
        if !write
            && matches!(
                path_type((self.outer)(name), &steps),
                None | Some(CType::Array(..))
            )
        {
            self.escapes.insert(name.to_string());
        }
        match steps.iter().position(|s| *s == Step::Own) {
            Some(k) if steps[..k].iter().all(|s| !matches!(s, Step::Const(-1))) => {
                self.own
                    .entry(name.to_string())
                    .or_default()
                    .push(steps[..k].to_vec());
                if write {
                    self.written.insert(name.to_string());
                }
                Ok(())
            }
            _ if write => no(format!(
                "the body writes '{name}' other than at the loop variable's element"
            )),
            _ => {
                self.plain.insert(name.to_string());
                Ok(())
            }
        }
    }

    fn read_index(&mut self, i: &Expr) -> Res {
        if i.has_side_effects() {
            return no("an array index has side effects");
        }
        self.expr(i)
    }

    /// A call: the function may write only its own locals.
    fn callee(&mut self, name: &str) -> Res {
        if !self.checked_funcs.insert(name.to_string()) {
            return Ok(());
        }
        let Some(f) = self.funcs.get(name).copied() else {
            return if matches!(name, "abs" | "labs" | "llabs") {
                Ok(())
            } else {
                no(format!("the body calls '{name}'"))
            };
        };
        let mut c = Callee {
            scopes: vec![f
                .params
                .iter()
                .map(|(n, t, _)| (n.clone(), matches!(t, CType::Pointer(_))))
                .collect()],
            funcs: self.funcs,
            calls: Vec::new(),
            globals: BTreeSet::new(),
        };
        c.stmt(&f.body)
            .map_err(|why| format!("the body calls '{name}', which {why}"))?;
        self.callee_globals.extend(c.globals);
        for g in c.calls {
            self.callee(&g)?;
        }
        Ok(())
    }

    fn finish(self) -> Result<Plan, String> {
        for x in self.reductions.keys() {
            if self.plain.contains(x) || self.own.contains_key(x) {
                return no(format!("'{x}' is used other than by its reduction"));
            }
            match (self.outer)(x) {
                Some(CType::Int { .. }) => {}
                _ => return no(format!("reduction variable '{x}' is not an integer")),
            }
        }
        for x in &self.written {
            if self.plain.contains(x) || self.escapes.contains(x) {
                return no(format!(
                    "'{x}' is written at the loop variable's element and read elsewhere"
                ));
            }
            let prefixes = &self.own[x];
            if prefixes.iter().any(|p| *p != prefixes[0]) {
                return no(format!(
                    "'{x}' is indexed by the loop variable at different places"
                ));
            }
        }
        for g in &self.callee_globals {
            if self.written.contains(g) || self.reductions.contains_key(g) {
                return no(format!(
                    "a called function reads '{g}', which the loop writes"
                ));
            }
        }
        let mut outer_refs: BTreeSet<String> = self.plain.clone();
        outer_refs.extend(self.own.keys().cloned());
        outer_refs.extend(self.callee_globals.iter().cloned());
        outer_refs.retain(|n| (self.outer)(n).is_some());
        Ok(Plan {
            var: self.var.to_string(),
            reductions: self.reductions.into_iter().collect(),
            owned: self.written.into_iter().collect(),
            outer_refs: outer_refs.into_iter().collect(),
            private: Vec::new(),
        })
    }
}

/// The type reached from `t` by `steps` (`None` if unknown).
fn path_type(t: Option<CType>, steps: &[Step]) -> Option<CType> {
    let mut t = t?;
    for s in steps {
        t = match (s, t) {
            (Step::Field(m), CType::Struct(d)) => d.fields.iter().find(|(n, _)| n == m)?.1.clone(),
            (Step::Const(_) | Step::Own, CType::Array(e, _)) => *e,
            _ => return None,
        };
    }
    Some(t)
}

/// `x op= e`, `x++`, `x--` with a plain name: the variable and operator.
fn reduction_stmt(e: &Expr) -> Option<(&str, RedOp)> {
    match &e.kind {
        ExprKind::IncDec { e: x, .. } => Some((ident(x)?, RedOp::Add)),
        ExprKind::Assign(Some(op), x, _) => {
            let op = match op {
                BinOp::Add | BinOp::Sub => RedOp::Add,
                BinOp::Mul => RedOp::Mul,
                BinOp::Xor => RedOp::Xor,
                BinOp::Or => RedOp::Or,
                BinOp::And => RedOp::And,
                _ => return None,
            };
            Some((ident(x)?, op))
        }
        _ => None,
    }
}

fn is_pointer(t: &TypeExpr) -> bool {
    matches!(t, TypeExpr::Pointer(_) | TypeExpr::Known(CType::Pointer(_)))
}

/// The variable an access starts from.
fn root(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Ident(n) => Some(n),
        ExprKind::Index(a, _) | ExprKind::Member(a, _) => root(a),
        _ => None,
    }
}

/// Checks a called function: it writes only its own locals and parameters
/// (not through pointers); collects the globals it reads and the functions
/// it calls.
struct Callee<'a> {
    scopes: Vec<Scope>,
    funcs: &'a HashMap<String, &'a Function>,
    calls: Vec<String>,
    globals: BTreeSet<String>,
}

impl Callee<'_> {
    fn local(&self, name: &str) -> Option<bool> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn stmt(&mut self, s: &Stmt) -> Res {
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
            StmtKind::Case(_, b) | StmtKind::Default(b) => self.stmt(b),
            StmtKind::Return(Some(e)) => self.expr(e),
            StmtKind::Empty | StmtKind::Break | StmtKind::Continue | StmtKind::Return(None) => {
                Ok(())
            }
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
            ExprKind::Call(name, args) => {
                if matches!(name.as_str(), "memcpy" | "memmove" | "memset") {
                    return no(format!("calls {name}"));
                }
                if !matches!(name.as_str(), "abs" | "labs" | "llabs") {
                    if !self.funcs.contains_key(name) {
                        return no(format!("calls '{name}'"));
                    }
                    self.calls.push(name.clone());
                }
                args.iter().try_for_each(|a| self.expr(a))
            }
            ExprKind::Int(..)
            | ExprKind::Str
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
