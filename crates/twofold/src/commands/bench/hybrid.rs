//! `twofold bench --hybrid FILE…`: the three-party hybrid mode as users run
//! it, each computing party its own process (`twofold run FILE --parties 3
//! --party K --peers …`) on zero inputs shared into fresh stores; with
//! `--netns`, in the namespaces of `scripts/netns.sh up3` (a shaped link).
//! Reports the wall-clock until all three have finished (compiling
//! included), the slowest party's session, and each party's phases. A C
//! program with products of secrets runs under both protocols, side by
//! side, on additive shares (`--protocol yao` and `mixed`: its arithmetic
//! on the shares); any other under the default (`auto`) on XOR shares.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::ValueEnum;
use serde::Serialize;

use super::median;
use crate::choice::Protocol;
use crate::commands::run3::{PartyFigures, ThreePartyReport};
use crate::commands::Report;
use crate::load::{load, LoadOptions};

/// The figures of each program.
#[derive(Serialize)]
pub struct HybridFigures {
    /// Runs per program.
    pub runs: usize,
    /// `Loopback` or `Netns`.
    pub link: String,
    /// One row per program.
    pub hybrid: Vec<HybridRow>,
}

/// One program's figures (phases of the median run).
#[derive(Serialize)]
pub struct HybridRow {
    /// The file.
    pub program: String,
    /// `yao` or `mixed`.
    pub protocol: String,
    /// AND gates of the program (the wrapping circuits add a few).
    pub and_gates: u64,
    /// Median seconds from starting the processes until all have ended.
    pub wall_seconds: f64,
    /// Median seconds of the slowest party's session (no compiling).
    pub session_seconds: f64,
    /// Median seconds of the slowest party's session after the handshake:
    /// the protocol between connected parties.
    pub protocol_seconds: f64,
    /// Each party's phases, bytes and AND gates in the median run.
    pub parties: Vec<PartyFigures>,
}

/// Measures every file; `netns` runs the parties in the namespaces of
/// `scripts/netns.sh up3`.
pub fn hybrid(
    files: &[PathBuf],
    runs: usize,
    netns: bool,
    mut log: impl FnMut(&str),
) -> Result<HybridFigures> {
    let runs = runs.max(1);
    let mut rows = Vec::new();
    for file in files {
        let boolean = LoadOptions {
            protocol: Protocol::Yao,
            ..LoadOptions::default()
        };
        let loaded = load(file, &boolean)?;
        let products = loaded.secret_products;
        let program = loaded.into_garbled()?;
        log(&format!(
            "{}: {} AND gates ...",
            file.display(),
            program.and_count()
        ));
        let (protocols, kind): (&[Protocol], &str) = if products > 0 {
            (&[Protocol::Yao, Protocol::Mixed], "add")
        } else {
            (&[Protocol::Auto], "xor")
        };
        // Outputs under names of their own: a Bristol circuit's output `0`
        // would replace its input `0`.
        let outs: Vec<String> = program
            .main
            .outputs
            .iter()
            .flat_map(|v| ["--out".to_string(), format!("{0}=out.{0}", v.name)])
            .collect();
        for &protocol in protocols {
            let dir = crate::files::private_temp_dir("twofold-bench-hybrid")?;
            let how = Run {
                file,
                dir: &dir,
                outs: &outs,
                netns,
                protocol,
                kind,
            };
            let measured = share_zeros(file, &program, &dir, kind).and_then(|()| {
                (0..runs)
                    .map(|_| super::parties::retrying_port_clashes(|| how.three_processes()))
                    .collect::<Result<Vec<_>>>()
            });
            let _ = std::fs::remove_dir_all(&dir);
            rows.push(row(file, program.and_count(), &measured?)?);
        }
    }
    Ok(HybridFigures {
        runs,
        link: if netns { "Netns" } else { "Loopback" }.into(),
        hybrid: rows,
    })
}

/// The row of a program of `and_gates` AND gates from its runs.
fn row(file: &Path, and_gates: u64, results: &[(f64, ThreePartyReport)]) -> Result<HybridRow> {
    {
        let wall = median(results.iter().map(|r| r.0).collect());
        // The slowest party's seconds, counting the phases `counted` lets in.
        let slowest = |r: &(f64, ThreePartyReport), counted: fn(&str) -> bool| {
            r.1.parties
                .iter()
                .map(|p| {
                    p.seconds
                        .iter()
                        .filter(|(k, _)| counted(k))
                        .map(|(_, s)| s)
                        .sum::<f64>()
                })
                .fold(0.0, f64::max)
        };
        let sessions = results
            .iter()
            .map(|r| slowest(r, |k| k == "total"))
            .collect();
        let protocols = results
            .iter()
            .map(|r| slowest(r, |k| k != "total" && k != "handshake"))
            .collect();
        let median_run = results
            .iter()
            .min_by(|x, y| (x.0 - wall).abs().total_cmp(&(y.0 - wall).abs()))
            .context("at least one run")?;
        Ok(HybridRow {
            program: file.display().to_string(),
            protocol: median_run.1.protocol.clone(),
            and_gates,
            wall_seconds: wall,
            session_seconds: median(sessions),
            protocol_seconds: median(protocols),
            parties: median_run.1.parties.clone(),
        })
    }
}

/// Shares zero for every input of `program` into the stores under `dir`,
/// as `kind` shares.
fn share_zeros(
    file: &Path,
    program: &twofold_circuit::Program,
    dir: &Path,
    kind: &str,
) -> Result<()> {
    let zero = if file.extension().is_some_and(|e| e == "c") {
        "{0}"
    } else {
        "0"
    };
    let mut cmd = Command::new(std::env::current_exe()?);
    cmd.arg("share").arg(file).arg("--out").arg(dir);
    cmd.args(["--kind", kind]);
    for v in &program.main.inputs {
        cmd.args(["-i", &format!("{}={zero}", v.name)]);
    }
    let out = cmd.output()?;
    if !out.status.success() {
        bail!("share failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(())
}

/// How each run goes: the program, its stores, the `--out` arguments, the
/// link and the protocol.
struct Run<'a> {
    file: &'a Path,
    dir: &'a Path,
    outs: &'a [String],
    netns: bool,
    protocol: Protocol,
    /// How inputs are shared and outputs are to be.
    kind: &'a str,
}

impl Run<'_> {
    /// One run: the wall-clock seconds and the parties' reports (their
    /// figures joined into one report).
    fn three_processes(&self) -> Result<(f64, ThreePartyReport)> {
        let Run {
            file,
            dir,
            outs,
            netns,
            protocol,
            kind,
        } = *self;
        let protocol = protocol.to_possible_value().expect("a named protocol");
        let exe = std::env::current_exe()?;
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let host = |k: u16| {
            if netns {
                format!("10.77.0.{k}:{port}")
            } else {
                format!("127.0.0.1:{}", port + k)
            }
        };
        let peers = format!("{},{},{}", host(1), host(2), host(3));
        let keys = super::keys::BenchKeys::new(&["cp1", "cp2", "cp3"])?;
        let start = Instant::now();
        let children = (1..=3)
            .map(|k| {
                let mut cmd = if netns {
                    let mut c = Command::new("ip");
                    c.args(["netns", "exec", &format!("twofold-cp{k}")])
                        .arg(&exe);
                    c
                } else {
                    Command::new(&exe)
                };
                cmd.arg("run")
                    .arg(file)
                    .args([
                        "--parties",
                        "3",
                        "--party",
                        &k.to_string(),
                        "--peers",
                        &peers,
                        "--json",
                        "--protocol",
                        protocol.get_name(),
                        "--kind",
                        kind,
                    ])
                    .args(keys.three(k))
                    .args(outs)
                    .arg("--store")
                    .arg(dir.join(format!("cp{k}")))
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
            })
            .collect::<std::io::Result<Vec<_>>>()?;
        let mut joined: Option<ThreePartyReport> = None;
        for (k, child) in children.into_iter().enumerate() {
            let out = child.wait_with_output()?;
            if !out.status.success() {
                bail!(
                    "CP{} failed: {}",
                    k + 1,
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            let report: ThreePartyReport = serde_json::from_slice(&out.stdout)?;
            match &mut joined {
                Some(all) => all.parties.extend(report.parties),
                None => joined = Some(report),
            }
        }
        let joined = joined.context("three reports")?;
        Ok((start.elapsed().as_secs_f64(), joined))
    }
}

impl Report for HybridFigures {
    fn text(&self) -> String {
        let mut out = format!(
            "three computing parties, each a process, link {}, median of {} runs (ms)\n{:<34}{:>7}{:>11}{:>9}{:>9}{:>10}{:>8}{:>9}{:>8}{:>11}{:>9}{:>9}\n",
            self.link, self.runs, "program", "proto", "AND gates", "wall", "session", "protocol", "input", "choice", "arith", "gates (2)", "reshare", "MB sent"
        );
        for r in &self.hybrid {
            let phase = |p: usize, name: &str| {
                r.parties
                    .get(p)
                    .and_then(|v| v.seconds.get(name).copied())
                    .unwrap_or(0.0)
                    * 1e3
            };
            let sent = r.parties.iter().map(|p| p.bytes_sent as f64).sum::<f64>() / 1e6;
            out += &format!(
                "{:<34}{:>7}{:>11}{:>9.1}{:>9.1}{:>10.2}{:>8.2}{:>9.2}{:>8.2}{:>11.1}{:>9.2}{:>9.3}\n",
                r.program,
                r.protocol,
                r.and_gates,
                r.wall_seconds * 1e3,
                r.session_seconds * 1e3,
                r.protocol_seconds * 1e3,
                phase(1, "input"),
                phase(2, "oblivious_choice"),
                phase(1, "arithmetic"),
                phase(1, "evaluation"),
                phase(1, "reshare"),
                sent
            );
        }
        out
    }
}
