//! Strength reduction of a loop's products with its variable (see
//! [`crate::loops::reduce`]): the variables that follow them are declared
//! in the loop's scope, and the body reads them instead.

use super::*;
use crate::loops::{self, reduce, Induction};

/// `long`: the type of the step's constant.
const LONG: Scalar = Scalar::int(64, true);

/// What strength reduction makes of a loop probed each.
pub(super) enum Reduction {
    /// No product worth reducing: the body as written.
    Written,
    /// The body with its products replaced (still probed each).
    Reduced(Stmt),
    /// The counter's only use that keeps the loop probed each is in
    /// products with secrets: reduced, the loop would carry sums reduced
    /// every iteration (many times the AND gates); probed, no two
    /// iterations lower alike. It is unrolled at once, where its sums
    /// collect like terms, if short of the iterations where keeping it
    /// pays (see `keep::MIN_SETTLED_TRIPS`); a longer one is probed each
    /// as written.
    Unroll,
}

/// Why a loop [`Reduction::Unroll`] names is unrolled.
pub(super) const ONLY_PRODUCTS: &str =
    "the counter is used only in products with secrets: unrolled, their sums collect like terms";

impl Lower<'_> {
    /// The body of the loop `ind` counts (with condition `cond` and step
    /// `step`), its products of the variable with secret values it does not
    /// change replaced by variables declared now (each holding the
    /// product's value before the first iteration, the body adding the
    /// factor times the step, computed once, at its end); `None` if it has
    /// none worth it.
    ///
    /// Worth it means: the factor is as wide as the product (its rows are
    /// full words: a narrow factor's few shifted rows cost less than an
    /// addition), and the body computes with the variable besides (its keys
    /// keep the loop probed each, where the sums it carries on are reduced
    /// each iteration; see `keep::each`); else [`Reduction::Unroll`].
    pub(super) fn strength_reduced(
        &mut self,
        ind: &Induction,
        (cond, step): (&Expr, &Expr),
        body: &Stmt,
    ) -> DResult<Reduction> {
        let Some(var) = self.lookup(&ind.var).and_then(|(_, t)| t.scalar()) else {
            return Ok(Reduction::Written);
        };
        let mut planned = Vec::new();
        let pointer = |n: &str| self.lookup(n).is_some_and(|(_, t)| t.holds_pointer());
        for p in reduce::products(body, &ind.var, &pointer) {
            let Val::Int(scalar, word) = self.eval(&p.factor)? else {
                continue;
            };
            let ty = Scalar::common(var, scalar);
            // A public factor makes the product a key (see `counter`); a
            // float product is rounded, not a sum of its steps.
            let exact = !ty.float && !scalar.float;
            if exact && word.as_const().is_none() && scalar.promote().width == ty.width {
                planned.push((p, ty));
            }
        }
        // Not C identifiers: no name of the program's can meet them.
        let names: Vec<String> = (0..planned.len())
            .map(|k| format!("{}*#{k}", ind.var))
            .collect();
        // The variable counts from 0 (a public value, read as an input
        // per iteration); a product from a counter that starts elsewhere
        // adds its first value, computed once (else the structure that
        // value shares with the factor would make the first iterations
        // unlike the others).
        let from_zero = matches!(
            self.eval(&Expr { kind: ExprKind::Ident(ind.var.clone()), loc: cond.loc })?,
            Val::Int(_, w) if w.as_const() == Some(0)
        );
        let ident = |name: &str, loc| Expr {
            kind: ExprKind::Ident(name.to_string()),
            loc,
        };
        let replacements: Vec<Expr> = planned
            .iter()
            .zip(&names)
            .map(|((p, _), name)| match from_zero {
                true => ident(name, p.first.loc),
                false => Expr {
                    kind: ExprKind::Binary(
                        BinOp::Add,
                        Box::new(ident(name, p.first.loc)),
                        Box::new(ident(&format!("{name}@"), p.first.loc)),
                    ),
                    loc: p.first.loc,
                },
            })
            .collect();
        let products: Vec<_> = planned.iter().map(|(p, _)| p.clone()).collect();
        let updates = planned
            .iter()
            .zip(&names)
            .map(|((p, ty), name)| update(ind.step, p, *ty, name))
            .collect();
        let reduced = reduce::rewrite(body, &ind.var, &products, &replacements, updates);
        let keyed = loops::analyze(Some(cond), Some(step), &reduced).is_ok_and(|i| i.each);
        if planned.is_empty() {
            return Ok(Reduction::Written);
        }
        if !keyed {
            return Ok(Reduction::Unroll);
        }
        for ((p, ty), name) in planned.iter().zip(&names) {
            let loc = p.first.loc;
            let zero = Expr {
                kind: ExprKind::Int(0, *ty),
                loc,
            };
            let mut decls = vec![(name.clone(), zero)];
            if !from_zero {
                decls.push((format!("{name}@"), p.first.clone()));
            }
            if let Some(multiple) = step_multiple(ind.step, p, *ty) {
                decls.push((format!("{name}+"), multiple));
            }
            for (name, init) in decls {
                self.declare(&Decl {
                    name: name.clone(),
                    ty: TypeExpr::Known(ty.ctype()),
                    init: Some(Init::Expr(init)),
                    is_extern: false,
                    loc,
                })?;
                // As bits, not the rows of the factor's shifted copies:
                // the iterations read them alike.
                if let Some((obj, _)) = self.lookup(&name) {
                    self.settle_objects(&[obj]);
                }
            }
        }
        Ok(Reduction::Reduced(reduced))
    }
}

/// The factor of `p` times the step's size, in the product's type `ty`,
/// if the step is other than ±1 (then computed once, before the loop).
fn step_multiple(step: i128, p: &reduce::Product, ty: Scalar) -> Option<Expr> {
    let size = step.unsigned_abs();
    if size == 1 {
        return None;
    }
    let at = |kind| Expr {
        kind,
        loc: p.first.loc,
    };
    let size = at(ExprKind::Cast(
        TypeExpr::Known(ty.ctype()),
        Box::new(at(ExprKind::Int(size as u64, LONG))),
    ));
    Some(at(ExprKind::Binary(
        BinOp::Mul,
        Box::new(size),
        Box::new(p.factor.clone()),
    )))
}

/// `name += factor` (`-=` for a negative step), the factor multiplied by
/// the step's size where [`step_multiple`] computed that as `name+`.
fn update(step: i128, p: &reduce::Product, ty: Scalar, name: &str) -> Stmt {
    let loc = p.first.loc;
    let at = |kind| Expr { kind, loc };
    let add = match step_multiple(step, p, ty) {
        Some(_) => at(ExprKind::Ident(format!("{name}+"))),
        None => p.factor.clone(),
    };
    let op = if step < 0 { BinOp::Sub } else { BinOp::Add };
    let update = at(ExprKind::Assign(
        Some(op),
        Box::new(at(ExprKind::Ident(name.to_string()))),
        Box::new(add),
    ));
    Stmt {
        kind: StmtKind::Expr(update),
        loc,
    }
}
