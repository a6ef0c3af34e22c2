//! `twofold bench --ipp FILE…`: for each program, the full protocol without
//! inter-party parallelism, with it, and with it but without the overlap of
//! main gates and regions; each party a process on its own core.

use std::path::PathBuf;

use anyhow::Result;
use serde::Serialize;
use twofold_circuit::{binary, Party};
use twofold_protocol::IppMode;

use super::median;
use super::parties::{run_two, zero_inputs, Link, Placement};
use crate::commands::{PerParty, Report};
use crate::load::{load, LoadOptions};

/// The IPP figures of each program.
#[derive(Debug, Serialize)]
pub struct IppFigures {
    /// Runs per figure.
    pub runs: usize,
    /// `Loopback` or `Netns`.
    pub link: String,
    /// One row per program.
    pub ipp: Vec<IppRow>,
}

/// The IPP figures of one program.
#[derive(Debug, Serialize)]
pub struct IppRow {
    /// The file.
    pub program: String,
    /// AND gates executed.
    pub and_gates: u64,
    /// Parallel regions of the main frame.
    pub regions: usize,
    /// Main AND gates that can run during a region.
    pub main_and_gates_during_regions: u64,
    /// Without IPP over with it.
    pub speedup: f64,
    /// With IPP but no overlap over with it.
    pub overlap_speedup: f64,
    /// Without IPP.
    pub without_ipp: IppRun,
    /// With IPP.
    pub with_ipp: IppRun,
    /// With IPP, the main circuit waiting for every region.
    pub with_ipp_no_overlap: IppRun,
}

/// One mode's figures (bytes and transfer time of its last run).
#[derive(Debug, Serialize)]
pub struct IppRun {
    /// Median session seconds (party A).
    pub seconds: f64,
    /// Bytes A sent.
    pub bytes_a_to_b: u64,
    /// Bytes B sent.
    pub bytes_b_to_a: u64,
    /// Seconds of role transfers (party A).
    pub role_transfer_seconds: Option<f64>,
}

/// The command-line flags of a mode.
fn flags(mode: IppMode) -> Vec<String> {
    let flags: &[&str] = match mode {
        IppMode::Off => &[],
        IppMode::On => &["--ipp"],
        IppMode::NoOverlap => &["--ipp", "--ipp-no-overlap"],
    };
    flags.iter().map(|f| f.to_string()).collect()
}

/// Measures every file on `link`.
pub fn ipp(
    files: &[PathBuf],
    runs: usize,
    link: Link,
    mut log: impl FnMut(&str),
) -> Result<IppFigures> {
    let runs = runs.max(1);
    let placement = Placement { link, pinned: true };
    let mut rows = Vec::new();
    for file in files {
        let loaded = load(file, &LoadOptions::default())?;
        log(&format!(
            "{}: {} AND gates ...",
            file.display(),
            loaded.garbled()?.and_count()
        ));
        // Compiled and prepared once, here; the parties load the result.
        let program = twofold_circuit::prepare::prepared(loaded.garbled()?);
        // In a private directory of a random name (see `files`).
        let dir = crate::files::private_temp_dir("twofold-ipp")?;
        let tfc = dir.join("program.tfc");
        binary::write_program(
            &program,
            &mut std::io::BufWriter::new(std::fs::File::create(&tfc)?),
        )?;
        let inputs = PerParty {
            a: zero_inputs(&program.main.inputs, Party::A, "0"),
            b: zero_inputs(&program.main.inputs, Party::B, "0"),
        };
        // The modes take turns in every round, so drifting machine load
        // touches them alike.
        let modes = [IppMode::Off, IppMode::On, IppMode::NoOverlap];
        let mut times = vec![Vec::new(); modes.len()];
        let mut last = Vec::new();
        let measured = (0..runs).try_for_each(|_| {
            last.clear();
            for (k, &mode) in modes.iter().enumerate() {
                let mut args = vec!["--threads", "1", "--schedule", "seq"]
                    .into_iter()
                    .map(String::from)
                    .collect::<Vec<_>>();
                args.extend(flags(mode));
                let a = run_two(&tfc, &args, &inputs, placement)?.reports.a;
                times[k].push(a.seconds.get("total").copied().unwrap_or(f64::NAN));
                last.push(a);
            }
            Ok::<(), anyhow::Error>(())
        });
        let _ = std::fs::remove_dir_all(&dir);
        measured?;
        let [without, with, no_overlap] = [0, 1, 2].map(|k| IppRun {
            seconds: median(std::mem::take(&mut times[k])),
            bytes_a_to_b: last[k].bytes_sent.a,
            bytes_b_to_a: last[k].bytes_sent.b,
            role_transfer_seconds: last[k].seconds.get("role_transfer").copied(),
        });
        let order = program.main_overlapped();
        let during: u64 = (0..order.regions.len())
            .map(|r| order.during_ands(&program, r))
            .sum();
        rows.push(IppRow {
            program: file.display().to_string(),
            and_gates: loaded.garbled()?.and_count(),
            regions: loaded.garbled()?.parallel_blocks().count(),
            main_and_gates_during_regions: during,
            speedup: without.seconds / with.seconds,
            overlap_speedup: no_overlap.seconds / with.seconds,
            without_ipp: without,
            with_ipp: with,
            with_ipp_no_overlap: no_overlap,
        });
    }
    Ok(IppFigures {
        runs,
        link: format!("{link:?}"),
        ipp: rows,
    })
}

impl Report for IppFigures {
    fn text(&self) -> String {
        let mut out = format!(
            "each party one process on its own core, link {}, median of {} runs\n{:<28}{:>10}{:>10}{:>9}{:>14}{:>9}{:>13}{:>13}{:>12}\n",
            self.link,
            self.runs,
            "program",
            "no IPP s",
            "IPP s",
            "speed-up",
            "no overlap s",
            "overlap",
            "IPP A->B MB",
            "IPP B->A MB",
            "transfer s"
        );
        for r in &self.ipp {
            let with = &r.with_ipp;
            out += &format!(
                "{:<28}{:>10.3}{:>10.3}{:>8.2}x{:>14.3}{:>8.2}x{:>13.1}{:>13.1}{:>12.4}\n",
                r.program,
                r.without_ipp.seconds,
                with.seconds,
                r.speedup,
                r.with_ipp_no_overlap.seconds,
                r.overlap_speedup,
                with.bytes_a_to_b as f64 / 1e6,
                with.bytes_b_to_a as f64 / 1e6,
                with.role_transfer_seconds.unwrap_or(0.0),
            );
        }
        out
    }
}
