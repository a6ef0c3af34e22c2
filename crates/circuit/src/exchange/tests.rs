//! Tests of the label exchange plans.

use super::*;
use crate::batch::{Batches, ASKS_BEFORE_PLAN};
use crate::circuit::{eval_gates, Circuit};
use crate::synthetic::layered;

/// Runs `gates` on plaintext bits as the plan says, `k` copies of the
/// labels, parts one after another within a unit (each on its own
/// copy, so the order does not matter), exchanging after each unit.
fn run_planned(plan: &ExchangePlan, gates: &[Gate], labels: &mut [bool]) {
    let k = plan.split.threads;
    let mut copies: Vec<Vec<bool>> = (1..k).map(|_| vec![false; labels.len()]).collect();
    for stretch in plan.stretches() {
        for c in &mut copies {
            // What a copy holds from before is stale: scramble it.
            c.iter_mut().for_each(|b| *b = !*b);
            for &w in stretch.initial() {
                c[w as usize] = labels[w as usize];
            }
        }
        for (u, unit) in stretch.units().iter().enumerate() {
            for piece in &unit.pieces {
                let p = piece.part;
                let mine: &mut [bool] = if p == 0 { labels } else { &mut copies[p - 1] };
                eval_gates(&gates[piece.gates.clone()], mine);
            }
            for p in 0..k {
                let sent: Vec<(Wire, bool)> = {
                    let from: &[bool] = if p == 0 { labels } else { &copies[p - 1] };
                    stretch
                        .sends(u, p)
                        .iter()
                        .map(|&w| (w, from[w as usize]))
                        .collect()
                };
                for q in (0..k).filter(|&q| q != p) {
                    let to: &mut [bool] = if q == 0 { labels } else { &mut copies[q - 1] };
                    for &(w, v) in &sent {
                        to[w as usize] = v;
                    }
                }
            }
        }
    }
}

/// Random gates over `wires` slots, every slot read and overwritten
/// every which way (so batches are cut often and free stretches chain).
fn random_gates(wires: u32, n: usize, seed: u64) -> Circuit {
    let mut rng = crate::synthetic::SplitMix(seed);
    let gates = (0..n)
        .map(|_| {
            let (a, b, out) = (rng.below(wires), rng.below(wires), rng.below(wires));
            match rng.below(4) {
                0 => Gate::Inv { a, out },
                1 => Gate::Xor { a, b, out },
                _ => Gate::And { a, b, out },
            }
        })
        .collect();
    Circuit {
        num_wires: wires,
        inputs: Vec::new(),
        outputs: Vec::new(),
        gates,
    }
}

fn split(threads: usize, min_ands: usize, round_gates: usize, share_gaps: bool) -> Split {
    Split {
        threads,
        min_ands,
        round_gates,
        share_gaps,
        lead_weight: EVEN_WEIGHT,
    }
}

#[test]
fn planned_runs_leave_the_labels_of_a_run_in_order() {
    let circuits = [
        (layered(64, 12, 32, 1).levelize(), "levelled 64"),
        (layered(300, 12, 32, 2).levelize(), "levelled 300"),
        (layered(1000, 12, 32, 3), "program order 1000"),
        (layered(8192, 12, 32, 4).levelize(), "levelled 8192"),
        (random_gates(5000, 60_000, 5), "random over 5000 slots"),
        (random_gates(200_000, 60_000, 6), "random over 200000 slots"),
    ];
    for (seed, (c, name)) in circuits.iter().enumerate() {
        let batches = Batches::of(&c.gates, c.num_wires, &[]);
        let mut rng = crate::synthetic::SplitMix(seed as u64);
        let settings = [
            (2, 16, 64, 1 << 20),
            (2, 16, 64, 300),
            (3, 1, 50, 2000),
            (2, 1 << 20, 64, 1 << 20),
            (4, 40, 1000, 5000),
            (2, 64, 1 << 16, 1 << 16),
        ];
        let ways = [
            (false, EVEN_WEIGHT),
            (true, EVEN_WEIGHT),
            (true, 96),
            (false, 40),
        ];
        for ((k, min_ands, round, stretch), (share_gaps, lead_weight)) in
            settings.into_iter().flat_map(|s| ways.map(|w| (s, w)))
        {
            let split = Split {
                lead_weight,
                ..split(k, min_ands, round, share_gaps)
            };
            let start: Vec<bool> = (0..c.num_wires).map(|_| rng.below(2) == 1).collect();
            let mut expected = start.clone();
            let mut got = start.clone();
            batches
                .for_each_in(0..c.gates.len(), |batch| {
                    eval_gates(batch.gates(), &mut expected);
                    let plan = ExchangePlan::stretched(batch, c.num_wires, split, stretch);
                    run_planned(&plan, batch.gates(), &mut got);
                    Ok::<_, ()>(())
                })
                .unwrap();
            assert!(
                got == expected,
                "{name}, k {k}, min {min_ands}, stretch {stretch}, gaps {share_gaps}, \
                 lead {lead_weight}"
            );
        }
    }
}

#[test]
fn round_ranges_cover_a_round_in_order_and_weigh_the_lead() {
    for n in [0, 1, 7, 1000, 16384] {
        for k in 1..5 {
            for lead in [1, 40, 128, EVEN_WEIGHT, 400] {
                let ranges: Vec<_> = (0..k).map(|p| round_range(n, k, p, lead)).collect();
                assert_eq!(ranges[0].start, 0);
                assert_eq!(ranges[k - 1].end, n);
                assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
                if lead == EVEN_WEIGHT {
                    assert!((0..k).all(|p| ranges[p] == (n * p / k..n * (p + 1) / k)));
                }
            }
        }
    }
    // Part 0 at half weight takes a third of a round on two parts.
    assert_eq!(round_range(3000, 2, 0, EVEN_WEIGHT / 2), 0..1000);
    assert_eq!(round_range(3000, 3, 2, EVEN_WEIGHT / 2), 1800..3000);
}

#[test]
fn random_levels_are_split_and_send_less_than_they_write() {
    let c = layered(4096, 16, 64, 9).levelize();
    let (mut shared, mut sent) = (0, 0);
    Batches::of(&c.gates, c.num_wires, &[])
        .for_each_in(0..c.gates.len(), |batch| {
            let plan = ExchangePlan::of(batch, c.num_wires, split(2, 1024, 1 << 16, false));
            shared += plan.split_ands();
            for st in plan.stretches() {
                sent += (0..st.units().len())
                    .map(|u| st.sends(u, 0).len() + st.sends(u, 1).len())
                    .sum::<usize>();
            }
            Ok::<_, ()>(())
        })
        .unwrap();
    let ands = c.gates.iter().filter(|g| g.is_and()).count();
    assert!(shared * 10 >= ands * 9, "{shared} of {ands} ANDs split");
    assert!(sent < c.gates.len() / 2, "{sent} of {} sent", c.gates.len());
}

/// Independent chains with no long AND run (as an unrolled loop
/// levelled in windows leaves them): shared by owner, nearly all of
/// the ANDs split evenly, a few units; not shared unless asked.
#[test]
fn independent_chains_are_shared_by_owner() {
    let (chains, len) = (64u32, 300u32);
    let mut gates = Vec::new();
    // Chain c starts from inputs 2c and 2c+1 and alternates AND, XOR.
    for c in 0..chains {
        let base = 2 * chains + c * len;
        let mut last = 2 * c;
        for i in 0..len {
            let out = base + i;
            gates.push(match i % 2 {
                0 => Gate::And {
                    a: last,
                    b: 2 * c + 1,
                    out,
                },
                _ => Gate::Xor {
                    a: last,
                    b: 2 * c,
                    out,
                },
            });
            last = out;
        }
    }
    let num_wires = 2 * chains + chains * len;
    let batches = Batches::of(&gates, num_wires, &[]);
    let ands = gates.iter().filter(|g| g.is_and()).count();
    for share_gaps in [false, true] {
        batches
            .for_each_in(0..gates.len(), |batch| {
                let plan = ExchangePlan::of(batch, num_wires, split(2, 64, 8192, share_gaps));
                let units: Vec<&Unit> = plan.stretches().iter().flat_map(|s| s.units()).collect();
                if !share_gaps {
                    assert_eq!(plan.split_ands(), 0);
                    return Ok::<_, ()>(());
                }
                assert!(units.iter().all(|u| u.shape == Shape::Owned));
                // Cut only where a unit reaches a round's gates.
                let most = gates.len().div_ceil(8192);
                assert!(units.len() <= most, "{} units", units.len());
                assert_eq!(plan.split_ands(), ands);
                let on = |p: usize| -> usize {
                    units
                        .iter()
                        .flat_map(|u| &u.pieces)
                        .filter(|piece| piece.part == p)
                        .map(|piece| piece.ands)
                        .sum()
                };
                assert!(
                    on(0).abs_diff(on(1)) <= 2 * OWNED_SLACK,
                    "{} against {}",
                    on(0),
                    on(1)
                );
                Ok(())
            })
            .unwrap();
    }
}

/// Narrow random levels: every chain starts on one part (or, shared,
/// reads the other's at once), so sharing by owner would not pay and
/// the gap stays on part 0.
#[test]
fn a_gap_that_would_not_share_well_stays_on_part_zero() {
    let c = layered(64, 200, 32, 3).levelize();
    Batches::of(&c.gates, c.num_wires, &[])
        .for_each_in(0..c.gates.len(), |batch| {
            let plan = ExchangePlan::of(batch, c.num_wires, split(2, 1024, 8192, true));
            assert_eq!(plan.split_ands(), 0);
            Ok::<_, ()>(())
        })
        .unwrap();
}

/// The plan's units are the cut, only with free stretches shared where
/// they can be: the same calls (so the same tables) whether a batch
/// runs with its plan or without.
#[test]
fn a_plan_cuts_a_batch_as_the_cut_does() {
    let circuits = [
        layered(3000, 6, 64, 7).levelize(),
        random_gates(3000, 50_000, 8),
    ];
    for c in &circuits {
        Batches::of(&c.gates, c.num_wires, &[])
            .for_each_in(0..c.gates.len(), |batch| {
                for (k, min_ands, round) in [(2, 1000, 4096), (3, 16, 300)] {
                    let split = split(k, min_ands, round, false);
                    let plan = ExchangePlan::of(batch, c.num_wires, split);
                    let planned: Vec<Unit> = plan
                        .stretches()
                        .iter()
                        .flat_map(|s| s.units().iter().cloned())
                        .collect();
                    let cut = cut(batch, split);
                    assert_eq!(planned.len(), cut.len());
                    for (p, c) in planned.iter().zip(&cut) {
                        assert_eq!(p.gates, c.gates);
                        if p.shape != Shape::Cut {
                            assert_eq!(p.pieces, c.pieces);
                        }
                        let round_or_not = |u: &Unit| u.shape == Shape::Round;
                        assert_eq!(round_or_not(p), round_or_not(c));
                    }
                }
                Ok::<_, ()>(())
            })
            .unwrap();
    }
}

/// A batch's plan is made when a cut is asked for the third time (or
/// ahead), and then kept; a slice of a batch gets none.
#[test]
fn plans_are_made_on_the_third_request_and_kept() {
    let c = layered(3000, 4, 64, 9).levelize();
    let batches = Batches::of(&c.gates, c.num_wires, &[]);
    let (two, three) = (split(2, 16, 64, false), split(3, 16, 64, false));
    let mut first = None;
    batches
        .for_each_in(0..c.gates.len(), |batch| {
            if first.is_none() {
                first = Some(batch.len());
                for _ in 1..ASKS_BEFORE_PLAN {
                    assert!(batch.exchange_plan(c.num_wires, two, false).is_none());
                }
                let made = batch.exchange_plan(c.num_wires, two, false).unwrap();
                let kept = batch.exchange_plan(c.num_wires, two, false).unwrap();
                assert!(std::sync::Arc::ptr_eq(&made, &kept));
                // Other settings are counted apart…
                for _ in 1..ASKS_BEFORE_PLAN {
                    assert!(batch.exchange_plan(c.num_wires, three, false).is_none());
                }
                let other = batch.exchange_plan(c.num_wires, three, false).unwrap();
                assert_eq!(other.split.threads, 3);
                // …and both kept (two parties of a process may cut apart)…
                let again = batch.exchange_plan(c.num_wires, two, false).unwrap();
                assert!(std::sync::Arc::ptr_eq(&made, &again));
                // …up to three cuts, a fourth replacing the one least
                // recently asked for (`other`, not `two`).
                let light = |lead_weight| Split { lead_weight, ..two };
                let plan = |split| batch.exchange_plan(c.num_wires, split, true).unwrap();
                plan(light(100));
                assert!(std::sync::Arc::ptr_eq(&plan(two), &made));
                plan(light(50));
                assert!(std::sync::Arc::ptr_eq(&plan(two), &made));
                assert!(!std::sync::Arc::ptr_eq(&plan(three), &other));
                let part = batch.slice(0..batch.len() / 2);
                assert!(part.exchange_plan(c.num_wires, two, true).is_none());
            } else {
                assert!(batch.exchange_plan(c.num_wires, two, true).is_some());
            }
            Ok::<_, ()>(())
        })
        .unwrap();
    assert!(first.is_some());
}

#[test]
fn a_free_stretch_reading_an_earlier_part_stays_on_part_zero() {
    let mut written = vec![0u64; 4];
    let chain = [
        Gate::Xor { a: 0, b: 1, out: 2 },
        Gate::Xor { a: 2, b: 1, out: 3 },
    ];
    assert!(!cuts_cleanly(&chain, 2, 1, &mut written));
    let independent = [
        Gate::Xor { a: 0, b: 1, out: 2 },
        Gate::Xor { a: 0, b: 1, out: 3 },
    ];
    assert!(cuts_cleanly(&independent, 2, 2, &mut written));
    let overwrite = [Gate::Xor { a: 0, b: 1, out: 2 }, Gate::Inv { a: 0, out: 2 }];
    assert!(!cuts_cleanly(&overwrite, 2, 3, &mut written));
}
