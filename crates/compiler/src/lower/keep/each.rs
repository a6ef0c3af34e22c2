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

use super::run::{Explicit, Run};
use super::*;

/// The fewest iterations of a run worth a block of its own in a loop
/// whose iterations are probed; shorter runs are lowered plainly, where
/// the builder shares their gates with the rest.
const MIN_RUN: u64 = 8;

impl Lower<'_> {
    /// Lowers the loop `c` counts by probing every iteration (see the
    /// module docs); adds what each iteration yields to `extras`.
    pub(super) fn keep_each(
        &mut self,
        c: &Counted,
        setup: &Rc<Setup>,
        each: &mut impl FnMut(&mut Self) -> DResult<Vec<Slot>>,
        (extras, report): (&mut Vec<Vec<Slot>>, &mut LoopReport),
    ) -> DResult<Outcome> {
        if c.trips < MIN_RUN {
            return Ok(Outcome::Unroll(
                0,
                format!("fewer than {MIN_RUN} iterations"),
            ));
        }
        if c.trips > self.opts.limits.max_iterations {
            // Probing costs what lowering does: past the limit on
            // iterations lowered, the loop is unrolled (and refused there).
            return Ok(Outcome::Unroll(
                0,
                "too many iterations to probe each".into(),
            ));
        }
        let mut run: Option<Run> = None;
        let (mut m, mut short) = (0u64, 0u32);
        // Disabled iterations inside the open run (lowered plainly with it
        // if it is not kept).
        let mut skipped = 0;
        // Iterations to lower plainly after the next runs too short to keep.
        let mut skip = MAX_MISMATCHES as u64;
        while m < c.trips {
            if run.is_none() && short >= MAX_MISMATCHES {
                // Runs stay short here: lower the next iterations plainly
                // (twice as many each time), then probe again.
                let end = (m + skip).min(c.trips);
                self.unroll(c, m..end, each, extras)?;
                report.unrolled += end - m;
                report.why.get_or_insert_with(|| DIFFERENT.to_string());
                (m, skip, short) = (end, skip.saturating_mul(2), 0);
                continue;
            }
            let probe = self.probe_iteration(c, m, setup, each)?;
            if let Some(failed) = &probe.failed {
                if let Some(r) = run.take() {
                    if self.close_run(r, c, each, (extras, report))? {
                        report.disabled += skipped;
                    }
                }
                return Ok(Outcome::Unroll(m, failed.clone()));
            }
            if disabled(&probe) {
                match run {
                    Some(_) => skipped += 1,
                    None => report.disabled += 1,
                }
                m += 1;
                continue;
            }
            if let Some(r) = run.as_mut() {
                if r.probe.matches(&probe) {
                    r.explicit = Some(Explicit::of(&probe));
                    if self.simulate(r, (c, m))? {
                        m += 1;
                        continue;
                    }
                }
                // The run ends here; this iteration is probed again on the
                // state the run leaves once kept or lowered.
                let r = run.take().expect("a run is open");
                if self.close_run(r, c, each, (extras, report))? {
                    report.disabled += skipped;
                    (short, skip) = (0, MAX_MISMATCHES as u64);
                } else {
                    short += 1;
                }
                skipped = 0;
                continue;
            }
            let mut r = Run::new(probe, m);
            r.explicit = Some(Explicit::of(&r.probe));
            if !self.simulate(&mut r, (c, m))? {
                // Only if tokens ran out: the iteration is lowered as usual.
                return Ok(Outcome::Unroll(m, "too many iterations to check".into()));
            }
            m += 1;
            run = Some(r);
        }
        if let Some(r) = run.take() {
            if self.close_run(r, c, each, (extras, report))? {
                report.disabled += skipped;
            }
        }
        Ok(Outcome::Done)
    }

    /// Ends `run` of probed iterations: made a block if it is long enough
    /// and worth keeping, else undone and its iterations lowered plainly.
    /// Returns whether it was kept.
    fn close_run(
        &mut self,
        run: Run,
        c: &Counted,
        each: &mut impl FnMut(&mut Self) -> DResult<Vec<Slot>>,
        (extras, report): (&mut Vec<Vec<Slot>>, &mut LoopReport),
    ) -> DResult<bool> {
        if run.count >= MIN_RUN && self.keeps(&run) {
            let (rows, _) = self.materialise(run, report)?;
            extras.extend(rows);
            return Ok(true);
        }
        let (start, end, _) = self.undo_run(run);
        report.unrolled += end - start;
        report.why.get_or_insert_with(|| {
            format!("runs of iterations that lower alike are shorter than {MIN_RUN}")
        });
        self.unroll(c, start..end, each, extras)?;
        Ok(false)
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
