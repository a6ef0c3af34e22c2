//! Offline garbling, for measuring (the ParCC paper's section 6.3): garble a
//! whole program under a schedule and drop the tables, without a peer.

use std::time::{Duration, Instant};

use std::marker::PhantomData;

use twofold_circuit::walk::Plan as WalkPlan;
use twofold_circuit::Program;
use twofold_crypto::halfgates::ZeroLabel;
use twofold_crypto::{Delta, GarblingScheme, Prg, SchemeJob};

use crate::engine::{Discard, Fgp, GarblingEngine};
use crate::error::ProtocolError;
use crate::schedule::{run_program_arranged, Plan, Side};

/// What a garbling-only run measured.
#[derive(Clone, Debug)]
pub struct GarbleOnlyReport {
    /// AND gates garbled.
    pub and_gates: u64,
    /// Bytes of tables produced (and dropped).
    pub table_bytes: u64,
    /// Time spent garbling (the program is prepared and its walk planned
    /// beforehand, untimed).
    pub seconds: Duration,
}

struct DiscardSide<S> {
    delta: Delta,
    scheme: PhantomData<S>,
}

impl<S: GarblingScheme> Side for DiscardSide<S> {
    type Label = ZeroLabel;
    type Link = Discard;
    type Engine<'c> = GarblingEngine<'c, S, Discard>;
    fn engine<'c>(&'c self, link: &'c mut Discard, first_gate: u64, fgp: Fgp) -> Self::Engine<'c> {
        GarblingEngine::new(self.delta, first_gate, link, fgp, None)
    }
    fn finish(engine: Self::Engine<'_>) -> Result<u64, ProtocolError> {
        engine.finish()
    }
    fn next_gate(engine: &Self::Engine<'_>) -> u64 {
        engine.next_gate()
    }
}

/// Garbles `program` as `plan` says (its schedule and scheme), dropping
/// the tables (preparing the program first, untimed, unless it is
/// prepared).
pub fn garble_only(program: &Program, plan: Plan) -> Result<GarbleOnlyReport, ProtocolError> {
    plan.scheme.dispatch(GarbleOnly { program, plan })
}

/// [`garble_only`] as a job generic over the scheme.
struct GarbleOnly<'p> {
    program: &'p Program,
    plan: Plan,
}

impl SchemeJob for GarbleOnly<'_> {
    type Output = Result<GarbleOnlyReport, ProtocolError>;
    fn run<S: GarblingScheme>(self) -> Self::Output {
        garble_only_under::<S>(self.program, self.plan)
    }
}

fn garble_only_under<S: GarblingScheme>(
    program: &Program,
    plan: Plan,
) -> Result<GarbleOnlyReport, ProtocolError> {
    use twofold_circuit::prepare::{is_prepared, prepare};
    let prepared;
    let program = if is_prepared(program) {
        program
    } else {
        prepared = prepare(program);
        &prepared
    };
    let mut prg = Prg::try_from_os()?;
    let side = DiscardSide::<S> {
        delta: Delta::random(&mut prg),
        scheme: PhantomData,
    };
    let inputs: Vec<ZeroLabel> = (0..program.main.input_bits())
        .map(|_| ZeroLabel::random(&mut prg))
        .collect();
    let links = plan.schedule.channels(plan.threads as u32);
    let mut sinks: Vec<Discard> = (0..links).map(|_| Discard::default()).collect();
    // The walk plan, like the preparation, depends on the program only.
    let walk = WalkPlan::of(program);
    let order = program.main_in_order();
    let start = Instant::now();
    let (_, and_gates) = run_program_arranged(&side, &walk, &order, &inputs, &mut sinks, plan)?;
    Ok(GarbleOnlyReport {
        and_gates,
        table_bytes: sinks.iter().map(|s| s.bytes).sum(),
        seconds: start.elapsed(),
    })
}
