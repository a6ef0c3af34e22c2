//! The one executor of programs: it walks the block tree and streams gates
//! to an [`Engine`] (plaintext, garbler, evaluator, or anything else that
//! interprets gates), holding only the frames of the blocks being run —
//! never the unrolled circuit.
//!
//! Gates are handed to the engine in batches: within every maximal run of
//! consecutive AND gates of a batch, no AND reads another's output, so the
//! engine can hash the run at once. Instances of a parallel block whose body
//! is narrow run several at a time in lockstep (their copies of the body
//! advance segment by segment), so the engine still gets full batches; the
//! same lanes carry through loops nested in the body.

use std::ops::Range;

use crate::batch::LaneCopies;
pub use crate::batch::{for_each_batch, Batch, Batches};
use crate::circuit::{flatten_inputs, split_outputs, Circuit, OutputValue};
use crate::gate::{Gate, Wire};
use crate::program::{Block, Frame, Program};
use crate::CircuitError;

/// An interpreter of gates over labels of some kind: plaintext bits, garbler
/// 0-labels, evaluator active labels, or anything else that walks a circuit.
pub trait Engine {
    /// What a wire holds for this interpreter.
    type Label: Copy + Default;
    /// What can go wrong (a network error, say).
    type Error;
    /// Runs the gates of `batch` (topologically ordered) over `labels`,
    /// indexed by wire. Within every maximal run of consecutive AND gates,
    /// no AND reads or writes a wire another AND of the run writes (see
    /// [`Batch`]): each run can be hashed at once, or split between
    /// threads.
    fn run_gates(
        &mut self,
        batch: Batch<'_>,
        labels: &mut [Self::Label],
    ) -> Result<(), Self::Error>;
    /// The next `n` AND gates (in execution order) run elsewhere (on another
    /// engine, see [`Hooks`]): this engine's next AND gate comes after them.
    fn skip_ands(&mut self, n: u64);
}

/// The plaintext interpreter.
pub struct PlainEngine;

impl Engine for PlainEngine {
    type Label = bool;
    type Error = std::convert::Infallible;
    fn run_gates(&mut self, batch: Batch<'_>, labels: &mut [bool]) -> Result<(), Self::Error> {
        crate::circuit::eval_gates(&batch, labels);
        Ok(())
    }
    fn skip_ands(&mut self, _: u64) {}
}

/// An interpreter that records the gates it is given as one flat circuit in
/// single assignment: its labels are the wires of that circuit (see
/// [`Program::unrolled`]).
#[derive(Debug, Default)]
pub struct Recorder {
    /// The gates recorded, over wires `0..next`.
    pub gates: Vec<Gate>,
    /// The next fresh wire.
    pub next: Wire,
}

impl Engine for Recorder {
    type Label = Wire;
    type Error = std::convert::Infallible;
    fn run_gates(&mut self, batch: Batch<'_>, labels: &mut [Wire]) -> Result<(), Self::Error> {
        for g in batch.gates() {
            let out = self.next;
            self.next += 1;
            self.gates.push(g.rewire(|w| labels[w as usize], out));
            labels[g.out() as usize] = out;
        }
        Ok(())
    }
    fn skip_ands(&mut self, _: u64) {}
}

/// What the walker needs of a frame, computed once per program: where its
/// gates are cut into batches and lockstep segments, and the plans of its
/// blocks.
#[derive(Debug)]
pub struct Plan<'p> {
    /// The frame.
    pub frame: Frame<'p>,
    batches: Batches<'p>,
    /// Lockstep segments: maximal runs of AND gates (no AND reading another
    /// of the run) or of free gates, never across a block.
    segments: Vec<Range<usize>>,
    /// The plans of the frame's blocks, in order.
    pub blocks: Vec<BlockPlan<'p>>,
    /// The lanes of the segments for the width this frame runs at in
    /// lockstep (a parallel block's body, and the loops inside it), made
    /// once for every walker and group, if they are small enough to keep.
    lanes: Option<LaneCopies>,
}

/// A block of a [`Plan`], with what running it needs.
#[derive(Debug)]
pub struct BlockPlan<'p> {
    /// The block.
    pub block: &'p Block,
    /// The plan of its body.
    pub body: Plan<'p>,
    /// How many instances of a parallel block run in lockstep.
    pub lockstep: usize,
    /// AND gates of one iteration.
    pub body_ands: u64,
    /// The body's output wires, value after value.
    outputs: Vec<Wire>,
    /// Index of the walker's scratch buffers for this block.
    id: usize,
}

impl<'p> Plan<'p> {
    /// The plan of a whole program.
    pub fn of(program: &'p Program) -> Plan<'p> {
        let mut next_id = 0;
        Plan::of_frame(program.frame(), &mut next_id, 1)
    }

    /// The plan of `frame`, which runs on `lanes` lanes at most.
    fn of_frame(frame: Frame<'p>, next_id: &mut usize, lanes: usize) -> Plan<'p> {
        let c = frame.circuit;
        let positions: Vec<usize> = frame.blocks.iter().map(|b| b.position).collect();
        let batches = Batches::of(&c.gates, c.num_wires, &positions);
        let mut segments: Vec<Range<usize>> = Vec::new();
        let mut cuts = batches.cuts.iter().peekable();
        let mut forced = positions.iter().peekable();
        for (i, g) in c.gates.iter().enumerate() {
            let mut cut = cuts.next_if(|&&k| k == i).is_some();
            while forced.next_if(|&&p| p <= i).is_some() {
                cut = true;
            }
            match segments.last_mut() {
                Some(last) if !cut && c.gates[last.start].is_and() == g.is_and() => {
                    last.end = i + 1
                }
                _ => segments.push(i..i + 1),
            }
        }
        batches.check_and_segments(&segments);
        let copies = (lanes > 1)
            .then(|| batches.lane_copies(&segments, lanes))
            .flatten();
        let blocks = frame
            .blocks
            .iter()
            .map(|block| {
                let id = *next_id;
                *next_id += 1;
                let width = lockstep(block);
                // A parallel block runs its instances in lockstep groups
                // unless it is inside one (then it iterates, as loops do,
                // on its parent's lanes).
                let body_lanes = if lanes == 1 { width } else { lanes };
                let body = Plan::of_frame(block.frame(), next_id, body_lanes);
                BlockPlan {
                    block,
                    lockstep: width,
                    body_ands: block.body_ands(),
                    outputs: block.body.circuit.output_wires().collect(),
                    body,
                    id,
                }
            })
            .collect();
        Plan {
            frame,
            batches,
            segments,
            blocks,
            lanes: copies,
        }
    }

    /// Calls `f` on every batch of the frame's own gates (not its
    /// blocks'), as a walk on one lane hands them to an engine.
    pub fn for_each_batch(&self, mut f: impl FnMut(Batch<'_>)) {
        let all = 0..self.frame.circuit.gates.len();
        let _ = self.batches.for_each_in(all, |batch| {
            f(batch);
            Ok::<(), std::convert::Infallible>(())
        });
    }

    /// Number of blocks in the whole tree (the walker's scratch slots).
    fn block_count(&self) -> usize {
        self.blocks
            .iter()
            .map(|b| 1 + b.body.block_count())
            .sum::<usize>()
    }
}

/// How many instances of a parallel block run in lockstep: bodies whose AND
/// levels are narrow (median under 32 gates) run up to 16 at a time, so the
/// levels become a few hundred gates wide, as long as the group's labels
/// stay within 256 KiB (cache-sized); wider bodies run one at a time (their
/// batches are full already, and more copies only crowd the caches). The
/// groups are made even in number and size (see `even_groups`).
pub fn lockstep(block: &Block) -> usize {
    if !block.parallel {
        return 1;
    }
    let body = &block.body.circuit;
    let median = crate::levels::CircuitStats::of(body)
        .median_ands_per_level()
        .max(1);
    let group = if median < 32 {
        (512 / median).min(16)
    } else {
        1
    };
    let fits = (16384 / body.num_wires.max(1) as usize).max(1);
    let count = usize::try_from(block.count).unwrap_or(usize::MAX);
    even_groups(count, group.min(fits))
}

/// The lockstep width for `count` instances at most `width` wide: the
/// widest that still splits the instances evenly between two threads.
/// Groups are where threads may split a region (see `protocol::schedule`),
/// so the group boundary nearest half the instances must be within 1/32 of
/// the instances of it (16 instances at most 3 wide are groups of 2, not
/// of 3 that split 9 against 7); there are at least two groups.
fn even_groups(count: usize, width: usize) -> usize {
    let half = count as u64 / 2;
    let off_half = |w: usize| nearest_group_boundary(half, w as u64).abs_diff(half);
    (1..=width.min(count / 2))
        .rev()
        .find(|&w| 32 * off_half(w) <= count as u64)
        .unwrap_or(1)
}

/// The boundary of lockstep groups `width` wide (a multiple of `width`)
/// nearest instance `x`, the lower one on a tie: where threads cut a
/// region's instances (`protocol::schedule`), and so what
/// [`lockstep`] keeps near an even split.
pub fn nearest_group_boundary(x: u64, width: u64) -> u64 {
    let width = width.max(1);
    let below = x - x % width;
    if x - below > below + width - x {
        below + width
    } else {
        below
    }
}

/// Decides who runs the instances of the parallel blocks a walk meets
/// outside lockstep (the coarse-grained scheduler splits them between
/// threads); [`InOrder`] runs them on the walk's own engine.
pub trait Hooks<E: Engine> {
    /// Runs every instance of the parallel block `block`, reading its inputs
    /// from and writing its outputs to `parent`; `walker` and `engine` are
    /// the walk's own (its next AND gate is the block's first).
    fn parallel(
        &mut self,
        walker: &mut Walker<'_, '_, E::Label>,
        block: &BlockPlan<'_>,
        parent: &mut [E::Label],
        engine: &mut E,
    ) -> Result<(), E::Error>;
}

/// Runs every parallel block's instances in order on the walk's engine.
pub struct InOrder;

impl<E: Engine> Hooks<E> for InOrder {
    fn parallel(
        &mut self,
        walker: &mut Walker<'_, '_, E::Label>,
        block: &BlockPlan<'_>,
        parent: &mut [E::Label],
        engine: &mut E,
    ) -> Result<(), E::Error> {
        walker.run_instances_in_place(block, 0..block.block.count, parent, engine, self)
    }
}

/// Scratch buffers of one block.
#[derive(Default)]
struct Scratch<L> {
    frames: Vec<L>,
    carried: Vec<L>,
}

/// Walks a program's [`Plan`]; holds the frames of the blocks being run.
pub struct Walker<'a, 'p, L> {
    plan: &'a Plan<'p>,
    scratch: Vec<Scratch<L>>,
    /// The lanes of a segment of a body whose copies are not kept.
    combined: Vec<Gate>,
}

impl<'a, 'p, L: Copy + Default> Walker<'a, 'p, L> {
    /// A walker of `plan`.
    pub fn new(plan: &'a Plan<'p>) -> Self {
        Walker {
            plan,
            scratch: (0..plan.block_count())
                .map(|_| Scratch::default())
                .collect(),
            combined: Vec::new(),
        }
    }

    /// The plan this walker walks.
    pub fn plan(&self) -> &'a Plan<'p> {
        self.plan
    }

    /// Runs the whole program with `engine`: `inputs` holds one label per
    /// input bit; returns one label per output bit, value after value.
    pub fn run<E: Engine<Label = L>>(
        &mut self,
        engine: &mut E,
        inputs: &[L],
        hooks: &mut impl Hooks<E>,
    ) -> Result<Vec<L>, E::Error> {
        let main = self.plan.frame.circuit;
        assert_eq!(inputs.len(), main.input_bits(), "one label per input bit");
        let mut labels = vec![L::default(); main.num_wires as usize];
        labels[..inputs.len()].copy_from_slice(inputs);
        let plan = self.plan;
        self.frame(plan, &mut labels, 1, engine, hooks)?;
        Ok(main.output_wires().map(|w| labels[w as usize]).collect())
    }

    /// Runs the main frame's gates `range` (between blocks) on `labels`.
    pub fn main_gates<E: Engine<Label = L>>(
        &mut self,
        range: Range<usize>,
        labels: &mut [L],
        engine: &mut E,
    ) -> Result<(), E::Error> {
        let plan = self.plan;
        self.gates(plan, range, labels, 1, engine)
    }

    /// Runs main block `index` (on one lane) with `engine` and `hooks`.
    pub fn main_block<E: Engine<Label = L>>(
        &mut self,
        index: usize,
        labels: &mut [L],
        engine: &mut E,
        hooks: &mut impl Hooks<E>,
    ) -> Result<(), E::Error> {
        let plan = self.plan;
        self.block(&plan.blocks[index], labels, 1, engine, hooks)
    }

    /// Runs a frame over `labels`, `lanes` copies of it side by side (lane
    /// `r` at `labels[r * num_wires..]`) in lockstep.
    fn frame<E: Engine<Label = L>>(
        &mut self,
        plan: &Plan<'_>,
        labels: &mut [L],
        lanes: usize,
        engine: &mut E,
        hooks: &mut impl Hooks<E>,
    ) -> Result<(), E::Error> {
        let mut at = 0;
        for bp in &plan.blocks {
            self.gates(plan, at..bp.block.position, labels, lanes, engine)?;
            at = bp.block.position;
            self.block(bp, labels, lanes, engine, hooks)?;
        }
        self.gates(
            plan,
            at..plan.frame.circuit.gates.len(),
            labels,
            lanes,
            engine,
        )
    }

    fn block<E: Engine<Label = L>>(
        &mut self,
        bp: &BlockPlan<'_>,
        labels: &mut [L],
        lanes: usize,
        engine: &mut E,
        hooks: &mut impl Hooks<E>,
    ) -> Result<(), E::Error> {
        if bp.block.parallel && lanes == 1 {
            hooks.parallel(self, bp, labels, engine)
        } else {
            self.iterate(bp, labels, lanes, engine, hooks)
        }
    }

    /// Runs the gates `range` of a frame (a range between blocks).
    fn gates<E: Engine<Label = L>>(
        &mut self,
        plan: &Plan<'_>,
        range: Range<usize>,
        labels: &mut [L],
        lanes: usize,
        engine: &mut E,
    ) -> Result<(), E::Error> {
        if range.is_empty() {
            return Ok(());
        }
        if lanes == 1 {
            return plan
                .batches
                .for_each_in(range, |batch| engine.run_gates(batch, labels));
        }
        let nw = plan.frame.circuit.num_wires as usize;
        let first = plan.segments.partition_point(|s| s.start < range.start);
        for (i, seg) in plan.segments.iter().enumerate().skip(first) {
            if seg.start >= range.end {
                break;
            }
            // The lanes' copies of a segment form one batch.
            let copies = match &plan.lanes {
                Some(copies) if lanes <= copies.lanes() => copies.batch(i, lanes),
                _ => None,
            };
            if let Some(batch) = copies {
                engine.run_gates(batch, labels)?;
            } else if plan.frame.circuit.gates[seg.start].is_and() {
                let batch = plan.batches.lanes(seg.clone(), lanes, &mut self.combined);
                engine.run_gates(batch, labels)?;
            } else {
                let part = plan.batches.free_gates(seg.clone());
                for lane in labels.chunks_exact_mut(nw).take(lanes) {
                    engine.run_gates(part, lane)?;
                }
            }
        }
        Ok(())
    }

    /// Runs all iterations of a block one after another, each on `lanes`
    /// lanes (the lanes of the enclosing frame).
    fn iterate<E: Engine<Label = L>>(
        &mut self,
        bp: &BlockPlan<'_>,
        parent: &mut [L],
        lanes: usize,
        engine: &mut E,
        hooks: &mut impl Hooks<E>,
    ) -> Result<(), E::Error> {
        let b = bp.block;
        let cnw = b.body.circuit.num_wires as usize;
        let pnw = parent.len() / lanes;
        let (s, c) = (b.shared.len(), b.carried.len());
        let mut sc = std::mem::take(&mut self.scratch[bp.id]);
        sc.frames.clear();
        sc.frames.resize(lanes * cnw, L::default());
        sc.carried.clear();
        for p in parent.chunks_exact(pnw).take(lanes) {
            sc.carried
                .extend(b.carried.iter().map(|v| p[v.init as usize]));
        }
        let result = (|| {
            for k in 0..b.count {
                for (r, (f, p)) in sc
                    .frames
                    .chunks_exact_mut(cnw)
                    .zip(parent.chunks_exact(pnw))
                    .enumerate()
                {
                    for (slot, &w) in f.iter_mut().zip(&b.shared) {
                        *slot = p[w as usize];
                    }
                    f[s..s + c].copy_from_slice(&sc.carried[r * c..(r + 1) * c]);
                    b.inputs.gather(k, p, &mut f[s + c..]);
                }
                self.frame(&bp.body, &mut sc.frames, lanes, engine, hooks)?;
                for (r, (f, p)) in sc
                    .frames
                    .chunks_exact(cnw)
                    .zip(parent.chunks_exact_mut(pnw))
                    .enumerate()
                {
                    scatter_outputs(bp, k, f, p);
                    for (slot, v) in sc.carried[r * c..(r + 1) * c].iter_mut().zip(&b.carried) {
                        *slot = f[v.next as usize];
                    }
                }
            }
            Ok(())
        })();
        if result.is_ok() {
            for (r, p) in parent.chunks_exact_mut(pnw).take(lanes).enumerate() {
                for (v, &l) in b.carried.iter().zip(&sc.carried[r * c..(r + 1) * c]) {
                    if let Some(w) = v.last {
                        p[w as usize] = l;
                    }
                }
            }
        }
        self.scratch[bp.id] = sc;
        result
    }

    /// Runs the instances `range` of a parallel block, a lockstep group at a
    /// time, reading their inputs from `parent` (one lane, indexed by wire)
    /// and writing their outputs there.
    pub fn run_instances_in_place<E: Engine<Label = L>>(
        &mut self,
        bp: &BlockPlan<'_>,
        range: Range<u64>,
        parent: &mut [L],
        engine: &mut E,
        hooks: &mut impl Hooks<E>,
    ) -> Result<(), E::Error> {
        self.run_instance_groups(bp, range, parent, engine, hooks, |k, frame, parent| {
            scatter_outputs(bp, k, frame, parent)
        })
    }

    /// Runs the instances `range` of a parallel block like
    /// [`Walker::run_instances_in_place`] but leaves `parent` as it is: the
    /// outputs are appended to `out`, instance after instance (for threads
    /// that share `parent`; see [`scatter_instances`]).
    pub fn run_instances<E: Engine<Label = L>>(
        &mut self,
        bp: &BlockPlan<'_>,
        range: Range<u64>,
        parent: &[L],
        engine: &mut E,
        hooks: &mut impl Hooks<E>,
        out: &mut Vec<L>,
    ) -> Result<(), E::Error> {
        let outputs = &bp.outputs;
        let mut parent = parent;
        self.run_instance_groups(bp, range, &mut parent, engine, hooks, |_, frame, _| {
            out.extend(outputs.iter().map(|&w| frame[w as usize]))
        })
    }

    /// Runs the instances `range` of a parallel block in lockstep groups
    /// (aligned to multiples of the group width), calling
    /// `done(k, frame, parent)` for each instance `k` after its group.
    fn run_instance_groups<E: Engine<Label = L>, P: AsRef<[L]> + ?Sized>(
        &mut self,
        bp: &BlockPlan<'_>,
        range: Range<u64>,
        parent: &mut P,
        engine: &mut E,
        hooks: &mut impl Hooks<E>,
        mut done: impl FnMut(u64, &[L], &mut P),
    ) -> Result<(), E::Error> {
        let b = bp.block;
        let cnw = b.body.circuit.num_wires as usize;
        let s = b.shared.len();
        let mut sc = std::mem::take(&mut self.scratch[bp.id]);
        let result = (|| {
            let mut k = range.start;
            while k < range.end {
                // Groups start at multiples of the lockstep width, whatever
                // the range: a gate's place in its group (and so its id)
                // does not depend on where a thread's share begins.
                let lanes = bp.lockstep as u64;
                let group = (lanes - k % lanes).min(range.end - k) as usize;
                // (The last group's labels are kept, not cleared: every
                // wire a body reads is an input or written before it is
                // read, in a valid program.)
                sc.frames.resize(group * cnw, L::default());
                for (r, f) in sc.frames.chunks_exact_mut(cnw).enumerate() {
                    let p = parent.as_ref();
                    for (slot, &w) in f.iter_mut().zip(&b.shared) {
                        *slot = p[w as usize];
                    }
                    b.inputs.gather(k + r as u64, p, &mut f[s..]);
                }
                self.frame(&bp.body, &mut sc.frames, group, engine, hooks)?;
                for (r, f) in sc.frames.chunks_exact(cnw).enumerate() {
                    done(k + r as u64, f, parent);
                }
                k += group as u64;
            }
            Ok(())
        })();
        self.scratch[bp.id] = sc;
        result
    }
}

/// Writes iteration `k`'s outputs from its body frame to the parent.
fn scatter_outputs<L: Copy>(bp: &BlockPlan<'_>, k: u64, frame: &[L], parent: &mut [L]) {
    bp.block
        .outputs
        .for_each(k, |j, w| parent[w as usize] = frame[bp.outputs[j] as usize]);
}

/// Writes the outputs of the instances `range` (as collected by
/// [`Walker::run_instances`], instance after instance) to their wires.
pub fn scatter_instances<L: Copy>(
    bp: &BlockPlan<'_>,
    range: Range<u64>,
    outputs: &[L],
    parent: &mut [L],
) {
    let width = bp.outputs.len();
    for (k, out) in range.zip(outputs.chunks_exact(width.max(1))) {
        bp.block.outputs.scatter(k, out, parent);
    }
}

/// The circuit a frame runs, for callers that need its wires.
impl Plan<'_> {
    /// The frame's circuit.
    pub fn circuit(&self) -> &Circuit {
        self.frame.circuit
    }
}

/// Running a whole program: with any engine, as a flat circuit, in plain.
impl Program {
    /// Runs the program with `engine` on one label per input bit; returns one
    /// label per output bit, value after value (see [`Walker`]).
    pub fn run<E: Engine>(
        &self,
        engine: &mut E,
        inputs: &[E::Label],
    ) -> Result<Vec<E::Label>, E::Error>
    where
        E::Label: Send + Sync,
    {
        let plan = Plan::of(self);
        Walker::new(&plan).run(engine, inputs, &mut InOrder)
    }

    /// The program with every block unrolled: one flat circuit computing the
    /// same function (its size is the number of gates the program executes;
    /// for tests and for exporting to other tools).
    pub fn unrolled(&self) -> Circuit {
        let n = self.main.input_bits() as Wire;
        let mut recorder = Recorder {
            gates: Vec::new(),
            next: n,
        };
        let inputs: Vec<Wire> = (0..n).collect();
        let outputs = self
            .run(&mut recorder, &inputs)
            .unwrap_or_else(|never| match never {});
        let mut at = 0;
        let flat = Circuit {
            num_wires: recorder.next,
            inputs: self.main.inputs.clone(),
            outputs: self
                .main
                .outputs
                .iter()
                .map(|v| {
                    let wires = outputs[at..at + v.wires.len()].to_vec();
                    at += v.wires.len();
                    OutputValue {
                        name: v.name.clone(),
                        wires,
                    }
                })
                .collect(),
            gates: recorder.gates,
        };
        flat.compact_ssa()
    }

    /// Plaintext evaluation: one bit vector per input value in, one per output
    /// value out.
    pub fn eval(&self, inputs: &[Vec<bool>]) -> Result<Vec<Vec<bool>>, CircuitError> {
        let flat = flatten_inputs(&self.main, inputs)?;
        let out = self
            .run(&mut PlainEngine, &flat)
            .unwrap_or_else(|never| match never {});
        Ok(split_outputs(&self.main, &out))
    }
}

/// An interpreter whose labels are the AND levels of wires: it counts the
/// AND gates of every level of a program as it runs.
#[derive(Debug, Default)]
struct LevelEngine {
    widths: Vec<u64>,
}

impl Engine for LevelEngine {
    type Label = u32;
    type Error = std::convert::Infallible;
    fn run_gates(&mut self, batch: Batch<'_>, labels: &mut [u32]) -> Result<(), Self::Error> {
        for g in batch.gates() {
            let level = match *g {
                Gate::And { a, b, .. } => {
                    let l = labels[a as usize].max(labels[b as usize]) + 1;
                    if self.widths.len() < l as usize {
                        self.widths.resize(l as usize, 0);
                    }
                    self.widths[l as usize - 1] += 1;
                    l
                }
                Gate::Xor { a, b, .. } => labels[a as usize].max(labels[b as usize]),
                Gate::Inv { a, .. } => labels[a as usize],
            };
            labels[g.out() as usize] = level;
        }
        Ok(())
    }
    fn skip_ands(&mut self, _: u64) {}
}

/// AND gates on each level of a whole program as it runs (every iteration of
/// every block), level 1 first. It takes time proportional to the gates the
/// program executes and memory proportional to its AND depth.
pub fn program_levels(program: &Program) -> Vec<u64> {
    let mut engine = LevelEngine::default();
    let inputs = vec![0u32; program.main.input_bits()];
    program
        .run(&mut engine, &inputs)
        .unwrap_or_else(|never| match never {});
    engine.widths
}

#[cfg(test)]
mod tests {
    use super::even_groups;

    /// Lockstep groups come two at least, as equal as they can be, no
    /// wider than asked.
    #[test]
    fn lockstep_groups_split_evenly_between_two_threads() {
        assert_eq!(even_groups(16, 5), 4);
        assert_eq!(even_groups(16, 3), 2);
        assert_eq!(even_groups(16, 16), 8);
        assert_eq!(even_groups(1, 16), 1);
        assert_eq!(even_groups(512, 16), 16);
        assert_eq!(even_groups(514, 16), 16);
        for count in 1..300 {
            for width in 1..20 {
                let w = even_groups(count, width);
                let groups = count.div_ceil(w);
                assert!(w <= width.max(1) && w >= 1, "{count} {width}");
                assert!(count < 2 || groups >= 2, "{count} {width}");
                // The cut nearest half the instances is near it.
                let cut = (count / 2 + w / 2) / w * w;
                assert!(
                    32 * cut.abs_diff(count / 2) <= count.max(w),
                    "{count} {width}"
                );
            }
        }
    }
}
