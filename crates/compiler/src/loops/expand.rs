//! Short nested loops written out. In the body of a loop whose every
//! iteration is probed, a nested `for` loop over a few constant values
//! (`for (int dj = -1; dj <= 1; dj++)`, a stencil's neighbours) becomes a
//! copy of its body per value, the variable a constant in each. Keys (see
//! [`super::counter`]) cannot be taken inside a nested loop, whose
//! expressions take another value in each of its iterations; in the
//! copies each expression has one, so the outer loop's iterations can be
//! replayed rather than probed one by one.
//!
//! A copy whose body `continue`s is wrapped in `do { ... } while (0)`,
//! where `continue` ends the copy as it ended the iteration.

use super::{condition, mentions, reduce, step_of};
use crate::ast::*;
use crate::parser::const_eval;

/// The most iterations of a nested loop written out.
const MOST_TRIPS: usize = 16;

/// The most copies of nested loop bodies written out in one body.
const MOST_COPIES: usize = 64;

/// `body` with every nested loop written out, if it has one and each can
/// be (see the module docs).
pub fn written_out(body: &Stmt) -> Option<Stmt> {
    let mut out = Expansion { copies: 0 };
    let s = out.stmt(body)?;
    (out.copies > 0).then_some(s)
}

struct Expansion {
    copies: usize,
}

impl Expansion {
    /// `s` with its nested loops written out; `None` if one cannot be.
    fn stmt(&mut self, s: &Stmt) -> Option<Stmt> {
        let kind = match &s.kind {
            StmtKind::For(init, cond, step, body) => {
                return self.for_loop(s, (init.as_deref()?, cond.as_ref()?, step.as_ref()?), body)
            }
            StmtKind::While(..) | StmtKind::DoWhile(..) => return None,
            StmtKind::Block(items) => {
                StmtKind::Block(items.iter().map(|i| self.stmt(i)).collect::<Option<_>>()?)
            }
            StmtKind::If(c, t, e) => StmtKind::If(
                c.clone(),
                Box::new(self.stmt(t)?),
                match e {
                    Some(e) => Some(Box::new(self.stmt(e)?)),
                    None => None,
                },
            ),
            StmtKind::Switch(e, b) => StmtKind::Switch(e.clone(), Box::new(self.stmt(b)?)),
            StmtKind::Case(k, hi, b) => {
                StmtKind::Case(k.clone(), hi.clone(), Box::new(self.stmt(b)?))
            }
            StmtKind::Default(b) => StmtKind::Default(Box::new(self.stmt(b)?)),
            k => k.clone(),
        };
        Some(Stmt { kind, loc: s.loc })
    }

    /// The copies of `for (init; cond; step) body`, one per value of its
    /// variable, in a block.
    fn for_loop(
        &mut self,
        s: &Stmt,
        (init, cond, step): (&Stmt, &Expr, &Expr),
        body: &Stmt,
    ) -> Option<Stmt> {
        let StmtKind::Decl(ds) = &init.kind else {
            return None;
        };
        let [d] = ds.as_slice() else {
            return None;
        };
        let TypeExpr::Known(t) = &d.ty else {
            return None;
        };
        let scalar = t.scalar().filter(|s| !s.float && s.width > 1)?;
        let Some(Init::Expr(start)) = &d.init else {
            return None;
        };
        let (var, offset, op, bound) = condition(cond)?;
        if var != d.name {
            return None;
        }
        let step = step_of(step, var)?;
        let (start, bound) = (const_eval(start)?, const_eval(bound)?);
        let (least, most) = scalar.bounds();
        let mut values = Vec::new();
        let mut v = start;
        while holds(op, v + offset, bound) {
            if values.len() == MOST_TRIPS || !(least..=most).contains(&v) || step == 0 {
                return None;
            }
            values.push(v);
            v += step;
        }
        // (Compared as numbers: right unless a negative value meets an
        // unsigned one.)
        let negative = values.iter().chain([&start, &bound]).any(|&x| x < 0)
            || values.iter().any(|&x| x + offset < 0);
        if negative && (!scalar.signed || unsigned_in(cond) || unsigned_in(init_expr(d)?)) {
            return None;
        }
        if !fixed_in(body, var) {
            return None;
        }
        self.copies += values.len();
        if self.copies > MOST_COPIES {
            return None;
        }
        let continues = super::progress::continues(body);
        let mut copies = Vec::with_capacity(values.len());
        for v in values {
            let mut copy = body.clone();
            reduce::for_each_expr_mut(&mut copy, &mut |e| {
                if matches!(&e.kind, ExprKind::Ident(n) if n == var) {
                    e.kind = ExprKind::Int(v as u64 & scalar.mask(), scalar);
                }
            });
            let copy = self.stmt(&copy)?;
            copies.push(match continues {
                true => Stmt {
                    kind: StmtKind::DoWhile(Box::new(copy), zero(s.loc)),
                    loc: s.loc,
                },
                false => copy,
            });
        }
        Some(Stmt {
            kind: StmtKind::Block(copies),
            loc: s.loc,
        })
    }
}

/// Whether `x op bound` holds, as numbers.
fn holds(op: BinOp, x: i128, bound: i128) -> bool {
    match op {
        BinOp::Lt => x < bound,
        BinOp::Le => x <= bound,
        BinOp::Gt => x > bound,
        BinOp::Ge => x >= bound,
        _ => x != bound,
    }
}

/// The initializer of `d`, if it is an expression.
fn init_expr(d: &Decl) -> Option<&Expr> {
    match &d.init {
        Some(Init::Expr(e)) => Some(e),
        _ => None,
    }
}

/// Whether `e` has an unsigned constant.
fn unsigned_in(e: &Expr) -> bool {
    let mut found = false;
    super::visit(e, &mut |x| {
        found |= matches!(&x.kind, ExprKind::Int(_, s) if !s.signed);
    });
    found
}

/// The constant `0` (a `do ... while (0)`'s condition).
fn zero(loc: crate::error::Loc) -> Expr {
    Expr {
        kind: ExprKind::Int(0, crate::types::Scalar::INT),
        loc,
    }
}

/// Whether `body` reads `var` only as a value: it neither writes it, nor
/// takes its address, nor declares another of that name, nor names it in
/// a type; and it does not `break` out of the loop.
pub(super) fn fixed_in(body: &Stmt, var: &str) -> bool {
    let mut ok = true;
    let is_var = |e: &Expr| matches!(&e.kind, ExprKind::Ident(n) if n == var);
    walk(body, (0, 0), &mut |s, (loops, switches)| match &s.kind {
        StmtKind::Break if loops == 0 && switches == 0 => ok = false,
        StmtKind::Decl(ds) => {
            ok &= ds
                .iter()
                .all(|d| d.name != var && !type_mentions(&d.ty, var));
        }
        _ => {}
    });
    body.for_each_expr(&mut |e| {
        super::visit(e, &mut |x| match &x.kind {
            ExprKind::Assign(_, t, _) | ExprKind::IncDec { e: t, .. } => ok &= !is_var(t),
            ExprKind::Unary(UnOp::Addr, a) => ok &= !is_var(a),
            ExprKind::Cast(t, _) | ExprKind::SizeofType(t) | ExprKind::Compound(t, _) => {
                ok &= !type_mentions(t, var)
            }
            ExprKind::StmtExpr(_) => ok = false,
            _ => {}
        })
    });
    ok
}

/// Calls `f` on `s` and the statements inside it, with how many loops and
/// switches enclose each inside `s` (`at`, counted from `s`'s).
fn walk(s: &Stmt, at: (u32, u32), f: &mut dyn FnMut(&Stmt, (u32, u32))) {
    f(s, at);
    let (loops, switches) = at;
    match &s.kind {
        StmtKind::Block(items) => items.iter().for_each(|i| walk(i, at, f)),
        StmtKind::If(_, t, e) => {
            walk(t, at, f);
            if let Some(e) = e {
                walk(e, at, f);
            }
        }
        StmtKind::For(init, _, _, b) => {
            if let Some(i) = init {
                walk(i, (loops + 1, switches), f);
            }
            walk(b, (loops + 1, switches), f)
        }
        StmtKind::While(_, b) | StmtKind::DoWhile(b, _) => walk(b, (loops + 1, switches), f),
        StmtKind::Switch(_, b) => walk(b, (loops, switches + 1), f),
        StmtKind::Case(_, _, b) | StmtKind::Default(b) => walk(b, at, f),
        _ => {}
    }
}

/// Whether type `t` names `var` (an array size, a `typeof`).
fn type_mentions(t: &TypeExpr, var: &str) -> bool {
    match t {
        TypeExpr::Known(_) => false,
        TypeExpr::Typeof(_) => true,
        TypeExpr::Pointer(inner) => type_mentions(inner, var),
        TypeExpr::Array(inner, size) => {
            size.as_ref().is_some_and(|e| mentions(e, var)) || type_mentions(inner, var)
        }
    }
}
