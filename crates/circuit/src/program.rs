//! Programs: a main circuit plus parallel regions, and the one executor that
//! every interpreter (plaintext, garbler, evaluator) runs through.

use std::ops::Range;

use sha2::{Digest, Sha256};

use crate::circuit::Circuit;
use crate::gate::{Gate, Wire};
use crate::CircuitError;

/// One instance of a region: the main-circuit wires it reads (its dedicated
/// inputs) and the main-circuit wires its outputs are written to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RegionInstance {
    /// Main wires feeding the body's dedicated input bits, in order.
    pub inputs: Vec<Wire>,
    /// Main wires receiving the body's output bits, in order.
    pub outputs: Vec<Wire>,
}

/// A parallel region: a sub-circuit run once per instance, the instances
/// independent of each other. The body is stored once (SIMD).
///
/// The body's input bits are the `shared` bits (the same main wires for every
/// instance) followed by the instance's dedicated bits.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Region {
    /// The sub-circuit (its input values' parties are not used).
    pub body: Circuit,
    /// The region runs just before main gate number `position`.
    pub position: usize,
    /// Main wires feeding the body's first `shared.len()` input bits.
    pub shared: Vec<Wire>,
    /// The instances, in execution order.
    pub instances: Vec<RegionInstance>,
}

/// A main circuit plus zero or more parallel regions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Program {
    /// The main circuit: its inputs and outputs are the program's.
    pub main: Circuit,
    /// Parallel regions, sorted by `position`.
    pub regions: Vec<Region>,
}

/// An interpreter of gates over labels of some kind: plaintext bits, garbler
/// 0-labels, evaluator active labels, or anything else that walks a circuit.
pub trait Engine {
    /// What a wire holds for this interpreter.
    type Label: Copy + Default;
    /// What can go wrong (a network error, say).
    type Error;
    /// Runs `gates` (topologically ordered) over `labels`, indexed by wire.
    /// Within every maximal run of consecutive AND gates in `gates`, no AND
    /// reads the output of another: each run can be hashed as one batch.
    /// [`Program::run`] cuts the circuit into such batches (see
    /// [`for_each_batch`]); [`Circuit::levelize`] makes them large.
    fn run_gates(&mut self, gates: &[Gate], labels: &mut [Self::Label]) -> Result<(), Self::Error>;
}

impl From<Circuit> for Program {
    fn from(main: Circuit) -> Program {
        Program {
            main,
            regions: Vec::new(),
        }
    }
}

impl Program {
    /// Total AND gates executed, counting every region instance.
    pub fn and_count(&self) -> u64 {
        self.main.and_count() as u64
            + self
                .regions
                .iter()
                .map(|r| r.body.and_count() as u64 * r.instances.len() as u64)
                .sum::<u64>()
    }

    /// Checks the main circuit, every region body, and that each region reads
    /// only main wires written before it and fits its body's shape.
    pub fn validate(&self) -> Result<(), CircuitError> {
        if self.regions.is_empty() {
            return self.main.validate();
        }
        let n = self.main.num_wires as usize;
        let mut defined = vec![false; n];
        defined[..self.main.input_bits().min(n)].fill(true);
        let mut next_gate = 0;
        let check = |w: Wire, defined: &[bool], what: &str| {
            if (w as usize) < n && defined[w as usize] {
                Ok(())
            } else {
                Err(CircuitError::Invalid(format!(
                    "{what} reads wire {w} before it is written"
                )))
            }
        };
        for (r, region) in self.regions.iter().enumerate() {
            region.body.validate()?;
            if region.position < next_gate || region.position > self.main.gates.len() {
                return Err(CircuitError::Invalid(format!(
                    "region {r} is out of order (position {})",
                    region.position
                )));
            }
            for g in &self.main.gates[next_gate..region.position] {
                for w in g.inputs() {
                    check(w, &defined, "a gate")?;
                }
                defined[g.out() as usize] = true;
            }
            next_gate = region.position;
            let dedicated = region.body.input_bits().checked_sub(region.shared.len());
            for inst in &region.instances {
                if Some(inst.inputs.len()) != dedicated
                    || inst.outputs.len() != region.body.output_bits()
                {
                    return Err(CircuitError::Invalid(format!(
                        "region {r}: an instance does not match the body's inputs or outputs"
                    )));
                }
                for &w in region.shared.iter().chain(&inst.inputs) {
                    check(w, &defined, &format!("region {r}"))?;
                }
            }
            for inst in &region.instances {
                for &w in &inst.outputs {
                    if w as usize >= n {
                        return Err(CircuitError::Invalid(format!(
                            "region {r} writes wire {w}, out of range"
                        )));
                    }
                    defined[w as usize] = true;
                }
            }
        }
        for g in &self.main.gates[next_gate..] {
            for w in g.inputs() {
                check(w, &defined, "a gate")?;
            }
            defined[g.out() as usize] = true;
        }
        for w in self.main.output_wires() {
            check(w, &defined, "an output")?;
        }
        Ok(())
    }

    /// Runs the program with `engine`: `inputs` holds one label per input bit
    /// (wires `0..input_bits()`); returns one label per output bit, value
    /// after value. Regions run in order, their instances one after another.
    pub fn run<E: Engine>(
        &self,
        engine: &mut E,
        inputs: &[E::Label],
    ) -> Result<Vec<E::Label>, E::Error> {
        assert_eq!(
            inputs.len(),
            self.main.input_bits(),
            "one label per input bit"
        );
        let mut labels = vec![E::Label::default(); self.main.num_wires as usize];
        labels[..inputs.len()].copy_from_slice(inputs);
        let main_wires = self.main.num_wires;
        let mut next_gate = 0;
        for region in &self.regions {
            for_each_batch(
                &self.main.gates[next_gate..region.position],
                main_wires,
                |batch| engine.run_gates(batch, &mut labels),
            )?;
            next_gate = region.position;
            let mut runner = InstanceRunner::new(region);
            let mut outputs = Vec::new();
            for group in runner.groups(&region.instances) {
                outputs.clear();
                runner.run(engine, group, &labels, &mut outputs)?;
                let wires = group.iter().flat_map(|inst| inst.outputs.iter());
                for (&dst, &l) in wires.zip(&outputs) {
                    labels[dst as usize] = l;
                }
            }
        }
        for_each_batch(&self.main.gates[next_gate..], main_wires, |batch| {
            engine.run_gates(batch, &mut labels)
        })?;
        Ok(self
            .main
            .output_wires()
            .map(|w| labels[w as usize])
            .collect())
    }

    /// Plaintext evaluation: one bit vector per input value in, one per output
    /// value out.
    pub fn eval(&self, inputs: &[Vec<bool>]) -> Result<Vec<Vec<bool>>, CircuitError> {
        let flat = flatten_inputs(&self.main, inputs)?;
        let mut engine = PlainEngine;
        let out = self
            .run(&mut engine, &flat)
            .unwrap_or_else(|never| match never {});
        Ok(split_outputs(&self.main, &out))
    }

    /// The program's identity: SHA-256 of its binary encoding. Both parties
    /// compare it at the handshake.
    pub fn hash(&self) -> [u8; 32] {
        /// Feeds the encoding straight into the hash, without holding it.
        struct Hasher(Sha256);
        impl std::io::Write for Hasher {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                self.0.update(bytes);
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut hasher = Hasher(Sha256::new());
        crate::binary::write_program(self, &mut hasher).expect("hashing cannot fail");
        hasher.0.finalize().into()
    }

    /// Whether the main circuit (if there are no regions) and every region
    /// body are already in level order, so [`Program::levelize`] would not
    /// change them.
    pub fn is_levelized(&self) -> bool {
        (!self.regions.is_empty() || self.main.is_level_ordered())
            && self.regions.iter().all(|r| r.body.is_level_ordered())
    }

    /// The program with its main circuit and region bodies in level order
    /// (see [`Circuit::levelize`]). Only programs without regions have their
    /// main circuit reordered: with regions, main wires are shared with the
    /// region calls, so the main circuit keeps its order.
    pub fn levelize(&self) -> Program {
        if self.regions.is_empty() {
            return Program::from(self.main.levelize());
        }
        Program {
            main: self.main.clone(),
            regions: self
                .regions
                .iter()
                .map(|r| Region {
                    body: r.body.levelize(),
                    ..r.clone()
                })
                .collect(),
        }
    }
}

/// Cuts `gates` into consecutive batches in which no AND of a run of
/// consecutive ANDs reads the output of an earlier AND of the same run, and
/// calls `f` on each. A cut is made only where such a dependency would occur,
/// so a levelled circuit gives one batch per AND level.
pub fn for_each_batch<E>(
    gates: &[Gate],
    num_wires: Wire,
    f: impl FnMut(&[Gate]) -> Result<(), E>,
) -> Result<(), E> {
    Batches::of(gates, num_wires).for_each(gates, f)
}

/// Where a gate list is cut into batches (see [`for_each_batch`]), computed
/// once and reused, e.g. for every instance of a region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Batches {
    /// Index of the first gate of every batch but the first.
    cuts: Vec<usize>,
}

impl Batches {
    /// The batches of `gates` over `num_wires` wire slots.
    pub fn of(gates: &[Gate], num_wires: Wire) -> Batches {
        // written[w] == run: wire w was written by an AND of the current run.
        let mut written = vec![0u32; num_wires as usize];
        let mut run = 1u32;
        let mut cuts = Vec::new();
        for (i, g) in gates.iter().enumerate() {
            match *g {
                Gate::And { a, b, out } => {
                    if written[a as usize] == run || written[b as usize] == run {
                        cuts.push(i);
                        run += 1;
                    }
                    written[out as usize] = run;
                }
                _ => {
                    if i > 0 && gates[i - 1].is_and() {
                        run += 1;
                    }
                }
            }
        }
        Batches { cuts }
    }

    /// Calls `f` on every batch of `gates` (the list these batches were
    /// computed for), in order.
    pub fn for_each<E>(
        &self,
        gates: &[Gate],
        mut f: impl FnMut(&[Gate]) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut start = 0;
        for &cut in &self.cuts {
            f(&gates[start..cut])?;
            start = cut;
        }
        f(&gates[start..])
    }
}

/// Runs the instances of one region, a group at a time in lockstep: the
/// group's copies of the body advance segment by segment (an AND run or a
/// run of free gates), so a narrow body's AND levels become as wide as the
/// group and the garbling engines hash them in full batches. The body's
/// labels, output wires and segments are prepared once for all instances.
pub struct InstanceRunner<'r, L> {
    region: &'r Region,
    group: usize,
    /// Body gate ranges: maximal runs of AND gates or of free gates, split
    /// where an AND run depends on itself (see [`Batches`]).
    segments: Vec<Range<usize>>,
    batches: Batches,
    labels: Vec<L>,
    outputs: Vec<Wire>,
    combined: Vec<Gate>,
}

impl<'r, L: Copy + Default> InstanceRunner<'r, L> {
    /// A runner for `region`'s instances, [`InstanceRunner::lockstep`] of them
    /// at a time.
    pub fn new(region: &'r Region) -> Self {
        let body = &region.body;
        let group = Self::lockstep(region);
        let batches = Batches::of(&body.gates, body.num_wires);
        let mut segments: Vec<Range<usize>> = Vec::new();
        let mut cuts = batches.cuts.iter().peekable();
        for (i, g) in body.gates.iter().enumerate() {
            let cut = cuts.next_if(|&&c| c == i).is_some();
            match segments.last_mut() {
                Some(last) if !cut && body.gates[last.start].is_and() == g.is_and() => {
                    last.end = i + 1
                }
                _ => segments.push(i..i + 1),
            }
        }
        InstanceRunner {
            region,
            group,
            segments,
            batches,
            labels: vec![L::default(); group * body.num_wires as usize],
            outputs: body.output_wires().collect(),
            combined: Vec::new(),
        }
    }

    /// How many instances run in lockstep: bodies whose AND levels are
    /// narrow (median under 32 gates) run up to 16 at a time, so the levels
    /// become a few hundred gates wide, as long as the group's labels stay
    /// within 256 KiB (cache-sized); wider bodies run one at a time (their
    /// batches are full already, and more copies only crowd the caches).
    pub fn lockstep(region: &Region) -> usize {
        let body = &region.body;
        let median = crate::levels::CircuitStats::of(body)
            .median_ands_per_level()
            .max(1);
        let group = if median < 32 {
            (512 / median).min(16)
        } else {
            1
        };
        let fits = (16384 / body.num_wires.max(1) as usize).max(1);
        group.min(fits).min(region.instances.len().max(1))
    }

    /// Runs `instances` (at most the lockstep group, see
    /// [`InstanceRunner::groups`]) with `engine`, their inputs read from
    /// `main` (labels by main wire); appends their output labels, instance
    /// after instance, to `out`.
    pub fn run<E: Engine<Label = L>>(
        &mut self,
        engine: &mut E,
        instances: &[RegionInstance],
        main: &[L],
        out: &mut Vec<L>,
    ) -> Result<(), E::Error> {
        let region = self.region;
        let body = &region.body;
        let nw = body.num_wires as usize;
        let g = instances.len();
        assert!(g <= self.group, "at most one lockstep group at a time");
        for (r, inst) in instances.iter().enumerate() {
            let slots = &mut self.labels[r * nw..(r + 1) * nw];
            for (slot, &w) in slots
                .iter_mut()
                .zip(region.shared.iter().chain(&inst.inputs))
            {
                *slot = main[w as usize];
            }
        }
        let labels = &mut self.labels[..g * nw];
        if g == 1 {
            self.batches
                .for_each(&body.gates, |batch| engine.run_gates(batch, labels))?;
        } else {
            for seg in &self.segments {
                self.combined.clear();
                for r in 0..g {
                    let off = (r * nw) as Wire;
                    let gates = &body.gates[seg.clone()];
                    self.combined.extend(
                        gates
                            .iter()
                            .map(|gate| gate.rewire(|w| w + off, gate.out() + off)),
                    );
                }
                engine.run_gates(&self.combined, labels)?;
            }
        }
        for r in 0..g {
            out.extend(self.outputs.iter().map(|&w| labels[r * nw + w as usize]));
        }
        Ok(())
    }

    /// The lockstep groups of `instances`.
    pub fn groups<'i>(
        &self,
        instances: &'i [RegionInstance],
    ) -> std::slice::Chunks<'i, RegionInstance> {
        instances.chunks(self.group)
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

/// The plaintext interpreter.
pub struct PlainEngine;

impl Engine for PlainEngine {
    type Label = bool;
    type Error = std::convert::Infallible;
    fn run_gates(&mut self, gates: &[Gate], labels: &mut [bool]) -> Result<(), Self::Error> {
        crate::circuit::eval_gates(gates, labels);
        Ok(())
    }
}
