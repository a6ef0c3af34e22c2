//! Counter expressions: what a loop body computes from its variable alone.
//!
//! In a loop whose every iteration is probed (see [`super::Induction::each`])
//! an iteration's gates depend on its variable only through the public
//! values the body computes from it: `l = i ^ j`, `l > i`, `(i & k) == 0`,
//! the subscripts `a[i]`, `a[l]`. Those are the *keys*: the largest
//! expressions built from the variable, locals declared from it, public
//! values the loop does not change (its *invariants*) and constants. Two
//! iterations whose keys other than subscripts are equal lower to the same
//! gates up to which elements they read and write, and where those are
//! moves by the subscripts' values (see `lower::keep::replay`).
//!
//! Only bodies whose every access is a named array, member or variable
//! qualify: no pointers, no nested loops (short ones are written out
//! first, see [`super::expand`]), and calls only of functions whose writes
//! are known by name (see [`super::calls`]).

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

pub use super::calls::Context;
use super::calls::{reached, writes, Walk};
use super::children;
use crate::ast::*;

/// The keys of a loop body.
#[derive(Clone, Debug)]
pub struct CounterPlan {
    /// Locals the body declares at its top level from counter values
    /// alone (`int l = i ^ j;`).
    pub locals: Vec<String>,
    /// The keys, in the order the body has them (none inside a hoist).
    pub keys: Vec<Key>,
    /// The expressions computed ahead of each iteration.
    pub hoists: Vec<Hoist>,
    /// The plan without hoists, if this one has some: its keys include
    /// those inside them.
    pub plain: Option<Box<CounterPlan>>,
    /// The names the body writes (but its own locals).
    pub written: Vec<String>,
}

/// An expression of the counter and of secrets the body does not write
/// (`wt[i] == c - d`, `(A ^ i * i) & B`), computed ahead of its iteration
/// outside the loop's templates: the template reads its value as an
/// input wired per iteration, and the gates computing it are the
/// enclosing frame's, where structural hashing shares them between
/// iterations that compute the same (as it does unrolled). Left in the
/// template, the counter in it would be a fresh input, and each instance
/// would compute it anew.
#[derive(Clone, Debug)]
pub struct Hoist {
    /// The expression, with the locals declared from counter values
    /// replaced as in keys.
    pub expr: Expr,
    /// Where it is in the body's syntax tree (its address).
    pub id: usize,
}

/// A key: a maximal expression of counter values and invariants.
#[derive(Clone, Debug)]
pub struct Key {
    /// The expression, with the locals declared from counter values
    /// replaced by their initializers converted to their types
    /// (`l > i` is `(int)(i ^ j) > i`): it reads the loop variable and
    /// invariants only.
    pub expr: Expr,
    /// Where it is in the body's syntax tree (its address), to know it
    /// when the body is lowered.
    pub id: usize,
    /// Whether it is an array subscript.
    pub subscript: bool,
    /// Whether it decides whether another expression is evaluated: the
    /// left operand of `&&` or `||`, or the condition of `?:`
    /// (`i > 0 && a[i - 1]`). Read as a fresh input, it would evaluate
    /// what the program guards (`a[-1]`).
    pub guard: bool,
    /// The first key written the same way (its own index if none is
    /// before it): keys of one class always have one value.
    pub class: usize,
}

/// The keys of `body`, the body of a loop over `var`, if it qualifies;
/// `cx` tells what the program around the loop holds.
pub fn plan(body: &Stmt, var: &str, cx: &dyn Context) -> Option<CounterPlan> {
    // (Without hoists, the plan is the plain one: hoisting only stops the
    // search for keys at a hoist.)
    let hoisting = planned(body, var, cx, true)?;
    if hoisting.hoists.is_empty() {
        return Some(hoisting);
    }
    let plain = planned(body, var, cx, false)?;
    Some(CounterPlan {
        plain: Some(Box::new(plain)),
        ..hoisting
    })
}

/// [`plan`], with hoists if `hoisting`.
fn planned(body: &Stmt, var: &str, cx: &dyn Context, hoisting: bool) -> Option<CounterPlan> {
    let mut names = Names::new(cx);
    names.stmt(body)?;
    let mut plan = Planner {
        names,
        var,
        scope: Vec::new(),
        locals: Vec::new(),
        cx,
        keys: Vec::new(),
        hoists: Vec::new(),
        conditional: u32::from(!hoisting),
    };
    plan.stmt(body);
    let declared = &plan.names.declared;
    let mut written: Vec<String> = (plan.names.written.iter())
        .filter(|n| !declared.contains(n))
        .cloned()
        .collect();
    written.sort();
    Some(CounterPlan {
        locals: plan.locals,
        keys: plan.keys,
        hoists: plan.hoists,
        plain: None,
        written,
    })
}

/// Whether a declaration of type `t` declares a scalar, and whether it
/// may hold a pointer (a type not known yet may).
fn type_kind(t: &TypeExpr) -> (bool, bool) {
    match t {
        TypeExpr::Known(t) => (t.scalar().is_some(), t.holds_pointer()),
        TypeExpr::Pointer(_) => (false, true),
        TypeExpr::Array(inner, _) => (false, type_kind(inner).1),
        TypeExpr::Typeof(_) => (false, true),
    }
}

/// `e` with the names of `locals` replaced by their values, where the
/// innermost declaration of the name in `locals` has one (see
/// [`Planner::scope`]).
fn substituted(e: &Expr, locals: &[(String, Option<Expr>)]) -> Expr {
    let kind = match &e.kind {
        ExprKind::Ident(n) => match locals.iter().rev().find(|(l, _)| l == n) {
            Some((_, Some(v))) => return v.clone(),
            _ => e.kind.clone(),
        },
        ExprKind::Unary(op, a) => ExprKind::Unary(*op, Box::new(substituted(a, locals))),
        ExprKind::Binary(op, a, b) => ExprKind::Binary(
            *op,
            Box::new(substituted(a, locals)),
            Box::new(substituted(b, locals)),
        ),
        ExprKind::LogAnd(a, b) => ExprKind::LogAnd(
            Box::new(substituted(a, locals)),
            Box::new(substituted(b, locals)),
        ),
        ExprKind::LogOr(a, b) => ExprKind::LogOr(
            Box::new(substituted(a, locals)),
            Box::new(substituted(b, locals)),
        ),
        ExprKind::Cond(c, a, b) => ExprKind::Cond(
            Box::new(substituted(c, locals)),
            Box::new(substituted(a, locals)),
            Box::new(substituted(b, locals)),
        ),
        ExprKind::Cast(t, a) => ExprKind::Cast(t.clone(), Box::new(substituted(a, locals))),
        ExprKind::Index(a, i) => ExprKind::Index(
            Box::new(substituted(a, locals)),
            Box::new(substituted(i, locals)),
        ),
        ExprKind::Member(a, m) => ExprKind::Member(Box::new(substituted(a, locals)), m.clone()),
        // Keys and hoists are built of the kinds above only.
        k => k.clone(),
    };
    Expr { kind, loc: e.loc }
}

/// The names a body declares and writes; `None` if it has a construct
/// that disqualifies it.
struct Names<'a> {
    cx: &'a dyn Context,
    /// Every declaration's name (a name declared twice is listed twice).
    declared: Vec<String>,
    /// Per name declared, whether every declaration of it is a scalar's
    /// and whether one holds a pointer.
    kinds: HashMap<String, (bool, bool)>,
    written: HashSet<String>,
}

impl<'a> Names<'a> {
    fn new(cx: &'a dyn Context) -> Names<'a> {
        Names {
            cx,
            declared: Vec::new(),
            kinds: HashMap::default(),
            written: HashSet::default(),
        }
    }

    fn type_expr(&mut self, t: &TypeExpr) -> Option<()> {
        match t {
            TypeExpr::Known(_) => Some(()),
            // Its operand's names may not be where a key is evaluated.
            TypeExpr::Typeof(_) => None,
            TypeExpr::Pointer(inner) => self.type_expr(inner),
            TypeExpr::Array(inner, size) => {
                if let Some(e) = size {
                    self.expr(e)?;
                }
                self.type_expr(inner)
            }
        }
    }

    /// A call of `f` with `args` (see [`super::calls`]): the objects its
    /// arguments reach and the names its function writes are written.
    fn call(&mut self, f: &str, args: &[Expr]) -> Option<()> {
        if self.kinds.contains_key(f) || self.cx.scalar(f).is_some() {
            // (A variable of that name, a function pointer: not the
            // function.)
            return None;
        }
        for a in args {
            let roots = reached(a, &|n| self.is_scalar(n), &|n| self.holds_pointer(n))?;
            self.written.extend(roots);
            // `&x.a[i]` passes a place: what it reads is checked as any.
            match &a.kind {
                ExprKind::Unary(UnOp::Addr, place) => self.expr(place)?,
                _ => self.expr(a)?,
            }
        }
        let written = writes(self.cx, f, &mut Vec::new())?;
        self.written.extend(written);
        Some(())
    }

    /// Whether `n`, where the body reads it, is surely a scalar: every
    /// declaration of it in the body, and the variable of that name in
    /// scope around the loop, if any, are scalars.
    fn is_scalar(&self, n: &str) -> bool {
        let declared = self.kinds.get(n);
        declared.is_none_or(|k| k.0) && self.cx.scalar(n).unwrap_or(declared.is_some())
    }

    /// Whether `n` may hold a pointer where the body reads it.
    fn holds_pointer(&self, n: &str) -> bool {
        self.kinds.get(n).is_some_and(|k| k.1) || self.cx.holds_pointer(n)
    }

    fn expr(&mut self, e: &Expr) -> Option<()> {
        match &e.kind {
            ExprKind::Call(f, args) => return self.call(f, args),
            ExprKind::CallPointer(..)
            | ExprKind::Unary(UnOp::Deref | UnOp::Addr, _)
            | ExprKind::Arrow(..)
            | ExprKind::Compound(..)
            | ExprKind::StmtExpr(_)
            | ExprKind::Str(_)
            | ExprKind::Cast(TypeExpr::Pointer(_) | TypeExpr::Array(..), _) => return None,
            ExprKind::Assign(_, t, _) | ExprKind::IncDec { e: t, .. } => {
                let mut base = t.as_ref();
                while let ExprKind::Index(a, _) | ExprKind::Member(a, _) = &base.kind {
                    base = a;
                }
                if let ExprKind::Ident(n) = &base.kind {
                    self.written.insert(n.clone());
                }
            }
            _ => {}
        }
        let mut ok = Some(());
        children(e, &mut |c| ok = ok.and(self.expr(c)));
        ok
    }
}

impl Walk for Names<'_> {
    fn expr(&mut self, e: &Expr) -> Option<()> {
        Names::expr(self, e)
    }

    fn decl(&mut self, d: &Decl) -> Option<()> {
        self.declared.push(d.name.clone());
        let (scalar, pointer) = type_kind(&d.ty);
        let kind = self.kinds.entry(d.name.clone()).or_insert((true, false));
        *kind = (kind.0 && scalar, kind.1 || pointer);
        self.type_expr(&d.ty)?;
        let mut ok = Some(());
        if let Some(init) = &d.init {
            init.for_each_expr(&mut |e| ok = ok.and_then(|_| Names::expr(self, e)));
        }
        ok
    }

    /// A loop body that returns is not planned.
    fn ret(&mut self, _: Option<&Expr>) -> Option<()> {
        None
    }
}

struct Planner<'a> {
    names: Names<'a>,
    /// The loop variable.
    var: &'a str,
    /// The locals declared so far in the blocks open where the walk is,
    /// innermost last: with its value for a scalar declared from counter
    /// values alone and never written (`int l = i ^ j;`, `l > i` is then
    /// `(int)(i ^ j) > i`), else none (it hides the one outside).
    scope: Vec<(String, Option<Expr>)>,
    /// The names of the locals declared from counter values.
    locals: Vec<String>,
    cx: &'a dyn Context,
    keys: Vec<Key>,
    hoists: Vec<Hoist>,
    /// Above 0 where an expression may not be evaluated (the right
    /// operand of `&&` or `||`, a branch of `?:` or of a public `if`):
    /// nothing there is hoisted.
    conditional: u32,
}

/// Where an expression is, for [`Planner::key_or_parts`].
#[derive(Clone, Copy, Default)]
struct At {
    /// An array subscript.
    subscript: bool,
    /// A guard (see [`Key::guard`]).
    guard: bool,
    /// An operand of a sum or product (`+`, `-`, `*`, `+=`), which
    /// unrolled lowering keeps in carry-save form with the rest of the
    /// sum: a sum or product there is not hoisted whole.
    additive: bool,
}

impl Planner<'_> {
    /// Whether `e` is a public value computed from counter values and
    /// invariants alone.
    fn public(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Int(..) => true,
            ExprKind::Ident(n) => self.tainted(n).unwrap_or_else(|| {
                !self.names.declared.contains(n)
                    && !self.names.written.contains(n)
                    && self.cx.invariant(n)
            }),
            ExprKind::Unary(UnOp::Neg | UnOp::Plus | UnOp::Not | UnOp::BitNot, a) => self.public(a),
            ExprKind::Binary(_, a, b) | ExprKind::LogAnd(a, b) | ExprKind::LogOr(a, b) => {
                self.public(a) && self.public(b)
            }
            ExprKind::Cond(c, a, b) => self.public(c) && self.public(a) && self.public(b),
            ExprKind::Cast(TypeExpr::Known(t), a) => t.scalar().is_some() && self.public(a),
            _ => false,
        }
    }

    /// Whether `n`, where the walk is, names the loop variable or a local
    /// declared from counter values (`Some(false)`: another local).
    fn tainted(&self, n: &str) -> Option<bool> {
        match self.scope.iter().rev().find(|(l, _)| l == n) {
            Some((_, value)) => Some(value.is_some()),
            None => (n == self.var).then_some(true),
        }
    }

    /// Whether `e` mentions the loop variable or a local declared from
    /// counter values.
    fn mentions_counter(&self, e: &Expr) -> bool {
        let mut found = false;
        super::visit(e, &mut |x| {
            if let ExprKind::Ident(n) = &x.kind {
                found |= self.tainted(n) == Some(true);
            }
        });
        found
    }

    /// Whether `e` is a public value that depends on the counter.
    fn counter(&self, e: &Expr) -> bool {
        self.public(e) && self.mentions_counter(e)
    }

    /// Whether `e` reads only counter values, constants and names the
    /// body neither declares nor writes, and writes nothing.
    fn pure(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Int(..) => true,
            ExprKind::Ident(n) => self.tainted(n).unwrap_or_else(|| {
                !self.names.declared.contains(n) && !self.names.written.contains(n)
            }),
            ExprKind::Index(a, b)
            | ExprKind::Binary(_, a, b)
            | ExprKind::LogAnd(a, b)
            | ExprKind::LogOr(a, b) => self.pure(a) && self.pure(b),
            ExprKind::Member(a, _)
            | ExprKind::Unary(UnOp::Neg | UnOp::Plus | UnOp::Not | UnOp::BitNot, a) => self.pure(a),
            ExprKind::Cond(c, a, b) => self.pure(c) && self.pure(a) && self.pure(b),
            ExprKind::Cast(TypeExpr::Known(t), a) => t.scalar().is_some() && self.pure(a),
            _ => false,
        }
    }

    /// Whether `e` reads an element at a place that moves with the
    /// counter. Such a value is another in every iteration: a comparison
    /// of it (`a[j] < a[i]`) computed ahead would share no gate with
    /// another iteration's, and the iterations would cost what unrolling
    /// them does; only a sum of it is hoisted (its adder is needed
    /// anyway, and an enclosing loop may add the same again).
    fn moves(&self, e: &Expr) -> bool {
        let mut moves = false;
        super::visit(e, &mut |x| {
            if let ExprKind::Index(_, i) = &x.kind {
                moves |= self.mentions_counter(i);
            }
        });
        moves
    }

    /// Whether `e` has an operation on a secret that costs AND gates
    /// (any but `^`, `~`, `+` of a sign and conversions).
    fn costs(&self, e: &Expr) -> bool {
        let secret = |x: &Expr| !self.public(x);
        match &e.kind {
            ExprKind::Binary(BinOp::Xor, a, b) => self.costs(a) || self.costs(b),
            ExprKind::Binary(_, a, b) | ExprKind::LogAnd(a, b) | ExprKind::LogOr(a, b) => {
                secret(a) || secret(b) || self.costs(a) || self.costs(b)
            }
            ExprKind::Cond(c, a, b) => secret(e) || self.costs(c) || self.costs(a) || self.costs(b),
            ExprKind::Unary(UnOp::Neg | UnOp::Not, a) => secret(a) || self.costs(a),
            ExprKind::Unary(_, a) | ExprKind::Cast(_, a) => self.costs(a),
            _ => false,
        }
    }

    /// Whether `e`, at `at`, is hoisted (see [`Hoist`]): a pure
    /// computation (not a mere read) of the counter and of secrets, where
    /// it is always evaluated.
    fn hoisted(&self, e: &Expr, at: At) -> bool {
        self.conditional == 0
            && self.costs(e)
            && !(at.additive && additive(e))
            && (additive(e) || !self.moves(e))
            && self.pure(e)
            && self.mentions_counter(e)
    }

    /// Collects the keys of `s` (but for the initializers of the locals
    /// declared from counter values, which enter [`Planner::scope`]).
    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::StaticAssert(e, _) | StmtKind::Expr(e) => self.expr(e, false),
            StmtKind::Decl(ds) => ds.iter().for_each(|d| self.decl(d)),
            StmtKind::Block(items) => {
                let open = self.scope.len();
                items.iter().for_each(|i| self.stmt(i));
                self.scope.truncate(open);
            }
            StmtKind::If(c, t, e) => {
                self.expr(c, false);
                let public = u32::from(self.public(c));
                self.conditional += public;
                self.stmt(t);
                if let Some(e) = e {
                    self.stmt(e);
                }
                self.conditional -= public;
            }
            StmtKind::Switch(e, b) => {
                self.expr(e, false);
                let public = u32::from(self.public(e));
                self.conditional += public;
                self.stmt(b);
                self.conditional -= public;
            }
            StmtKind::Case(_, _, inner) | StmtKind::Default(inner) => self.stmt(inner),
            // (`do ... while (0)`, as [`Names`] allows: what follows a
            // `continue` in it may not run.)
            StmtKind::DoWhile(b, _) => {
                self.conditional += 1;
                self.stmt(b);
                self.conditional -= 1;
            }
            _ => {}
        }
    }

    /// Collects the keys of a declaration, or enters it in the scope as a
    /// local declared from counter values.
    fn decl(&mut self, d: &Decl) {
        self.type_expr(&d.ty);
        let scalar = matches!(&d.ty, TypeExpr::Known(t) if t.scalar().is_some());
        let value = match &d.init {
            Some(Init::Expr(e))
                if scalar && !self.names.written.contains(&d.name) && self.counter(e) =>
            {
                // Its value: the initializer, converted as the
                // declaration converts it.
                Some(Expr {
                    kind: ExprKind::Cast(d.ty.clone(), Box::new(substituted(e, &self.scope))),
                    loc: e.loc,
                })
            }
            Some(init) => {
                init.for_each_expr(&mut |e| self.expr(e, false));
                None
            }
            None => None,
        };
        if value.is_some() && !self.locals.contains(&d.name) {
            self.locals.push(d.name.clone());
        }
        self.scope.push((d.name.clone(), value));
    }

    fn type_expr(&mut self, t: &TypeExpr) {
        match t {
            // `typeof`'s operand is not evaluated.
            TypeExpr::Known(_) | TypeExpr::Typeof(_) => {}
            TypeExpr::Pointer(inner) => self.type_expr(inner),
            TypeExpr::Array(inner, size) => {
                if let Some(e) = size {
                    self.expr(e, false);
                }
                self.type_expr(inner);
            }
        }
    }

    fn expr(&mut self, e: &Expr, subscript: bool) {
        let at = At {
            subscript,
            ..At::default()
        };
        self.key_or_parts(e, at);
    }

    /// Collects the keys and hoists of `e`, which is `at`.
    fn key_or_parts(&mut self, e: &Expr, at: At) {
        let At {
            subscript, guard, ..
        } = at;
        if self.counter(e) {
            let expr = substituted(e, &self.scope);
            let text = written(&expr);
            let class = match self.keys.iter().position(|k| written(&k.expr) == text) {
                Some(c) => c,
                None => self.keys.len(),
            };
            self.keys.push(Key {
                expr,
                id: e as *const Expr as usize,
                subscript,
                guard,
                class,
            });
            return;
        }
        if self.hoisted(e, at) {
            self.hoists.push(Hoist {
                expr: substituted(e, &self.scope),
                id: e as *const Expr as usize,
            });
            return;
        }
        let guarding = At {
            guard: true,
            ..At::default()
        };
        let summed = At {
            additive: true,
            ..At::default()
        };
        match &e.kind {
            ExprKind::Index(a, i) => {
                self.expr(a, false);
                self.expr(i, true);
            }
            ExprKind::LogAnd(a, b) | ExprKind::LogOr(a, b) => {
                self.key_or_parts(a, guarding);
                self.conditional += 1;
                self.expr(b, false);
                self.conditional -= 1;
            }
            ExprKind::Cond(c, a, b) => {
                self.key_or_parts(c, guarding);
                self.conditional += 1;
                self.expr(a, false);
                self.expr(b, false);
                self.conditional -= 1;
            }
            ExprKind::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul, a, b) => {
                self.key_or_parts(a, summed);
                self.key_or_parts(b, summed);
            }
            ExprKind::Unary(UnOp::Neg, a) => self.key_or_parts(a, summed),
            ExprKind::Assign(Some(BinOp::Add | BinOp::Sub), t, v) => {
                self.expr(t, false);
                self.key_or_parts(v, summed);
            }
            _ => children(e, &mut |c| self.expr(c, false)),
        }
    }
}

/// Whether `e` is a sum or product (possibly converted), which lowering
/// keeps in carry-save form.
fn additive(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul, ..)
        | ExprKind::Unary(UnOp::Neg, _) => true,
        ExprKind::Cast(_, a) => additive(a),
        _ => false,
    }
}

/// How `e` is written, without where: equal for expressions that compute
/// the same (as keys, built from names, constants, operators and casts).
fn written(e: &Expr) -> String {
    let mut out = String::new();
    write_expr(e, &mut out);
    out
}

fn write_expr(e: &Expr, out: &mut String) {
    use std::fmt::Write;
    match &e.kind {
        ExprKind::Int(v, s) => {
            let _ = write!(out, "{v}:{s:?}");
        }
        ExprKind::Ident(n) => out.push_str(n),
        ExprKind::Unary(op, a) => {
            let _ = write!(out, "{op:?}(");
            write_expr(a, out);
            out.push(')');
        }
        ExprKind::Binary(op, a, b) => {
            let _ = write!(out, "{op:?}(");
            write_expr(a, out);
            out.push(',');
            write_expr(b, out);
            out.push(')');
        }
        ExprKind::LogAnd(a, b) | ExprKind::LogOr(a, b) => {
            out.push_str(if matches!(e.kind, ExprKind::LogAnd(..)) {
                "&&("
            } else {
                "||("
            });
            write_expr(a, out);
            out.push(',');
            write_expr(b, out);
            out.push(')');
        }
        ExprKind::Cond(c, a, b) => {
            out.push_str("?(");
            for x in [c, a, b] {
                write_expr(x, out);
                out.push(',');
            }
            out.push(')');
        }
        ExprKind::Cast(TypeExpr::Known(t), a) => {
            let _ = write!(out, "({t:?})(");
            write_expr(a, out);
            out.push(')');
        }
        // Not a key's part: never equal to another.
        _ => {
            let _ = write!(out, "#{:p}", e);
        }
    }
}
