//! The three-party executor of mixed programs (issue 30): the hybrid
//! mode's computing parties keep sums and products in additive sharing
//! modulo 2^w and use garbled circuits (CP1 garbles, CP2 evaluates, CP3
//! chooses labels obliviously) only for the rest (`docs/hybrid.md`).
//!
//! * Inputs are values held as three shares, as in the hybrid mode. A
//!   word of the program that is the low bits of a lane of additive shares
//!   is that lane's shares, with no message; every other input value is
//!   joined in the garbled sharing as the hybrid mode's `pre` does, and
//!   its words come back by Y→A.
//! * Arithmetic ([`arith`]): additions and public constants locally;
//!   products from replicated pairs, each factor passed once to the
//!   previous party, rerandomized by a zero sharing; dot products pay
//!   their factors only. Waves by depth, as in the two-party executor.
//!   A product of two widened lanes that nothing else reads is fused with
//!   the widening ([`fused`]): a replicated product of the lane sums, less
//!   garbled corrections, so that CP2 sends nothing after its evaluation.
//! * Conversions (the hybrid mode's circuits, `hybrid::circuits`): A→Y — fresh shares, CP2 sends CP3 its
//!   share, CP3's sum is chosen into CP2's labels, a garbled adder joins
//!   it with CP1's share; Y→A — CP1 draws a mask, the circuit subtracts
//!   it and opens the result to CP2: shares `(m1, z, 0)` (every word is
//!   rerandomized by a zero sharing before any share of it leaves).
//! * Outputs leave as fresh shares: a word that is a lane of an additive
//!   output is its shares plus a zero sharing; everything else is masked
//!   in the garbled sharing as the hybrid mode's `post` does.

mod arith;
pub mod cost;
mod exec;
mod fused;
mod garbled;
mod inject;

use std::time::Instant;

use sha2::{Digest, Sha256};
use twofold_circuit::{Kind, MixedInput, MixedProgram};
use twofold_crypto::{GarblingScheme, SchemeJob};

use crate::error::ProtocolError;
use crate::hybrid::meet::{Links, Meeting};
use crate::hybrid::{HybridOptions, HybridPhase, HybridReport};
use crate::mixed::plan::Plan;
use crate::options::{Role, ShareKind};
use crate::schedule::Plan as ThreadPlan;
use exec::{Exec, Sharings};
use garbled::{Chooser, Evaluator, Garbled, Garbler};

/// Where a program input's bits come from: bits `offset..offset + len` of
/// input value `value`, extended (by zeros, or by copies of the last bit
/// if `signed`) to the input's width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slice {
    /// The input value.
    pub value: usize,
    /// Its first bit.
    pub offset: u32,
    /// How many bits (at least one).
    pub len: u32,
    /// Whether the bits extend by their last.
    pub signed: bool,
}

/// Where a bit of an output value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutputBit {
    /// A public constant.
    Const(bool),
    /// Bit `.1` of the program's output `.0`.
    Of(usize, u32),
}

/// A mixed program over values held as three shares: its inputs are
/// slices of shared input values, its outputs assemble the shared output
/// values.
#[derive(Clone, Debug)]
pub struct SharedMixed {
    /// The mixed program (of 3 parties).
    pub program: MixedProgram,
    /// The input values: name and width.
    pub input_values: Vec<(String, u32)>,
    /// Per input of the program, where it comes from.
    pub sources: Vec<Slice>,
    /// The output values: name and bits.
    pub output_values: Vec<(String, Vec<OutputBit>)>,
}

impl SharedMixed {
    /// Checks the program and that every slice and output bit is in range.
    pub fn validate(&self) -> Result<Vec<Kind>, ProtocolError> {
        let invalid = |m: String| Err(ProtocolError::Inputs(m));
        let kinds = self
            .program
            .kinds()
            .map_err(|e| ProtocolError::Inputs(e.to_string()))?;
        self.program
            .validate()
            .map_err(|e| ProtocolError::Inputs(e.to_string()))?;
        if self.sources.len() != self.program.inputs.len() {
            return invalid(format!(
                "{} input slices for {} inputs",
                self.sources.len(),
                self.program.inputs.len()
            ));
        }
        for (v, s) in self.program.inputs.iter().zip(&self.sources) {
            let width = self.input_values.get(s.value).map(|&(_, w)| w);
            if s.len == 0 || width.is_none_or(|w| s.offset as u64 + s.len as u64 > w as u64) {
                return invalid(format!(
                    "input {:?} is not a slice of an input value",
                    v.name
                ));
            }
        }
        for (name, bits) in &self.output_values {
            for bit in bits {
                if let OutputBit::Of(o, i) = *bit {
                    let kind = self
                        .program
                        .outputs
                        .get(o)
                        .map(|out| kinds[out.value as usize]);
                    if kind.is_none_or(|k| i >= k.bits()) {
                        return invalid(format!("output {name:?} reads a bit the program lacks"));
                    }
                }
            }
        }
        Ok(kinds)
    }

    /// The program's inputs, numbered, each with its slice.
    pub fn sliced_inputs(&self) -> impl Iterator<Item = (usize, &MixedInput, &Slice)> {
        let inputs = self.program.inputs.iter().zip(&self.sources);
        inputs.enumerate().map(|(k, (v, s))| (k, v, s))
    }

    /// Whether program input `k` is the low bits of one lane of its input
    /// value, shared additively in lanes of `lane` bits: then its shares
    /// are that lane's, with no message.
    pub fn is_lane_word(&self, k: usize, lane: u32) -> bool {
        let s = &self.sources[k];
        matches!(self.program.inputs[k].kind,
            Kind::Word(w) if s.offset.is_multiple_of(lane) && w <= lane.min(s.len))
    }

    /// Whether program input `k` is one whole lane of its input value
    /// (lanes of `lane` bits, shared additively) widened to a wider word:
    /// its shares are then the lane's less 2^lane times shares of the
    /// lane sum's wrap count (`hybrid::circuits::Joined::Wraps`), with no
    /// garbled value.
    pub fn widens_lane(&self, k: usize, lane: u32) -> bool {
        let s = &self.sources[k];
        matches!(self.program.inputs[k].kind,
            Kind::Word(w) if s.offset.is_multiple_of(lane) && s.len == lane && w > lane)
    }

    /// Whether every lane of output value `j` (lanes of `lane` bits) is one
    /// output word of the lane's width, bit 0 first (`kinds`: the
    /// program's value kinds): additive output shares are then the words'.
    pub fn lanes_are_words(&self, kinds: &[Kind], j: usize, lane: u32) -> bool {
        let bits = &self.output_values[j].1;
        let outs = &self.program.outputs;
        bits.len().is_multiple_of(lane as usize)
            && bits.chunks(lane as usize).all(|chunk| match chunk[0] {
                OutputBit::Of(o, 0) => {
                    kinds[outs[o].value as usize] == Kind::Word(lane)
                        && chunk
                            .iter()
                            .enumerate()
                            .all(|(i, b)| *b == OutputBit::Of(o, i as u32))
                }
                _ => false,
            })
    }

    /// Its hash, which the parties compare when they meet.
    pub fn hash(&self) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(b"twofold shared mixed program 1");
        h.update(self.program.hash());
        let mut put = |x: u64| h.update(x.to_le_bytes());
        put(self.input_values.len() as u64);
        for (name, width) in &self.input_values {
            put(name.len() as u64);
            name.bytes().for_each(|b| put(b as u64));
            put(*width as u64);
        }
        put(self.sources.len() as u64);
        for s in &self.sources {
            let fields = [s.value as u64, s.offset as u64, s.len as u64];
            fields
                .into_iter()
                .chain([s.signed as u64])
                .for_each(&mut put);
        }
        put(self.output_values.len() as u64);
        for (name, bits) in &self.output_values {
            put(name.len() as u64);
            name.bytes().for_each(|b| put(b as u64));
            put(bits.len() as u64);
            for bit in bits {
                match *bit {
                    OutputBit::Const(c) => put(c as u64),
                    OutputBit::Of(o, i) => {
                        [2, o as u64, i as u64].into_iter().for_each(&mut put);
                    }
                }
            }
        }
        h.finalize().into()
    }
}

/// Runs computing party `role` on the mixed program after it has met the
/// others (`meeting`), with its shares of every input value; its phases
/// are timed from `start`.
pub(crate) fn play(
    role: Role,
    meeting: &Meeting,
    program: &SharedMixed,
    shares: &[Vec<bool>],
    opts: &HybridOptions,
    start: Instant,
) -> Result<HybridReport, ProtocolError> {
    let plan = Plan::of_shared(&program.program)?;
    let mut links = meeting.meet()?;
    let handshake = start.elapsed();
    let inputs: Vec<(ShareKind, u32)> = opts
        .input_kinds
        .iter()
        .copied()
        .zip(opts.input_lanes.iter().copied())
        .collect();
    let outputs: Vec<(ShareKind, u32)> = opts
        .output_lanes
        .iter()
        .map(|&lane| (opts.output_kind, lane))
        .collect();
    let sharings = Sharings {
        inputs: &inputs,
        outputs: &outputs,
    };
    let mut threads = ThreadPlan::new(opts.schedule, opts.threads.max(1) as usize);
    threads.scheme = opts.scheme;
    if let Some(min) = opts.fgp_min_ands {
        threads.fgp_min_ands = min;
    }
    let job = Job {
        role,
        links: &mut links,
        program,
        plan: &plan,
        threads,
        shares,
        sharings: &sharings,
        opts,
    };
    let (output_shares, and_gates, mut phases) = opts.scheme.dispatch(job)?;
    phases.insert(0, (HybridPhase::Handshake, handshake));
    let done = (output_shares, and_gates);
    Ok(HybridReport::of(role, &links, done, phases, start))
}

/// Output shares, AND gates and the phases' times.
type Done = (Vec<Vec<bool>>, u64, Vec<(HybridPhase, std::time::Duration)>);

/// One party's run after the meeting, as a job generic over the scheme.
struct Job<'a> {
    role: Role,
    links: &'a mut Links,
    program: &'a SharedMixed,
    plan: &'a Plan,
    threads: ThreadPlan,
    shares: &'a [Vec<bool>],
    sharings: &'a Sharings<'a>,
    opts: &'a HybridOptions,
}

impl SchemeJob for Job<'_> {
    type Output = Result<Done, ProtocolError>;
    fn run<S: GarblingScheme>(self) -> Self::Output {
        let progress = self.opts.progress.clone();
        match self.role {
            Role::Cp1 => self.with(Garbler::<S>::new(progress)?),
            Role::Cp2 => self.with(Evaluator::<S>::new(progress)),
            Role::Cp3 => self.with(Chooser::default()),
        }
    }
}

impl Job<'_> {
    fn with<G: Garbled>(self, garbled: G) -> Result<Done, ProtocolError> {
        let (program, plan) = (self.program, self.plan);
        let mut exec = Exec::new(self.role, self.links, garbled, program, plan, self.threads)?;
        exec.inputs(self.shares, self.sharings)?;
        exec.waves()?;
        let shares = exec.outputs(self.sharings)?;
        Ok((shares, exec.and_gates(), exec.phases))
    }
}
