//! Turning a frame the builder made — gates in single assignment over
//! builder-wide wire numbers, with blocks between them — into a circuit of
//! its own: inputs first, gates whose value reaches nothing removed, wire
//! slots reused as soon as their value is dead, and the blocks' wiring
//! renumbered alike.
//!
//! A block's outputs are given consecutive slots in the order of its output
//! wiring, so wiring that steps through them by iteration stays affine after
//! renumbering: a run of free slots that a block before it left (its inputs
//! dead), or fresh ones. A stage of a sorting network thus writes where the
//! stage before the last one wrote, and a program of many stages needs
//! slots for two or three, not for all.

mod flat;
mod liveness;
mod prune;
#[cfg(test)]
mod tests;
use std::collections::BTreeMap;

use crate::circuit::{Circuit, InputValue, OutputValue};
use crate::gate::{Gate, Wire};
use crate::program::{Block, Body, Carried};
use crate::wiring::{Segment, Wiring};
use crate::CircuitError;
pub(crate) use flat::{in_single_assignment, outputs_read, single_assignment};
use liveness::Liveness;

/// A block placed by the builder: its body finished, its wiring over
/// builder-wide wire numbers.
#[derive(Clone, Debug)]
pub struct PendingBlock {
    /// Runs before this gate of its frame.
    pub position: usize,
    /// Iterations.
    pub count: u64,
    /// Independent iterations.
    pub parallel: bool,
    /// The body, finished.
    pub body: Body,
    /// Wires read alike by every iteration.
    pub shared: Vec<Wire>,
    /// Carried values: `init` and `last` are frame wires, `next` a body wire.
    pub carried: Vec<Carried>,
    /// Wires each iteration reads.
    pub inputs: Wiring,
    /// Wires each iteration writes.
    pub outputs: Wiring,
}

impl PendingBlock {
    /// Calls `f(first, len)` on every frame wire the block reads, as runs
    /// of consecutive wires `first..first + len`.
    fn reads(&self, mut f: impl FnMut(Wire, usize)) {
        self.shared.iter().for_each(|&w| f(w, 1));
        self.carried.iter().for_each(|c| f(c.init, 1));
        self.inputs.for_all_runs(self.count, f);
    }

    /// Calls `f(first, len)` on every frame wire the block writes, as runs
    /// of consecutive wires `first..first + len`.
    fn writes(&self, mut f: impl FnMut(Wire, usize)) {
        self.outputs.for_all_runs(self.count, &mut f);
        self.carried
            .iter()
            .filter_map(|c| c.last)
            .for_each(|w| f(w, 1));
    }

    /// Keeps iterations `first..end` only (of a block without carried
    /// values).
    fn trim(&mut self, first: u64, end: u64) {
        self.inputs = self.inputs.slice(first, end - first);
        self.outputs = self.outputs.slice(first, end - first);
        self.count = end - first;
    }
}

/// A frame's gates and blocks, over builder-wide wire numbers.
#[derive(Clone, Debug, Default)]
pub struct RawFrame {
    /// Gates in single assignment (each writes a wire of its own).
    pub gates: Vec<Gate>,
    /// Blocks, by position.
    pub blocks: Vec<PendingBlock>,
}

/// The assembled frame: its circuit (inputs as given, outputs as given),
/// its blocks, and the renumbered `extra` wires (values read at the end of
/// the frame that are not outputs, such as a body's carried values).
pub struct Assembled {
    /// The circuit.
    pub circuit: Circuit,
    /// Its blocks.
    pub blocks: Vec<Block>,
    /// The `extra` wires, renumbered.
    pub extra: Vec<Wire>,
}

impl RawFrame {
    /// Assembles the frame. `inputs` are the input values with their wires
    /// (in order: they become wires `0..n`), `outputs` the output values
    /// with theirs, `extra` further wires that must hold their value at the
    /// end. Every wire read must be an input, a gate's or a block's.
    pub fn assemble(
        self,
        inputs: Vec<(InputValue, Vec<Wire>)>,
        outputs: Vec<(String, Vec<Wire>)>,
        extra: &[Wire],
    ) -> Result<Assembled, CircuitError> {
        assemble(self, inputs, outputs, extra)
    }

    /// The wires whose values reach `roots` (a block's reads count if any
    /// of its writes does).
    pub fn live_from(&self, roots: &[Wire]) -> std::collections::HashSet<Wire> {
        let mut live: std::collections::HashSet<Wire> = roots.iter().copied().collect();
        for step in Steps::of(self).rev() {
            match step {
                Step::Gate(i) => {
                    let g = self.gates[i];
                    if live.contains(&g.out()) {
                        live.extend(g.inputs());
                    }
                }
                Step::Block(b) => {
                    let block = &self.blocks[b];
                    let mut any = false;
                    block.writes(|first, len| {
                        any |= (first..first + len as Wire).any(|w| live.contains(&w));
                    });
                    if any {
                        block.reads(|first, len| live.extend(first..first + len as Wire));
                    }
                }
            }
        }
        live
    }

    /// [`RawFrame::assemble`] for a block's body: one input value of the
    /// given wires, one output value, the carried `next` wires as `extra`.
    pub fn into_body(
        self,
        inputs: &[Wire],
        outputs: &[Wire],
        next: &[Wire],
    ) -> Result<(Body, Vec<Wire>), CircuitError> {
        let value = InputValue {
            name: "in".into(),
            party: crate::Party::A,
            width: inputs.len() as u32,
        };
        let a = self.assemble(
            vec![(value, inputs.to_vec())],
            vec![("out".into(), outputs.to_vec())],
            next,
        )?;
        Ok((
            Body {
                circuit: a.circuit,
                blocks: a.blocks,
            },
            a.extra,
        ))
    }
}

/// A map from the wires of a frame (numbers in `lo..hi`) to values, stored
/// densely: frames' wires are mostly consecutive numbers.
struct WireMap {
    lo: Wire,
    values: Vec<u32>,
}

/// No value.
const NONE: u32 = u32::MAX;

impl WireMap {
    fn new(lo: Wire, hi: Wire) -> WireMap {
        WireMap {
            lo,
            values: vec![NONE; (hi - lo) as usize],
        }
    }

    fn get(&self, w: Wire) -> Option<u32> {
        let v = *self.values.get(w.checked_sub(self.lo)? as usize)?;
        (v != NONE).then_some(v)
    }

    /// The values of wires `first..first + len` (in range).
    fn run(&self, first: Wire, len: usize) -> &[u32] {
        &self.values[(first - self.lo) as usize..][..len]
    }

    /// The values of wires `first..first + len` (in range), to change.
    fn run_mut(&mut self, first: Wire, len: usize) -> &mut [u32] {
        &mut self.values[(first - self.lo) as usize..][..len]
    }

    /// The value of `first` if wires `first..first + len` (in range, not
    /// empty) have consecutive values.
    fn consecutive(&self, first: Wire, len: usize) -> Option<u32> {
        let run = self.run(first, len);
        let start = run[0];
        let fits = (start as u64 + len as u64) < NONE as u64;
        // Counted without stopping at the first, which vectorises.
        let off = run.iter().zip(start..).filter(|&(&v, s)| v != s).count();
        (fits && off == 0).then_some(start)
    }

    /// Sets the value of `w` (in range) if it has none; whether it did.
    fn set_if_none(&mut self, w: Wire, v: u32) -> bool {
        let slot = &mut self.values[(w - self.lo) as usize];
        let none = *slot == NONE;
        if none {
            *slot = v;
        }
        none
    }

    fn set(&mut self, w: Wire, v: u32) {
        self.values[(w - self.lo) as usize] = v;
    }
}

/// The range of wire numbers a frame mentions.
fn wire_span(
    frame: &RawFrame,
    inputs: &[(InputValue, Vec<Wire>)],
    outputs: &[(String, Vec<Wire>)],
    extra: &[Wire],
) -> (Wire, Wire) {
    let (mut lo, mut hi) = (Wire::MAX, 0);
    // Wires `first..first + len` (`len` at least 1).
    let mut see = |first: Wire, len: usize| {
        lo = lo.min(first);
        hi = hi.max(first + len as Wire);
    };
    let values = inputs
        .iter()
        .map(|(_, w)| w)
        .chain(outputs.iter().map(|(_, w)| w));
    values.flatten().chain(extra).for_each(|&w| see(w, 1));
    for g in &frame.gates {
        see(g.out(), 1);
        g.inputs().for_each(|w| see(w, 1));
    }
    for b in &frame.blocks {
        b.reads(&mut see);
        b.writes(&mut see);
    }
    (lo.min(hi), hi)
}

/// What happens at a point of the frame, in order.
#[derive(Clone, Copy)]
enum Step {
    Gate(usize),
    Block(usize),
}

/// The steps of a frame in order (its gates, each block before the gate at
/// its position), forwards or backwards, without a list of them: a flat
/// frame has one a gate.
struct Steps {
    /// The blocks' positions.
    positions: Vec<usize>,
    /// The next gate and block from the front.
    front: (usize, usize),
    /// One past the last gate and block from the back.
    back: (usize, usize),
}

impl Steps {
    fn of(frame: &RawFrame) -> Steps {
        Steps {
            positions: frame.blocks.iter().map(|b| b.position).collect(),
            front: (0, 0),
            back: (frame.gates.len(), frame.blocks.len()),
        }
    }
}

impl Iterator for Steps {
    type Item = Step;

    fn next(&mut self) -> Option<Step> {
        let ((g, b), (g_end, b_end)) = (self.front, self.back);
        if b < b_end && (self.positions[b] <= g || g == g_end) {
            self.front.1 += 1;
            Some(Step::Block(b))
        } else if g < g_end {
            self.front.0 += 1;
            Some(Step::Gate(g))
        } else {
            None
        }
    }
}

impl DoubleEndedIterator for Steps {
    fn next_back(&mut self) -> Option<Step> {
        let ((g, b), (g_end, b_end)) = (self.front, self.back);
        if b < b_end && (self.positions[b_end - 1] >= g_end || g == g_end) {
            self.back.1 -= 1;
            Some(Step::Block(b_end - 1))
        } else if g < g_end {
            self.back.0 -= 1;
            Some(Step::Gate(g_end - 1))
        } else {
            None
        }
    }
}

fn assemble(
    mut frame: RawFrame,
    inputs: Vec<(InputValue, Vec<Wire>)>,
    outputs: Vec<(String, Vec<Wire>)>,
    extra: &[Wire],
) -> Result<Assembled, CircuitError> {
    let span = wire_span(&frame, &inputs, &outputs, extra);
    let roots: Vec<Wire> = outputs
        .iter()
        .flat_map(|(_, w)| w)
        .chain(extra)
        .copied()
        .collect();
    let live = Liveness::of(&mut frame, span, &roots)?;
    // Slots, forwards: inputs first, then each value as it is made.
    let mut slots = Slots {
        at: WireMap::new(span.0, span.1),
        free: Vec::new(),
        runs: BTreeMap::new(),
        next: 0,
    };
    for (_, wires) in &inputs {
        for &w in wires {
            if !slots.at.set_if_none(w, slots.next) {
                return Err(CircuitError::Invalid(format!("wire {w} is two inputs")));
            }
            if !live.read.contains(w) {
                slots.free.push(slots.next);
            }
            slots.next += 1;
        }
    }
    // The gates kept are renumbered in place: gate `i` is read before any
    // gate at or after it is written.
    let mut kept = 0;
    let mut blocks = Vec::with_capacity(frame.blocks.len());
    for step in Steps::of(&frame) {
        match step {
            Step::Gate(i) if live.read.contains(frame.gates[i].out()) => {
                frame.gates[kept] = slots.gate(frame.gates[i], i, &live)?;
                kept += 1;
            }
            Step::Block(b) if live.keep_block[b] => {
                let block = &frame.blocks[b];
                blocks.push(slots.block(block, kept, &live.last_read[b])?);
            }
            _ => {}
        }
    }
    let mut gates = frame.gates;
    gates.truncate(kept);
    let outputs = outputs
        .into_iter()
        .map(|(name, wires)| {
            Ok(OutputValue {
                name,
                wires: wires
                    .iter()
                    .map(|&w| slots.lookup(w))
                    .collect::<Result<_, _>>()?,
            })
        })
        .collect::<Result<Vec<_>, CircuitError>>()?;
    let extra = extra
        .iter()
        .map(|&w| slots.lookup(w))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Assembled {
        circuit: Circuit {
            num_wires: slots.next,
            inputs: inputs.into_iter().map(|(v, _)| v).collect(),
            outputs,
            gates,
        },
        blocks,
        extra,
    })
}

/// Storage slots while a frame is assembled: where each wire's value is,
/// and the slots free for reuse.
struct Slots {
    at: WireMap,
    /// Free slots gates take one at a time.
    free: Vec<Wire>,
    /// Runs of consecutive free slots (first slot, length) that blocks'
    /// writes take.
    runs: BTreeMap<Wire, Wire>,
    next: Wire,
}

/// The shortest run of slots freed together that is kept for blocks'
/// writes; shorter ones go to gates.
const MIN_RUN: Wire = 16;

impl Slots {
    /// The slot of `w`'s value.
    fn lookup(&self, w: Wire) -> Result<Wire, CircuitError> {
        self.at
            .get(w)
            .map(|v| v as Wire)
            .ok_or_else(|| CircuitError::Invalid(format!("wire {w} is read but never written")))
    }

    /// Gate `g`, the `i`th, renumbered: inputs read last here free their
    /// slots, which the output may take.
    fn gate(&mut self, g: Gate, i: usize, live: &Liveness) -> Result<Gate, CircuitError> {
        let (a, b) = match g {
            Gate::Xor { a, b, .. } | Gate::And { a, b, .. } => (a, b),
            Gate::Inv { a, .. } => (a, a),
        };
        let (sa, sb) = (self.lookup(a)?, self.lookup(b)?);
        for (k, w) in g.inputs().enumerate() {
            if live.dies(i, k) {
                self.free.push(self.lookup(w)?);
            }
        }
        let out = self.free.pop().unwrap_or_else(|| {
            self.next += 1;
            self.next - 1
        });
        self.at.set(g.out(), out);
        Ok(match g {
            Gate::Xor { .. } => Gate::Xor { a: sa, b: sb, out },
            Gate::And { .. } => Gate::And { a: sa, b: sb, out },
            Gate::Inv { .. } => Gate::Inv { a: sa, out },
        })
    }

    /// Block `pb`, before gate `position`, renumbered: its writes take
    /// fresh slots, in wiring order (an iteration of a loop may read what
    /// an earlier one wrote); the values it reads last (`last_read`, as
    /// runs of wires) are dead after it.
    fn block(
        &mut self,
        pb: &PendingBlock,
        position: usize,
        last_read: &[(Wire, Wire)],
    ) -> Result<Block, CircuitError> {
        // The wires written here first, in order, as runs (first, length):
        // a range none of whose wires is written yet is one.
        let mut written = Vec::new();
        pb.writes(|first, len| {
            let run = self.at.run_mut(first, len);
            if run.iter().all(|&v| v == NONE) {
                run.fill(0);
                push_to_runs(&mut written, first, len as Wire);
                return;
            }
            for (w, slot) in (first..).zip(run) {
                if *slot == NONE {
                    *slot = 0;
                    push_to_runs(&mut written, w, 1);
                }
            }
        });
        let mut slot = self.take_run(written.iter().map(|&(_, len)| len).sum());
        for (first, len) in written {
            for v in self.at.run_mut(first, len as usize) {
                *v = slot;
                slot += 1;
            }
        }
        let shared = pb
            .shared
            .iter()
            .map(|&w| self.lookup(w))
            .collect::<Result<Vec<_>, _>>()?;
        let carried = pb
            .carried
            .iter()
            .map(|c| {
                Ok(Carried {
                    init: self.lookup(c.init)?,
                    next: c.next,
                    last: c.last.map(|w| self.lookup(w)).transpose()?,
                })
            })
            .collect::<Result<Vec<_>, CircuitError>>()?;
        let inputs = self.renumber(&pb.inputs, pb.count)?;
        let outputs = self.renumber(&pb.outputs, pb.count)?;
        // The slots of values last read here, as runs (first slot, length):
        // a block reads ranges of consecutive wires, so runs are few (a
        // range in consecutive slots is one).
        let mut dead: Vec<(Wire, Wire)> = Vec::new();
        for &(first, len) in last_read {
            match self.at.consecutive(first, len as usize) {
                Some(slot) => push_to_runs(&mut dead, slot, len),
                None => {
                    for &slot in self.at.run(first, len as usize) {
                        if slot != NONE {
                            push_to_runs(&mut dead, slot, 1);
                        }
                    }
                }
            }
        }
        dead.sort_unstable();
        // Joined where they meet or overlap (a value read twice).
        let mut joined: Vec<(Wire, Wire)> = Vec::with_capacity(dead.len());
        for (first, len) in dead {
            match joined.last_mut() {
                Some((f, l)) if first <= *f + *l => *l = (*l).max(first + len - *f),
                _ => joined.push((first, len)),
            }
        }
        for (first, len) in joined {
            if len >= MIN_RUN {
                self.free_run(first, len);
            } else {
                self.free.extend(first..first + len);
            }
        }
        Ok(Block {
            position,
            count: pb.count,
            parallel: pb.parallel,
            body: pb.body.clone(),
            shared,
            carried,
            inputs,
            outputs,
        })
    }
}

impl Slots {
    /// The first of `n` consecutive free slots: the first run long enough,
    /// or the last run extended by fresh slots if it ends at them, or fresh
    /// slots.
    fn take_run(&mut self, n: Wire) -> Wire {
        if n == 0 {
            return self.next;
        }
        let fits = self.runs.iter().find(|&(_, &len)| len >= n);
        if let Some((&first, &len)) = fits {
            self.runs.remove(&first);
            if len > n {
                self.runs.insert(first + n, len - n);
            }
            return first;
        }
        let first = match self.runs.last_key_value() {
            Some((&first, &len)) if first + len == self.next => {
                self.runs.remove(&first);
                first
            }
            _ => self.next,
        };
        self.next = first + n;
        first
    }

    /// Frees slots `first..first + len`, joined to the free runs beside it.
    fn free_run(&mut self, mut first: Wire, mut len: Wire) {
        if let Some((&before, &l)) = self.runs.range(..first).next_back() {
            if before + l == first {
                self.runs.remove(&before);
                (first, len) = (before, len + l);
            }
        }
        if let Some(l) = self.runs.remove(&(first + len)) {
            len += l;
        }
        self.runs.insert(first, len);
    }
}

/// Adds `x..x + n` to `runs` (first, length): to the last run if it ends
/// at `x`.
fn push_to_runs(runs: &mut Vec<(Wire, Wire)>, x: Wire, n: Wire) {
    match runs.last_mut() {
        Some((first, len)) if *first + *len == x => *len += n,
        _ => runs.push((x, n)),
    }
}

impl Slots {
    /// `wiring` of `count` iterations with every wire renumbered to its
    /// slot, compressed again.
    fn renumber(&self, wiring: &Wiring, count: u64) -> Result<Wiring, CircuitError> {
        if wiring.width() == 0 {
            return Ok(Wiring::empty());
        }
        let too_many = || CircuitError::Invalid("too many iterations".into());
        let count = usize::try_from(count).map_err(|_| too_many())?;
        let segments = (wiring.segments.iter())
            .map(|seg| self.renumber_segment(seg, count))
            .collect::<Result<_, _>>()?;
        Ok(Wiring { segments }.compressed(count))
    }

    /// `seg` of `count` iterations renumbered: a ranges segment if every
    /// iteration's slots are consecutive, else a table.
    fn renumber_segment(&self, seg: &Segment, count: usize) -> Result<Segment, CircuitError> {
        let len = seg.len();
        let consecutive = |k| match seg.row(k as u64) {
            Ok(first) if len > 0 => self.at.consecutive(first as Wire, len as usize),
            _ => None,
        };
        if let Some(starts) = (0..count).map(consecutive).collect() {
            return Ok(Segment::Ranges { len, starts });
        }
        let mut wires = Vec::with_capacity(count * len as usize);
        for k in 0..count {
            let mut bad = Ok(());
            seg.for_each(k as u64, |_, w| match self.lookup(w) {
                Ok(slot) => wires.push(slot),
                Err(e) => bad = Err(e),
            });
            bad?;
        }
        Ok(Segment::Table { len, wires })
    }
}
