//! The garbler and evaluator as [`Engine`]s: the pure cores of a
//! [`GarblingScheme`], with garbled tables streamed over the channel in
//! frames so that memory stays bounded whatever the circuit size.
//!
//! Both engines cut the gates into the same steps (the scheme's tables are
//! one byte string per garbling call, see [`twofold_crypto::scheme`]), so
//! the evaluator evaluates exactly the runs the garbler garbled.
//!
//! With more than one thread, an engine splits every AND run of at least
//! [`FGP_MIN_ANDS`] gates (fine-grained parallelism, see [`crate::fgp`]):
//! the batch is run as its [`ExchangePlan`] says, the run in rounds of at
//! most `threads × 8192` gates, each round cut into one contiguous part
//! per thread, each part garbled with the gate ids (and coins) it has in
//! the sequential order, and the parts' tables going out in that order (a
//! frame each when the crew ran them, in the engine's own buffer when this
//! thread did): frames stay small and the evaluator, cutting the run
//! alike, reads them as one stream. Under a scheme whose tables are whole
//! per gate, a planned batch's gaps with many ANDs are shared by owner as
//! well (see [`twofold_circuit::exchange`]), their tables still going out
//! in gate order.
//!
//! [`ExchangePlan`]: twofold_circuit::exchange::ExchangePlan

use twofold_circuit::exchange::{Split, Unit};
use twofold_circuit::walk::Batch;
use twofold_circuit::Engine;
use twofold_crypto::halfgates::{ActiveLabel, ZeroLabel};
use twofold_crypto::{Delta, GarblingScheme, SchemeEvaluator, SchemeGarbler};
use twofold_net::Channel;

use crate::error::ProtocolError;
use crate::fgp::{
    in_gate_order, learnt_split, pieces_at, plan_ahead, split, unit_table_bytes, Lead, PartJob,
    Splitter,
};
use crate::messages::Tables;
use crate::options::Progress;

/// Gates handed to the core at once: bounds the tables held in memory.
const GATES_PER_STEP: usize = 8192;
/// Tables are sent once this many bytes have accumulated (128 KiB).
const FLUSH_BYTES: usize = 128 << 10;
/// AND runs shorter than this are not split between threads. A batch with
/// a split run goes in stretches that each party runs on its threads or
/// in turn on one, whichever its measurements say is faster (see
/// [`crate::fgp`]), so the threshold need not guess the machine: it only
/// keeps the cut's cost (a call and a barrier per part) small against the
/// run. A part is then at least 2,048 gates on two threads, some 15 µs of
/// work against a barrier and an exchange of a few microseconds (random
/// levels of 4,096 ran 1.26x faster on two threads, of 2,048 no faster).
pub const FGP_MIN_ANDS: usize = 1 << 12;

/// How an engine splits wide AND runs between threads (FGP).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fgp {
    /// Threads per AND run (1: no splitting).
    pub threads: usize,
    /// Runs shorter than this stay on one thread.
    pub min_ands: usize,
}

impl Fgp {
    /// No splitting.
    pub const OFF: Fgp = Fgp {
        threads: 1,
        min_ands: usize::MAX,
    };

    /// `threads` threads with the measured threshold [`FGP_MIN_ANDS`].
    pub fn new(threads: usize) -> Fgp {
        Fgp {
            threads: threads.max(1),
            min_ands: FGP_MIN_ANDS,
        }
    }

    /// How batches are cut under scheme `S`: gaps are shared by owner
    /// only where the scheme's tables are whole per gate (the calls of a
    /// planned batch then differ from those of the same batch unplanned).
    fn split<S: GarblingScheme>(self) -> Split {
        split(self.threads, self.min_ands, S::PER_GATE_TABLES)
    }
}

/// Whether batches cut as `split` says have something to split in `batch`:
/// an AND run of at least `min_ands` gates, or (sharing gaps) as many
/// ANDs.
fn splits(split: Split, batch: Batch<'_>) -> bool {
    has_long_run(split, batch) || shares_gaps(split, batch)
}

/// Whether `batch` has an AND run that `split` cuts in rounds.
fn has_long_run(split: Split, batch: Batch<'_>) -> bool {
    split.threads > 1
        && batch.len() >= split.min_ands
        && batch.and_runs().any(|r| r.len() >= split.min_ands)
}

/// Whether `split` may share gaps of `batch` by owner.
fn shares_gaps(split: Split, batch: Batch<'_>) -> bool {
    // (A batch of fewer gates has fewer ANDs: no need to count them.)
    split.threads > 1
        && split.share_gaps
        && batch.len() >= split.min_ands
        && batch.and_count() >= split.min_ands
}

/// Whether an engine hands `batch` (over `num_wires` labels) to its
/// splitter: it has a run to split, or gaps to share and a plan that
/// shares some ANDs — asked for here, so made once the batch has come a
/// few times (see [`Batch::exchange_plan`]). Unplanned, gaps run in
/// the engine's steps (and report progress step by step), as they would
/// on the splitter's part 0.
#[inline]
fn goes_to_splitter(split: Split, batch: Batch<'_>, num_wires: usize) -> bool {
    // Most batches of a loop body are short: neither a long AND run nor
    // enough ANDs to share in fewer gates than that (checked first, as
    // this runs for every batch).
    if split.threads < 2 || batch.len() < split.min_ands {
        return false;
    }
    has_long_run(split, batch)
        || (shares_gaps(split, batch)
            && batch
                .exchange_plan(num_wires as twofold_circuit::Wire, split, false)
                .is_some_and(|plan| plan.split_ands() > 0))
}

/// Makes the exchange plans of the main frame's batches that `fgp`
/// splits under scheme `S`, ahead of walks of `walk` by engines of type
/// `E` (they are kept with the walk plan; otherwise an engine makes one
/// when a batch comes again, and runs the batch in turn until then), cut
/// as the last such engine left its cut.
pub fn plan_exchanges<S: GarblingScheme, E>(walk: &twofold_circuit::walk::Plan<'_>, fgp: Fgp) {
    let num_wires = walk.frame.circuit.num_wires;
    let split = learnt_split(std::any::type_name::<E>(), fgp.split::<S>());
    walk.for_each_batch(|batch| {
        if splits(split, batch) {
            plan_ahead(batch, num_wires, split);
        }
    });
}

/// `batch` in steps of at most [`GATES_PER_STEP`] gates.
fn gate_steps(
    batch: Batch<'_>,
    mut f: impl FnMut(Batch<'_>) -> Result<(), ProtocolError>,
) -> Result<(), ProtocolError> {
    if batch.len() <= GATES_PER_STEP {
        return if batch.is_empty() { Ok(()) } else { f(batch) };
    }
    (0..batch.len()).step_by(GATES_PER_STEP).try_for_each(|s| {
        let end = batch.len().min(s + GATES_PER_STEP);
        f(batch.slice(s..end))
    })
}

/// The AND gates an engine has done, reported to its progress callback as
/// they are done.
struct Tally {
    ands: u64,
    progress: Option<Progress>,
}

impl Tally {
    /// Counts `ands` AND gates done.
    fn add(&mut self, ands: u64) {
        self.ands += ands;
        if let Some(p) = &self.progress {
            p(ands);
        }
    }
}

/// Where garbled tables go: to the peer, or nowhere (garbling-only runs).
pub trait TableSink {
    /// Takes a frame of tables (whole garbling calls, in order).
    fn send_tables(&mut self, tables: &[u8]) -> Result<(), ProtocolError>;
    /// Pushes out anything buffered.
    fn flush(&mut self) -> Result<(), ProtocolError>;
}

impl TableSink for Channel {
    fn send_tables(&mut self, tables: &[u8]) -> Result<(), ProtocolError> {
        Tables::send(self, tables)
    }
    fn flush(&mut self) -> Result<(), ProtocolError> {
        Ok(Channel::flush(self)?)
    }
}

/// Drops the tables, counting the bytes (garbling-only measurements).
#[derive(Debug, Default)]
pub struct Discard {
    /// Bytes of tables dropped.
    pub bytes: u64,
}

impl TableSink for Discard {
    fn send_tables(&mut self, tables: &[u8]) -> Result<(), ProtocolError> {
        self.bytes += tables.len() as u64;
        Ok(())
    }
    fn flush(&mut self) -> Result<(), ProtocolError> {
        Ok(())
    }
}

/// Where garbled tables come from: the peer, or tables recorded earlier
/// (evaluation-only runs).
pub trait TableSource {
    /// Appends the next frame of tables to `tables` (`scratch` is a buffer
    /// the source may use for the frame).
    fn recv_tables(
        &mut self,
        scratch: &mut Vec<u8>,
        tables: &mut Vec<u8>,
    ) -> Result<(), ProtocolError>;
}

impl TableSource for Channel {
    fn recv_tables(
        &mut self,
        scratch: &mut Vec<u8>,
        tables: &mut Vec<u8>,
    ) -> Result<(), ProtocolError> {
        Tables::recv_into(self, scratch, tables)
    }
}

/// Tables recorded frame by frame (garbling-only runs with a recording
/// sink), replayed in order to an evaluator: copied into its buffer as
/// frames from the peer are, and freed when the recording is dropped.
#[derive(Debug, Default)]
pub struct Recording {
    frames: Vec<Vec<u8>>,
    next: usize,
}

impl Recording {
    /// The frames recorded and not yet replayed.
    pub fn frames(&self) -> impl Iterator<Item = &[u8]> {
        self.frames[self.next..].iter().map(Vec::as_slice)
    }

    /// Bytes of tables recorded and not yet replayed.
    pub fn bytes(&self) -> u64 {
        self.frames().map(|f| f.len() as u64).sum()
    }
}

impl TableSink for Recording {
    fn send_tables(&mut self, tables: &[u8]) -> Result<(), ProtocolError> {
        self.frames.push(tables.to_vec());
        Ok(())
    }
    fn flush(&mut self) -> Result<(), ProtocolError> {
        Ok(())
    }
}

impl TableSource for Recording {
    fn recv_tables(&mut self, _: &mut Vec<u8>, tables: &mut Vec<u8>) -> Result<(), ProtocolError> {
        let frame = self.frames.get_mut(self.next).ok_or_else(|| {
            ProtocolError::Malformed("the recorded garbled tables ran out".into())
        })?;
        self.next += 1;
        // Swapped in only while the buffer is small: growing a swapped-in
        // frame for the next one would reallocate (and fault pages) every
        // round; a buffer that has grown stays and frames are copied in.
        if tables.is_empty() && tables.capacity() < frame.len() {
            std::mem::swap(tables, frame);
        } else {
            tables.extend_from_slice(frame);
        }
        Ok(())
    }
}

/// The garbling side under scheme `S`: garbles batches and streams the
/// tables to the peer (or another [`TableSink`]).
pub struct GarblingEngine<'c, S: GarblingScheme, K: TableSink = Channel> {
    garbler: S::Garbler,
    out: Outbox<'c, K>,
    split: Splitter<ZeroLabel>,
    done: Tally,
}

/// Where garbled tables gather before they go out.
struct Outbox<'c, K> {
    chan: &'c mut K,
    tables: Vec<u8>,
}

impl<K: TableSink> Outbox<'_, K> {
    /// Sends the tables gathered.
    fn send(&mut self) -> Result<(), ProtocolError> {
        if !self.tables.is_empty() {
            self.chan.send_tables(&self.tables)?;
            self.tables.clear();
        }
        Ok(())
    }

    /// Sends the tables gathered once they are [`FLUSH_BYTES`] or more.
    fn flush_full(&mut self) -> Result<(), ProtocolError> {
        if self.tables.len() >= FLUSH_BYTES {
            self.send()?;
        }
        Ok(())
    }
}

/// Garbles `batch` with `garbler` on this thread, in steps.
fn garble_steps<G: SchemeGarbler, K: TableSink>(
    garbler: &mut G,
    batch: Batch<'_>,
    labels: &mut [ZeroLabel],
    out: &mut Outbox<'_, K>,
) -> Result<(), ProtocolError> {
    gate_steps(batch, |step| {
        garbler.garble(&step, labels, &mut out.tables)?;
        out.flush_full()
    })
}

/// The garbler's lead in a split stretch (see [`Lead`]).
struct GarbleLead<'a, 'c, G, K> {
    garbler: &'a G,
    out: &'a mut Outbox<'c, K>,
    table_bytes: fn(usize) -> usize,
}

impl<G: SchemeGarbler, K: TableSink + Send> Lead<ZeroLabel> for GarbleLead<'_, '_, G, K> {
    fn load_round(&mut self, _: usize, _: &mut Vec<u8>) -> Result<(), ProtocolError> {
        Ok(())
    }

    fn run_alone(
        &mut self,
        gates: Batch<'_>,
        at: u64,
        labels: &mut [ZeroLabel],
    ) -> Result<(), ProtocolError> {
        garble_steps(&mut self.garbler.at_gate(at), gates, labels, self.out)
    }

    fn round_done(&mut self, unit: &Unit, tables: &[&[u8]]) -> Result<(), ProtocolError> {
        // What the steps before left goes first.
        self.out.send()?;
        for t in in_gate_order(unit, tables, self.table_bytes).filter(|t| !t.is_empty()) {
            self.out.chan.send_tables(t)?;
        }
        Ok(())
    }

    fn round_in_turn(
        &mut self,
        unit: &Unit,
        batch: Batch<'_>,
        at: u64,
        labels: &mut [ZeroLabel],
    ) -> Result<(), ProtocolError> {
        for (piece, first, _) in pieces_at(unit, at, self.table_bytes) {
            let mut garbler = self.garbler.at_gate(first);
            garbler.garble(&batch[piece.gates.clone()], labels, &mut self.out.tables)?;
            self.out.flush_full()?;
        }
        Ok(())
    }
}

impl<'c, S: GarblingScheme, K: TableSink> GarblingEngine<'c, S, K> {
    /// An engine with offset `delta` sending tables to `chan`, its first AND
    /// gate numbered `first_gate`, splitting wide AND runs as `fgp` says
    /// (fails if the scheme's coins cannot be drawn).
    pub fn new(
        delta: Delta,
        first_gate: u64,
        chan: &'c mut K,
        fgp: Fgp,
        progress: Option<Progress>,
    ) -> Result<Self, ProtocolError> {
        Ok(GarblingEngine {
            garbler: S::Garbler::new(delta, first_gate)?,
            out: Outbox {
                chan,
                tables: Vec::with_capacity(FLUSH_BYTES + S::table_bytes(GATES_PER_STEP)),
            },
            split: Splitter::new(
                std::any::type_name::<Self>(),
                fgp.split::<S>(),
                S::table_bytes,
            ),
            done: Tally { ands: 0, progress },
        })
    }

    /// Sends the tables still buffered; returns the AND gates garbled (and
    /// skipped, see [`Engine::skip_ands`]).
    pub fn finish(mut self) -> Result<u64, ProtocolError> {
        self.out.send()?;
        self.out.chan.flush()?;
        Ok(self.done.ands)
    }
}

impl<S: GarblingScheme, K: TableSink + Send> Engine for GarblingEngine<'_, S, K> {
    type Label = ZeroLabel;
    type Error = ProtocolError;

    fn run_gates(
        &mut self,
        batch: Batch<'_>,
        labels: &mut [ZeroLabel],
    ) -> Result<(), ProtocolError> {
        if !goes_to_splitter(self.split.cut(), batch, labels.len()) {
            return gate_steps(batch, |step| {
                let before = self.garbler.next_gate_id();
                self.garbler.garble(&step, labels, &mut self.out.tables)?;
                self.out.flush_full()?;
                self.done.add(self.garbler.next_gate_id() - before);
                Ok(())
            });
        }
        let garbler = &self.garbler;
        let mut lead = GarbleLead {
            garbler,
            out: &mut self.out,
            table_bytes: S::table_bytes,
        };
        let next = self.split.run_batch(
            batch,
            garbler.next_gate_id(),
            labels,
            &mut lead,
            &|job: PartJob<'_>, labels, tables| {
                Ok(garbler.at_gate(job.at).garble(job.gates, labels, tables)?)
            },
            &mut |ands| self.done.add(ands),
        )?;
        self.garbler = self.garbler.at_gate(next);
        Ok(())
    }

    fn skip_ands(&mut self, n: u64) {
        self.garbler = self.garbler.at_gate(self.garbler.next_gate_id() + n);
        self.done.ands += n;
    }
}

impl<S: GarblingScheme, K: TableSink> GarblingEngine<'_, S, K> {
    /// The id of the next AND gate this engine garbles.
    pub fn next_gate(&self) -> u64 {
        self.garbler.next_gate_id()
    }
}

/// The evaluating side under scheme `S`: receives tables as needed and
/// evaluates batches.
pub struct EvaluatingEngine<'c, S: GarblingScheme, R: TableSource = Channel> {
    evaluator: S::Evaluator,
    inbox: Inbox<'c, R>,
    split: Splitter<ActiveLabel>,
    done: Tally,
}

/// The tables received and not yet used.
struct Inbox<'c, R> {
    chan: &'c mut R,
    tables: Vec<u8>,
    used: usize,
    frame: Vec<u8>,
}

impl<R: TableSource> Inbox<'_, R> {
    /// The next `bytes` bytes of tables, received as needed.
    fn take(&mut self, bytes: usize) -> Result<&[u8], ProtocolError> {
        if self.tables.len() - self.used < bytes {
            self.tables.drain(..self.used);
            self.used = 0;
            self.tables.reserve(bytes.saturating_sub(self.tables.len()));
            while self.tables.len() < bytes {
                self.chan.recv_tables(&mut self.frame, &mut self.tables)?;
            }
        }
        let taken = &self.tables[self.used..self.used + bytes];
        self.used += bytes;
        Ok(taken)
    }

    /// The next `bytes` bytes of tables into `into` (replacing what it
    /// held): frames received straight into it, so a round's tables are
    /// copied once, as when they are used where they are received.
    fn take_into(&mut self, bytes: usize, into: &mut Vec<u8>) -> Result<(), ProtocolError> {
        into.clear();
        let held = (self.tables.len() - self.used).min(bytes);
        into.extend_from_slice(&self.tables[self.used..self.used + held]);
        self.used += held;
        while into.len() < bytes {
            self.chan.recv_tables(&mut self.frame, into)?;
        }
        if into.len() > bytes {
            // A frame ran past the round: the rest waits here (nothing
            // else does, the round took all that was held).
            self.tables.clear();
            self.used = 0;
            self.tables.extend_from_slice(&into[bytes..]);
            into.truncate(bytes);
        }
        Ok(())
    }
}

/// Evaluates `batch` with `evaluator` (of scheme `S`) on this thread, in
/// steps.
fn evaluate_steps<S: GarblingScheme, R: TableSource>(
    evaluator: &mut S::Evaluator,
    batch: Batch<'_>,
    labels: &mut [ActiveLabel],
    inbox: &mut Inbox<'_, R>,
) -> Result<(), ProtocolError> {
    gate_steps(batch, |step| {
        let tables = inbox.take(S::table_bytes(step.and_count()))?;
        Ok(evaluator.evaluate(&step, labels, tables)?)
    })
}

/// The evaluator's lead in a split stretch (see [`Lead`]).
struct EvaluateLead<'a, 'c, S, R> {
    inbox: &'a mut Inbox<'c, R>,
    scheme: std::marker::PhantomData<S>,
}

impl<S: GarblingScheme, R: TableSource + Send> Lead<ActiveLabel> for EvaluateLead<'_, '_, S, R> {
    fn load_round(&mut self, bytes: usize, into: &mut Vec<u8>) -> Result<(), ProtocolError> {
        self.inbox.take_into(bytes, into)
    }

    fn run_alone(
        &mut self,
        gates: Batch<'_>,
        at: u64,
        labels: &mut [ActiveLabel],
    ) -> Result<(), ProtocolError> {
        evaluate_steps::<S, R>(&mut S::Evaluator::new(at), gates, labels, self.inbox)
    }

    fn round_done(&mut self, _: &Unit, _: &[&[u8]]) -> Result<(), ProtocolError> {
        Ok(())
    }

    fn round_in_turn(
        &mut self,
        unit: &Unit,
        batch: Batch<'_>,
        at: u64,
        labels: &mut [ActiveLabel],
    ) -> Result<(), ProtocolError> {
        let tables = self.inbox.take(unit_table_bytes(unit, S::table_bytes))?;
        for (piece, first, mine) in pieces_at(unit, at, S::table_bytes) {
            S::Evaluator::new(first).evaluate(
                &batch[piece.gates.clone()],
                labels,
                &tables[mine],
            )?;
        }
        Ok(())
    }
}

impl<'c, S: GarblingScheme, R: TableSource> EvaluatingEngine<'c, S, R> {
    /// An engine receiving tables from `chan`, its first AND gate numbered
    /// `first_gate`, splitting wide AND runs as `fgp` says.
    pub fn new(first_gate: u64, chan: &'c mut R, fgp: Fgp, progress: Option<Progress>) -> Self {
        EvaluatingEngine {
            evaluator: S::Evaluator::new(first_gate),
            inbox: Inbox {
                chan,
                tables: Vec::new(),
                used: 0,
                frame: Vec::new(),
            },
            split: Splitter::new(
                std::any::type_name::<Self>(),
                fgp.split::<S>(),
                S::table_bytes,
            ),
            done: Tally { ands: 0, progress },
        }
    }

    /// Checks that every table sent was used; returns the AND gates evaluated
    /// (and skipped, see [`Engine::skip_ands`]).
    pub fn finish(self) -> Result<u64, ProtocolError> {
        let unused = self.inbox.tables.len() - self.inbox.used;
        if unused != 0 {
            return Err(ProtocolError::Malformed(format!(
                "{unused} garbled-table bytes more than the program needs"
            )));
        }
        Ok(self.done.ands)
    }
}

impl<S: GarblingScheme, R: TableSource + Send> Engine for EvaluatingEngine<'_, S, R> {
    type Label = ActiveLabel;
    type Error = ProtocolError;

    fn run_gates(
        &mut self,
        batch: Batch<'_>,
        labels: &mut [ActiveLabel],
    ) -> Result<(), ProtocolError> {
        if !goes_to_splitter(self.split.cut(), batch, labels.len()) {
            return gate_steps(batch, |step| {
                let ands = step.and_count();
                let tables = self.inbox.take(S::table_bytes(ands))?;
                self.evaluator.evaluate(&step, labels, tables)?;
                self.done.add(ands as u64);
                Ok(())
            });
        }
        let mut lead = EvaluateLead::<S, R> {
            inbox: &mut self.inbox,
            scheme: std::marker::PhantomData,
        };
        let next = self.split.run_batch(
            batch,
            self.evaluator.next_gate_id(),
            labels,
            &mut lead,
            &|job: PartJob<'_>, labels, _| {
                Ok(S::Evaluator::new(job.at).evaluate(job.gates, labels, job.tables)?)
            },
            &mut |ands| self.done.add(ands),
        )?;
        self.evaluator = S::Evaluator::new(next);
        Ok(())
    }

    fn skip_ands(&mut self, n: u64) {
        self.evaluator = S::Evaluator::new(self.evaluator.next_gate_id() + n);
        self.done.ands += n;
    }
}

impl<S: GarblingScheme, R: TableSource> EvaluatingEngine<'_, S, R> {
    /// The id of the next AND gate this engine evaluates.
    pub fn next_gate(&self) -> u64 {
        self.evaluator.next_gate_id()
    }
}
