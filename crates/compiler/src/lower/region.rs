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

use super::budget::Charge;
use super::strength::{Reduction, ONLY_PRODUCTS};
use super::*;
use crate::loops;
use crate::regions::{self, minmax_parts, Plan, RedOp};

/// A reduction variable during a region: name, operator, object, type.
pub(super) struct Red {
    pub(super) name: String,
    pub(super) op: RedOp,
    pub(super) obj: usize,
    pub(super) ty: CType,
    pub(super) scalar: Scalar,
}

/// The objects (private scalars', then partials') that a region's
/// iterations lowered as written reuse: each made its own before, and a
/// public loop of millions of iterations held them all.
#[derive(Default)]
struct Spare {
    objs: Vec<usize>,
    /// The next to hand out in the iteration at hand.
    next: usize,
}

/// A region's partials, taken as its iterations are lowered. Public ones
/// are folded at once into one constant a reduction (a public loop of
/// millions of iterations holds nothing an iteration); the others are kept
/// in order for the combining tree. The last row is kept for the private
/// scalars' values.
struct Gathered {
    /// Each reduction's operator and type.
    ops: Vec<(RedOp, Scalar)>,
    /// Each reduction's partials that are not public.
    words: Vec<Vec<Word>>,
    /// Each reduction's public partials, folded.
    folded: Vec<Option<Word>>,
    /// The last iteration's row.
    last: Option<Vec<Slot>>,
    /// How many partials are kept, and their bits.
    kept: (usize, u64),
    /// The memory the kept partials stand for, in the budget.
    held: Option<Charge>,
}

impl Gathered {
    fn new(reds: &[Red]) -> Gathered {
        Gathered {
            ops: reds.iter().map(|r| (r.op, r.scalar)).collect(),
            words: vec![Vec::new(); reds.len()],
            folded: vec![None; reds.len()],
            last: None,
            kept: (0, 0),
            held: None,
        }
    }

    /// Takes an iteration's row: its partials, then its private scalars.
    fn take(&mut self, row: Vec<Slot>) {
        for (k, slot) in row.iter().take(self.ops.len()).enumerate() {
            let Slot::Val(w) = slot else { continue };
            // A sum's rows of constants join the folded constant.
            let (rest, constant) = w.constant_rows_apart();
            let folded = (constant.filter(|_| self.ops[k].0 == RedOp::Add))
                .and_then(|c| fold(self.ops[k], self.folded[k].as_ref(), &c));
            let w = match folded {
                Some(f) => {
                    self.folded[k] = Some(f);
                    rest
                }
                None => w.clone(),
            };
            match fold(self.ops[k], self.folded[k].as_ref(), &w) {
                Some(c) => self.folded[k] = Some(c),
                None => {
                    self.kept = (self.kept.0 + 1, self.kept.1 + u64::from(w.width()));
                    self.words[k].push(w);
                    self.held = Some(Charge::words(self.kept.0, self.kept.1));
                }
            }
        }
        self.last = Some(row);
    }

    /// Each reduction's partials (the folded constant last), and the last
    /// row's private scalars.
    fn finish(self) -> (Vec<Vec<Word>>, Option<Vec<Slot>>) {
        let n = self.ops.len();
        let mut partials = self.words;
        for (parts, c) in partials.iter_mut().zip(self.folded) {
            parts.extend(c);
        }
        let last = self
            .last
            .map(|row| row.get(n..).unwrap_or_default().to_vec());
        (partials, last)
    }
}

/// `acc op w` when both are public constants of the reduction's type
/// (`w` alone when there is no `acc` yet); `None` if either is not.
fn fold((op, t): (RedOp, Scalar), acc: Option<&Word>, w: &Word) -> Option<Word> {
    let &Word::Const { v, w: width } = w else {
        return None;
    };
    if t.float || width != t.width {
        return None;
    }
    let Some(acc) = acc else {
        return Some(w.clone());
    };
    let &Word::Const { v: a, w: aw } = acc else {
        return None;
    };
    if aw != width {
        return None;
    }
    // (Signed order: flipping the sign bit maps it onto unsigned order.)
    let flip = if t.signed { 1u64 << (width - 1) } else { 0 };
    let r = match op {
        RedOp::Add => a.wrapping_add(v),
        RedOp::Mul => a.wrapping_mul(v),
        RedOp::Xor => a ^ v,
        RedOp::Or => a | v,
        RedOp::And => a & v,
        RedOp::Min => std::cmp::min_by_key(a, v, |x| x ^ flip),
        RedOp::Max => std::cmp::max_by_key(a, v, |x| x ^ flip),
    };
    Some(Word::konst(r, width))
}

/// Regions made of one loop outside probes, if their reductions are all
/// minima or maxima and their instances small, before its iterations are
/// kept sequentially instead. Such a region's partials are combined by a
/// compare-select each where the region is lowered: in a loop kept around
/// it, once in its body; in an unrolled one, every time. A maximum over
/// pairs `j > i` (a region per `i`, each of a different length, so the
/// `i` loop is unrolled) held 2 M AND gates of combines in the main
/// circuit: 2.17 s and 218 MB to run 256 values with both parties in one
/// process, against 0.69 s and 20 MB as sequential loops.
pub(super) const EXTREME_REGIONS: u32 = 4;

/// Whether every reduction of `plan` is a minimum or a maximum.
fn finds_extremes(plan: &Plan) -> bool {
    !plan.reductions.is_empty()
        && (plan.reductions.iter()).all(|(_, op)| matches!(op, RedOp::Min | RedOp::Max))
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
            self.note_loop(loc, report);
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
                        false => Reduction::Written,
                    };
                    let reduced = match reduced {
                        Reduction::Unroll if self.short_of_settling(&ind, cond)? => {
                            return self.unrolled_as_written(
                                ONLY_PRODUCTS,
                                (Some(cond), Some(step), body),
                                loc,
                                vars,
                            );
                        }
                        Reduction::Reduced(b) => Some(b),
                        Reduction::Unroll | Reduction::Written => None,
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
                    let written_out = self.written_out(&ind, kept);
                    let kept = written_out.as_ref().unwrap_or(kept);
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
                            .filter(|p| self.reads_through_unwritten(p))
                            .filter(|p| !self.extremes_made_often(p, loc))
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
        self.unrolled_as_written(&why, (cond, step, body), loc, vars)
    }

    /// The body of a loop whose iterations are probed one by one, with
    /// its short nested loops written out (see
    /// [`loops::expand`]), if only that lets its iterations be replayed.
    fn written_out(&self, ind: &loops::Induction, body: &Stmt) -> Option<Stmt> {
        let plan = |b: &Stmt| loops::counter::plan(b, &ind.var, &Around(self));
        if !ind.each || plan(body).is_some() {
            return None;
        }
        loops::expand::written_out(body).filter(|b| plan(b).is_some())
    }

    /// The loop at `loc` unrolled, reported so for `why`.
    fn unrolled_as_written(
        &mut self,
        why: &str,
        (cond, step, body): (Option<&Expr>, Option<&Expr>, &Stmt),
        loc: Loc,
        vars: &[String],
    ) -> DResult<()> {
        let report = LoopReport {
            why: Some(why.to_string()),
            ..LoopReport::new(String::new(), 0)
        };
        self.note_loop(loc, report);
        self.exec_loop(cond, step, body, false, loc, vars)
    }

    /// Whether the region `plan` of the loop at `loc` finds only minima or
    /// maxima and [`EXTREME_REGIONS`] small regions were made of it outside
    /// probes (see [`Lower::count_extreme_region`]): its iterations are
    /// then kept as a sequential loop carrying the extremes.
    fn extremes_made_often(&self, plan: &Plan, loc: Loc) -> bool {
        finds_extremes(plan)
            && self.probes.is_empty()
            && self
                .extreme_regions
                .get(&loc)
                .is_some_and(|&n| n >= EXTREME_REGIONS)
    }

    /// Counts the region just made of the loop at `loc` under `plan`
    /// (reductions `reds`) toward [`EXTREME_REGIONS`], if it finds only
    /// minima or maxima, was made outside probes, and its instances have
    /// fewer AND gates than four of the compare-selects that combine them
    /// (larger instances are worth their threads).
    fn count_extreme_region(&mut self, plan: &Plan, reds: &[Red], loc: Loc) {
        if !finds_extremes(plan) || !self.probes.is_empty() {
            return;
        }
        let combine: u32 = reds.iter().map(|r| 2 * r.scalar.width).sum();
        let small = (self.b.last_block())
            .filter(|block| block.parallel)
            .is_some_and(|block| block.body.circuit.and_count() < 4 * combine as usize);
        if small {
            *self.extreme_regions.entry(loc).or_default() += 1;
        }
    }

    /// Whether every pointer the region `plan` reads through points at an
    /// object the loop does not write (see [`Plan::read_through`]), each
    /// at another, which the body does not name (`c = a + 2; s += c[i] -
    /// a[i]` telescopes: unrolled, the terms cancel, where each instance's
    /// partial would keep them).
    fn reads_through_unwritten(&self, plan: &Plan) -> bool {
        let named = (plan.outer_refs.iter()).filter(|n| !plan.read_through.contains(n));
        let names = (plan.reductions.iter().map(|(n, _)| n))
            .chain(&plan.private)
            .chain(&plan.owned)
            .chain(named);
        let mut taken: HashSet<usize> = names.filter_map(|n| Some(self.lookup(n)?.0)).collect();
        plan.read_through.iter().all(|n| {
            let slot = self
                .lookup(n)
                .and_then(|(obj, _)| self.objs[obj].slots.first());
            matches!(slot, Some(Slot::Ptr(p)) if p.obj != usize::MAX && taken.insert(p.obj))
        })
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
        if plan.is_none() {
            self.reduce_read_only(cond, step, body, loc)?;
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
        let counters = ind
            .each
            .then(|| loops::counter::plan(body, &ind.var, &Around(self)));
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
        let mut gathered = Gathered::new(&reds);
        let mut extras = |row: Vec<Slot>| gathered.take(row);
        let mut spare = Spare::default();
        let kept = if plan.is_some() {
            let each = |me: &mut Self| {
                // (An iteration lowered as written reuses the objects of
                // the last one lowered so; a probed one makes its own.)
                let probed = me.probes.len() > outer_probes;
                let spare = (!probed).then_some(&mut spare);
                me.region_iteration(&reds, &privs, &items, (loc, spare))
            };
            self.keep_loop(ind, cond, (loc, counters.as_ref()), (each, &mut extras))
        } else {
            let each = |me: &mut Self| {
                me.exec_guarded(body)?;
                me.set_flag(CONT, Bit::Const(false));
                Ok(Vec::new())
            };
            self.keep_loop(ind, cond, (loc, counters.as_ref()), (each, &mut extras))
        };
        self.frozen.thaw(frozen);
        self.frame_mut().loops -= 1;
        self.merges.end_these(&spare.objs);
        let Some((outcome, mut report)) = kept? else {
            return Ok(Some(
                "its trip count is not public, or its variable could wrap".into(),
            ));
        };
        if let keep::Outcome::NotRegion = outcome {
            return self.kept_for(ind, None, cond, step, (body, plain), loc, vars);
        }
        if let Some(plan) = plan {
            // (Only a run made a block is a region; a short one is inlined.)
            if report.blocks.last().is_some_and(|&(_, parallel)| parallel) {
                self.count_extreme_region(plan, &reds, loc);
            }
            let (partials, last) = gathered.finish();
            self.combine(&reds, partials, loc)?;
            if let Some(last) = last {
                self.keep_last(&privs, last.into_iter().map(Some).collect());
            }
        }
        report.at = format!("line {}", loc.line);
        self.note_loop(loc, report);
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
    /// `spare`: the objects to reuse, if the iteration is lowered as
    /// written (else the loop probes it).
    fn region_iteration(
        &mut self,
        reds: &[Red],
        privs: &[(String, usize, CType)],
        items: &[&Stmt],
        (loc, mut spare): (Loc, Option<&mut Spare>),
    ) -> DResult<Vec<Slot>> {
        if let Some(spare) = spare.as_deref_mut() {
            spare.next = 0;
        }
        self.frame_mut().names.push_scope();
        let mut fresh = Vec::with_capacity(privs.len());
        for (name, _, ty) in privs {
            let obj = self.iteration_object(ty, spare.as_deref_mut(), loc)?;
            self.bind(name, obj, ty.clone());
            fresh.push(obj);
        }
        let partials = self.iteration(reds, items, (loc, spare));
        let mut out = Vec::with_capacity(reds.len() + privs.len());
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

    /// An object of type `ty` for an iteration: the next of `spare`'s,
    /// zeroed, if there is one; else a new one (added to `spare`).
    fn iteration_object(
        &mut self,
        ty: &CType,
        spare: Option<&mut Spare>,
        loc: Loc,
    ) -> DResult<usize> {
        let Some(spare) = spare else {
            return self.new_object(ty, loc);
        };
        let obj = match spare.objs.get(spare.next) {
            Some(&obj) => {
                let o = &mut self.objs[obj];
                for (s, t) in o.slots.iter_mut().zip(o.leaf_tys.iter()) {
                    *s = zero_slot(t);
                }
                o.padding_written = false;
                obj
            }
            None => {
                let obj = self.new_object(ty, loc)?;
                spare.objs.push(obj);
                obj
            }
        };
        spare.next += 1;
        Ok(obj)
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
    /// left lazy in an iteration lowered as written (with `spare` objects).
    fn iteration(
        &mut self,
        reds: &[Red],
        items: &[&Stmt],
        (loc, mut spare): (Loc, Option<&mut Spare>),
    ) -> DResult<Vec<Option<Word>>> {
        let probed = spare.is_none();
        let mut fresh = Vec::with_capacity(reds.len());
        for r in reds {
            let Some(id) = identity(r.op, r.scalar) else {
                fresh.push(None);
                continue;
            };
            let obj = self.iteration_object(&r.ty, spare.as_deref_mut(), loc)?;
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

    /// Reduces the sums still lazy in the variables a sequential loop
    /// reads and does not write, before its first iteration, as a
    /// region's are: a template reads such a sum's rows as inputs and
    /// adds them up again in every iteration (a loop subtracting a sum of
    /// 16 words from its total cost 90 AND gates an iteration, not 31),
    /// where unrolled iterations reduce it once, at the second.
    fn reduce_read_only(&mut self, cond: &Expr, step: &Expr, body: &Stmt, loc: Loc) -> DResult<()> {
        let mut read = Vec::new();
        loops::idents_of(cond, &mut read);
        loops::idents_of(step, &mut read);
        body.for_each_expr(&mut |e| loops::idents_of(e, &mut read));
        let mut written = loops::names_written(body);
        loops::add_names_written(step, &mut written);
        for name in read.iter().filter(|n| !written.contains(*n)) {
            if let Some((obj, _)) = self.lookup(name) {
                self.reduce_object(obj, loc)?;
            }
        }
        Ok(())
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

/// What planning a loop's keys needs of lowering (see
/// [`loops::counter::Context`]).
struct Around<'l, 'p>(&'l Lower<'p>);

impl loops::counter::Context for Around<'_, '_> {
    fn invariant(&self, name: &str) -> bool {
        self.0.public_scalar(name).is_some()
    }

    fn scalar(&self, name: &str) -> Option<bool> {
        self.0.lookup(name).map(|(_, ty)| ty.scalar().is_some())
    }

    fn holds_pointer(&self, name: &str) -> bool {
        self.0
            .lookup(name)
            .is_some_and(|(_, ty)| ty.holds_pointer())
    }

    fn global(&self, name: &str) -> Option<&CType> {
        self.0.globals.get(name).map(|(_, ty)| ty)
    }

    fn function(&self, name: &str) -> Option<&Function> {
        self.0.funcs.get(name).copied()
    }
}
