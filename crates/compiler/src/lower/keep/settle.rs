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
/// consecutive iterations) add are fresh, so that unrolled they would not
/// cancel, collect or share:
/// - each iteration's terms read only locations the other's do not (`s +=
///   a[i] - a[i - 1]` telescopes, `s += x` repeats one term);
/// - the totals' terms read no object at two places (`a[i] - a[i - 2]`
///   telescopes two iterations apart, `s += a[i] * b[i]; t += a[i - 2] *
///   b[i - 2];` makes each product twice) nor one location twice (`s +=
///   a[i]; t += a[i];`: unrolled, the two sums are one);
/// - each total adds few rows for its secret bits (see [`tight_rows`]);
/// - neither iteration stores a sum where the other does not write (a
///   running total's prefixes, `out[i] = s`, share rows unrolled that a sum
///   reduced each iteration would add again).
///
/// Terms made in a nested loop's block are not traced: such sums stay
/// unrolled.
pub(super) fn adds_fresh_terms(a: &Probe, b: &Probe) -> bool {
    let (Some(reads_a), Some(reads_b)) = (term_reads(a), term_reads(b)) else {
        return false;
    };
    let all = |reads: &[HashSet<Address>]| {
        let mut all = HashSet::new();
        let each_once = reads.iter().flatten().all(|&at| all.insert(at));
        (each_once, all)
    };
    let ((once_a, all_a), (once_b, all_b)) = (all(&reads_a), all(&reads_b));
    let one_place = |all: &HashSet<Address>| {
        let objs: HashSet<usize> = all.iter().map(|at| at.obj).collect();
        objs.len() == all.len()
    };
    once_a
        && once_b
        && all_a.is_disjoint(&all_b)
        && one_place(&all_a)
        && one_place(&all_b)
        && tight_rows(a)
        && tight_rows(b)
        && !stores_sum_apart(a, b)
        && !stores_sum_apart(b, a)
}

/// Whether each sum `probe` carries adds at most half again as many row
/// bits as secret bits: reduced each iteration, a row costs a full-width
/// adder, where carry-save costs about an AND gate a secret bit. A public
/// term (`s += a[i] + 7`: unrolled, the constants of all iterations are
/// one) or a narrow row beside a wide one (`s += a[i] + b[i]`, `b` bytes)
/// would cost up to twice the AND gates.
fn tight_rows(probe: &Probe) -> bool {
    carried(probe).all(|c| {
        let (reduce, added) = c.cost();
        2 * reduce <= 3 * added
    })
}

/// A sum an iteration leaves where it read (a carried accumulator).
pub(super) struct Carried<'p> {
    /// Where.
    at: Address,
    /// The sum it leaves.
    new: &'p Word,
    /// The value it read there.
    old: &'p Word,
}

impl Carried<'_> {
    /// What reducing the rows it added each iteration costs, about a
    /// full-width row of full adders each (their bits), and the secret
    /// bits they hold, about what unrolled carry-save costs in AND gates.
    pub(super) fn cost(&self) -> (usize, usize) {
        let rows = (self.new.row_count()).saturating_sub(self.old.row_count().max(1));
        let added = self.new.held_bits().saturating_sub(self.old.held_bits());
        (rows * self.new.width() as usize, added)
    }
}

/// The sums `probe` leaves where it read.
pub(super) fn carried(probe: &Probe) -> impl Iterator<Item = Carried<'_>> {
    probe.writes.iter().filter_map(|w| {
        let Slot::Val(new @ Word::Sum(_)) = &w.value else {
            return None;
        };
        let o = probe.observations.iter().find(|o| o.at == w.at)?;
        let Slot::Val(old) = &o.fresh else {
            return None;
        };
        Some(Carried { at: w.at, new, old })
    })
}

/// The locations the terms each of `probe`'s carried sums adds read
/// (other than the sums' own), or `None` if a term comes from elsewhere
/// than its gates and reads (a block's outputs).
fn term_reads(probe: &Probe) -> Option<Vec<HashSet<Address>>> {
    // (A wire may be read at several locations: an input read alone and
    // as a row of the carried sum.)
    let mut read_at: HashMap<Wire, Vec<Address>> = HashMap::new();
    for o in &probe.observations {
        for w in wires(|f| o.fresh.for_each_bit(&mut |b| f(b))) {
            read_at.entry(w).or_default().push(o.at);
        }
    }
    let made: HashMap<Wire, usize> = (probe.frame.gates.iter().enumerate())
        .map(|(i, g)| (g.out(), i))
        .collect();
    let inputs: HashSet<Wire> = probe.inputs.iter().copied().collect();
    let mut totals = Vec::new();
    for c in carried(probe) {
        // The bits of the rows added: those of the sum less those of the
        // rows it carried in, counted with their repeats.
        let mut added: HashMap<Wire, i64> = HashMap::new();
        for x in wires(|f| c.new.for_each_bit(&mut |b| f(b))) {
            *added.entry(x).or_default() += 1;
        }
        for x in wires(|f| c.old.for_each_bit(&mut |b| f(b))) {
            *added.entry(x).or_default() -= 1;
        }
        let mut todo: Vec<Wire> = (added.into_iter())
            .filter_map(|(x, n)| (n > 0).then_some(x))
            .collect();
        let (mut seen, mut reads) = (HashSet::new(), HashSet::new());
        while let Some(x) = todo.pop() {
            if !seen.insert(x) {
                continue;
            }
            if let Some(at) = read_at.get(&x) {
                reads.extend(at.iter().copied().filter(|&at| at != c.at));
            } else if let Some(&g) = made.get(&x) {
                todo.extend(probe.frame.gates[g].inputs());
            } else if !inputs.contains(&x) {
                return None;
            }
        }
        totals.push(reads);
    }
    Some(totals)
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

/// The fewest iterations of a region of such costly terms whose total is
/// kept reduced each iteration instead: below, its tree of partials
/// compiles in a fraction of a second (2,048 products in 0.04 s), and the
/// region has the unrolled AND gates.
const COSTLY_TERM_MIN_TRIPS: u64 = 1 << 14;

/// Whether `probe`, of a region's iteration (it yields partials), with
/// `left` iterations to go, is better lowered as a plain kept loop whose
/// total is reduced each iteration (see [`super::Outcome::NotRegion`]):
/// a long loop whose iterations make no gates (`s += a[i]`: never kept as
/// a region, all of them would be lowered plainly), or a very long one
/// whose terms cost far more than adding them (a 32-bit product, about
/// 1,000 AND gates, added in 31). The region's partials are added after
/// the loop, a tree of gates as large as the loop is long: a 65,536-term
/// dot product as a region took 3.9 s end to end and 540 MiB a party, at
/// 3% fewer AND gates, against 2.0 s and 276 MiB as a kept loop.
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
    let costly = ands >= COSTLY_TERM_ANDS_PER_BIT * partial_bits && left >= COSTLY_TERM_MIN_TRIPS;
    partial_bits > 0 && (gateless || costly) && left >= super::MIN_FRESH_SETTLED_TRIPS
}

/// The wires among the bits `visit` calls its argument on (a slot's or a
/// word's `for_each_bit`: a sum's rows').
fn wires(visit: impl FnOnce(&mut dyn FnMut(Bit))) -> Vec<Wire> {
    let mut out = Vec::new();
    visit(&mut |b| {
        if let Bit::Wire(w) = b {
            out.push(w);
        }
    });
    out
}
