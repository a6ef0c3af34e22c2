//! Levelling the gates of a frame that has blocks: each segment — the gates
//! between two blocks' positions — is put in level order on its own, with
//! the blocks still running between the same gates.
//!
//! A frame with blocks is compiled in program order with its slots reused,
//! so a segment's chains — the sum of a parallel loop's results, say —
//! run one AND at a time, and reuse ties every gate to the gates before it.
//! Levelling renames what the segment keeps to itself: a gate's value that
//! a later gate of the segment overwrites gets a slot of its own (slots
//! above the frame's, reused once free), while the last value each slot
//! takes in the segment stays in that slot, written only after every gate
//! of the segment that reads the slot's value from before. So a block, an
//! output or a later segment finds every slot as program order leaves it.

use crate::circuit::{Circuit, MAX_WIRES};
use crate::gate::{Gate, Wire};
use crate::levels::counting_sort;

/// Whether `circuit`'s renamed values can be numbered (see [`Analysis`])
/// within [`MAX_WIRES`], and so the levelled circuit's slots too; a frame
/// too large for that is left in program order.
fn renamable(circuit: &Circuit) -> bool {
    u64::from(circuit.num_wires) + circuit.gates.len() as u64 <= u64::from(MAX_WIRES)
}

/// A segment's gates as levelling sees them: each gate's level, the values
/// it reads and the value it writes. Values are slots (the value a slot
/// holds when the segment starts, or its last value in the segment) or
/// `num_wires + i` (the renamed value gate `i` writes; only gates of the
/// segment read it).
struct Analysis {
    levels: Vec<u32>,
    inputs: Vec<[Wire; 2]>,
    outputs: Vec<Wire>,
}

/// A gate's kind, all [`Circuit::level_segments`] keeps of a segment's old
/// gates while it writes the new ones over them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Xor,
    And,
    Inv,
}

impl Kind {
    fn of(g: &Gate) -> Kind {
        match g {
            Gate::Xor { .. } => Kind::Xor,
            Gate::And { .. } => Kind::And,
            Gate::Inv { .. } => Kind::Inv,
        }
    }

    fn is_and(self) -> bool {
        self == Kind::And
    }

    /// How many wires a gate of this kind reads.
    fn reads(self) -> usize {
        if self == Kind::Inv {
            1
        } else {
            2
        }
    }
}

/// Where each segment of `gates` starts and ends: between consecutive
/// `positions` (sorted), clamped to the gates.
fn segments(len: usize, positions: &[usize]) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let mut start = 0;
    positions
        .iter()
        .map(move |&p| p.min(len))
        .chain([len])
        .map(move |end| {
            let range = start..end.max(start);
            start = range.end;
            range
        })
}

/// What walking the segments of a frame of `n` slots keeps from one
/// segment to the next: per slot, in the current segment (`seen`; else as
/// at the segment's start), its current value and that value's level, and
/// the highest level of a gate reading its value from before the segment;
/// and the segment a slot was last written in, looking backwards (see
/// [`Walker::last_writes`]).
struct Walker {
    n: Wire,
    segment: u32,
    seen: Vec<u32>,
    value: Vec<Wire>,
    level: Vec<u32>,
    before_read: Vec<u32>,
    written: Vec<u32>,
}

impl Walker {
    fn new(n: Wire) -> Walker {
        let slots = n as usize;
        Walker {
            n,
            segment: 0,
            seen: vec![0; slots],
            value: vec![0; slots],
            level: vec![0; slots],
            before_read: vec![0; slots],
            written: vec![0; slots],
        }
    }

    /// Slot `w`'s index, its entries reset if they are an earlier
    /// segment's.
    fn slot(&mut self, w: Wire) -> usize {
        let i = w as usize;
        if self.seen[i] != self.segment {
            self.seen[i] = self.segment;
            (self.value[i], self.level[i], self.before_read[i]) = (w, 0, 0);
        }
        i
    }

    /// Whether each gate of the next segment (`gates`) writes the last
    /// value its slot takes in the segment.
    fn last_writes(&mut self, gates: &[Gate]) -> Vec<bool> {
        let segment = self.segment + 1;
        let mut last = vec![false; gates.len()];
        for (i, g) in gates.iter().enumerate().rev() {
            let out = g.out() as usize;
            last[i] = self.written[out] != segment;
            self.written[out] = segment;
        }
        last
    }

    /// Calls `visit(gate, level, values read, value written)` on every
    /// gate of the next segment (`gates`, the first at `first` in the
    /// frame) in order (see [`Analysis`]) until it returns false; returns
    /// whether it never did. A gate's level is at least that of the gates
    /// whose values it reads, and, if it writes a slot's last value, that
    /// of every gate reading the slot's value from before the segment; an
    /// AND gate's is one more.
    fn walk(
        &mut self,
        gates: &[Gate],
        first: usize,
        mut visit: impl FnMut(usize, u32, [Wire; 2], Wire) -> bool,
    ) -> bool {
        let last_write = self.last_writes(gates);
        self.segment += 1;
        for (i, &g) in gates.iter().enumerate() {
            let out = self.slot(g.out());
            let a = self.slot(g.inputs().next().expect("an input"));
            let b = self.slot(g.inputs().last().expect("an input"));
            let mut after = self.level[a].max(self.level[b]);
            if last_write[i] {
                after = after.max(self.before_read[out]);
            }
            let l = after + g.is_and() as u32;
            let ins = [self.value[a], self.value[b]];
            for w in [a, b] {
                if self.value[w] == w as Wire {
                    self.before_read[w] = self.before_read[w].max(l);
                }
            }
            let written = if last_write[i] {
                out as Wire
            } else {
                self.n + (first + i) as Wire
            };
            (self.value[out], self.level[out]) = (written, l);
            if !visit(i, l, ins, written) {
                return false;
            }
        }
        true
    }

    /// The level and values of every gate of the next segment (see
    /// [`Analysis`]).
    fn analyse(&mut self, gates: &[Gate], first: usize) -> Analysis {
        let mut analysis = Analysis {
            levels: Vec::with_capacity(gates.len()),
            inputs: Vec::with_capacity(gates.len()),
            outputs: Vec::with_capacity(gates.len()),
        };
        self.walk(gates, first, |_, level, ins, out| {
            analysis.levels.push(level);
            analysis.inputs.push(ins);
            analysis.outputs.push(out);
            true
        });
        analysis
    }
}

/// The slots renamed values take: from the frame's `num_wires` up, each
/// reused once free (a slot freed inside an AND run only after the run).
struct Renaming {
    /// The frame's slots before renaming.
    n: Wire,
    num_wires: Wire,
    free: Vec<Wire>,
    freed_in_run: Vec<Wire>,
}

impl Renaming {
    /// Rewrites the segment `gates` (the first at `first` in the frame),
    /// of `analysis`, in level order: by level, AND first, stably.
    fn level(&mut self, gates: &mut [Gate], first: usize, analysis: Analysis) {
        // A block runs before the segment: the AND run ends there.
        self.free.append(&mut self.freed_in_run);
        let kinds: Vec<Kind> = gates.iter().map(Kind::of).collect();
        let key = |i: u32| {
            let i = i as usize;
            2 * analysis.levels[i] as usize + usize::from(!kinds[i].is_and())
        };
        let order = counting_sort(&(0..gates.len() as u32).collect::<Vec<_>>(), key);
        let Analysis {
            levels,
            inputs,
            outputs,
        } = analysis;
        drop(levels);
        // The value gate `i` of the segment writes, renamed, is
        // `renamed + i`.
        let renamed = self.n + first as Wire;
        let local = |v: Wire| v.checked_sub(renamed).map(|i| i as usize);
        // In the new order: where each renamed value is read last.
        let mut last_read = vec![u32::MAX; gates.len()];
        for (at, &i) in order.iter().enumerate().rev() {
            let reads = kinds[i as usize].reads();
            for &v in &inputs[i as usize][..reads] {
                if let Some(v) = local(v) {
                    if last_read[v] == u32::MAX {
                        last_read[v] = at as u32;
                    }
                }
            }
        }
        // Renamed value -> its slot, while it lives.
        let mut slot = vec![Wire::MAX; gates.len()];
        for (at, &i) in order.iter().enumerate() {
            let (i, g) = (i as usize, kinds[i as usize]);
            if !g.is_and() {
                self.free.append(&mut self.freed_in_run);
            }
            let ins = inputs[i];
            let place = |v: Wire| local(v).map_or(v, |v| slot[v]);
            let (a, b) = (place(ins[0]), place(ins[1]));
            for (k, &v) in ins[..g.reads()].iter().enumerate() {
                let repeated = k == 1 && ins[0] == v;
                if let Some(v) = local(v).filter(|&v| last_read[v] == at as u32 && !repeated) {
                    self.release(slot[v], g);
                }
            }
            let out = match local(outputs[i]) {
                None => outputs[i],
                Some(v) => {
                    let s = self.free.pop().unwrap_or_else(|| {
                        self.num_wires += 1;
                        self.num_wires - 1
                    });
                    slot[v] = s;
                    if last_read[v] == u32::MAX {
                        // Never read: free again at once.
                        self.release(s, g);
                    }
                    s
                }
            };
            gates[at] = match g {
                Kind::Xor => Gate::Xor { a, b, out },
                Kind::And => Gate::And { a, b, out },
                Kind::Inv => Gate::Inv { a, out },
            };
        }
    }

    /// Slot `s` is free once the current AND run ends (at once after a
    /// gate of another kind `g`).
    fn release(&mut self, s: Wire, g: Kind) {
        if g.is_and() {
            self.freed_in_run.push(s);
        } else {
            self.free.push(s);
        }
    }
}

impl Circuit {
    /// The same gates with each segment between consecutive `positions`
    /// (where a frame's blocks run; sorted) in level order, AND gates
    /// first within a level (see the module doc): every slot holds the
    /// same value at every position and at the end, and every maximal run
    /// of consecutive AND gates is independent gates. Renamed values take
    /// slots from `num_wires` up, reused once free (a slot freed inside an
    /// AND run only after the run, see [`Circuit::compact`]). Segment by
    /// segment, in place: what levelling a segment holds besides the gates
    /// is about twice its gates' size, so a main circuit between many
    /// blocks is not held twice.
    pub fn level_segments(mut self, positions: &[usize]) -> Circuit {
        if !renamable(&self) {
            return self;
        }
        let n = self.num_wires;
        let mut walker = Walker::new(n);
        let mut renaming = Renaming {
            n,
            num_wires: n,
            free: Vec::new(),
            freed_in_run: Vec::new(),
        };
        for range in segments(self.gates.len(), positions) {
            let gates = &mut self.gates[range.clone()];
            let analysis = walker.analyse(gates, range.start);
            renaming.level(gates, range.start, analysis);
        }
        self.num_wires = renaming.num_wires;
        self
    }

    /// Whether every segment between `positions` is in the order
    /// [`Circuit::level_segments`] gives it (or it leaves the circuit as it
    /// is).
    pub fn segments_level_ordered(&self, positions: &[usize]) -> bool {
        if !renamable(self) {
            return true;
        }
        let mut walker = Walker::new(self.num_wires);
        segments(self.gates.len(), positions).all(|range| {
            let gates = &self.gates[range.clone()];
            let mut last = (0, false);
            walker.walk(gates, range.start, |i, level, _, _| {
                let key = (level, !gates[i].is_and());
                let ordered = i == 0 || last <= key;
                last = key;
                ordered
            })
        })
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::circuit::{eval_gates, InputValue, OutputValue, Party};
    use crate::synthetic::SplitMix;
    use crate::walk::Batches;

    /// A circuit of `gates` random gates over `slots` slots, any slot read
    /// or written (so slots are reused every which way), 8 input bits.
    fn random_circuit(rng: &mut SplitMix, slots: u32, gates: usize) -> Circuit {
        let gates = (0..gates)
            .map(|_| {
                let (a, b, out) = (rng.below(slots), rng.below(slots), rng.below(slots));
                match rng.below(3) {
                    0 => Gate::Xor { a, b, out },
                    1 => Gate::And { a, b, out },
                    _ => Gate::Inv { a, out },
                }
            })
            .collect();
        Circuit {
            num_wires: slots,
            inputs: vec![InputValue {
                name: "x".into(),
                party: Party::A,
                width: 8,
            }],
            outputs: vec![OutputValue {
                name: "y".into(),
                wires: (0..slots).collect(),
            }],
            gates,
        }
    }

    /// Runs `c` segment by segment from `start` (extended with zeros to its
    /// slots); before each segment (where a block runs) `block` overwrites
    /// some slots alike in every run. Returns the first `slots` values at
    /// every position and at the end.
    fn run_segments(
        c: &Circuit,
        positions: &[usize],
        start: &[bool],
        block: &dyn Fn(usize, &mut [bool]),
    ) -> Vec<Vec<bool>> {
        let mut wires = start.to_vec();
        wires.resize(c.num_wires as usize, false);
        let mut seen = Vec::new();
        for (k, range) in segments(c.gates.len(), positions).enumerate() {
            if k > 0 {
                block(k, &mut wires);
            }
            seen.push(wires[..start.len()].to_vec());
            eval_gates(&c.gates[range], &mut wires);
        }
        seen.push(wires[..start.len()].to_vec());
        seen
    }

    #[test]
    fn levelled_segments_leave_every_slot_as_program_order_does() {
        let mut rng = SplitMix(7);
        for round in 0..300 {
            let slots = 4 + rng.below(40);
            let gates = rng.below(200) as usize;
            let c = random_circuit(&mut rng, slots, gates);
            let mut positions: Vec<usize> = (0..rng.below(4))
                .map(|_| rng.below(c.gates.len() as u32 + 1) as usize)
                .collect();
            positions.sort_unstable();
            let levelled = c.clone().level_segments(&positions);
            assert!(levelled.num_wires >= c.num_wires);
            assert!(levelled.segments_level_ordered(&positions), "round {round}");
            let seed = rng.0;
            // A block: some slots overwritten with values of its own.
            let block = |k: usize, wires: &mut [bool]| {
                let mut r = SplitMix(seed ^ k as u64);
                for _ in 0..r.below(4) {
                    let w = r.below(slots) as usize;
                    wires[w] = r.below(2) == 1;
                }
            };
            let start: Vec<bool> = (0..slots).map(|_| rng.below(2) == 1).collect();
            assert_eq!(
                run_segments(&levelled, &positions, &start, &block),
                run_segments(&c, &positions, &start, &block),
                "round {round}"
            );
            // Batches cut AND runs only between levels.
            let mut walker = Walker::new(levelled.num_wires);
            let levels: Vec<u32> = segments(levelled.gates.len(), &positions)
                .flat_map(|r| walker.analyse(&levelled.gates[r.clone()], r.start).levels)
                .collect();
            let batches = Batches::of(&levelled.gates, levelled.num_wires, &positions);
            for &i in &batches.cuts {
                if levelled.gates[i - 1].is_and() && levelled.gates[i].is_and() {
                    assert!(
                        positions.contains(&i) || levels[i - 1] < levels[i],
                        "round {round}: a cut inside an AND level"
                    );
                }
            }
        }
    }
}
