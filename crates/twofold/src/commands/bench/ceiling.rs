//! The machine's ceiling for parallel garbling (evaluation): N one-thread
//! garbling (evaluating) workers at once on the same program, their summed
//! speed over one worker alone. Two vCPUs that share one core's AES units give about 1x, two real
//! cores about 2x; every speed-up of the schedulers is judged against it.

use std::sync::Barrier;

use anyhow::Result;
use serde::Serialize;
use twofold_circuit::Program;
use twofold_protocol::{Plan, Schedule};

use super::garble_only::Offline;

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

impl Ceiling {
    /// The ceiling of `workers` workers from one worker's speed alone and
    /// their summed speed together.
    pub fn new(workers: usize, one_alone: f64, together: f64) -> Ceiling {
        Ceiling {
            workers,
            one_alone,
            together,
            speedup: together / one_alone,
        }
    }
}

/// One run of `workers` one-thread workers running `half` on the prepared
/// `program` at once: their AND gates per second, summed.
pub fn together_rate(program: &Program, workers: usize, half: Offline) -> Result<f64> {
    let sequential = Plan::new(Schedule::Sequential, 1);
    let start = Barrier::new(workers);
    let rates = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    start.wait();
                    half(program, sequential).map(|r| r.and_gates as f64 / r.seconds.as_secs_f64())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("garbling workers do not panic"))
            .collect::<Result<Vec<f64>, _>>()
    })?;
    Ok(rates.iter().sum())
}
