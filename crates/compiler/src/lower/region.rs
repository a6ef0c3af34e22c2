//! `for` loops: kept as loops where they can be (see [`super::keep`]),
//! with independent iterations turned into parallel regions
//! (see [`crate::regions`]).
//!
//! In a loop proposed as a region, each iteration is made independent of
//! the others: a reduction variable is bound, for the iteration, to a fresh
//! partial that starts at the operator's identity (for a minimum or
//! maximum, the iteration just yields its candidate), values an iteration
//! leaves in outer objects are reduced to bits inside it, and private
//! scalars get a copy per iteration. After the loop, the partials are
//! combined with a balanced tree and the result is assigned.

use super::*;
use crate::loops;
use crate::regions::{self, minmax_parts, Plan, RedOp};

/// A reduction variable during a region: name, operator, object, type.
struct Red {
    name: String,
    op: RedOp,
    obj: usize,
    ty: CType,
    scalar: Scalar,
}

impl<'p> Lower<'p> {
    /// A `for` loop once its initialization has run: kept (as a region when
    /// its iterations are independent) where it can be, else unrolled.
    pub(super) fn for_loop(
        &mut self,
        init: Option<&Stmt>,
        cond: Option<&Expr>,
        step: Option<&Expr>,
        body: &Stmt,
        loc: Loc,
        vars: &[String],
    ) -> DResult<()> {
        if !self.opts.loops {
            let report = LoopReport {
                why: Some(crate::NO_LOOPS.to_string()),
                ..LoopReport::new(String::new(), 0)
            };
            self.loops.insert(loc, report);
            return self.exec_loop(cond, step, body, false, loc, vars);
        }
        let why = if self.alive() != Bit::Const(true) {
            "it runs under a secret condition (after a secret break or return)".to_string()
        } else {
            let public = |n: &str| self.public_scalar(n);
            let analyzed = loops::analyze_with(cond, step, body, &public);
            match (analyzed, cond, step) {
                (Ok(ind), Some(cond), Some(step)) => {
                    // Products of the variable with secrets become
                    // variables that follow them (else each iteration
                    // would multiply).
                    let reduced = match ind.each {
                        true => self.strength_reduced(&ind, (cond, step), body)?,
                        false => None,
                    };
                    let (ind, kept) = match &reduced {
                        // (Probed each still: its sums carried on are
                        // reduced only there.)
                        Some(b) => match loops::analyze_with(Some(cond), Some(step), b, &|n| {
                            self.public_scalar(n)
                        }) {
                            Ok(reduced) => (
                                loops::Induction {
                                    each: true,
                                    reduced: true,
                                    ..reduced
                                },
                                b,
                            ),
                            Err(_) => (ind, body),
                        },
                        None => (ind, body),
                    };
                    // A loop whose iterations are probed one by one is
                    // kept from runs of its iterations; as a region only
                    // where it reduces (a count whose terms the counter
                    // decides, as in ranking): each iteration then yields
                    // its own term, where a sum carried from one to the
                    // next would make every iteration lower differently.
                    let plan = if self.opts.regions {
                        let outer = |n: &str| self.lookup(n).map(|(_, t)| t);
                        regions::analyze(init, Some(cond), Some(step), kept, &outer, &self.funcs)
                            .ok()
                            .filter(|p| !ind.each || !p.reductions.is_empty())
                    } else {
                        None
                    };
                    let bodies = (kept, body);
                    match self.kept_for(&ind, plan.as_ref(), cond, step, bodies, loc, vars)? {
                        None => return Ok(()),
                        Some(why) => why,
                    }
                }
                (Err(why), ..) => why,
                _ => "the loop has no condition or step".to_string(),
            }
        };
        let report = LoopReport {
            why: Some(why),
            ..LoopReport::new(String::new(), 0)
        };
        self.loops.insert(loc, report);
        self.exec_loop(cond, step, body, false, loc, vars)
    }

    /// The type and value of variable `n` if it holds a public integer.
    fn public_scalar(&self, n: &str) -> Option<(Scalar, u64)> {
        let (obj, ty) = self.lookup(n)?;
        let s = ty.scalar()?;
        match self.objs[obj].slots.first() {
            Some(Slot::Val(Word::Const { v, .. })) => Some((s, *v)),
            _ => None,
        }
    }

    /// Lowers a candidate loop through [`Lower::keep_loop`]; `None` when
    /// done, else why it could not be counted (it is then unrolled).
    #[allow(clippy::too_many_arguments)]
    fn kept_for(
        &mut self,
        ind: &loops::Induction,
        plan: Option<&Plan>,
        cond: &Expr,
        step: &Expr,
        (body, plain): (&Stmt, &Stmt),
        loc: Loc,
        vars: &[String],
    ) -> DResult<Option<String>> {
        // Sums still lazy in what the loop reads are reduced now, before
        // the first iteration (else each iteration would reduce them).
        for name in plan.iter().flat_map(|p| &p.outer_refs) {
            if let Some((obj, _)) = self.lookup(name) {
                self.reduce_object(obj, loc)?;
            }
        }
        let Some((reds, privs)) = self.region_setup(plan) else {
            return Ok(Some("a reduction variable is not a scalar".into()));
        };
        let items: Vec<&Stmt> = match &body.kind {
            StmtKind::Block(items) if plan.is_some() => items.iter().collect(),
            _ => vec![body],
        };
        // What the body computes from its counter, for a loop whose every
        // iteration is probed.
        let counters = ind.each.then(|| {
            let invariant = |n: &str| self.public_scalar(n).is_some();
            loops::counter::plan(body, &ind.var, &invariant)
        });
        let counters = counters.flatten();
        self.frame_mut().loops += 1;
        let mut read = Vec::new();
        loops::idents_of(cond, &mut read);
        loops::idents_of(step, &mut read);
        // (The loop variable too: the body may not write it, but a pointer
        // to it may.)
        let counted_with: Vec<(usize, String)> = (read.into_iter())
            .filter_map(|n| Some((self.lookup(&n)?.0, n)))
            .collect();
        let frozen = self.frozen.freeze(counted_with);
        // (Probes of this loop's iterations are those past the ones open
        // now.)
        let outer_probes = self.probes.len();
        let kept = if plan.is_some() {
            self.keep_loop(ind, cond, (loc, counters.as_ref()), |me| {
                let probed = me.probes.len() > outer_probes;
                me.region_iteration(&reds, &privs, &items, (loc, probed))
            })
        } else {
            self.keep_loop(ind, cond, (loc, counters.as_ref()), |me| {
                me.exec_guarded(body)?;
                me.set_flag(CONT, Bit::Const(false));
                Ok(Vec::new())
            })
        };
        self.frozen.thaw(frozen);
        self.frame_mut().loops -= 1;
        let Some((outcome, extras, mut report)) = kept? else {
            return Ok(Some(
                "its trip count is not public, or its variable could wrap".into(),
            ));
        };
        if plan.is_some() {
            let mut partials: Vec<Vec<Word>> = vec![Vec::new(); reds.len()];
            for row in &extras {
                for (k, slot) in row.iter().take(reds.len()).enumerate() {
                    if let Slot::Val(w) = slot {
                        partials[k].push(w.clone());
                    }
                }
            }
            let last = extras.last().map(|row| row[reds.len()..].to_vec());
            self.combine(&reds, partials, loc)?;
            if let Some(last) = last {
                self.keep_last(&privs, last.into_iter().map(Some).collect());
            }
        }
        report.at = format!("line {}", loc.line);
        self.loops.insert(loc, report);
        if let keep::Outcome::Changed(_) = outcome {
            // The variable holds the iteration that changed what the loop
            // counts with: the step as written leads to the next.
            self.eval(step)?;
        }
        if !matches!(outcome, keep::Outcome::Done) {
            // The variable holds the first iteration not kept. The body as
            // written serves the rest (a strength-reduced one computes the
            // same values; its running sums are just no longer read).
            self.exec_loop(Some(cond), Some(step), plain, false, loc, vars)?;
        }
        Ok(None)
    }

    /// The reduction variables and private scalars of a region plan (none
    /// without a plan); `None` if a reduction variable is not a scalar.
    #[allow(clippy::type_complexity)]
    fn region_setup(
        &mut self,
        plan: Option<&Plan>,
    ) -> Option<(Vec<Red>, Vec<(String, usize, CType)>)> {
        let Some(plan) = plan else {
            return Some((Vec::new(), Vec::new()));
        };
        let mut reds = Vec::new();
        for (name, op) in &plan.reductions {
            let (obj, ty) = self.lookup(name)?;
            let scalar = ty.scalar()?;
            reds.push(Red {
                name: name.clone(),
                op: *op,
                obj,
                ty,
                scalar,
            });
        }
        let privs = plan
            .private
            .iter()
            .filter_map(|name| self.lookup(name).map(|(obj, ty)| (name.clone(), obj, ty)))
            .collect();
        Some((reds, privs))
    }

    /// One iteration of a region: private scalars and reduction partials
    /// fresh, the body run, what it leaves in outer objects reduced to bits.
    /// Yields each reduction's partial, then each private scalar's value.
    /// `probed`: whether the loop probes the iteration (else it is lowered
    /// as written).
    fn region_iteration(
        &mut self,
        reds: &[Red],
        privs: &[(String, usize, CType)],
        items: &[&Stmt],
        (loc, probed): (Loc, bool),
    ) -> DResult<Vec<Slot>> {
        self.frame_mut().names.push_scope();
        let mut fresh = Vec::with_capacity(privs.len());
        for (name, _, ty) in privs {
            let obj = self.new_object(ty, loc)?;
            self.bind(name, obj, ty.clone());
            fresh.push(obj);
        }
        let partials = self.iteration(reds, items, (loc, probed));
        let mut out = Vec::new();
        let r = partials.map(|partials| {
            for p in partials {
                match p {
                    Some(w) => out.push(Slot::Val(w)),
                    None => {
                        self.fail_probes(
                            "a reduction's candidate is not computed in every iteration",
                        );
                        out.push(Slot::Val(Word::konst(0, 1)));
                    }
                }
            }
        });
        for &obj in &fresh {
            let s = self.slot(obj, 0);
            if let Slot::Val(w) = &s {
                w.range(&mut self.b);
            }
            out.push(s);
        }
        self.frame_mut().names.pop_scope();
        r?;
        // Sums the iteration leaves in outer objects are its outputs: as
        // bits, so the work stays in the region.
        let written: Vec<(usize, usize)> = self
            .probes
            .last()
            .map(|p| p.written().collect())
            .unwrap_or_default();
        for (obj, leaf) in written {
            if let Slot::Val(w @ Word::Sum(_)) = &self.objs[obj].slots[leaf] {
                let w = w.clone();
                w.range(&mut self.b);
            }
        }
        Ok(out)
    }

    /// Gives the private scalars the values of the last iteration.
    fn keep_last(&mut self, privs: &[(String, usize, CType)], last: Vec<Option<Slot>>) {
        for ((_, obj, _), s) in privs.iter().zip(last) {
            if let Some(s) = s {
                self.write_slot(*obj, 0, s);
            }
        }
    }

    /// One iteration: reduction variables bound to fresh partials, the body
    /// run; returns each reduction's partial (a minimum's or maximum's
    /// candidate) as bits, if the iteration made one. A sum's partial is
    /// left lazy in an iteration lowered as written (`probed` false).
    fn iteration(
        &mut self,
        reds: &[Red],
        items: &[&Stmt],
        (loc, probed): (Loc, bool),
    ) -> DResult<Vec<Option<Word>>> {
        let mut fresh = Vec::with_capacity(reds.len());
        for r in reds {
            let Some(id) = identity(r.op, r.scalar) else {
                fresh.push(None);
                continue;
            };
            let obj = self.new_object(&r.ty, loc)?;
            self.objs[obj].slots[0] = Slot::Val(id);
            self.bind(&r.name, obj, r.ty.clone());
            fresh.push(Some(obj));
        }
        let mut partials = vec![None; reds.len()];
        self.frame_mut().names.push_scope();
        let mut res = Ok(());
        for item in items {
            res = self.region_stmt(reds, item, &mut partials);
            if res.is_err() {
                break;
            }
        }
        self.frame_mut().names.pop_scope();
        res?;
        for (k, obj) in fresh.into_iter().enumerate() {
            if let Some(obj) = obj {
                if let Slot::Val(w) = self.slot(obj, 0) {
                    // A sum's partial is left in carry-save form: the carry
                    // chain is made once, after the loop. (Lowered as
                    // written, its rows join the total's as they are: the
                    // sum of `t += a * k` for many public `k` is then what
                    // unrolling makes, not two full words an iteration.)
                    let w = if reds[k].op != RedOp::Add {
                        w.range(&mut self.b);
                        w
                    } else if probed {
                        w.carry_save(&mut self.b)
                    } else {
                        w.without_zero_rows()
                    };
                    partials[k] = Some(w);
                }
            }
        }
        Ok(partials)
    }

    /// A statement of the body's top level: a min/max of a reduction
    /// variable yields its candidate, anything else runs.
    fn region_stmt(
        &mut self,
        reds: &[Red],
        s: &Stmt,
        partials: &mut [Option<Word>],
    ) -> DResult<()> {
        if let Some((x, d, _)) = minmax_parts(s) {
            let at = self.lookup(x).map(|(o, _)| o);
            if let Some(k) = reds.iter().position(|r| {
                r.name == x && Some(r.obj) == at && identity(r.op, r.scalar).is_none()
            }) {
                let Some((obj, _)) = self.lookup(d) else {
                    return err(s.loc, format!("undeclared identifier '{d}'"));
                };
                if let Slot::Val(w) = self.slot(obj, 0) {
                    w.range(&mut self.b);
                    partials[k] = Some(w);
                }
                return Ok(());
            }
        }
        self.exec_guarded(s)
    }

    /// Combines the partials of each reduction with a balanced tree and
    /// assigns the result.
    fn combine(&mut self, reds: &[Red], partials: Vec<Vec<Word>>, loc: Loc) -> DResult<()> {
        for (r, parts) in reds.iter().zip(partials) {
            if r.op == RedOp::Add {
                // A sum stays lazy: all partials are reduced together with
                // full adders (a carry-save tree), as the loop would have.
                let Slot::Val(mut acc) = self.slot(r.obj, 0) else {
                    continue;
                };
                for p in parts {
                    acc = acc.add(&mut self.b, &p, false);
                }
                self.store(r.obj, 0, Val::Int(r.scalar, acc));
                continue;
            }
            let mut layer: Vec<Val> = parts.into_iter().map(|w| Val::Int(r.scalar, w)).collect();
            while layer.len() > 1 {
                let mut next = Vec::with_capacity(layer.len().div_ceil(2));
                let mut it = layer.into_iter();
                while let Some(a) = it.next() {
                    match it.next() {
                        Some(b) => next.push(self.reduce_pair(r, a, b, loc)?),
                        None => next.push(a),
                    }
                }
                layer = next;
            }
            let Some(total) = layer.pop() else {
                continue;
            };
            let Slot::Val(old) = self.slot(r.obj, 0) else {
                continue;
            };
            let new = if old.as_const().is_some() && old.as_const() == extreme(r.op, r.scalar) {
                // The minimum with the type's largest value (or the
                // maximum with its smallest) is the other operand.
                total
            } else {
                self.reduce_pair(r, Val::Int(r.scalar, old), total, loc)?
            };
            self.store(r.obj, 0, new);
        }
        Ok(())
    }

    /// `a op b` for a reduction, in the variable's type.
    fn reduce_pair(&mut self, r: &Red, a: Val, b: Val, loc: Loc) -> DResult<Val> {
        let v = match r.op {
            RedOp::Add => self.binop(BinOp::Add, a, b, loc)?,
            RedOp::Mul => self.binop(BinOp::Mul, a, b, loc)?,
            RedOp::Xor => self.binop(BinOp::Xor, a, b, loc)?,
            RedOp::Or => self.binop(BinOp::Or, a, b, loc)?,
            RedOp::And => self.binop(BinOp::And, a, b, loc)?,
            RedOp::Min | RedOp::Max => {
                let op = if r.op == RedOp::Min {
                    BinOp::Lt
                } else {
                    BinOp::Gt
                };
                let c = self.binop(op, b.clone(), a.clone(), loc)?;
                let c = self.truth(c, loc)?;
                self.select(c, b, a, loc)?
            }
        };
        self.convert(v, &r.ty, loc)
    }

    /// Reduces the lazy sums held by an object to bits (reading only the
    /// locations that hold one), a step of work each.
    fn reduce_object(&mut self, obj: usize, loc: Loc) -> DResult<()> {
        for k in 0..self.objs[obj].slots.len() {
            if matches!(self.objs[obj].slots[k], Slot::Val(Word::Sum(_))) {
                if let Slot::Val(w) = self.slot(obj, k) {
                    w.range(&mut self.b);
                }
                self.step(loc)?;
            }
        }
        Ok(())
    }
}

/// The value a partial of `op` starts from (`None` for min/max).
fn identity(op: RedOp, t: Scalar) -> Option<Word> {
    match op {
        RedOp::Add | RedOp::Xor | RedOp::Or => Some(Word::konst(0, t.width)),
        RedOp::Mul => Some(Word::konst(1, t.width)),
        RedOp::And => Some(Word::konst(u64::MAX, t.width)),
        RedOp::Min | RedOp::Max => None,
    }
}

/// The type's largest value for a minimum, its smallest for a maximum.
fn extreme(op: RedOp, t: Scalar) -> Option<u64> {
    let top = if t.signed { t.mask() >> 1 } else { t.mask() };
    match op {
        RedOp::Min => Some(top),
        RedOp::Max => Some(if t.signed { top + 1 } else { 0 }),
        _ => None,
    }
}
