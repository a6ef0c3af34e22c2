//! Source analysis of `for` loops for parallel regions: is every iteration
//! independent of the others?
//!
//! A loop is a candidate when its variable is the one its initialization
//! starts (or, without one, its step changes: a counting `while`), and
//! each iteration writes only
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

mod callee;
mod pattern;
mod private;
mod walk;

use rustc_hash::FxHashMap as HashMap;

use crate::ast::*;
use crate::types::CType;

use pattern::ident;
pub use pattern::minmax_parts;
use private::private_scalars;
use walk::Walk;

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
    /// Outer pointers the body reads elements through (`a[i]`, `a` an
    /// array parameter): a region only if none points at an object the
    /// loop writes (its reductions, private scalars or owned arrays),
    /// which the lowering checks on the pointers' values.
    pub read_through: Vec<String>,
}

/// What the walk knows about a name declared in the loop body (or in a
/// called function): whether it is a pointer.
type Scope = HashMap<String, bool>;

/// The outcome of a check: `Err` says why the loop is no candidate.
type Res = Result<(), String>;

/// Fails a check with the reason `why`.
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
    let var = match (init.map(|s| &s.kind), step.map(|e| &e.kind)) {
        (Some(StmtKind::Decl(ds)), _) if ds.len() == 1 => ds[0].name.as_str(),
        (
            Some(StmtKind::Expr(Expr {
                kind: ExprKind::Assign(None, lhs, _),
                ..
            })),
            _,
        ) => ident(lhs).ok_or("the loop initializes no variable")?,
        // A loop that goes on from where its variable is (a counting
        // `while`, `for (; i < n; i++)`): the variable its step changes.
        (None, Some(ExprKind::IncDec { e, .. })) => {
            ident(e).ok_or("the step changes no variable")?
        }
        (None, Some(ExprKind::Assign(Some(BinOp::Add | BinOp::Sub), lhs, _))) => {
            ident(lhs).ok_or("the step changes no variable")?
        }
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
    let mut w = Walk::new(var, outer, funcs);
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
