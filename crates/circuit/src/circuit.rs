//! The circuit: wires, gates in topological order, input and output values.

use crate::bits::Bits;
use crate::gate::{Gate, Wire};
use crate::CircuitError;

/// Most wires a circuit read from a file may have (Bristol or binary): 2^30,
/// whose labels alone take 16 GiB when garbled. A reader refuses more
/// before allocating anything for them.
pub const MAX_WIRES: Wire = 1 << 30;

/// Which of the two parties provides an input value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Party {
    /// Party A (by default the garbler).
    A,
    /// Party B (by default the evaluator).
    B,
}

impl Party {
    /// The party's number in files and messages: 0 for A, 1 for B.
    pub fn index(self) -> u8 {
        match self {
            Party::A => 0,
            Party::B => 1,
        }
    }

    /// The other party.
    pub fn other(self) -> Party {
        match self {
            Party::A => Party::B,
            Party::B => Party::A,
        }
    }
}

impl std::fmt::Display for Party {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Party::A => "a",
            Party::B => "b",
        })
    }
}

/// A named input value of a given bit width, owned by one party.
///
/// Input values occupy consecutive wires from wire 0 in declaration order; bit
/// `k` of a value is its `k`-th wire (bit 0 = least significant).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InputValue {
    /// The value's name (`"0"`, `"1"`, … for Bristol circuits).
    pub name: String,
    /// Who provides it.
    pub party: Party,
    /// Width in bits.
    pub width: u32,
}

/// A named output value: the wires that carry it, least significant bit first.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OutputValue {
    /// The value's name (`"0"`, `"1"`, … for Bristol circuits).
    pub name: String,
    /// The wires of the value, bit 0 first.
    pub wires: Vec<Wire>,
}

/// A Boolean circuit of XOR, AND and INV gates in topological order.
///
/// Wire slots may be reused once their value is dead (see [`Circuit::compact`]),
/// so a wire index names a storage slot, written by at most one gate at a time.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Circuit {
    /// Number of wire slots.
    pub num_wires: u32,
    /// Input values; together they occupy wires `0..input_bits()`.
    pub inputs: Vec<InputValue>,
    /// Output values.
    pub outputs: Vec<OutputValue>,
    /// Gates in topological order.
    pub gates: Vec<Gate>,
}

impl Circuit {
    /// Total number of input bits (the input wires are `0..input_bits()`).
    pub fn input_bits(&self) -> usize {
        self.inputs.iter().map(|v| v.width as usize).sum()
    }

    /// Total number of output bits.
    pub fn output_bits(&self) -> usize {
        self.outputs.iter().map(|v| v.wires.len()).sum()
    }

    /// The first wire of each input value.
    pub fn input_offsets(&self) -> Vec<usize> {
        let mut offsets = Vec::with_capacity(self.inputs.len());
        let mut at = 0;
        for v in &self.inputs {
            offsets.push(at);
            at += v.width as usize;
        }
        offsets
    }

    /// All output wires, value after value, bit 0 first.
    pub fn output_wires(&self) -> impl Iterator<Item = Wire> + '_ {
        self.outputs.iter().flat_map(|v| v.wires.iter().copied())
    }

    /// Number of AND gates.
    pub fn and_count(&self) -> usize {
        self.gates.iter().filter(|g| g.is_and()).count()
    }

    /// Checks that every wire is in range and written before it is read, and
    /// that every output wire holds a value at the end.
    pub fn validate(&self) -> Result<(), CircuitError> {
        let n = self.num_wires as usize;
        let input_bits = self.input_bits();
        if input_bits > n {
            return Err(CircuitError::Invalid(format!(
                "{input_bits} input bits but only {n} wires"
            )));
        }
        let mut defined = vec![false; n];
        defined[..input_bits].fill(true);
        for (i, g) in self.gates.iter().enumerate() {
            for w in g.inputs() {
                if w as usize >= n {
                    return Err(CircuitError::Invalid(format!(
                        "gate {i} reads wire {w}, out of range (wires: {n})"
                    )));
                }
                if !defined[w as usize] {
                    return Err(CircuitError::Invalid(format!(
                        "gate {i} reads wire {w} before it is written"
                    )));
                }
            }
            let out = g.out() as usize;
            if out >= n {
                return Err(CircuitError::Invalid(format!(
                    "gate {i} writes wire {out}, out of range (wires: {n})"
                )));
            }
            defined[out] = true;
        }
        for w in self.output_wires() {
            if w as usize >= n || !defined[w as usize] {
                return Err(CircuitError::Invalid(format!(
                    "output wire {w} is never written"
                )));
            }
        }
        Ok(())
    }

    /// Plaintext evaluation: one bit vector per input value (bit 0 first) in,
    /// one per output value out. This is the reference every garbled result is
    /// checked against.
    pub fn eval(&self, inputs: &[Vec<bool>]) -> Result<Vec<Vec<bool>>, CircuitError> {
        let flat = flatten_inputs(self, inputs)?;
        let mut wires = vec![false; self.num_wires as usize];
        wires[..flat.len()].copy_from_slice(&flat);
        eval_gates(&self.gates, &mut wires);
        Ok(self
            .outputs
            .iter()
            .map(|v| v.wires.iter().map(|&w| wires[w as usize]).collect())
            .collect())
    }

    /// The same circuit in single-assignment form: inputs keep wires
    /// `0..input_bits()`, gate `i` writes wire `input_bits() + i`. Any slot
    /// reuse is undone, so gates can be reordered freely (respecting data
    /// dependencies).
    pub fn ssa(&self) -> Circuit {
        self.clone().into_ssa()
    }

    /// [`Circuit::ssa`], consuming the circuit: its gates renumbered in
    /// place.
    pub fn into_ssa(mut self) -> Circuit {
        let input_bits = self.input_bits() as Wire;
        let mut current: Vec<Wire> = (0..self.num_wires).collect();
        for (i, g) in (0..).zip(&mut self.gates) {
            let out = input_bits + i;
            let placed = g.rewire(|w| current[w as usize], out);
            current[g.out() as usize] = out;
            *g = placed;
        }
        for w in self.outputs.iter_mut().flat_map(|v| &mut v.wires) {
            *w = current[*w as usize];
        }
        self.num_wires = input_bits + self.gates.len() as Wire;
        self
    }

    /// Renumbers wires so that inputs stay at `0..input_bits()` and every other
    /// slot is reused as soon as its value is dead, and removes gates whose
    /// value reaches no output. The live set, and so the memory needed to run
    /// the circuit, becomes as small as the gate order allows.
    pub fn compact(&self) -> Circuit {
        self.ssa().compact_ssa()
    }

    /// [`Circuit::compact`] of a circuit already in single assignment (as
    /// [`Circuit::ssa`] makes it), consuming it: its gates are renumbered
    /// in place.
    pub(crate) fn compact_ssa(self) -> Circuit {
        let mut ssa = self;
        let input_bits = ssa.input_bits();
        // Liveness, backwards from the outputs: which values are read (or
        // are outputs), and which inputs of a gate no later gate reads (a
        // bit for each input of each gate: the value dies there).
        let mut read = Bits::new(ssa.num_wires as usize);
        for w in ssa.output_wires() {
            read.insert(w as usize);
        }
        let mut dies = Bits::new(2 * ssa.gates.len());
        for (i, g) in ssa.gates.iter().enumerate().rev() {
            if read.get(g.out() as usize) {
                for (k, w) in g.inputs().enumerate() {
                    if read.insert(w as usize) {
                        dies.insert(2 * i + k);
                    }
                }
            }
        }
        // Allocate slots: inputs keep theirs; a slot is freed after the last
        // gate that reads its value (a gate may write a slot it reads), but
        // one freed by an AND gate only after its run of consecutive AND
        // gates: no AND of a run then writes a slot another AND of the run
        // reads, so the run stays one batch that threads can split (see
        // [`crate::batch`]).
        let mut slot = vec![Wire::MAX; ssa.num_wires as usize];
        let mut free: Vec<Wire> = Vec::new();
        let mut freed_in_run: Vec<Wire> = Vec::new();
        for (v, s) in slot.iter_mut().enumerate().take(input_bits) {
            *s = v as Wire;
            if !read.get(v) {
                free.push(v as Wire);
            }
        }
        let mut next = input_bits as Wire;
        // Gate `i` kept is written at `kept <= i`, once read.
        let mut kept = 0;
        for i in 0..ssa.gates.len() {
            let g = ssa.gates[i];
            if !read.get(g.out() as usize) {
                continue;
            }
            if !g.is_and() {
                free.append(&mut freed_in_run);
            }
            let freed = if g.is_and() {
                &mut freed_in_run
            } else {
                &mut free
            };
            for (k, w) in g.inputs().enumerate() {
                if dies.get(2 * i + k) {
                    freed.push(slot[w as usize]);
                }
            }
            let out = free.pop().unwrap_or_else(|| {
                next += 1;
                next - 1
            });
            slot[g.out() as usize] = out;
            ssa.gates[kept] = g.rewire(|w| slot[w as usize], out);
            kept += 1;
        }
        ssa.gates.truncate(kept);
        let outputs = ssa
            .outputs
            .iter()
            .map(|v| OutputValue {
                name: v.name.clone(),
                wires: v.wires.iter().map(|&w| slot[w as usize]).collect(),
            })
            .collect();
        Circuit {
            num_wires: next,
            inputs: ssa.inputs,
            outputs,
            gates: ssa.gates,
        }
    }
}

/// Runs gates over plaintext wire values.
pub fn eval_gates(gates: &[Gate], wires: &mut [bool]) {
    for g in gates {
        match *g {
            Gate::Xor { a, b, out } => wires[out as usize] = wires[a as usize] ^ wires[b as usize],
            Gate::And { a, b, out } => wires[out as usize] = wires[a as usize] & wires[b as usize],
            Gate::Inv { a, out } => wires[out as usize] = !wires[a as usize],
        }
    }
}

/// Checks the widths of `inputs` against `circuit` and concatenates them.
pub fn flatten_inputs(circuit: &Circuit, inputs: &[Vec<bool>]) -> Result<Vec<bool>, CircuitError> {
    if inputs.len() != circuit.inputs.len() {
        return Err(CircuitError::Inputs(format!(
            "expected {} input values, got {}",
            circuit.inputs.len(),
            inputs.len()
        )));
    }
    for (value, bits) in circuit.inputs.iter().zip(inputs) {
        if bits.len() != value.width as usize {
            return Err(CircuitError::Inputs(format!(
                "input {} has width {}, got {} bits",
                value.name,
                value.width,
                bits.len()
            )));
        }
    }
    Ok(inputs.concat())
}

/// Splits flat output labels into one vector per output value.
pub fn split_outputs<L: Copy>(circuit: &Circuit, flat: &[L]) -> Vec<Vec<L>> {
    let mut at = 0;
    circuit
        .outputs
        .iter()
        .map(|v| {
            let part = flat[at..at + v.wires.len()].to_vec();
            at += v.wires.len();
            part
        })
        .collect()
}
