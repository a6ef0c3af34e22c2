//! `twofold bench --speedup FILE…`: the ParCC paper's speed-up measurements
//! for each program — garbling only with 1 thread (sequential) against FGP
//! and CGP with 2 threads, and the full protocol over loopback with 1 and 2
//! threads — and its bar chart (the paper's Figure 8).

use anyhow::Result;
use serde::Serialize;
use twofold_circuit::Program;
use twofold_protocol::{Plan, Schedule};

use super::ceiling::{ceiling, Ceiling};
use super::{garble_only_rate, protocol_runs};
use crate::commands::Report;

/// The speed-ups of each program.
#[derive(Debug, Serialize)]
pub struct Speedups {
    /// Runs per figure.
    pub runs: usize,
    /// One row per program.
    pub speedups: Vec<SpeedupRow>,
}

/// The speed-ups of one program (speeds in AND gates per second).
#[derive(Debug, Serialize)]
pub struct SpeedupRow {
    /// Its name.
    pub program: String,
    /// AND gates executed.
    pub and_gates: u64,
    /// Parallel regions of the main frame.
    pub regions: usize,
    /// Garbling only, sequential, one thread.
    pub garble_1_thread: f64,
    /// Garbling only, FGP, two threads.
    pub garble_fgp_2_threads: f64,
    /// Garbling only, CGP, two threads.
    pub garble_cgp_2_threads: f64,
    /// FGP over one thread.
    pub fgp_speedup: f64,
    /// CGP over one thread.
    pub cgp_speedup: f64,
    /// Full protocol, one thread per party.
    pub protocol_1_thread: f64,
    /// Full protocol, two threads per party (`auto` schedule).
    pub protocol_2_threads: f64,
    /// Two threads over one.
    pub protocol_speedup: f64,
    /// What two one-thread garbling workers at once reach on this program.
    pub ceiling: Ceiling,
}

/// Measures every program.
pub fn speedups(
    programs: &[(String, Program)],
    runs: usize,
    mut log: impl FnMut(&str),
) -> Result<Speedups> {
    let mut rows = Vec::new();
    for (name, program) in programs {
        log(&format!("{name}: {} AND gates ...", program.and_count()));
        let seq = garble_only_rate(program, Plan::new(Schedule::Sequential, 1), runs)?;
        let fgp = garble_only_rate(program, Plan::new(Schedule::Fgp, 2), runs)?;
        let cgp = garble_only_rate(program, Plan::new(Schedule::Cgp, 2), runs)?;
        let (p1, _) = protocol_runs(program, Schedule::Sequential, 1, runs)?;
        let (p2, _) = protocol_runs(program, Schedule::Auto, 2, runs)?;
        let ceiling = ceiling(program, 2, runs)?;
        rows.push(SpeedupRow {
            program: name.clone(),
            and_gates: program.and_count(),
            regions: program.parallel_blocks().count(),
            garble_1_thread: seq,
            garble_fgp_2_threads: fgp,
            garble_cgp_2_threads: cgp,
            fgp_speedup: fgp / seq,
            cgp_speedup: cgp / seq,
            protocol_1_thread: p1,
            protocol_2_threads: p2,
            protocol_speedup: p2 / p1,
            ceiling,
        });
    }
    Ok(Speedups {
        runs,
        speedups: rows,
    })
}

impl Speedups {
    /// The speed-ups as a bar chart (the paper's Figure 8).
    pub fn svg(&self) -> String {
        let mut bars = Vec::new();
        for r in &self.speedups {
            for (label, speedup) in [
                ("FGP", r.fgp_speedup),
                ("CGP", r.cgp_speedup),
                ("protocol", r.protocol_speedup),
                ("ceiling", r.ceiling.speedup),
            ] {
                bars.push((format!("{} {label}", r.program), speedup));
            }
        }
        crate::plot::bar_chart(
            "Speed-up on 2 threads",
            "program and schedule",
            "speed-up (x)",
            &bars,
        )
    }
}

impl Report for Speedups {
    fn text(&self) -> String {
        let mut out = format!(
            "median of {} runs; garbling only unless noted (M AND/s); ceiling: two one-thread workers at once\n{:<16}{:>12}{:>10}{:>10}{:>10}{:>10}{:>10}{:>12}{:>9}\n",
            self.runs, "program", "AND gates", "1 thread", "FGP x2", "speed-up", "CGP x2", "speed-up", "protocol x2", "ceiling"
        );
        for r in &self.speedups {
            out += &format!(
                "{:<16}{:>12}{:>10.1}{:>10.1}{:>9.2}x{:>10.1}{:>9.2}x{:>11.2}x{:>8.2}x\n",
                r.program,
                r.and_gates,
                r.garble_1_thread / 1e6,
                r.garble_fgp_2_threads / 1e6,
                r.fgp_speedup,
                r.garble_cgp_2_threads / 1e6,
                r.cgp_speedup,
                r.protocol_speedup,
                r.ceiling.speedup,
            );
        }
        out
    }
}
