//! Kept loops: a `for` loop with a public trip count whose iterations lower
//! to the same body up to wiring becomes a block — its body stored once —
//! without lowering every iteration to find out.
//!
//! Iteration `m` is lowered as a probe (see [`super::probe`]); if the probe
//! of iteration `m + 1` is the same template, the template is applied to
//! the iterations after it *without lowering them*: each iteration's
//! observations are read from the state (their shapes must be the
//! template's; their addresses move by what the two probes showed), and
//! its writes are stored as the template's values over *tokens* (wires
//! named after the iteration and the template's output). Public state the
//! body depends on is part of the shapes, and the loop variable only moves
//! addresses (see [`crate::loops`]), so every iteration so checked lowers
//! to the template. A check that fails ends the run of iterations there;
//! the next one is probed again. Iterations that match no neighbour are
//! inlined from their probe.
//!
//! At the end each run becomes a block — values its iterations read alike
//! are shared inputs, values one iteration hands the next are carried, the
//! rest are wired per iteration — or, when short, is inlined; tokens are
//! then replaced by the block's output wires. A run over iterations that
//! only read the same locations (an accumulator, a chain) is recognised as
//! steady after three iterations, so a loop of a billion iterations costs
//! no more to compile than one of three.

mod each;
mod hoist;
pub(super) use hoist::Hoisting;
mod make;
mod replay;
mod run;
mod settle;
mod simulate;
mod spent;
mod track;
mod widen;

pub(super) use replay::{Recording, Term};
pub(super) use run::Address;
pub(super) use widen::PublicInputs;

use super::probe::{Probe, Setup, Stored};
use super::*;
use crate::gates::Widening;
use crate::loops::counter::CounterPlan;
use crate::loops::Induction;
use run::{Run, Steps};
use spent::{Spent, COSTLY, FRUITLESS};
use widen::{ands, first_setup, widened, Trial};

/// How a loop was lowered, for `twofold stats`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopReport {
    /// Where the loop is (`file:line`).
    pub at: String,
    /// Iterations in all (for a loop lowered several times, e.g. nested in
    /// an unrolled one, the last time: see `Lower::note_loop`).
    pub iterations: u64,
    /// The blocks made from it: iterations each, and whether parallel.
    pub blocks: Vec<(u64, bool)>,
    /// Iterations unrolled.
    pub unrolled: u64,
    /// Iterations that do nothing (a public condition disabled them): no
    /// block has an instance for them.
    pub disabled: u64,
    /// Iterations that an earlier block ran already (the same body from
    /// the same start over the same wires): the block goes on from there.
    pub continued: u64,
    /// Why iterations were unrolled (or the loop was not kept at all).
    pub why: Option<String>,
    /// Of a loop whose iterations are probed each (see `keep::each`): its
    /// iterations probed, and those replayed from their keys instead (see
    /// `keep::replay`).
    pub(super) probed: u64,
    /// See [`LoopReport::probed`].
    pub(super) replayed: u64,
}

impl LoopReport {
    /// The report of a loop at `at` of `iterations`, before any is lowered.
    pub(super) fn new(at: String, iterations: u64) -> LoopReport {
        LoopReport {
            at,
            iterations,
            blocks: Vec::new(),
            unrolled: 0,
            disabled: 0,
            continued: 0,
            why: None,
            probed: 0,
            replayed: 0,
        }
    }
}

/// A kept loop: what became of it, and its report.
pub(super) type Kept = (Outcome, LoopReport);

/// Takes what each iteration lowered yields (a region's partials), in
/// iteration order, as the iterations are lowered: a loop of millions of
/// iterations holds none of it itself.
pub(super) type Sink<'s> = dyn FnMut(Vec<Slot>) + 's;

/// What became of a kept loop.
pub(super) enum Outcome {
    /// Every iteration is lowered.
    Done,
    /// Iterations from this one on must be unrolled as usual, for the
    /// reason given.
    Unroll(u64, String),
    /// This iteration, lowered plainly, changed what the loop counts with
    /// (see [`Frozen`]): the loop goes on as written from its step.
    Changed(u64),
    /// Nothing is lowered: the loop is long, and its region iterations
    /// make no gates or terms that cost far more than adding them, so its
    /// total is better kept reduced each iteration (see `keep/settle.rs`)
    /// than gathered from every iteration and added after it.
    NotRegion,
}

/// How many values `first`, `first + step`, ... satisfy `var + offset op
/// bound` before the first that does not, given `span = bound - offset -
/// first`; `None` where the comparison does not end the loop that way (a
/// step away from the bound, or `!=` a value the variable steps over).
fn trips_until(op: BinOp, span: i128, step: i128) -> Option<i128> {
    let s = step;
    Some(match (op, s > 0) {
        (BinOp::Lt, true) => (span + s - 1).div_euclid(s).max(0),
        (BinOp::Le, true) => (span + s).div_euclid(s).max(0),
        // Counting down: in terms of the distance down and the step's
        // size (`div_euclid` by a negative step does not round down).
        (BinOp::Gt, false) => (-span - s - 1).div_euclid(-s).max(0),
        (BinOp::Ge, false) => (-span - s).div_euclid(-s).max(0),
        (BinOp::Ne, _) if span % s == 0 && span / s >= 0 => span / s,
        _ => return None,
    })
}

/// The loop's public shape: its variable's location and type, first value
/// and trip count.
struct Counted {
    at: (usize, usize),
    scalar: Scalar,
    first: i128,
    step: i128,
    trips: u64,
    /// Where the loop's condition is (for errors).
    loc: Loc,
}

/// The most iterations a kept loop may have.
const MAX_TRIPS: u64 = 1 << 40;

/// Iterations left, at least, for values of different widths to be read
/// padded to the widest, or for ranges to be widened further (see
/// [`widened`]).
const MIN_PADDED_TRIPS: u64 = 32;

/// The most iterations of a loop that stores its variable's value (each
/// iteration's value is wired in from a table).
const MAX_STORED_TRIPS: u64 = 1 << 16;

/// The longest a run whose template makes no gates grows (see
/// [`Run::gateless_and_long`]); it is then ended, and lowered plainly.
const MAX_GATELESS_RUN: u64 = 1 << 12;

/// After this many iterations in a row that match no neighbour, the next
/// ones are lowered without probing (see [`Lower::keep_loop`]).
const MAX_MISMATCHES: u32 = 4;

/// The fewest iterations of a loop that, inside another loop's probe, is
/// probed again more generally where two iterations differ ([`widened`]);
/// a shorter one lowers the rest as written (docs/loops.md, "Short loops
/// inside probes").
const MIN_TRIPS_IN_PROBE: u64 = 8;

/// Runs of a loop in a row that probed and kept nothing after which its
/// later runs are unrolled without probing (see [`Lower::keep_loop`]).
const MAX_FRUITLESS_RUNS: u32 = 3;

/// How the reason begins when a loop probed each found only runs shorter
/// than a block's least (see `each.rs`).
const SHORT_RUNS: &str = "runs of iterations that lower alike are shorter than";

/// Why a loop is unrolled after [`MAX_FRUITLESS_RUNS`] such runs.
const FRUITLESS_RUNS: &str = "its last 3 runs probed and kept nothing";

/// Why a loop whose products were strength-reduced is unrolled when it is
/// shorter than [`MIN_SETTLED_TRIPS`] (followed by that number).
const SHORT_REDUCED: &str = "its sums would be reduced each iteration, which pays only over";

/// Why iterations are unrolled when their probes differ.
const DIFFERENT: &str = "consecutive iterations lower to different gates";

/// Why a loop is lowered as written from an iteration on that changed
/// what the loop counts with (see [`Frozen`]).
const COUNT_CHANGED: &str = "the body changes what its condition or step reads";

/// Why iterations are unrolled when they make no gates (their values are
/// sums and products reduced where something reads their bits).
const NO_GATES: &str =
    "its iterations make no gates: their sums and products are reduced where they are read";

impl<'p> Lower<'p> {
    /// Lowers the `for` loop whose variable moves as `ind` says, keeping it
    /// as blocks where its iterations allow (see the module docs). `each`
    /// lowers one iteration and returns what it yields (a region's
    /// partials), which `extras` takes, the kept iterations' too; the loop
    /// variable holds the iteration's value. Returns
    /// `None` if the loop cannot be counted (it is then unrolled as usual).
    ///
    /// A loop run again and again (an inner loop) whose last
    /// [`MAX_FRUITLESS_RUNS`] runs probed and kept nothing (their
    /// iterations differed, or made no gates) is unrolled without probing
    /// from then on, or, if every such run found only runs of iterations
    /// too short to keep, for the next 3, 6, 12, ... runs (see
    /// [`Fruitless`]; outside other loops' probes, where every run must
    /// lower alike).
    pub(super) fn keep_loop(
        &mut self,
        ind: &Induction,
        cond: &Expr,
        (loc, counters): (Loc, Option<&CounterPlan>),
        (each, extras): (impl FnMut(&mut Self) -> DResult<Vec<Slot>>, &mut Sink<'_>),
    ) -> DResult<Option<Kept>> {
        let top = self.probes.is_empty();
        let given_up =
            top && (self.fruitless_runs.get_mut(&loc)).is_some_and(Fruitless::skips_this_run);
        if given_up {
            let Some(counted) = self.count_trips(ind, cond)? else {
                return Ok(None);
            };
            let mut report = LoopReport::new(format!("line {}", loc.line), counted.trips);
            let outcome = Outcome::Unroll(0, FRUITLESS_RUNS.to_string());
            self.end_loop(&counted, &outcome, None, &mut report);
            return Ok(Some((outcome, report)));
        }
        let kept = self.try_keep_loop(ind, cond, (loc, counters), (each, extras))?;
        if let (true, Some((_, report))) = (top, &kept) {
            // (Not a run too short to keep, or whose repeats were too
            // small for a block: a later, longer run may keep them.)
            let matched_nothing = report.why.as_deref().is_some_and(|w| {
                w == DIFFERENT
                    || w == FRUITLESS
                    || w == COSTLY
                    || w == NO_GATES
                    || w.starts_with(SHORT_RUNS)
            });
            if !report.blocks.is_empty() {
                self.fruitless_runs.remove(&loc);
            } else if matched_nothing {
                // (Only where iterations are mostly replayed from their
                // keys: probing each costs more than lowering it.)
                let why = report.why.as_deref();
                let short = why.is_some_and(|w| w.starts_with(SHORT_RUNS));
                let retry = short && report.replayed * 4 >= report.probed;
                self.fruitless_runs.entry(loc).or_default().add(retry);
            }
        }
        Ok(kept)
    }

    /// [`Lower::keep_loop`], probing.
    fn try_keep_loop(
        &mut self,
        ind: &Induction,
        cond: &Expr,
        (loc, counters): (Loc, Option<&CounterPlan>),
        (mut each, extras): (impl FnMut(&mut Self) -> DResult<Vec<Slot>>, &mut Sink<'_>),
    ) -> DResult<Option<Kept>> {
        let Some(counted) = self.count_trips(ind, cond)? else {
            return Ok(None);
        };
        let mut setup = Rc::new(first_setup(ind, &counted));
        let mut report = LoopReport::new(format!("line {}", loc.line), counted.trips);
        if counted.trips == 1 {
            // Nothing repeats: lowered as written, without a probe (a loop
            // run once around a large region lowered it twice, and held
            // the probe's record of every element it read).
            let outcome = Outcome::Unroll(0, "it runs once".into());
            self.end_loop(&counted, &outcome, None, &mut report);
            return Ok(Some((outcome, report)));
        }
        if ind.each {
            let found = (&mut *extras, &mut report);
            let outcome = self.keep_each(&counted, (&setup, counters), &mut each, found)?;
            self.end_loop(&counted, &outcome, None, &mut report);
            return Ok(Some((outcome, report)));
        }
        // Inside another loop's probe a short loop is not probed again
        // more generally, nor further once two iterations differ.
        let short_in_probe = !self.probes.is_empty() && counted.trips < MIN_TRIPS_IN_PROBE;
        let miss = |misses| {
            if short_in_probe {
                MAX_MISMATCHES
            } else {
                misses + 1
            }
        };
        // The template of the previous iteration, if it was inlined alone
        // (a run starts if the next one matches it).
        let mut prev: Option<Probe> = None;
        // The probe of iteration `m`, if already made on the real state.
        let mut pending: Option<Probe> = None;
        let (mut m, mut misses) = (0u64, 0);
        let mut why: Option<&str> = None;
        let mut outcome = Outcome::Done;
        // Iterations to lower plainly after the next run of mismatches.
        let mut skip = MAX_MISMATCHES as u64;
        // Probes made since a run was last kept.
        let mut spent = Spent::default();
        // A widening that read public values as inputs, to be checked.
        let mut trial: Option<Trial> = None;
        while m < counted.trips {
            // (Not inside another loop's probe: there an iteration's
            // lowering must not depend on how long its own probing went.)
            let probing = !self.probes.is_empty();
            if let Some(why) = spent.why_stop(m).filter(|_| pending.is_none() && !probing) {
                outcome = Outcome::Unroll(m, why.to_string());
                break;
            }
            if misses >= MAX_MISMATCHES {
                // Probing iterations that match nothing costs twice what
                // lowering them does: lower the next ones plainly (twice as
                // many each time), then probe again.
                let end = (m + skip).min(counted.trips);
                if let Some(changed) = self.unroll(&counted, m..end, &mut each, extras)? {
                    outcome = changed;
                    break;
                }
                report.unrolled += end - m;
                m = end;
                skip = skip.saturating_mul(2);
                (misses, prev, pending) = (0, None, None);
                continue;
            }
            // (A trial's probe tells of products of secrets only if it
            // stands: see `mixed::notes::hold`.)
            let held = trial.as_ref().map(|_| crate::mixed::notes::hold());
            let made = match pending.take() {
                Some(p) => Ok(p),
                None => (self.probe_iteration(&counted, m, &setup, &mut each))
                    .inspect(|p| spent.probed(p)),
            };
            let failed = made.as_ref().is_ok_and(|p| p.failed.is_some());
            let refused = made.as_ref().ok().filter(|_| !failed).and_then(|probe| {
                let too_long = self.too_long_to_unroll(probe.frame.gates.len(), counted.trips - m);
                let t = trial.take().filter(|_| !too_long)?;
                t.refused(probe, m)
            });
            if let Some(mark) = held {
                crate::mixed::notes::release(mark, failed || refused.is_some());
            }
            let probe = made?;
            if let Some(failed) = &probe.failed {
                outcome = Outcome::Unroll(m, failed.clone());
                break;
            }
            if m == 0 && settle::total_not_region(&probe, counted.trips - m) {
                return Ok(Some((Outcome::NotRegion, report)));
            }
            if let Some(refused) = refused {
                setup = Rc::new(refused);
                continue;
            }
            let steps = match prev.take() {
                Some(q) if q.matches(&probe) => Some(Steps::between(&q, &probe)),
                Some(q) => {
                    let wider = widened(&setup, (&q, &probe), (counted.trips - m, m == 1));
                    if let Some(mut wider) = wider.filter(|_| !short_in_probe) {
                        // Probe this iteration again, more generally.
                        trial = Trial::of(&setup, &mut wider, (&q, &probe), m);
                        setup = Rc::new(wider);
                        continue;
                    }
                    misses = miss(misses);
                    why.get_or_insert(DIFFERENT);
                    None
                }
                None => None,
            };
            let mut run = Run::new(probe, m);
            if !self.simulate(&mut run, (&counted, m))? {
                // Only if tokens ran out: the iteration is lowered as usual.
                outcome = Outcome::Unroll(m, "too many iterations to check".into());
                break;
            }
            m += 1;
            let mut steps = steps;
            if steps.is_none() && m < counted.trips {
                // The next iteration, probed on the state this one left:
                // if it matches, the run starts here; if it read nothing
                // this one wrote, it is the next probe anyway.
                let next = self.probe_iteration(&counted, m, &setup, &mut each)?;
                spent.probed(&next);
                let first = run.start == 0;
                let wider = || widened(&setup, (&run.probe, &next), (counted.trips - m, first));
                if run.probe.matches(&next) {
                    steps = Some(Steps::between(&run.probe, &next));
                } else if let Some(mut wider) = wider().filter(|_| !short_in_probe) {
                    // Probe the first iteration again, more generally.
                    trial = Trial::of(&setup, &mut wider, (&run.probe, &next), run.start);
                    setup = Rc::new(wider);
                    m = self.undo_run(run).0;
                    continue;
                } else if !self.reads_run(&next, &run) {
                    misses = miss(misses);
                    why.get_or_insert(DIFFERENT);
                    pending = Some(next);
                }
            }
            let repeats = steps.is_some();
            if let Some(steps) = steps {
                run.set_steps(steps);
                misses = 0;
                m = self.extend_run(&mut run, &counted, m, &mut why)?;
            }
            // (A run of gates that repeated, kept or too small to keep,
            // shows the loop's probes serve other iterations: runs grow
            // as the values' widths settle, as a position's from -1 does.
            // A gateless one is lowered plainly whatever its length.)
            let frame = &run.probe.frame;
            let repeated = run.count >= 2 && !(frame.gates.is_empty() && frame.blocks.is_empty());
            let found = (&mut *extras, &mut report);
            let (kept, probe) = self.end_run((run, 0), &counted, &mut each, found)?;
            if kept || repeated {
                spent = Spent::default();
            }
            prev = (!repeats && pending.is_none()).then_some(probe);
        }
        self.end_loop(&counted, &outcome, why, &mut report);
        Ok(Some((outcome, report)))
    }

    /// Lowers iterations `range` of the loop plainly, one after the other,
    /// adding what each yields to `extras`; stops after an iteration that
    /// changed what the loop counts with (see [`Frozen`]), saying so.
    fn unroll(
        &mut self,
        c: &Counted,
        range: std::ops::Range<u64>,
        each: &mut impl FnMut(&mut Self) -> DResult<Vec<Slot>>,
        extras: &mut Sink<'_>,
    ) -> DResult<Option<Outcome>> {
        self.frozen.take_changed();
        for m in range {
            self.set_induction(c, m);
            extras(each(self)?);
            self.check_gates(c.loc)?;
            if self.frozen.take_changed() {
                return Ok(Some(Outcome::Changed(m)));
            }
        }
        Ok(None)
    }

    /// Applies `run`'s template to iterations from `m` on, as long as they
    /// match it (a steady run covers the rest at once); returns the first
    /// iteration not covered, and notes in `why` if one did not match.
    fn extend_run(
        &mut self,
        run: &mut Run,
        c: &Counted,
        mut m: u64,
        why: &mut Option<&str>,
    ) -> DResult<u64> {
        while m < c.trips && !run.gateless_and_long() {
            if !self.simulate(run, (c, m))? {
                why.get_or_insert(
                    "an iteration's values differ in shape (constants, widths or ranges)",
                );
                break;
            }
            m += 1;
            if run.is_steady() {
                run.count += c.trips - m;
                m = c.trips;
                run.end = m;
            }
        }
        Ok(m)
    }

    /// Ends `run`: made a block if it covers at least `min_run` iterations
    /// and is worth keeping, else undone and its iterations lowered
    /// plainly. Adds their extras and accounts them in the report; returns
    /// whether it was kept, and the run's template.
    fn end_run(
        &mut self,
        (run, min_run): (Run, u64),
        c: &Counted,
        each: &mut impl FnMut(&mut Self) -> DResult<Vec<Slot>>,
        (extras, report): (&mut Sink<'_>, &mut LoopReport),
    ) -> DResult<(bool, Probe)> {
        let long_enough = run.count >= min_run;
        if long_enough && self.keeps(&run) {
            let (rows, probe) = self.materialise(run, report)?;
            rows.into_iter().for_each(&mut *extras);
            return Ok((true, probe));
        }
        let frame = &run.probe.frame;
        if long_enough && frame.gates.is_empty() && frame.blocks.is_empty() {
            report.why.get_or_insert_with(|| NO_GATES.to_string());
        }
        // Lowered plainly, its iterations share gates with the rest and
        // are lowered for their own ranges.
        let (start, end, probe) = self.undo_run(run);
        report.unrolled += end - start;
        self.unroll(c, start..end, each, extras)?;
        Ok((false, probe))
    }

    /// Completes the report of a loop lowered up to `outcome` (`why` the
    /// first reason iterations were unrolled) and leaves the loop variable
    /// where the kept iterations end.
    fn end_loop(
        &mut self,
        c: &Counted,
        outcome: &Outcome,
        why: Option<&str>,
        report: &mut LoopReport,
    ) {
        if let Outcome::Unroll(from, w) = outcome {
            report.unrolled += c.trips - from;
            report.why = Some(w.clone());
            self.set_induction(c, *from);
        } else if let Outcome::Changed(at) = outcome {
            // (The variable holds what iteration `at` left in it.)
            report.unrolled += c.trips - at;
            report.why = Some(COUNT_CHANGED.to_string());
        } else {
            if report.unrolled > 0 && report.why.is_none() {
                report.why = why.map(str::to_string);
            }
            self.set_induction(c, c.trips);
        }
    }

    /// Whether the loop `ind` counts runs fewer than [`MIN_SETTLED_TRIPS`]
    /// iterations: unrolled, its sums then collect like terms.
    pub(super) fn short_of_settling(&mut self, ind: &Induction, cond: &Expr) -> DResult<bool> {
        Ok((self.count_trips(ind, cond)?).is_some_and(|c| c.trips < MIN_SETTLED_TRIPS))
    }

    /// The loop variable's location, first value and the trip count, if
    /// the loop counts publicly, steps without wrapping, and its condition
    /// holds exactly for the first `trips` values.
    fn count_trips(&mut self, ind: &Induction, cond: &Expr) -> DResult<Option<Counted>> {
        let Some((obj, ty)) = self.lookup(&ind.var) else {
            return Ok(None);
        };
        let Some(scalar) = ty.scalar() else {
            return Ok(None);
        };
        // A global could change in a function the body calls.
        if self.global(&ind.var).map(|g| g.0) == Some(obj) {
            return Ok(None);
        }
        let Slot::Val(Word::Const { v, .. }) = self.slot(obj, 0) else {
            return Ok(None);
        };
        let first = scalar.to_i128(v);
        let s = ind.step;
        // The loop ends where the first term of its condition fails.
        let mut trips = MAX_TRIPS as i128;
        let mut terms = Vec::new();
        for (op, bound, offset) in ind.terms() {
            let (bound, bound_scalar) = match self.eval(bound)? {
                Val::Int(s, Word::Const { v, .. }) => (s.to_i128(v), s),
                _ => return Ok(None),
            };
            let Some(t) = trips_until(op, bound - offset - first, s) else {
                return Ok(None);
            };
            trips = trips.min(t);
            terms.push((offset, bound_scalar));
        }
        if trips as u128 > MAX_TRIPS as u128 {
            return Ok(None);
        }
        let last = first + s * trips;
        let (lo, hi) = (first.min(last), first.max(last));
        let (min, max) = if scalar.signed {
            (
                -(1i128 << (scalar.width - 1)),
                (1i128 << (scalar.width - 1)) - 1,
            )
        } else {
            (0, (1i128 << scalar.width) - 1)
        };
        for (offset, bound_scalar) in terms {
            // (The variable plus the condition's offset too: no wrap there.)
            if lo.min(lo + offset) < min || hi.max(hi + offset) > max {
                return Ok(None);
            }
            // A negative value compared as unsigned is not in order.
            if lo < 0 && !Scalar::common(scalar.promote(), bound_scalar.promote()).signed {
                return Ok(None);
            }
        }
        let counted = Counted {
            at: (obj, 0),
            scalar,
            first,
            step: s,
            trips: trips as u64,
            loc: cond.loc,
        };
        // The condition, in C's own terms, at the first value, the last
        // one in the loop and the one that ends it.
        let mut checks = vec![(trips as u64, false)];
        if trips > 0 {
            checks.extend([(0, true), (trips as u64 - 1, true)]);
        }
        let mut holds = true;
        for (m, want) in checks {
            self.set_induction(&counted, m);
            holds &= self.cond(cond)? == Bit::Const(want);
        }
        self.set_induction(&counted, 0);
        let max = self.opts.limits.max_iterations;
        if holds && counted.trips > max {
            // Refused at once, as unrolling would be after `max`: the body
            // neither breaks nor writes what the loop counts with (see
            // `loops::analyze_with`), so it runs them all (a region of
            // 60,000,000 iterations held 20 GB before reaching the limit).
            let trips = counted.trips;
            return err(
                cond.loc,
                format!(
                    "the loop runs {trips} iterations: more than {max}, the most a loop may run"
                ),
            );
        }
        Ok(holds.then_some(counted))
    }

    fn set_induction(&mut self, c: &Counted, m: u64) {
        let v = c.first + c.step * m as i128;
        let w = Word::konst(v as u64, c.scalar.width);
        self.frozen.inducing = true;
        self.write_slot(c.at.0, c.at.1, Slot::Val(w));
        self.frozen.inducing = false;
    }

    /// Restores what `run`'s iterations overwrote; returns its first
    /// iteration, one past its last and its template.
    fn undo_run(&mut self, run: Run) -> (u64, u64, Probe) {
        let (start, end) = (run.start, run.end);
        let (probe, overwritten) = run.into_parts();
        for ((obj, leaf), old) in overwritten.into_iter().rev() {
            self.write_slot(obj, leaf, old);
        }
        (start, end, probe)
    }

    /// Whether `probe` (of a later iteration) read anything `run`'s
    /// iterations wrote.
    fn reads_run(&self, probe: &Probe, run: &Run) -> bool {
        let mut reads = false;
        for o in &probe.observations {
            let leaf = o.at.leaf as usize;
            self.objs[o.at.obj].slots[leaf].for_each_bit(&mut |b| reads |= run.owns(b));
        }
        reads
    }

    /// Iteration `m` lowered as a probe.
    fn probe_iteration(
        &mut self,
        c: &Counted,
        m: u64,
        setup: &Rc<Setup>,
        each: &mut impl FnMut(&mut Self) -> DResult<Vec<Slot>>,
    ) -> DResult<Probe> {
        self.set_induction(c, m);
        self.begin_probe(setup.clone());
        let extras = each(self)?;
        Ok(self.end_probe(extras))
    }
}

/// What a loop run again and again (an inner loop) showed of its runs
/// that probed and kept nothing (see [`Lower::keep_loop`]). Once
/// [`MAX_FRUITLESS_RUNS`] in a row did, its later runs are unrolled
/// without probing; but runs that found only runs of iterations too short
/// to keep may outgrow that where the loop's bounds change (a bitonic
/// sort's `if ((i & k) == 0) cs(i, l); else cs(l, i);` alternates every
/// `k / 2` active iterations, so its first stages' runs are short, its
/// later ones long): such a loop is probed again after 3, 6, 12, ...
/// runs unrolled, where a fifth of its iterations or more were replayed
/// from their keys (see `keep::replay`; probing every iteration costs more
/// than lowering it).
#[derive(Default)]
pub(super) struct Fruitless {
    /// Runs in a row that probed and kept nothing.
    runs: u32,
    /// Whether any of them is not worth probing again: its iterations
    /// matched none alike, or were mostly probed rather than replayed.
    unmatched: bool,
    /// Runs to unroll before probing again (once `runs` reached the most).
    skip: u64,
    /// The runs to skip after the next fruitless one.
    backoff: u64,
}

impl Fruitless {
    /// Notes a run that kept nothing; `retry` if it found runs of
    /// iterations lowering alike, too short to keep, and replays
    /// iterations.
    fn add(&mut self, retry: bool) {
        self.runs += 1;
        self.unmatched |= !retry;
        if self.runs >= MAX_FRUITLESS_RUNS {
            self.backoff = self.backoff.max(u64::from(MAX_FRUITLESS_RUNS));
            self.skip = self.backoff;
            self.backoff = self.backoff.saturating_mul(2);
        }
    }

    /// Whether the loop's run about to start is unrolled without probing
    /// (counted as skipped if so).
    fn skips_this_run(&mut self) -> bool {
        if self.runs < MAX_FRUITLESS_RUNS {
            return false;
        }
        if self.unmatched {
            return true;
        }
        let skip = self.skip > 0;
        self.skip = self.skip.saturating_sub(1);
        skip
    }
}

/// The variables the conditions and steps of the kept loops being lowered
/// read, with their objects: a kept loop counts its iterations from them
/// once, so its body must not change them, also where the source analysis
/// cannot see it (through a pointer, in a function it calls). A write to
/// one fails the probes open (the rest of the loop is lowered as written)
/// and is noted for the iterations lowered plainly (see [`Lower::unroll`]).
#[derive(Default)]
pub(super) struct Frozen {
    objs: Vec<(usize, String)>,
    changed: bool,
    /// Whether a loop variable is being set to an iteration's value (the
    /// one write to it that is not the body's).
    inducing: bool,
}

impl Frozen {
    /// Adds `objs` for a loop about to be lowered; returns what to give
    /// [`Frozen::thaw`] when it is done.
    pub(super) fn freeze(&mut self, objs: Vec<(usize, String)>) -> usize {
        let before = self.objs.len();
        self.objs.extend(objs);
        before
    }

    /// Drops the objects a loop added (`before`: what
    /// [`Frozen::freeze`] returned).
    pub(super) fn thaw(&mut self, before: usize) {
        self.objs.truncate(before);
    }

    /// Why a write to `obj` breaks the count of a loop being lowered, if
    /// it does (noted).
    pub(super) fn written(&mut self, obj: usize) -> Option<String> {
        if self.inducing {
            return None;
        }
        let (_, name) = self.objs.iter().find(|(o, _)| *o == obj)?;
        self.changed = true;
        Some(format!(
            "the body changes '{name}', which the loop's condition or step reads"
        ))
    }

    /// Whether a write broke a count since the last call.
    fn take_changed(&mut self) -> bool {
        std::mem::take(&mut self.changed)
    }
}

/// The fewest iterations left for which a loop probed each reduces the
/// sums it carries on each iteration (see [`Setup::settle_sums`]). Fewer
/// are unrolled: there the sum of all iterations' rows collects its like
/// terms (`t += i * x + (y ^ i)` over 20,000 iterations: 20,933 AND gates
/// against 92 an iteration kept), and unrolling compiles in about a second
/// (about 8 µs an iteration). Beyond, keeping bounds the compile time.
const MIN_SETTLED_TRIPS: u64 = 1 << 17;

/// The fewest iterations left for which a loop that is not
/// strength-reduced reduces the running totals of fresh terms it carries
/// each iteration (see `keep/settle.rs`): about 1-3% more AND gates than
/// unrolled carry-save (a 32-bit total: 31 an iteration against about 30),
/// but unrolled, a 65,536-term dot product took 1.6 s and 250 MB to
/// compile, and a sum of 2^20 words passed the gate limit.
const MIN_FRESH_SETTLED_TRIPS: u64 = 1 << 10;
