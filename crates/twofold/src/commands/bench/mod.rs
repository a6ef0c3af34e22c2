//! `twofold bench`: one module per benchmark, each with its result as a
//! typed [`Report`]. With no benchmark named, [`overview`] runs.
//!
//! Every figure is the median of `--runs` runs.

mod artificial;
mod ceiling;
mod e2e;
mod exchange;
mod garble_only;
mod hybrid;
mod ipp;
mod keys;
mod overview;
mod parties;
mod speedup;
mod tls;

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use twofold_circuit::{Party, Program};
use twofold_net::ChannelOptions;
use twofold_protocol::{run_local, PartyInputs, Schedule, SessionOptions};

pub use artificial::{artificial, Artificial, ArtificialRow};
pub use ceiling::{together_rate, Ceiling};
pub use e2e::{e2e, EndToEnd, EndToEndRow};
pub use garble_only::{interleaved_rates, Config, GarbleOnly, Offline};
pub use hybrid::{hybrid, HybridFigures, HybridRow};
pub use ipp::{ipp, IppFigures, IppRow, IppRun};
pub use overview::{overview, CoreFigures, Overview, OverviewOptions, ProtocolFigures};
pub use parties::Link;
pub use speedup::{speedups, HalfSpeedups, SpeedupRow, Speedups};
pub use tls::{secure_channel, SecureChannel};

use super::run::parse_schedule;
use super::Report;
use crate::load::{load, LoadOptions};

/// Arguments of `bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// A smaller, quicker run (10^6 / 10^6 / 10^7 AND gates).
    #[arg(long)]
    quick: bool,
    /// Bristol Fashion AES-128 circuit for the protocol run.
    #[arg(long, default_value = "../shared/data/bristol/aes_128.txt")]
    aes: PathBuf,
    /// Runs per figure (the median is reported; at least 1).
    #[arg(long, default_value_t = 3, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    runs: usize,
    /// Garbling only (tables dropped, no peer) of this program, with
    /// --threads and --schedule.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["speedup", "artificial"])]
    garble_only: Option<PathBuf>,
    /// Evaluation only (from tables garbled and recorded beforehand, no
    /// peer) of this program, with --threads and --schedule.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["speedup", "artificial", "garble_only"])]
    evaluate_only: Option<PathBuf>,
    /// Speed-ups on 2 threads (garbling only: FGP and CGP against one
    /// thread; full protocol: 2 threads against 1) for each program.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with = "artificial")]
    speedup: Vec<PathBuf>,
    /// Full protocol with and without inter-party parallelism for each
    /// program, each party a process on its own core (taskset).
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["speedup", "artificial", "garble_only"])]
    ipp: Vec<PathBuf>,
    /// End to end for each program: both parties as processes over
    /// loopback from the file as given (a C program compiled by each),
    /// zero inputs; wall-clock and each party's peak memory.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["speedup", "artificial", "garble_only", "ipp"])]
    e2e: Vec<PathBuf>,
    /// The three-party hybrid mode for each program: each computing party
    /// its own process on zero inputs shared into fresh stores; per-phase
    /// times.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["speedup", "artificial", "garble_only", "ipp", "e2e"])]
    hybrid: Vec<PathBuf>,
    /// The full protocol over loopback with and without the secure channel
    /// (TLS 1.3, AES-128-GCM) on a streamed synthetic circuit (5 x 10^7 AND
    /// gates, 5 x 10^6 with --quick), with --threads and --schedule.
    #[arg(long, conflicts_with_all = ["speedup", "artificial", "garble_only", "ipp", "e2e", "hybrid"])]
    tls: bool,
    /// With --ipp, --e2e or --hybrid: run the parties in the namespaces of
    /// scripts/netns.sh (up, or up3 for three parties; a shaped link)
    /// instead of on loopback.
    #[arg(long)]
    netns: bool,
    /// The ParCC artificial-circuit experiment: random circuits of depth
    /// --depth and widths 16..1024, FGP speed-up on 2 threads.
    #[arg(long)]
    artificial: bool,
    /// Depth of the artificial circuits (at least 1).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    depth: u32,
    /// Widest artificial circuit (widths double from 16).
    #[arg(long, default_value_t = 1024)]
    max_width: u32,
    /// Threads for --garble-only and --evaluate-only (at most 256).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=twofold_protocol::options::MAX_THREADS as i64))]
    threads: u32,
    /// Schedule for --garble-only and --evaluate-only.
    #[arg(long, default_value = "seq", value_parser = parse_schedule)]
    schedule: Schedule,
    /// Draw the --speedup or --artificial results as an SVG chart.
    #[arg(long, value_name = "SVG")]
    plot: Option<PathBuf>,
    /// One JSON object on stdout.
    #[arg(long)]
    json: bool,
}

/// Runs the benchmark the arguments name; returns what to print.
pub fn bench(args: &BenchArgs) -> Result<String> {
    let log = |line: &str| eprintln!("{line}");
    let runs = args.runs.max(1);
    if args.plot.is_some() && args.speedup.is_empty() && !args.artificial {
        // Else the path was ignored, even one that cannot be written.
        bail!("--plot draws the results of --speedup or --artificial");
    }
    let plot = |svg: String| -> Result<()> {
        match &args.plot {
            Some(path) => std::fs::write(path, svg)
                .with_context(|| format!("cannot write {}", path.display())),
            None => Ok(()),
        }
    };
    if let Some((file, evaluate)) = args
        .garble_only
        .as_ref()
        .map(|f| (f, false))
        .or(args.evaluate_only.as_ref().map(|f| (f, true)))
    {
        let program = load(file, &LoadOptions::default())?.into_garbled()?;
        return garble_only::measure(&program, args.schedule, args.threads, runs, evaluate)?
            .render(args.json);
    }
    if !args.speedup.is_empty() {
        let mut programs = Vec::new();
        for file in &args.speedup {
            let name = file
                .file_stem()
                .map_or("?".into(), |s| s.to_string_lossy().into_owned());
            programs.push((name, load(file, &LoadOptions::default())?.into_garbled()?));
        }
        let results = speedups(&programs, runs, log)?;
        plot(results.svg())?;
        return results.render(args.json);
    }
    if !args.ipp.is_empty() {
        let link = if args.netns {
            Link::Netns
        } else {
            Link::Loopback
        };
        return ipp(&args.ipp, runs, link, log)?.render(args.json);
    }
    if !args.hybrid.is_empty() {
        return hybrid(&args.hybrid, runs, args.netns, log)?.render(args.json);
    }
    if args.netns && args.ipp.is_empty() && args.e2e.is_empty() {
        bail!("--netns goes with --ipp, --hybrid or --e2e");
    }
    if args.tls {
        let and_gates = if args.quick { 5_000_000 } else { 50_000_000 };
        let program = overview::synthetic(and_gates);
        return secure_channel(&program, args.schedule, args.threads, runs, log)?.render(args.json);
    }
    if !args.e2e.is_empty() {
        let link = if args.netns {
            Link::Netns
        } else {
            Link::Loopback
        };
        return e2e(&args.e2e, runs, link, log)?.render(args.json);
    }
    if args.artificial {
        let results = artificial(runs, args.depth, args.max_width, log)?;
        plot(results.svg())?;
        return results.render(args.json);
    }
    let scale = if args.quick { 10 } else { 1 };
    let opts = OverviewOptions {
        core_and_gates: 10_000_000 / scale,
        aes_and_gates: 10_000_000 / scale,
        streamed_and_gates: 100_000_000 / scale,
        aes_path: args.aes.clone(),
        runs,
    };
    overview(&opts, log)?.render(args.json)
}

/// The median of `xs` (the upper of the middle two for an even count; NaN
/// for none).
pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs.get(xs.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Bytes in MiB.
fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 20) as f64
}

/// Both parties' inputs to `program`, every bit zero.
pub(super) fn zero_inputs(program: &Program) -> (PartyInputs, PartyInputs) {
    let zeros = |party| -> PartyInputs {
        program
            .main
            .inputs
            .iter()
            .map(|v| (v.party == party).then(|| vec![false; v.width as usize]))
            .collect()
    };
    (zeros(Party::A), zeros(Party::B))
}

/// Full protocol over loopback with all inputs zero, both parties in this
/// process: AND gates per second (median of `runs`) and the bytes both
/// parties sent.
fn protocol_runs(
    program: &Program,
    schedule: Schedule,
    threads: u32,
    runs: usize,
) -> Result<(f64, u64)> {
    let (a, b) = zero_inputs(program);
    let opts = SessionOptions {
        schedule,
        threads,
        ..SessionOptions::default()
    };
    let mut rates = Vec::new();
    let mut bytes = 0;
    for _ in 0..runs.max(1) {
        let (ra, rb) = run_local(program, &a, &b, &opts, &ChannelOptions::default())?;
        rates.push(ra.and_gates as f64 / ra.total.as_secs_f64());
        bytes = ra.bytes_sent + rb.bytes_sent;
    }
    Ok((median(rates), bytes))
}
