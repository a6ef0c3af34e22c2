//! Sums that several later sums read. A sum is lowered lazily: its rows
//! join the sum that reads it and are reduced there, together, which
//! costs nothing extra when one sum reads it. Where a variable stored
//! from a sum is added into two later sums (SHA-256's `T1` goes into both
//! `e = d + T1` and `a = T1 + T2`), each would add all of its rows again;
//! reduced once where it is stored, each adds one row instead.
//!
//! This pass finds those stores before lowering, from the program text:
//! a declaration or assignment (`=`, `+=`, ...) of a variable that the
//! statements after it in its block (up to its next assignment, within
//! [`WINDOW`] statements) name at least
//! twice as an operand of `+` or `-` (or as the right side of `+=`, `-=`);
//! a read inside a loop counts twice. It decides only where a sum is
//! reduced, never what the program computes.

use rustc_hash::FxHashSet as HashSet;

use crate::ast::*;
use crate::error::Loc;
use crate::loops::children;

/// Additive reads that make reducing a sum where it is stored pay.
const READS: u32 = 2;

/// Statements after a store that are looked at for its reads: a bound
/// that keeps the pass linear in a long block (a generated program of
/// 40,000 statements took minutes without it).
const WINDOW: usize = 64;

/// The locations of the stores (a declarator's, or an assignment's
/// operator) whose sums later sums read at least twice.
pub(super) fn reduce_at_store(prog: &Program) -> HashSet<Loc> {
    let mut sites = HashSet::default();
    for f in &prog.functions {
        visit_stmt(&f.body, &mut sites);
    }
    sites
}

/// Finds the stores in `s` and in the statements inside it.
fn visit_stmt(s: &Stmt, sites: &mut HashSet<Loc>) {
    match &s.kind {
        StmtKind::Block(stmts) => {
            for (i, st) in stmts.iter().enumerate() {
                if let Some((name, loc)) = store_of(st) {
                    if additive_reads(name, &stmts[i + 1..]) >= READS {
                        sites.insert(loc);
                    }
                }
                visit_stmt(st, sites);
            }
        }
        StmtKind::If(_, a, b) => {
            visit_stmt(a, sites);
            if let Some(b) = b {
                visit_stmt(b, sites);
            }
        }
        StmtKind::While(_, body)
        | StmtKind::DoWhile(body, _)
        | StmtKind::Switch(_, body)
        | StmtKind::Case(_, _, body)
        | StmtKind::Default(body) => visit_stmt(body, sites),
        StmtKind::For(init, _, _, body) => {
            if let Some(init) = init {
                visit_stmt(init, sites);
            }
            visit_stmt(body, sites);
        }
        _ => {}
    }
}

/// The variable a statement stores a value into as a whole, with the
/// location of the store: a declaration of one variable with an
/// expression initializer, or an expression statement `x = e` (or
/// `x += e` and the like).
fn store_of(s: &Stmt) -> Option<(&str, Loc)> {
    match &s.kind {
        StmtKind::Decl(decls) => match decls.as_slice() {
            [d] if matches!(d.init, Some(Init::Expr(_))) => Some((&d.name, d.loc)),
            _ => None,
        },
        _ => assignment(s).map(|(name, _, _, loc)| (name, loc)),
    }
}

/// The variable, operator, right side and location of `s` if it is an
/// expression statement assigning a variable (`x = rhs`, `x += rhs`, ...).
fn assignment(s: &Stmt) -> Option<(&str, Option<BinOp>, &Expr, Loc)> {
    let StmtKind::Expr(e) = &s.kind else {
        return None;
    };
    match &e.kind {
        ExprKind::Assign(op, target, rhs) => match &target.kind {
            ExprKind::Ident(name) => Some((name, *op, rhs, e.loc)),
            _ => None,
        },
        _ => None,
    }
}

/// How often (up to [`READS`]) the first [`WINDOW`] of `stmts` add or
/// subtract variable `name` before assigning it anew (a compound
/// assignment `name += e` adds it once).
fn additive_reads(name: &str, stmts: &[Stmt]) -> u32 {
    let mut count = 0;
    for s in stmts.iter().take(WINDOW) {
        if let StmtKind::Decl(decls) = &s.kind {
            if decls.iter().any(|d| d.name == name) {
                // Another variable of the name from here on.
                break;
            }
        }
        if let Some((_, op, rhs, _)) = assignment(s).filter(|(n, ..)| *n == name) {
            // The last value read: `x += e` adds it once, `x = e` not.
            let adds_old = matches!(op, Some(BinOp::Add | BinOp::Sub));
            count += adds_old as u32 + in_expr(name, rhs, 1);
            break;
        }
        count += in_stmt(name, s, 1);
        if count >= READS {
            break;
        }
    }
    count.min(READS)
}

/// The additive reads of `name` in `s`, each counted `weight` times.
fn in_stmt(name: &str, s: &Stmt, weight: u32) -> u32 {
    let loop_weight = weight.saturating_mul(READS);
    match &s.kind {
        StmtKind::Expr(e) | StmtKind::StaticAssert(e, _) => in_expr(name, e, weight),
        StmtKind::Return(e) => e.as_ref().map_or(0, |e| in_expr(name, e, weight)),
        StmtKind::Decl(decls) => decls
            .iter()
            .filter_map(|d| d.init.as_ref())
            .map(|init| {
                let mut n = 0;
                init.for_each_expr(&mut |e| n += in_expr(name, e, weight));
                n
            })
            .sum(),
        StmtKind::Block(stmts) => stmts.iter().map(|s| in_stmt(name, s, weight)).sum(),
        StmtKind::If(c, a, b) => {
            in_expr(name, c, weight)
                + in_stmt(name, a, weight)
                + b.as_ref().map_or(0, |b| in_stmt(name, b, weight))
        }
        StmtKind::Switch(c, body) => in_expr(name, c, weight) + in_stmt(name, body, weight),
        StmtKind::Case(_, _, body) | StmtKind::Default(body) => in_stmt(name, body, weight),
        StmtKind::While(c, body) | StmtKind::DoWhile(body, c) => {
            in_expr(name, c, loop_weight) + in_stmt(name, body, loop_weight)
        }
        StmtKind::For(init, c, step, body) => {
            init.as_ref().map_or(0, |s| in_stmt(name, s, weight))
                + c.as_ref().map_or(0, |e| in_expr(name, e, loop_weight))
                + step.as_ref().map_or(0, |e| in_expr(name, e, loop_weight))
                + in_stmt(name, body, loop_weight)
        }
        StmtKind::Empty | StmtKind::Break | StmtKind::Continue => 0,
    }
}

/// The additive reads of `name` in `e`, each counted `weight` times.
fn in_expr(name: &str, e: &Expr, weight: u32) -> u32 {
    let is_name = |x: &Expr| matches!(&x.kind, ExprKind::Ident(n) if n == name);
    let here = match &e.kind {
        ExprKind::Binary(BinOp::Add | BinOp::Sub, a, b) => {
            (is_name(a) as u32 + is_name(b) as u32) * weight
        }
        ExprKind::Assign(Some(BinOp::Add | BinOp::Sub), _, b) => is_name(b) as u32 * weight,
        _ => 0,
    };
    let mut below = 0;
    children(e, &mut |x| below += in_expr(name, x, weight));
    here.saturating_add(below)
}
