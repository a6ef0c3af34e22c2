//! Fine-grained parallelism inside an engine: a batch with AND runs long
//! enough to split runs as its [`ExchangePlan`] says, stretch by stretch,
//! each thread on its own copy of the labels.
//!
//! A split AND run goes in rounds of at most `threads × PART_GATES` gates,
//! each round cut into one contiguous part per thread; every part is one
//! garbling (evaluation) call with the gate ids it has in sequential
//! order, so the cut fixes the table stream and both parties agree on it
//! whatever each does with it. The gates between split runs are one unit:
//! free gates cut between the threads when they can be, else run by part
//! 0 in the engine's usual steps — or, under a scheme whose tables are
//! whole per gate, shared by owner when they hold many ANDs (each piece a
//! call with its own gates' ids, the pieces' tables in gate order: the
//! stream of one thread).
//!
//! Under a scheme whose tables are whole per gate, part 0 (the thread that
//! also moves the tables) may take a smaller piece of each round than the
//! others, as its measured times say ([`crate::balance`]): where calls
//! begin and end then changes nothing the peer sees.
//!
//! How a stretch runs is each party's own choice, learnt as the walk goes
//! ([`Chooser`]): on the crew, each thread on its own labels, handing the
//! others after every unit just the labels they read next; or in turn on
//! the calling thread, the engine's own way. Both give the same tables
//! (the same calls); the faster one is kept, so splitting never costs
//! more than it gains (and what one engine learnt, the next of its kind
//! starts from).
//!
//! Why copies: threads sharing one label array pay for every label one
//! writes and another reads, line by line, at random; on the development
//! VM that made FGP on random levels 1.0x of one thread. A thread with its
//! own copy reads and writes its own cache, and the exchange is a short
//! sequential list per unit.

use std::any::Any;
use std::mem::size_of;
use std::sync::{Mutex, RwLock};
use std::time::Instant;

use twofold_circuit::exchange::{self, Piece, Shape, Split, Stretch, Unit, EVEN_WEIGHT};
use twofold_circuit::walk::Batch;
use twofold_circuit::{Gate, Wire};
use twofold_crypto::{Barrier, Crew, WireLabel};

use crate::balance::{Balance, PartTimes};
use crate::error::ProtocolError;

/// Gates of a part of a round: each part's tables (at most 256 KiB of
/// half-gates tables) wait in a buffer until the round is over, so a part
/// must leave the cache room for the labels. Parts of 32,768 gates (1 MiB)
/// made a split run's rounds, even run in turn, 2.8x slower than one
/// thread's steps at width 65,536.
const PART_GATES: usize = 1 << 13;

/// AND gates a part of a round needs on average for a stretch to go to
/// the crew: on the development VM a unit's barrier and exchange cost a
/// few microseconds, and parts of 512 ANDs (4 µs) lost against one
/// thread while parts of 1,024 broke even.
const MIN_PART_ANDS: usize = 1024;

/// How batches are cut for `threads` threads splitting AND runs of at
/// least `min_ands` gates (and sharing gaps by owner if `share_gaps`).
pub(crate) fn split(threads: usize, min_ands: usize, share_gaps: bool) -> Split {
    Split {
        threads: threads.max(1),
        min_ands,
        round_gates: threads.max(1) * PART_GATES,
        share_gaps,
        lead_weight: EVEN_WEIGHT,
    }
}

/// The pieces of `unit`, its first AND numbered `at`, under a scheme of
/// `table_bytes`: each one, its first AND id, and where its tables are in
/// the unit's (the pieces' tables in order).
pub(crate) fn pieces_at(
    unit: &Unit,
    mut at: u64,
    table_bytes: fn(usize) -> usize,
) -> impl Iterator<Item = (&Piece, u64, std::ops::Range<usize>)> + '_ {
    let mut bytes = 0;
    unit.pieces.iter().map(move |piece| {
        let n = table_bytes(piece.ands);
        let item = (piece, at, bytes..bytes + n);
        at += piece.ands as u64;
        bytes += n;
        item
    })
}

/// Bytes of tables of `unit` under a scheme of `table_bytes`.
pub(crate) fn unit_table_bytes(unit: &Unit, table_bytes: fn(usize) -> usize) -> usize {
    unit.pieces
        .iter()
        .map(|piece| table_bytes(piece.ands))
        .sum()
}

/// AND gates of `unit`.
fn unit_ands(unit: &Unit) -> u64 {
    unit.pieces.iter().map(|piece| piece.ands as u64).sum()
}

/// The tables of `unit`'s pieces in gate order, from each part's tables
/// (its pieces', in order) under a scheme of `table_bytes`.
pub(crate) fn in_gate_order<'t>(
    unit: &'t Unit,
    tables: &'t [&'t [u8]],
    table_bytes: fn(usize) -> usize,
) -> impl Iterator<Item = &'t [u8]> + 't {
    let mut taken = vec![0; tables.len()];
    unit.pieces.iter().map(move |piece| {
        let (q, n) = (piece.part, table_bytes(piece.ands));
        let t = &tables[q][taken[q]..taken[q] + n];
        taken[q] += n;
        t
    })
}

/// The index of the next unit of `units` whose parts make tables, if the
/// lead may load its tables now: no unit before it (a unit of
/// [`Shape::First`] with ANDs, which the lead runs alone) takes tables
/// from the stream first.
fn next_round(units: &[Unit]) -> Option<usize> {
    let next = units.iter().position(|u| {
        u.shape.has_shared_tables() || (u.shape == Shape::First && unit_ands(u) > 0)
    })?;
    units[next].shape.has_shared_tables().then_some(next)
}

/// Makes the exchange plan of `batch` over `num_wires` labels cut as
/// `split` says, now (see [`Batch::exchange_plan`]), ahead of the walks
/// that run it.
pub(crate) fn plan_ahead(batch: Batch<'_>, num_wires: Wire, split: Split) {
    batch.exchange_plan(num_wires, split, true);
}

/// One part's work of a unit, on any thread: what it is given of its piece
/// ([`PartJob`]), its labels and the buffer its tables go to (garbling).
pub(crate) type PartWork<'a, L> =
    dyn Fn(PartJob<'_>, &mut [L], &mut Vec<u8>) -> Result<(), ProtocolError> + Sync + 'a;

/// What [`PartWork`] is given of a piece of its part.
pub(crate) struct PartJob<'a> {
    /// The piece's gates.
    pub gates: &'a [Gate],
    /// The id of its first AND gate.
    pub at: u64,
    /// Its tables (evaluation; empty when garbling).
    pub tables: &'a [u8],
}

/// What only one thread of a parallel stretch does (part 0's thread, for
/// the engine): the units no other part shares, and the table stream.
pub(crate) trait Lead<L: WireLabel>: Send {
    /// Puts the next `bytes` bytes of tables, a unit's, into `into`
    /// (evaluation; garbling leaves it empty).
    fn load_round(&mut self, bytes: usize, into: &mut Vec<u8>) -> Result<(), ProtocolError>;
    /// Runs `gates` (gates no part shares), their first AND numbered `at`,
    /// the engine's way.
    fn run_alone(
        &mut self,
        gates: Batch<'_>,
        at: u64,
        labels: &mut [L],
    ) -> Result<(), ProtocolError>;
    /// After `unit`, each part's tables (its pieces', in order; empty
    /// when evaluating): garbling sends them in gate order
    /// ([`in_gate_order`]).
    fn round_done(&mut self, unit: &Unit, tables: &[&[u8]]) -> Result<(), ProtocolError>;
    /// Runs the pieces of `unit` of `batch` (a unit whose parts make
    /// tables), its first AND numbered `at`, one after another on this
    /// thread (the same calls as on the crew, so the same tables).
    fn round_in_turn(
        &mut self,
        unit: &Unit,
        batch: Batch<'_>,
        at: u64,
        labels: &mut [L],
    ) -> Result<(), ProtocolError>;

    /// Runs `units` of `batch`, their first AND numbered `at`, on this
    /// thread alone, the engine's own way: units with tables piece after
    /// piece, the gates between in steps.
    fn run_in_turn(
        &mut self,
        units: &[Unit],
        batch: Batch<'_>,
        mut at: u64,
        labels: &mut [L],
    ) -> Result<(), ProtocolError> {
        for unit in units {
            if unit.shape.has_shared_tables() {
                self.round_in_turn(unit, batch, at, labels)?;
            } else {
                self.run_alone(batch.slice(unit.gates.clone()), at, labels)?;
            }
            at += unit_ands(unit);
        }
        Ok(())
    }
}

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
const SAMPLES: usize = 4;

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
struct Chooser {
    classes: [Class; CLASSES],
}

impl Chooser {
    fn new() -> Chooser {
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
    fn crew_only() -> Chooser {
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
    fn parallel(&mut self, gates: usize) -> bool {
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
    fn record(&mut self, gates: usize, parallel: bool, ns: f64) {
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

/// What the engines of this process learnt, per kind of work, thread
/// count and split threshold (which cuts the stretches): an engine starts
/// from what the last one of its kind learnt (a session makes several
/// engines, a benchmark many sessions) and leaves what it learnt when it
/// is dropped.
static LEARNT: Mutex<Vec<(Kind, Learnt)>> = Mutex::new(Vec::new());

/// The kind of engine (its type's name: the work, the scheme and where
/// its tables go or come from) and its cut (at an even weight).
type Kind = (&'static str, Split);

/// What a splitter learns as it runs stretches.
#[derive(Clone)]
struct Learnt {
    /// Which way runs stretches faster.
    chooser: Chooser,
    /// What part 0's weight should be.
    balance: Balance,
    /// Part 0's weight in use.
    lead_weight: usize,
}

/// Whether part 0's weight may move from even under `split`: where gaps
/// are shared by owner ([`split`] shares them exactly when the scheme's
/// tables are whole per gate, the same condition).
fn weighs(split: Split) -> bool {
    split.share_gaps
}

/// What the last engine of `kind` on batches cut as `split` learnt (part
/// 0's weight even unless it [`weighs`]).
fn learnt(kind: &'static str, split: Split) -> Option<Learnt> {
    let learnt = LEARNT.lock().ok()?;
    let (_, found) = learnt.iter().find(|(k, _)| *k == (kind, split))?;
    Some(Learnt {
        lead_weight: match weighs(split) {
            true => found.lead_weight,
            false => split.lead_weight,
        },
        ..found.clone()
    })
}

/// `split` (at an even weight) with part 0's weight as the last engine
/// of `kind` left it, for plans made ahead of such an engine's walks.
pub(crate) fn learnt_split(kind: &'static str, split: Split) -> Split {
    let lead_weight = learnt(kind, split).map_or(split.lead_weight, |l| l.lead_weight);
    Split {
        lead_weight,
        ..split
    }
}

/// Makes the engines of `kind` cutting as `split` (at an even weight) run
/// every stretch worth it on the crew, part 0 starting at `lead_weight`
/// (for tests: what a small test program would learn is to run in turn;
/// and under a scheme whose tables are whole per gate, any weight gives
/// the same tables).
#[cfg(test)]
pub(crate) fn set_learnt_for_tests(kind: &'static str, split: Split, lead_weight: usize) {
    let mine = Learnt {
        chooser: Chooser::crew_only(),
        balance: Balance::new(),
        lead_weight,
    };
    let mut learnt = LEARNT.lock().unwrap();
    match learnt.iter_mut().find(|(k, _)| *k == (kind, split)) {
        Some((_, l)) => *l = mine,
        None => learnt.push(((kind, split), mine)),
    }
}

/// Crews idle between engines: an engine takes one of its thread count
/// when it first splits a stretch and gives it back when dropped, so a
/// process starts a crew's threads once, not once per engine (a session
/// makes several, a benchmark many sessions). An idle crew's helpers
/// sleep.
static IDLE_CREWS: Mutex<Vec<Idle>> = Mutex::new(Vec::new());

/// Idle crews kept at most; more are dropped (their threads end).
const MAX_IDLE_CREWS: usize = 4;

/// Label copies kept with an idle crew at most (bytes, all its copies):
/// larger ones are freed when their engine ends.
const MAX_IDLE_COPY_BYTES: usize = 64 << 20;

/// An idle crew, with the label copies its last engine grew (a
/// `Vec<Vec<L>>` of that engine's label type): the next engine of that
/// type takes them over instead of faulting in fresh pages (a parallel
/// stretch of 42,000 ANDs took 4–5 ms with fresh copies of 0.2 M labels,
/// against about 0.5 ms of work). A part reads only labels copied in at
/// its stretch's start or written by itself, never what a copy held
/// before.
struct Idle {
    crew: Crew,
    copies: Box<dyn Any + Send>,
}

/// An idle crew of `threads` threads, if there is one, and its label
/// copies if they are of type `L` (else none).
fn idle_crew<L: WireLabel + 'static>(threads: usize) -> Option<(Crew, Vec<Vec<L>>)> {
    let mut idle = IDLE_CREWS.lock().ok()?;
    let i = idle.iter().position(|c| c.crew.threads() == threads)?;
    let Idle { crew, copies } = idle.swap_remove(i);
    let copies = copies
        .downcast::<Vec<Vec<L>>>()
        .map(|c| *c)
        .unwrap_or_default();
    Some((crew, copies))
}

/// The buffers the threads of a parallel stretch share, two of each so
/// that a unit's buffers are written while the last unit's are still read
/// (by parity of the unit's index): what each part sends, each part's
/// tables; and a round's tables for evaluation (by parity of the units
/// with tables so far: the lead loads the next such unit's at the end of
/// one).
struct Exchange<L> {
    sent: [Vec<RwLock<Vec<L>>>; 2],
    tables: [Vec<Mutex<Vec<u8>>>; 2],
    round: [RwLock<Vec<u8>>; 2],
}

impl<L> Exchange<L> {
    fn new(k: usize) -> Exchange<L> {
        let sent = || (0..k).map(|_| RwLock::new(Vec::new())).collect();
        let tables = || (0..k).map(|_| Mutex::new(Vec::new())).collect();
        Exchange {
            sent: [sent(), sent()],
            tables: [tables(), tables()],
            round: Default::default(),
        }
    }
}

/// A lock poisoned by a panicking part: the panic reaches the caller
/// through the crew; this only ends the other parts' work.
fn poisoned<T>(_: T) -> ProtocolError {
    ProtocolError::Stopped("another thread of the stretch panicked".into())
}

/// An engine's means to split stretches: the crew (started with the first
/// parallel stretch), a label copy for every thread but the first, the
/// shared buffers and what it learns.
pub(crate) struct Splitter<L: WireLabel + 'static> {
    /// How batches are cut, at an even weight (part 0's weight is
    /// learnt, in `learnt`).
    split: Split,
    /// The scheme's table bytes of a call of so many ANDs.
    table_bytes: fn(usize) -> usize,
    crew: Option<Crew>,
    copies: Vec<Vec<L>>,
    exchange: Exchange<L>,
    learnt: Learnt,
    /// The kind of engine it is, for [`LEARNT`].
    kind: &'static str,
}

impl<L: WireLabel + 'static> Drop for Splitter<L> {
    fn drop(&mut self) {
        if let (Some(crew), Ok(mut idle)) = (self.crew.take(), IDLE_CREWS.lock()) {
            if idle.len() < MAX_IDLE_CREWS {
                let copies = std::mem::take(&mut self.copies);
                let bytes: usize = copies.iter().map(|c| c.len()).sum::<usize>() * size_of::<L>();
                let copies: Box<dyn Any + Send> = match bytes <= MAX_IDLE_COPY_BYTES {
                    true => Box::new(copies),
                    false => Box::new(()),
                };
                idle.push(Idle { crew, copies });
            }
        }
        // A poisoned lock only loses what was learnt.
        if let Ok(mut learnt) = LEARNT.lock() {
            let key = (self.kind, self.split);
            match learnt.iter_mut().find(|(k, _)| *k == key) {
                Some((_, l)) => *l = self.learnt.clone(),
                None => learnt.push((key, self.learnt.clone())),
            }
        }
    }
}

/// What one thread of a parallel stretch holds: its labels, how its work
/// ended and where its time went.
struct Seat<'a, L> {
    labels: &'a mut [L],
    lead: Option<&'a mut dyn Lead<L>>,
    result: Result<(), ProtocolError>,
    times: PartTimes,
}

impl<L: WireLabel + 'static> Splitter<L> {
    /// A splitter of an engine of `kind` ([`Kind`]) on batches cut as
    /// `split` says (at an even weight; part 0's weight learnt where
    /// [`weighs`]), under a scheme of `table_bytes`, starting from what the
    /// last one of its kind learnt.
    pub(crate) fn new(
        kind: &'static str,
        split: Split,
        table_bytes: fn(usize) -> usize,
    ) -> Splitter<L> {
        let threads = split.threads.max(1);
        let learnt = learnt(kind, split).unwrap_or_else(|| Learnt {
            chooser: Chooser::new(),
            balance: Balance::new(),
            lead_weight: split.lead_weight,
        });
        Splitter {
            split,
            table_bytes,
            crew: None,
            copies: Vec::new(),
            exchange: Exchange::new(threads),
            learnt,
            kind,
        }
    }

    /// How this splitter cuts batches now.
    pub(crate) fn cut(&self) -> Split {
        Split {
            lead_weight: self.learnt.lead_weight,
            ..self.split
        }
    }

    /// Runs `batch`, which has an AND run it splits, over `labels`, its
    /// first AND numbered `at`: stretch by stretch as its exchange plan
    /// says if it has one (see [`Batch::exchange_plan`]), else in turn
    /// over its cut (the same calls). Calls `done` with the AND gates of
    /// each stretch; returns the id after the batch's last AND.
    pub(crate) fn run_batch(
        &mut self,
        batch: Batch<'_>,
        mut at: u64,
        labels: &mut [L],
        lead: &mut dyn Lead<L>,
        work: &PartWork<'_, L>,
        done: &mut dyn FnMut(u64),
    ) -> Result<u64, ProtocolError> {
        let labels_len = labels.len() as Wire;
        let Some(plan) = batch.exchange_plan(labels_len, self.cut(), false) else {
            let units = exchange::cut(batch, self.cut());
            lead.run_in_turn(&units, batch, at, labels)?;
            let ands = batch.and_count() as u64;
            done(ands);
            return Ok(at + ands);
        };
        for stretch in plan.stretches() {
            let cut = (stretch, plan.split.lead_weight);
            self.run_stretch(cut, batch, at, labels, lead, work)?;
            let ands = batch.slice(stretch.gates()).and_count() as u64;
            done(ands);
            at += ands;
        }
        Ok(at)
    }

    /// Runs `stretch` of `batch` (its rounds cut at part 0's `weight`) over
    /// `labels`, its first AND numbered `at`, as the chooser says: in turn
    /// on this thread (`lead`'s
    /// [`Lead::run_in_turn`]), or on the crew, each thread on its own
    /// labels doing `work` on its parts, and part 0's thread also what
    /// `lead` does.
    fn run_stretch(
        &mut self,
        (stretch, weight): (&Stretch, usize),
        batch: Batch<'_>,
        at: u64,
        labels: &mut [L],
        lead: &mut dyn Lead<L>,
        work: &PartWork<'_, L>,
    ) -> Result<(), ProtocolError> {
        let ands = stretch.split_ands();
        let rounds = stretch
            .units()
            .iter()
            .filter(|u| u.shape.has_shared_tables())
            .count();
        // Parts too small to pay for a barrier and an exchange each (or
        // none at all: gaps left on part 0) never go to the crew (the
        // chooser would try them at least once).
        let worth = ands > 0 && ands >= rounds * self.split.threads * MIN_PART_ANDS;
        let parallel = self.split.threads > 1 && worth && self.learnt.chooser.parallel(ands);
        if parallel && self.crew.is_none() {
            if let Some((crew, copies)) = idle_crew(self.split.threads) {
                self.crew = Some(crew);
                if self.copies.is_empty() {
                    self.copies = copies;
                }
            }
        }
        // A new crew's first stretch waits for its threads to start, and
        // one that grows the label copies faults in their pages: neither
        // is timed.
        let mut fresh = parallel && self.crew.is_none();
        let start = Instant::now();
        if parallel {
            fresh |= self.run_parallel((stretch, weight), batch, at, labels, lead, work)?;
        } else {
            lead.run_in_turn(stretch.units(), batch, at, labels)?;
        }
        if !fresh {
            let ns = start.elapsed().as_nanos() as f64;
            self.learnt.chooser.record(ands, parallel, ns);
        }
        Ok(())
    }

    /// The crew's way of [`Splitter::run_stretch`]; returns whether the
    /// label copies grew first (faulting in fresh pages, a cost of this
    /// stretch only).
    fn run_parallel(
        &mut self,
        (stretch, weight): (&Stretch, usize),
        batch: Batch<'_>,
        at: u64,
        labels: &mut [L],
        lead: &mut dyn Lead<L>,
        work: &PartWork<'_, L>,
    ) -> Result<bool, ProtocolError> {
        let k = self.split.threads;
        let mut grew = false;
        let crew = self.crew.get_or_insert_with(|| Crew::new(k));
        let n = labels.len();
        self.copies.resize_with(k - 1, Vec::new);
        for copy in &mut self.copies {
            if copy.len() < n {
                copy.resize(n, L::default());
                grew = true;
            }
            for &w in stretch.initial() {
                copy[w as usize] = labels[w as usize];
            }
        }
        // The first round's tables, before any part starts.
        let table_bytes = self.table_bytes;
        let units = stretch.units();
        if let Some(first) = next_round(units) {
            let mut round = self.exchange.round[0].write().map_err(poisoned)?;
            lead.load_round(unit_table_bytes(&units[first], table_bytes), &mut round)?;
        }
        let mut seats: Vec<Seat<'_, L>> = std::iter::once(Seat {
            labels,
            lead: Some(lead),
            result: Ok(()),
            times: PartTimes::default(),
        })
        .chain(self.copies.iter_mut().map(|c| Seat {
            labels: &mut c[..n],
            lead: None,
            result: Ok(()),
            times: PartTimes::default(),
        }))
        .collect();
        let barrier = Barrier::new(k);
        let exchange = &self.exchange;
        crew.for_each_mut(&mut seats, |seat, p| {
            let guard = barrier.guard();
            let part = Part {
                stretch,
                batch,
                p,
                table_bytes,
            };
            seat.result = run_part(&part, at, seat, work, exchange, &barrier);
            if seat.result.is_ok() {
                guard.disarm();
            }
        });
        if weighs(self.split) {
            let times: Vec<PartTimes> = seats.iter().map(|s| s.times).collect();
            // Measured on rounds cut at `weight` (the plan's), which the
            // splitter's own may have left since.
            let learnt = &mut self.learnt;
            learnt.lead_weight = learnt
                .balance
                .next_weight(learnt.lead_weight, weight, &times);
        }
        // The error of a part that failed on its own before those of the
        // parts that stopped for it.
        let errors = seats.into_iter().filter_map(|s| s.result.err());
        match errors.min_by_key(|e| matches!(e, ProtocolError::Stopped(_))) {
            Some(e) => Err(e),
            None => Ok(grew),
        }
    }
}

/// Which part of which stretch a thread runs.
struct Part<'s, 'b> {
    stretch: &'s Stretch,
    batch: Batch<'b>,
    p: usize,
    /// The scheme's table bytes of a call of so many ANDs.
    table_bytes: fn(usize) -> usize,
}

/// What part `p` of a parallel stretch does, unit after unit (the first
/// AND numbered `at`): its pieces of the unit on its own labels, then what
/// it sends into the exchange; past the barrier, what the others sent
/// into its labels. Part 0 also runs the units no other part shares and
/// the table stream (its [`Lead`]).
fn run_part<L: WireLabel>(
    part: &Part<'_, '_>,
    mut at: u64,
    seat: &mut Seat<'_, L>,
    work: &PartWork<'_, L>,
    exchange: &Exchange<L>,
    barrier: &Barrier,
) -> Result<(), ProtocolError> {
    let (stretch, batch, p, table_bytes) = (part.stretch, part.batch, part.p, part.table_bytes);
    let k = exchange.sent[0].len();
    let units = stretch.units();
    let gates = batch.gates();
    let mut passed = 0;
    let called_off = |_| ProtocolError::Stopped("another thread of the stretch failed".into());
    // Units with tables so far: the next one's are in
    // `exchange.round[tabled % 2]`, loaded once no unit before it takes
    // tables from the stream (see `next_round`).
    let mut tabled = 0;
    let mut loaded = next_round(units);
    for (u, unit) in units.iter().enumerate() {
        let parity = u % 2;
        let labels = &mut *seat.labels;
        let shared_tables = unit.shape.has_shared_tables();
        // Where the part's time goes in a round (see `PartTimes`).
        let began = Instant::now();
        let mut pieces = std::time::Duration::ZERO;
        if unit.shape == Shape::First {
            if let Some(lead) = seat.lead.as_deref_mut() {
                lead.run_alone(batch.slice(unit.gates.clone()), at, labels)?;
            }
        } else {
            // A round's tables (none for free gates).
            let round = match shared_tables {
                true => Some(exchange.round[tabled % 2].read().map_err(poisoned)?),
                false => None,
            };
            let round = round.as_deref().map_or(&[][..], Vec::as_slice);
            let mut tables = exchange.tables[parity][p].lock().map_err(poisoned)?;
            tables.clear();
            for (piece, first, bytes) in pieces_at(unit, at, table_bytes) {
                if piece.part == p {
                    // Garbling loads no tables: its pieces get none.
                    let job = PartJob {
                        gates: &gates[piece.gates.clone()],
                        at: first,
                        tables: if round.is_empty() { &[] } else { &round[bytes] },
                    };
                    work(job, labels, &mut tables)?;
                }
            }
            pieces = began.elapsed();
        }
        at += unit_ands(unit);
        {
            let mut sent = exchange.sent[parity][p].write().map_err(poisoned)?;
            sent.clear();
            sent.extend(stretch.sends(u, p).iter().map(|&w| labels[w as usize]));
        }
        // The next round's tables as early as the stream allows: after a
        // unit with tables (where the lead's part is lighter, see
        // `Split::lead_weight`) or one the lead ran alone.
        tabled += usize::from(shared_tables);
        if loaded <= Some(u) {
            loaded = next_round(&units[u + 1..]).map(|next| u + 1 + next);
            if let (Some(next), Some(lead)) = (loaded, seat.lead.as_deref_mut()) {
                let mut round = exchange.round[tabled % 2].write().map_err(poisoned)?;
                lead.load_round(unit_table_bytes(&units[next], table_bytes), &mut round)?;
            }
        }
        let arrived = Instant::now();
        barrier.wait(&mut passed).map_err(called_off)?;
        let waited = arrived.elapsed();
        for q in (0..k).filter(|&q| q != p) {
            let sent = exchange.sent[parity][q].read().map_err(poisoned)?;
            for (&w, &l) in stretch.sends(u, q).iter().zip(sent.iter()) {
                labels[w as usize] = l;
            }
        }
        if shared_tables {
            if let Some(lead) = seat.lead.as_deref_mut() {
                let locked = exchange.tables[parity]
                    .iter()
                    .map(|t| t.lock().map_err(poisoned))
                    .collect::<Result<Vec<_>, _>>()?;
                let tables: Vec<&[u8]> = locked.iter().map(|t| t.as_slice()).collect();
                lead.round_done(unit, &tables)?;
            }
        }
        if unit.shape == Shape::Round {
            let busy = began.elapsed().saturating_sub(waited);
            seat.times.rounds += pieces;
            seat.times.other += busy.saturating_sub(pieces);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
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
                            let run =
                                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
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
}
