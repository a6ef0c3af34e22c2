//! Fine-grained parallelism inside an engine: an AND run long enough to
//! split goes in rounds of at most `threads × PART_GATES` gates, each round
//! cut into one contiguous part per thread. Every part is one garbling
//! (evaluation) call with the gate ids it has in sequential order: the cut
//! fixes the table stream, so both parties agree on it whatever each does
//! with it.
//!
//! The parts of a round read their inputs from the engine's label array
//! and write their outputs into it, in place ([`SplitRun`]): the run comes
//! from a batch ([`AndRun`]), so no AND of it writes a wire another reads
//! or writes, and the parts may run at once.
//!
//! How a round runs is each party's own choice, learnt as the walk goes
//! ([`Chooser`]): on the crew's threads, or the parts one after another on
//! the calling thread, the engine's own way. Both give the same tables
//! (the same calls); the faster one is kept,
//! so splitting never costs more than it gains (and what one engine
//! learnt, the next of its kind starts from).

use std::ops::Range;
use std::sync::Mutex;
use std::time::Instant;

use twofold_circuit::batch::AndRun;
use twofold_circuit::Gate;
use twofold_crypto::{part_range, Crew, CryptoError, SplitRun, WireLabel};

use crate::error::ProtocolError;

/// Gates of a part of a round: each part's tables go out as one frame of
/// at most 1 MiB of half-gates tables, so frames and memory stay bounded
/// however wide the level.
const PART_GATES: usize = 1 << 15;

/// The rounds of a split run of `n` gates on `k` threads: consecutive
/// ranges of at most `k × PART_GATES` gates.
pub(crate) fn rounds(n: usize, k: usize) -> impl Iterator<Item = Range<usize>> {
    let step = k * PART_GATES;
    (0..n).step_by(step).map(move |s| s..n.min(s + step))
}

/// What a part's work gets: the split round, the part's index, its table
/// buffer and the index of its first gate in the round.
pub(crate) type PartWork<'a, L> =
    dyn Fn(&SplitRun<'_, L>, usize, &mut Vec<u8>, usize) -> Result<(), CryptoError> + Sync + 'a;

/// A part's work on the calling thread, the engine's own way: the part's
/// index, its gates, the labels and the index of its first gate in the
/// round.
pub(crate) type InTurn<'a, L> =
    dyn FnMut(usize, &[Gate], &mut [L], usize) -> Result<(), ProtocolError> + 'a;

/// One thread's part of a round: its tables and how its last work ended.
#[derive(Default)]
struct Part {
    tables: Vec<u8>,
    failed: Option<CryptoError>,
}

/// Round-size classes the chooser keeps apart (by log2 of the size).
const CLASSES: usize = 33;
/// Rounds between two tries of the way out of favour, at first; every try
/// that confirms it slower doubles the gap, up to [`MAX_GAP`], so trying
/// costs little where one way is clearly better.
const EXPLORE: u32 = 8;
/// The longest gap between two tries.
const MAX_GAP: u32 = 1 << 12;

/// What the chooser knows of one round-size class.
#[derive(Clone, Copy)]
struct Class {
    /// Nanoseconds per AND gate in turn and on the crew (moving averages;
    /// NaN: not tried yet).
    ns: [f64; 2],
    /// Rounds until the way out of favour is tried again.
    until: u32,
    /// The current gap between tries.
    gap: u32,
    /// The way the last round was chosen for trying (not the favourite).
    trying: bool,
}

/// Which way runs a round faster, learnt from the rounds run so far, per
/// round-size class.
#[derive(Clone)]
struct Chooser {
    classes: [Class; CLASSES],
}

impl Chooser {
    fn new() -> Chooser {
        let class = Class {
            ns: [f64::NAN; 2],
            until: EXPLORE,
            gap: EXPLORE,
            trying: false,
        };
        Chooser {
            classes: [class; CLASSES],
        }
    }

    fn class(&mut self, gates: usize) -> &mut Class {
        &mut self.classes[(usize::BITS - gates.leading_zeros()) as usize % CLASSES]
    }

    /// Whether the next round of `gates` gates runs on the crew.
    fn parallel(&mut self, gates: usize) -> bool {
        let c = self.class(gates);
        let [seq, par] = c.ns;
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

    /// Records that a round of `gates` gates took `ns` nanoseconds.
    fn record(&mut self, gates: usize, parallel: bool, ns: f64) {
        let per = ns / gates.max(1) as f64;
        let c = self.class(gates);
        let slot = &mut c.ns[usize::from(parallel)];
        *slot = if slot.is_nan() {
            per
        } else {
            0.5 * (*slot + per)
        };
        if c.trying {
            let [seq, par] = c.ns;
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

/// What the engines of this process learnt, per kind of work and thread
/// count: an engine starts from what the last one of its kind learnt (a
/// session makes several engines, a benchmark many sessions) and leaves
/// what it learnt when it is dropped.
static LEARNT: Mutex<Vec<((&str, usize), Chooser)>> = Mutex::new(Vec::new());

/// The last round run, until its cost is known.
struct LastRound {
    gates: usize,
    parallel: bool,
    start: Instant,
    end: Instant,
}

impl LastRound {
    /// Records the round's cost, the next round starting at `next`: its
    /// own time and what follows up to the next round, at most twice its
    /// own time. The gates that follow are the same either way, but after
    /// a parallel round they read labels the other threads wrote, which
    /// must come over from their caches first: a cost of the split.
    fn record(self, chooser: &mut Chooser, next: Instant) {
        let own = self.end - self.start;
        let after = (next - self.end).min(2 * own);
        let ns = (own + after).as_nanos() as f64;
        chooser.record(self.gates, self.parallel, ns);
    }
}

/// An engine's means to split rounds: a part buffer per thread, the crew
/// (started with the first parallel round), the chooser and the last round
/// (whose cost is known when the next starts).
pub(crate) struct Splitter {
    parts: Vec<Part>,
    crew: Option<Crew>,
    chooser: Chooser,
    last: Option<LastRound>,
    /// The kind of work and the threads, for [`LEARNT`].
    key: (&'static str, usize),
}

impl Drop for Splitter {
    fn drop(&mut self) {
        // A poisoned lock only loses what was learnt.
        if let Ok(mut learnt) = LEARNT.lock() {
            match learnt.iter_mut().find(|(k, _)| *k == self.key) {
                Some((_, c)) => *c = self.chooser.clone(),
                None => learnt.push((self.key, self.chooser.clone())),
            }
        }
    }
}

impl Splitter {
    /// A splitter for `threads` threads doing `work` (garbling or
    /// evaluating), starting from what the last one learnt.
    pub(crate) fn new(work: &'static str, threads: usize) -> Splitter {
        let key = (work, threads.max(1));
        let learnt = LEARNT.lock().ok().and_then(|learnt| {
            learnt
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, c)| c.clone())
        });
        Splitter {
            parts: (0..threads.max(1)).map(|_| Part::default()).collect(),
            crew: None,
            chooser: learnt.unwrap_or_else(Chooser::new),
            last: None,
            key,
        }
    }

    /// Threads (parts per round).
    pub(crate) fn threads(&self) -> usize {
        self.parts.len()
    }

    /// Runs the round `round` (of an AND run of a batch) over `labels`, as
    /// the chooser says: `work` on each part on the crew's threads at once,
    /// or `in_turn(part, gates, labels, start)` on each part in turn on
    /// this thread (the engine's own way, the tables in its own buffer:
    /// part buffers as large as a round would push the labels out of the
    /// cache; the same calls, so the same tables). Returns whether the crew
    /// ran the parts (their tables are then in [`Splitter::tables`]).
    pub(crate) fn run_round<L: WireLabel>(
        &mut self,
        round: AndRun<'_>,
        labels: &mut [L],
        work: &PartWork<'_, L>,
        in_turn: &mut InTurn<'_, L>,
    ) -> Result<bool, ProtocolError> {
        let k = self.parts.len();
        let n = round.len();
        let start = Instant::now();
        if let Some(last) = self.last.take() {
            last.record(&mut self.chooser, start);
        }
        let parallel = self.chooser.parallel(n);
        // A crew's first round waits for its threads to start: not timed.
        let fresh = parallel && self.crew.is_none();
        if fresh {
            self.crew = Some(Crew::new(k));
        }
        match self.crew.as_mut().filter(|_| parallel) {
            Some(crew) => {
                let split = SplitRun::new(round, labels, k);
                crew.for_each_mut(&mut self.parts, |part, p| {
                    part.tables.clear();
                    let start = part_range(n, k, p).start;
                    part.failed = work(&split, p, &mut part.tables, start).err();
                });
            }
            None => {
                for p in 0..k {
                    let part = part_range(n, k, p);
                    in_turn(p, &round.gates()[part.clone()], labels, part.start)?;
                }
            }
        }
        if !fresh {
            self.last = Some(LastRound {
                gates: n,
                parallel,
                start,
                end: Instant::now(),
            });
        }
        match self.parts.iter_mut().find_map(|p| p.failed.take()) {
            Some(e) => Err(e.into()),
            None => Ok(parallel),
        }
    }

    /// The tables of the last round, part after part.
    pub(crate) fn tables(&self) -> impl Iterator<Item = &[u8]> {
        self.parts.iter().map(|p| p.tables.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_and_parts_tile_a_run() {
        for (n, k) in [
            (0, 2),
            (1, 2),
            (5, 3),
            (PART_GATES * 5 + 7, 2),
            (PART_GATES * 9, 4),
        ] {
            let mut at = 0;
            for round in rounds(n, k) {
                assert!(round.len() <= k * PART_GATES);
                for p in 0..k {
                    let part = part_range(round.len(), k, p);
                    assert_eq!(round.start + part.start, at);
                    at = round.start + part.end;
                }
            }
            assert_eq!(at, n);
        }
    }

    #[test]
    fn the_chooser_keeps_the_faster_way_and_tries_the_other_ever_less() {
        let mut c = Chooser::new();
        // First a round of each way.
        assert!(c.parallel(4096));
        c.record(4096, true, 8192.0);
        assert!(!c.parallel(4096));
        c.record(4096, false, 4096.0);
        // Sequential is faster: chosen, parallel tried after 8 rounds, then
        // 16, 32, … as long as it stays slower.
        let mut tries = Vec::new();
        for round in 0..200 {
            let parallel = c.parallel(4096);
            if parallel {
                tries.push(round);
            }
            c.record(4096, parallel, if parallel { 8192.0 } else { 4096.0 });
        }
        assert_eq!(tries, [8, 25, 58, 123]);
        // Another size class learns on its own.
        assert!(c.parallel(1 << 20));
    }

    #[test]
    fn the_chooser_follows_a_change() {
        let mut c = Chooser::new();
        let mut parallel_cost = 8192.0;
        let mut last = false;
        for round in 0..200 {
            if round == 30 {
                parallel_cost = 1024.0;
            }
            last = c.parallel(4096);
            c.record(4096, last, if last { parallel_cost } else { 4096.0 });
        }
        assert!(last, "parallel became faster and is chosen");
    }
}
