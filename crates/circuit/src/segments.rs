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
/// `num_wires + i` (the renamed value gate `i` writes).
struct Analysis {
    levels: Vec<u32>,
    inputs: Vec<[Wire; 2]>,
    outputs: Vec<Wire>,
}

/// A gate's kind, all [`Circuit::level_segments`] keeps of the old gates
/// while it makes the new ones.
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

/// The level and values of every gate (see [`Analysis`]).
fn analyse(circuit: &Circuit, positions: &[usize]) -> Analysis {
    let len = circuit.gates.len();
    let mut analysis = Analysis {
        levels: Vec::with_capacity(len),
        inputs: Vec::with_capacity(len),
        outputs: Vec::with_capacity(len),
    };
    walk_levels(circuit, positions, |_, level, ins, out| {
        analysis.levels.push(level);
        analysis.inputs.push(ins);
        analysis.outputs.push(out);
        true
    });
    analysis
}

/// Calls `visit(gate, level, values read, value written)` on every gate in
/// order (see [`Analysis`]) until it returns false. A gate's level is at
/// least that of the gates whose values it reads, and, if it writes a
/// slot's last value, that of every gate reading the slot's value from
/// before the segment; an AND gate's is one more.
fn walk_levels(
    circuit: &Circuit,
    positions: &[usize],
    mut visit: impl FnMut(usize, u32, [Wire; 2], Wire) -> bool,
) {
    let n = circuit.num_wires as usize;
    let gates = &circuit.gates;
    let last_write = last_writes(circuit, positions);
    let mut slots = Slots::new(n);
    for (segment, range) in (1u32..).zip(segments(gates.len(), positions)) {
        slots.segment = segment;
        for i in range {
            let g = gates[i];
            let out = slots.slot(g.out());
            let a = slots.slot(g.inputs().next().expect("an input"));
            let b = slots.slot(g.inputs().last().expect("an input"));
            let mut after = slots.level[a].max(slots.level[b]);
            if last_write[i] {
                after = after.max(slots.before_read[out]);
            }
            let l = after + g.is_and() as u32;
            let ins = [slots.value[a], slots.value[b]];
            for w in [a, b] {
                if slots.value[w] == w as Wire {
                    slots.before_read[w] = slots.before_read[w].max(l);
                }
            }
            let written = if last_write[i] {
                out as Wire
            } else {
                circuit.num_wires + i as Wire
            };
            (slots.value[out], slots.level[out]) = (written, l);
            if !visit(i, l, ins, written) {
                return;
            }
        }
    }
}

/// Per slot, in the current segment (`seen`; else as at the segment's
/// start): its current value and that value's level, and the highest
/// level of a gate reading its value from before the segment.
struct Slots {
    segment: u32,
    seen: Vec<u32>,
    value: Vec<Wire>,
    level: Vec<u32>,
    before_read: Vec<u32>,
}

impl Slots {
    fn new(n: usize) -> Slots {
        Slots {
            segment: 0,
            seen: vec![0; n],
            value: vec![0; n],
            level: vec![0; n],
            before_read: vec![0; n],
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
}

/// Whether each gate writes the last value its slot takes in its segment.
fn last_writes(circuit: &Circuit, positions: &[usize]) -> Vec<bool> {
    let mut last = vec![false; circuit.gates.len()];
    let mut seen = vec![0u32; circuit.num_wires as usize];
    for (k, range) in (1u32..).zip(segments(circuit.gates.len(), positions)) {
        for i in range.rev() {
            let out = circuit.gates[i].out() as usize;
            last[i] = seen[out] != k;
            seen[out] = k;
        }
    }
    last
}

/// The gate indices in level order segment by segment: by level, AND
/// first, stably.
fn level_order(circuit: &Circuit, positions: &[usize], levels: &[u32]) -> Vec<u32> {
    let key = |i: u32| {
        let i = i as usize;
        2 * levels[i] as usize + usize::from(!circuit.gates[i].is_and())
    };
    let mut order = Vec::with_capacity(circuit.gates.len());
    for range in segments(circuit.gates.len(), positions) {
        let segment: Vec<u32> = (range.start as u32..range.end as u32).collect();
        order.extend(counting_sort(&segment, key));
    }
    order
}

impl Circuit {
    /// The same gates with each segment between consecutive `positions`
    /// (where a frame's blocks run; sorted) in level order, AND gates
    /// first within a level (see the module doc): every slot holds the
    /// same value at every position and at the end, and every maximal run
    /// of consecutive AND gates is independent gates. Renamed values take
    /// slots from `num_wires` up, reused once free (a slot freed inside an
    /// AND run only after the run, see [`Circuit::compact`]). Consumes the
    /// circuit: its gates are let go (their kinds kept, a byte each) before
    /// the new ones are made, so that a large main circuit between blocks
    /// is not held twice.
    pub fn level_segments(self, positions: &[usize]) -> Circuit {
        if !renamable(&self) {
            return self;
        }
        let Analysis {
            levels,
            inputs: renamed_inputs,
            outputs: renamed_outputs,
        } = analyse(&self, positions);
        let order = level_order(&self, positions, &levels);
        drop(levels);
        let Circuit {
            num_wires: n,
            inputs,
            outputs,
            gates: old,
        } = self;
        let kinds: Vec<Kind> = old.iter().map(Kind::of).collect();
        drop(old);
        // In the new order: where each renamed value is read last.
        let mut last_read = vec![u32::MAX; kinds.len()];
        for (at, &i) in order.iter().enumerate().rev() {
            let reads = kinds[i as usize].reads();
            for &v in &renamed_inputs[i as usize][..reads] {
                if v >= n && last_read[(v - n) as usize] == u32::MAX {
                    last_read[(v - n) as usize] = at as u32;
                }
            }
        }
        // Renamed value -> its slot, while it lives.
        let mut slot = vec![Wire::MAX; kinds.len()];
        let (mut free, mut freed_in_run) = (Vec::new(), Vec::new());
        let mut num_wires = n;
        let mut starts = positions.iter().peekable();
        let mut gates = Vec::with_capacity(kinds.len());
        for (at, &i) in order.iter().enumerate() {
            let (i, g) = (i as usize, kinds[i as usize]);
            // Frees wait for the end of an AND run (and so of a segment).
            let segment_start = starts.next_if(|&&p| p <= at).is_some();
            while starts.next_if(|&&p| p <= at).is_some() {}
            if !g.is_and() || segment_start {
                free.append(&mut freed_in_run);
            }
            let ins = renamed_inputs[i];
            let place = |v: Wire| if v < n { v } else { slot[(v - n) as usize] };
            let (a, b) = (place(ins[0]), place(ins[1]));
            let reads = g.reads();
            for (k, &v) in ins[..reads].iter().enumerate() {
                let repeated = k == 1 && ins[0] == v;
                if v >= n && last_read[(v - n) as usize] == at as u32 && !repeated {
                    let list = if g.is_and() {
                        &mut freed_in_run
                    } else {
                        &mut free
                    };
                    list.push(slot[(v - n) as usize]);
                }
            }
            let v = renamed_outputs[i];
            let out = if v < n {
                v
            } else {
                let s = free.pop().unwrap_or_else(|| {
                    num_wires += 1;
                    num_wires - 1
                });
                slot[(v - n) as usize] = s;
                if last_read[(v - n) as usize] == u32::MAX {
                    // Never read: free again at once.
                    let list = if g.is_and() {
                        &mut freed_in_run
                    } else {
                        &mut free
                    };
                    list.push(s);
                }
                s
            };
            gates.push(match g {
                Kind::Xor => Gate::Xor { a, b, out },
                Kind::And => Gate::And { a, b, out },
                Kind::Inv => Gate::Inv { a, out },
            });
        }
        Circuit {
            num_wires,
            inputs,
            outputs,
            gates,
        }
    }

    /// Whether every segment between `positions` is in the order
    /// [`Circuit::level_segments`] gives it (or it leaves the circuit as it
    /// is).
    pub fn segments_level_ordered(&self, positions: &[usize]) -> bool {
        if !renamable(self) {
            return true;
        }
        let mut starts = positions.iter().peekable();
        let mut last = (0, false);
        let mut ordered = true;
        walk_levels(self, positions, |i, level, _, _| {
            let key = (level, !self.gates[i].is_and());
            let segment_start = starts.next_if(|&&p| p <= i).is_some();
            while starts.next_if(|&&p| p <= i).is_some() {}
            ordered = i == 0 || segment_start || last <= key;
            last = key;
            ordered
        });
        ordered
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
            let levels = analyse(&levelled, &positions).levels;
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
