//! The `twofold` command line.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use twofold::commands::{bench, e2e, eval, run, stats};
use twofold::load::{load, parse_owners, parse_party, LoadOptions};
use twofold_protocol::{Endpoint, IppMode, Reveal, Schedule};

/// Secure two-party computation with Yao's garbled circuits.
#[derive(Parser)]
#[command(name = "twofold", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

/// The program a command works on.
#[derive(clap::Args)]
struct ProgramArgs {
    /// C source (.c), Bristol Fashion / old Bristol circuit, or binary program.
    file: PathBuf,
    /// Assign input values to parties: `0=a,1=b` or `INPUT_C=b` (both parties must agree).
    #[arg(long)]
    owner: Vec<String>,
    /// C only: unroll loops whose exit depends on a secret at most N times.
    #[arg(long, value_name = "N")]
    unwind: Option<u32>,
    /// C only: keep independent loops inline instead of making them parallel regions.
    #[arg(long)]
    no_regions: bool,
    /// C only: unroll every loop (the program as one flat circuit).
    #[arg(long)]
    no_loops: bool,
}

impl ProgramArgs {
    /// `file` with no options.
    fn plain(file: PathBuf) -> ProgramArgs {
        ProgramArgs {
            file,
            owner: Vec::new(),
            unwind: None,
            no_regions: false,
            no_loops: false,
        }
    }

    fn load(&self) -> Result<twofold::load::Loaded> {
        let opts = LoadOptions {
            owners: parse_owners(&self.owner)?,
            unwind: self.unwind,
            no_regions: self.no_regions,
            no_loops: self.no_loops,
        };
        load(&self.file, &opts)
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum RevealTo {
    A,
    B,
}

#[derive(Subcommand)]
enum Cmd {
    /// Gates, AND gates, depth, level widths and input/output widths of a program.
    Stats {
        #[command(flatten)]
        program: ProgramArgs,
        /// Also print the distribution of AND gates per level.
        #[arg(long)]
        levels: bool,
        /// Draw the AND gates of every level as an SVG bar chart.
        #[arg(long, value_name = "SVG")]
        plot: Option<PathBuf>,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Write a program (e.g. compiled from C) in twofold's binary format, so
    /// both parties can load it without compiling.
    Compile {
        #[command(flatten)]
        program: ProgramArgs,
        /// The binary program to write.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: PathBuf,
    },
    /// Plaintext evaluation (no security: for checking programs and inputs).
    Eval {
        #[command(flatten)]
        program: ProgramArgs,
        /// An input value, `VALUE` (in order) or `NAME=VALUE`: an integer (hex
        /// 0x… or decimal) for circuits, a C initializer for C programs.
        #[arg(short = 'i', long = "input")]
        inputs: Vec<String>,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Run a secure two-party computation.
    Run {
        #[command(flatten)]
        program: ProgramArgs,
        /// Both parties in this process over loopback TCP.
        #[arg(long, conflicts_with_all = ["listen", "connect", "party"])]
        local: bool,
        /// This party: a (garbler) or b (evaluator).
        #[arg(long, value_parser = parse_party)]
        party: Option<twofold_circuit::Party>,
        /// Wait for the peer on ADDR (e.g. 0.0.0.0:7766).
        #[arg(long, value_name = "ADDR", conflicts_with = "connect")]
        listen: Option<String>,
        /// Connect to the peer at ADDR (retried until the timeout).
        #[arg(long, value_name = "ADDR")]
        connect: Option<String>,
        /// An input value, `VALUE` (in order) or `NAME=VALUE`; each party gives its own.
        #[arg(short = 'i', long = "input")]
        inputs: Vec<String>,
        /// Only this party learns the output (default: both).
        #[arg(long, value_enum)]
        reveal_to: Option<RevealTo>,
        /// Seconds to wait for the peer before giving up.
        #[arg(long, default_value_t = 60)]
        timeout: u64,
        /// Threads per party (default: the number of cores; both parties must agree).
        #[arg(long)]
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
        /// (default: the threshold measured on the development machine; both
        /// must agree).
        #[arg(long, value_name = "N")]
        fgp_min_ands: Option<usize>,
        /// Garbling scheme: half-gates (32 bytes per AND gate, fastest to
        /// compute) or three-halves (24.6 bytes, for slow links); both must agree.
        #[arg(long, default_value = "half-gates")]
        scheme: twofold_crypto::Scheme,
        /// One JSON object on stdout (outputs, AND gates, bytes, seconds, memory).
        #[arg(long)]
        json: bool,
    },
    /// Measure garbling, evaluation and full-protocol speed.
    Bench {
        /// A smaller, quicker run (10^6 / 10^6 / 10^7 AND gates).
        #[arg(long)]
        quick: bool,
        /// Bristol Fashion AES-128 circuit for the protocol run.
        #[arg(long, default_value = "../shared/data/bristol/aes_128.txt")]
        aes: PathBuf,
        /// Runs per figure (the median is reported).
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Garbling only (tables dropped, no peer) of this program, with
        /// --threads and --schedule.
        #[arg(long, value_name = "FILE", conflicts_with_all = ["speedup", "artificial"])]
        garble_only: Option<PathBuf>,
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
        /// With --ipp: run the parties in the namespaces of scripts/netns.sh
        /// (a shaped link) instead of on loopback.
        #[arg(long, requires = "ipp")]
        netns: bool,
        /// The ParCC artificial-circuit experiment: random circuits of depth
        /// --depth and widths 16..1024, FGP speed-up on 2 threads.
        #[arg(long)]
        artificial: bool,
        /// Depth of the artificial circuits.
        #[arg(long, default_value_t = 1000)]
        depth: u32,
        /// Widest artificial circuit (widths double from 16).
        #[arg(long, default_value_t = 1024)]
        max_width: u32,
        /// Threads for --garble-only.
        #[arg(long, default_value_t = 1)]
        threads: u32,
        /// Schedule for --garble-only.
        #[arg(long, default_value = "seq", value_parser = parse_schedule)]
        schedule: Schedule,
        /// Draw the --speedup or --artificial results as an SVG chart.
        #[arg(long, value_name = "SVG")]
        plot: Option<PathBuf>,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
}

fn parse_schedule(text: &str) -> Result<Schedule, String> {
    Schedule::ALL
        .into_iter()
        .find(|s| s.name() == text)
        .ok_or_else(|| format!("`{text}` is not a schedule (seq, fgp, cgp, auto)"))
}

/// The number of cores of this machine.
fn cores() -> u32 {
    std::thread::available_parallelism().map_or(1, |n| n.get() as u32)
}

fn main() -> ExitCode {
    twofold::started();
    match real_main() {
        Ok(out) => {
            print!("{out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("twofold: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn real_main() -> Result<String> {
    match Cli::parse().command {
        Cmd::Stats {
            program,
            levels,
            plot,
            json,
        } => {
            let loaded = program.load()?;
            let widths = stats::levels_of(&loaded.program, levels || plot.is_some());
            if let (Some(svg), Some(widths)) = (plot, &widths) {
                let title = format!("AND gates per level: {}", program.file.display());
                std::fs::write(&svg, stats::levels_svg(widths, &title))
                    .with_context(|| format!("cannot write {}", svg.display()))?;
            }
            let widths = widths.as_deref();
            Ok(if json {
                let mut v = stats::stats_json(&loaded.program, widths, &loaded.loops);
                if levels {
                    v["ands_per_level"] = widths.unwrap_or_default().into();
                }
                v.to_string() + "\n"
            } else if levels {
                stats::stats_text(&loaded.program, widths, &loaded.loops)
                    + &stats::levels_text(widths.unwrap_or_default())
            } else {
                stats::stats_text(&loaded.program, widths, &loaded.loops)
            })
        }
        Cmd::Compile { program, output } => {
            let loaded = program.load()?;
            let file = std::fs::File::create(&output)
                .with_context(|| format!("cannot write {}", output.display()))?;
            let mut out = std::io::BufWriter::new(file);
            twofold_circuit::binary::write_program(&loaded.program, &mut out)?;
            std::io::Write::flush(&mut out)?;
            let blocks = loaded.program.blocks.len();
            let regions = loaded.program.parallel_blocks().count();
            Ok(format!(
                "{}: {} AND gates, {} regions, {} loops\n",
                output.display(),
                loaded.program.and_count(),
                regions,
                blocks - regions
            ))
        }
        Cmd::Eval {
            program,
            inputs,
            json,
        } => {
            let loaded = program.load()?;
            Ok(eval::eval(&loaded, &inputs, json)? + if json { "\n" } else { "" })
        }
        Cmd::Run {
            program,
            local,
            party,
            listen,
            connect,
            inputs,
            reveal_to,
            timeout,
            threads,
            schedule,
            ipp,
            ipp_no_overlap,
            fgp_min_ands,
            scheme,
            json,
        } => {
            let endpoint = match (local, listen, connect) {
                (true, _, _) => run::Endpoint::Local,
                (false, Some(addr), None) => run::Endpoint::Remote(Endpoint::Listen(addr)),
                (false, None, Some(addr)) => run::Endpoint::Remote(Endpoint::Connect(addr)),
                _ => anyhow::bail!(
                    "say where the peer is: --local, or --party with --listen or --connect"
                ),
            };
            let loaded = program.load()?;
            let opts = run::RunOptions {
                endpoint,
                party,
                inputs,
                reveal: match reveal_to {
                    None => Reveal::Both,
                    Some(RevealTo::A) => Reveal::A,
                    Some(RevealTo::B) => Reveal::B,
                },
                timeout: Duration::from_secs(timeout.max(1)),
                schedule,
                threads: threads.unwrap_or_else(cores),
                ipp: match (ipp, ipp_no_overlap) {
                    (false, _) => IppMode::Off,
                    (true, false) => IppMode::On,
                    (true, true) => IppMode::NoOverlap,
                },
                fgp_min_ands,
                scheme,
                json,
            };
            Ok(run::run(&loaded, &opts)? + if json { "\n" } else { "" })
        }
        Cmd::Bench {
            quick,
            aes,
            runs,
            garble_only,
            speedup,
            ipp,
            e2e: e2e_files,
            netns,
            artificial,
            depth,
            max_width,
            threads,
            schedule,
            plot,
            json,
        } => {
            let log = |line: &str| eprintln!("{line}");
            let render =
                |v: serde_json::Value, text: String| if json { v.to_string() + "\n" } else { text };
            if let Some(file) = garble_only {
                let program = ProgramArgs::plain(file).load()?.program;
                let plan = twofold_protocol::Plan::new(schedule, threads as usize);
                let rate = bench::garble_only_rate(&program, plan, runs)?;
                let v = serde_json::json!({
                    "and_gates": program.and_count(),
                    "schedule": schedule.name(),
                    "threads": threads,
                    "garble_and_gates_per_second": rate,
                });
                let text = format!(
                    "garbling only, {} x{threads}: {:.1} M AND/s ({} AND gates, median of {runs})\n",
                    schedule.name(),
                    rate / 1e6,
                    program.and_count()
                );
                return Ok(render(v, text));
            }
            if !speedup.is_empty() {
                let mut programs = Vec::new();
                for file in speedup {
                    let name = file
                        .file_stem()
                        .map_or("?".into(), |s| s.to_string_lossy().into_owned());
                    programs.push((name, ProgramArgs::plain(file).load()?.program));
                }
                let v = bench::speedups(&programs, runs, log)?;
                if let Some(svg) = plot {
                    std::fs::write(&svg, bench::speedups_svg(&v))?;
                }
                let text = bench::speedups_text(&v);
                return Ok(render(v, text));
            }
            if !ipp.is_empty() {
                let link = if netns {
                    bench::Link::Netns
                } else {
                    bench::Link::Loopback
                };
                let v = bench::ipp(&ipp, runs, link, log)?;
                let text = bench::ipp_text(&v);
                return Ok(render(v, text));
            }
            if !e2e_files.is_empty() {
                let v = e2e::e2e(&e2e_files, runs, log)?;
                let text = e2e::e2e_text(&v);
                return Ok(render(v, text));
            }
            if artificial {
                let v = bench::artificial(runs, depth, max_width, log)?;
                if let Some(svg) = plot {
                    std::fs::write(&svg, bench::artificial_svg(&v))?;
                }
                let text = bench::artificial_text(&v);
                return Ok(render(v, text));
            }
            let scale = if quick { 10 } else { 1 };
            let opts = bench::BenchOptions {
                core_and_gates: 10_000_000 / scale,
                aes_and_gates: 10_000_000 / scale,
                streamed_and_gates: 100_000_000 / scale,
                aes_path: aes,
                runs,
            };
            let results = bench::bench(&opts, log)?;
            let text = bench::bench_text(&results);
            Ok(render(results, text))
        }
    }
}
