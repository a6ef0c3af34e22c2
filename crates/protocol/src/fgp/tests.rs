//! Tests of the fine-grained scheduler.

use super::chooser::SAMPLES;
use super::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use twofold_circuit::batch::Batches;
use twofold_circuit::exchange::ExchangePlan;
use twofold_circuit::synthetic::layered;
use twofold_crypto::{ActiveLabel, ZeroLabel};

/// A lead with no tables.
struct NoTables;

impl Lead<ZeroLabel> for NoTables {
    fn load_round(&mut self, _: usize, _: &mut Vec<u8>) -> Result<(), ProtocolError> {
        Ok(())
    }
    fn run_alone(
        &mut self,
        _: Batch<'_>,
        _: u64,
        _: &mut [ZeroLabel],
    ) -> Result<(), ProtocolError> {
        Ok(())
    }
    fn round_done(&mut self, _: &Unit, _: &[&[u8]]) -> Result<(), ProtocolError> {
        Ok(())
    }
    fn round_in_turn(
        &mut self,
        _: &Unit,
        _: Batch<'_>,
        _: u64,
        _: &mut [ZeroLabel],
    ) -> Result<(), ProtocolError> {
        Ok(())
    }
}

/// A splitter's crew goes back idle with its label copies; the next
/// splitter with labels of the same type takes both over, one with
/// other labels only the crew. (Seven threads: no other test's crew.)
#[test]
fn an_idle_crew_keeps_its_label_copies_for_the_same_label_type() {
    let threads = 7;
    let split = Split {
        threads,
        min_ands: 1,
        round_gates: threads,
        share_gaps: true,
        lead_weight: EVEN_WEIGHT,
    };
    let mut first = Splitter::<ZeroLabel>::new("test-idle", split, |_| 0);
    first.crew = Some(Crew::new(threads));
    first.copies = vec![vec![ZeroLabel::default(); 1000]; threads - 1];
    drop(first);
    let (crew, copies) = idle_crew::<ActiveLabel>(threads).expect("the crew is idle");
    assert_eq!(crew.threads(), threads);
    assert!(copies.is_empty(), "labels of another type are not kept");
    let mut second = Splitter::<ZeroLabel>::new("test-idle", split, |_| 0);
    second.crew = Some(crew);
    second.copies = vec![vec![ZeroLabel::default(); 1000]; threads - 1];
    drop(second);
    let (_, copies) = idle_crew::<ZeroLabel>(threads).expect("the crew is idle");
    assert_eq!(copies.len(), threads - 1);
    assert!(copies.iter().all(|c| c.len() == 1000));
}

/// A part that fails (or panics) mid-stretch stops the others at the
/// next barrier: its error is the one reported, nothing hangs.
#[test]
fn a_failing_part_stops_the_stretch_without_a_hang() {
    let c = layered(4096, 8, 64, 3).levelize();
    let batches = Batches::of(&c.gates, c.num_wires, &[]);
    let mut labels = vec![ZeroLabel::default(); c.num_wires as usize];
    for threads in [2, 3] {
        for panics in [false, true] {
            let cut = split(threads, 1024, false);
            let mut splitter = Splitter::<ZeroLabel>::new("test", cut, |_| 0);
            let calls = AtomicUsize::new(0);
            // Part 0 runs on the batch's labels; the others fail.
            let lead_labels = labels.as_ptr() as usize;
            let work = |_: PartJob<'_>, mine: &mut [ZeroLabel], _: &mut Vec<u8>| {
                let n = calls.fetch_add(1, Ordering::SeqCst);
                if mine.as_ptr() as usize != lead_labels && n >= 4 {
                    assert!(!panics, "a part panics");
                    return Err(ProtocolError::Malformed("part failed".into()));
                }
                Ok(())
            };
            let mut results = Vec::new();
            batches
                .for_each_in(0..c.gates.len(), |batch| {
                    let plan = ExchangePlan::of(batch, c.num_wires, cut);
                    for stretch in plan.stretches() {
                        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            splitter.run_parallel(
                                (stretch, plan.split.lead_weight),
                                batch,
                                0,
                                &mut labels,
                                &mut NoTables,
                                &work,
                            )
                        }));
                        results.push(run);
                    }
                    Ok::<_, ()>(())
                })
                .unwrap();
            let first = results.into_iter().next().expect("a stretch ran");
            match (panics, first) {
                (true, Err(_)) => {}
                (false, Ok(Err(ProtocolError::Malformed(m)))) => {
                    assert_eq!(m, "part failed")
                }
                (_, other) => panic!("{threads} threads, panics {panics}: {other:?}"),
            }
        }
    }
}

#[test]
fn the_chooser_keeps_the_faster_way_and_tries_the_other_ever_less() {
    let mut c = Chooser::new();
    // First a stretch of each way.
    assert!(c.parallel(4096));
    c.record(4096, true, 8192.0);
    assert!(!c.parallel(4096));
    c.record(4096, false, 4096.0);
    // Sequential is faster: chosen, parallel tried after 8 stretches,
    // then 16, 32, … as long as it stays slower.
    let mut tries = Vec::new();
    for stretch in 0..200 {
        let parallel = c.parallel(4096);
        if parallel {
            tries.push(stretch);
        }
        c.record(4096, parallel, if parallel { 8192.0 } else { 4096.0 });
    }
    assert_eq!(tries, [8, 25, 58, 123]);
    // Another size class learns on its own.
    assert!(c.parallel(1 << 20));
}

#[test]
fn one_slow_stretch_does_not_turn_the_chooser() {
    let mut c = Chooser::new();
    c.parallel(4096);
    c.record(4096, true, 4096.0);
    c.parallel(4096);
    c.record(4096, false, 8192.0);
    assert!(c.parallel(4096));
    // The machine was busy for one stretch.
    c.record(4096, true, 100_000.0);
    assert!(c.parallel(4096), "one outlier keeps the faster way");
    // Slow four times running: it has become slower.
    for _ in 0..SAMPLES {
        c.record(4096, true, 100_000.0);
    }
    assert!(!c.parallel(4096));
}

#[test]
fn the_chooser_follows_a_change() {
    let mut c = Chooser::new();
    let mut parallel_cost = 8192.0;
    let mut last = false;
    for stretch in 0..200 {
        if stretch == 30 {
            parallel_cost = 1024.0;
        }
        last = c.parallel(4096);
        c.record(4096, last, if last { parallel_cost } else { 4096.0 });
    }
    assert!(last, "parallel became faster and is chosen");
}
