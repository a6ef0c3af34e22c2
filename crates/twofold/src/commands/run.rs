//! `twofold run`: a secure two-party computation, on two machines or (with
//! `--local`) both parties in this process over socketpairs.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::ValueEnum;
use serde::{Deserialize, Serialize};
use twofold_circuit::Party;
use twofold_crypto::Scheme;
use twofold_protocol::mixed::{MixedOptions, MixedReport};
use twofold_protocol::{
    run_local, run_remote, Endpoint, HybridOptions, IppMode, Phase, Reveal, Role, Schedule,
    SessionOptions, SessionReport, ShareKind,
};

use super::run3::{run_three, ThreeParties};
use super::run_mixed::{MixedFigures, MixedRun};
use super::secure::SecureArgs;
use super::{channel_options, OutputArgs, PerParty, ProgramArgs, Report};
use crate::choice::{Chosen, Parties};
use crate::inputs::{assign, format_outputs, outputs_json, split, Givers};
use crate::load::{parse_party, Loaded};
use crate::memory::check_session;
use crate::progress::and_gate_bar;

/// Who learns the output, on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum RevealTo {
    A,
    B,
}

/// Arguments of `run`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    program: ProgramArgs,
    /// Both parties in this process over socketpairs (nothing listens).
    #[arg(long, conflicts_with_all = ["listen", "connect", "party"])]
    local: bool,
    /// This party: a (garbler) or b (evaluator); with --parties 3, the
    /// computing party 1 (garbler), 2 (evaluator) or 3.
    #[arg(long, value_parser = parse_party_arg)]
    party: Option<PartyArg>,
    /// 2 (two parties with their own inputs) or 3 (the hybrid mode: three
    /// computing parties on values held as shares in --store).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(2..=3))]
    parties: u8,
    /// With --parties 3: the addresses of CP1, CP2 and CP3 (CP1 and CP2
    /// listen on theirs; CP3 only connects).
    #[arg(long, value_name = "ADDR1,ADDR2,ADDR3", requires = "party")]
    peers: Option<String>,
    /// With --parties 3: the share store (with --local, the directory of all
    /// three: DIR/cp1, DIR/cp2, DIR/cp3).
    #[arg(long, value_name = "DIR")]
    store: Option<PathBuf>,
    /// With --parties 3: read input NAME from the stored value STORED.
    #[arg(long = "in", value_name = "NAME=STORED")]
    ins: Vec<String>,
    /// With --parties 3: store output NAME as STORED (default: its name).
    #[arg(long = "out", value_name = "NAME=STORED")]
    outs: Vec<String>,
    /// With --parties 3: how the outputs are shared (xor, or add: per lane,
    /// an integer array element by element).
    #[arg(long, default_value = "xor", value_parser = crate::store::parse_kind)]
    kind: ShareKind,
    /// Wait for the peer on ADDR (e.g. 0.0.0.0:7766).
    #[arg(long, value_name = "ADDR", conflicts_with = "connect")]
    listen: Option<String>,
    /// Connect to the peer at ADDR (retried until the timeout).
    #[arg(long, value_name = "ADDR")]
    connect: Option<String>,
    /// An input value, `VALUE` (in order) or `NAME=VALUE`; each party gives
    /// its own. VALUE `@FILE` reads it from a C-initializer, .json or .csv file.
    #[arg(short = 'i', long = "input", allow_hyphen_values = true)]
    inputs: Vec<String>,
    /// Only this party learns the output (default: both).
    #[arg(long, value_enum)]
    reveal_to: Option<RevealTo>,
    /// Seconds to wait for the peer before giving up (at most a year).
    #[arg(long, default_value_t = 60, value_parser = super::timeout_seconds())]
    timeout: u64,
    /// Threads per party (default: the number of cores; both parties must
    /// agree, but for a mixed program's products, where each chooses its
    /// own; at most 256).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=twofold_protocol::options::MAX_THREADS as i64))]
    threads: Option<u32>,
    /// seq, fgp (AND levels split between threads), cgp (parallel regions
    /// split between threads, one connection each) or auto (both).
    #[arg(long, default_value = "auto", value_parser = parse_schedule)]
    schedule: Schedule,
    /// Inter-party parallelism: both parties garble part of every parallel
    /// region, and main gates independent of a region run during it (both
    /// must say so).
    #[arg(long)]
    ipp: bool,
    /// With --ipp: the main circuit waits for every region to end (to
    /// measure the overlap).
    #[arg(long, requires = "ipp")]
    ipp_no_overlap: bool,
    /// FGP splits AND levels of at least N gates between threads
    /// (default 4096; each party then runs the parts on its threads only
    /// where its measurements say that is faster; both must agree on N).
    #[arg(long, value_name = "N")]
    fgp_min_ands: Option<usize>,
    /// Garbling scheme: half-gates (32 bytes per AND gate, fastest to
    /// compute) or three-halves (24.6 bytes, for slow links); both must agree.
    #[arg(long, default_value = "half-gates")]
    scheme: Scheme,
    /// One JSON object on stdout (outputs, AND gates, bytes, seconds, memory).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    output: OutputArgs,
    #[command(flatten)]
    secure: SecureArgs,
}

/// `--party`: a party of the two-party protocol or a computing party of
/// the hybrid mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartyArg {
    /// `a` or `b`.
    Two(Party),
    /// `1`, `2` or `3`.
    Three(Role),
}

fn parse_party_arg(text: &str) -> Result<PartyArg, String> {
    match text {
        "1" => Ok(PartyArg::Three(Role::Cp1)),
        "2" => Ok(PartyArg::Three(Role::Cp2)),
        "3" => Ok(PartyArg::Three(Role::Cp3)),
        _ => parse_party(text)
            .map(PartyArg::Two)
            .map_err(|_| format!("`{text}` is not a party (a or b; 1, 2 or 3 with --parties 3)")),
    }
}

/// A schedule by its name (`seq`, `fgp`, `cgp`, `auto`).
pub fn parse_schedule(text: &str) -> Result<Schedule, String> {
    Schedule::ALL
        .into_iter()
        .find(|s| s.name() == text)
        .ok_or_else(|| format!("`{text}` is not a schedule (seq, fgp, cgp, auto)"))
}

/// The number of cores of this machine.
pub(crate) fn cores() -> u32 {
    std::thread::available_parallelism().map_or(1, |n| n.get() as u32)
}

/// What `run --json` prints: one party's (or with `--local` both parties')
/// view of the session.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunReport {
    /// `a`, `b`, or `local`.
    pub party: String,
    /// The garbling scheme.
    pub scheme: String,
    /// `yao` (garbled circuits) or `mixed` (arithmetic sharing beside
    /// them).
    #[serde(default = "yao")]
    pub protocol: String,
    /// Bytes both parties sent.
    #[serde(default)]
    pub bytes: u64,
    /// A mixed run's figures (bytes per sharing, rounds, the estimates).
    #[serde(default)]
    pub mixed: Option<MixedFigures>,
    /// Output values keyed by name, if this party learnt them.
    pub outputs: Option<serde_json::Value>,
    /// AND gates garbled or evaluated.
    pub and_gates: u64,
    /// Bytes each party sent.
    pub bytes_sent: PerParty<u64>,
    /// Bytes both parties sent over AND gates (none without AND gates).
    pub bytes_per_and_gate: Option<f64>,
    /// Seconds of each phase, `total` (the session), `compile` or `load`,
    /// `wall` (since the process started) and `role_transfer` (IPP).
    pub seconds: BTreeMap<String, f64>,
    /// AND gates over the session's seconds.
    pub and_gates_per_second: f64,
    /// Peak resident memory of this process.
    pub peak_rss_bytes: u64,
    /// The outputs as text, or why there are none here.
    #[serde(skip)]
    lines: String,
}

impl Report for RunReport {
    fn text(&self) -> String {
        self.lines.clone()
    }
}

/// The protocol of a report without one.
fn yao() -> String {
    "yao".into()
}

/// Runs the computation and returns what to print.
pub fn run(args: &RunArgs) -> Result<String> {
    let text = if args.parties == 3 {
        run_hybrid(args)?
    } else {
        run_two(args)?
    };
    args.output.deliver(text)
}

/// `run` with two parties.
fn run_two(args: &RunArgs) -> Result<String> {
    if args.store.is_some() || args.peers.is_some() || !args.ins.is_empty() || !args.outs.is_empty()
    {
        bail!("--store, --peers, --in and --out are for the hybrid mode (--parties 3)");
    }
    let endpoint = match (args.local, &args.listen, &args.connect) {
        (true, _, _) => None,
        (false, Some(addr), None) => Some(Endpoint::Listen(addr.clone())),
        (false, None, Some(addr)) => Some(Endpoint::Connect(addr.clone())),
        _ => bail!("say where the peer is: --local, or --party with --listen or --connect"),
    };
    // Refused before the program is compiled.
    let security = match endpoint {
        None => {
            args.secure.refuse_for_local()?;
            Default::default()
        }
        Some(_) => args.secure.two_parties(remote_party(args)?)?,
    };
    let mut loaded = args.program.load()?;
    let reveal = match args.reveal_to {
        None => Reveal::Both,
        Some(RevealTo::A) => Reveal::A,
        Some(RevealTo::B) => Reveal::B,
    };
    let timeout = Duration::from_secs(args.timeout.max(1));
    let channel = channel_options(timeout, security);
    if let Some(chosen) = &loaded.mixed {
        if args.ipp {
            bail!("--ipp is for garbled circuits; the program runs as a mixed program (add --protocol yao)");
        }
        let party = remote_party(args).ok();
        let run = MixedRun {
            loaded: &loaded,
            chosen,
            inputs: &args.inputs,
            endpoint: endpoint.zip(party),
            channel: &channel,
            wait: timeout,
            opts: MixedOptions {
                reveal,
                scheme: args.scheme,
                threads: args.threads.unwrap_or_else(cores) as usize,
            },
        };
        let (party, report, peer) = super::run_mixed::run(run).map_err(|e| hint(e, &loaded))?;
        return mixed_report(
            &loaded,
            chosen,
            party,
            &report,
            peer.as_ref(),
            reveal,
            args.scheme,
        )?
        .render(args.json);
    }
    let threads = args.threads.unwrap_or_else(cores).max(1);
    if let Some(limit) = args.program.max_memory() {
        let parties = if endpoint.is_none() { 2 } else { 1 };
        check_session(loaded.garbled()?, threads, parties, limit)?;
    }
    let prepared_in = loaded.prepare_garbled();
    let (progress, bar) = and_gate_bar(loaded.garbled()?.and_count(), args.json);
    let session = SessionOptions {
        reveal,
        schedule: args.schedule,
        threads,
        ipp: match (args.ipp, args.ipp_no_overlap) {
            (false, _) => IppMode::Off,
            (true, false) => IppMode::On,
            (true, true) => IppMode::NoOverlap,
        },
        fgp_min_ands: args.fgp_min_ands,
        scheme: args.scheme,
        progress,
        ..SessionOptions::default()
    };
    let (party, mut report, mut peer) = match endpoint {
        None => {
            let all = assign(&loaded, &args.inputs, Givers::Everyone)?;
            let (a, b) = split(&loaded, &all);
            let (ra, rb) = run_local(loaded.garbled()?, &a, &b, &session, &channel)?;
            (Party::A, ra, Some(rb))
        }
        Some(endpoint) => {
            let party = remote_party(args)?;
            let given = assign(&loaded, &args.inputs, Givers::Only(party))?;
            let report = run_remote(
                &endpoint,
                timeout,
                &channel,
                party,
                loaded.garbled()?,
                &given,
                &session,
            )
            .map_err(|e| hint(e.into(), &loaded))?;
            (party, report, None)
        }
    };
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    for r in std::iter::once(&mut report).chain(peer.as_mut()) {
        count_prepare(r, prepared_in);
    }
    let report = run_report(&loaded, party, &report, peer.as_ref(), reveal, args.scheme)?;
    report.render(args.json)
}

/// Counts `time`, spent preparing the program before the session began,
/// in the session's prepare phase and in its total.
fn count_prepare(report: &mut SessionReport, time: Duration) {
    match report.phases.iter_mut().find(|(p, _)| *p == Phase::Prepare) {
        Some((_, d)) => *d += time,
        None => report.phases.insert(0, (Phase::Prepare, time)),
    }
    report.total += time;
}

/// The party (a or b) of a two-party run between processes.
fn remote_party(args: &RunArgs) -> Result<Party> {
    match args.party {
        Some(PartyArg::Two(party)) => Ok(party),
        Some(PartyArg::Three(_)) => bail!("--party 1|2|3 is for --parties 3"),
        None => bail!("--party a|b is needed with --listen/--connect"),
    }
}

/// `run --parties 3`.
fn run_hybrid(args: &RunArgs) -> Result<String> {
    let role = match (args.local, args.party) {
        (true, _) => None,
        (false, Some(PartyArg::Three(role))) => Some(role),
        _ => bail!("with --parties 3: --local, or --party 1|2|3 with --peers"),
    };
    if args.listen.is_some() || args.connect.is_some() || args.ipp || args.reveal_to.is_some() {
        bail!("--listen, --connect, --ipp and --reveal-to are for two parties; the hybrid mode takes --peers");
    }
    if !args.inputs.is_empty() {
        bail!(
            "the hybrid mode reads its inputs from --store (put them there with `twofold share`)"
        );
    }
    let store = args
        .store
        .as_deref()
        .context("--store DIR is needed with --parties 3")?;
    let (security, keys) = match role {
        None => {
            args.secure.refuse_for_local()?;
            Default::default()
        }
        Some(role) => args.secure.three_parties(role)?,
    };
    let protocol = args.program.protocol.unwrap_or_default();
    let loaded = args.program.load_for(protocol, Parties::three())?;
    let threads = args.threads.unwrap_or_else(cores).max(1);
    // (A mixed program's session is not estimated: its Boolean programs
    // are a part of the garbled circuits checked here.)
    if let (Some(limit), Some(program)) = (args.program.max_memory(), &loaded.program) {
        let parties = if role.is_none() { 3 } else { 1 };
        check_session(program, threads, parties, limit)?;
    }
    let (progress, bar) = and_gate_bar(loaded.and_gates(), args.json);
    let how = ThreeParties {
        role,
        security,
        keys,
        peers: args.peers.as_deref(),
        store,
        store_cap: crate::store::store_cap(args.program.max_memory()),
        ins: &args.ins,
        outs: &args.outs,
        timeout: Duration::from_secs(args.timeout.max(1)),
        opts: HybridOptions {
            input_kinds: Vec::new(),
            input_lanes: Vec::new(),
            output_kind: args.kind,
            output_lanes: Vec::new(),
            threads,
            schedule: args.schedule,
            scheme: args.scheme,
            fgp_min_ands: args.fgp_min_ands,
            progress,
            input_runs: Vec::new(),
        },
    };
    let result = run_three(&loaded, how, args.json).map_err(|e| hint(e, &loaded));
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    result
}

/// The report of a finished session of `party` (with `peer`, the other
/// party's report when both ran here).
fn run_report(
    loaded: &Loaded,
    party: Party,
    report: &SessionReport,
    peer: Option<&SessionReport>,
    reveal: Reveal,
    scheme: Scheme,
) -> Result<RunReport> {
    let mut seconds: BTreeMap<String, f64> = report
        .phases
        .iter()
        .map(|(phase, d)| (phase.name().to_string(), d.as_secs_f64()))
        .collect();
    seconds.insert("role_transfer".into(), report.role_transfer.as_secs_f64());
    let finished = Finished {
        outputs: report
            .outputs
            .as_ref()
            .or_else(|| peer.and_then(|p| p.outputs.as_ref())),
        seconds,
        total: report.total,
        and_gates: report.and_gates,
        // What this party received is what the peer sent.
        sent: (
            report.bytes_sent,
            peer.map_or(report.bytes_received, |p| p.bytes_sent),
        ),
        local: peer.is_some(),
    };
    finished.report(loaded, party, reveal, scheme, None)
}

/// What a finished session gives its report, whichever protocol ran.
struct Finished<'a> {
    /// The outputs, if this party (or, when both ran here, the peer) has
    /// them.
    outputs: Option<&'a Vec<Vec<bool>>>,
    /// Seconds of the protocol's own phases.
    seconds: BTreeMap<String, f64>,
    /// The whole session.
    total: std::time::Duration,
    and_gates: u64,
    /// Bytes this party sent, and the peer.
    sent: (u64, u64),
    /// Whether both parties ran here.
    local: bool,
}

impl Finished<'_> {
    /// The report of `party`, with a mixed run's figures if one ran.
    fn report(
        mut self,
        loaded: &Loaded,
        party: Party,
        reveal: Reveal,
        scheme: Scheme,
        mixed: Option<MixedFigures>,
    ) -> Result<RunReport> {
        let lines = output_lines(loaded, self.outputs, reveal)?;
        let seconds = &mut self.seconds;
        seconds.insert("total".into(), self.total.as_secs_f64());
        let load = if loaded.compiled { "compile" } else { "load" };
        seconds.insert(load.into(), loaded.load_time.as_secs_f64());
        seconds.insert("wall".into(), crate::started().elapsed().as_secs_f64());
        let (mine, theirs) = self.sent;
        let bytes_sent = match party {
            Party::A => PerParty { a: mine, b: theirs },
            Party::B => PerParty { a: theirs, b: mine },
        };
        let ands = self.and_gates;
        Ok(RunReport {
            party: party_name(party, self.local),
            scheme: scheme.name().to_string(),
            protocol: if mixed.is_some() {
                "mixed".into()
            } else {
                yao()
            },
            bytes: mine + theirs,
            mixed,
            outputs: self.outputs.map(|o| outputs_json(loaded, o)),
            and_gates: ands,
            bytes_sent,
            bytes_per_and_gate: (ands > 0).then(|| (mine + theirs) as f64 / ands as f64),
            seconds: self.seconds,
            and_gates_per_second: ands as f64 / self.total.as_secs_f64(),
            peak_rss_bytes: crate::peak_rss_bytes(),
            lines,
        })
    }
}

/// `a`, `b`, or `local` when both parties ran here.
fn party_name(party: Party, local: bool) -> String {
    if local {
        "local".to_string()
    } else {
        party.to_string()
    }
}

/// The outputs as text, or why there are none here.
fn output_lines(
    loaded: &Loaded,
    outputs: Option<&Vec<Vec<bool>>>,
    reveal: Reveal,
) -> Result<String> {
    Ok(match outputs {
        Some(out) => format_outputs(loaded, out)
            .into_iter()
            .map(|(_, v)| v + "\n")
            .collect(),
        None if reveal != Reveal::Both => format!(
            "(the output is revealed to party {} only)\n",
            if reveal == Reveal::A { "a" } else { "b" }
        ),
        None => bail!("no output was received"),
    })
}

/// The report of a finished mixed run of `party` (see [`run_report`]).
fn mixed_report(
    loaded: &Loaded,
    chosen: &Chosen,
    party: Party,
    report: &MixedReport,
    peer: Option<&MixedReport>,
    reveal: Reveal,
    scheme: Scheme,
) -> Result<RunReport> {
    let mut seconds = BTreeMap::new();
    seconds.insert("setup".to_string(), report.setup.as_secs_f64());
    // Both directions: what the peer sent is the rest.
    let mine = report.bytes_sent;
    let finished = Finished {
        outputs: report
            .outputs
            .as_ref()
            .or_else(|| peer.and_then(|p| p.outputs.as_ref())),
        seconds,
        total: report.total,
        and_gates: report.and_gates,
        sent: (mine, report.traffic.total().saturating_sub(mine)),
        local: peer.is_some(),
    };
    let figures = MixedFigures::of(chosen, report);
    finished.report(loaded, party, reveal, scheme, Some(figures))
}

/// A session's error, with a hint when the parties ran different programs
/// from C: how a C program runs (garbled circuits or a mixed program)
/// follows `--protocol` and `--network`.
fn hint(e: anyhow::Error, loaded: &Loaded) -> anyhow::Error {
    let differ = matches!(
        e.downcast_ref::<twofold_protocol::ProtocolError>(),
        Some(twofold_protocol::ProtocolError::Mismatch { what, .. }) if what.contains("program")
    );
    if differ && loaded.compiled {
        let how = if loaded.mixed.is_some() {
            "a mixed program"
        } else {
            "garbled circuits"
        };
        return e.context(format!(
            "this party runs the C program as {how}: every party must give the same source, --protocol and --network"
        ));
    }
    e
}
