//! The three-party hybrid mode (Siim's hybrid protocol for Sharemind): three
//! computing parties hold every input value only as three shares; CP1
//! garbles the program, CP2 evaluates it, CP3 hands CP2 the input labels
//! that the shares choose, and every output value leaves as three fresh
//! shares. No computing party sees an input, an intermediate value or an
//! output. See `docs/hybrid.md` for the protocol and its security argument.
//!
//! One run, with `s1, s2, s3` the parties' shares of an input value and
//! labels as in the two-party protocol (CP1 garbles with Δ):
//! 1. CP2 sends its shares to CP3, which combines them with its own
//!    (`y = s2 ⊕ s3`, or `s2 + s3` in each lane for additive shares, see
//!    `shares`): CP3 now holds one share of a two-party sharing
//!    `x = s1 ⊕ y` (`s1 + y`), CP1 the other.
//! 2. CP1 sends CP2 the labels of its share bits; for each `y` wire it
//!    sends CP2 both labels under fresh pads, in a random order, and CP3
//!    the pads and the order; CP3 sends CP2 the index and the pad of the
//!    label of its bit (see `choice`: CP3 never holds Δ or a label). The
//!    same is done for two random masks per output value, one of CP1 (`m1`)
//!    and one of CP3 (`m3`).
//! 3. CP1 garbles and CP2 evaluates `pre` (joins `s1` and `y` into the
//!    program's inputs), the program, and `post` (computes
//!    `z = out ⊕ m1 ⊕ m3`, or `out − m1 − m3` per lane), tables streamed
//!    as in the two-party protocol, with FGP and CGP.
//! 4. CP1 sends the decoding bits of `z` to CP2. The output shares are
//!    `m1` (CP1), `z` (CP2) and `m3` (CP3).

pub(crate) mod choice;
pub(crate) mod circuits;
pub mod held;
pub(crate) mod meet;
mod roles;
pub mod shares;
pub(crate) mod wrap;

use std::time::{Duration, Instant};

use twofold_circuit::prepare::prepared;
use twofold_circuit::Program;
use twofold_crypto::Scheme;
use twofold_net::{ChannelOptions, InProcess, Listener, PublicKey};

use crate::engine::FGP_MIN_ANDS;
use crate::error::ProtocolError;
use crate::messages::HybridHello;
use crate::mixed3::SharedMixed;
use crate::options::{check_threads, Progress, Role, Schedule, ShareKind};
use crate::PROTOCOL_VERSION;
use meet::{Doors, Meeting};

/// How to run the hybrid mode. All three parties must pass the same
/// options (checked when they meet).
#[derive(Clone, Default)]
pub struct HybridOptions {
    /// How each input value of the program is shared.
    pub input_kinds: Vec<ShareKind>,
    /// The lane of each input value (see `shares`: an additive share is
    /// taken modulo 2^lane in each lane of `lane` bits; at least 1 and
    /// dividing the value's width). Empty: every value's whole width.
    pub input_lanes: Vec<u32>,
    /// How the output values are to be shared.
    pub output_kind: ShareKind,
    /// The lane of each output value, as `input_lanes`.
    pub output_lanes: Vec<u32>,
    /// Threads of CP1 and CP2 (at least 1).
    pub threads: u32,
    /// How CP1 and CP2 spread the work over threads.
    pub schedule: Schedule,
    /// The garbling scheme of CP1 and CP2.
    pub scheme: Scheme,
    /// FGP splits AND levels of at least this many gates (`None`: the
    /// measured default).
    pub fgp_min_ands: Option<usize>,
    /// Called with the AND gates done so far (CP1 and CP2).
    pub progress: Option<Progress>,
    /// The run that made each input value's shares (empty: not tracked);
    /// the parties refuse to run on shares of different runs.
    pub input_runs: Vec<RunId>,
}

/// The identity of one hybrid run: every party's output shares of a run
/// carry it, so that shares of different runs are never combined.
pub type RunId = [u8; 16];

/// The phases of a hybrid run, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HybridPhase {
    /// Preparing the program, meeting the other parties and checking the
    /// terms.
    Handshake,
    /// Shares and labels of the parties' own bits.
    Input,
    /// CP3 choosing labels by the shares of CP2 and CP3.
    ObliviousChoice,
    /// Mixed programs: arithmetic on additive shares (products, linear
    /// steps).
    Arithmetic,
    /// Garbling (CP1) or evaluation (CP2) of the wrapped program.
    Gates,
    /// The decoding bits of the masked outputs: CP2's output shares.
    Reshare,
}

impl HybridPhase {
    /// Lower-case name, as in `--json`; `gates` is `garbling` for CP1 and
    /// `evaluation` for CP2.
    pub fn name(self, role: Role) -> &'static str {
        match (self, role) {
            (HybridPhase::Handshake, _) => "handshake",
            (HybridPhase::Input, _) => "input",
            (HybridPhase::ObliviousChoice, _) => "oblivious_choice",
            (HybridPhase::Arithmetic, _) => "arithmetic",
            (HybridPhase::Gates, Role::Cp1) => "garbling",
            (HybridPhase::Gates, _) => "evaluation",
            (HybridPhase::Reshare, _) => "reshare",
        }
    }
}

/// What a hybrid run gives one computing party.
#[derive(Clone, Debug)]
pub struct HybridReport {
    /// The party.
    pub role: Role,
    /// This party's share of each output value.
    pub output_shares: Vec<Vec<bool>>,
    /// AND gates garbled or evaluated (0 for CP3).
    pub and_gates: u64,
    /// Bytes this party sent.
    pub bytes_sent: u64,
    /// Bytes this party received.
    pub bytes_received: u64,
    /// Time spent in each phase.
    pub phases: Vec<(HybridPhase, Duration)>,
    /// The whole run.
    pub total: Duration,
    /// This run's identity, the same for all three parties (a hash of the
    /// three parties' fresh nonces).
    pub run_id: RunId,
}

impl HybridReport {
    /// The report of `role` at the end of a run begun at `start`: its
    /// output shares and AND gates, its phases, the bytes over `links`.
    pub(crate) fn of(
        role: Role,
        links: &meet::Links,
        (output_shares, and_gates): (Vec<Vec<bool>>, u64),
        phases: Vec<(HybridPhase, Duration)>,
        start: Instant,
    ) -> HybridReport {
        let (bytes_sent, bytes_received) = links.bytes();
        HybridReport {
            role,
            output_shares,
            and_gates,
            bytes_sent,
            bytes_received,
            phases,
            total: start.elapsed(),
            run_id: links.run_id(),
        }
    }
}

/// Where the computing parties are.
pub struct HybridPeers<'l> {
    /// Where CP1 and CP2 accept connections (this party's listener if it is
    /// CP1 or CP2; CP3 needs none).
    pub listener: Option<&'l Listener>,
    /// The addresses of CP1 and CP2, which CP2 and CP3 connect to.
    pub addrs: [String; 2],
    /// How long to wait for each peer.
    pub wait: Duration,
    /// Options of every connection.
    pub channel: ChannelOptions,
    /// The key each computing party must prove it holds on its connections
    /// (`keys[r.index()]` for role `r`; `None`: whichever key the secure
    /// channel accepts). Without it a party holding one pinned key could
    /// claim another's role.
    pub keys: [Option<PublicKey>; 3],
    /// The identity of the store this party keeps its shares in (`None`:
    /// no store); a party whose peer names the same store refuses to run.
    pub store_id: Option<[u8; 16]>,
}

/// Runs computing party `role` of the hybrid mode on `program` with this
/// party's share of every input value (`shares[k]` for input value `k`, of
/// its width), meeting the others as `peers` says.
pub fn run_hybrid(
    role: Role,
    peers: &HybridPeers,
    program: &Program,
    shares: &[Vec<bool>],
    opts: &HybridOptions,
) -> Result<HybridReport, ProtocolError> {
    let doors = tcp(role, peers)?;
    run_party(role, doors, peers, Work::Garbled(program), shares, opts)
}

/// Runs computing party `role` of a mixed program on shares (issue 30):
/// as [`run_hybrid`], but sums and products stay in additive sharing
/// (see [`crate::mixed3`]).
pub fn run_mixed3(
    role: Role,
    peers: &HybridPeers,
    program: &SharedMixed,
    shares: &[Vec<bool>],
    opts: &HybridOptions,
) -> Result<HybridReport, ProtocolError> {
    let doors = tcp(role, peers)?;
    run_party(role, doors, peers, Work::Mixed(program), shares, opts)
}

/// How `role` reaches the others over TCP (CP1 and CP2 must listen).
fn tcp<'p>(role: Role, peers: &'p HybridPeers) -> Result<Doors<'p>, ProtocolError> {
    if role != Role::Cp3 && peers.listener.is_none() {
        return Err(ProtocolError::Inputs(format!(
            "{role} needs an address to listen on"
        )));
    }
    Ok(Doors::Tcp {
        listener: peers.listener,
        addrs: peers.addrs.clone(),
    })
}

/// What the computing parties run: a Boolean program, garbled whole, or
/// a mixed program.
#[derive(Clone, Copy)]
enum Work<'a> {
    Garbled(&'a Program),
    Mixed(&'a SharedMixed),
}

impl Work<'_> {
    /// The input values' names and widths.
    fn inputs(&self) -> Vec<(&str, u32)> {
        match self {
            Work::Garbled(p) => p
                .main
                .inputs
                .iter()
                .map(|v| (v.name.as_str(), v.width))
                .collect(),
            Work::Mixed(m) => m
                .input_values
                .iter()
                .map(|(n, w)| (n.as_str(), *w))
                .collect(),
        }
    }

    /// The output values' names and widths.
    fn outputs(&self) -> Vec<(&str, u32)> {
        match self {
            Work::Garbled(p) => {
                let outputs = p.main.outputs.iter();
                outputs
                    .map(|v| (v.name.as_str(), v.wires.len() as u32))
                    .collect()
            }
            Work::Mixed(m) => {
                let outputs = m.output_values.iter();
                outputs
                    .map(|(n, bits)| (n.as_str(), bits.len() as u32))
                    .collect()
            }
        }
    }

    /// Checks this party's shares and the options against the program.
    fn check(&self, shares: &[Vec<bool>], opts: &HybridOptions) -> Result<(), ProtocolError> {
        check_shares(&self.inputs(), shares, opts)?;
        lanes(self, opts)?;
        if let Work::Mixed(m) = self {
            m.validate()?;
        }
        Ok(())
    }
}

/// Runs computing party `role`, reaching the others through `doors` (the
/// rest of `peers` gives the wait, the connections' options, the pinned
/// keys and the store id).
fn run_party(
    role: Role,
    doors: Doors,
    peers: &HybridPeers,
    work: Work,
    shares: &[Vec<bool>],
    opts: &HybridOptions,
) -> Result<HybridReport, ProtocolError> {
    work.check(shares, opts)?;
    check_threads(opts.threads)?;
    let (input_lanes, output_lanes) = lanes(&work, opts)?;
    let opts = &HybridOptions {
        input_lanes,
        output_lanes,
        ..opts.clone()
    };
    let start = Instant::now();
    // The parties compare the program as it runs (see `run_session`).
    let prepared = match work {
        Work::Garbled(program) => Some(prepared(program)),
        Work::Mixed(_) => None,
    };
    let program_hash = match (&prepared, work) {
        (Some(p), _) => p.hash(),
        (None, Work::Mixed(m)) => m.hash(),
        (None, Work::Garbled(_)) => unreachable!("prepared above"),
    };
    let mut nonce = [0u8; 16];
    twofold_crypto::Prg::try_from_os()?.fill_bytes(&mut nonce);
    let meeting = Meeting {
        hello: HybridHello {
            version: PROTOCOL_VERSION,
            role,
            index: 0,
            program_hash,
            threads: opts.threads.max(1),
            schedule: opts.schedule,
            scheme: opts.scheme,
            fgp_min_ands: opts.fgp_min_ands.unwrap_or(FGP_MIN_ANDS) as u64,
            output_kind: opts.output_kind,
            input_kinds: opts.input_kinds.clone(),
            input_lanes: opts.input_lanes.clone(),
            output_lanes: opts.output_lanes.clone(),
            nonce,
            store_id: peers.store_id.unwrap_or_default(),
            input_runs: opts.input_runs.clone(),
        },
        doors,
        wait: peers.wait,
        channel: peers.channel.clone(),
        keys: peers.keys,
        cp12_links: opts.schedule.channels(opts.threads.max(1)),
    };
    match (&prepared, work) {
        (Some(program), _) => roles::run(role, &meeting, program, shares, opts, start),
        (None, Work::Mixed(m)) => crate::mixed3::play(role, &meeting, m, shares, opts, start),
        (None, Work::Garbled(_)) => unreachable!("prepared above"),
    }
}

/// Runs all three computing parties in this process, over socketpairs (no
/// listening socket); `shares[p][k]` is party `p`'s share of input value
/// `k`. Returns the three reports, CP1's first.
pub fn run_hybrid_local(
    program: &Program,
    shares: &[Vec<Vec<bool>>; 3],
    opts: &HybridOptions,
    channel: &ChannelOptions,
) -> Result<[HybridReport; 3], ProtocolError> {
    run_local(Work::Garbled(program), shares, opts, channel)
}

/// [`run_mixed3`] of all three computing parties in this process, as
/// [`run_hybrid_local`].
pub fn run_mixed3_local(
    program: &SharedMixed,
    shares: &[Vec<Vec<bool>>; 3],
    opts: &HybridOptions,
    channel: &ChannelOptions,
) -> Result<[HybridReport; 3], ProtocolError> {
    run_local(Work::Mixed(program), shares, opts, channel)
}

/// All three computing parties of `work` in this process.
fn run_local(
    work: Work,
    shares: &[Vec<Vec<bool>>; 3],
    opts: &HybridOptions,
    channel: &ChannelOptions,
) -> Result<[HybridReport; 3], ProtocolError> {
    // Checked here too: a party that stops before meeting would leave the
    // others waiting for it.
    for party_shares in shares {
        work.check(party_shares, opts)?;
    }
    let doors = [
        InProcess::new(channel.clone())?,
        InProcess::new(channel.clone())?,
    ];
    let peers = HybridPeers {
        listener: None,
        addrs: Default::default(),
        wait: Duration::from_secs(10),
        channel: channel.clone(),
        keys: [None; 3],
        store_id: None,
    };
    let quiet = HybridOptions {
        progress: None,
        ..opts.clone()
    };
    let results: Vec<Result<HybridReport, ProtocolError>> = std::thread::scope(|s| {
        let handles: Vec<_> = Role::ALL
            .into_iter()
            .map(|role| {
                let (peers, shares, doors) = (&peers, &shares[role.index()], &doors);
                let opts = if role == Role::Cp1 { opts } else { &quiet };
                s.spawn(move || run_party(role, Doors::Local(doors), peers, work, shares, opts))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("computing parties do not panic"))
            .collect()
    });
    // Report the first cause: a party that failed on its own makes the
    // others see closed connections.
    let mut reports = Vec::new();
    let mut net_error = None;
    for result in results {
        match result {
            Ok(report) => reports.push(report),
            Err(e @ ProtocolError::Net(_)) => {
                net_error.get_or_insert(e);
            }
            Err(e) => return Err(e),
        }
    }
    if let Some(e) = net_error {
        return Err(e);
    }
    Ok(reports.try_into().expect("three reports"))
}

/// Checks this party's shares and the options against the program.
fn check_shares(
    values: &[(&str, u32)],
    shares: &[Vec<bool>],
    opts: &HybridOptions,
) -> Result<(), ProtocolError> {
    if !opts.input_runs.is_empty() && opts.input_runs.len() != values.len() {
        return Err(ProtocolError::Inputs(format!(
            "the program has {} input values; {} run ids given",
            values.len(),
            opts.input_runs.len()
        )));
    }
    if shares.len() != values.len() || opts.input_kinds.len() != values.len() {
        return Err(ProtocolError::Inputs(format!(
            "the program has {} input values; {} shares and {} share kinds given",
            values.len(),
            shares.len(),
            opts.input_kinds.len()
        )));
    }
    for (&(name, width), share) in values.iter().zip(shares) {
        if share.len() != width as usize {
            return Err(ProtocolError::Inputs(format!(
                "input `{name}` has {width} bits, a share of {} bits given",
                share.len()
            )));
        }
    }
    Ok(())
}

/// The lane of every input and every output value of `work`: those of
/// `opts`, or each value's whole width where `opts` gives none. Fails on a
/// lane of 0, a lane that does not divide its value's width, or lanes of
/// another number than the values.
fn lanes(work: &Work, opts: &HybridOptions) -> Result<(Vec<u32>, Vec<u32>), ProtocolError> {
    Ok((
        value_lanes("input", &work.inputs(), &opts.input_lanes)?,
        value_lanes("output", &work.outputs(), &opts.output_lanes)?,
    ))
}

/// The lanes `given` of the values `(name, width)` (`what`: input or
/// output), checked; each value's width (at least 1) if none is given.
fn value_lanes(
    what: &str,
    values: &[(&str, u32)],
    given: &[u32],
) -> Result<Vec<u32>, ProtocolError> {
    if given.is_empty() {
        return Ok(values
            .iter()
            .map(|(_, width)| width.max(&1))
            .copied()
            .collect());
    }
    if given.len() != values.len() {
        return Err(ProtocolError::Inputs(format!(
            "the program has {} {what} values; {} lanes given",
            values.len(),
            given.len()
        )));
    }
    for (&(name, width), &lane) in values.iter().zip(given) {
        if lane == 0 || !width.is_multiple_of(lane) {
            return Err(ProtocolError::Inputs(format!(
                "{what} `{name}` of {width} bits cannot be cut into lanes of {lane} bits (a lane is at least 1 bit and divides the width)"
            )));
        }
    }
    Ok(given.to_vec())
}
