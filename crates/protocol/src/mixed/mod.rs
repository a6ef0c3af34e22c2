//! The two-party executor of mixed programs (issue 29): arithmetic shares
//! for sums and products, garbled circuits for the rest, with conversions
//! between them (`docs/mixed.md`).
//!
//! * [`plan`]: the schedule both parties derive from the program — who
//!   holds each word, how each product is made (local, a Gilboa cross
//!   product, a Beaver triple) and the rounds (waves) by depth.
//! * [`run_mixed`]: one party over a channel (plain or TLS): the
//!   handshake, which agrees on the mixed program's hash; the base OTs of
//!   the arithmetic ([`Arith`](crate::arith::Arith)) and, if the program
//!   has garbled parts, of the garbling ([`YaoGarbler`]/[`YaoEvaluator`]);
//!   the Beaver triples, in one batch per width; the inputs (a word is its
//!   owner's share, no message); the waves; the outputs, opened as
//!   [`Reveal`] says.
//! * [`cost`]: bytes and rounds of a mixed program for a network, against
//!   pure garbled circuits, as pure functions ([`network`] parses the
//!   network).
//!
//! Party A garbles. Every AND gate of the session takes a fresh tweak
//! (one counter through conversions and Boolean steps); every OT of each
//! correlated-OT instance a fresh index.

pub mod cost;
pub mod network;
pub mod plan;
mod run;
mod yao;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use twofold_circuit::{Kind, MixedProgram, Party};
use twofold_crypto::{GarblingScheme, Scheme, SchemeJob};
use twofold_net::{Channel, ChannelOptions};
use twofold_ot::Extension;

use crate::arith::{Arith, Triples, Width, YaoEvaluator, YaoGarbler};
use crate::error::ProtocolError;
use crate::handshake::handshake;
use crate::options::{PartyInputs, Reveal, Schedule, SessionOptions};
use plan::Plan;
use run::Exec;
use yao::YaoSide;

/// The sharings, for counting bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sharing {
    /// Handshake, base OTs and Beaver triples: before the inputs.
    Setup,
    /// Arithmetic products and opened words.
    Arith,
    /// Conversions: A→Y, Y→A, bit injection.
    Convert,
    /// Garbled inputs, Boolean steps and opened bits.
    Yao,
}

/// Bytes one party sent and received, per sharing (in a two-party run,
/// what both parties sent together).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Handshake, base OTs, triples.
    pub setup: u64,
    /// Arithmetic products and openings.
    pub arith: u64,
    /// Conversions.
    pub convert: u64,
    /// Garbled inputs, Boolean steps, opened bits.
    pub yao: u64,
}

impl Traffic {
    fn add(&mut self, sharing: Sharing, bytes: u64) {
        *match sharing {
            Sharing::Setup => &mut self.setup,
            Sharing::Arith => &mut self.arith,
            Sharing::Convert => &mut self.convert,
            Sharing::Yao => &mut self.yao,
        } += bytes;
    }

    /// All of it.
    pub fn total(&self) -> u64 {
        self.setup + self.arith + self.convert + self.yao
    }
}

/// How to run a mixed program; both parties must pass the same `reveal`
/// and `scheme` (the handshake checks them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MixedOptions {
    /// Who learns the outputs.
    pub reveal: Reveal,
    /// The garbling scheme of the garbled parts.
    pub scheme: Scheme,
    /// Threads that compute the products' hashes and corrections (0 is
    /// one). Each party chooses its own: what is sent does not depend on
    /// it.
    pub threads: usize,
}

/// What a run gives one party.
#[derive(Clone, Debug)]
pub struct MixedReport {
    /// The outputs (bit 0 first), if this party learns them.
    pub outputs: Option<Vec<Vec<bool>>>,
    /// Rounds of the program: waves that send (its depth in products and
    /// conversions).
    pub rounds: usize,
    /// Messages waited for, by both parties, setup included.
    pub flights: u64,
    /// Bytes sent and received, per sharing.
    pub traffic: Traffic,
    /// Bytes this party sent, setup included.
    pub bytes_sent: u64,
    /// AND gates garbled or evaluated (conversions and Boolean steps).
    pub and_gates: u64,
    /// Time to the end of the setup (handshake, base OTs, triples).
    pub setup: Duration,
    /// The whole run.
    pub total: Duration,
}

/// Runs `party`'s side of `program` over `chan` (plain or TLS) with
/// `inputs` (its own values' bits, `None` for the peer's).
pub fn run_mixed(
    mut chan: Channel,
    party: Party,
    program: &MixedProgram,
    inputs: &PartyInputs,
    opts: &MixedOptions,
) -> Result<MixedReport, ProtocolError> {
    let start = Instant::now();
    let plan = Plan::of(program)?;
    check_inputs(program, party, inputs)?;
    let session = SessionOptions {
        reveal: opts.reveal,
        schedule: Schedule::Sequential,
        threads: 1,
        scheme: opts.scheme,
        ..SessionOptions::default()
    };
    let session_id = handshake(&mut chan, party, program.hash(), &session)?;
    opts.scheme.dispatch(Job {
        chan: &mut chan,
        party,
        program,
        plan: &plan,
        inputs,
        reveal: opts.reveal,
        threads: opts.threads,
        session_id: &session_id,
        start,
    })
}

/// [`run_mixed`] of both parties in this process over a socketpair with
/// `channel`'s options; returns A's report, then B's.
pub fn run_mixed_local(
    program: &MixedProgram,
    inputs: (&PartyInputs, &PartyInputs),
    opts: &MixedOptions,
    channel: &ChannelOptions,
) -> Result<(MixedReport, MixedReport), ProtocolError> {
    let (a, b) = Channel::pair(channel)?;
    std::thread::scope(|scope| {
        let party_b = scope.spawn(|| run_mixed(b, Party::B, program, inputs.1, opts));
        let a = run_mixed(a, Party::A, program, inputs.0, opts);
        let b = party_b.join().expect("party B's thread does not panic");
        match (a, b) {
            (Ok(a), Ok(b)) => Ok((a, b)),
            (Err(ProtocolError::Net(_)), Err(e)) if !matches!(e, ProtocolError::Net(_)) => Err(e),
            (Err(e), _) | (_, Err(e)) => Err(e),
        }
    })
}

/// One party's inputs fit the program: its own values given, of their
/// widths; the peer's not.
fn check_inputs(
    program: &MixedProgram,
    party: Party,
    inputs: &PartyInputs,
) -> Result<(), ProtocolError> {
    let me = party.index();
    if inputs.len() != program.inputs.len() {
        return Err(ProtocolError::Inputs(format!(
            "{} inputs given, the program has {}",
            inputs.len(),
            program.inputs.len()
        )));
    }
    for (v, given) in program.inputs.iter().zip(inputs) {
        match given {
            Some(bits) if v.owner != me => {
                return Err(ProtocolError::Inputs(format!(
                    "input {:?} is party {}'s, not this party's ({party})",
                    v.name,
                    if v.owner == 0 { "a" } else { "b" },
                )))
            }
            Some(bits) if bits.len() != v.kind.bits() as usize => {
                return Err(ProtocolError::Inputs(format!(
                    "input {:?} has {} bits, {} given",
                    v.name,
                    v.kind.bits(),
                    bits.len()
                )))
            }
            None if v.owner == me => {
                return Err(ProtocolError::Inputs(format!(
                    "input {:?} is missing",
                    v.name
                )))
            }
            _ => {}
        }
    }
    Ok(())
}

/// The run after the handshake, as a job generic over the scheme.
struct Job<'a> {
    chan: &'a mut Channel,
    party: Party,
    program: &'a MixedProgram,
    plan: &'a Plan,
    inputs: &'a PartyInputs,
    reveal: Reveal,
    threads: usize,
    session_id: &'a [u8],
    start: Instant,
}

impl SchemeJob for Job<'_> {
    type Output = Result<MixedReport, ProtocolError>;
    fn run<S: GarblingScheme>(self) -> Self::Output {
        match self.party {
            Party::A => self.play(YaoGarbler::<S>::setup_with),
            Party::B => self.play(YaoEvaluator::<S>::setup_with),
        }
    }
}

impl Job<'_> {
    /// Sets up, runs the waves and opens the outputs, with the garbled
    /// side `setup` makes.
    fn play<Y: YaoSide>(
        self,
        setup: impl FnOnce(&mut Channel, &[u8], Extension) -> Result<Y, ProtocolError>,
    ) -> Result<MixedReport, ProtocolError> {
        let chan = self.chan;
        let exts = cost::extensions(self.program, self.plan)?;
        let mut arith = Arith::setup_with(chan, self.party, self.session_id, &exts)?;
        arith.set_threads(self.threads);
        let garbled = self.plan.kinds.iter().any(|k| matches!(k, Kind::Bits(_)));
        let yao = if garbled {
            Some(setup(chan, self.session_id, exts.garbling)?)
        } else {
            None
        };
        let mut triples = BTreeMap::new();
        for (&w, &n) in &self.plan.triples {
            let n = usize::try_from(n)
                .map_err(|_| ProtocolError::TooLarge(format!("{n} Beaver triples")))?;
            let made: Triples = arith.triples(chan, Width::new(w)?, n)?;
            triples.insert(w, made);
        }
        let traffic = Traffic {
            setup: chan.bytes_sent() + chan.bytes_received(),
            ..Traffic::default()
        };
        let setup_time = self.start.elapsed();
        let mut exec = Exec::new(
            self.party,
            chan,
            (arith, yao, triples),
            self.plan,
            self.program,
            traffic,
        );
        exec.inputs(self.inputs)?;
        exec.waves()?;
        let outputs = exec.outputs(self.reveal)?;
        // Setup: hellos (2) and the garbling OT's base OTs (3), besides
        // the arithmetic's own.
        let setup_flights = 2 + if garbled { 3 } else { 0 };
        Ok(MixedReport {
            outputs,
            rounds: self.plan.rounds(),
            flights: exec.arith.flights() + exec.yao_flights + setup_flights,
            traffic: exec.traffic,
            bytes_sent: exec.bytes_sent(),
            and_gates: exec.yao.as_ref().map_or(0, |y| y.and_gates()),
            setup: setup_time,
            total: self.start.elapsed(),
        })
    }
}
