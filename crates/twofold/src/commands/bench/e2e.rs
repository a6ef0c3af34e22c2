//! `twofold bench --e2e`: what a user waits for. Each run starts both
//! parties as processes (`twofold run FILE --party a --listen` and `--party
//! b --connect` on loopback) from the file as given — a C program is
//! compiled by each party — with zero inputs, and measures the wall-clock
//! time until both have finished, and each party's peak memory. A C
//! program with sums of products of secrets runs three times, as garbled
//! circuits (`--protocol yao`), as a mixed program with every sum
//! arithmetic (`--protocol mixed`) and as `--protocol auto` chooses for the
//! link (`--network lan` on loopback, `wan` on the shaped link), side by
//! side (the last row's protocol reads `auto/` and what auto ran);
//! `--netns` runs the parties on the shaped link of `scripts/netns.sh up`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;
use twofold_circuit::Party;

use super::parties::{run_two, zero_inputs, Link, Placement};
use super::{median, mib};
use crate::choice::Protocol;
use crate::commands::{PerParty, Report};
use crate::load::{load, LoadOptions, ValueKind};

/// The end-to-end figures of each program.
#[derive(Debug, Serialize)]
pub struct EndToEnd {
    /// Runs per program.
    pub runs: usize,
    /// The link between the parties.
    pub link: String,
    /// One row per program.
    pub e2e: Vec<EndToEndRow>,
}

/// The end-to-end figures of one program.
#[derive(Debug, Serialize)]
pub struct EndToEndRow {
    /// The file.
    pub program: String,
    /// `yao` or `mixed`.
    pub protocol: String,
    /// Bytes both parties sent.
    pub bytes: u64,
    /// AND gates executed.
    pub and_gates: u64,
    /// Median wall-clock seconds.
    pub wall_seconds: f64,
    /// AND gates over the median wall-clock.
    pub and_gates_per_second: f64,
    /// Each party's peak memory in the median run.
    pub peak_rss_bytes: PerParty<u64>,
    /// Party A's phases in the median run.
    pub seconds_a: BTreeMap<String, f64>,
    /// Bytes both parties sent over AND gates.
    pub bytes_per_and_gate: Option<f64>,
}

/// For each file, the median wall-clock of `runs` runs, each party's peak
/// memory, and the phases of the median run.
pub fn e2e(
    files: &[PathBuf],
    runs: usize,
    link: Link,
    mut log: impl FnMut(&str),
) -> Result<EndToEnd> {
    let runs = runs.max(1);
    let placement = Placement {
        link,
        pinned: false,
    };
    let mut rows = Vec::new();
    for file in files {
        let loaded = load(file, &LoadOptions::default())?;
        let products = loaded.secret_products > 0;
        let protocols: &[Protocol] = match (products, &loaded.program) {
            (false, _) => &[Protocol::Auto],
            (true, Some(_)) => &[Protocol::Yao, Protocol::Mixed, Protocol::Auto],
            // Garbled circuits out of reach (see `crate::outrun`).
            (true, None) => &[Protocol::Mixed, Protocol::Auto],
        };
        let network = match link {
            Link::Loopback => "lan",
            Link::Netns => "wan",
        };
        // A C program (its source, or a file compiled from it) takes
        // initializers, other programs integers.
        let zero = if (loaded.input_kinds.iter()).any(|k| matches!(k, ValueKind::C(_))) {
            "{0}"
        } else {
            "0"
        };
        let inputs = PerParty {
            a: zero_inputs(&loaded.inputs, Party::A, zero),
            b: zero_inputs(&loaded.inputs, Party::B, zero),
        };
        for &protocol in protocols {
            log(&format!("{} ...", file.display()));
            let args = match protocol {
                Protocol::Auto => vec!["--network".into(), network.into()],
                Protocol::Yao => vec!["--protocol".into(), "yao".into()],
                Protocol::Mixed => vec!["--protocol".into(), "mixed".into()],
            };
            let mut row = measure(file, &args, &inputs, placement, runs)?;
            if products && protocol == Protocol::Auto {
                row.protocol = format!("auto/{}", row.protocol);
            }
            rows.push(row);
        }
    }
    Ok(EndToEnd {
        runs,
        link: match link {
            Link::Loopback => "loopback",
            Link::Netns => "the shaped link of scripts/netns.sh",
        }
        .into(),
        e2e: rows,
    })
}

/// The row of `file` run `runs` times with `args`.
fn measure(
    file: &Path,
    args: &[String],
    inputs: &PerParty<Vec<String>>,
    placement: Placement,
    runs: usize,
) -> Result<EndToEndRow> {
    {
        let results = (0..runs)
            .map(|_| run_two(file, args, inputs, placement))
            .collect::<Result<Vec<_>>>()?;
        let wall = median(results.iter().map(|r| r.wall.as_secs_f64()).collect());
        let median_run = results
            .iter()
            .min_by(|x, y| {
                let off = |r: &super::parties::TwoParties| (r.wall.as_secs_f64() - wall).abs();
                off(x).total_cmp(&off(y))
            })
            .context("at least one run")?;
        let (a, b) = (&median_run.reports.a, &median_run.reports.b);
        Ok(EndToEndRow {
            program: file.display().to_string(),
            protocol: a.protocol.clone(),
            bytes: a.bytes,
            and_gates: a.and_gates,
            wall_seconds: wall,
            and_gates_per_second: a.and_gates as f64 / wall,
            peak_rss_bytes: PerParty {
                a: a.peak_rss_bytes,
                b: b.peak_rss_bytes,
            },
            seconds_a: a.seconds.clone(),
            bytes_per_and_gate: a.bytes_per_and_gate,
        })
    }
}

impl Report for EndToEnd {
    fn text(&self) -> String {
        let mut out = format!(
            "both parties as processes over {}, from the file as given, median of {} runs\n{:<32}{:>11}{:>12}{:>13}{:>10}{:>12}{:>11}{:>11}{:>11}\n",
            self.link, self.runs, "program", "proto", "bytes", "AND gates", "wall s", "M AND/s", "A MiB", "B MiB", "compile s"
        );
        for r in &self.e2e {
            let prepare = r.seconds_a.get("compile").or(r.seconds_a.get("load"));
            out += &format!(
                "{:<32}{:>11}{:>12}{:>13}{:>10.3}{:>12.1}{:>11.1}{:>11.1}{:>11}\n",
                r.program,
                r.protocol,
                r.bytes,
                r.and_gates,
                r.wall_seconds,
                r.and_gates_per_second / 1e6,
                mib(r.peak_rss_bytes.a),
                mib(r.peak_rss_bytes.b),
                prepare.map_or("-".into(), |s| format!("{s:.3}")),
            );
        }
        out
    }
}
