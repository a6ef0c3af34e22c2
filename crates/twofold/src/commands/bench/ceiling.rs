//! The machine's ceiling for parallel garbling (evaluation): N one-thread
//! garbling (evaluating) workers at once on the same program, their summed
//! speed over one worker alone. Two vCPUs that share one core's AES units give about 1x, two real
//! cores about 2x; every speed-up of the schedulers is judged against it.

use std::sync::Barrier;

use anyhow::Result;
use serde::Serialize;
use twofold_circuit::prepare::prepare;
use twofold_circuit::Program;
use twofold_protocol::{Plan, Schedule};

use super::garble_only::{offline_rate, Offline};
use super::median;

/// The ceiling measured on one program.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Ceiling {
    /// Workers at once.
    pub workers: usize,
    /// One worker alone, AND gates per second.
    pub one_alone: f64,
    /// All workers at once, their AND gates per second summed.
    pub together: f64,
    /// `together / one_alone`: the most a schedule on `workers` threads can
    /// gain.
    pub speedup: f64,
}

/// Measures the ceiling of `workers` threads running `half` on `program`
/// (median of `runs`).
pub fn ceiling(program: &Program, workers: usize, runs: usize, half: Offline) -> Result<Ceiling> {
    let program = prepare(program);
    let sequential = Plan::new(Schedule::Sequential, 1);
    let one_alone = offline_rate(&program, sequential, runs, half)?;
    let mut sums = Vec::new();
    for _ in 0..runs.max(1) {
        let start = Barrier::new(workers);
        let rates = std::thread::scope(|s| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    s.spawn(|| {
                        start.wait();
                        half(&program, sequential)
                            .map(|r| r.and_gates as f64 / r.seconds.as_secs_f64())
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("garbling workers do not panic"))
                .collect::<Result<Vec<f64>, _>>()
        })?;
        sums.push(rates.iter().sum());
    }
    let together = median(sums);
    Ok(Ceiling {
        workers,
        one_alone,
        together,
        speedup: together / one_alone,
    })
}
