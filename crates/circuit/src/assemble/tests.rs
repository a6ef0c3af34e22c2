//! Renumbering a block's wiring run by run gives what renumbering it wire
//! by wire and compressing the table gives.

use super::*;
use crate::wiring::tests::random_wiring;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

#[test]
fn renumber_is_compress_of_the_renumbered_table() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let (lo, hi) = (10, 40);
    for round in 0..5000 {
        // Wires `lo..hi` in slots that are consecutive in runs of 1–8
        // wires, the runs in random order.
        let mut runs = Vec::new();
        while runs.last().map_or(0, |r: &std::ops::Range<Wire>| r.end) < hi - lo {
            let first = runs.last().map_or(0, |r| r.end);
            runs.push(first..(first + rng.gen_range(1..=8)).min(hi - lo));
        }
        runs.shuffle(&mut rng);
        let mut slots = Slots {
            at: WireMap::new(lo, hi),
            free: Vec::new(),
            runs: BTreeMap::new(),
            next: hi - lo,
        };
        slots.at.values = runs.into_iter().flatten().collect();
        let count = rng.gen_range(0..=6);
        let wiring = random_wiring(&mut rng, count, lo, hi);
        let table: Vec<Wire> = (0..count as u64)
            .flat_map(|k| wiring.wires(k))
            .map(|w| slots.lookup(w).unwrap())
            .collect();
        let want = match wiring.width() {
            0 => Wiring::empty(),
            width => Wiring::compress(count, width, &table),
        };
        let got = slots.renumber(&wiring, count as u64).unwrap();
        assert_eq!(got, want, "round {round}: {wiring:?}");
    }
}
