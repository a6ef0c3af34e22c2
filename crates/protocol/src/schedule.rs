//! Running a program over one or more channels: the schedulers.
//!
//! * sequential — one thread, one channel;
//! * FGP — wide AND levels split between threads inside each engine
//!   (see [`crate::engine`]);
//! * CGP — the instances of each parallel region split between threads, each
//!   thread with its own channel (its own TCP connection), so tables need no
//!   sequence numbers; threads join after the region. With more threads than
//!   instances, the instances run one after another with FGP inside;
//! * auto — CGP for regions, FGP elsewhere.
//!
//! Every AND gate keeps the id it has in sequential execution order (main
//! gates, then each region instance in turn), so the tweaks, the tables and
//! the outputs are the same whatever the schedule and the thread count.

use std::ops::Range;

use twofold_circuit::walk::{
    for_each_batch, nearest_group_boundary, scatter_instances, BlockPlan, Hooks, Plan as WalkPlan,
    Walker,
};
use twofold_circuit::{Circuit, Engine, Gate, Item, MainOrder, Program};
use twofold_crypto::Scheme;

use crate::engine::{Fgp, FGP_MIN_ANDS};
use crate::error::ProtocolError;
use crate::options::Schedule;

/// How one party spreads its work: the schedule, the threads, the
/// narrowest AND level FGP splits, and the garbling scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The scheduler.
    pub schedule: Schedule,
    /// Threads (at least 1).
    pub threads: usize,
    /// AND runs shorter than this are not split (FGP).
    pub fgp_min_ands: usize,
    /// The garbling scheme.
    pub scheme: Scheme,
}

impl Plan {
    /// `schedule` on `threads` threads with the measured FGP threshold and
    /// the default scheme.
    pub fn new(schedule: Schedule, threads: usize) -> Plan {
        Plan {
            schedule,
            threads: threads.max(1),
            fgp_min_ands: FGP_MIN_ANDS,
            scheme: Scheme::default(),
        }
    }

    pub(crate) fn fgp(self, threads: usize) -> Fgp {
        if threads > 1 {
            Fgp {
                threads,
                min_ands: self.fgp_min_ands,
            }
        } else {
            Fgp::OFF
        }
    }

    /// FGP outside regions.
    pub(crate) fn main_fgp(self) -> Fgp {
        match self.schedule {
            Schedule::Fgp | Schedule::Auto => self.fgp(self.threads),
            Schedule::Sequential | Schedule::Cgp => Fgp::OFF,
        }
    }
}

/// One side of the protocol (garbler or evaluator): makes engines on links
/// (channels to the peer, or sinks) and closes them.
pub trait Side: Sync {
    /// What a wire holds on this side.
    type Label: Copy + Default + Send + Sync;
    /// What an engine talks through.
    type Link: Send;
    /// The engine on one link.
    type Engine<'c>: Engine<Label = Self::Label, Error = ProtocolError>;
    /// An engine on `chan` whose first AND gate has id `first_gate`.
    fn engine<'c>(
        &'c self,
        chan: &'c mut Self::Link,
        first_gate: u64,
        fgp: Fgp,
    ) -> Result<Self::Engine<'c>, ProtocolError>;
    /// Flushes or checks what the engine still holds; returns its AND count
    /// (including the ones it skipped, see [`Engine::skip_ands`]).
    fn finish(engine: Self::Engine<'_>) -> Result<u64, ProtocolError>;
    /// The id of the engine's next AND gate.
    fn next_gate(engine: &Self::Engine<'_>) -> u64;
}

/// Runs `program` on `side` over `chans` (as many as
/// `plan.schedule.channels`); returns the output labels and the AND gates done.
pub fn run_program<S: Side>(
    side: &S,
    program: &Program,
    inputs: &[S::Label],
    chans: &mut [S::Link],
    plan: Plan,
) -> Result<(Vec<S::Label>, u64), ProtocolError> {
    run_program_from(side, program, inputs, chans, plan, 0)
}

/// [`run_program`] whose first AND gate has id `first_gate` (a program run
/// after other circuits under the same Δ, as the mixed executor's
/// Boolean steps are); returns the AND gates done.
pub(crate) fn run_program_from<S: Side>(
    side: &S,
    program: &Program,
    inputs: &[S::Label],
    chans: &mut [S::Link],
    plan: Plan,
    first_gate: u64,
) -> Result<(Vec<S::Label>, u64), ProtocolError> {
    let walk = WalkPlan::of(program);
    let order = program.main_in_order();
    run_arranged_from(side, &walk, &order, (inputs, first_gate), chans, plan)
}

/// [`run_program`] of a walk plan with the main gates arranged as `order`:
/// the gates during a parallel block run after its instances, before their
/// outputs are written back.
pub(crate) fn run_program_arranged<S: Side>(
    side: &S,
    walk: &WalkPlan<'_>,
    order: &MainOrder,
    inputs: &[S::Label],
    chans: &mut [S::Link],
    plan: Plan,
) -> Result<(Vec<S::Label>, u64), ProtocolError> {
    run_arranged_from(side, walk, order, (inputs, 0), chans, plan)
}

/// [`run_program_arranged`] from the input labels and the id of the first
/// AND gate.
fn run_arranged_from<S: Side>(
    side: &S,
    walk: &WalkPlan<'_>,
    order: &MainOrder,
    inputs: (&[S::Label], u64),
    chans: &mut [S::Link],
    plan: Plan,
) -> Result<(Vec<S::Label>, u64), ProtocolError> {
    run_program_with(
        side,
        walk,
        order,
        inputs,
        chans,
        plan,
        |walker, region, during, labels, first_gate, chans| {
            run_region_whole(
                side, walker, region, during, labels, chans, first_gate, plan,
            )
        },
    )
}

/// Runs the flat `circuit` on one engine of `side` on `chan` whose first AND
/// gate has id `first_gate`; returns the labels of its outputs and its AND
/// count.
pub(crate) fn run_flat<S: Side>(
    side: &S,
    circuit: &Circuit,
    inputs: &[S::Label],
    chan: &mut S::Link,
    first_gate: u64,
) -> Result<(Vec<S::Label>, u64), ProtocolError> {
    let mut labels = vec![S::Label::default(); circuit.num_wires as usize];
    labels[..inputs.len()].copy_from_slice(inputs);
    let mut engine = side.engine(chan, first_gate, Fgp::OFF)?;
    for_each_batch(&circuit.gates, circuit.num_wires, |batch| {
        engine.run_gates(batch, &mut labels)
    })?;
    let ands = S::finish(engine)?;
    Ok((
        circuit.output_wires().map(|w| labels[w as usize]).collect(),
        ands,
    ))
}

/// Runs all instances of the parallel block `region` (split between
/// threads as `plan` says), then the main work `during` it, then writes
/// the region's outputs; the work during it takes the AND-gate ids after
/// the region's. Returns the AND gates done.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_region_whole<S: Side>(
    side: &S,
    walker: &mut Walker<'_, '_, S::Label>,
    region: &BlockPlan<'_>,
    during: &[Item],
    labels: &mut [S::Label],
    chans: &mut [S::Link],
    first_gate: u64,
    plan: Plan,
) -> Result<u64, ProtocolError> {
    let n = region.block.count;
    let walk = walker.plan();
    let done = run_region_part(side, walk, region, 0..n, labels, chans, first_gate, plan)?;
    let during_first = first_gate + region_ands(region);
    let more = run_items(side, walker, during, labels, chans, during_first, plan)?;
    done.scatter(region, labels);
    Ok(done.ands + more)
}

/// The AND gates of all instances of a block.
pub(crate) fn region_ands(region: &BlockPlan<'_>) -> u64 {
    region.body_ands * region.block.count
}

/// [`run_program`] of a walk plan with the main work arranged as `order`
/// and the main circuit's regions run by `run_region` (inter-party
/// parallelism runs them differently). It is called with the walker, a
/// region, the main work that may run during it, the labels, the region's
/// first AND-gate id and the links; it runs both and returns their AND
/// count. The work during region `k` takes the ids after the region's.
pub(crate) fn run_program_with<S: Side>(
    side: &S,
    walk: &WalkPlan<'_>,
    order: &MainOrder,
    (inputs, first_gate): (&[S::Label], u64),
    chans: &mut [S::Link],
    plan: Plan,
    mut run_region: impl FnMut(
        &mut Walker<'_, '_, S::Label>,
        &BlockPlan<'_>,
        &[Item],
        &mut [S::Label],
        u64,
        &mut [S::Link],
    ) -> Result<u64, ProtocolError>,
) -> Result<(Vec<S::Label>, u64), ProtocolError> {
    let main = walk.circuit();
    let mut labels = vec![S::Label::default(); main.num_wires as usize];
    labels[..inputs.len()].copy_from_slice(inputs);
    let mut walker = Walker::new(walk);
    // Every AND gate takes the next id: the first plus the count so far.
    let mut ands = first_gate;
    for (k, &b) in order.regions.iter().enumerate() {
        ands += run_items(
            side,
            &mut walker,
            &order.before[k],
            &mut labels,
            chans,
            ands,
            plan,
        )?;
        let region = &walk.blocks[b];
        ands += run_region(
            &mut walker,
            region,
            &order.during[k],
            &mut labels,
            ands,
            chans,
        )?;
    }
    let last = &order.before[order.regions.len()];
    ands += run_items(side, &mut walker, last, &mut labels, chans, ands, plan)?;
    Ok((
        main.output_wires().map(|w| labels[w as usize]).collect(),
        ands - first_gate,
    ))
}

/// Runs steps of the main circuit (gates, with FGP as `plan` says, and
/// sequential loops, their regions split as `plan` says) on one engine on
/// the first link, whose first AND gate has id `first_gate`; returns their
/// AND count.
pub(crate) fn run_items<S: Side>(
    side: &S,
    walker: &mut Walker<'_, '_, S::Label>,
    items: &[Item],
    labels: &mut [S::Label],
    chans: &mut [S::Link],
    first_gate: u64,
    plan: Plan,
) -> Result<u64, ProtocolError> {
    if items.is_empty() {
        return Ok(0);
    }
    let walk = walker.plan();
    let (first, rest) = chans.split_first_mut().expect("at least one link");
    let mut engine = side.engine(first, first_gate, plan.main_fgp())?;
    let mut hooks = Cgp {
        side,
        walk,
        links: rest,
        plan,
    };
    for item in items {
        match item {
            // Slices of the main circuit use the batches the walk plan has
            // (not cut again); gates made elsewhere are cut here.
            Item::Gates(gates) => match range_in(&walk.circuit().gates, gates) {
                Some(range) => walker.main_gates(range, labels, &mut engine)?,
                None => for_each_batch(gates, labels.len() as u32, |batch| {
                    engine.run_gates(batch, labels)
                })?,
            },
            Item::Loop(b) => walker.main_block(*b, labels, &mut engine, &mut hooks)?,
        }
    }
    S::finish(engine)
}

/// Where `part` lies in `whole`, if it is a slice of it.
fn range_in(whole: &[Gate], part: &[Gate]) -> Option<Range<usize>> {
    let size = std::mem::size_of::<Gate>();
    let (w, p) = (whole.as_ptr() as usize, part.as_ptr() as usize);
    let start = p.checked_sub(w)? / size;
    (p >= w && (p - w) % size == 0 && start + part.len() <= whole.len())
        .then(|| start..start + part.len())
}

/// The output labels of one worker's instances, instance after instance,
/// and their AND count.
type PartDone<L> = (Vec<L>, u64);

/// The output labels of some consecutive instances of a region, as the
/// workers left them (each part's instances, instance after instance, not
/// joined into one buffer: scattering them part by part saves copying and
/// faulting in megabytes a region), and their AND count.
pub(crate) struct InstancesDone<L> {
    /// Each worker's instances and their output labels.
    pub parts: Vec<(Range<u64>, Vec<L>)>,
    /// The AND gates the instances ran.
    pub ands: u64,
}

impl<L: Copy> InstancesDone<L> {
    /// Writes the instances' outputs to their wires in `labels`.
    pub fn scatter(&self, region: &BlockPlan<'_>, labels: &mut [L]) {
        for (range, out) in &self.parts {
            scatter_instances(region, range.clone(), out, labels);
        }
    }

    /// The output labels of all the instances, instance after instance.
    pub fn joined(self) -> Vec<L> {
        let mut parts = self.parts.into_iter().map(|(_, out)| out);
        let mut all = parts.next().unwrap_or_default();
        for out in parts {
            all.extend_from_slice(&out);
        }
        all
    }
}

/// A worker of a parallel block runs at least this many times the
/// narrowest AND level FGP splits ([`Plan::fgp_min_ands`], which both
/// parties agree on) in AND gates: starting a thread on each side and
/// waking the peer's on another link costs tens of microseconds, so
/// smaller regions run on the walk's own thread. (A 24-node
/// Floyd–Warshall kept 1,220 regions of 2 to 24 instances of 84 AND
/// gates: its gates took 0.20 s split, 0.06 s not, 0.03 s unrolled.)
const REGION_PART: u64 = 4;

/// How the instances of a parallel block (`count` of `body_ands` AND
/// gates each) are split: the number of workers (each with its own link)
/// and whether FGP runs inside them.
fn workers(plan: Plan, count: u64, body_ands: u64, links: usize) -> (usize, Fgp) {
    let part = (plan.fgp_min_ands as u64)
        .saturating_mul(REGION_PART)
        .max(1);
    let worth = count.saturating_mul(body_ands) / part;
    let workers = match plan.schedule {
        Schedule::Cgp | Schedule::Auto => plan
            .threads
            .min(usize::try_from(count.min(worth)).unwrap_or(usize::MAX))
            .min(links)
            .max(1),
        Schedule::Sequential | Schedule::Fgp => 1,
    };
    // One worker: the instances run in turn, with FGP inside unless sequential.
    let inner_fgp = match plan.schedule {
        Schedule::Sequential => Fgp::OFF,
        _ if workers == 1 => plan.fgp(plan.threads),
        _ => Fgp::OFF,
    };
    (workers, inner_fgp)
}

/// `range` cut into `workers` consecutive parts, cut only at multiples of
/// `align` (the region's lockstep width: each lockstep group then runs
/// whole on one thread, numbering its gates as one thread would), each
/// cut at the multiple nearest an even split (a part may be empty).
fn parts(range: Range<u64>, workers: usize, align: usize) -> Vec<Range<u64>> {
    let n = range.end - range.start;
    let (w, align) = (workers as u64, align as u64);
    let cut = |k: u64| {
        nearest_group_boundary(range.start + n * k / w, align).clamp(range.start, range.end)
    };
    let start = |k: u64| if k == 0 { range.start } else { cut(k) };
    let end = |k: u64| if k + 1 == w { range.end } else { cut(k + 1) };
    (0..w).map(|k| start(k)..end(k)).collect()
}

/// Runs the instances `part` of `region` on a fresh engine on `chan`;
/// instance 0 of the block starts at AND-gate id `first_gate`. Returns the
/// instances' output labels, instance after instance, and their AND count.
#[allow(clippy::too_many_arguments)]
fn worker<S: Side>(
    side: &S,
    walk: &WalkPlan<'_>,
    region: &BlockPlan<'_>,
    part: Range<u64>,
    labels: &[S::Label],
    chan: &mut S::Link,
    first_gate: u64,
    fgp: Fgp,
    plan: Plan,
) -> Result<PartDone<S::Label>, ProtocolError> {
    let first = first_gate + part.start * region.body_ands;
    let mut engine = side.engine(chan, first, fgp)?;
    let mut walker = Walker::new(walk);
    let mut out = Vec::with_capacity(instance_outputs(region, &part));
    let mut hooks = Cgp {
        side,
        walk,
        links: &mut [],
        plan,
    };
    walker.run_instances(region, part, labels, &mut engine, &mut hooks, &mut out)?;
    Ok((out, S::finish(engine)?))
}

/// How many output labels the instances `part` of `region` have.
fn instance_outputs(region: &BlockPlan<'_>, part: &Range<u64>) -> usize {
    let count = usize::try_from(part.end - part.start).unwrap_or(usize::MAX);
    count.saturating_mul(region.block.outputs.width())
}

/// Runs the instances `range` of `region`, reading their inputs from
/// `labels` (indexed by main wire), split between threads as `plan` says
/// (CGP), one link per thread. Instance `i` starts at AND-gate id
/// `first_gate + i * body_ands` (`first_gate` is the id of instance 0).
/// Returns the instances' output labels, part by part.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_region_part<S: Side>(
    side: &S,
    walk: &WalkPlan<'_>,
    region: &BlockPlan<'_>,
    range: Range<u64>,
    labels: &[S::Label],
    chans: &mut [S::Link],
    first_gate: u64,
    plan: Plan,
) -> Result<InstancesDone<S::Label>, ProtocolError> {
    let count = range.end - range.start;
    let (workers, inner_fgp) = workers(plan, count, region.body_ands, chans.len());
    let ranges = parts(range, workers, region.lockstep);
    let results: Vec<Result<PartDone<S::Label>, ProtocolError>> = if workers == 1 {
        vec![worker(
            side,
            walk,
            region,
            ranges[0].clone(),
            labels,
            &mut chans[0],
            first_gate,
            inner_fgp,
            plan,
        )]
    } else {
        // This thread runs the first part, the others one thread each:
        // this thread's core is awake, and a thread started now may wait
        // milliseconds for the other (idle) core of a VM, or share this one.
        let mut parts = ranges.iter().cloned();
        let first = parts.next().expect("a part per worker");
        let (mine, theirs) = chans[..workers]
            .split_first_mut()
            .expect("a link per worker");
        std::thread::scope(|s| {
            let handles: Vec<_> = theirs
                .iter_mut()
                .zip(parts)
                .map(|(chan, part)| {
                    s.spawn(move || {
                        worker(
                            side, walk, region, part, labels, chan, first_gate, inner_fgp, plan,
                        )
                    })
                })
                .collect();
            let mut results = vec![worker(
                side, walk, region, first, labels, mine, first_gate, inner_fgp, plan,
            )];
            results.extend(
                handles
                    .into_iter()
                    .map(|h| h.join().expect("region threads do not panic")),
            );
            results
        })
    };
    let mut done = InstancesDone {
        parts: Vec::with_capacity(workers),
        ands: 0,
    };
    for (range, result) in ranges.into_iter().zip(results) {
        let (out, ands) = result?;
        done.parts.push((range, out));
        done.ands += ands;
    }
    Ok(done)
}

/// Coarse-grained parallelism for the parallel blocks a walk meets inside
/// loops: the walk's own engine runs the first part of the instances, one
/// thread per further link the rest.
struct Cgp<'s, 'l, 'w, 'p, S: Side> {
    side: &'s S,
    walk: &'w WalkPlan<'p>,
    links: &'l mut [S::Link],
    plan: Plan,
}

impl<'c, S: Side> Hooks<S::Engine<'c>> for Cgp<'_, '_, '_, '_, S> {
    fn parallel(
        &mut self,
        walker: &mut Walker<'_, '_, S::Label>,
        region: &BlockPlan<'_>,
        parent: &mut [S::Label],
        engine: &mut S::Engine<'c>,
    ) -> Result<(), ProtocolError> {
        let count = region.block.count;
        let links = self.links.len() + 1;
        let (workers, inner_fgp) = workers(self.plan, count, region.body_ands, links);
        if workers == 1 {
            return walker.run_instances_in_place(region, 0..count, parent, engine, self);
        }
        let ranges = parts(0..count, workers, region.lockstep);
        let (side, walk, plan) = (self.side, self.walk, self.plan);
        let first = S::next_gate(engine);
        let labels: &[S::Label] = parent;
        let (mine, theirs) = std::thread::scope(|s| {
            let handles: Vec<_> = self
                .links
                .iter_mut()
                .zip(ranges[1..].iter().cloned())
                .map(|(chan, part)| {
                    s.spawn(move || {
                        worker(
                            side, walk, region, part, labels, chan, first, inner_fgp, plan,
                        )
                    })
                })
                .collect();
            let mut out = Vec::new();
            let mut none = Cgp {
                side,
                walk,
                links: &mut [],
                plan,
            };
            let mine = walker
                .run_instances(
                    region,
                    ranges[0].clone(),
                    labels,
                    engine,
                    &mut none,
                    &mut out,
                )
                .map(|()| out);
            let theirs: Vec<_> = handles
                .into_iter()
                .map(|h| h.join().expect("region threads do not panic"))
                .collect();
            (mine, theirs)
        });
        let mine = mine?;
        scatter_instances(region, ranges[0].clone(), &mine, parent);
        for (part, result) in ranges[1..].iter().zip(theirs) {
            let (out, _) = result?;
            scatter_instances(region, part.clone(), &out, parent);
        }
        engine.skip_ands((count - ranges[0].end) * region.body_ands);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use rand::SeedableRng;

    use twofold_circuit::synthetic::{layered, repeated};

    use super::*;

    /// A parallel block is split between threads only where each worker
    /// gets at least `REGION_PART` times the FGP threshold in AND gates:
    /// not Floyd–Warshall's regions of 2 to 24 instances of 84 AND gates,
    /// a sort's stage of 2,048 compare-swaps is; with the threshold at 1
    /// (the tests'), a region of two instances of `REGION_PART` AND gates
    /// is.
    #[test]
    fn regions_too_small_for_two_workers_run_on_one() {
        let cgp = Plan::new(Schedule::Cgp, 2);
        assert_eq!(workers(cgp, 24, 84, 2).0, 1);
        assert_eq!(workers(cgp, 2048, 64, 2).0, 2);
        let most = FGP_MIN_ANDS as u64 * REGION_PART;
        assert_eq!(workers(cgp, 2, most - 1, 2).0, 1);
        assert_eq!(workers(cgp, 2, most, 2).0, 2);
        let finest = Plan {
            fgp_min_ands: 1,
            ..cgp
        };
        assert_eq!(workers(finest, 2, REGION_PART, 2).0, 2);
        assert_eq!(workers(finest, 3, 0, 2).0, 1);
        // Never more workers than threads, links or instances.
        assert_eq!(workers(cgp, 1, 1 << 30, 2).0, 1);
        assert_eq!(workers(cgp, 2048, 64, 1).0, 1);
    }

    /// Parts tile the range, start at multiples of the lockstep width, and
    /// two workers get halves as near even as whole groups allow.
    #[test]
    fn parts_are_whole_groups_near_an_even_split() {
        assert_eq!(parts(0..16, 2, 4), [0..8, 8..16]);
        assert_eq!(parts(0..11, 2, 3), [0..6, 6..11]);
        // Groups of 5 (0..5, 5..10, 10..15, 15..16): 10 against 6 is the
        // nearest, not 5 against 11.
        assert_eq!(parts(0..16, 2, 5), [0..10, 10..16]);
        // A range that starts or ends inside a group (IPP's share).
        assert_eq!(parts(3..16, 2, 4), [3..8, 8..16]);
        assert_eq!(parts(7..9, 2, 4), [7..8, 8..9]);
        for (r, w, a) in [
            (0..1, 2, 1),
            (0..7, 3, 2),
            (0..512, 2, 16),
            (5..100, 4, 7),
            (3..6, 4, 1),
        ] {
            let ps = parts(r.clone(), w, a);
            assert_eq!(ps.len(), w);
            assert_eq!(ps.first().unwrap().start, r.start);
            assert_eq!(ps.last().unwrap().end, r.end);
            assert!(ps.iter().all(|p| p.start <= p.end));
            assert!(ps.windows(2).all(|p| p[0].end == p[1].start));
            assert!(ps[1..]
                .iter()
                .all(|p| p.start % a as u64 == 0 || p.is_empty()));
        }
    }

    /// Records, for every batch run, the AND-gate ids it used.
    struct Recorder(Mutex<Vec<(u64, u64)>>);

    struct Counting<'r> {
        next: u64,
        ands: u64,
        log: &'r Mutex<Vec<(u64, u64)>>,
    }

    impl Engine for Counting<'_> {
        type Label = bool;
        type Error = ProtocolError;
        fn run_gates(
            &mut self,
            gates: twofold_circuit::walk::Batch<'_>,
            labels: &mut [bool],
        ) -> Result<(), ProtocolError> {
            twofold_circuit::eval_gates(&gates, labels);
            let n = gates.iter().filter(|g| g.is_and()).count() as u64;
            self.log.lock().unwrap().push((self.next, self.next + n));
            self.next += n;
            self.ands += n;
            Ok(())
        }
        fn skip_ands(&mut self, n: u64) {
            self.next += n;
            self.ands += n;
        }
    }

    impl Side for Recorder {
        type Label = bool;
        type Link = ();
        type Engine<'c> = Counting<'c>;
        fn engine<'c>(
            &'c self,
            _: &'c mut (),
            first_gate: u64,
            _: Fgp,
        ) -> Result<Counting<'c>, ProtocolError> {
            Ok(Counting {
                next: first_gate,
                ands: 0,
                log: &self.0,
            })
        }
        fn finish(e: Counting<'_>) -> Result<u64, ProtocolError> {
            Ok(e.ands)
        }
        fn next_gate(e: &Counting<'_>) -> u64 {
            e.next
        }
    }

    #[test]
    fn gate_ids_are_unique_across_threads_blocks_and_instances() {
        let body = layered(40, 3, 8, 1);
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let mixed = twofold_testkit::random_program(&mut rng, 3, 200);
        assert!(mixed.main_overlapped().during_ands(&mixed, 0) > 0);
        let mut programs = vec![repeated(&body, 7), mixed];
        // Loops with parallel blocks inside (split by the walk's hooks).
        while programs.len() < 40 {
            let p = twofold_testkit::random_block_program(&mut rng, 3);
            if p.and_count() > 0 {
                programs.push(p);
            }
        }
        for (program, overlapped) in programs.iter().flat_map(|p| [(p, false), (p, true)]) {
            let order = match overlapped {
                true => program.main_overlapped(),
                false => program.main_in_order(),
            };
            gate_ids_tile(program, &order);
        }
    }

    fn gate_ids_tile(program: &Program, order: &MainOrder) {
        let total = program.and_count();
        let walk = WalkPlan::of(program);
        for schedule in Schedule::ALL {
            for threads in 1..=4 {
                let recorder = Recorder(Mutex::new(Vec::new()));
                let mut chans = vec![(); schedule.channels(threads as u32)];
                let inputs = vec![false; program.main.input_bits()];
                let (_, ands) = run_program_arranged(
                    &recorder,
                    &walk,
                    order,
                    &inputs,
                    &mut chans,
                    Plan::new(schedule, threads),
                )
                .unwrap();
                assert_eq!(ands, total);
                // The ids of all batches tile [0, total) without overlap.
                let mut ranges = recorder.0.into_inner().unwrap();
                ranges.retain(|(a, b)| a != b);
                ranges.sort();
                let mut at = 0;
                for (start, end) in ranges {
                    assert_eq!(
                        start,
                        at,
                        "{} x{threads}: ids overlap or leave a gap",
                        schedule.name()
                    );
                    at = end;
                }
                assert_eq!(at, total);
            }
        }
    }
}
