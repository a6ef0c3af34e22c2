//! `twofold bench --hybrid FILE…`: the three-party hybrid mode as users run
//! it, each computing party its own process (`twofold run FILE --parties 3
//! --party K --peers …`) on zero inputs shared into fresh stores; with
//! `--netns`, in the namespaces of `scripts/netns.sh up3` (a shaped link).
//! Reports the wall-clock until all three have finished (compiling
//! included), the slowest party's session, and each party's phases.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde::Serialize;

use super::median;
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
        let program = load(file, &LoadOptions::default())?.program;
        log(&format!(
            "{}: {} AND gates ...",
            file.display(),
            program.and_count()
        ));
        // Outputs under names of their own: a Bristol circuit's output `0`
        // would replace its input `0`.
        let outs: Vec<String> = program
            .main
            .outputs
            .iter()
            .flat_map(|v| ["--out".to_string(), format!("{0}=out.{0}", v.name)])
            .collect();
        let dir = crate::files::private_temp_dir("twofold-bench-hybrid")?;
        let measured = share_zeros(file, &program, &dir).and_then(|()| {
            (0..runs)
                .map(|_| {
                    super::parties::retrying_port_clashes(|| {
                        three_processes(file, &dir, &outs, netns)
                    })
                })
                .collect::<Result<Vec<_>>>()
        });
        let _ = std::fs::remove_dir_all(&dir);
        let results = measured?;
        let wall = median(results.iter().map(|r| r.0).collect());
        // The slowest party's seconds, counting the phases `counted` lets in.
        let slowest = |r: &(f64, Vec<PartyFigures>), counted: fn(&str) -> bool| {
            r.1.iter()
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
        rows.push(HybridRow {
            program: file.display().to_string(),
            and_gates: program.and_count(),
            wall_seconds: wall,
            session_seconds: median(sessions),
            protocol_seconds: median(protocols),
            parties: median_run.1.clone(),
        });
    }
    Ok(HybridFigures {
        runs,
        link: if netns { "Netns" } else { "Loopback" }.into(),
        hybrid: rows,
    })
}

/// Shares zero for every input of `program` into the stores under `dir`.
fn share_zeros(file: &Path, program: &twofold_circuit::Program, dir: &Path) -> Result<()> {
    let zero = if file.extension().is_some_and(|e| e == "c") {
        "{0}"
    } else {
        "0"
    };
    let mut cmd = Command::new(std::env::current_exe()?);
    cmd.arg("share").arg(file).arg("--out").arg(dir);
    for v in &program.main.inputs {
        cmd.args(["-i", &format!("{}={zero}", v.name)]);
    }
    let out = cmd.output()?;
    if !out.status.success() {
        bail!("share failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(())
}

/// One run, storing the outputs as `outs` (`--out` arguments): the
/// wall-clock seconds and each party's figures.
fn three_processes(
    file: &Path,
    dir: &Path,
    outs: &[String],
    netns: bool,
) -> Result<(f64, Vec<PartyFigures>)> {
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
    let mut reports = Vec::new();
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
        reports.extend(report.parties);
    }
    Ok((start.elapsed().as_secs_f64(), reports))
}

impl Report for HybridFigures {
    fn text(&self) -> String {
        let mut out = format!(
            "three computing parties, each a process, link {}, median of {} runs (ms)\n{:<34}{:>11}{:>9}{:>9}{:>10}{:>8}{:>9}{:>11}{:>9}{:>9}\n",
            self.link, self.runs, "program", "AND gates", "wall", "session", "protocol", "input", "choice", "gates (2)", "reshare", "MB sent"
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
                "{:<34}{:>11}{:>9.1}{:>9.1}{:>10.2}{:>8.2}{:>9.2}{:>11.1}{:>9.2}{:>9.2}\n",
                r.program,
                r.and_gates,
                r.wall_seconds * 1e3,
                r.session_seconds * 1e3,
                r.protocol_seconds * 1e3,
                phase(1, "input"),
                phase(2, "oblivious_choice"),
                phase(1, "evaluation"),
                phase(1, "reshare"),
                sent
            );
        }
        out
    }
}
