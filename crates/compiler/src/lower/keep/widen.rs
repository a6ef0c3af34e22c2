//! A loop's first setup, and setups more general: what lets the probes of two
//! consecutive iterations that differ (in public values, in widths or in
//! ranges) lower to one template.

use super::*;
use crate::lower::probe::{sentinel, Observation};

/// The setup of a loop's first probe: the loop variable where `c` found
/// it, stored (each iteration's value wired in from a table) if the loop
/// is short enough, and ranges widened finely.
pub(super) fn first_setup(ind: &Induction, c: &Counted) -> Setup {
    let last = c.first + c.step * (c.trips.max(1) as i128 - 1);
    Setup {
        induction: c.at,
        shifts: ind.shifts.clone(),
        stored: Stored {
            // Each iteration's value is wired in from a table.
            at: if c.trips <= MAX_STORED_TRIPS {
                ind.stored.clone()
            } else {
                HashSet::default()
            },
            moved: ind.moved.clone(),
            scalar: c.scalar,
            hull: (c.first.min(last), c.first.max(last)),
        },
        // Every iteration of a loop probed each is lowered alike only
        // for its own ranges (see `keep::each`).
        widening: if ind.each {
            Widening::Exact
        } else {
            Widening::Fine
        },
        general: HashSet::default(),
        widths: HashMap::default(),
        settle_sums: false,
        may_settle: ind.reduced,
        public_inputs: PublicInputs::default(),
    }
}

/// A more general setup under which probes `a` and `b` (of consecutive
/// iterations, which do not match) may: public values the two read
/// differently at the same location read as inputs; values of one object
/// whose widths differ read padded to the widest (if `left` iterations are
/// enough to pay for it); sums carried on reduced each iteration (see
/// [`Setup::settle_sums`]); or, if only ranges differ in what they read,
/// ranges widened further. `None` if none applies. `a_first`: whether `a`
/// is the loop's first iteration (whose reads may be sentinels).
pub(super) fn widened(
    setup: &Setup,
    (a, b): (&Probe, &Probe),
    (left, a_first): (u64, bool),
) -> Option<Setup> {
    if a.observations.len() != b.observations.len() {
        return None;
    }
    let pairs = || a.observations.iter().zip(&b.observations);
    let mut wider = setup.clone();
    let tried = &mut wider.public_inputs.tried;
    tried.clear();
    for (x, y) in pairs() {
        if x.at == y.at && (x.public || y.public) && x.shape != y.shape {
            let at = (x.at.obj, x.at.leaf as usize);
            let entries = table_entries((x, y), a_first);
            if entries && setup.public_inputs.refused.contains(&Table::At(at)) {
                continue;
            }
            if wider.general.insert(at) && entries {
                tried.push(Table::At(at));
            }
        }
    }
    let mut grew = wider.general.len() > setup.general.len();
    // Values of one object whose widths differ: read padded to the widest
    // (computing on wider values than some iterations need, which pays
    // only over many iterations).
    for (x, y) in pairs().filter(|_| left >= MIN_PADDED_TRIPS) {
        if let (Some(nx), Some(ny), true) = (x.significant, y.significant, x.at.obj == y.at.obj) {
            // A public value wider than the secret one read in its place
            // (a sentinel such as `-1000` before the first secret value)
            // is better left to its own iteration than made every
            // iteration's width.
            let want = match (x.public, y.public) {
                (true, false) => ny,
                (false, true) => nx,
                _ => nx.max(ny),
            };
            let entries = table_entries((x, y), a_first);
            let refused = entries && setup.public_inputs.refused.contains(&Table::Of(x.at.obj));
            if x.class_shape != y.class_shape && nx != ny && want > 0 && !refused {
                let k = wider.widths.entry(x.at.obj).or_insert(0);
                if want > *k {
                    *k = want;
                    grew = true;
                    if entries {
                        wider.public_inputs.tried.push(Table::Of(x.at.obj));
                    }
                }
            }
        }
    }
    if grew {
        return Some(wider);
    }
    // Reducing a sum each iteration costs about what unrolled carry-save
    // does, but loses the sharing it finds across iterations: only over
    // many iterations does keeping the loop pay for that.
    // Elsewhere, a running total of fresh terms costs a few AND gates more
    // reduced each iteration (see `settle`).
    let long = if setup.may_settle {
        left >= MIN_SETTLED_TRIPS
    } else {
        left >= MIN_FRESH_SETTLED_TRIPS
    };
    let carries = || carries_sum(a) || carries_sum(b);
    let fresh = || setup.may_settle || settle::adds_fresh_terms(a, b);
    if long && !setup.settle_sums && carries() && fresh() {
        return Some(Setup {
            settle_sums: true,
            ..wider
        });
    }
    let only_ranges = pairs().all(|(x, y)| x.class_shape == y.class_shape);
    let further = match setup.widening {
        Widening::Exact => Widening::Fine,
        Widening::Fine => Widening::Wide,
        Widening::Wide => Widening::Bits,
        Widening::Bits => return None,
    };
    // Ranges widened cost AND gates in every iteration (a mux over more
    // positions, a wider comparison): only over many iterations does that
    // pay for itself in compile time.
    (only_ranges && left >= MIN_PADDED_TRIPS).then(|| Setup {
        widening: further,
        ..wider
    })
}

/// Whether `probe` leaves sums not reduced where it read (carried
/// accumulators, whose rows grow from one iteration to the next) that are
/// worth reducing each iteration: reducing costs about a full-width row of
/// full adders for each row added, unrolled lowering about one AND gate
/// for each secret bit added. This rules out sums of narrow rows (a count
/// of bits), where reducing each iteration would cost many times more.
fn carries_sum(probe: &Probe) -> bool {
    let costs = settle::carried(probe).map(|c| c.cost());
    let (reduce, added) = costs.fold((0, 0), |(r, a), (x, y)| (r + x, a + y));
    reduce > 0 && reduce <= 2 * added
}

/// Whether `x` and `y` (observations of two iterations) read public values
/// that differ as a table's entries do (`W[i]`, a public value the loop
/// changes), not a sentinel the loop starts from (`e = -1000` before
/// `-19`): a value of its first iteration (`a_first`) far wider than the
/// next one's.
fn table_entries((x, y): (&Observation, &Observation), a_first: bool) -> bool {
    let sentinel_first = a_first
        && y.significant
            .is_some_and(|n| sentinel(x.significant, n, false));
    x.public && y.public && !sentinel_first
}

/// Where a widening read public values as inputs: a location (see
/// [`Setup::general`]) or an object whose values are read padded (see
/// [`Setup::widths`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(in crate::lower) enum Table {
    /// A location (object, leaf) read as an input.
    At((usize, usize)),
    /// An object whose values are read padded.
    Of(usize),
}

/// Public values that differ between iterations as a table's entries do,
/// read as inputs so that one template serves them all. Where that makes
/// the template cost more than half again the AND gates of the costlier
/// of the iterations' own probes with the values as constants (`x *
/// W[i]`, `x & W[i]`, `x >> S[i]`: a multiplier or a mask of secrets where
/// a constant's is a few additions or free), the values stay constants
/// and the iterations are lowered as they are. (Lowering every iteration
/// costs compile time: 256 float products by weights, kept at 1.45 times
/// the unrolled AND gates, compile in 0.05 s kept and 0.4 s unrolled; a
/// smaller saving does not repay that.)
#[derive(Clone, Default)]
pub(in crate::lower) struct PublicInputs {
    /// What the last widening read as inputs (taken by [`Trial::of`]).
    tried: Vec<Table>,
    /// What this loop's iterations read as constants.
    refused: HashSet<Table>,
}

/// A widening that read public values as inputs, checked on the template
/// it makes of iteration `iteration`.
pub(super) struct Trial {
    before: Rc<Setup>,
    /// What it read as inputs.
    tried: Vec<Table>,
    iteration: u64,
    /// The AND gates of the costlier of the two probes it generalises.
    ands: usize,
}

impl Trial {
    /// The trial of `wider`, made from `before` for the probes `a` and `b`,
    /// whose template is made next of iteration `iteration` (what `wider`
    /// tried is taken); `None` if it read no public value as an input.
    pub(super) fn of(
        before: &Rc<Setup>,
        wider: &mut Setup,
        (a, b): (&Probe, &Probe),
        iteration: u64,
    ) -> Option<Trial> {
        let tried = std::mem::take(&mut wider.public_inputs.tried);
        (!tried.is_empty()).then(|| Trial {
            before: before.clone(),
            tried,
            iteration,
            ands: ands(a).max(ands(b)),
        })
    }

    /// The setup to probe `probe`'s iteration with again, if it is the
    /// trial's and costs more than half again the AND gates the probes
    /// with constants did: the one before, with what the widening
    /// read as inputs refused. `None` if the widening stands (also where
    /// the probe is of another iteration: the loop went on unrolled).
    pub(super) fn refused(self, probe: &Probe, m: u64) -> Option<Setup> {
        if m != self.iteration || 2 * ands(probe) <= 3 * self.ands {
            return None;
        }
        let mut refused = (*self.before).clone();
        refused.public_inputs.refused.extend(self.tried);
        Some(refused)
    }
}

/// The AND gates of `probe`'s template, its blocks' iterations included.
pub(super) fn ands(probe: &Probe) -> usize {
    let frame = &probe.frame;
    let gates = frame.gates.iter().filter(|g| g.is_and()).count() as u64;
    let blocks = frame.blocks.iter().map(|b| b.body.frame().and_count());
    let counts = frame.blocks.iter().map(|b| b.count);
    let in_blocks = blocks.zip(counts).map(|(a, n)| a.saturating_mul(n));
    in_blocks.fold(gates, u64::saturating_add) as usize
}
