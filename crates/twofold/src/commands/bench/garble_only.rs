//! `twofold bench --garble-only FILE`: garbling speed of one program with
//! the tables dropped (no peer), under a schedule and thread count.

use anyhow::Result;
use serde::Serialize;
use twofold_circuit::Program;
use twofold_protocol::{garble_only, Plan, Schedule};

use super::median;
use crate::commands::Report;

/// Garbling-only speed of a program.
#[derive(Debug, Serialize)]
pub struct GarbleOnly {
    /// AND gates garbled per run.
    pub and_gates: u64,
    /// The schedule's name.
    pub schedule: &'static str,
    /// Threads.
    pub threads: u32,
    /// Median AND gates per second.
    pub garble_and_gates_per_second: f64,
    /// Runs.
    #[serde(skip)]
    runs: usize,
}

/// Garbling-only AND gates per second of `program` (median of `runs`).
pub fn garble_only_rate(program: &Program, plan: Plan, runs: usize) -> Result<f64> {
    // Prepared once, not before every run.
    let program = &twofold_circuit::prepare::prepare(program);
    // One untimed run first: page faults and cold caches are not garbling.
    garble_only(program, plan)?;
    let mut rates = Vec::new();
    for _ in 0..runs.max(1) {
        let r = garble_only(program, plan)?;
        rates.push(r.and_gates as f64 / r.seconds.as_secs_f64());
    }
    Ok(median(rates))
}

/// Measures `program` under `schedule` on `threads` threads.
pub fn measure(
    program: &Program,
    schedule: Schedule,
    threads: u32,
    runs: usize,
) -> Result<GarbleOnly> {
    let plan = Plan::new(schedule, threads as usize);
    Ok(GarbleOnly {
        and_gates: program.and_count(),
        schedule: schedule.name(),
        threads,
        garble_and_gates_per_second: garble_only_rate(program, plan, runs)?,
        runs: runs.max(1),
    })
}

impl Report for GarbleOnly {
    fn text(&self) -> String {
        format!(
            "garbling only, {} x{}: {:.1} M AND/s ({} AND gates, median of {})\n",
            self.schedule,
            self.threads,
            self.garble_and_gates_per_second / 1e6,
            self.and_gates,
            self.runs
        )
    }
}
