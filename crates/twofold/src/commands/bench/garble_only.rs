//! `twofold bench --garble-only FILE` (`--evaluate-only FILE`): garbling
//! speed of one program with the tables dropped (evaluation speed from
//! tables recorded beforehand), no peer, under a schedule and thread count.

use anyhow::Result;
use serde::Serialize;
use twofold_circuit::Program;
use twofold_protocol::{
    evaluate_only, garble_only, GarbleOnlyReport, Plan, ProtocolError, Schedule,
};

use super::ceiling::together_rate;
use super::median;
use crate::commands::Report;

/// Garbling-only (evaluation-only) speed of a program.
#[derive(Debug, Serialize)]
pub struct GarbleOnly {
    /// AND gates garbled per run.
    pub and_gates: u64,
    /// The schedule's name.
    pub schedule: &'static str,
    /// Threads.
    pub threads: u32,
    /// Which half: "garbling" or "evaluation".
    pub half: &'static str,
    /// Median AND gates per second.
    pub and_gates_per_second: f64,
    /// Runs.
    #[serde(skip)]
    runs: usize,
}

/// One half of the protocol run offline: [`garble_only`] or
/// [`evaluate_only`].
pub type Offline = fn(&Program, Plan) -> Result<GarbleOnlyReport, ProtocolError>;

/// What a measured configuration runs: a plan, or that many one-thread
/// workers at once (a ceiling, see [`together_rate`]).
#[derive(Clone, Copy, Debug)]
pub enum Config {
    /// One run under this plan.
    Plan(Plan),
    /// This many sequential one-thread workers at once, speeds summed.
    Together(usize),
}

/// AND gates per second of `half` on `program` under each configuration
/// (median of `runs`), the configurations run round-robin — each round
/// runs every one once — so that the machine's load changes meet all of
/// them alike and their ratios stay fair.
pub fn interleaved_rates(
    program: &Program,
    configs: &[Config],
    runs: usize,
    half: Offline,
) -> Result<Vec<f64>> {
    // Prepared once, not before every run.
    let program = &*twofold_circuit::prepare::prepared(program);
    let once = |config: &Config| -> Result<f64> {
        match *config {
            Config::Plan(plan) => {
                let r = half(program, plan)?;
                Ok(r.and_gates as f64 / r.seconds.as_secs_f64())
            }
            Config::Together(workers) => together_rate(program, workers, half),
        }
    };
    // One untimed round first: page faults and cold caches are not garbling.
    for config in configs {
        once(config)?;
    }
    let mut rates = vec![Vec::new(); configs.len()];
    for _ in 0..runs.max(1) {
        for (config, rates) in configs.iter().zip(&mut rates) {
            rates.push(once(config)?);
        }
    }
    Ok(rates.into_iter().map(median).collect())
}

/// Measures `program` under `schedule` on `threads` threads, garbling
/// (`evaluate` false) or evaluating.
pub fn measure(
    program: &Program,
    schedule: Schedule,
    threads: u32,
    runs: usize,
    evaluate: bool,
) -> Result<GarbleOnly> {
    let plan = Plan::new(schedule, threads as usize);
    let (half, f): (_, Offline) = match evaluate {
        false => ("garbling", garble_only),
        true => ("evaluation", evaluate_only),
    };
    Ok(GarbleOnly {
        and_gates: program.and_count(),
        schedule: schedule.name(),
        threads,
        half,
        and_gates_per_second: interleaved_rates(program, &[Config::Plan(plan)], runs, f)?[0],
        runs: runs.max(1),
    })
}

impl Report for GarbleOnly {
    fn text(&self) -> String {
        format!(
            "{} only, {} x{}: {:.1} M AND/s ({} AND gates, median of {})\n",
            self.half,
            self.schedule,
            self.threads,
            self.and_gates_per_second / 1e6,
            self.and_gates,
            self.runs
        )
    }
}
