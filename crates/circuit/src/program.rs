//! Programs: a tree of blocks. A circuit of straight-line gates holds, at
//! positions between its gates, blocks that run a body many times — a
//! parallel region (independent instances) or a sequential loop (each
//! iteration reads the state the previous one left). Bodies nest as deep as
//! the source nests. A program's size follows its source, not the number of
//! gates it executes: a loop is stored once, whatever its trip count.

use std::fmt;

use crate::circuit::Circuit;
use crate::gate::Wire;
use crate::wiring::Wiring;
use crate::CircuitError;

/// Deepest nesting of blocks accepted (reading files, validating).
pub const MAX_DEPTH: usize = 64;

/// Most iterations of one block a program file may ask for: the C
/// compiler's default bound on one loop's iterations (its
/// `Limits::max_iterations`), so that every program it writes loads, and a
/// file patched to loop for hours does not.
pub const MAX_ITERATIONS: u64 = 50_000_000;

/// Wire slots a frame may have beyond twice those its inputs, gates and
/// blocks can write (see [`Frame::validate`]).
const SPARE_WIRES: u64 = 1 << 16;

/// A value carried from one iteration of a sequential loop to the next.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Carried {
    /// The enclosing circuit's wire holding the value before the first
    /// iteration.
    pub init: Wire,
    /// The body wire holding the value at the end of an iteration: it is the
    /// carried input of the next one.
    pub next: Wire,
    /// The enclosing circuit's wire that receives the value after the last
    /// iteration, if it is needed there.
    pub last: Option<Wire>,
}

/// A block: `count` runs of a body, placed between two gates of the
/// enclosing circuit.
///
/// The body's input bits are, in order: `shared.len()` bits that are the
/// same in every iteration, `carried.len()` carried bits (from `init` in the
/// first iteration, then from the previous iteration's `next` wires), and
/// `inputs.width()` bits that `inputs` gives per iteration. Its output bits
/// (its circuit's outputs, value after value) go, per iteration, to the
/// wires `outputs` gives.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Block {
    /// The block runs just before gate number `position` of the enclosing
    /// circuit (`gates.len()`: after the last gate).
    pub position: usize,
    /// How many times the body runs.
    pub count: u64,
    /// Whether the iterations are independent instances (a parallel region:
    /// no carried values, no iteration reads what another writes), so they
    /// may run in any order, at the same time, or on either party.
    pub parallel: bool,
    /// What runs in every iteration.
    pub body: Body,
    /// Enclosing wires read alike by every iteration.
    pub shared: Vec<Wire>,
    /// Values carried between iterations (empty for a parallel block).
    pub carried: Vec<Carried>,
    /// Enclosing wires each iteration reads.
    pub inputs: Wiring,
    /// Enclosing wires each iteration writes (its body's outputs).
    pub outputs: Wiring,
}

/// A circuit with blocks between its gates: the body of a block.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Body {
    /// The straight-line gates; its inputs are the block's inputs, its
    /// outputs the block's per-iteration outputs.
    pub circuit: Circuit,
    /// Blocks, sorted by position.
    pub blocks: Vec<Block>,
}

/// A whole program: the main circuit (its inputs and outputs are the
/// program's) with blocks between its gates.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Program {
    /// The main circuit.
    pub main: Circuit,
    /// Blocks of the main circuit, sorted by position.
    pub blocks: Vec<Block>,
}

/// A circuit and its blocks, borrowed: the main circuit of a program or the
/// body of a block. Everything that walks programs walks frames.
#[derive(Clone, Copy, Debug)]
pub struct Frame<'p> {
    /// The gates.
    pub circuit: &'p Circuit,
    /// The blocks between them.
    pub blocks: &'p [Block],
}

/// Gates executed, counting every iteration of every block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GateCounts {
    /// All gates.
    pub gates: u64,
    /// AND gates.
    pub and: u64,
    /// XOR gates.
    pub xor: u64,
    /// INV gates.
    pub inv: u64,
}

impl GateCounts {
    fn of_gates(circuit: &Circuit) -> GateCounts {
        let mut c = GateCounts {
            gates: circuit.gates.len() as u64,
            ..GateCounts::default()
        };
        for g in &circuit.gates {
            match g {
                crate::Gate::And { .. } => c.and += 1,
                crate::Gate::Xor { .. } => c.xor += 1,
                crate::Gate::Inv { .. } => c.inv += 1,
            }
        }
        c
    }

    fn checked_add(self, o: GateCounts) -> Option<GateCounts> {
        Some(GateCounts {
            gates: self.gates.checked_add(o.gates)?,
            and: self.and.checked_add(o.and)?,
            xor: self.xor.checked_add(o.xor)?,
            inv: self.inv.checked_add(o.inv)?,
        })
    }

    fn checked_mul(self, n: u64) -> Option<GateCounts> {
        Some(GateCounts {
            gates: self.gates.checked_mul(n)?,
            and: self.and.checked_mul(n)?,
            xor: self.xor.checked_mul(n)?,
            inv: self.inv.checked_mul(n)?,
        })
    }
}

impl From<Circuit> for Program {
    fn from(main: Circuit) -> Program {
        Program {
            main,
            blocks: Vec::new(),
        }
    }
}

impl From<Circuit> for Body {
    fn from(circuit: Circuit) -> Body {
        Body {
            circuit,
            blocks: Vec::new(),
        }
    }
}

impl<'p> Frame<'p> {
    /// Gates executed by this frame once, counting every block iteration
    /// (`None` if the count does not fit in 64 bits).
    pub fn checked_counts(self) -> Option<GateCounts> {
        let mut total = GateCounts::of_gates(self.circuit);
        for b in self.blocks {
            total = total.checked_add(b.checked_counts()?)?;
        }
        Some(total)
    }

    /// [`Frame::checked_counts`], saturating at `u64::MAX`.
    pub fn counts(self) -> GateCounts {
        self.checked_counts().unwrap_or(GateCounts {
            gates: u64::MAX,
            and: u64::MAX,
            xor: u64::MAX,
            inv: u64::MAX,
        })
    }

    /// AND gates executed by this frame once (saturating).
    pub fn and_count(self) -> u64 {
        self.counts().and
    }

    /// Checks the frame: no more wires than about twice those its inputs,
    /// gates and blocks can write, wires in range and written before they
    /// are read,
    /// blocks in order and fitting their bodies, parallel blocks whose
    /// iterations are independent, `extra` wires (carried values a block
    /// reads at the end of this body) written, at most [`MAX_DEPTH`] levels
    /// of nesting, and gate counts that fit in 64 bits.
    pub fn validate(self, extra: &[Wire], depth: usize) -> Result<(), CircuitError> {
        let invalid = |m: String| Err(CircuitError::Invalid(m));
        if depth > MAX_DEPTH {
            return invalid(format!("blocks nested more than {MAX_DEPTH} deep"));
        }
        let c = self.circuit;
        // Checked before anything is allocated for the wires: a frame may
        // keep unused wire slots, but not many more than the wires it can
        // write (so a small file cannot ask for gigabytes).
        let writable = self.writable_wires();
        let allowed = writable
            .saturating_mul(2)
            .saturating_add(SPARE_WIRES)
            .min(crate::MAX_WIRES as u64);
        if c.num_wires as u64 > allowed {
            return invalid(format!(
                "{} wires, but the inputs, gates and blocks can write at most {writable}",
                c.num_wires
            ));
        }
        if self.blocks.is_empty() && extra.is_empty() {
            c.validate()?;
        } else {
            let mut defined = Defined::new(c)?;
            let mut next_gate = 0;
            for (r, block) in self.blocks.iter().enumerate() {
                if block.position < next_gate || block.position > c.gates.len() {
                    return invalid(format!(
                        "block {r} is out of order (position {})",
                        block.position
                    ));
                }
                defined.gates(&c.gates[next_gate..block.position], next_gate)?;
                next_gate = block.position;
                block
                    .validate(c.num_wires, &mut defined, depth)
                    .map_err(|e| match e {
                        CircuitError::Invalid(m) => {
                            CircuitError::Invalid(format!("block {r}: {m}"))
                        }
                        e => e,
                    })?;
            }
            defined.gates(&c.gates[next_gate..], next_gate)?;
            for w in c.output_wires().chain(extra.iter().copied()) {
                defined.read(w, format_args!("an output"))?;
            }
        }
        if self.checked_counts().is_none() {
            return invalid("more than 2^64 gates".into());
        }
        Ok(())
    }
}

impl Frame<'_> {
    /// At most how many distinct wires of the circuit can hold a value: its
    /// input bits, one a gate, and what its blocks write (saturating).
    fn writable_wires(self) -> u64 {
        let c = self.circuit;
        let mut n = (c.input_bits() as u64).saturating_add(c.gates.len() as u64);
        for b in self.blocks {
            n = n.saturating_add(b.carried.len() as u64);
            for seg in &b.outputs.segments {
                let per_iteration = seg.len() as u64;
                n = n.saturating_add(match seg {
                    crate::wiring::Segment::Affine { step: 0, .. } => per_iteration,
                    _ => per_iteration.saturating_mul(b.count),
                });
            }
        }
        n
    }
}

/// Which wires of a frame hold a value, while validating.
struct Defined {
    bits: Vec<bool>,
}

impl Defined {
    fn new(c: &Circuit) -> Result<Defined, CircuitError> {
        let n = c.num_wires as usize;
        let input_bits = c.input_bits();
        if input_bits > n {
            return Err(CircuitError::Invalid(format!(
                "{input_bits} input bits but only {n} wires"
            )));
        }
        let mut bits = vec![false; n];
        bits[..input_bits].fill(true);
        Ok(Defined { bits })
    }

    fn read(&self, w: Wire, what: fmt::Arguments<'_>) -> Result<(), CircuitError> {
        match self.bits.get(w as usize) {
            Some(true) => Ok(()),
            Some(false) => Err(CircuitError::Invalid(format!(
                "{what} reads wire {w} before it is written"
            ))),
            None => Err(CircuitError::Invalid(format!(
                "{what} reads wire {w}, out of range (wires: {})",
                self.bits.len()
            ))),
        }
    }

    fn write(&mut self, w: Wire, what: fmt::Arguments<'_>) -> Result<(), CircuitError> {
        let n = self.bits.len();
        match self.bits.get_mut(w as usize) {
            Some(b) => {
                *b = true;
                Ok(())
            }
            None => Err(CircuitError::Invalid(format!(
                "{what} writes wire {w}, out of range (wires: {n})"
            ))),
        }
    }

    fn gates(&mut self, gates: &[crate::Gate], first: usize) -> Result<(), CircuitError> {
        for (i, g) in (first..).zip(gates) {
            for w in g.inputs() {
                self.read(w, format_args!("gate {i}"))?;
            }
            self.write(g.out(), format_args!("gate {i}"))?;
        }
        Ok(())
    }
}

impl Block {
    /// A parallel block at `position` running `body` once per entry of
    /// `instances`, each the wires it reads (after the `shared` ones) and the
    /// wires its outputs go to (the wiring is compressed, see
    /// [`Wiring::compress`]).
    pub fn parallel(
        position: usize,
        body: Circuit,
        shared: Vec<Wire>,
        instances: &[(Vec<Wire>, Vec<Wire>)],
    ) -> Block {
        let count = instances.len();
        let wiring = |lists: Vec<&Vec<Wire>>| {
            let width = lists.first().map_or(0, |l| l.len());
            let flat: Vec<Wire> = lists.into_iter().flatten().copied().collect();
            Wiring::compress(count, width, &flat)
        };
        Block {
            position,
            count: count as u64,
            parallel: true,
            inputs: wiring(instances.iter().map(|i| &i.0).collect()),
            outputs: wiring(instances.iter().map(|i| &i.1).collect()),
            body: Body::from(body),
            shared,
            carried: Vec::new(),
        }
    }

    /// The body as a frame.
    pub fn frame(&self) -> Frame<'_> {
        self.body.frame()
    }

    /// Gates executed by all iterations (`None` on overflow).
    pub fn checked_counts(&self) -> Option<GateCounts> {
        self.body.frame().checked_counts()?.checked_mul(self.count)
    }

    /// AND gates of one iteration (saturating).
    pub fn body_ands(&self) -> u64 {
        self.body.frame().and_count()
    }

    /// AND gates of all iterations (saturating).
    pub fn and_count(&self) -> u64 {
        self.body_ands().saturating_mul(self.count)
    }

    /// The body's input bits: shared, then carried, then per iteration.
    pub fn input_bits(&self) -> usize {
        self.shared.len() + self.carried.len() + self.inputs.width()
    }

    /// Checks the block against its enclosing frame (of `num_wires` wires,
    /// `defined` so far) and marks what it writes.
    fn validate(
        &self,
        num_wires: Wire,
        defined: &mut Defined,
        depth: usize,
    ) -> Result<(), CircuitError> {
        let invalid = |m: String| Err(CircuitError::Invalid(m));
        let body = &self.body.circuit;
        // Walking a block splits labels into frames of its body's and its
        // parent's wires: neither may be empty.
        if num_wires == 0 || body.num_wires == 0 {
            return invalid("a block or the circuit holding it has no wires".into());
        }
        if body.input_bits() != self.input_bits() {
            return invalid(format!(
                "the body has {} input bits, the block gives {}",
                body.input_bits(),
                self.input_bits()
            ));
        }
        if body.output_bits() != self.outputs.width() {
            return invalid(format!(
                "the body has {} output bits, the block takes {}",
                body.output_bits(),
                self.outputs.width()
            ));
        }
        if self.parallel && !self.carried.is_empty() {
            return invalid("a parallel block carries values".into());
        }
        let next: Vec<Wire> = self.carried.iter().map(|c| c.next).collect();
        self.body.frame().validate(&next, depth + 1)?;
        self.inputs.check(self.count, num_wires, "inputs")?;
        self.outputs.check(self.count, num_wires, "outputs")?;
        // The shared and carried values are read even by a block that runs
        // no iteration (its carried values then pass through unchanged).
        for &w in &self.shared {
            defined.read(w, format_args!("a shared input"))?;
        }
        for c in &self.carried {
            defined.read(c.init, format_args!("a carried value"))?;
        }
        if self.count > 0 {
            let mut first = Ok(());
            self.inputs.for_each(0, |_, w| {
                if first.is_ok() {
                    first = defined.read(w, format_args!("an input"));
                }
            });
            first?;
            if self.parallel {
                self.check_independent(num_wires)?;
            }
            let mut wrote = Ok(());
            for_each_written(&self.outputs, self.count, |w| {
                if wrote.is_ok() {
                    wrote = defined.write(w, format_args!("an output"));
                }
            });
            wrote?;
        }
        for c in &self.carried {
            if let Some(w) = c.last {
                defined.write(w, format_args!("a carried value"))?;
            }
        }
        Ok(())
    }

    /// A parallel block's iterations write distinct wires, none of which any
    /// iteration reads.
    fn check_independent(&self, num_wires: Wire) -> Result<(), CircuitError> {
        let mut written = vec![false; num_wires as usize];
        let mut twice = None;
        self.outputs.for_all(self.count, |w| {
            if std::mem::replace(&mut written[w as usize], true) {
                twice.get_or_insert(w);
            }
        });
        if let Some(w) = twice {
            return Err(CircuitError::Invalid(format!(
                "two instances of a parallel block write wire {w}"
            )));
        }
        let mut read = None;
        for &w in &self.shared {
            if written[w as usize] {
                read.get_or_insert(w);
            }
        }
        for_each_written(&self.inputs, self.count, |w| {
            if written[w as usize] {
                read.get_or_insert(w);
            }
        });
        match read {
            Some(w) => Err(CircuitError::Invalid(format!(
                "an instance of a parallel block reads wire {w}, which an instance writes"
            ))),
            None => Ok(()),
        }
    }
}

/// Calls `f` on the wires a wiring touches over `count` iterations, an
/// affine segment of step 0 once rather than `count` times.
fn for_each_written(wiring: &Wiring, count: u64, mut f: impl FnMut(Wire)) {
    for seg in &wiring.segments {
        match seg {
            crate::wiring::Segment::Affine {
                len,
                start,
                step: 0,
            } => (*start..*start + *len).for_each(&mut f),
            crate::wiring::Segment::Affine { len, start, step } => {
                for k in 0..count {
                    let base = (*start as i64 + k as i64 * step) as Wire;
                    (base..base + *len).for_each(&mut f);
                }
            }
            crate::wiring::Segment::Ranges { len, starts } => {
                for &first in starts {
                    (first..first + *len).for_each(&mut f);
                }
            }
            crate::wiring::Segment::Table { wires, .. } => wires.iter().copied().for_each(&mut f),
        }
    }
}

impl Body {
    /// The body as a frame.
    pub fn frame(&self) -> Frame<'_> {
        Frame {
            circuit: &self.circuit,
            blocks: &self.blocks,
        }
    }
}

impl Program {
    /// The main circuit and its blocks as a frame.
    pub fn frame(&self) -> Frame<'_> {
        Frame {
            circuit: &self.main,
            blocks: &self.blocks,
        }
    }

    /// Gates executed, counting every block iteration (saturating).
    pub fn counts(&self) -> GateCounts {
        self.frame().counts()
    }

    /// AND gates executed, counting every block iteration (saturating).
    pub fn and_count(&self) -> u64 {
        self.frame().and_count()
    }

    /// Checks the whole program (see [`Frame::validate`]).
    pub fn validate(&self) -> Result<(), CircuitError> {
        self.frame().validate(&[], 0)
    }

    /// The blocks of the main circuit, each with its index, that are
    /// parallel (the regions inter-party parallelism splits).
    pub fn parallel_blocks(&self) -> impl Iterator<Item = (usize, &Block)> {
        self.blocks.iter().enumerate().filter(|(_, b)| b.parallel)
    }
}
