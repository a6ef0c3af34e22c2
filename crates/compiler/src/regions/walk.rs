//! The walk over a loop body: what it writes and reads, and how.

use rustc_hash::FxHashMap as HashMap;
use std::collections::{BTreeMap, BTreeSet};

use crate::ast::*;
use crate::lower::is_pure_builtin;
use crate::parser::const_eval;
use crate::types::CType;

use super::callee::Callee;
use super::pattern::{ident, is_pointer, minmax_parts, reduction_stmt, root};
use super::{no, Plan, RedOp, Res, Scope};

/// One step of an access path from a variable: a member, a constant index
/// or the loop variable.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    Field(String),
    Const(i128),
    Own,
}

/// What the walk over a loop body has found so far.
pub(super) struct Walk<'a> {
    outer: &'a dyn Fn(&str) -> Option<CType>,
    funcs: &'a HashMap<String, &'a Function>,
    var: &'a str,
    /// Names declared in the body (innermost scope last).
    pub(super) scopes: Vec<Scope>,
    /// Loops and switches entered inside the body.
    loops: u32,
    switches: u32,
    reductions: BTreeMap<String, RedOp>,
    /// Access prefixes (up to the loop variable) per outer variable.
    own: BTreeMap<String, Vec<Vec<Step>>>,
    written: BTreeSet<String>,
    /// Outer variables used other than through a reduction or an own
    /// element.
    pub(super) plain: BTreeSet<String>,
    /// Global names read by called functions.
    pub(super) callee_globals: BTreeSet<String>,
    checked_funcs: BTreeSet<String>,
    /// Integer locals declared at the body's top level, with their types.
    top_types: HashMap<String, CType>,
    /// Outer variables of which an array is used as a value (a pointer).
    escapes: BTreeSet<String>,
    /// Outer pointers the body reads elements through (see
    /// [`Plan::read_through`]).
    read_through: BTreeSet<String>,
}

impl<'a> Walk<'a> {
    /// A walk over the body of a loop with variable `var`, before anything
    /// has been seen.
    pub(super) fn new(
        var: &'a str,
        outer: &'a dyn Fn(&str) -> Option<CType>,
        funcs: &'a HashMap<String, &'a Function>,
    ) -> Walk<'a> {
        Walk {
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
            read_through: BTreeSet::new(),
        }
    }

    fn local(&self, name: &str) -> Option<bool> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn is_outer(&self, name: &str) -> bool {
        self.local(name).is_none()
    }

    /// A statement of the body's top level (where min/max patterns live).
    pub(super) fn top(&mut self, s: &Stmt) -> Res {
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
        let terms = match &s.kind {
            StmtKind::Expr(e) => self.total_terms(e),
            _ => None,
        };
        if let Some(term) = terms.and_then(|leaves| self.repeated_term(&leaves)) {
            return no(format!(
                "every iteration adds '{term}' to the total (unrolled, those terms are one)"
            ));
        }
        self.stmt(s)
    }

    /// The terms `x += e` or `x -= e` adds to an outer total `x`: `e`
    /// taken apart at sums, differences, negations, casts and products by
    /// constants.
    fn total_terms<'e>(&self, e: &'e Expr) -> Option<Vec<&'e Expr>> {
        let ExprKind::Assign(Some(BinOp::Add | BinOp::Sub), x, rhs) = &e.kind else {
            return None;
        };
        if !ident(x).is_some_and(|x| self.is_outer(x)) {
            return None;
        }
        let (mut terms, mut leaves) = (vec![&**rhs], Vec::new());
        while let Some(t) = terms.pop() {
            match &t.kind {
                ExprKind::Binary(BinOp::Add | BinOp::Sub, a, b) => terms.extend([&**a, &**b]),
                ExprKind::Binary(BinOp::Mul, a, k) | ExprKind::Binary(BinOp::Mul, k, a)
                    if const_eval(k).is_some() =>
                {
                    terms.push(a)
                }
                ExprKind::Cast(_, a) | ExprKind::Unary(UnOp::Neg | UnOp::Plus, a) => terms.push(a),
                _ => leaves.push(t),
            }
        }
        Some(leaves)
    }

    /// The array two of a total's terms (see [`Walk::total_terms`]) read at
    /// places the loop variable moves alike, but apart (`s += a[i + 1] -
    /// a[i]`): unrolled, each element's terms from two iterations cancel
    /// or collect, where each instance's partial would keep its own (a
    /// telescoping sum of 4,096 `uint32_t` values cost 130 times the
    /// unrolled AND gates as a region).
    fn telescoping(&self, leaves: &[&Expr]) -> Option<String> {
        let mut places: Vec<(String, i128)> = Vec::new();
        for leaf in leaves {
            let Some((array, offset)) = self.moving_place(leaf) else {
                continue;
            };
            if places.iter().any(|(a, o)| *a == array && *o != offset) {
                return Some(array);
            }
            places.push((array, offset));
        }
        None
    }

    /// An access `a[i + c].m` as the array it reads (its name, members and
    /// constant subscripts) and `c`, if exactly one of its subscripts moves
    /// with the loop variable.
    fn moving_place(&self, e: &Expr) -> Option<(String, i128)> {
        let (mut at, mut path, mut offset) = (e, Vec::new(), None);
        loop {
            match &at.kind {
                ExprKind::Ident(n) => {
                    path.push(n.clone());
                    break;
                }
                ExprKind::Member(a, m) => {
                    path.push(format!(".{m}"));
                    at = a;
                }
                ExprKind::Index(a, i) => {
                    let moving = crate::loops::offset_var(i).filter(|(v, _)| *v == self.var);
                    match (const_eval(i), moving) {
                        (Some(k), _) => path.push(format!("[{k}]")),
                        (None, Some((_, c))) if offset.is_none() => {
                            path.push("[_]".to_string());
                            offset = Some(c);
                        }
                        _ => return None,
                    }
                    at = a;
                }
                _ => return None,
            }
        }
        path.reverse();
        Some((path.concat(), offset?))
    }

    /// A term of those a total adds (see [`Walk::total_terms`]) beside
    /// terms that change, that is the same in every iteration: a constant
    /// or an expression of outer variables (`s += a[i] + 7`, `s += a[i] +
    /// x`). Unrolled, the
    /// iterations' copies collect into one term (`N * x`); a region's
    /// partials would each add theirs. (A sum of such terms alone is the
    /// same in every instance, which the region makes once.)
    fn repeated_term(&self, leaves: &[&Expr]) -> Option<String> {
        let varies = |t: &Expr| {
            let mut names = Vec::new();
            crate::loops::idents_of(t, &mut names);
            names.iter().any(|n| n == self.var || !self.is_outer(n))
        };
        let repeated = leaves.iter().find(|t| !varies(t))?;
        leaves
            .iter()
            .any(|t| varies(t))
            .then(|| match &repeated.kind {
                ExprKind::Ident(n) => n.clone(),
                _ => "a constant".to_string(),
            })
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
            StmtKind::Empty | StmtKind::StaticAssert(..) => Ok(()),
            StmtKind::Expr(e) => {
                let terms = self.total_terms(e);
                if let Some(name) = terms.and_then(|leaves| self.telescoping(&leaves)) {
                    return no(format!(
                        "the total adds and subtracts elements of '{name}' at different places (unrolled, they cancel)"
                    ));
                }
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
            StmtKind::Case(_, _, b) | StmtKind::Default(b) => self.stmt(b),
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
            // `typeof`'s operand is not evaluated.
            TypeExpr::Known(_) | TypeExpr::Typeof(_) => Ok(()),
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
    pub(super) fn read(&mut self, e: &Expr) -> Res {
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
            ExprKind::Int(..)
            | ExprKind::Float(..)
            | ExprKind::Str(_)
            | ExprKind::SizeofType(_) => Ok(()),
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
            ExprKind::Call(name, _)
                if self.local(name).is_some() || (self.outer)(name).is_some() =>
            {
                no("the body calls through a function pointer")
            }
            ExprKind::Call(name, args) => {
                for a in args {
                    self.expr(a)?;
                }
                self.callee(name)
            }
            ExprKind::CallPointer(..) => no("the body calls through a function pointer"),
            ExprKind::Compound(..) => no("the body makes a compound literal"),
            ExprKind::StmtExpr(_) => no("the body has a statement expression"),
            ExprKind::Generic(..) => no("the body has a _Generic selection"),
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
            // An array parameter's elements, `a[i]`, are read as they are,
            // if the loop writes nothing the pointer points at; only at the
            // loop variable or constants (unrolled, `a[i] - a[i - 1]`
            // cancels across iterations, where each instance's partial
            // would keep it; so do `s += a[i]; s -= a[i - 2];` and products
            // `a[i] * b[i] - a[i - 2] * b[i - 2]`, which
            // `Walk::telescoping` does not see).
            let at_own = steps.iter().all(|s| !matches!(s, Step::Const(-1)));
            if write || !self.is_outer(name) || !at_own {
                return no("the body accesses memory through a pointer");
            }
            self.read_through.insert(name.to_string());
            self.plain.insert(name.to_string());
            return Ok(());
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
            return if matches!(name, "abs" | "labs" | "llabs") || is_pure_builtin(name) {
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

    pub(super) fn finish(self) -> Result<Plan, String> {
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
            read_through: self.read_through.into_iter().collect(),
        })
    }
}

/// The type reached from `t` by `steps` (`None` if unknown).
fn path_type(t: Option<CType>, steps: &[Step]) -> Option<CType> {
    let mut t = t?;
    for s in steps {
        t = match (s, t) {
            (Step::Field(m), CType::Struct(d)) => d.member(m)?.0.clone(),
            (Step::Const(_) | Step::Own, CType::Array(e, _)) => std::sync::Arc::unwrap_or_clone(e),
            _ => return None,
        };
    }
    Some(t)
}
