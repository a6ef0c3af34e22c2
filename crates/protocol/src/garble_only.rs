//! Offline garbling and evaluation, for measuring (the ParCC paper's
//! section 6.3): garble a whole program under a schedule and drop the
//! tables, or record them and time their evaluation alone — each half of
//! the protocol without a peer.

use std::marker::PhantomData;
use std::time::{Duration, Instant};

use twofold_circuit::walk::Plan as WalkPlan;
use twofold_circuit::{MainOrder, Program};
use twofold_crypto::halfgates::{ActiveLabel, ZeroLabel};
use twofold_crypto::{Delta, GarblingScheme, Prg, SchemeJob};

use crate::engine::{Discard, EvaluatingEngine, Fgp, GarblingEngine, Recording, TableSink};
use crate::error::ProtocolError;
use crate::schedule::{run_program_arranged, Plan, Side};

/// What a garbling-only or evaluation-only run measured.
#[derive(Clone, Debug)]
pub struct GarbleOnlyReport {
    /// AND gates garbled (evaluated).
    pub and_gates: u64,
    /// Bytes of tables produced (and dropped, or evaluated).
    pub table_bytes: u64,
    /// Time spent garbling (evaluating); the program is prepared, its walk
    /// planned and (for evaluation) its tables garbled beforehand, untimed.
    pub seconds: Duration,
}

/// The garbling side with its tables going to links of type `K`.
struct SinkSide<S, K> {
    delta: Delta,
    scheme: PhantomData<(S, fn() -> K)>,
}

impl<S: GarblingScheme, K: TableSink + Send + 'static> Side for SinkSide<S, K> {
    type Label = ZeroLabel;
    type Link = K;
    type Engine<'c> = GarblingEngine<'c, S, K>;
    fn engine<'c>(
        &'c self,
        link: &'c mut K,
        first_gate: u64,
        fgp: Fgp,
    ) -> Result<Self::Engine<'c>, ProtocolError> {
        GarblingEngine::new(self.delta, first_gate, link, fgp, None)
    }
    fn finish(engine: Self::Engine<'_>) -> Result<u64, ProtocolError> {
        engine.finish()
    }
    fn next_gate(engine: &Self::Engine<'_>) -> u64 {
        engine.next_gate()
    }
}

/// The evaluating side, replaying recorded tables.
struct ReplaySide<S>(PhantomData<S>);

impl<S: GarblingScheme> Side for ReplaySide<S> {
    type Label = ActiveLabel;
    type Link = Recording;
    type Engine<'c> = EvaluatingEngine<'c, S, Recording>;
    fn engine<'c>(
        &'c self,
        link: &'c mut Recording,
        first: u64,
        fgp: Fgp,
    ) -> Result<Self::Engine<'c>, ProtocolError> {
        Ok(EvaluatingEngine::new(first, link, fgp, None))
    }
    fn finish(engine: Self::Engine<'_>) -> Result<u64, ProtocolError> {
        engine.finish()
    }
    fn next_gate(engine: &Self::Engine<'_>) -> u64 {
        engine.next_gate()
    }
}

/// Which half of the protocol an offline run times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Half {
    Garble,
    Evaluate,
}

/// Garbles `program` as `plan` says (its schedule and scheme), dropping
/// the tables (preparing the program first, untimed, unless it is
/// prepared).
pub fn garble_only(program: &Program, plan: Plan) -> Result<GarbleOnlyReport, ProtocolError> {
    plan.scheme.dispatch(Offline {
        program,
        plan,
        half: Half::Garble,
    })
}

/// Garbles `program` on all-zero inputs as `plan` says, recording the
/// tables, then times their evaluation under the same plan (the evaluator's
/// half of the protocol without a peer); checks that every output label
/// is one of its wire's two labels.
pub fn evaluate_only(program: &Program, plan: Plan) -> Result<GarbleOnlyReport, ProtocolError> {
    plan.scheme.dispatch(Offline {
        program,
        plan,
        half: Half::Evaluate,
    })
}

/// An offline run as a job generic over the scheme.
struct Offline<'p> {
    program: &'p Program,
    plan: Plan,
    half: Half,
}

impl SchemeJob for Offline<'_> {
    type Output = Result<GarbleOnlyReport, ProtocolError>;
    fn run<S: GarblingScheme>(self) -> Self::Output {
        let prepared = twofold_circuit::prepare::prepared(self.program);
        let program = &*prepared;
        // The walk plan, like the preparation, depends on the program only
        // (and the exchange plans of FGP on the threads too).
        let walk = WalkPlan::of(program);
        let fgp = self.plan.main_fgp();
        match self.half {
            Half::Garble => {
                crate::engine::plan_exchanges::<S, GarblingEngine<S, Discard>>(&walk, fgp)
            }
            Half::Evaluate => {
                crate::engine::plan_exchanges::<S, EvaluatingEngine<S, Recording>>(&walk, fgp)
            }
        }
        let order = program.main_in_order();
        let mut prg = Prg::try_from_os()?;
        let delta = Delta::random(&mut prg);
        let inputs: Vec<ZeroLabel> = (0..program.main.input_bits())
            .map(|_| ZeroLabel::random(&mut prg))
            .collect();
        let offline = (&walk, &order, self.plan);
        match self.half {
            Half::Garble => {
                let (mut report, _, sinks) = garble_timed::<S, Discard>(offline, delta, &inputs)?;
                report.table_bytes = sinks.iter().map(|s| s.bytes).sum();
                Ok(report)
            }
            Half::Evaluate => evaluate_timed::<S>(offline, delta, &inputs),
        }
    }
}

/// A planned walk, its main order and the plan to run it with.
type Planned<'a, 'p> = (&'a WalkPlan<'p>, &'a MainOrder<'p>, Plan);

/// Garbles the planned program into fresh sinks of type `K`, timed;
/// returns the report, the output 0-labels and the sinks.
fn garble_timed<S: GarblingScheme, K: TableSink + Default + Send + 'static>(
    (walk, order, plan): Planned<'_, '_>,
    delta: Delta,
    inputs: &[ZeroLabel],
) -> Result<(GarbleOnlyReport, Vec<ZeroLabel>, Vec<K>), ProtocolError> {
    let side = SinkSide::<S, K> {
        delta,
        scheme: PhantomData,
    };
    let links = plan.schedule.channels(plan.threads as u32);
    let mut sinks: Vec<K> = (0..links).map(|_| K::default()).collect();
    let start = Instant::now();
    let (outputs, and_gates) = run_program_arranged(&side, walk, order, inputs, &mut sinks, plan)?;
    let seconds = start.elapsed();
    let report = GarbleOnlyReport {
        and_gates,
        table_bytes: 0,
        seconds,
    };
    Ok((report, outputs, sinks))
}

/// Garbles the planned program on all-zero inputs into recordings, then
/// evaluates them, timed.
fn evaluate_timed<S: GarblingScheme>(
    (walk, order, plan): Planned<'_, '_>,
    delta: Delta,
    inputs: &[ZeroLabel],
) -> Result<GarbleOnlyReport, ProtocolError> {
    let (_, zeros, mut recordings) =
        garble_timed::<S, Recording>((walk, order, plan), delta, inputs)?;
    let table_bytes = recordings.iter().map(Recording::bytes).sum();
    let active: Vec<ActiveLabel> = inputs.iter().map(|z| z.encode(delta, false)).collect();
    let side = ReplaySide::<S>(PhantomData);
    let start = Instant::now();
    let (outputs, and_gates) =
        run_program_arranged(&side, walk, order, &active, &mut recordings, plan)?;
    let seconds = start.elapsed();
    let valid = |(z, a): (&ZeroLabel, &ActiveLabel)| {
        *a == z.encode(delta, false) || *a == z.encode(delta, true)
    };
    if !zeros.iter().zip(&outputs).all(valid) {
        return Err(ProtocolError::Malformed(
            "evaluation gave an output label the garbler did not make".into(),
        ));
    }
    Ok(GarbleOnlyReport {
        and_gates,
        table_bytes,
        seconds,
    })
}

#[cfg(test)]
mod tests {
    use twofold_circuit::synthetic::{chains, folded_levels, layered, repeated};
    use twofold_crypto::Scheme;

    use super::*;
    use crate::options::Schedule;
    use twofold_circuit::exchange::EVEN_WEIGHT;

    /// Evaluation replays what garbling recorded under every schedule,
    /// thread count and scheme (FGP splitting every level, wide levels and
    /// gaps shared by owner on the crew, part 0 of its rounds lighter or
    /// heavier than the garbler's), and its output labels are the
    /// garbler's.
    #[test]
    fn evaluation_only_replays_every_schedule() {
        use twofold_crypto::{HalfGates, ThreeHalves};
        let body = layered(300, 3, 16, 5);
        let programs = [
            Program::from(layered(3000, 3, 64, 4)),
            Program::from(layered(9000, 3, 64, 6)),
            Program::from(chains(600, 40)),
            repeated(&body, 5),
            // Narrow levels between split ones: the lead evaluates them,
            // their tables in the stream between the rounds'.
            Program::from(folded_levels(&[3000, 100, 3000, 40, 2500, 3000], 32, 3)),
        ];
        for program in &programs {
            for scheme in Scheme::ALL {
                for schedule in Schedule::ALL {
                    for (threads, fgp_min_ands) in (1..=3).flat_map(|t| [(t, 256), (t, 2048)]) {
                        let plan = Plan {
                            fgp_min_ands,
                            scheme,
                            ..Plan::new(schedule, threads)
                        };
                        // Part 0 of the evaluator's rounds lighter or
                        // heavier than the garbler's (half-gates only).
                        let lead_weight = if threads == 2 { 64 } else { 320 };
                        on_the_crew::<HalfGates>(threads, fgp_min_ands, lead_weight);
                        on_the_crew::<ThreeHalves>(threads, fgp_min_ands, EVEN_WEIGHT);
                        let r = evaluate_only(program, plan).unwrap();
                        assert_eq!(r.and_gates, program.and_count());
                        let least = scheme.table_bytes(r.and_gates as usize) as u64;
                        assert!(r.table_bytes >= least, "{scheme} {schedule:?} x{threads}");
                    }
                }
            }
        }
    }

    /// Makes the recording garblers and replaying evaluators of scheme `S`
    /// on `threads` threads, splitting runs of `min_ands`, run every
    /// stretch worth it on the crew, the evaluator's part 0 at
    /// `evaluator_weight` (which only a scheme with tables whole per gate
    /// uses).
    fn on_the_crew<S: GarblingScheme>(threads: usize, min_ands: usize, evaluator_weight: usize) {
        use std::any::type_name;
        let split = crate::fgp::split(threads, min_ands, S::PER_GATE_TABLES);
        let evaluator = type_name::<EvaluatingEngine<S, Recording>>();
        crate::fgp::set_learnt_for_tests(evaluator, split, evaluator_weight);
        let garbler = type_name::<GarblingEngine<S, Recording>>();
        crate::fgp::set_learnt_for_tests(garbler, split, EVEN_WEIGHT);
    }

    /// The garbled tables (as 32-byte half-gates entries, every link's)
    /// and the output labels of `program` under `plan`, with fixed Δ and
    /// input labels; the main frame's exchange plans made `ahead` or not.
    fn tables_and_outputs(
        program: &Program,
        plan: Plan,
        ahead: bool,
    ) -> (Vec<Vec<u8>>, Vec<ZeroLabel>) {
        use twofold_crypto::{Block, HalfGates};
        let program = &twofold_circuit::prepare::prepare(program);
        let walk = WalkPlan::of(program);
        if ahead {
            crate::engine::plan_exchanges::<HalfGates, GarblingEngine<HalfGates, Recording>>(
                &walk,
                plan.main_fgp(),
            );
        }
        let order = program.main_in_order();
        let mut prg = Prg::from_seed(Block::from(7u128));
        let delta = Delta::random(&mut prg);
        let inputs: Vec<ZeroLabel> = (0..program.main.input_bits())
            .map(|_| ZeroLabel::random(&mut prg))
            .collect();
        let (_, outputs, links) =
            garble_timed::<HalfGates, Recording>((&walk, &order, plan), delta, &inputs).unwrap();
        let stream: Vec<u8> = links
            .iter()
            .flat_map(Recording::frames)
            .flatten()
            .copied()
            .collect();
        let entries = stream.chunks(32).map(<[u8]>::to_vec).collect();
        (entries, outputs)
    }

    /// Wide levels split by FGP (run in parallel and in turn, as each
    /// party's chooser tries both, part 0 taking less, as much or more of
    /// a round), gaps of many ANDs shared by owner (planned ahead),
    /// regions split by CGP, loops with regions inside (lockstep groups
    /// cut between threads): the garbled tables and output labels are
    /// those of one thread.
    #[test]
    fn tables_are_identical_for_every_schedule_and_thread_count() {
        use rand::SeedableRng;
        use twofold_crypto::HalfGates;
        let body = layered(5000, 2, 16, 9);
        let mut rng = rand::rngs::StdRng::seed_from_u64(21);
        let mut programs = vec![
            Program::from(layered(20_000, 6, 64, 8)),
            repeated(&body, 5),
            Program::from(chains(600, 40)),
        ];
        // Loops and regions nested, narrow bodies run in lockstep groups.
        programs.extend((0..12).map(|_| twofold_testkit::random_block_program(&mut rng, 3)));
        for program in &programs {
            let one = Plan::new(Schedule::Sequential, 1);
            let (want, outputs) = tables_and_outputs(program, one, false);
            for (schedule, ahead) in Schedule::ALL
                .into_iter()
                .flat_map(|s| [(s, false), (s, true)])
            {
                for (threads, lead_weight) in (1..=4).zip([EVEN_WEIGHT, 96, 400, 40]) {
                    let plan = Plan {
                        fgp_min_ands: 2048,
                        ..Plan::new(schedule, threads)
                    };
                    crate::fgp::set_learnt_for_tests(
                        std::any::type_name::<GarblingEngine<HalfGates, Recording>>(),
                        crate::fgp::split(threads, plan.fgp_min_ands, true),
                        lead_weight,
                    );
                    let (mut got, out) = tables_and_outputs(program, plan, ahead);
                    // One link: the stream, in order. Several (CGP): which
                    // link carries a table depends on the schedule, so the
                    // tables are compared as a set.
                    let mut want = want.clone();
                    if schedule.channels(threads as u32) > 1 {
                        got.sort();
                        want.sort();
                    }
                    assert!(got == want, "{schedule:?} x{threads}: tables differ");
                    assert_eq!(out, outputs, "{schedule:?} x{threads}");
                }
            }
        }
    }
}
