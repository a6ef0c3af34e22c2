//! Batches: how a gate list is cut before an [`Engine`](crate::Engine) runs
//! it, so that every run of consecutive AND gates in a batch can be hashed
//! at once — or split between threads (see [`crate::exchange`]).
//!
//! The guarantee, which [`Batch`] carries as a type: within every maximal
//! run of consecutive AND gates of a batch, no AND reads or writes a wire
//! that *another* AND of the run writes. (A gate may overwrite a wire it
//! reads itself.) So the ANDs of a run depend on nothing the run computes,
//! and any cut of the run into parts can run at once, each part reading
//! the labels from before the run and writing its own outputs.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use crate::exchange::{ExchangePlan, Split};
use crate::gate::{Gate, Wire};

/// A slice of gates cut by [`Batches`]: within every maximal run of
/// consecutive AND gates, no AND reads or writes a wire another AND of the
/// run writes. Only this module makes batches (among them the lanes of a
/// lockstep group, see [`Batches::lanes`]), so an engine may rely on that.
/// A batch knows where all its AND runs are ([`Batch::and_runs`]), so
/// engines need not scan for them, nor count its ANDs.
#[derive(Clone, Copy, Debug)]
pub struct Batch<'a> {
    gates: &'a [Gate],
    runs: Runs<'a>,
    /// Where the batch's exchange plan is kept, if it is a whole batch of
    /// a [`Batches`] (its first gate's index there).
    plans: Option<(&'a PlanCache, usize)>,
}

/// The exchange plans made for the batches of a [`Batches`], by the index
/// of their first gate, a few cuts of each (the two parties of one process
/// may cut differently, see [`Split::lead_weight`]): made when a walk asks
/// for one the [`ASKS_BEFORE_PLAN`]th time, or when asked to make it
/// ahead, and kept for every later walk of the same plan.
#[derive(Debug, Default)]
pub struct PlanCache(Mutex<HashMap<usize, Vec<Asked>>>);

/// A cut asked for of one batch: how often, and its plan once made.
#[derive(Debug)]
struct Asked {
    split: Split,
    asks: u32,
    plan: Option<Arc<ExchangePlan>>,
}

/// Cuts a batch keeps at most; a new one replaces the one least recently
/// asked for (a benchmark's garbling and evaluation runs ask for theirs in
/// turn: one made ahead for a timed run must not go before the run asks
/// for it).
const PLANS_KEPT: usize = 3;

/// The request that makes a batch's plan. A plan costs about a pass over
/// the gates, as much as running them on one thread, and saves at most
/// what the other threads take of a run: a loop body that runs once or
/// twice never pays for one (a serial bubble-sort pass, run twice in each
/// of hundreds of loops, spent 0.5 s of its 0.8 s of gates making plans).
pub const ASKS_BEFORE_PLAN: u32 = 3;

impl Clone for PlanCache {
    /// A new, empty cache (plans are made again as needed).
    fn clone(&self) -> Self {
        PlanCache::default()
    }
}

impl PartialEq for PlanCache {
    /// Always equal: a cache holds nothing the gate list does not fix.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for PlanCache {}

/// Where the AND runs of a batch are.
#[derive(Clone, Copy, Debug)]
enum Runs<'a> {
    /// The maximal AND runs of a gate list the batch is a slice of, at
    /// least those that meet the batch, as ranges of that list; the batch
    /// starts at index `base` of it.
    Listed {
        runs: &'a [Range<usize>],
        base: usize,
    },
    /// The batch is one AND run.
    Whole,
}

impl<'a> Batch<'a> {
    /// The gates.
    pub fn gates(self) -> &'a [Gate] {
        self.gates
    }

    /// The gates `range` of this batch (part of a batch is a batch).
    pub fn slice(self, range: Range<usize>) -> Batch<'a> {
        let runs = match self.runs {
            Runs::Listed { runs, base } => {
                let (start, end) = (base + range.start, base + range.end);
                let first = runs.partition_point(|r| r.end <= start);
                let last = first + runs[first..].partition_point(|r| r.start < end);
                Runs::Listed {
                    runs: &runs[first..last],
                    base: start,
                }
            }
            Runs::Whole => Runs::Whole,
        };
        let whole = range.start == 0 && range.end == self.gates.len();
        Batch {
            gates: &self.gates[range],
            runs,
            plans: self.plans.filter(|_| whole),
        }
    }

    /// The maximal runs of consecutive AND gates of this batch, in order,
    /// as the positions of their gates in the batch.
    pub fn and_runs(self) -> impl Iterator<Item = Range<usize>> + 'a {
        let n = self.gates.len();
        let (runs, base, whole) = match self.runs {
            Runs::Listed { runs, base } => (runs, base, None),
            Runs::Whole => (&[][..], 0, Some(0..n)),
        };
        let listed = runs.iter().filter_map(move |r| {
            let (start, end) = (r.start.max(base) - base, (r.end - base).min(n));
            (start < end).then_some(start..end)
        });
        whole.filter(|r| !r.is_empty()).into_iter().chain(listed)
    }

    /// AND gates in this batch (from its runs: no scan of the gates).
    pub fn and_count(self) -> usize {
        self.and_runs().map(|r| r.len()).sum()
    }

    /// The plan of this batch over `num_wires` labels cut as `split` says,
    /// a copy of the labels for each thread (see [`ExchangePlan::of`]), if
    /// it is a whole batch of a [`Batches`] and this cut was asked for
    /// [`ASKS_BEFORE_PLAN`] times (or `ahead`): made once and kept there.
    /// A batch made for one walk, as the lanes of a lockstep group, gets
    /// none.
    pub fn exchange_plan(
        self,
        num_wires: Wire,
        split: Split,
        ahead: bool,
    ) -> Option<Arc<ExchangePlan>> {
        let (cache, at) = self.plans?;
        // A poisoned lock only loses the cache.
        let mut plans = cache.0.lock().ok()?;
        let kept = plans.entry(at).or_default();
        // Kept in the order last asked for, the latest at the end.
        let mut asked = match kept.iter().position(|a| a.split == split) {
            Some(i) => kept.remove(i),
            None => {
                if kept.len() == PLANS_KEPT {
                    kept.remove(0);
                }
                Asked {
                    split,
                    asks: 0,
                    plan: None,
                }
            }
        };
        asked.asks = asked.asks.saturating_add(1);
        if asked.plan.is_none() && (ahead || asked.asks >= ASKS_BEFORE_PLAN) {
            asked.plan = Some(Arc::new(ExchangePlan::of(self, num_wires, split)));
        }
        let plan = asked.plan.clone();
        kept.push(asked);
        plan
    }
}

impl std::ops::Deref for Batch<'_> {
    type Target = [Gate];
    fn deref(&self) -> &[Gate] {
        self.gates
    }
}

/// The most gates [`Batches::lane_copies`] keeps (4 MiB): a narrow body's
/// lanes, not those of a large unrolled loop body.
pub(crate) const LANE_COPIES_MAX: usize = 1 << 18;

/// The lanes of the segments of a frame for a lockstep group (see
/// [`Batches::lane_copies`]).
#[derive(Debug)]
pub(crate) struct LaneCopies {
    /// Lanes made.
    lanes: usize,
    /// Where each segment's copies start in `gates` (a segment without
    /// copies has none: its end is its start).
    starts: Vec<usize>,
    gates: Vec<Gate>,
}

impl LaneCopies {
    /// Lanes made.
    pub(crate) fn lanes(&self) -> usize {
        self.lanes
    }

    /// The first `lanes` copies of segment `seg`, as one batch (one AND
    /// run, or free gates only), if they were made.
    ///
    /// # Panics
    /// If more lanes are asked for than were made.
    pub(crate) fn batch(&self, seg: usize, lanes: usize) -> Option<Batch<'_>> {
        assert!(lanes <= self.lanes, "lanes made for a narrower group");
        let start = self.starts[seg];
        let end = self
            .starts
            .get(seg + 1)
            .copied()
            .unwrap_or(self.gates.len());
        let len = (end - start) / self.lanes;
        let gates = &self.gates[start..start + len * lanes];
        let runs = match gates.first()? {
            Gate::And { .. } => Runs::Whole,
            _ => Runs::Listed { runs: &[], base: 0 },
        };
        Some(Batch {
            gates,
            runs,
            plans: None,
        })
    }
}

/// Cuts `gates` into consecutive batches (see [`Batch`]) and calls `f` on
/// each. A cut is made only where the guarantee needs one, so in a
/// levelled circuit whose slots an AND level does not reuse (see
/// [`Circuit::levelize`](crate::Circuit::levelize)) every AND level stays
/// one AND run.
pub fn for_each_batch<E>(
    gates: &[Gate],
    num_wires: Wire,
    f: impl FnMut(Batch<'_>) -> Result<(), E>,
) -> Result<(), E> {
    Batches::of(gates, num_wires, &[]).for_each(f)
}

/// Where a gate list is cut into batches (see [`for_each_batch`]), computed
/// once and reused, e.g. for every iteration of a block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Batches<'g> {
    /// The gate list cut.
    gates: &'g [Gate],
    /// Its wires are below this.
    num_wires: Wire,
    /// Index of the first gate of every batch but the first.
    pub(crate) cuts: Vec<usize>,
    /// The maximal runs of consecutive AND gates, cut where batches are.
    runs: Vec<Range<usize>>,
    /// The exchange plans made for its batches.
    plans: PlanCache,
}

/// What the current AND run did to a wire, as a stamp: the run's number
/// shifted left by one, with the low bit set if an AND of the run wrote it
/// (else one read it). Within a run a wire is read only, or written by one
/// gate (which may also read it): anything else is a cut.
const WRITTEN: u32 = 1;

impl<'g> Batches<'g> {
    /// The batches of `gates` over `num_wires` wire slots, also cut at every
    /// index in `positions` (sorted; where blocks run).
    ///
    /// # Panics
    /// If a gate uses a wire not below `num_wires`.
    pub fn of(gates: &'g [Gate], num_wires: Wire, positions: &[usize]) -> Batches<'g> {
        let mut stamps = vec![0u32; num_wires as usize];
        // Runs are numbered from 1, so a zero stamp is no run's. (After
        // 2^31 runs the numbers wrap: an old stamp may then look current
        // and cause a cut that was not needed, never miss one.)
        let mut run = 1u32;
        let mut cuts = Vec::new();
        let mut runs: Vec<Range<usize>> = Vec::new();
        let mut forced = positions.iter().peekable();
        for (i, g) in gates.iter().enumerate() {
            let mut cut = false;
            if forced.next_if(|&&p| p <= i).is_some() {
                while forced.next_if(|&&p| p <= i).is_some() {}
                cut = i > 0 && cuts.last() != Some(&i);
                run = run.wrapping_add(1);
            }
            let Gate::And { a, b, out } = *g else {
                if i > 0 && gates[i - 1].is_and() {
                    run = run.wrapping_add(1);
                }
                if cut {
                    cuts.push(i);
                }
                continue;
            };
            let (read, written) = (run << 1, run << 1 | WRITTEN);
            // Reads an output of the run, or writes a wire the run read or
            // wrote (before this gate's own reads count).
            if stamps[a as usize] == written
                || stamps[b as usize] == written
                || stamps[out as usize] & !WRITTEN == read
            {
                cut = true;
                run = run.wrapping_add(1);
            }
            if cut {
                cuts.push(i);
            }
            let (read, written) = (run << 1, run << 1 | WRITTEN);
            stamps[a as usize] = read;
            stamps[b as usize] = read;
            stamps[out as usize] = written;
            match runs.last_mut() {
                Some(r) if r.end == i && !cut => r.end = i + 1,
                _ => runs.push(i..i + 1),
            }
        }
        Batches {
            gates,
            num_wires,
            cuts,
            runs,
            plans: PlanCache::default(),
        }
    }

    /// Whether `range` lies inside one AND run.
    fn inside_and_run(&self, range: Range<usize>) -> bool {
        let i = self.runs.partition_point(|r| r.end <= range.start);
        self.runs
            .get(i)
            .is_some_and(|r| r.start <= range.start && range.end <= r.end)
    }

    /// Checks, once for a frame's plan, that each of `segments` whose first
    /// gate is an AND lies inside one AND run, as [`Batches::lanes`] and
    /// [`Batches::lane_copies`] take for granted.
    ///
    /// # Panics
    /// If one does not.
    pub(crate) fn check_and_segments(&self, segments: &[Range<usize>]) {
        for seg in segments.iter().filter(|s| self.gates[s.start].is_and()) {
            assert!(
                self.inside_and_run(seg.clone()),
                "a lockstep segment inside one AND run"
            );
        }
    }

    /// The free gates `range` (no AND among them: a batch lists every AND
    /// run it has, engines count its ANDs from them) as a batch.
    pub(crate) fn free_gates(&self, range: Range<usize>) -> Batch<'_> {
        debug_assert!(!self.gates[range.clone()].iter().any(Gate::is_and));
        Batch {
            gates: &self.gates[range.clone()],
            runs: Runs::Listed {
                runs: &[],
                base: range.start,
            },
            plans: None,
        }
    }

    /// The lanes of a lockstep group of `lanes` frames of `num_wires`
    /// labels for every segment of `segments` (ranges inside one AND run
    /// each, or of free gates): copy `r` of a segment over wires shifted by
    /// `r × num_wires`. The copies touch disjoint wires, so together they
    /// are one batch (and one AND run, for an AND segment) that an engine
    /// runs in one call; made once when the frame is planned, they serve
    /// every group that runs it. None if the AND segments' copies would take
    /// more than [`LANE_COPIES_MAX`] gates (see [`Batches::lanes`] then);
    /// free segments get copies only if all of them fit too (else each
    /// lane runs them on its own).
    ///
    /// # Panics
    /// If an AND segment is not inside one AND run.
    pub(crate) fn lane_copies(
        &self,
        segments: &[Range<usize>],
        lanes: usize,
    ) -> Option<LaneCopies> {
        let (and_gates, free_gates) = segments.iter().fold((0, 0), |(and, free), s| {
            if self.gates[s.start].is_and() {
                (and + s.len(), free)
            } else {
                (and, free + s.len())
            }
        });
        if and_gates.saturating_mul(lanes) > LANE_COPIES_MAX {
            return None;
        }
        let copy_free = (and_gates + free_gates).saturating_mul(lanes) <= LANE_COPIES_MAX;
        let kept = if copy_free {
            and_gates + free_gates
        } else {
            and_gates
        };
        let mut copies = LaneCopies {
            lanes,
            starts: Vec::with_capacity(segments.len()),
            gates: Vec::with_capacity(kept * lanes),
        };
        for seg in segments {
            copies.starts.push(copies.gates.len());
            if copy_free || self.gates[seg.start].is_and() {
                self.push_lanes(seg.clone(), lanes, &mut copies.gates);
            }
        }
        Some(copies)
    }

    /// The lanes of the AND gates `range` (inside one AND run) for a
    /// lockstep group of `lanes` frames, as [`Batches::lane_copies`] makes
    /// them, in `buf`: for frames whose copies would take too much memory
    /// to keep.
    ///
    /// # Panics
    /// If `range` is not inside one AND run.
    pub(crate) fn lanes<'b>(
        &self,
        range: Range<usize>,
        lanes: usize,
        buf: &'b mut Vec<Gate>,
    ) -> Batch<'b> {
        buf.clear();
        self.push_lanes(range, lanes, buf);
        Batch {
            gates: buf,
            runs: Runs::Whole,
            plans: None,
        }
    }

    /// Appends `lanes` copies of the gates `range` (inside one AND run, or
    /// free gates only) to `out`, copy `r` over wires shifted by
    /// `r × num_wires`.
    fn push_lanes(&self, range: Range<usize>, lanes: usize, out: &mut Vec<Gate>) {
        // Inside an AND run (the walker checks its segments once, see
        // `Batches::check_and_segments`) or free; every wire is below
        // `num_wires`, as `of` indexed its stamps with each.
        debug_assert!(
            self.inside_and_run(range.clone())
                || !self.gates[range.clone()].iter().any(Gate::is_and)
        );
        let run = &self.gates[range];
        for r in 0..lanes as Wire {
            let off = r * self.num_wires;
            out.extend(run.iter().map(|g| g.rewire(|w| w + off, g.out() + off)));
        }
    }

    /// Calls `f` on every batch, in order.
    pub fn for_each<E>(&self, f: impl FnMut(Batch<'_>) -> Result<(), E>) -> Result<(), E> {
        self.for_each_in(0..self.gates.len(), f)
    }

    /// [`Batches::for_each`] over the gates in `range` only (a range that
    /// starts and ends at cuts or block positions).
    pub fn for_each_in<E>(
        &self,
        range: Range<usize>,
        mut f: impl FnMut(Batch<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        if range.is_empty() {
            return Ok(());
        }
        // The runs meeting each batch, found walking forward (a batch of a
        // narrow level is a few gates: no search per batch).
        let mut run = self.runs.partition_point(|r| r.end <= range.start);
        let at_cut =
            |i: usize| i == 0 || i == self.gates.len() || self.cuts.binary_search(&i).is_ok();
        let is_whole = |r: &Range<usize>| at_cut(r.start) && at_cut(r.end);
        let mut batch = |r: Range<usize>| {
            while self.runs.get(run).is_some_and(|x| x.end <= r.start) {
                run += 1;
            }
            let last = run
                + self.runs[run..]
                    .iter()
                    .take_while(|x| x.start < r.end)
                    .count();
            Batch {
                gates: &self.gates[r.clone()],
                runs: Runs::Listed {
                    runs: &self.runs[run..last],
                    base: r.start,
                },
                // A whole batch (ranges between blocks start and end at
                // cuts) keeps its exchange plan here.
                plans: is_whole(&r).then_some((&self.plans, r.start)),
            }
        };
        let first = self.cuts.partition_point(|&c| c <= range.start);
        let mut start = range.start;
        for &cut in self.cuts[first..].iter().take_while(|&&c| c < range.end) {
            f(batch(start..cut))?;
            start = cut;
        }
        f(batch(start..range.end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame of `free` XOR gates, then one AND level of two gates, over
    /// `5 + free` wires: its two segments.
    fn frame(free: u32) -> (Vec<Gate>, Wire, Vec<Range<usize>>) {
        let mut gates: Vec<Gate> = (0..free)
            .map(|i| Gate::Xor {
                a: 0,
                b: 1,
                out: 5 + i,
            })
            .collect();
        gates.push(Gate::And { a: 0, b: 1, out: 2 });
        gates.push(Gate::And { a: 0, b: 1, out: 3 });
        let n = free as usize;
        (gates, 5 + free, vec![0..n, n..n + 2])
    }

    #[test]
    fn lane_copies_shift_each_lane_and_keep_free_segments_free() {
        let (gates, nw, segments) = frame(3);
        let batches = Batches::of(&gates, nw, &[]);
        let copies = batches.lane_copies(&segments, 4).unwrap();
        let free = copies.batch(0, 3).unwrap();
        assert_eq!(free.len(), 9);
        assert_eq!(free.and_count(), 0);
        assert_eq!(
            free[7],
            Gate::Xor {
                a: 2 * nw,
                b: 1 + 2 * nw,
                out: 6 + 2 * nw
            }
        );
        let ands = copies.batch(1, 4).unwrap();
        assert_eq!(ands.and_count(), 8);
        assert!(ands.and_runs().eq(std::iter::once(0..8)));
        assert_eq!(
            ands[5],
            Gate::And {
                a: 2 * nw,
                b: 1 + 2 * nw,
                out: 3 + 2 * nw
            }
        );
    }

    #[test]
    fn free_segments_too_large_to_copy_run_lane_by_lane() {
        let lanes = 16;
        let free = (LANE_COPIES_MAX / lanes) as u32;
        let (gates, nw, segments) = frame(free);
        let batches = Batches::of(&gates, nw, &[]);
        let copies = batches.lane_copies(&segments, lanes).unwrap();
        assert!(copies.batch(0, lanes).is_none());
        assert_eq!(copies.batch(1, lanes).unwrap().and_count(), 2 * lanes);
    }
}
