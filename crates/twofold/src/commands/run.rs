//! `twofold run`: a secure two-party computation, on two machines or (with
//! `--local`) both parties in this process over loopback.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use twofold_circuit::Party;
use twofold_crypto::Scheme;
use twofold_net::ChannelOptions;
use twofold_protocol::{
    run_local, run_remote, IppMode, Reveal, Schedule, SessionOptions, SessionReport,
};

use crate::inputs::{assign, format_outputs, outputs_json, split, Givers};
use crate::load::Loaded;
use crate::progress::and_gate_bar;

/// Where the parties are.
pub enum Endpoint {
    /// Both parties here.
    Local,
    /// This party here, the peer where the endpoint says.
    Remote(twofold_protocol::Endpoint),
}

/// Options of `run`.
pub struct RunOptions {
    /// `--local`, `--listen` or `--connect`.
    pub endpoint: Endpoint,
    /// `--party` (ignored with `--local`).
    pub party: Option<Party>,
    /// `-i` values.
    pub inputs: Vec<String>,
    /// `--reveal-to`.
    pub reveal: Reveal,
    /// Network timeout (also how long to wait for the peer).
    pub timeout: Duration,
    /// `--schedule`.
    pub schedule: Schedule,
    /// `--threads`.
    pub threads: u32,
    /// `--ipp` (and `--ipp-no-overlap`).
    pub ipp: IppMode,
    /// `--fgp-min-ands`.
    pub fgp_min_ands: Option<usize>,
    /// `--scheme`.
    pub scheme: Scheme,
    /// `--json`.
    pub json: bool,
}

/// Runs the computation and returns what to print.
pub fn run(loaded: &Loaded, opts: &RunOptions) -> Result<String> {
    let channel = ChannelOptions {
        read_timeout: opts.timeout,
        write_timeout: opts.timeout,
        ..ChannelOptions::default()
    };
    let (progress, bar) = and_gate_bar(loaded.program.and_count(), opts.json);
    let session = SessionOptions {
        reveal: opts.reveal,
        schedule: opts.schedule,
        threads: opts.threads.max(1),
        ipp: opts.ipp,
        fgp_min_ands: opts.fgp_min_ands,
        scheme: opts.scheme,
        progress,
        ..SessionOptions::default()
    };
    let (party, report, peer) = match &opts.endpoint {
        Endpoint::Local => {
            let all = assign(loaded, &opts.inputs, Givers::Everyone)?;
            let (a, b) = split(loaded, &all);
            let (ra, rb) = run_local(&loaded.program, &a, &b, &session, &channel)?;
            (Party::A, ra, Some(rb))
        }
        Endpoint::Remote(endpoint) => {
            let party = opts
                .party
                .context("--party a|b is needed with --listen/--connect")?;
            let given = assign(loaded, &opts.inputs, Givers::Only(party))?;
            let program = &loaded.program;
            let report = run_remote(
                endpoint,
                opts.timeout,
                &channel,
                party,
                program,
                &given,
                &session,
            )?;
            (party, report, None)
        }
    };
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let outputs = report
        .outputs
        .as_ref()
        .or_else(|| peer.as_ref().and_then(|p| p.outputs.as_ref()));
    if opts.json {
        let mut v = json_report(loaded, party, &report, peer.as_ref(), outputs);
        v["scheme"] = json!(opts.scheme.name());
        return Ok(v.to_string());
    }
    match outputs {
        Some(out) => Ok(format_outputs(loaded, out)
            .into_iter()
            .map(|(_, v)| v + "\n")
            .collect()),
        None if opts.reveal != Reveal::Both => Ok(format!(
            "(the output is revealed to party {} only)\n",
            if opts.reveal == Reveal::A { "a" } else { "b" }
        )),
        None => bail!("no output was received"),
    }
}

fn json_report(
    loaded: &Loaded,
    party: Party,
    report: &SessionReport,
    peer: Option<&SessionReport>,
    outputs: Option<&Vec<Vec<bool>>>,
) -> Value {
    let mut seconds = serde_json::Map::new();
    for (phase, d) in &report.phases {
        seconds.insert(phase.name().into(), json!(d.as_secs_f64()));
    }
    seconds.insert("total".into(), json!(report.total.as_secs_f64()));
    let load = if loaded.compiled { "compile" } else { "load" };
    seconds.insert(load.into(), json!(loaded.load_time.as_secs_f64()));
    seconds.insert(
        "wall".into(),
        json!(crate::started().elapsed().as_secs_f64()),
    );
    seconds.insert(
        "role_transfer".into(),
        json!(report.role_transfer.as_secs_f64()),
    );
    // What this party received is what the peer sent.
    let (mine, theirs) = (
        report.bytes_sent,
        peer.map_or(report.bytes_received, |p| p.bytes_sent),
    );
    let (a, b) = match party {
        Party::A => (mine, theirs),
        Party::B => (theirs, mine),
    };
    json!({
        "party": if peer.is_some() { "local".to_string() } else { party.to_string() },
        "outputs": outputs.map_or(Value::Null, |o| outputs_json(loaded, o)),
        "and_gates": report.and_gates,
        "bytes_sent": { "a": a, "b": b },
        "bytes_per_and_gate": if report.and_gates > 0 { json!((a + b) as f64 / report.and_gates as f64) } else { Value::Null },
        "seconds": seconds,
        "and_gates_per_second": report.and_gates as f64 / report.total.as_secs_f64(),
        "peak_rss_bytes": crate::peak_rss_bytes(),
    })
}
