//! `twofold bench --speedup FILE…`: the ParCC paper's speed-up measurements
//! for each program — garbling only and evaluation only with 1 thread
//! (sequential) against FGP and CGP with 2 threads, each beside its
//! ceiling, and the full protocol over loopback with 1 and 2 threads — and
//! its bar chart (the paper's Figure 8).

use anyhow::Result;
use serde::Serialize;
use twofold_circuit::Program;
use twofold_protocol::{evaluate_only, garble_only, Plan, Schedule};

use super::ceiling::Ceiling;
use super::garble_only::{interleaved_rates, Config, Offline};
use super::protocol_runs;
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
    /// Garbling only (tables dropped).
    pub garbling: HalfSpeedups,
    /// Evaluation only (from tables recorded beforehand).
    pub evaluation: HalfSpeedups,
    /// Full protocol, one thread per party.
    pub protocol_1_thread: f64,
    /// Full protocol, two threads per party (`auto` schedule).
    pub protocol_2_threads: f64,
    /// Two threads over one.
    pub protocol_speedup: f64,
}

/// One half of the protocol on 1 and 2 threads, against the ceiling.
#[derive(Debug, Serialize)]
pub struct HalfSpeedups {
    /// Sequential, one thread.
    pub one_thread: f64,
    /// FGP, two threads.
    pub fgp_2_threads: f64,
    /// CGP, two threads.
    pub cgp_2_threads: f64,
    /// FGP over one thread.
    pub fgp_speedup: f64,
    /// CGP over one thread.
    pub cgp_speedup: f64,
    /// What two one-thread workers at once reach on this program.
    pub ceiling: Ceiling,
}

impl HalfSpeedups {
    /// Measures `half` of `program` (median of `runs`, all configurations
    /// interleaved).
    fn measure(program: &Program, runs: usize, half: Offline) -> Result<HalfSpeedups> {
        let plan = |schedule, threads| Config::Plan(Plan::new(schedule, threads));
        let configs = [
            plan(Schedule::Sequential, 1),
            plan(Schedule::Fgp, 2),
            plan(Schedule::Cgp, 2),
            Config::Together(2),
        ];
        let r = interleaved_rates(program, &configs, runs, half)?;
        let (one, fgp, cgp) = (r[0], r[1], r[2]);
        Ok(HalfSpeedups {
            one_thread: one,
            fgp_2_threads: fgp,
            cgp_2_threads: cgp,
            fgp_speedup: fgp / one,
            cgp_speedup: cgp / one,
            ceiling: Ceiling::new(2, one, r[3]),
        })
    }

    /// A line of the text table.
    fn line(&self, program: &str, half: &str, and_gates: u64) -> String {
        format!(
            "{:<16}{:<10}{:>12}{:>10.1}{:>10.1}{:>9.2}x{:>10.1}{:>9.2}x{:>8.2}x{:>9.2}{:>9.2}\n",
            program,
            half,
            and_gates,
            self.one_thread / 1e6,
            self.fgp_2_threads / 1e6,
            self.fgp_speedup,
            self.cgp_2_threads / 1e6,
            self.cgp_speedup,
            self.ceiling.speedup,
            self.fgp_speedup / self.ceiling.speedup,
            self.cgp_speedup / self.ceiling.speedup,
        )
    }
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
        let garbling = HalfSpeedups::measure(program, runs, garble_only)?;
        let evaluation = HalfSpeedups::measure(program, runs, evaluate_only)?;
        let (p1, _) = protocol_runs(program, Schedule::Sequential, 1, runs)?;
        let (p2, _) = protocol_runs(program, Schedule::Auto, 2, runs)?;
        rows.push(SpeedupRow {
            program: name.clone(),
            and_gates: program.and_count(),
            regions: program.parallel_blocks().count(),
            garbling,
            evaluation,
            protocol_1_thread: p1,
            protocol_2_threads: p2,
            protocol_speedup: p2 / p1,
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
            let (g, e) = (&r.garbling, &r.evaluation);
            for (label, speedup) in [
                ("FGP", g.fgp_speedup),
                ("CGP", g.cgp_speedup),
                ("ceiling", g.ceiling.speedup),
                ("eval FGP", e.fgp_speedup),
                ("eval CGP", e.cgp_speedup),
                ("eval ceiling", e.ceiling.speedup),
                ("protocol", r.protocol_speedup),
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
            "median of {} runs; offline halves (M AND/s); ceiling: two one-thread workers at once; /ceil: speed-up over ceiling\n{:<16}{:<10}{:>12}{:>10}{:>10}{:>10}{:>10}{:>10}{:>9}{:>9}{:>9}\n",
            self.runs, "program", "half", "AND gates", "1 thread", "FGP x2", "speed-up", "CGP x2", "speed-up", "ceiling", "FGP/ceil", "CGP/ceil"
        );
        for r in &self.speedups {
            out += &r.garbling.line(&r.program, "garble", r.and_gates);
            out += &r.evaluation.line(&r.program, "evaluate", r.and_gates);
            out += &format!(
                "{:<16}{:<10}full protocol over loopback, 2 threads (auto) over 1: {:.2}x\n",
                r.program, "protocol", r.protocol_speedup
            );
        }
        out
    }
}
