//! Loops whose every iteration is probed: the body computes with its
//! variable (`l = i ^ j`, `if (i & k)`, `a[i ^ j]`), so what an iteration
//! does cannot be told from two others.
//!
//! Each iteration is lowered as a probe on the state the previous ones
//! left. Consecutive probes that are the same template form a run, each
//! iteration wired where its own probe read and wrote (tables where the
//! addresses do not move by a step); the run then becomes a block as in
//! [`super`]. An iteration whose probe does nothing (a public condition
//! disabled it: no gates, no writes, nothing yielded) makes no block
//! instance and does not end the run. A probe costs what lowering the
//! iteration does, but the kept runs' gates are made, levelled and hashed
//! once per run rather than once per iteration.

use super::replay::{Class, Form, Read, Replay};
use super::run::{Explicit, Run};
use super::*;
use crate::loops::counter::CounterPlan;

/// Why a loop is lowered as written from an iteration whose hoists (see
/// [`super::hoist`]) could not be computed ahead.
const UNHOISTED: &str = "a value it computes from the counter cannot be computed ahead";

/// The fewest iterations of a run worth a block of its own in a loop
/// whose iterations are probed; shorter runs are lowered plainly, where
/// the builder shares their gates with the rest.
const MIN_RUN: u64 = 8;

/// The fewest iterations of a loop probed each, when its iterations
/// cannot be replayed from their keys (see [`super::replay`]).
const MIN_PROBED_TRIPS: u64 = 64;

/// A loop's iterations so far: the open run with its template as a replay
/// sees it, and what is known of disabled iterations.
struct Progress {
    run: Option<(Run, Option<Form>)>,
    /// Runs too short to keep in a row.
    short: u32,
    /// Disabled iterations inside the open run (lowered plainly with it
    /// if it is not kept).
    skipped: u64,
    /// Iterations to lower plainly after the next runs too short to keep.
    skip: u64,
    /// The decisions of iterations found disabled, with the public values
    /// they read (at locations their keys do not move).
    disabled: HashMap<Vec<i128>, Vec<Read>>,
    /// Key classes just read as fresh inputs, and the AND gates and all
    /// gates of the template they replaced (checked on the next template
    /// made).
    pending: Option<(usize, usize, Vec<Class>)>,
    /// The AND gates of the template that read a sum the one before left,
    /// once sums are reduced where they are left (see
    /// [`settling_moves_only`]; checked on the next template made).
    settling: Option<usize>,
    /// Whether reducing sums where they are left cost AND gates once.
    settle_refused: bool,
    /// The objects the last probe both read and wrote (see
    /// [`Setup::settle_sums`]).
    carried: Vec<usize>,
    /// Space for where a replayed iteration reads and writes, reused.
    explicit: Explicit,
    /// Space for a replayed iteration's decisions, reused.
    decisions: Vec<i128>,
}

impl Lower<'_> {
    /// Lowers the loop `c` counts by probing every iteration (see the
    /// module docs), replaying templates where `counters` allows; adds
    /// what each iteration yields to `extras`.
    pub(super) fn keep_each(
        &mut self,
        c: &Counted,
        (setup, counters): (&Rc<Setup>, Option<&CounterPlan>),
        each: &mut impl FnMut(&mut Self) -> DResult<Vec<Slot>>,
        (extras, report): (&mut Sink<'_>, &mut LoopReport),
    ) -> DResult<Outcome> {
        if c.trips < MIN_RUN {
            return Ok(Outcome::Unroll(
                0,
                format!("fewer than {MIN_RUN} iterations"),
            ));
        }
        if setup.may_settle && c.trips < MIN_SETTLED_TRIPS {
            // Its sums could be kept only reduced each iteration: unrolled,
            // their rows collect like terms (and are not probed first).
            let why = format!("{SHORT_REDUCED} {MIN_SETTLED_TRIPS} iterations");
            return Ok(Outcome::Unroll(0, why));
        }
        let mut replay = counters.and_then(|plan| self.replay(plan, c));
        if let (Some(r), Some(plan)) = (replay.as_mut(), counters) {
            if r.hoists.any()
                && !(self.hoists_by_name(plan) && self.compute_hoists(&mut r.hoists, c, 0))
            {
                // Pointers about, or not computed ahead even in the first
                // iteration: the keys of the plain plan, with no hoists.
                let plain = counters.and_then(|plan| plan.plain.as_deref());
                replay = plain.and_then(|plan| self.replay(plan, c));
            }
        }
        if replay.is_none() && c.trips < MIN_PROBED_TRIPS {
            // Every iteration would be lowered at least twice: only a long
            // loop repays that.
            return Ok(Outcome::Unroll(
                0,
                format!("fewer than {MIN_PROBED_TRIPS} iterations, each to be probed"),
            ));
        }
        let hoisting = (replay.as_ref())
            .filter(|r| r.hoists.any())
            .map(|r| r.hoists.hoisting());
        if let (Some(_), Some(plan)) = (&hoisting, counters) {
            self.settle_long_sums(&plan.written);
        }
        let outer = std::mem::replace(&mut self.hoisting, hoisting);
        let outcome = self.probe_each(c, (setup, replay), each, (extras, report));
        self.hoisting = outer;
        outcome
    }

    /// [`Lower::keep_each`] once its replays (if any) are made.
    fn probe_each(
        &mut self,
        c: &Counted,
        (setup, mut replay): (&Rc<Setup>, Option<Replay>),
        each: &mut impl FnMut(&mut Self) -> DResult<Vec<Slot>>,
        (extras, report): (&mut Sink<'_>, &mut LoopReport),
    ) -> DResult<Outcome> {
        let mut setup = setup.clone();
        let mut at = Progress {
            run: None,
            short: 0,
            skipped: 0,
            skip: MAX_MISMATCHES as u64,
            disabled: HashMap::default(),
            pending: None,
            settling: None,
            settle_refused: false,
            carried: Vec::new(),
            explicit: Explicit::default(),
            decisions: Vec::new(),
        };
        // (The keys of the iteration at hand, reused.)
        let mut key_buf = Vec::new();
        let mut m = 0u64;
        while m < c.trips {
            if at.run.is_none() && at.short >= MAX_MISMATCHES && setup.may_settle {
                // The rest is unrolled as written, with its own products
                // (cheaper unrolled than the running sums).
                return Ok(Outcome::Unroll(m, DIFFERENT.to_string()));
            }
            if at.run.is_none() && at.short >= MAX_MISMATCHES {
                // Runs stay short here: lower the next iterations plainly
                // (twice as many each time), then probe again.
                let end = (m + at.skip).min(c.trips);
                if let Some(changed) = self.unroll(c, m..end, each, extras)? {
                    return Ok(changed);
                }
                report.unrolled += end - m;
                report.why.get_or_insert_with(|| DIFFERENT.to_string());
                (m, at.skip, at.short) = (end, at.skip.saturating_mul(2), 0);
                continue;
            }
            if let Some(r) = replay.as_mut() {
                let open_writes = at.run.as_ref().map(|(run, _)| run.probe.writes.as_slice());
                if open_writes.is_some_and(|w| self.hoists_read(&r.hoists, w)) {
                    // The run's values are not materialised yet: the hoists
                    // are computed from what its iterations left.
                    self.close_open(&mut at, c, each, (extras, report))?;
                }
                if r.hoists.any() && !self.compute_hoists(&mut r.hoists, c, m) {
                    self.close_open(&mut at, c, each, (extras, report))?;
                    return Ok(Outcome::Unroll(m, UNHOISTED.to_string()));
                }
            }
            let keys: Option<&[i128]> = match &replay {
                Some(r) if self.key_values(r, c, m, &mut key_buf) => Some(&key_buf),
                _ => None,
            };
            if let (Some(r), Some(keys)) = (&replay, &keys) {
                if self.replayed(r, keys, (c, m), &mut at, report)? {
                    report.replayed += 1;
                    m += 1;
                    continue;
                }
            }
            if setup.settle_sums && at.run.is_none() {
                // A run starts here: it reads its carried values as bits,
                // as its iterations leave them.
                self.settle_objects(&at.carried);
            }
            let first_new = self.objs.len();
            self.recording = replay.as_ref().map(|r| r.recording(first_new));
            self.hoisting.iter_mut().for_each(|h| h.in_probe = true);
            let probe = self.probe_iteration(c, m, &setup, each);
            report.probed += 1;
            self.hoisting.iter_mut().for_each(|h| h.in_probe = false);
            let recording = self.recording.take();
            let probe = probe?;
            at.carried = carried_objects(&probe);
            if let Some(failed) = &probe.failed {
                self.close_open(&mut at, c, each, (extras, report))?;
                return Ok(Outcome::Unroll(m, failed.clone()));
            }
            if disabled(&probe) {
                if let (Some(r), Some(keys), Some(rec)) = (&replay, &keys, &recording) {
                    if let Some(reads) = self.fixed_public_reads(&probe, rec) {
                        let mut decisions = Vec::new();
                        r.decisions(keys, &mut decisions);
                        at.disabled.insert(decisions, reads);
                    }
                }
                match at.run {
                    Some(_) => at.skipped += 1,
                    None => report.disabled += 1,
                }
                m += 1;
                continue;
            }
            if at.run.as_ref().is_some_and(|(r, _)| r.gateless_and_long()) {
                // Never kept (see `Run::gateless_and_long`): the run ends
                // here, and this iteration is probed again.
                self.close_open(&mut at, c, each, (extras, report))?;
                continue;
            }
            if let Some((r, form)) = at.run.as_mut() {
                if r.probe.matches(&probe) {
                    r.explicit = Some(Explicit::of(&probe).with_keys(keys));
                    if self.simulate(r, (c, m))? {
                        m += 1;
                        continue;
                    }
                }
                // Keys that differ from the template's, read as fresh
                // inputs, may make one template serve both: the run is
                // made again from its start.
                let differing = match (&replay, form.as_ref(), &keys) {
                    (Some(rp), Some(f), Some(k)) => rp.differing(f.keys(), k),
                    _ => Vec::new(),
                };
                if let (Some(rp), false) = (replay.as_mut(), differing.is_empty()) {
                    let gates = r.probe.frame.gates.len();
                    at.pending = Some((ands(&r.probe), gates, differing.clone()));
                    rp.generalize(&differing, false);
                    let (run, _) = at.run.take().expect("a run is open");
                    at.skipped = 0;
                    m = self.undo_run(run).0;
                    continue;
                }
                // In a loop whose products were strength-reduced: a public
                // value that differs, a sum carried on that grows, or
                // ranges that differ: read as inputs, reduced each
                // iteration or widened, the run is made again from its
                // start. (Elsewhere templates keep their own ranges, so
                // they have the unrolled form's AND gates.)
                let wider = setup
                    .may_settle
                    .then(|| {
                        let a_first = r.start == 0 && m == 1;
                        super::widened(&setup, (&r.probe, &probe), (c.trips - m, a_first))
                    })
                    .flatten();
                // Elsewhere, sums an iteration leaves that the next one
                // reduces anyway are reduced where they are left (the same
                // gates, moved), if that costs no AND gate.
                let settle = !setup.settle_sums
                    && !setup.may_settle
                    && !at.settle_refused
                    && settling_moves_only(&r.probe, &probe);
                let wider = wider.or_else(|| {
                    settle.then(|| {
                        at.settling = Some(ands(&probe));
                        Setup {
                            settle_sums: true,
                            ..(*setup).clone()
                        }
                    })
                });
                if let Some(wider) = wider {
                    setup = Rc::new(wider);
                    let (run, _) = at.run.take().expect("a run is open");
                    at.skipped = 0;
                    m = self.undo_run(run).0;
                    continue;
                }
                // The run ends here; this iteration is probed again on the
                // state the run leaves once kept or lowered.
                self.close_open(&mut at, c, each, (extras, report))?;
                continue;
            }
            if let Some(before) = at.settling.take() {
                if ands(&probe) > before {
                    // Reducing where they are left costs AND gates here.
                    at.settle_refused = true;
                    setup = Rc::new(Setup {
                        settle_sums: false,
                        ..(*setup).clone()
                    });
                    continue;
                }
            }
            if let (Some((before, gates, classes)), Some(rp)) = (at.pending.take(), replay.as_mut())
            {
                if ands(&probe) > before && !self.too_long_to_unroll(gates, c.trips - m) {
                    // Fresh inputs cost AND gates here: constants again.
                    rp.generalize(&classes, true);
                    continue;
                }
            }
            let explicit = Explicit::of(&probe).with_keys(keys);
            let form = match (&replay, keys, &recording) {
                (Some(r), Some(keys), Some(rec)) => r.form(&probe, rec, keys.to_vec()),
                _ => None,
            };
            let mut r = Run::new(probe, m);
            r.explicit = Some(explicit);
            r.volatile = replay.as_ref().map_or(Vec::new(), |rp| rp.hoists.objects());
            if !self.simulate(&mut r, (c, m))? {
                // Only if tokens ran out: the iteration is lowered as usual.
                return Ok(Outcome::Unroll(m, "too many iterations to check".into()));
            }
            m += 1;
            at.run = Some((r, form));
        }
        self.close_open(&mut at, c, each, (extras, report))?;
        Ok(Outcome::Done)
    }

    /// Applies iteration `m`, whose keys are `keys`, without probing it if
    /// it does nothing (its decisions are a disabled iteration's) or the
    /// open run's template serves it; returns whether it did.
    fn replayed(
        &mut self,
        r: &Replay,
        keys: &[i128],
        (c, m): (&Counted, u64),
        at: &mut Progress,
        report: &mut LoopReport,
    ) -> DResult<bool> {
        let same = |(obj, leaf): &(usize, usize), v: &Slot| self.objs[*obj].slots[*leaf] == *v;
        let decisions = &mut at.decisions;
        r.decisions(keys, decisions);
        let does_nothing = at
            .disabled
            .get(decisions.as_slice())
            .is_some_and(|reads| reads.iter().all(|(at, v)| same(at, v)));
        if does_nothing {
            match at.run {
                Some(_) => at.skipped += 1,
                None => report.disabled += 1,
            }
            return Ok(true);
        }
        let Some((run, Some(form))) = at.run.as_mut() else {
            return Ok(false);
        };
        if run.gateless_and_long() || !r.explicit(form, &run.probe, keys, &mut at.explicit) {
            return Ok(false);
        }
        std::mem::swap(
            run.explicit.get_or_insert_with(Explicit::default),
            &mut at.explicit,
        );
        self.simulate(run, (c, m))
    }

    /// Reduces the sums held in objects `objs` to their bits.
    pub(in crate::lower) fn settle_objects(&mut self, objs: &[usize]) {
        for &obj in objs {
            for k in 0..self.objs[obj].slots.len() {
                if !matches!(self.objs[obj].slots[k], Slot::Val(Word::Sum(_))) {
                    continue;
                }
                if let Slot::Val(w) = self.slot(obj, k) {
                    if let Some(bits) = w.settled(&mut self.b) {
                        self.write_slot(obj, k, Slot::Val(bits));
                    }
                }
            }
        }
    }

    /// Ends the open run, if there is one (see [`Lower::close_run`]), and
    /// counts it as kept or short.
    fn close_open(
        &mut self,
        at: &mut Progress,
        c: &Counted,
        each: &mut impl FnMut(&mut Self) -> DResult<Vec<Slot>>,
        found: (&mut Sink<'_>, &mut LoopReport),
    ) -> DResult<()> {
        let Some((run, _)) = at.run.take() else {
            return Ok(());
        };
        let report_disabled = at.skipped;
        at.skipped = 0;
        let (extras, report) = found;
        if self.close_run(run, c, each, (extras, report))? {
            report.disabled += report_disabled;
            (at.short, at.skip) = (0, MAX_MISMATCHES as u64);
        } else {
            at.short += 1;
        }
        Ok(())
    }

    /// Ends `run` of probed iterations: made a block if it is long enough
    /// and worth keeping, else undone and its iterations lowered plainly.
    /// Returns whether it was kept.
    fn close_run(
        &mut self,
        run: Run,
        c: &Counted,
        each: &mut impl FnMut(&mut Self) -> DResult<Vec<Slot>>,
        (extras, report): (&mut Sink<'_>, &mut LoopReport),
    ) -> DResult<bool> {
        let (kept, _) = self.end_run((run, MIN_RUN), c, each, (extras, report))?;
        if !kept {
            report
                .why
                .get_or_insert_with(|| format!("{SHORT_RUNS} {MIN_RUN}"));
        }
        Ok(kept)
    }
}

impl Lower<'_> {
    /// Whether the `left` iterations of a loop, unrolled at `gates` gates
    /// each, would hold more than a quarter of the gates a compile may
    /// hold: keys read as fresh inputs then keep the loop even where they
    /// cost AND gates (`r += (x + i) * y` over 200,000 iterations: twice
    /// the AND gates of the products unrolled, where unrolling ran out of
    /// memory after 40 s).
    pub(super) fn too_long_to_unroll(&self, gates: usize, left: u64) -> bool {
        (gates as u64).saturating_mul(left) > self.opts.limits.max_gates / 4
    }
}

/// Whether `probe`'s iteration does nothing: no gates, no blocks, no
/// writes, nothing yielded.
fn disabled(probe: &Probe) -> bool {
    probe.writes.is_empty()
        && probe.extras.is_empty()
        && probe.frame.gates.is_empty()
        && probe.frame.blocks.is_empty()
}

/// The objects `probe` both read and wrote, each once, if it reduced the
/// sums it left there.
fn carried_objects(probe: &Probe) -> Vec<usize> {
    if !probe.settled {
        return Vec::new();
    }
    let mut objs: Vec<usize> = probe
        .writes
        .iter()
        .filter(|w| probe.observations.iter().any(|o| o.at == w.at))
        .map(|w| w.at.obj)
        .collect();
    objs.dedup();
    objs
}

/// Whether reducing, at the end of each iteration, the sums `a` leaves
/// where it read only moves work the next iteration `b` does anyway: `a`
/// leaves such a sum, and `b` leaves no more rows in any of those places
/// than `a` did, so `b` reduced what it read there rather than carrying
/// its rows on (`r = (r ^ y) + (x ^ i)`: each iteration reads the bits of
/// the sum the last one left). Loops whose sums do carry on (`t += i * x`)
/// are left to [`super::widened`].
fn settling_moves_only(a: &Probe, b: &Probe) -> bool {
    let mut any = false;
    for w in &a.writes {
        let Slot::Val(left @ Word::Sum(_)) = &w.value else {
            continue;
        };
        if !a.observations.iter().any(|o| o.at == w.at) {
            continue;
        }
        let rows = |p: &Probe| {
            let at = p.writes.iter().find(|x| x.at == w.at)?;
            Some(match &at.value {
                Slot::Val(v) => v.row_count(),
                _ => 0,
            })
        };
        match rows(b) {
            Some(n) if n <= left.row_count() => any = true,
            _ => return false,
        }
    }
    any
}
