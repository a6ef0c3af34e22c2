//! A loop's first setup, and setups more general: what lets the probes of two
//! consecutive iterations that differ (in public values, in widths or in
//! ranges) lower to one template.

use super::*;

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
    }
}

/// A more general setup under which probes `a` and `b` (of consecutive
/// iterations, which do not match) may: public values the two read
/// differently at the same location read as inputs; values of one object
/// whose widths differ read padded to the widest (if `left` iterations are
/// enough to pay for it); sums carried on reduced each iteration (see
/// [`Setup::settle_sums`]); or, if only ranges differ in what they read,
/// ranges widened further. `None` if none applies.
pub(super) fn widened(setup: &Setup, (a, b): (&Probe, &Probe), left: u64) -> Option<Setup> {
    if a.observations.len() != b.observations.len() {
        return None;
    }
    let pairs = || a.observations.iter().zip(&b.observations);
    let mut wider = setup.clone();
    for (x, y) in pairs() {
        if x.at == y.at && (x.public || y.public) && x.shape != y.shape {
            wider.general.insert((x.at.obj, x.at.leaf as usize));
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
            if x.class_shape != y.class_shape && nx != ny && want > 0 {
                let k = wider.widths.entry(x.at.obj).or_insert(0);
                if want > *k {
                    *k = want;
                    grew = true;
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
    let long = left >= MIN_SETTLED_TRIPS;
    if setup.may_settle && long && !setup.settle_sums && (carries_sum(a) || carries_sum(b)) {
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
    let (mut reduce, mut added) = (0, 0);
    for w in &probe.writes {
        let Slot::Val(new @ Word::Sum(_)) = &w.value else {
            continue;
        };
        let Some(o) = probe.observations.iter().find(|o| o.at == w.at) else {
            continue;
        };
        let Slot::Val(old) = &o.fresh else {
            continue;
        };
        reduce += new.row_count().saturating_sub(old.row_count().max(1)) * new.width() as usize;
        added += new.held_bits().saturating_sub(old.held_bits());
    }
    reduce > 0 && reduce <= 2 * added
}
