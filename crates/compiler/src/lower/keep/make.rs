//! Materialising a run of iterations: a block of the current frame, its
//! inputs wired as the run's tracks say (shared, carried, per iteration),
//! or — for a short run — its iterations inlined gate by gate through the
//! builder (where they share gates with the rest). Either way the run's
//! tokens are then replaced by what they stand for.

use super::run::{Run, Track};
use super::*;
use twofold_circuit::{Carried, PendingBlock, RawFrame, Segment, Wire, Wiring};

/// Runs kept as blocks have at least this many gates in all (shorter ones
/// are inlined, where the builder can share their gates with the rest).
const MIN_KEPT_GATES: u64 = 2048;

/// What a materialised run's tokens stand for: where the outputs of every
/// iteration, and of the last one, went.
struct Made {
    /// Per output of the template: its first wire and the step between
    /// instances' wires (an output of every iteration), or its last
    /// iteration's wire (a step of 0).
    outputs: Vec<Option<(Wire, u32)>>,
    /// The instance of each iteration, where iterations that read the
    /// same wires share one (see [`distinct_iterations`]).
    instance_of: Option<Vec<u32>>,
    /// Iterations an earlier block of the frame ran already, which the
    /// block continues (see `Builder::add_block`).
    continued: u64,
}

impl Made {
    /// What output `q` of iteration `j` stands for.
    fn bit(&self, j: u64, q: u32) -> Bit {
        let (first, width) = self.outputs[q as usize].expect("a token of an output made");
        let instance = self
            .instance_of
            .as_ref()
            .map_or(j, |of| of[j as usize] as u64);
        Bit::Wire(first + instance as Wire * width)
    }

    /// For each output, how many outputs from it on stand for consecutive
    /// wires in every iteration (first wires one apart, the same step).
    fn consecutive(&self) -> Vec<usize> {
        let mut runs = vec![0; self.outputs.len()];
        for q in (0..self.outputs.len()).rev() {
            let next = self.outputs.get(q + 1).copied().flatten();
            runs[q] = match (self.outputs[q], next) {
                (None, _) => 0,
                (Some((f, s)), Some((g, t))) if g == f + 1 && t == s => runs[q + 1] + 1,
                (Some(_), _) => 1,
            };
        }
        runs
    }

    /// Replaces `run`'s tokens in `slot` by what they stand for: a word of
    /// consecutive tokens of one iteration whose outputs went to
    /// consecutive wires (`runs`, see [`Made::consecutive`]) at once, any
    /// other value bit by bit.
    fn remap(&self, run: &Run, runs: &[usize], slot: &mut Slot) {
        if let Slot::Val(Word::Bits(bits, _)) = slot {
            if let Some((j, q)) = run.token_word(bits) {
                if runs[q as usize] >= bits.len() {
                    let Bit::Wire(first) = self.bit(run.stands_for(j), q) else {
                        unreachable!("outputs stand for wires");
                    };
                    let words = Rc::make_mut(bits);
                    for (b, w) in words.iter_mut().zip(first..) {
                        *b = Bit::Wire(w);
                    }
                    return;
                }
            }
        }
        slot.remap_bits(&mut |b| match b {
            Bit::Wire(w) => match run.decode(w) {
                Some((j, q)) => self.bit(run.stands_for(j), q),
                None => b,
            },
            c => c,
        });
    }
}

/// Which of a run's outputs are needed after their iteration: from every
/// iteration, or from the last one only; indexed by output.
struct Needed {
    every: Vec<bool>,
    last: Vec<bool>,
}

impl Needed {
    /// Marks the outputs whose tokens `slot` holds as needed (a word of
    /// consecutive tokens of one iteration at once).
    fn mark(&mut self, run: &Run, slot: &Slot) {
        let final_j = run.simulated - 1;
        let mut set = |j: u64, q: u32, n: usize| {
            let row = if j == final_j {
                &mut self.last
            } else {
                &mut self.every
            };
            row[q as usize..q as usize + n].fill(true);
        };
        if let Slot::Val(Word::Bits(bits, _)) = slot {
            if let Some((j, q)) = run.token_word(bits) {
                set(j, q, bits.len());
                return;
            }
        }
        slot.for_each_bit(&mut |b| {
            if let Some((j, q)) = match b {
                Bit::Wire(w) => run.decode(w),
                Bit::Const(_) => None,
            } {
                set(j, q, 1);
            }
        });
    }
}

/// The inputs of a run's template that its block reads, by how they
/// reach it.
struct InputKinds {
    /// The same in every iteration.
    shared: Vec<usize>,
    /// Carried from one iteration to the next.
    carried: Vec<usize>,
    /// Wired iteration by iteration.
    iter: Vec<usize>,
}

impl InputKinds {
    /// The inputs of `run`'s template that something reads, by their
    /// tracks.
    fn of(run: &Run) -> InputKinds {
        let used = run.used_inputs();
        let (mut shared, mut carried, mut iter) = (Vec::new(), Vec::new(), Vec::new());
        for (i, t) in run.tracks.iter().enumerate() {
            match t {
                _ if !used[i] => {}
                Track::Fixed(_) | Track::Empty => shared.push(i),
                Track::Carried { .. } => carried.push(i),
                _ => iter.push(i),
            }
        }
        InputKinds {
            shared,
            carried,
            iter,
        }
    }
}

/// The output wires of a run's block.
struct OutputWires {
    /// The outputs needed from every iteration, in order.
    every_q: Vec<u32>,
    /// The outputs needed from the last iteration only, in order.
    last_q: Vec<u32>,
    /// The wires of `every_q`, iteration after iteration.
    unit: Vec<Wire>,
    /// The wires of `last_q`.
    finals: Vec<Wire>,
    /// Per carried input, the wire of its value after the last iteration,
    /// if needed.
    carried_last: Vec<Option<Wire>>,
}

impl OutputWires {
    /// The block's output wiring: `unit` moving by a row per iteration,
    /// then `finals` (written by the last iteration).
    fn wiring(&self) -> Wiring {
        let width = self.every_q.len() as u32;
        let mut segments = Vec::new();
        if let Some(&u0) = self.unit.first() {
            segments.push(Segment::Affine {
                len: width,
                start: u0,
                step: width as i64,
            });
        }
        if let Some(&f0) = self.finals.first() {
            segments.push(Segment::Affine {
                len: self.finals.len() as u32,
                start: f0,
                step: 0,
            });
        }
        Wiring { segments }
    }
}

impl<'p> Lower<'p> {
    /// Whether `run` is kept as a block: it has gates, and enough of them
    /// in all (or is a region), and its iterations hand values on only as
    /// carried values; other runs are lowered plainly, where the builder
    /// can share their gates with the rest.
    pub(super) fn keeps(&self, run: &Run) -> bool {
        let frame = &run.probe.frame;
        let ands = frame.gates.iter().any(|g| g.is_and());
        // An iteration may read an earlier one's values only as carried
        // values (a block cannot wire its own outputs into its inputs).
        let wired_back = run.tracks.iter().any(|t| run.tables_own(t));
        !wired_back
            && run.count >= 2
            && !(frame.gates.is_empty() && frame.blocks.is_empty())
            && (run.count.saturating_mul(run.gates()) >= MIN_KEPT_GATES
                || (ands && self.opts.regions && run.parallel()))
    }

    /// Turns `run` into a block and replaces its tokens in the locations
    /// it wrote; returns the extras of its iterations, and its probe.
    pub(super) fn materialise(
        &mut self,
        mut run: Run,
        report: &mut LoopReport,
    ) -> DResult<(Vec<Vec<Slot>>, super::super::probe::Probe)> {
        // Outputs needed after their iteration: from every iteration, or
        // from the last only.
        let outputs = run.outputs.len();
        let mut needed = Needed {
            every: vec![false; outputs],
            last: vec![false; outputs],
        };
        for (obj, leaf) in run.written() {
            needed.mark(&run, &self.objs[obj].slots[leaf]);
        }
        for e in run.extras.iter().flatten() {
            needed.mark(&run, e);
        }
        // (A kept run's tables hold none of its tokens: see
        // [`Lower::keeps`].)
        let (made, parallel) = self.make_block(&mut run, &needed)?;
        let mut extras = std::mem::take(&mut run.extras);
        report.blocks.push((run.count, parallel));
        report.continued += made.continued;
        // Tokens left in the state and extras by simulated iterations.
        let runs = made.consecutive();
        let touched: Vec<(usize, usize)> = run.written().collect();
        for &(obj, leaf) in &touched {
            made.remap(&run, &runs, &mut self.objs[obj].slots[leaf]);
        }
        for e in extras.iter_mut().flatten() {
            made.remap(&run, &runs, e);
        }
        Ok((extras, run.probe))
    }

    /// A wire of the current frame holding `b`.
    pub(in crate::lower) fn wire_of(&mut self, b: Bit) -> DResult<Wire> {
        match b {
            Bit::Wire(w) => Ok(w),
            Bit::Const(v) => {
                let any = self.any_wire().ok_or_else(|| {
                    diag(Loc::default(), "internal: no wire to make a constant from")
                })?;
                Ok(self.b.constant_wire(v, any))
            }
        }
    }

    /// Some wire of the current frame (to make constants from): an input
    /// of the innermost probe, or of the program.
    fn any_wire(&self) -> Option<Wire> {
        match self.probes.last() {
            Some(p) => p.first_input(),
            None => self.first_input,
        }
    }

    /// Makes `run` a block in the current frame; returns what its tokens
    /// stand for and whether the block is parallel.
    fn make_block(&mut self, run: &mut Run, needed: &Needed) -> DResult<(Made, bool)> {
        let parallel = self.opts.regions && run.parallel();
        let kinds = InputKinds::of(run);
        let alike = parallel && kinds.carried.is_empty();
        let (mut outs, mut made) = self.output_wires(run, (&kinds.carried, alike), needed);
        // Origins naming this run's own outputs are its output wires.
        let resolve = |b: Bit| match b {
            Bit::Wire(w) => run.decode(w).map_or(b, |(j, q)| made.bit(j, q)),
            c => c,
        };
        let mut shared_bits: Vec<(Wire, Bit)> = kinds
            .shared
            .iter()
            .map(|&i| (run.probe.inputs[i], resolve(run.origin(i, 0))))
            .collect();
        let mut inputs_wiring = self.iteration_inputs(run, &kinds.iter, &resolve)?;
        // Iterations of a region that read the same wires compute the same
        // values: one instance serves them all (unrolled, structural
        // hashing shares their gates; a knapsack's rows have many equal
        // cells).
        let (mut count, mut instance_of_iteration) = (run.count, None);
        let alone = parallel && kinds.carried.is_empty() && outs.finals.is_empty();
        if let Some((instance_of, kept)) = alone
            .then(|| distinct_iterations(&inputs_wiring, run.count))
            .flatten()
        {
            let table: Vec<Wire> = kept.iter().flat_map(|&k| inputs_wiring.wires(k)).collect();
            count = kept.len() as u64;
            inputs_wiring = Wiring::compress(kept.len(), inputs_wiring.width(), &table);
            outs.unit.truncate(kept.len() * outs.every_q.len());
            instance_of_iteration = Some(instance_of);
        }
        let mut carried_init = Vec::with_capacity(kinds.carried.len());
        let mut next = Vec::with_capacity(kinds.carried.len());
        for &i in &kinds.carried {
            let Track::Carried { init, q } = run.tracks[i] else {
                unreachable!("carried inputs have carried tracks")
            };
            carried_init.push(self.wire_of(resolve(init))?);
            next.push(run.outputs[q as usize]);
        }
        // Work on shared values alone is done once, before the loop.
        self.hoist(&mut run.probe.frame, &mut shared_bits)?;
        let still_used = used_wires(
            &run.probe.frame,
            &run.outputs,
            &run.probe.inputs,
            &run.tracks,
        );
        shared_bits.retain(|(w, _)| still_used.contains(w));
        let mut shared_wires = Vec::with_capacity(shared_bits.len());
        for &(_, b) in &shared_bits {
            shared_wires.push(self.wire_of(b)?);
        }
        let inputs: Vec<Wire> = shared_bits
            .iter()
            .map(|&(w, _)| w)
            .chain((kinds.carried.iter().chain(&kinds.iter)).map(|&i| run.probe.inputs[i]))
            .collect();
        let outputs: Vec<Wire> = outs
            .every_q
            .iter()
            .chain(&outs.last_q)
            .map(|&q| run.outputs[q as usize])
            .collect();
        let frame = std::mem::take(&mut run.probe.frame);
        let (body, next) = frame
            .into_body(&inputs, &outputs, &next)
            .map_err(|e| diag(Loc::default(), format!("internal: a kept loop's body: {e}")))?;
        let parallel = parallel && kinds.carried.is_empty();
        made.continued = self.b.add_block(PendingBlock {
            position: 0,
            count,
            parallel,
            body,
            shared: shared_wires,
            carried: carried_init
                .into_iter()
                .zip(next)
                .zip(outs.carried_last.iter().copied())
                .map(|((init, next), last)| Carried { init, next, last })
                .collect(),
            inputs: inputs_wiring,
            outputs: outs.wiring(),
        });
        made.instance_of = instance_of_iteration;
        Ok((made, parallel))
    }

    /// Fresh wires for the outputs of `run`'s block: those needed from
    /// every iteration, then those needed from the last one only (carried
    /// values, of the inputs `carried`, leave through their own last
    /// wires). Returns them with what the run's tokens stand for. In a
    /// parallel block (`parallel`: its iterations run at once) every
    /// iteration writes wires of its own: one wire written by all of them
    /// for the last one's value would be written in any order (and the
    /// block's wiring is invalid).
    fn output_wires(
        &mut self,
        run: &Run,
        (carried, parallel): (&[usize], bool),
        needed: &Needed,
    ) -> (OutputWires, Made) {
        let mut carried_q = vec![false; run.outputs.len()];
        for &i in carried {
            if let Track::Carried { q, .. } = run.tracks[i] {
                carried_q[q as usize] = true;
            }
        }
        let outputs = 0..run.outputs.len() as u32;
        let last_only = |q: usize| needed.last[q] && !needed.every[q] && !carried_q[q];
        let every_q: Vec<u32> = outputs
            .clone()
            .filter(|&q| needed.every[q as usize] || (parallel && last_only(q as usize)))
            .collect();
        let last_q: Vec<u32> = outputs
            .filter(|&q| !parallel && last_only(q as usize))
            .collect();
        let width = every_q.len() as u32;
        let unit: Vec<Wire> = (0..run.count * width as u64)
            .map(|_| self.b.fresh_wire())
            .collect();
        let finals: Vec<Wire> = last_q.iter().map(|_| self.b.fresh_wire()).collect();
        let mut made = Made {
            outputs: vec![None; run.outputs.len()],
            instance_of: None,
            continued: 0,
        };
        let first = unit.first().copied().unwrap_or(0);
        for (k, &q) in every_q.iter().enumerate() {
            made.outputs[q as usize] = Some((first + k as Wire, width));
        }
        for (&q, &w) in last_q.iter().zip(&finals) {
            made.outputs[q as usize] = Some((w, 0));
        }
        let mut carried_last = Vec::with_capacity(carried.len());
        for &i in carried {
            let Track::Carried { q, .. } = run.tracks[i] else {
                unreachable!("carried inputs have carried tracks")
            };
            let q = q as usize;
            let wanted = needed.last[q] && !needed.every[q] && made.outputs[q].is_none();
            let w = wanted.then(|| self.b.fresh_wire());
            if let Some(w) = w {
                made.outputs[q] = Some((w, 0));
            }
            carried_last.push(w);
        }
        let outs = OutputWires {
            every_q,
            last_q,
            unit,
            finals,
            carried_last,
        };
        (outs, made)
    }

    /// The wiring of the per-iteration inputs `iter` of `run`'s block:
    /// their origins in each iteration as wires of the current frame
    /// (`resolve` names the run's own outputs). A group's inputs, all
    /// wired, are a ranges segment at once; other inputs a column each.
    fn iteration_inputs(
        &mut self,
        run: &Run,
        iter: &[usize],
        resolve: &impl Fn(Bit) -> Bit,
    ) -> DResult<Wiring> {
        let count = run.count as usize;
        let mut segments = Vec::new();
        let mut c = 0;
        while c < iter.len() {
            let i = iter[c];
            let whole = run.group_from(i).filter(|&(firsts, len)| {
                firsts.len() == count && iter[c..].iter().take(len).copied().eq(i..i + len)
            });
            if let Some((firsts, len)) = whole {
                segments.push(Segment::Ranges {
                    len: len as u32,
                    starts: firsts.to_vec(),
                });
                c += len;
                continue;
            }
            let t = &run.tracks[i];
            let mut wires = Vec::with_capacity(count);
            for j in 0..count as u64 {
                // (Most are tables: read without naming this run's outputs,
                // which a kept run's tables do not hold.)
                let b = match run.listed_origin(t, j) {
                    Some(b) => b,
                    None => resolve(run.origin_in(t, j)),
                };
                wires.push(self.wire_of(b)?);
            }
            segments.push(Segment::Table { len: 1, wires });
            c += 1;
        }
        Ok(Wiring { segments }.compressed(count))
    }

    /// Moves the gates and blocks of `frame` that read only the template
    /// inputs in `shared` (with the enclosing frame's bits for them) to the
    /// enclosing frame, where they run once; what the rest of the template
    /// still reads of their values becomes shared inputs too.
    fn hoist(&mut self, frame: &mut RawFrame, shared: &mut Vec<(Wire, Bit)>) -> DResult<()> {
        let mut map: HashMap<Wire, Bit> = shared.iter().copied().collect();
        let mut hoisted = Vec::new();
        let gates = std::mem::take(&mut frame.gates);
        let mut blocks = std::mem::take(&mut frame.blocks).into_iter().peekable();
        let mut kept_gates = Vec::with_capacity(gates.len());
        let mut kept_blocks = Vec::new();
        for i in 0..=gates.len() {
            while let Some(block) = blocks.next_if(|b| b.position <= i) {
                let mut invariant = true;
                block
                    .shared
                    .iter()
                    .for_each(|w| invariant &= map.contains_key(w));
                block
                    .carried
                    .iter()
                    .for_each(|c| invariant &= map.contains_key(&c.init));
                block
                    .inputs
                    .for_all(block.count, |w| invariant &= map.contains_key(&w));
                if invariant {
                    self.inline_block(&block, &mut map)?;
                    block_outputs(&block, |w| hoisted.push(w));
                } else {
                    kept_blocks.push(PendingBlock {
                        position: kept_gates.len(),
                        ..block
                    });
                }
            }
            let Some(&g) = gates.get(i) else {
                break;
            };
            if g.inputs().all(|w| map.contains_key(&w)) {
                self.inline_gates(&[g], &mut map);
                hoisted.push(g.out());
            } else {
                kept_gates.push(g);
            }
        }
        frame.gates = kept_gates;
        frame.blocks = kept_blocks;
        // Each wire once: a hoisted loop may give one wire in several
        // iterations' outputs (a value each iteration overwrites).
        let mut seen: HashSet<Wire> = shared.iter().map(|&(w, _)| w).collect();
        let new = hoisted.into_iter().filter(|&w| seen.insert(w));
        shared.extend(new.map(|w| (w, map[&w])).collect::<Vec<_>>());
        Ok(())
    }

    fn inline_gates(&mut self, gates: &[Gate], map: &mut HashMap<Wire, Bit>) {
        for g in gates {
            let out = match *g {
                Gate::Xor { a, b, .. } => self.b.xor(map[&a], map[&b]),
                Gate::And { a, b, .. } => self.b.and(map[&a], map[&b]),
                Gate::Inv { a, .. } => self.b.not(map[&a]),
            };
            map.insert(g.out(), out);
        }
    }

    /// A block of a template, placed in the current frame with its wiring
    /// through `map`.
    fn inline_block(&mut self, block: &PendingBlock, map: &mut HashMap<Wire, Bit>) -> DResult<()> {
        let wires = |me: &mut Self, ws: &mut dyn Iterator<Item = Wire>| -> DResult<Vec<Wire>> {
            ws.map(|w| me.wire_of(map[&w])).collect()
        };
        let shared = wires(self, &mut block.shared.iter().copied())?;
        let carried_init = wires(self, &mut block.carried.iter().map(|c| c.init))?;
        let width = block.inputs.width();
        let mut table = Vec::with_capacity(block.count as usize * width);
        for k in 0..block.count {
            table.extend(wires(self, &mut block.inputs.wires(k).into_iter())?);
        }
        let inputs = Wiring::compress(block.count as usize, width, &table);
        let out_width = block.outputs.width();
        let mut out_table = Vec::with_capacity(block.count as usize * out_width);
        for k in 0..block.count {
            for w in block.outputs.wires(k) {
                let new = match map.get(&w) {
                    Some(Bit::Wire(n)) => *n,
                    _ => {
                        let n = self.b.fresh_wire();
                        map.insert(w, Bit::Wire(n));
                        n
                    }
                };
                out_table.push(new);
            }
        }
        let outputs = Wiring::compress(block.count as usize, out_width, &out_table);
        let carried = block
            .carried
            .iter()
            .zip(carried_init)
            .map(|(c, init)| Carried {
                init,
                next: c.next,
                last: c.last.map(|w| {
                    let n = self.b.fresh_wire();
                    map.insert(w, Bit::Wire(n));
                    n
                }),
            })
            .collect();
        self.b.add_block(PendingBlock {
            position: 0,
            count: block.count,
            parallel: block.parallel,
            body: block.body.clone(),
            shared,
            carried,
            inputs,
            outputs,
        });
        Ok(())
    }
}

/// Calls `f` on the frame wires a template block writes.
/// For each of `count` iterations wired as `inputs`, the instance that
/// serves it, and the iterations kept as instances (the first to read
/// each list of wires), if some iterations read what an earlier one did.
fn distinct_iterations(inputs: &Wiring, count: u64) -> Option<(Vec<u32>, Vec<u64>)> {
    // Most regions read a wire that differs from iteration to iteration
    // (a step, first wires in order, or any column of distinct wires):
    // then no two iterations read the same wires, and none are hashed.
    let Some(column) = inputs.segments.iter().find(|seg| !seg.is_empty()) else {
        return (count >= 2).then(|| (vec![0; count as usize], vec![0]));
    };
    let moves = match column {
        Segment::Affine { step, .. } => *step != 0,
        Segment::Ranges { starts, .. } => starts.windows(2).all(|w| w[0] < w[1]),
        Segment::Table { .. } => false,
    };
    if count < 2 || moves {
        return None;
    }
    let mut firsts: Vec<Wire> = (0..count)
        .map(|k| match column.row(k) {
            Ok(first) => first as Wire,
            Err(row) => row[0],
        })
        .collect();
    firsts.sort_unstable();
    if firsts.windows(2).all(|w| w[0] != w[1]) {
        return None;
    }
    let mut first: HashMap<Vec<Wire>, u32> = HashMap::default();
    let mut kept = Vec::new();
    let instance_of: Vec<u32> = (0..count)
        .map(|k| {
            *first.entry(inputs.wires(k)).or_insert_with(|| {
                kept.push(k);
                kept.len() as u32 - 1
            })
        })
        .collect();
    (kept.len() < count as usize).then_some((instance_of, kept))
}

fn block_outputs(block: &PendingBlock, mut f: impl FnMut(Wire)) {
    block.outputs.for_all(block.count, &mut f);
    block.carried.iter().filter_map(|c| c.last).for_each(f);
}

/// The template wires something still reads: the frame's gates and
/// blocks, its outputs, and the carried values' next wires.
fn used_wires(
    frame: &RawFrame,
    outputs: &[Wire],
    inputs: &[Wire],
    tracks: &[Track],
) -> HashSet<Wire> {
    let mut used: HashSet<Wire> = outputs.iter().copied().collect();
    for g in &frame.gates {
        used.extend(g.inputs());
    }
    for b in &frame.blocks {
        used.extend(b.shared.iter().copied());
        used.extend(b.carried.iter().map(|c| c.init));
        b.inputs.for_all(b.count, |w| {
            used.insert(w);
        });
    }
    for (t, &w) in tracks.iter().zip(inputs) {
        if matches!(t, Track::Carried { .. }) {
            used.insert(w);
        }
    }
    used
}

#[cfg(test)]
mod tests {
    use super::{distinct_iterations, Made};
    use twofold_circuit::Wiring;

    /// Outputs laid out one wire apart with the same step count as one
    /// run from each of them; a step that differs, a gap or an output not
    /// made ends it.
    #[test]
    fn consecutive_outputs_are_counted_from_each() {
        let made = Made {
            outputs: vec![
                Some((10, 5)),
                Some((11, 5)),
                Some((12, 5)),
                None,
                Some((20, 0)),
                Some((21, 0)),
                Some((22, 5)),
                Some((24, 5)),
            ],
            instance_of: None,
            continued: 0,
        };
        assert_eq!(made.consecutive(), vec![3, 2, 1, 0, 2, 1, 1, 1]);
    }

    /// Iterations reading the wires an earlier one read are served by its
    /// instance; the instances are the first of each list, in order; none
    /// repeated, nothing is merged.
    #[test]
    fn iterations_reading_the_same_wires_share_an_instance() {
        let table = [1, 2, 3, 4, 1, 2, 5, 6, 3, 4];
        let wiring = Wiring::compress(5, 2, &table);
        let (instance_of, kept) = distinct_iterations(&wiring, 5).expect("repeats");
        assert_eq!(instance_of, vec![0, 1, 0, 2, 1]);
        assert_eq!(kept, vec![0, 1, 3]);
        let distinct = Wiring::compress(3, 2, &[1, 2, 3, 4, 5, 6]);
        assert!(distinct_iterations(&distinct, 3).is_none());
        // No inputs at all: every iteration is the first's.
        assert_eq!(
            distinct_iterations(&Wiring::empty(), 3).map(|d| d.1),
            Some(vec![0])
        );
    }
}
