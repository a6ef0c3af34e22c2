//! Building circuits gate by gate, with constant folding and structural hashing.

mod cone;
mod continued;
mod index;
mod store;

use crate::assemble::{
    in_single_assignment, outputs_read, single_assignment, PendingBlock, RawFrame,
};
use crate::circuit::{Circuit, InputValue, Party};
use crate::gate::{Gate, Wire};
use crate::program::Program;
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

/// Builds a [`Program`]. Every operation folds constants (`x & 0 = 0`,
/// `x ^ x = 0`, `!!x = x`, …) and reuses an existing gate with the same inputs
/// (structural hashing, see `index`), so a frame never holds the same gate
/// twice.
/// [`Builder::finish_program`] removes dead gates and compacts the wires.
///
/// Gates go to the current *frame*: the main circuit, or the body of a block
/// being built ([`Builder::begin_frame`]). Wire numbers are unique across
/// all frames while building; each frame is renumbered when it is finished.
#[derive(Default)]
pub struct Builder {
    next_wire: Wire,
    inputs: Vec<(InputValue, Vec<Wire>)>,
    outputs: Vec<(String, Vec<Bit>)>,
    /// The frame being built.
    frame: FrameState,
    /// The frames it is nested in, innermost last.
    outer: Vec<FrameState>,
    /// Gates asked for that constant folding did not answer.
    requested: u64,
    /// A bit per wire: set where [`Builder::not`] made an INV gate writing
    /// it. Most wires are not, and the bit tells so without looking the
    /// wire up among the frame's gates (a search of its runs of outputs,
    /// many once probes have taken wires between them: a kept loop's
    /// secret-index reads spent a fifth of compiling there).
    inverters: Vec<u64>,
}

/// The gates, blocks and hashing state of one frame.
#[derive(Default)]
struct FrameState {
    gates: store::Gates,
    blocks: Vec<PendingBlock>,
    /// Its gates by (kind, inputs).
    index: index::Index,
    /// Wires of this frame holding 0 and 1, once made.
    constants: [Option<Wire>; 2],
    /// Its latest blocks that a new block may continue.
    chains: Vec<continued::Chain>,
    /// Its latest blocks of independent iterations that a new block may
    /// repeat.
    independent: Vec<PendingBlock>,
}

/// A program built without blocks, not assembled (see
/// [`Builder::into_flat`]).
#[derive(Clone, Debug)]
pub struct FlatParts {
    /// Input values with their wires, in declaration order.
    pub inputs: Vec<(InputValue, Vec<Wire>)>,
    /// Output values with their bits.
    pub outputs: Vec<(String, Vec<Bit>)>,
    /// The gates in the order made; each writes a wire of its own.
    pub gates: Vec<Gate>,
    /// Wires `0..num_wires` were made.
    pub num_wires: Wire,
}

/// A frame being built (see [`Builder::begin_frame`]).
#[derive(Debug)]
pub struct FrameMark {
    depth: usize,
    first_wire: Wire,
}

impl FrameMark {
    /// Whether `w` was made in this frame (or one nested in it): wires made
    /// before the frame began are outside it.
    pub fn contains(&self, w: Wire) -> bool {
        w >= self.first_wire
    }
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

    /// Number of gates emitted so far in the current frame.
    pub fn gate_count(&self) -> usize {
        self.frame.gates.len()
    }

    /// Number of gates held: those of the current frame and of the frames
    /// enclosing it.
    pub fn held_gates(&self) -> usize {
        self.frame.gates.len() + self.outer.iter().map(|f| f.gates.len()).sum::<usize>()
    }

    /// Gates asked for so far that constant folding did not answer
    /// (structural hashing may have found them made already): a measure of
    /// the builder's work.
    pub fn requested_gates(&self) -> u64 {
        self.requested
    }

    /// Number of AND gates emitted so far in the current frame.
    pub fn and_count(&self) -> usize {
        self.frame.gates.and_count()
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
                let (a, b) = (x.min(y), x.max(y));
                if self.negates(a, b) {
                    return Bit::Const(true);
                }
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
                let (lo, hi) = (x.min(y), x.max(y));
                if self.negates(lo, hi) {
                    return Bit::Const(false);
                }
                self.emit(Gate::And {
                    a: lo,
                    b: hi,
                    out: 0,
                })
            }
        }
    }

    /// `!a`
    pub fn not(&mut self, a: Bit) -> Bit {
        match a {
            Bit::Const(c) => Bit::Const(!c),
            Bit::Wire(w) => {
                if let Some(v) = self.inverted(w) {
                    return Bit::Wire(v);
                }
                // `!w` made before is found, and costs nothing.
                let (out, made) = self.find_or_make(Gate::Inv { a: w, out: 0 });
                self.requested += made as u64;
                let (word, bit) = (out as usize / 64, out % 64);
                if self.inverters.len() <= word {
                    self.inverters.resize(word + 1, 0);
                }
                self.inverters[word] |= 1 << bit;
                Bit::Wire(out)
            }
        }
    }

    /// `!a` where it is known without making a gate: a constant's, the
    /// input of the INV gate writing `a`, or the output of one reading it
    /// (made in this frame).
    pub fn known_not(&self, a: Bit) -> Option<Bit> {
        match a {
            Bit::Const(c) => Some(Bit::Const(!c)),
            Bit::Wire(w) => {
                if let Some(v) = self.inverted(w) {
                    return Some(Bit::Wire(v));
                }
                let FrameState { gates, index, .. } = &self.frame;
                let inv = store::pair(&Gate::Inv { a: w, out: 0 });
                let made = index.find(gates.pairs(), &inv).ok()?;
                Some(Bit::Wire(gates.get(made).out()))
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

    /// A new wire that no gate writes: an input of the frame being built
    /// (its value comes from outside, e.g. a block's wiring).
    pub fn fresh_wire(&mut self) -> Wire {
        self.fresh()
    }

    /// The input of the INV gate that [`Builder::not`] made writing `w`
    /// in this frame, if any: `!w`. (The frame's constant one, `!zero`, is
    /// not one of them.)
    fn inverted(&self, w: Wire) -> Option<Wire> {
        let made =
            (self.inverters.get(w as usize / 64)).is_some_and(|bits| bits >> (w % 64) & 1 == 1);
        if !made || self.frame.constants[1] == Some(w) {
            return None;
        }
        self.frame.gates.inverted(w)
    }

    /// Whether `hi` is `!lo` as [`Builder::not`] made it in this frame (an
    /// INV gate writes a wire newer than its input): the gates of the frame
    /// tell, where a map of every negation made missed the caches on every
    /// gate of a large frame.
    fn negates(&self, lo: Wire, hi: Wire) -> bool {
        self.inverted(hi) == Some(lo)
    }

    fn emit(&mut self, gate: Gate) -> Bit {
        self.requested += 1;
        Bit::Wire(self.find_or_make(gate).0)
    }

    /// The wire of the frame's gate computing `gate` (made by
    /// [`Builder::emit`] or [`Builder::not`]), made now if there is none;
    /// and whether it was made now.
    fn find_or_make(&mut self, gate: Gate) -> (Wire, bool) {
        let FrameState { gates, index, .. } = &mut self.frame;
        let listed = match index.find(gates.pairs(), &store::pair(&gate)) {
            Ok(made) => return (gates.get(made).out(), false),
            Err(listed) => listed,
        };
        let i = gates.len() as u32;
        let out = self.fresh();
        let FrameState { gates, index, .. } = &mut self.frame;
        gates.push(gate.rewire(|w| w, out));
        index.insert(gates.pairs(), i, listed);
        (out, true)
    }

    /// Starts a frame: the gates made until [`Builder::end_frame`] form the
    /// body of a block (they may read only wires made in the frame).
    pub fn begin_frame(&mut self) -> FrameMark {
        self.outer.push(std::mem::take(&mut self.frame));
        FrameMark {
            depth: self.outer.len(),
            first_wire: self.next_wire,
        }
    }

    /// Ends the frame `mark` began, returning its gates and blocks; the
    /// enclosing frame is current again.
    pub fn end_frame(&mut self, mark: FrameMark) -> RawFrame {
        assert_eq!(mark.depth, self.outer.len(), "frames end in order");
        let outer = self.outer.pop().expect("a frame was begun");
        let inner = std::mem::replace(&mut self.frame, outer);
        RawFrame {
            gates: inner.gates.into_gates(),
            blocks: inner.blocks,
        }
    }

    /// The block placed last in the current frame, if any.
    pub fn last_block(&self) -> Option<&PendingBlock> {
        self.frame.blocks.last()
    }

    /// Places a block in the current frame, after the gates made so far;
    /// a block that repeats an earlier one's iterations and goes on runs
    /// only the iterations after them. Returns how many it skips.
    pub fn add_block(&mut self, block: PendingBlock) -> u64 {
        let (block, skipped) = self.continue_earlier(block);
        if let Some(mut block) = block {
            block.position = self.frame.gates.len();
            self.frame.blocks.push(block);
        }
        skipped
    }

    /// A wire of the current frame holding `value`, made from `any` (a wire
    /// of the frame) the first time: `any ^ any`, or its negation.
    pub fn constant_wire(&mut self, value: bool, any: Wire) -> Wire {
        if let Some(w) = self.frame.constants[value as usize] {
            return w;
        }
        let zero = match self.frame.constants[0] {
            Some(z) => z,
            None => {
                let z = self.xor_raw(any);
                self.frame.constants[0] = Some(z);
                z
            }
        };
        if !value {
            return zero;
        }
        let one = self.fresh();
        self.frame.gates.push(Gate::Inv { a: zero, out: one });
        self.frame.constants[1] = Some(one);
        one
    }

    /// The finished program: inputs at wires `0..n` in declaration order,
    /// dead gates removed, wire slots reused; a program without blocks is
    /// levelled, ready to run (see [`Circuit::into_levelized`]). Constant
    /// output bits are made from the first input wire (`x ^ x`), so a
    /// program with a constant output needs at least one input bit.
    pub fn finish_program(mut self) -> Result<Program, CircuitError> {
        assert!(self.outer.is_empty(), "every frame has ended");
        let needs_const = self
            .outputs
            .iter()
            .any(|(_, bits)| bits.iter().any(|b| matches!(b, Bit::Const(_))));
        let mut consts = [None, None];
        if needs_const {
            let first = self
                .inputs
                .iter()
                .find_map(|(_, w)| w.first().copied())
                .ok_or_else(|| {
                    CircuitError::Invalid("a constant output needs at least one input bit".into())
                })?;
            consts = [false, true].map(|v| Some(self.constant_wire(v, first)));
        }
        let outputs: Vec<(String, Vec<Wire>)> = std::mem::take(&mut self.outputs)
            .into_iter()
            .map(|(name, bits)| {
                let wires = bits
                    .iter()
                    .map(|b| match *b {
                        Bit::Wire(w) => w,
                        Bit::Const(v) => consts[v as usize].expect("made above"),
                    })
                    .collect();
                (name, wires)
            })
            .collect();
        // The hashing state is done with: freed before the gates are
        // unpacked and assembled.
        let FrameState {
            gates,
            blocks,
            index,
            ..
        } = self.frame;
        drop(index);
        if blocks.is_empty() {
            // Levelled from single assignment, as running it needs: one
            // renumbering of its wires, not two. The gates whose values
            // are read are found as they are unpacked.
            let mut read = outputs_read(0, self.next_wire, &outputs);
            let input_bits: usize = self.inputs.iter().map(|(_, w)| w.len()).sum();
            let in_turn = (self.inputs.iter().flat_map(|(_, w)| w))
                .zip(0..)
                .all(|(&w, i)| w == i);
            if in_turn
                && gates.writes_in_turn_from(input_bits as Wire)
                && self.next_wire as usize == input_bits + gates.len()
            {
                // Numbered in single assignment already (no nested frame
                // took wires between the gates): levelled as they are, the
                // gates nothing reads left out of the windows and removed
                // by levelling's compaction. Removing them first, and
                // renumbering the rest, took a tenth of compiling a 40
                // M-gate sort.
                let gates = gates.into_read_gates(&mut read, true);
                let circuit = in_single_assignment(gates, self.inputs, outputs);
                return Ok(Program {
                    main: circuit.levelize_ssa(Some(&read)),
                    blocks: Vec::new(),
                });
            }
            let gates = gates.into_read_gates(&mut read, false);
            let circuit = single_assignment(gates, &read, 0, self.next_wire, self.inputs, outputs)?;
            return Ok(Program {
                main: circuit.levelize_ssa(None),
                blocks: Vec::new(),
            });
        }
        let raw = RawFrame {
            gates: gates.into_gates(),
            blocks,
        };
        let a = raw.assemble(self.inputs, outputs, &[])?;
        Ok(Program {
            main: a.circuit,
            blocks: a.blocks,
        })
    }

    /// What was built, before assembling, for a program without blocks:
    /// its inputs with their wires, its outputs with their bits, and every
    /// gate made (dead ones too), each writing a wire of its own, in the
    /// order made (builder numbering: a gate reads only smaller wires).
    pub fn into_flat(self) -> Result<FlatParts, CircuitError> {
        if !self.outer.is_empty() || !self.frame.blocks.is_empty() {
            return Err(CircuitError::Invalid("the program has blocks".into()));
        }
        Ok(FlatParts {
            inputs: self.inputs,
            outputs: self.outputs,
            gates: self.frame.gates.into_gates(),
            num_wires: self.next_wire,
        })
    }

    /// [`Builder::finish_program`] for a program without blocks: its main
    /// circuit.
    pub fn finish(self) -> Result<Circuit, CircuitError> {
        let program = self.finish_program()?;
        if !program.blocks.is_empty() {
            return Err(CircuitError::Invalid("the program has blocks".into()));
        }
        Ok(program.main)
    }

    /// `w ^ w`, bypassing folding: the constant-zero wire.
    fn xor_raw(&mut self, w: Wire) -> Wire {
        let out = self.fresh();
        self.frame.gates.push_zero(w, out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A gate asked for again is the one made before, after many other
    /// gates too.
    #[test]
    fn reuses_a_gate_made_many_gates_before() {
        let mut b = Builder::new();
        let x = b.input("x", Party::A, 3);
        let first = b.and(x[0], x[1]);
        let mut acc = x[2];
        for _ in 0..100_000 {
            acc = b.xor(acc, first);
            acc = b.and(acc, x[0]);
        }
        let made = b.gate_count();
        assert_eq!(b.and(x[1], x[0]), first);
        assert_eq!(b.gate_count(), made);
    }

    /// A program without blocks comes out ready to run: levelled (its
    /// chains' gates made one chain after the other, interleaved by
    /// level), dead gates gone, and computing what it was built to.
    #[test]
    fn a_flat_program_comes_out_levelled() {
        let mut b = Builder::new();
        let x = b.input("x", Party::A, 8);
        let y = b.input("y", Party::B, 8);
        let mut outs = Vec::new();
        for k in 0..8 {
            let mut acc = x[k];
            for j in 0..300 {
                let t = b.and(acc, y[(j + k) % 8]);
                acc = b.xor(t, x[(j * 3 + k) % 8]);
            }
            _ = b.and(acc, x[0]);
            outs.push(acc);
        }
        b.output("z", &outs);
        let c = b.finish().unwrap();
        assert!(c.is_level_ordered());
        c.validate().unwrap();
        assert_eq!(c.and_count(), 8 * 300);
        let bits = |v: u32| (0..8).map(|i| v >> i & 1 == 1).collect::<Vec<bool>>();
        for (xv, yv) in [(0u32, 0u32), (0xa5, 0x3c), (0xff, 0xff), (0x12, 0xfe)] {
            let want: Vec<bool> = (0..8)
                .map(|k| {
                    let (xb, yb) = (bits(xv), bits(yv));
                    let mut acc = xb[k];
                    for j in 0..300 {
                        acc = (acc & yb[(j + k) % 8]) ^ xb[(j * 3 + k) % 8];
                    }
                    acc
                })
                .collect();
            assert_eq!(c.eval(&[bits(xv), bits(yv)]).unwrap(), vec![want]);
        }
    }

    /// Gates whose values nothing reads, as many as those read, do not
    /// count towards the windows of the levelled program: its windows are
    /// of the gates it keeps, so it is recognised as levelled (counted,
    /// they closed windows of half the gates kept, fewer than a window's
    /// least).
    #[test]
    fn unread_gates_make_no_windows() {
        let mut b = Builder::new();
        let x = b.input("x", Party::A, 4096);
        let y = b.input("y", Party::B, 8);
        let mut outs = Vec::new();
        for (k, &xk) in x.iter().enumerate() {
            let (mut acc, mut unread) = (xk, xk);
            for j in 0..2 {
                acc = b.and(acc, y[(j + k) % 8]);
                acc = b.xor(acc, y[(j + 3 * k) % 8]);
                unread = b.and(unread, y[(j + 5 * k + 1) % 8]);
                unread = b.xor(unread, y[(j + 7 * k + 2) % 8]);
            }
            outs.push(acc);
        }
        b.output("z", &outs);
        let c = b.finish().unwrap();
        assert_eq!(c.gates.len(), 4096 * 4);
        assert!(c.is_level_ordered());
    }
}
