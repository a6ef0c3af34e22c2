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

mod chooser;

use chooser::Chooser;

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
mod tests;
