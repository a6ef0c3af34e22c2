//! `for` loops proposed as parallel regions (see [`crate::regions`]).
//!
//! A candidate loop is unrolled as usual, but each iteration is marked in
//! the builder (so structural hashing does not share gates between
//! iterations) and made independent of the others: a reduction variable is
//! bound, for the iteration, to a fresh partial that starts at the
//! operator's identity (for a minimum or maximum, the iteration just yields
//! its candidate), and values an iteration leaves in outer objects are
//! reduced to bits inside it. After the loop, the partials are combined with
//! a balanced tree and the result is assigned. The builder then checks the
//! iterations on the circuit graph before making them a region.

use super::*;
use crate::regions::{self, minmax_parts, Plan, RedOp};

/// The lowering's state about candidate loops.
pub(super) struct Regions<'p> {
    /// Whether a candidate loop is being unrolled (loops inside it are not
    /// candidates: the outermost one wins).
    active: bool,
    /// Loops not to propose.
    deny: &'p HashSet<LoopKey>,
    /// How many times each loop was a candidate.
    seen: HashMap<Loc, u32>,
    /// The loops proposed, in order.
    pub(super) proposed: Vec<LoopKey>,
}

impl<'p> Regions<'p> {
    pub(super) fn new(deny: &'p HashSet<LoopKey>) -> Regions<'p> {
        Regions {
            active: false,
            deny,
            seen: HashMap::new(),
            proposed: Vec::new(),
        }
    }
}

/// A reduction variable during a region: name, operator, object, type.
struct Red {
    name: String,
    op: RedOp,
    obj: usize,
    ty: CType,
    scalar: Scalar,
}

impl<'p> Lower<'p> {
    /// A `for` loop once its initialization has run: as a parallel region
    /// when it is a candidate (and regions are on), else unrolled as usual.
    pub(super) fn for_loop(
        &mut self,
        init: Option<&Stmt>,
        cond: Option<&Expr>,
        step: Option<&Expr>,
        body: &Stmt,
        loc: Loc,
        vars: &[String],
    ) -> DResult<()> {
        let plan = if self.opts.regions && !self.regions.active && self.alive() == Bit::Const(true)
        {
            let outer = |n: &str| self.lookup(n).map(|(_, t)| t);
            regions::analyze(init, cond, step, body, &outer, &self.funcs).ok()
        } else {
            None
        };
        let key = plan.as_ref().map(|_| {
            let n = self.regions.seen.entry(loc).or_insert(0);
            *n += 1;
            (loc, *n - 1)
        });
        match (plan, key, cond, step) {
            (Some(plan), Some(key), Some(cond), Some(step))
                if !self.regions.deny.contains(&key) =>
            {
                self.regions.active = true;
                self.frame_mut().loops += 1;
                let r = self.region_loop(&plan, key, cond, step, body, loc, vars);
                self.frame_mut().loops -= 1;
                self.regions.active = false;
                r
            }
            _ => self.exec_loop(cond, step, body, false, loc, vars),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn region_loop(
        &mut self,
        plan: &Plan,
        key: LoopKey,
        cond: &Expr,
        step: &Expr,
        body: &Stmt,
        loc: Loc,
        vars: &[String],
    ) -> DResult<()> {
        // Sums still lazy in what the loop reads are reduced now, before
        // the first iteration (else that one alone would make their gates).
        for name in &plan.outer_refs {
            if let Some((obj, _)) = self.lookup(name) {
                self.reduce_object(obj);
            }
        }
        let mut reds = Vec::new();
        for (name, op) in &plan.reductions {
            let Some((obj, ty)) = self.lookup(name) else {
                return self.exec_loop(Some(cond), Some(step), body, false, loc, vars);
            };
            let Some(scalar) = ty.scalar() else {
                return self.exec_loop(Some(cond), Some(step), body, false, loc, vars);
            };
            reds.push(Red {
                name: name.clone(),
                op: *op,
                obj,
                ty,
                scalar,
            });
        }
        let mut privs = Vec::new();
        for name in &plan.private {
            if let Some((obj, ty)) = self.lookup(name) {
                privs.push((name.clone(), obj, ty));
            }
        }
        let mut last: Vec<Option<Slot>> = vec![None; privs.len()];
        let owned: Vec<usize> = plan
            .owned
            .iter()
            .filter_map(|n| self.lookup(n).map(|(o, _)| o))
            .collect();
        let items: Vec<&Stmt> = match &body.kind {
            StmtKind::Block(items) => items.iter().collect(),
            _ => vec![body],
        };
        let mut partials: Vec<Vec<Word>> = vec![Vec::new(); reds.len()];
        let first_gate = self.b.gate_count();
        let mut mark = self.b.begin_loop();
        let mut iters = 0u64;
        loop {
            match self.cond(cond)? {
                Bit::Const(false) => break,
                Bit::Const(true) => {}
                _ => {
                    // A secret trip count: no region; the iterations so far
                    // stand, the rest are unrolled as usual.
                    self.b.abandon_loop(mark);
                    self.combine(&reds, partials, loc)?;
                    self.keep_last(&privs, last);
                    return self.exec_loop(Some(cond), Some(step), body, false, loc, vars);
                }
            }
            self.b.begin_iteration(&mut mark);
            self.frame_mut().scopes.push(Scope::new());
            let mut fresh = Vec::with_capacity(privs.len());
            for (name, _, ty) in &privs {
                let obj = self.new_object(ty, loc)?;
                self.bind(name, obj, ty.clone());
                fresh.push(obj);
            }
            let r = self.iteration(&reds, &items, &mut partials, loc);
            for (k, &obj) in fresh.iter().enumerate() {
                let s = self.slot(obj, 0);
                if let Slot::Val(w) = &s {
                    w.range(&mut self.b);
                }
                last[k] = Some(s);
            }
            self.frame_mut().scopes.pop();
            r?;
            for &obj in &owned {
                self.reduce_object(obj);
            }
            self.eval(step)?;
            iters += 1;
            if iters > MAX_ITERATIONS {
                return err(
                    loc,
                    format!("the loop did not end within {MAX_ITERATIONS} iterations"),
                );
            }
        }
        // A loop of one iteration, or one that makes no gate, is no region.
        if iters >= 2 && self.b.gate_count() > first_gate {
            self.b.end_loop(mark);
            self.regions.proposed.push(key);
        } else {
            self.b.abandon_loop(mark);
        }
        self.keep_last(&privs, last);
        self.combine(&reds, partials, loc)
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
    /// run, the partials (and min/max candidates) collected as bits.
    fn iteration(
        &mut self,
        reds: &[Red],
        items: &[&Stmt],
        partials: &mut [Vec<Word>],
        loc: Loc,
    ) -> DResult<()> {
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
        self.frame_mut().scopes.push(Scope::new());
        let mut res = Ok(());
        for item in items {
            res = self.region_stmt(reds, item, partials);
            if res.is_err() {
                break;
            }
        }
        self.frame_mut().scopes.pop();
        res?;
        for (k, obj) in fresh.into_iter().enumerate() {
            if let Some(obj) = obj {
                if let Slot::Val(w) = self.slot(obj, 0) {
                    // A sum's partial is left in carry-save form: the carry
                    // chain is made once, after the loop.
                    let w = if reds[k].op == RedOp::Add {
                        w.carry_save(&mut self.b)
                    } else {
                        w.range(&mut self.b);
                        w
                    };
                    partials[k].push(w);
                }
            }
        }
        Ok(())
    }

    /// A statement of the body's top level: a min/max of a reduction
    /// variable yields its candidate, anything else runs.
    fn region_stmt(&mut self, reds: &[Red], s: &Stmt, partials: &mut [Vec<Word>]) -> DResult<()> {
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
                    partials[k].push(w);
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

    /// Reduces the lazy sums held by an object to bits.
    fn reduce_object(&mut self, obj: usize) {
        for k in 0..self.objs[obj].slots.len() {
            if let Slot::Val(w @ Word::Sum(_)) = &self.objs[obj].slots[k] {
                let w = w.clone();
                w.range(&mut self.b);
            }
        }
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
