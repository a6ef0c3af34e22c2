//! How fast the garbling and evaluation cores run on one core, in memory
//! (no network, no protocol): what `twofold bench` reports first.

use std::time::Instant;

use twofold_circuit::synthetic::layered;
use twofold_circuit::walk::{InOrder, Plan, Walker};
use twofold_circuit::Program;

use crate::aes::Backend;
use crate::delta::Delta;
use crate::dispatch::SchemeJob;
use crate::error::CryptoError;
use crate::label::{ActiveLabel, ZeroLabel};
use crate::memory::MemoryGarbler;
use crate::prg::Prg;
use crate::scheme::{GarblingScheme, Scheme, SchemeGarbler};

/// What [`core_speed`] measured.
#[derive(Clone, Debug)]
pub struct CoreSpeed {
    /// The garbling scheme measured.
    pub scheme: Scheme,
    /// Bytes of garbled table per AND gate (the layered body garbled in
    /// one call).
    pub bytes_per_and: f64,
    /// AND gates garbled (and evaluated) in every run.
    pub and_gates: u64,
    /// The AES backend the cores ran on.
    pub backend: Backend,
    /// AND gates garbled per second, one figure per run.
    pub garble_rates: Vec<f64>,
    /// AND gates evaluated per second, one figure per run.
    pub evaluate_rates: Vec<f64>,
}

/// Garbling-only and evaluation-only AND gates per second on one core under
/// `scheme`, in `runs` runs: a layered body of 65,536 AND gates (its tables,
/// at most 2 MiB, stay in cache as they do when streamed) garbled, and
/// evaluated from its recorded tables, as many times as make `and_gates`.
/// Every evaluation is checked against the garbled outputs.
pub fn core_speed(scheme: Scheme, and_gates: u64, runs: usize) -> Result<CoreSpeed, CryptoError> {
    scheme.dispatch(SpeedJob { and_gates, runs })
}

/// [`core_speed`] as a job generic over the scheme.
struct SpeedJob {
    and_gates: u64,
    runs: usize,
}

impl SchemeJob for SpeedJob {
    type Output = Result<CoreSpeed, CryptoError>;
    fn run<S: GarblingScheme>(self) -> Self::Output {
        core_speed_of::<S>(self.and_gates, self.runs)
    }
}

fn core_speed_of<S: GarblingScheme>(and_gates: u64, runs: usize) -> Result<CoreSpeed, CryptoError> {
    let body = Program::from(layered(1024, 64, 64, 0x5eed).levelize());
    // Planned once, as a session plans its program once: what is timed is
    // the engine walking the body.
    let plan = Plan::of(&body);
    let (mut garbling, mut evaluating) = (Walker::new(&plan), Walker::new(&plan));
    let per = body.and_count();
    let repeats = and_gates.div_ceil(per).max(1);
    let ands = repeats * per;
    let mut prg = Prg::try_from_os()?;
    let delta = Delta::random(&mut prg);
    let inputs: Vec<ZeroLabel> = (0..body.main.input_bits())
        .map(|_| ZeroLabel::random(&mut prg))
        .collect();
    let mut garble_rates = Vec::new();
    for _ in 0..runs {
        let mut engine = MemoryGarbler::<S>::dropping_tables(delta, 0)?;
        let t = Instant::now();
        for _ in 0..repeats {
            garbling.run(&mut engine, &inputs, &mut InOrder)?;
        }
        garble_rates.push(ands as f64 / t.elapsed().as_secs_f64());
    }
    let mut recorder = MemoryGarbler::<S>::new(delta, 0)?;
    let zero_outputs = garbling.run(&mut recorder, &inputs, &mut InOrder)?;
    let active: Vec<ActiveLabel> = inputs
        .iter()
        .map(|l| ActiveLabel::from_block(l.block()))
        .collect();
    let mut evaluate_rates = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let mut out = Vec::new();
        for _ in 0..repeats {
            out = evaluating.run(&mut recorder.evaluator(), &active, &mut InOrder)?;
        }
        evaluate_rates.push(ands as f64 / t.elapsed().as_secs_f64());
        // Every output label must be its wire's 0-label or 1-label.
        let d = delta.block();
        if out
            .iter()
            .zip(&zero_outputs)
            .any(|(a, z)| a.block() != z.block() && a.block() != z.block() ^ d)
        {
            return Err(CryptoError::WrongOutputs);
        }
    }
    Ok(CoreSpeed {
        scheme: S::KIND,
        bytes_per_and: recorder.tables().len() as f64 / per as f64,
        and_gates: ands,
        backend: recorder.garbler().backend(),
        garble_rates,
        evaluate_rates,
    })
}
