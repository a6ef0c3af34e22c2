//! One party's side of a session: handshake, inputs, garbling or evaluation,
//! outputs.

use std::marker::PhantomData;
use std::time::{Duration, Instant};

use twofold_circuit::circuit::split_outputs;
use twofold_circuit::prepare::prepared;
use twofold_circuit::walk::Plan as WalkPlan;
use twofold_circuit::{MainOrder, Party, Program};
use twofold_crypto::halfgates::{ActiveLabel, ZeroLabel};
use twofold_crypto::{Block, Delta, GarblingScheme, Prg, SchemeJob};
use twofold_net::Channel;
use twofold_ot::{CotReceiver, CotSender, Extension};

use crate::engine::{EvaluatingEngine, Fgp, GarblingEngine};
use crate::error::ProtocolError;
use crate::handshake::{bind_channel, handshake};
use crate::ipp::{reverse_ot_session, Ipp, Transfer, TransferA, TransferB};
use crate::messages::{Bits, Labels};
use crate::options::{check_threads, IppMode, PartyInputs, Progress, SessionOptions};
use crate::peer::Peer;
use crate::schedule::{run_program_arranged, run_program_with, Plan, Side};

/// The phases of a session, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Hello exchange and checks.
    Handshake,
    /// Putting the program in level order (skipped if it already is).
    Prepare,
    /// Base OTs and OT extension setup, garbler labels, OT for the evaluator's bits.
    Inputs,
    /// Streamed garbling (party A) or evaluation (party B).
    Gates,
    /// Decoding information and output bits.
    Outputs,
}

impl Phase {
    /// Lower-case name, as in `--json`.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Handshake => "handshake",
            Phase::Prepare => "prepare",
            Phase::Inputs => "inputs",
            Phase::Gates => "gates",
            Phase::Outputs => "outputs",
        }
    }
}

/// What a session gives one party.
#[derive(Clone, Debug)]
pub struct SessionReport {
    /// The output values (bit 0 first), if this party learns them.
    pub outputs: Option<Vec<Vec<bool>>>,
    /// AND gates garbled or evaluated.
    pub and_gates: u64,
    /// Bytes this party sent (payload and frame headers).
    pub bytes_sent: u64,
    /// Bytes this party received.
    pub bytes_received: u64,
    /// Time spent in each phase.
    pub phases: Vec<(Phase, Duration)>,
    /// Time spent transferring roles (IPP), included in the gates phase.
    pub role_transfer: Duration,
    /// With `record_transfers`: every block this party sent at role transfers.
    pub transfers_sent: Vec<Block>,
    /// Whole session.
    pub total: Duration,
}

/// Runs `party`'s side of a session of `program` over `first` (the
/// connection to the peer), opening through `peer` the extra connections the
/// schedule needs. Party A garbles, party B evaluates.
pub fn run_session(
    first: Channel,
    peer: &Peer,
    party: Party,
    program: &Program,
    inputs: &PartyInputs,
    opts: &SessionOptions,
) -> Result<SessionReport, ProtocolError> {
    check_threads(opts.threads)?;
    let my_bits = check_inputs(program, party, inputs)?;
    let start = Instant::now();
    let mut clock = PhaseClock::new();
    // The parties compare the program as it runs, so that a program
    // compiled ready to run (`twofold compile`) and its source agree.
    let prepared = prepared(program);
    let arranged = Arranged {
        program: &prepared,
        walk: WalkPlan::of(&prepared),
        order: match opts.ipp {
            IppMode::On => prepared.main_overlapped(),
            IppMode::Off | IppMode::NoOverlap => prepared.main_in_order(),
        },
    };
    clock.lap(Phase::Prepare);
    let mut chans = vec![first];
    let session_id = handshake(&mut chans[0], party, prepared.hash(), opts)?;
    let links = opts.schedule.channels(opts.threads) * if opts.ipp.is_on() { 2 } else { 1 };
    for index in 1..links {
        let mut chan = peer.open()?;
        bind_channel(&mut chan, &session_id, index as u32, party)?;
        chans.push(chan);
    }
    clock.lap(Phase::Handshake);
    let owners: Vec<Party> = program
        .main
        .inputs
        .iter()
        .flat_map(|v| std::iter::repeat_n(v.party, v.width as usize))
        .collect();
    let (outputs, and_gates, (role_transfer, transfers_sent)) = opts.scheme.dispatch(Play {
        party,
        chans: &mut chans,
        program: &arranged,
        owners: &owners,
        my_bits: &my_bits,
        session_id: &session_id,
        opts,
        clock: &mut clock,
    })?;
    Ok(SessionReport {
        outputs: outputs.map(|flat| split_outputs(&program.main, &flat)),
        and_gates,
        bytes_sent: chans.iter().map(|c| c.bytes_sent()).sum(),
        bytes_received: chans.iter().map(|c| c.bytes_received()).sum(),
        phases: clock.phases,
        role_transfer,
        transfers_sent,
        total: start.elapsed(),
    })
}

/// One party's play after the handshake, as a job generic over the
/// session's scheme: party A garbles, party B evaluates.
struct Play<'a, 'p> {
    party: Party,
    chans: &'a mut [Channel],
    program: &'a Arranged<'p>,
    owners: &'a [Party],
    my_bits: &'a [bool],
    session_id: &'a [u8],
    opts: &'a SessionOptions,
    clock: &'a mut PhaseClock,
}

impl SchemeJob for Play<'_, '_> {
    type Output = Result<(Option<Vec<bool>>, u64, Transfers), ProtocolError>;
    fn run<S: GarblingScheme>(self) -> Self::Output {
        let Play {
            party,
            chans,
            program,
            owners,
            my_bits,
            session_id,
            opts,
            clock,
        } = self;
        match party {
            Party::A => garble::<S>(chans, program, owners, my_bits, session_id, opts, clock),
            Party::B => evaluate::<S>(chans, program, owners, my_bits, session_id, opts, clock),
        }
    }
}

/// The garbling side of [`run_program`] under scheme `S`.
pub(crate) struct GarblerSide<S> {
    delta: Delta,
    progress: Option<Progress>,
    scheme: PhantomData<S>,
}

impl<S: GarblingScheme> GarblerSide<S> {
    /// A garbling side with offset `delta`.
    pub(crate) fn new(delta: Delta, progress: Option<Progress>) -> Self {
        GarblerSide {
            delta,
            progress,
            scheme: PhantomData,
        }
    }
}

impl<S: GarblingScheme> Side for GarblerSide<S> {
    type Label = ZeroLabel;
    type Link = Channel;
    type Engine<'c> = GarblingEngine<'c, S>;
    fn engine<'c>(
        &'c self,
        chan: &'c mut Channel,
        first_gate: u64,
        fgp: Fgp,
    ) -> Result<GarblingEngine<'c, S>, ProtocolError> {
        GarblingEngine::new(self.delta, first_gate, chan, fgp, self.progress.clone())
    }
    fn finish(engine: GarblingEngine<'_, S>) -> Result<u64, ProtocolError> {
        engine.finish()
    }
    fn next_gate(engine: &GarblingEngine<'_, S>) -> u64 {
        engine.next_gate()
    }
}

/// The evaluating side of [`run_program`] under scheme `S`.
pub(crate) struct EvaluatorSide<S> {
    progress: Option<Progress>,
    scheme: PhantomData<S>,
}

impl<S: GarblingScheme> EvaluatorSide<S> {
    /// An evaluating side.
    pub(crate) fn new(progress: Option<Progress>) -> Self {
        EvaluatorSide {
            progress,
            scheme: PhantomData,
        }
    }
}

impl<S: GarblingScheme> Side for EvaluatorSide<S> {
    type Label = ActiveLabel;
    type Link = Channel;
    type Engine<'c> = EvaluatingEngine<'c, S>;
    fn engine<'c>(
        &'c self,
        chan: &'c mut Channel,
        first_gate: u64,
        fgp: Fgp,
    ) -> Result<EvaluatingEngine<'c, S>, ProtocolError> {
        Ok(EvaluatingEngine::new(
            first_gate,
            chan,
            fgp,
            self.progress.clone(),
        ))
    }
    fn finish(engine: EvaluatingEngine<'_, S>) -> Result<u64, ProtocolError> {
        engine.finish()
    }
    fn next_gate(engine: &EvaluatingEngine<'_, S>) -> u64 {
        engine.next_gate()
    }
}

/// Checks `inputs` against the program and returns this party's bits in
/// input-wire order.
fn check_inputs(
    program: &Program,
    party: Party,
    inputs: &PartyInputs,
) -> Result<Vec<bool>, ProtocolError> {
    let values = &program.main.inputs;
    if inputs.len() != values.len() {
        return Err(ProtocolError::Inputs(format!(
            "the program has {} input values, {} given",
            values.len(),
            inputs.len()
        )));
    }
    let mut bits = Vec::new();
    for (value, given) in values.iter().zip(inputs) {
        match (value.party == party, given) {
            (true, Some(b)) if b.len() == value.width as usize => bits.extend_from_slice(b),
            (true, Some(b)) => {
                return Err(ProtocolError::Inputs(format!(
                    "input `{}` has {} bits, {} given",
                    value.name,
                    value.width,
                    b.len()
                )))
            }
            (true, None) => {
                return Err(ProtocolError::Inputs(format!(
                    "input `{}` belongs to party {party} and is missing",
                    value.name
                )))
            }
            (false, Some(_)) => {
                return Err(ProtocolError::Inputs(format!(
                    "input `{}` belongs to party {}, not {party}",
                    value.name, value.party
                )))
            }
            (false, None) => {}
        }
    }
    Ok(bits)
}

/// A program ready to run: prepared (see [`prepare`]), planned for the
/// walker, its main gates arranged around its parallel blocks as the
/// session's IPP mode says.
struct Arranged<'p> {
    program: &'p Program,
    walk: WalkPlan<'p>,
    order: MainOrder<'p>,
}

/// The gates phase: `program` run on `main` over `chans`; with IPP, `ipp`
/// sets up the reverse OT on the first of B's connections (the second half
/// of `chans`) and gives the side this
/// party plays on B-garbled wires and its role transfers.
fn gates_phase<M, O, T>(
    main: &M,
    arranged: &Arranged,
    inputs: &[M::Label],
    chans: &mut [Channel],
    opts: &SessionOptions,
    ipp: impl FnOnce(&mut Channel) -> Result<(O, T), ProtocolError>,
) -> Result<(Vec<M::Label>, u64, Transfers), ProtocolError>
where
    M: Side<Link = Channel>,
    O: Side<Link = Channel>,
    T: Transfer<MainLabel = M::Label, OtherLabel = O::Label>,
{
    let mut plan = Plan::new(opts.schedule, opts.threads as usize);
    plan.scheme = opts.scheme;
    if let Some(min) = opts.fgp_min_ands {
        plan.fgp_min_ands = min;
    }
    let (walk, order) = (&arranged.walk, &arranged.order);
    if !opts.ipp.is_on() {
        let (out, ands) = run_program_arranged(main, walk, order, inputs, chans, plan)?;
        return Ok((out, ands, (Duration::ZERO, Vec::new())));
    }
    let (links_a, links_b) = chans.split_at_mut(chans.len() / 2);
    let (other, transfer) = ipp(&mut links_b[0])?;
    let mut ipp = Ipp {
        main,
        other: &other,
        transfer,
        links_b,
        transfer_time: Duration::ZERO,
    };
    let (out, ands) = run_program_with(
        main,
        walk,
        order,
        (inputs, 0),
        links_a,
        plan,
        |walker, region, during, labels, first_gate, links| {
            let program = arranged.program;
            ipp.run_region(
                walker, program, region, during, labels, first_gate, links, plan,
            )
        },
    )?;
    Ok((out, ands, (ipp.transfer_time, ipp.transfer.take_log())))
}

/// Time spent transferring roles and the blocks sent then (if recorded).
type Transfers = (Duration, Vec<Block>);

/// Times the phases one after another.
struct PhaseClock {
    last: Instant,
    phases: Vec<(Phase, Duration)>,
}

impl PhaseClock {
    fn new() -> PhaseClock {
        PhaseClock {
            last: Instant::now(),
            phases: Vec::new(),
        }
    }

    /// Ends `phase` now.
    fn lap(&mut self, phase: Phase) {
        self.phases.push((phase, self.last.elapsed()));
        self.last = Instant::now();
    }
}

/// The OT extension of the evaluator's inputs (`bits` of them, one batch):
/// the cheaper for that batch, unless IPP's role transfers use the instance
/// again (then the default).
fn input_ots(bits: usize, opts: &SessionOptions) -> Extension {
    if opts.ipp.is_on() {
        Extension::DEFAULT
    } else {
        Extension::cheapest(&[bits as u64])
    }
}

fn garble<S: GarblingScheme>(
    chans: &mut [Channel],
    program: &Arranged,
    owners: &[Party],
    my_bits: &[bool],
    session_id: &[u8],
    opts: &SessionOptions,
    clock: &mut PhaseClock,
) -> Result<(Option<Vec<bool>>, u64, Transfers), ProtocolError> {
    let mut prg = Prg::try_from_os()?;
    let delta = Delta::random(&mut prg);
    let chan = &mut chans[0];
    // Evaluator's input labels come from correlated OT: K0 is the 0-label.
    let theirs = owners.iter().filter(|&&p| p == Party::B).count();
    let mut cot = CotSender::setup_with(chan, delta, session_id, input_ots(theirs, opts))?;
    let mut ot_labels = cot.send(chan, theirs)?.into_iter();
    let mut mine = my_bits.iter();
    let mut labels = Vec::with_capacity(owners.len());
    let mut encoded = Vec::with_capacity(my_bits.len());
    for &owner in owners {
        let zero = match owner {
            Party::A => {
                let zero = ZeroLabel::random(&mut prg);
                let bit = *mine.next().expect("bits checked against the program");
                encoded.push(zero.encode(delta, bit).block());
                zero
            }
            Party::B => ZeroLabel::from_block(ot_labels.next().expect("one OT per evaluator bit")),
        };
        labels.push(zero);
    }
    Labels::send(chan, &encoded)?;
    clock.lap(Phase::Inputs);

    let side = GarblerSide::<S>::new(delta, opts.progress.clone());
    let (out_labels, ands, transfer) = gates_phase(&side, program, &labels, chans, opts, |chan| {
        let transfer = TransferA {
            cot_ab: &mut cot,
            cot_ba: CotReceiver::setup(chan, &reverse_ot_session(session_id))?,
            delta,
            prg,
            sent_log: opts.record_transfers.then(Vec::new),
        };
        Ok((EvaluatorSide::<S>::new(opts.progress.clone()), transfer))
    })?;
    clock.lap(Phase::Gates);
    let chan = &mut chans[0];

    if opts.reveal.reveals_to(Party::B) {
        Bits::send(chan, out_labels.iter().map(|l| l.decode_bit()))?;
    }
    let outputs = if opts.reveal.reveals_to(Party::A) {
        let colours = Bits::recv(chan, out_labels.len(), "output bits")?;
        Some(
            colours
                .iter()
                .zip(&out_labels)
                .map(|(&c, l)| c ^ l.decode_bit())
                .collect(),
        )
    } else {
        None
    };
    clock.lap(Phase::Outputs);
    Ok((outputs, ands, transfer))
}

fn evaluate<S: GarblingScheme>(
    chans: &mut [Channel],
    program: &Arranged,
    owners: &[Party],
    my_bits: &[bool],
    session_id: &[u8],
    opts: &SessionOptions,
    clock: &mut PhaseClock,
) -> Result<(Option<Vec<bool>>, u64, Transfers), ProtocolError> {
    let chan = &mut chans[0];
    let mine = owners.iter().filter(|&&p| p == Party::B).count();
    let mut cot = CotReceiver::setup_with(chan, session_id, input_ots(mine, opts))?;
    let mut ot_labels = cot.receive(chan, my_bits)?.into_iter();
    let theirs = owners.iter().filter(|&&p| p == Party::A).count();
    let mut from_garbler = Labels::recv(chan, theirs, "input labels")?.into_iter();
    let labels: Vec<ActiveLabel> = owners
        .iter()
        .map(|&owner| {
            ActiveLabel::from_block(match owner {
                Party::A => from_garbler.next().expect("length checked"),
                Party::B => ot_labels.next().expect("one OT per own bit"),
            })
        })
        .collect();
    clock.lap(Phase::Inputs);

    let side = EvaluatorSide::<S>::new(opts.progress.clone());
    let (out_labels, ands, transfer) = gates_phase(&side, program, &labels, chans, opts, |chan| {
        let mut prg = Prg::try_from_os()?;
        let delta = Delta::random(&mut prg);
        let transfer = TransferB {
            cot_ab: &mut cot,
            cot_ba: CotSender::setup(chan, delta, &reverse_ot_session(session_id))?,
            delta,
            prg,
            sent_log: opts.record_transfers.then(Vec::new),
        };
        Ok((
            GarblerSide::<S>::new(delta, opts.progress.clone()),
            transfer,
        ))
    })?;
    clock.lap(Phase::Gates);
    let chan = &mut chans[0];

    let outputs = if opts.reveal.reveals_to(Party::B) {
        let decode = Bits::recv(chan, out_labels.len(), "output bits")?;
        Some(
            out_labels
                .iter()
                .zip(decode)
                .map(|(l, d)| l.decode(d))
                .collect(),
        )
    } else {
        None
    };
    if opts.reveal.reveals_to(Party::A) {
        Bits::send(chan, out_labels.iter().map(|l| l.block().lsb()))?;
    }
    clock.lap(Phase::Outputs);
    Ok((outputs, ands, transfer))
}
