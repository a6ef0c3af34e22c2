//! The cost model of mixed programs: bytes and one-way messages of every
//! operation in each sharing and of every conversion, weighed for a
//! [`Network`], against pure garbled circuits. Pure functions:
//! [`unit_costs`] gives one operation's cost in each sharing (what a
//! choice per region would weigh; the compiler's partition does not choose
//! per region yet), and [`estimate`] gives a whole program's summary (what
//! `stats` prints and `--protocol auto` compares).
//!
//! The arithmetic figures are the formulas of [`crate::arith::cost`],
//! which `tests/arith_costs.rs` checks against counted bytes; the mixed
//! estimate is checked against the executor's counters in
//! `tests/mixed_costs.rs`. The garbled side counts AND gates: an adder or
//! subtractor of `w` bits has `w − 1`, a product `w² − w + 1` (the
//! compiler's multiplier, measured with `twofold stats`: 57, 241, 993 and
//! 4,033 AND gates at 8, 16, 32 and 64 bits).

use std::collections::BTreeMap;

use twofold_circuit::{Kind, MixedProgram, Party, Step};
use twofold_crypto::Scheme;
use twofold_ot::Extension;

use super::network::Network;
use super::plan::{CrossLayer, Plan, Term, YaoEntry};
use crate::arith::cost::{self as arith, Cost};
use crate::arith::{Extensions, Width};
use crate::error::ProtocolError;
use crate::options::Reveal;

/// Bytes of an OT-extension instance's base OTs (frame headers included),
/// the same for every extension; the rest of its setup goes with its first
/// batch ([`Extension::instance_bytes`]).
const BASE_OTS: u64 = Extension::Iknp.setup_bytes();
/// Bytes of the setup both parties send: hellos (162 bytes, measured) and
/// the base OTs of the two arithmetic directions.
pub const ARITH_SETUP: u64 = 162 + 2 * BASE_OTS;
/// Bytes of the garbling's base OTs.
pub const YAO_SETUP: u64 = BASE_OTS;

/// The correlated-OT batches (their OT counts) of a mixed run's three
/// instances: the arithmetic direction whose vectors A holds, the one
/// whose vectors B holds, and the garbling's (the evaluator's garbled
/// inputs and A→Y). An instance that runs no batch sends no more than its
/// base OTs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Batches {
    /// A's vectors times B's scalars.
    pub a_vectors: Vec<u64>,
    /// B's vectors times A's scalars.
    pub b_vectors: Vec<u64>,
    /// The garbling's.
    pub garbling: Vec<u64>,
}

/// Adds a batch of `m` OTs to `list` (none for `m = 0`: no batch runs).
fn push(list: &mut Vec<u64>, m: u64) {
    if m > 0 {
        list.push(m);
    }
}

impl Batches {
    /// The extension each instance runs: the one that moves fewer bytes
    /// for its batches ([`Extension::cheapest`]).
    pub fn extensions(&self) -> Extensions {
        Extensions {
            a_vectors: Extension::cheapest(&self.a_vectors),
            b_vectors: Extension::cheapest(&self.b_vectors),
            garbling: Extension::cheapest(&self.garbling),
        }
    }

    /// The bytes the instances move under `exts` but for their base OTs:
    /// their batches and deferred setups.
    fn bytes(&self, exts: &Extensions) -> u64 {
        exts.a_vectors
            .instance_bytes(&self.a_vectors)
            .saturating_add(exts.b_vectors.instance_bytes(&self.b_vectors))
            .saturating_add(exts.garbling.instance_bytes(&self.garbling))
    }

    /// The bytes the instances defer to their first batch under `exts`.
    fn deferred(&self, exts: &Extensions) -> u64 {
        let deferred = |list: &[u64], ext: Extension| {
            if list.is_empty() {
                0
            } else {
                ext.deferred_setup_bytes()
            }
        };
        deferred(&self.a_vectors, exts.a_vectors)
            + deferred(&self.b_vectors, exts.b_vectors)
            + deferred(&self.garbling, exts.garbling)
    }
}

/// AND gates of a garbled `w`-bit adder or subtractor.
pub fn add_ands(w: u32) -> u64 {
    w.saturating_sub(1) as u64
}

/// AND gates of a garbled `w`-bit product modulo 2^w (the compiler's
/// multiplier).
pub fn mul_ands(w: u32) -> u64 {
    let w = w as u64;
    w * w - w + 1
}

/// AND gates of `x·c` for a public `c`: a shifted copy of `x` per set bit
/// of `c` (below the width), added up.
pub fn mul_const_ands(w: u32, c: u64) -> u64 {
    (c.count_ones() as u64).saturating_sub(1) * add_ands(w)
}

/// What one operation of `w`-bit words costs in each form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnitCosts {
    /// A product of one party's word with the other's (a cross product).
    pub cross: Cost,
    /// A product of two shared words: its triple (offline) and its online
    /// layer.
    pub shared: Cost,
    /// A→Y of one word.
    pub to_yao: Cost,
    /// Y→A of one word.
    pub to_arith: Cost,
    /// Bit injection of one bit.
    pub inject: Cost,
    /// A garbled sum or difference.
    pub yao_add: Cost,
    /// A garbled product.
    pub yao_mul: Cost,
}

/// The cost of each operation of `w`-bit words, one at a time (a layer of
/// many costs less per product: its messages are shared).
pub fn unit_costs(width: Width, scheme: Scheme) -> UnitCosts {
    let w = width.bits();
    let garbled = |ands| Cost {
        bytes: arith::tables(scheme, ands),
        flights: 1,
    };
    let exts = Extensions::default();
    UnitCosts {
        cross: arith::cross(width, (1, 1), (0, 0), &exts),
        shared: arith::triples(width, 1, &exts) + arith::mul(width, 1),
        to_yao: arith::to_yao(width, 1, scheme, &exts),
        to_arith: arith::to_arith(width, 1, scheme),
        inject: arith::inject_bits(width, 1, &exts),
        yao_add: garbled(add_ands(w)),
        yao_mul: garbled(mul_ands(w)),
    }
}

/// Operations of a mixed program, by sharing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ops {
    /// Arithmetic steps done locally (linear steps, local products).
    pub local: u64,
    /// Products of one party's share with the other's.
    pub cross: u64,
    /// Products of shared words (Beaver triples).
    pub beaver: u64,
    /// A→Y conversions.
    pub to_yao: u64,
    /// Y→A conversions.
    pub to_arith: u64,
    /// Bit injections.
    pub inject: u64,
    /// AND gates of the Boolean steps and conversions.
    pub and_gates: u64,
}

/// A mixed program's estimate: its operations, rounds and cost, and the
/// cost of the same function in pure garbled circuits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Estimate {
    /// Operations by sharing.
    pub ops: Ops,
    /// Rounds (waves that send).
    pub rounds: usize,
    /// The mixed run, setup included.
    pub mixed: Cost,
    /// The same function as one garbled circuit: every arithmetic step a
    /// Boolean one, inputs garbled.
    pub yao: Cost,
    /// The OT extension of each instance of the mixed run.
    pub extensions: Extensions,
}

impl Estimate {
    /// Seconds of the mixed run and of pure garbled circuits on `net`.
    pub fn seconds(&self, net: &Network) -> (f64, f64) {
        (
            net.seconds(self.mixed.bytes, self.mixed.flights),
            net.seconds(self.yao.bytes, self.yao.flights),
        )
    }

    /// A summary for people, weighed for `net`.
    pub fn summary(&self, net: &Network) -> String {
        let o = &self.ops;
        let (mixed, yao) = self.seconds(net);
        format!(
            "arithmetic: {} local, {} cross products, {} shared products\n\
             conversions: {} A→Y, {} Y→A, {} bit injections\n\
             garbled: {} AND gates\n\
             rounds: {}\n\
             mixed: {} bytes, {} messages, {:.3} s on {net}\n\
             pure garbled circuits: {} bytes, {} messages, {:.3} s",
            o.local,
            o.cross,
            o.beaver,
            o.to_yao,
            o.to_arith,
            o.inject,
            o.and_gates,
            self.rounds,
            self.mixed.bytes,
            self.mixed.flights,
            mixed,
            self.yao.bytes,
            self.yao.flights,
            yao,
        )
    }
}

/// Estimates `program` (two parties) run with `scheme`, outputs opened as
/// `reveal` says.
pub fn estimate(
    program: &MixedProgram,
    scheme: Scheme,
    reveal: Reveal,
) -> Result<Estimate, ProtocolError> {
    let plan = Plan::of(program)?;
    let (mut estimate, batches) = walk(program, &plan, (scheme, reveal))?;
    // The walk counted every batch by the default extension; each instance
    // runs its own.
    let exts = batches.extensions();
    // (Saturating, as the sums are: no overflow for programs far beyond
    // any run.)
    estimate.mixed.bytes = estimate
        .mixed
        .bytes
        .saturating_sub(batches.bytes(&Extensions::default()))
        .saturating_add(batches.bytes(&exts));
    estimate.extensions = exts;
    Ok(estimate)
}

/// The OT extension each instance of `program`'s mixed run uses (`plan`
/// is its plan): the cheaper for the batches it runs. Both parties find
/// the same from the program.
pub fn extensions(program: &MixedProgram, plan: &Plan) -> Result<Extensions, ProtocolError> {
    let (_, batches) = walk(program, plan, (Scheme::HalfGates, Reveal::Both))?;
    Ok(batches.extensions())
}

/// Estimates the run with every instance on the default extension, and
/// finds the OT batches of each instance.
fn walk(
    program: &MixedProgram,
    plan: &Plan,
    (scheme, reveal): (Scheme, Reveal),
) -> Result<(Estimate, Batches), ProtocolError> {
    let exts = &Extensions::default();
    let garbled = plan.kinds.iter().any(|k| matches!(k, Kind::Bits(_)));
    let mut ops = Ops::default();
    let mut batches = Batches::default();
    let mut mixed = Cost {
        bytes: ARITH_SETUP + if garbled { YAO_SETUP } else { 0 },
        flights: 5 + if garbled { 3 } else { 0 },
    };
    for (&w, &n) in &plan.triples {
        let width = Width::new(w)?;
        mixed = mixed + arith::triples(width, n, exts);
        push(&mut batches.a_vectors, arith::cross_ots(w, n));
        push(&mut batches.b_vectors, arith::cross_ots(w, n));
    }
    // Garbled inputs.
    let (mut a_bits, mut b_bits) = (0, 0);
    for v in &program.inputs {
        if let Kind::Bits(n) = v.kind {
            *if v.owner == 0 {
                &mut a_bits
            } else {
                &mut b_bits
            } += n as u64;
        }
    }
    mixed = mixed + garbled_inputs(a_bits, b_bits, exts.garbling);
    push(&mut batches.garbling, b_bits);
    for wave in &plan.waves {
        let sending = &wave.sending;
        let count = (&mut ops, &mut batches);
        mixed = mixed + wave_cost(program, plan, sending, (scheme, exts), count)?;
        for &i in &wave.local {
            match &program.steps[i] {
                Step::Boolean { program: p, .. } => {
                    let ands = program.programs[*p as usize].and_count();
                    ops.and_gates = ops.and_gates.saturating_add(ands);
                    mixed = mixed
                        + Cost {
                            bytes: arith::tables(scheme, ands),
                            flights: 1,
                        };
                }
                _ => ops.local += 1,
            }
        }
    }
    mixed = mixed + outputs_cost(program, plan, reveal)?;
    mixed.bytes += batches.deferred(exts);
    let estimate = Estimate {
        ops,
        rounds: plan.rounds(),
        mixed,
        yao: pure_yao(program, plan, scheme, reveal),
        extensions: *exts,
    };
    Ok((estimate, batches))
}

/// Garbled inputs: the labels of A's `a` bits, and B's `b` bits by
/// correlated OT of extension `ext` (no message for a side with none).
pub fn garbled_inputs(a: u64, b: u64, ext: Extension) -> Cost {
    let side = |n: u64, bytes: u64| Cost {
        bytes: if n > 0 { bytes } else { 0 },
        flights: (n > 0) as u64,
    };
    side(b, arith::cot(ext, b)) + side(a, arith::labels(a))
}

/// The sending steps of a wave: per width, a cross layer and a Beaver
/// layer; A→Y, Y→A and injections batched per width.
fn wave_cost(
    program: &MixedProgram,
    plan: &Plan,
    steps: &[usize],
    (scheme, exts): (Scheme, &Extensions),
    (ops, batches): (&mut Ops, &mut Batches),
) -> Result<Cost, ProtocolError> {
    let mut cross: BTreeMap<u32, Vec<_>> = BTreeMap::new();
    let mut beaver: BTreeMap<u32, u64> = BTreeMap::new();
    let mut conversions: BTreeMap<(u8, u32), u64> = BTreeMap::new();
    for &i in steps {
        let w = plan.kinds[plan.first_values[i] as usize].bits();
        let step = &program.steps[i];
        let kind = match step {
            Step::ToYao(x) => match YaoEntry::of(plan, *x) {
                YaoEntry::Adder => 0,
                YaoEntry::InputOf(Party::A) => 3,
                YaoEntry::InputOf(Party::B) => 4,
            },
            Step::ToArith(_) => 1,
            Step::Inject { .. } => 2,
            _ => {
                for term in &plan.terms[i] {
                    match term {
                        Term::Cross { a, b } => cross.entry(w).or_default().push((*a, *b)),
                        Term::Beaver => *beaver.entry(w).or_insert(0) += 1,
                        Term::Local => {}
                    }
                }
                continue;
            }
        };
        *conversions.entry((kind, w)).or_insert(0) += 1;
    }
    let mut cost = Cost::default();
    for (w, pairs) in cross {
        ops.cross += pairs.len() as u64;
        let (a, b) = CrossLayer::of(pairs.iter().copied()).shape();
        push(&mut batches.a_vectors, arith::cross_ots(w, a.0));
        push(&mut batches.b_vectors, arith::cross_ots(w, b.0));
        cost = cost + arith::cross(Width::new(w)?, a, b, exts);
    }
    for (w, n) in beaver {
        ops.beaver += n;
        cost = cost + arith::mul(Width::new(w)?, n);
    }
    for ((kind, w), n) in conversions {
        let width = Width::new(w)?;
        cost = cost
            + match kind {
                0 => {
                    ops.to_yao += n;
                    push(&mut batches.garbling, n * w as u64);
                    ops.and_gates += n * add_ands(w);
                    arith::to_yao(width, n, scheme, exts)
                }
                3 | 4 => {
                    ops.to_yao += n;
                    let bits = n * w as u64;
                    match kind {
                        3 => garbled_inputs(bits, 0, exts.garbling),
                        _ => {
                            push(&mut batches.garbling, bits);
                            garbled_inputs(0, bits, exts.garbling)
                        }
                    }
                }
                1 => {
                    ops.to_arith += n;
                    ops.and_gates += n * add_ands(w);
                    arith::to_arith(width, n, scheme)
                }
                _ => {
                    ops.inject += n;
                    push(&mut batches.a_vectors, arith::cross_ots(1, n));
                    arith::inject_bits(width, n, exts)
                }
            };
    }
    Ok(cost)
}

/// Opening the outputs: words per width, bits together.
fn outputs_cost(
    program: &MixedProgram,
    plan: &Plan,
    reveal: Reveal,
) -> Result<Cost, ProtocolError> {
    let mut words: BTreeMap<u32, u64> = BTreeMap::new();
    let mut bits = 0;
    for o in &program.outputs {
        match plan.kinds[o.value as usize] {
            Kind::Word(w) => *words.entry(w).or_insert(0) += 1,
            Kind::Bits(n) => bits += n as u64,
        }
    }
    let ways = if reveal == Reveal::Both { 2 } else { 1 };
    let mut cost = Cost::default();
    for (w, n) in words {
        let both = arith::open(Width::new(w)?, n);
        cost = cost
            + Cost {
                bytes: both.bytes / 2 * ways,
                flights: ways,
            };
    }
    if bits > 0 {
        cost = cost
            + Cost {
                bytes: arith::bits(bits) * ways,
                flights: ways,
            };
    }
    Ok(cost)
}

/// The same function as one garbled circuit: each arithmetic step its
/// Boolean circuit, all inputs garbled, the outputs decoded.
fn pure_yao(program: &MixedProgram, plan: &Plan, scheme: Scheme, reveal: Reveal) -> Cost {
    let mut ands: u64 = 0;
    for (i, step) in program.steps.iter().enumerate() {
        let w = || plan.kinds[plan.first_values[i] as usize].bits();
        ands = ands.saturating_add(match step {
            Step::Add(..) | Step::Sub(..) | Step::Neg(_) => add_ands(w()),
            Step::MulConst(_, c) => mul_const_ands(w(), *c),
            Step::Mul(x, y) => {
                let public = |v: &u32| plan.holders[*v as usize].public;
                match (public(x), public(y)) {
                    (Some(c), _) | (_, Some(c)) => mul_const_ands(w(), c),
                    _ => mul_ands(w()),
                }
            }
            Step::Dot(x, _) => {
                x.len() as u64 * mul_ands(w()) + (x.len() as u64 - 1) * add_ands(w())
            }
            Step::Boolean { program: p, .. } => program.programs[*p as usize].and_count(),
            Step::Const { .. } | Step::ToYao(_) | Step::ToArith(_) | Step::Inject { .. } => 0,
        });
    }
    let (mut a, mut b) = (0, 0);
    for v in &program.inputs {
        *if v.owner == 0 { &mut a } else { &mut b } += v.kind.bits() as u64;
    }
    let out: u64 = program
        .outputs
        .iter()
        .map(|o| plan.kinds[o.value as usize].bits() as u64)
        .sum();
    let ways = if reveal == Reveal::Both { 2 } else { 1 };
    // The garbling's one batch: B's inputs (as `twofold run` without IPP).
    let ext = Extension::cheapest(&[b]);
    let deferred = if b > 0 { ext.deferred_setup_bytes() } else { 0 };
    Cost {
        bytes: YAO_SETUP
            + deferred
            + garbled_inputs(a, b, ext).bytes
            + arith::tables(scheme, ands)
            + arith::bits(out) * ways,
        flights: 2 + 3 + 2 + 1 + ways,
    }
}
