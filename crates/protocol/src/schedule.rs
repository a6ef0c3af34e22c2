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

use twofold_circuit::program::{for_each_batch, InstanceRunner};
use twofold_circuit::{Engine, Gate, MainOrder, Program, Region};

use crate::engine::{Fgp, FGP_MIN_ANDS};
use crate::error::ProtocolError;

/// How the work is spread over threads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum Schedule {
    /// One thread.
    Sequential = 0,
    /// Fine-grained: AND levels split between threads.
    Fgp = 1,
    /// Coarse-grained: region instances split between threads.
    Cgp = 2,
    /// CGP where regions exist, FGP elsewhere.
    #[default]
    Auto = 3,
}

impl Schedule {
    /// All schedules.
    pub const ALL: [Schedule; 4] = [
        Schedule::Sequential,
        Schedule::Fgp,
        Schedule::Cgp,
        Schedule::Auto,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Schedule::Sequential => "seq",
            Schedule::Fgp => "fgp",
            Schedule::Cgp => "cgp",
            Schedule::Auto => "auto",
        }
    }

    pub(crate) fn from_byte(b: u8) -> Option<Schedule> {
        Schedule::ALL.into_iter().find(|s| *s as u8 == b)
    }

    /// How many channels a session with `threads` threads opens.
    pub fn channels(self, threads: u32) -> usize {
        match self {
            Schedule::Cgp | Schedule::Auto => threads.max(1) as usize,
            Schedule::Sequential | Schedule::Fgp => 1,
        }
    }
}

/// How one party spreads its work: the schedule, the threads, and the
/// narrowest AND level FGP splits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The scheduler.
    pub schedule: Schedule,
    /// Threads (at least 1).
    pub threads: usize,
    /// AND runs shorter than this are not split (FGP).
    pub fgp_min_ands: usize,
}

impl Plan {
    /// `schedule` on `threads` threads with the measured FGP threshold.
    pub fn new(schedule: Schedule, threads: usize) -> Plan {
        Plan {
            schedule,
            threads: threads.max(1),
            fgp_min_ands: FGP_MIN_ANDS,
        }
    }

    fn fgp(self, threads: usize) -> Fgp {
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
    fn main_fgp(self) -> Fgp {
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
    ) -> Self::Engine<'c>;
    /// Flushes or checks what the engine still holds; returns its AND count.
    fn finish(engine: Self::Engine<'_>) -> Result<u64, ProtocolError>;
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
    run_program_arranged(side, program, &program.main_in_order(), inputs, chans, plan)
}

/// [`run_program`] with the main gates arranged as `order`: the gates during
/// a region run after its instances, before their outputs are written back.
pub(crate) fn run_program_arranged<S: Side>(
    side: &S,
    program: &Program,
    order: &MainOrder,
    inputs: &[S::Label],
    chans: &mut [S::Link],
    plan: Plan,
) -> Result<(Vec<S::Label>, u64), ProtocolError> {
    run_program_with(
        side,
        program,
        order,
        inputs,
        chans,
        plan,
        |region, during, labels, first_gate, chans| {
            run_region_whole(side, region, during, labels, chans, first_gate, plan)
        },
    )
}

/// Runs all instances of `region` (split between threads as `plan` says),
/// then the main gates `during` it, then writes the region's outputs; the
/// gates during it take the AND-gate ids after the region's. Returns the
/// AND gates done.
pub(crate) fn run_region_whole<S: Side>(
    side: &S,
    region: &Region,
    during: &[Gate],
    labels: &mut [S::Label],
    chans: &mut [S::Link],
    first_gate: u64,
    plan: Plan,
) -> Result<u64, ProtocolError> {
    let n = region.instances.len();
    let (outputs, ands) = run_region_part(side, region, 0..n, labels, chans, first_gate, plan)?;
    let during_first = first_gate + region_ands(region);
    let more = run_main_gates(side, during, labels, &mut chans[0], during_first, plan)?;
    scatter_outputs(region, 0..n, &outputs, labels);
    Ok(ands + more)
}

/// The AND gates of all instances of `region`.
pub(crate) fn region_ands(region: &Region) -> u64 {
    region.body.and_count() as u64 * region.instances.len() as u64
}

/// [`run_program`] with the main gates arranged as `order` and the regions
/// run by `run_region` (inter-party parallelism runs them differently). It
/// is called with a region, the main gates that may run during it, the
/// labels, the region's first AND-gate id and the links; it runs both and
/// returns their AND count. The gates during region `k` take the ids after
/// the region's.
pub(crate) fn run_program_with<S: Side>(
    side: &S,
    program: &Program,
    order: &MainOrder,
    inputs: &[S::Label],
    chans: &mut [S::Link],
    plan: Plan,
    mut run_region: impl FnMut(
        &Region,
        &[Gate],
        &mut [S::Label],
        u64,
        &mut [S::Link],
    ) -> Result<u64, ProtocolError>,
) -> Result<(Vec<S::Label>, u64), ProtocolError> {
    let main = &program.main;
    let mut labels = vec![S::Label::default(); main.num_wires as usize];
    labels[..inputs.len()].copy_from_slice(inputs);
    // Every AND gate takes the next id: the count so far is the next id.
    let mut ands = 0u64;
    for (k, region) in program.regions.iter().enumerate() {
        let before = &order.before[k];
        ands += run_main_gates(side, before, &mut labels, &mut chans[0], ands, plan)?;
        ands += run_region(region, &order.during[k], &mut labels, ands, chans)?;
    }
    let last = &order.before[program.regions.len()];
    ands += run_main_gates(side, last, &mut labels, &mut chans[0], ands, plan)?;
    Ok((
        main.output_wires().map(|w| labels[w as usize]).collect(),
        ands,
    ))
}

/// Runs main gates on one engine (with FGP as `plan` says) whose first AND
/// gate has id `first_gate`; returns their AND count.
pub(crate) fn run_main_gates<S: Side>(
    side: &S,
    gates: &[Gate],
    labels: &mut [S::Label],
    chan: &mut S::Link,
    first_gate: u64,
    plan: Plan,
) -> Result<u64, ProtocolError> {
    if gates.is_empty() {
        return Ok(0);
    }
    let mut engine = side.engine(chan, first_gate, plan.main_fgp());
    for_each_batch(gates, labels.len() as u32, |batch| {
        engine.run_gates(batch, labels)
    })?;
    S::finish(engine)
}

/// The output labels of some instances, instance after instance, and their
/// AND count.
type InstancesDone<L> = (Vec<L>, u64);

/// Runs the instances `range` of `region` on one engine.
fn run_instances<S: Side>(
    side: &S,
    region: &Region,
    range: Range<usize>,
    labels: &[S::Label],
    chan: &mut S::Link,
    first_gate: u64,
    fgp: Fgp,
) -> Result<InstancesDone<S::Label>, ProtocolError> {
    let mut outputs = Vec::with_capacity(range.len() * region.body.output_bits());
    let mut engine = side.engine(chan, first_gate, fgp);
    let mut runner = InstanceRunner::new(region);
    for group in runner.groups(&region.instances[range]) {
        runner.run(&mut engine, group, labels, &mut outputs)?;
    }
    let ands = S::finish(engine)?;
    Ok((outputs, ands))
}

/// Runs the instances `range` of `region`, reading their inputs from
/// `labels` (indexed by main wire), split between threads as `plan` says
/// (CGP), one link per thread. Instance `i` starts at AND-gate id
/// `first_gate + i * body_ands`. Returns the instances' output labels,
/// instance after instance.
pub(crate) fn run_region_part<S: Side>(
    side: &S,
    region: &Region,
    range: Range<usize>,
    labels: &[S::Label],
    chans: &mut [S::Link],
    first_gate: u64,
    plan: Plan,
) -> Result<InstancesDone<S::Label>, ProtocolError> {
    let n = range.len();
    let body_ands = region.body.and_count() as u64;
    let workers = match plan.schedule {
        Schedule::Cgp | Schedule::Auto => plan.threads.min(n).min(chans.len()).max(1),
        Schedule::Sequential | Schedule::Fgp => 1,
    };
    // One worker: the instances run in turn, with FGP inside unless sequential.
    let inner_fgp = match plan.schedule {
        Schedule::Sequential => Fgp::OFF,
        _ if workers == 1 => plan.fgp(plan.threads),
        _ => Fgp::OFF,
    };
    let ranges: Vec<Range<usize>> = (0..workers)
        .map(|k| range.start + n * k / workers..range.start + n * (k + 1) / workers)
        .collect();
    let results: Vec<Result<InstancesDone<S::Label>, ProtocolError>> = if workers == 1 {
        let first = first_gate + range.start as u64 * body_ands;
        vec![run_instances(
            side,
            region,
            range.clone(),
            labels,
            &mut chans[0],
            first,
            inner_fgp,
        )]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = chans[..workers]
                .iter_mut()
                .zip(ranges.iter().cloned())
                .map(|(chan, part)| {
                    let first = first_gate + part.start as u64 * body_ands;
                    s.spawn(move || {
                        run_instances(side, region, part, labels, chan, first, inner_fgp)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("region threads do not panic"))
                .collect()
        })
    };
    let mut outputs = Vec::with_capacity(n * region.body.output_bits());
    let mut ands = 0;
    for result in results {
        let (part, done) = result?;
        outputs.extend(part);
        ands += done;
    }
    Ok((outputs, ands))
}

/// Writes the output labels of the instances `range` (instance after
/// instance) to their main wires.
pub(crate) fn scatter_outputs<L: Copy>(
    region: &Region,
    range: Range<usize>,
    outputs: &[L],
    labels: &mut [L],
) {
    let wires = region.instances[range]
        .iter()
        .flat_map(|inst| inst.outputs.iter());
    for (&w, &l) in wires.zip(outputs) {
        labels[w as usize] = l;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use rand::SeedableRng;

    use twofold_circuit::synthetic::{layered, repeated};

    use super::*;

    /// Records, for every engine made, the AND-gate ids it used.
    struct Recorder(Mutex<Vec<(u64, u64)>>);

    struct Counting<'r> {
        first: u64,
        ands: u64,
        log: &'r Mutex<Vec<(u64, u64)>>,
    }

    impl Engine for Counting<'_> {
        type Label = bool;
        type Error = ProtocolError;
        fn run_gates(&mut self, gates: &[Gate], labels: &mut [bool]) -> Result<(), ProtocolError> {
            twofold_circuit::eval_gates(gates, labels);
            self.ands += gates.iter().filter(|g| g.is_and()).count() as u64;
            Ok(())
        }
    }

    impl Side for Recorder {
        type Label = bool;
        type Link = ();
        type Engine<'c> = Counting<'c>;
        fn engine<'c>(&'c self, _: &'c mut (), first_gate: u64, _: Fgp) -> Counting<'c> {
            Counting {
                first: first_gate,
                ands: 0,
                log: &self.0,
            }
        }
        fn finish(e: Counting<'_>) -> Result<u64, ProtocolError> {
            e.log.lock().unwrap().push((e.first, e.first + e.ands));
            Ok(e.ands)
        }
    }

    #[test]
    fn gate_ids_are_unique_across_threads_regions_and_instances() {
        let body = layered(40, 3, 8, 1);
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let mixed = twofold_testkit::random_program(&mut rng, 3, 200);
        let programs = [repeated(&body, 7), mixed];
        assert!(programs[1].main_overlapped().during_ands(0) > 0);
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
        for schedule in Schedule::ALL {
            for threads in 1..=4 {
                let recorder = Recorder(Mutex::new(Vec::new()));
                let mut chans = vec![(); schedule.channels(threads as u32)];
                let inputs = vec![false; program.main.input_bits()];
                let (_, ands) = run_program_arranged(
                    &recorder,
                    program,
                    order,
                    &inputs,
                    &mut chans,
                    Plan::new(schedule, threads),
                )
                .unwrap();
                assert_eq!(ands, total);
                // The id ranges of all engines tile [0, total) without overlap.
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
