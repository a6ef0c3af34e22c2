//! Building circuits gate by gate, with constant folding and structural hashing.

use rustc_hash::FxHashMap as HashMap;

use crate::circuit::{Circuit, InputValue, OutputValue, Party};
use crate::gate::{Gate, Wire};
use crate::program::Program;
use crate::regions::{extract_regions, RegionVerdict};
use crate::CircuitError;

/// A bit while a circuit is being built: a public constant or a wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bit {
    /// A value known when the circuit is built; it makes no gate.
    Const(bool),
    /// A value carried by a wire (builder numbering).
    Wire(Wire),
}

impl Bit {
    /// The constant value, if this bit is public.
    pub fn as_const(self) -> Option<bool> {
        match self {
            Bit::Const(c) => Some(c),
            Bit::Wire(_) => None,
        }
    }
}

impl From<bool> for Bit {
    fn from(b: bool) -> Bit {
        Bit::Const(b)
    }
}

/// Builds a [`Circuit`]. Every operation folds constants (`x & 0 = 0`,
/// `x ^ x = 0`, `!!x = x`, …) and reuses an existing gate with the same inputs
/// (structural hashing), so the circuit never holds the same gate twice.
/// [`Builder::finish`] removes dead gates and compacts the wires.
#[derive(Default)]
pub struct Builder {
    gates: Vec<Gate>,
    next_wire: Wire,
    inputs: Vec<(InputValue, Vec<Wire>)>,
    outputs: Vec<(String, Vec<Bit>)>,
    /// Existing gates by (kind, inputs): the wire they write and their index.
    hashed: HashMap<Gate, (Wire, usize)>,
    /// `w -> !w` both ways, with the index of the INV gate.
    negation: HashMap<Wire, (Wire, usize)>,
    /// Gates in `barrier` are not reused by structural hashing (the earlier
    /// iterations of the open parallel loop).
    barrier: std::ops::Range<usize>,
    /// Whether a parallel loop is open.
    loop_open: bool,
    /// Proposed parallel loops: the gate range of each iteration.
    proposals: Vec<Vec<std::ops::Range<usize>>>,
}

/// A candidate parallel loop being built (see [`Builder::begin_loop`]).
#[derive(Debug)]
pub struct LoopMark {
    /// False for a loop nested in another candidate: it is ignored.
    active: bool,
    /// First gate of each iteration.
    starts: Vec<usize>,
}

impl Builder {
    /// An empty builder.
    pub fn new() -> Builder {
        Builder::default()
    }

    /// Declares an input value of `width` bits owned by `party`; returns its
    /// bits, bit 0 (least significant) first.
    pub fn input(&mut self, name: impl Into<String>, party: Party, width: u32) -> Vec<Bit> {
        let wires: Vec<Wire> = (0..width).map(|_| self.fresh()).collect();
        let bits = wires.iter().map(|&w| Bit::Wire(w)).collect();
        self.inputs.push((
            InputValue {
                name: name.into(),
                party,
                width,
            },
            wires,
        ));
        bits
    }

    /// Declares an output value; `bits` are bit 0 first.
    pub fn output(&mut self, name: impl Into<String>, bits: &[Bit]) {
        self.outputs.push((name.into(), bits.to_vec()));
    }

    /// Number of gates emitted so far.
    pub fn gate_count(&self) -> usize {
        self.gates.len()
    }

    /// Number of AND gates emitted so far.
    pub fn and_count(&self) -> usize {
        self.gates.iter().filter(|g| g.is_and()).count()
    }

    /// `a ^ b`
    pub fn xor(&mut self, a: Bit, b: Bit) -> Bit {
        match (a, b) {
            (Bit::Const(x), Bit::Const(y)) => Bit::Const(x ^ y),
            (Bit::Const(c), w) | (w, Bit::Const(c)) => {
                if c {
                    self.not(w)
                } else {
                    w
                }
            }
            (Bit::Wire(x), Bit::Wire(y)) => {
                if x == y {
                    return Bit::Const(false);
                }
                if self.negation.get(&x).map(|n| n.0) == Some(y) {
                    return Bit::Const(true);
                }
                let (a, b) = (x.min(y), x.max(y));
                self.emit(Gate::Xor { a, b, out: 0 })
            }
        }
    }

    /// `a & b`
    pub fn and(&mut self, a: Bit, b: Bit) -> Bit {
        match (a, b) {
            (Bit::Const(x), Bit::Const(y)) => Bit::Const(x & y),
            (Bit::Const(c), w) | (w, Bit::Const(c)) => {
                if c {
                    w
                } else {
                    Bit::Const(false)
                }
            }
            (Bit::Wire(x), Bit::Wire(y)) => {
                if x == y {
                    return a;
                }
                if self.negation.get(&x).map(|n| n.0) == Some(y) {
                    return Bit::Const(false);
                }
                let (a, b) = (x.min(y), x.max(y));
                self.emit(Gate::And { a, b, out: 0 })
            }
        }
    }

    /// `!a`
    pub fn not(&mut self, a: Bit) -> Bit {
        match a {
            Bit::Const(c) => Bit::Const(!c),
            Bit::Wire(w) => {
                if let Some(&(n, at)) = self.negation.get(&w) {
                    if !self.barrier.contains(&at) {
                        return Bit::Wire(n);
                    }
                }
                let out = self.emit(Gate::Inv { a: w, out: 0 });
                if let Bit::Wire(n) = out {
                    let at = self.gates.len() - 1;
                    self.negation.insert(w, (n, at));
                    self.negation.insert(n, (w, at));
                }
                out
            }
        }
    }

    /// `a | b` (one AND gate).
    pub fn or(&mut self, a: Bit, b: Bit) -> Bit {
        let na = self.not(a);
        let nb = self.not(b);
        let both_zero = self.and(na, nb);
        self.not(both_zero)
    }

    /// `if sel { t } else { f }` (one AND gate).
    pub fn mux(&mut self, sel: Bit, t: Bit, f: Bit) -> Bit {
        let diff = self.xor(t, f);
        let pick = self.and(sel, diff);
        self.xor(f, pick)
    }

    fn fresh(&mut self) -> Wire {
        let w = self.next_wire;
        self.next_wire = self
            .next_wire
            .checked_add(1)
            .expect("circuit exceeds 2^32 wires");
        w
    }

    fn emit(&mut self, gate: Gate) -> Bit {
        if let Some(&(w, at)) = self.hashed.get(&gate) {
            if !self.barrier.contains(&at) {
                return Bit::Wire(w);
            }
        }
        let out = self.fresh();
        let placed = gate.rewire(|w| w, out);
        self.hashed.insert(gate, (out, self.gates.len()));
        self.gates.push(placed);
        Bit::Wire(out)
    }

    /// Starts a candidate parallel loop: its iterations (see
    /// [`Builder::begin_iteration`]) are proposed as the instances of one
    /// parallel region when the loop ends. A loop started while another is
    /// open is ignored (the outermost loop wins).
    pub fn begin_loop(&mut self) -> LoopMark {
        let active = !self.loop_open;
        self.loop_open |= active;
        LoopMark {
            active,
            starts: Vec::new(),
        }
    }

    /// Starts the next iteration of the loop `mark`: structural hashing does
    /// not reuse gates made by its earlier iterations, so that iterations
    /// share no gates.
    pub fn begin_iteration(&mut self, mark: &mut LoopMark) {
        if mark.active {
            let now = self.gates.len();
            if let Some(&first) = mark.starts.first() {
                self.barrier = first..now;
            }
            mark.starts.push(now);
        }
    }

    /// Ends the loop `mark`, proposing its iterations as a parallel region
    /// (checked by [`Builder::finish_program`]).
    pub fn end_loop(&mut self, mark: LoopMark) {
        if mark.active {
            let end = self.gates.len();
            let mut bounds = mark.starts;
            bounds.push(end);
            self.proposals
                .push(bounds.windows(2).map(|w| w[0]..w[1]).collect());
            self.close_loop();
        }
    }

    /// Drops the loop `mark` without proposing it: its gates stay in the main
    /// circuit.
    pub fn abandon_loop(&mut self, mark: LoopMark) {
        if mark.active {
            self.close_loop();
        }
    }

    fn close_loop(&mut self) {
        self.loop_open = false;
        self.barrier = 0..0;
    }

    /// The finished circuit: inputs at wires `0..n` in declaration order, dead
    /// gates removed, wire slots reused. Constant output bits are made from the
    /// first input wire (`x ^ x`), so a circuit with a constant output needs at
    /// least one input bit.
    pub fn finish(self) -> Result<Circuit, CircuitError> {
        Ok(self.single_assignment()?.0.compact())
    }

    /// Like [`Builder::finish`], but the proposed parallel loops (see
    /// [`Builder::begin_loop`]) are checked on the circuit graph and the
    /// accepted ones become SIMD regions; the verdict on each proposal comes
    /// with the program. Without accepted loops the main circuit is compacted
    /// as by `finish`.
    pub fn finish_program(self) -> Result<(Program, Vec<RegionVerdict>), CircuitError> {
        let (circuit, proposals) = self.single_assignment()?;
        Ok(extract_regions(circuit, &proposals))
    }

    /// The circuit in single assignment (inputs at `0..n`, then every gate's
    /// own wire), not compacted, and the loop proposals.
    #[allow(clippy::type_complexity)]
    fn single_assignment(
        mut self,
    ) -> Result<(Circuit, Vec<Vec<std::ops::Range<usize>>>), CircuitError> {
        let needs_zero = self
            .outputs
            .iter()
            .any(|(_, bits)| bits.iter().any(|b| matches!(b, Bit::Const(_))));
        let mut zero = None;
        let mut one = None;
        if needs_zero {
            let first = self
                .inputs
                .iter()
                .find_map(|(_, w)| w.first().copied())
                .ok_or_else(|| {
                    CircuitError::Invalid("a constant output needs at least one input bit".into())
                })?;
            let z = self.xor_raw(first);
            zero = Some(z);
            if let Bit::Wire(o) = self.not(Bit::Wire(z)) {
                one = Some(o);
            }
        }
        // Builder numbering -> final numbering: inputs first.
        let mut map = vec![Wire::MAX; self.next_wire as usize];
        let mut next: Wire = 0;
        for (_, wires) in &self.inputs {
            for &w in wires {
                map[w as usize] = next;
                next += 1;
            }
        }
        for m in map.iter_mut().filter(|m| **m == Wire::MAX) {
            *m = next;
            next += 1;
        }
        let gates = self
            .gates
            .iter()
            .map(|g| g.rewire(|w| map[w as usize], map[g.out() as usize]))
            .collect();
        let outputs = self
            .outputs
            .iter()
            .map(|(name, bits)| OutputValue {
                name: name.clone(),
                wires: bits
                    .iter()
                    .map(|b| match *b {
                        Bit::Wire(w) => map[w as usize],
                        Bit::Const(false) => map[zero.unwrap() as usize],
                        Bit::Const(true) => map[one.unwrap() as usize],
                    })
                    .collect(),
            })
            .collect();
        let circuit = Circuit {
            num_wires: next,
            inputs: self.inputs.into_iter().map(|(v, _)| v).collect(),
            outputs,
            gates,
        };
        Ok((circuit, self.proposals))
    }

    /// `w ^ w`, bypassing folding: the constant-zero wire.
    fn xor_raw(&mut self, w: Wire) -> Wire {
        let out = self.fresh();
        self.gates.push(Gate::Xor { a: w, b: w, out });
        out
    }
}
