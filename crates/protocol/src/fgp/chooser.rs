//! The chooser: whether a stretch of split AND gates runs faster on the
//! crew or in turn, learnt per size class from the stretches run so far.

/// Round-size classes the chooser keeps apart (by log2 of the size).
const CLASSES: usize = 33;
/// Stretches between two tries of the way out of favour, at first; every
/// try that confirms it slower doubles the gap, up to [`MAX_GAP`], so
/// trying costs little where one way is clearly better.
const EXPLORE: u32 = 8;
/// The longest gap between two tries.
const MAX_GAP: u32 = 1 << 12;

/// Samples of each way a class keeps: its estimate is their minimum, as a
/// stretch is only ever slowed down by what else the machine does (a busy
/// moment made one parallel stretch look slow, and a moving average then
/// kept the next dozens in turn).
pub(super) const SAMPLES: usize = 4;

/// What the chooser knows of one size class.
#[derive(Clone, Copy)]
struct Class {
    /// The last nanoseconds per AND gate in turn and on the crew (NaN: not
    /// measured).
    ns: [[f64; SAMPLES]; 2],
    /// Where each way's next sample goes.
    next: [usize; 2],
    /// Stretches until the way out of favour is tried again.
    until: u32,
    /// The current gap between tries.
    gap: u32,
    /// The way the last stretch was chosen for trying (not the favourite).
    trying: bool,
}

impl Class {
    /// The estimate of a way (`parallel` or not): its best recent sample.
    fn estimate(&self, parallel: bool) -> f64 {
        self.ns[usize::from(parallel)]
            .iter()
            .copied()
            .fold(f64::NAN, f64::min)
    }
}

/// Which way runs a stretch faster, learnt from the stretches run so far,
/// per class of split ANDs.
#[derive(Clone)]
pub(super) struct Chooser {
    classes: [Class; CLASSES],
}

impl Chooser {
    pub(super) fn new() -> Chooser {
        let class = Class {
            ns: [[f64::NAN; SAMPLES]; 2],
            next: [0; 2],
            until: EXPLORE,
            gap: EXPLORE,
            trying: false,
        };
        Chooser {
            classes: [class; CLASSES],
        }
    }

    /// A chooser that takes the crew every time (in turn never measured,
    /// never tried).
    #[cfg(test)]
    pub(super) fn crew_only() -> Chooser {
        let mut chooser = Chooser::new();
        for c in &mut chooser.classes {
            c.ns[0] = [f64::INFINITY; SAMPLES];
            c.until = u32::MAX;
        }
        chooser
    }

    fn class(&mut self, gates: usize) -> &mut Class {
        &mut self.classes[(usize::BITS - gates.leading_zeros()) as usize % CLASSES]
    }

    /// Whether the next stretch of `gates` split ANDs runs on the crew.
    pub(super) fn parallel(&mut self, gates: usize) -> bool {
        let c = self.class(gates);
        let (seq, par) = (c.estimate(false), c.estimate(true));
        c.trying = false;
        if par.is_nan() || seq.is_nan() {
            return par.is_nan();
        }
        let favourite = par < seq;
        if c.until == 0 {
            c.trying = true;
            return !favourite;
        }
        c.until -= 1;
        favourite
    }

    /// Records that a stretch of `gates` split ANDs took `ns` nanoseconds.
    pub(super) fn record(&mut self, gates: usize, parallel: bool, ns: f64) {
        let per = ns / gates.max(1) as f64;
        let c = self.class(gates);
        let way = usize::from(parallel);
        c.ns[way][c.next[way]] = per;
        c.next[way] = (c.next[way] + 1) % SAMPLES;
        if c.trying {
            let (seq, par) = (c.estimate(false), c.estimate(true));
            // Still slower: try it less often; now faster: it is the
            // favourite, and the other is tried soon.
            let confirmed = (par < seq) != parallel;
            c.gap = if confirmed {
                (c.gap * 2).min(MAX_GAP)
            } else {
                EXPLORE
            };
            c.until = c.gap;
        }
    }
}
