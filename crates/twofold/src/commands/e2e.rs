//! `twofold bench --e2e`: what a user waits for. Each run starts both
//! parties as processes (`twofold run FILE --party a --listen` and `--party
//! b --connect` on loopback) from the file as given — a C program is
//! compiled by each party — with zero inputs, and measures the wall-clock
//! time until both have finished, and each party's peak memory.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result};
use serde_json::{json, Value};

use super::bench::{median, reports};

/// Zero for every input value of `party` of `file`, as `-i NAME=...`
/// arguments: `{0}` (a C initializer) for a C program, `0` otherwise.
fn zero_inputs(file: &Path, party: twofold_circuit::Party) -> Result<Vec<String>> {
    let loaded = crate::load::load(file, &crate::load::LoadOptions::default())?;
    let zero = if file.extension().is_some_and(|e| e == "c") {
        "{0}"
    } else {
        "0"
    };
    Ok(loaded
        .program
        .main
        .inputs
        .iter()
        .filter(|v| v.party == party)
        .flat_map(|v| ["-i".to_string(), format!("{}={zero}", v.name)])
        .collect())
}

/// One run: both parties' `--json` reports and the wall-clock seconds.
fn one_run(exe: &Path, file: &Path, inputs: &[Vec<String>; 2]) -> Result<(Value, Value, f64)> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let addr = format!("127.0.0.1:{port}");
    let party = |p: &str, flag: &str, inputs: &[String]| {
        Command::new(exe)
            .arg("run")
            .arg(file)
            .args(["--json", "--party", p, flag, &addr])
            .args(inputs)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
    };
    let start = Instant::now();
    let a = party("a", "--listen", &inputs[0])?;
    let b = party("b", "--connect", &inputs[1])?;
    let (a, b) = reports(a, b)?;
    Ok((a, b, start.elapsed().as_secs_f64()))
}

/// `bench --e2e`: for each file, the median wall-clock of `runs` runs,
/// each party's peak memory, and the phases of the median run.
pub fn e2e(files: &[PathBuf], runs: usize, mut log: impl FnMut(&str)) -> Result<Value> {
    let exe = std::env::current_exe()?;
    let mut rows = Vec::new();
    for file in files {
        let inputs = [
            zero_inputs(file, twofold_circuit::Party::A)?,
            zero_inputs(file, twofold_circuit::Party::B)?,
        ];
        log(&format!("{} ...", file.display()));
        let mut results = Vec::new();
        for _ in 0..runs.max(1) {
            results.push(one_run(&exe, file, &inputs)?);
        }
        let walls: Vec<f64> = results.iter().map(|r| r.2).collect();
        let wall = median(walls);
        let (a, b, _) = results
            .iter()
            .min_by(|x, y| (x.2 - wall).abs().total_cmp(&(y.2 - wall).abs()))
            .context("at least one run")?;
        let rss = |v: &Value| v["peak_rss_bytes"].as_u64().unwrap_or(0);
        let ands = a["and_gates"].as_u64().unwrap_or(0);
        rows.push(json!({
            "program": file.display().to_string(),
            "and_gates": ands,
            "wall_seconds": wall,
            "and_gates_per_second": ands as f64 / wall,
            "peak_rss_bytes": { "a": rss(a), "b": rss(b) },
            "seconds_a": a["seconds"],
            "bytes_per_and_gate": a["bytes_per_and_gate"],
        }));
    }
    Ok(json!({ "runs": runs.max(1), "e2e": rows }))
}

/// The results of [`e2e`] as a table.
pub fn e2e_text(v: &Value) -> String {
    let mut out = format!(
        "both parties as processes over loopback, from the file as given, median of {} runs\n{:<32}{:>12}{:>10}{:>12}{:>11}{:>11}{:>11}\n",
        v["runs"], "program", "AND gates", "wall s", "M AND/s", "A MiB", "B MiB", "compile s"
    );
    let mib = |x: &Value| x.as_f64().unwrap_or(0.0) / (1u64 << 20) as f64;
    for r in v["e2e"].as_array().into_iter().flatten() {
        let secs = &r["seconds_a"];
        let prep = secs["compile"].as_f64().or(secs["load"].as_f64());
        out += &format!(
            "{:<32}{:>12}{:>10.3}{:>12.1}{:>11.1}{:>11.1}{:>11}\n",
            r["program"].as_str().unwrap_or("?"),
            r["and_gates"],
            r["wall_seconds"].as_f64().unwrap_or(0.0),
            r["and_gates_per_second"].as_f64().unwrap_or(0.0) / 1e6,
            mib(&r["peak_rss_bytes"]["a"]),
            mib(&r["peak_rss_bytes"]["b"]),
            prep.map_or("-".into(), |s| format!("{s:.3}")),
        );
    }
    out
}
