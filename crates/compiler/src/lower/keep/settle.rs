//! Whether a loop that is not strength-reduced may reduce the sums it
//! carries each iteration (see [`Setup::settle_sums`]): a running total of
//! fresh terms (`s += a[i] * b[i]`, `s += max(a[i], b[i])`) then costs
//! about what unrolled carry-save does (a full adder a bit either way), and
//! compiles in time and memory independent of the trips. Unrolled, the
//! rows of every iteration form one sum, whose like terms cancel or
//! collect across iterations: such sums stay unrolled.

use std::collections::{HashMap, HashSet};

use twofold_circuit::{Bit, Wire};

use super::run::Address;
use crate::lower::probe::Probe;
use crate::value::{Slot, Word};

/// Whether the terms the carried sums of probes `a` and `b` (of two
/// consecutive iterations) add are fresh: each reads only locations the
/// other iteration's terms do not (`s += a[i] - a[i - 1]` telescopes, `s +=
/// x` repeats one term: unrolled, they cancel or collect), and neither
/// iteration stores a sum where the other does not write (a running
/// total's prefixes, `out[i] = s`, share rows unrolled that a sum reduced
/// each iteration would add again). Terms made in a nested loop's block
/// are not traced: such sums stay unrolled.
pub(super) fn adds_fresh_terms(a: &Probe, b: &Probe) -> bool {
    let (Some(reads_a), Some(reads_b)) = (term_reads(a), term_reads(b)) else {
        return false;
    };
    reads_a.is_disjoint(&reads_b) && !stores_sum_apart(a, b) && !stores_sum_apart(b, a)
}

/// The locations the terms `probe`'s carried sums add read (other than
/// the sums' own), or `None` if a term comes from elsewhere than its gates
/// and reads (a block's outputs).
fn term_reads(probe: &Probe) -> Option<HashSet<Address>> {
    // (A wire may be read at several locations: an input read alone and
    // as a row of the carried sum.)
    let mut read_at: HashMap<Wire, Vec<Address>> = HashMap::new();
    for o in &probe.observations {
        for w in wires(&o.fresh) {
            read_at.entry(w).or_default().push(o.at);
        }
    }
    let made: HashMap<Wire, usize> = (probe.frame.gates.iter().enumerate())
        .map(|(i, g)| (g.out(), i))
        .collect();
    let inputs: HashSet<Wire> = probe.inputs.iter().copied().collect();
    let mut reads = HashSet::new();
    for w in &probe.writes {
        let Slot::Val(new @ Word::Sum(_)) = &w.value else {
            continue;
        };
        let Some(o) = probe.observations.iter().find(|o| o.at == w.at) else {
            continue;
        };
        // The bits of the rows added: those of the sum less those of the
        // rows it carried in, counted with their repeats.
        let mut added: HashMap<Wire, i64> = HashMap::new();
        for x in wires(&Slot::Val(new.clone())) {
            *added.entry(x).or_default() += 1;
        }
        for x in wires(&o.fresh) {
            *added.entry(x).or_default() -= 1;
        }
        let mut todo: Vec<Wire> = (added.into_iter())
            .filter_map(|(x, n)| (n > 0).then_some(x))
            .collect();
        let mut seen = HashSet::new();
        while let Some(x) = todo.pop() {
            if !seen.insert(x) {
                continue;
            }
            if let Some(at) = read_at.get(&x) {
                reads.extend(at.iter().copied().filter(|&at| at != w.at));
            } else if let Some(&g) = made.get(&x) {
                todo.extend(probe.frame.gates[g].inputs());
            } else if !inputs.contains(&x) {
                return None;
            }
        }
    }
    Some(reads)
}

/// Whether `probe` writes a sum at a location `other` does not write (a
/// value the loop stores for later, rather than a temporary each
/// iteration overwrites) and does not read there before (a carried sum).
fn stores_sum_apart(probe: &Probe, other: &Probe) -> bool {
    probe.writes.iter().any(|w| {
        matches!(w.value, Slot::Val(Word::Sum(_)))
            && !probe.observations.iter().any(|o| o.at == w.at)
            && !other.writes.iter().any(|v| v.at == w.at)
    })
}

/// The fewest AND gates, per bit of its partials, of a region's
/// iteration whose total is kept reduced each iteration instead (see
/// [`total_not_region`]).
const COSTLY_TERM_ANDS_PER_BIT: usize = 16;

/// Whether `probe`, of a region's iteration (it yields partials), with
/// `left` iterations to go, is better lowered as a plain kept loop whose
/// total is reduced each iteration (see [`super::Outcome::NotRegion`]):
/// a long loop whose iterations make no gates (`s += a[i]`: never kept as
/// a region, all of them would be lowered plainly), or whose terms cost
/// far more than adding them (a 32-bit product, about 1,000 AND gates,
/// added in 31). The region's partials are added after the loop, a tree
/// of gates as large as the loop is long: a 65,536-term dot product as a
/// region took 3.9 s end to end and 540 MiB a party, at 3% fewer AND
/// gates, against 2.0 s and 276 MiB as a kept loop.
pub(super) fn total_not_region(probe: &Probe, left: u64) -> bool {
    let partial_bits: usize = (probe.extras.iter())
        .map(|x| match x {
            Slot::Val(w) => w.width() as usize,
            Slot::Ptr(_) => 0,
        })
        .sum();
    let ands = super::widen::ands(probe);
    let frame = &probe.frame;
    let gateless = frame.gates.is_empty() && frame.blocks.is_empty();
    let costly = ands >= COSTLY_TERM_ANDS_PER_BIT * partial_bits;
    partial_bits > 0 && (gateless || costly) && left >= super::MIN_FRESH_SETTLED_TRIPS
}

/// The wires of a slot's bits.
fn wires(slot: &Slot) -> Vec<Wire> {
    let mut out = Vec::new();
    slot.for_each_bit(&mut |b| {
        if let Bit::Wire(w) = b {
            out.push(w);
        }
    });
    out
}
