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
//! the run goes in rounds of at most `threads × 32768` gates, each round is
//! cut into one contiguous part per thread, each part is garbled with the
//! gate ids (and coins) it has in the sequential order, and the parts'
//! tables go out in that order (a frame each when the crew ran them, in
//! the engine's own buffer when this thread did): frames stay small and
//! the evaluator, cutting the run alike, reads them as one stream.

use twofold_circuit::batch::AndRun;
use twofold_circuit::walk::Batch;
use twofold_circuit::Engine;
use twofold_crypto::halfgates::{ActiveLabel, ZeroLabel};
use twofold_crypto::{part_range, Delta, GarblingScheme, SchemeEvaluator, SchemeGarbler};
use twofold_net::Channel;

use crate::error::ProtocolError;
use crate::fgp::{rounds, Splitter};
use crate::messages::Tables;
use crate::options::Progress;

/// Gates handed to the core at once: bounds the tables held in memory.
const GATES_PER_STEP: usize = 8192;
/// Tables are sent once this many bytes have accumulated (128 KiB).
const FLUSH_BYTES: usize = 128 << 10;
/// AND runs shorter than this are not split between threads. A split run
/// is cut into rounds whose parts each party runs on its threads or in
/// turn on one, whichever its measurements say is faster (see
/// [`crate::fgp`]), so the threshold need not guess the machine: it only
/// keeps the cut's cost (a call per part) small against the run. A part is
/// then at least 4,096 gates on two threads, some 50 µs of work against a
/// hand-off to a spinning helper of about a microsecond.
pub const FGP_MIN_ANDS: usize = 1 << 13;

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

    /// Whether a run of `ands` AND gates is split.
    fn splits(self, ands: usize) -> bool {
        self.threads > 1 && ands >= self.min_ands
    }
}

/// Splits `batch` into steps: an AND run that `fgp` splits is one step
/// (`f(Step::Split(run))`, its parts may run at once in place); the gates
/// between such runs go in steps of at most [`GATES_PER_STEP`] gates
/// (`f(Step::Gates(step))`).
fn for_each_step(
    batch: Batch<'_>,
    fgp: Fgp,
    mut f: impl FnMut(Step<'_>) -> Result<(), ProtocolError>,
) -> Result<(), ProtocolError> {
    if fgp.threads < 2 || batch.len() < fgp.min_ands {
        // Nothing is split: no need to look at the runs.
        return gate_steps(batch, &mut f);
    }
    let mut start = 0;
    for (run, gates) in batch.and_runs_with_gates() {
        if fgp.splits(run.len()) {
            gate_steps(batch.slice(start..run.start), &mut f)?;
            f(Step::Split(gates))?;
            start = run.end;
        }
    }
    gate_steps(batch.slice(start..batch.len()), &mut f)
}

/// `batch` in steps of at most [`GATES_PER_STEP`] gates, none split.
fn gate_steps(
    batch: Batch<'_>,
    f: &mut impl FnMut(Step<'_>) -> Result<(), ProtocolError>,
) -> Result<(), ProtocolError> {
    if batch.len() <= GATES_PER_STEP {
        return if batch.is_empty() {
            Ok(())
        } else {
            f(Step::Gates(batch))
        };
    }
    (0..batch.len()).step_by(GATES_PER_STEP).try_for_each(|s| {
        let end = batch.len().min(s + GATES_PER_STEP);
        f(Step::Gates(batch.slice(s..end)))
    })
}

/// A step of an engine: gates to run on this thread, or an AND run to
/// split between threads.
enum Step<'a> {
    Gates(Batch<'a>),
    Split(AndRun<'a>),
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
    chan: &'c mut K,
    tables: Vec<u8>,
    fgp: Fgp,
    split: Splitter,
    ands: u64,
    progress: Option<Progress>,
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
            chan,
            tables: Vec::with_capacity(FLUSH_BYTES + S::table_bytes(GATES_PER_STEP)),
            fgp,
            split: Splitter::new("garbling", fgp.threads),
            ands: 0,
            progress,
        })
    }

    /// Sends the tables still buffered; returns the AND gates garbled (and
    /// skipped, see [`Engine::skip_ands`]).
    pub fn finish(mut self) -> Result<u64, ProtocolError> {
        self.send_tables()?;
        self.chan.flush()?;
        Ok(self.ands)
    }

    fn send_tables(&mut self) -> Result<(), ProtocolError> {
        if !self.tables.is_empty() {
            self.chan.send_tables(&self.tables)?;
            self.tables.clear();
        }
        Ok(())
    }

    /// Garbles an AND run split in rounds (see [`crate::fgp`]); each
    /// part's tables of a round go out as one frame, in gate order (a
    /// round the chooser keeps on one thread is garbled as any gates are).
    fn garble_parallel(
        &mut self,
        run: AndRun<'_>,
        labels: &mut [ZeroLabel],
    ) -> Result<(), ProtocolError> {
        let first = self.garbler.next_gate_id();
        // What the sequential steps before left goes first.
        self.send_tables()?;
        for round in rounds(run.len(), self.split.threads()) {
            let at = first + round.start as u64;
            let (garbler, chan, tables) = (&self.garbler, &mut *self.chan, &mut self.tables);
            let parallel = self.split.run_round(
                run.slice(round),
                labels,
                &|split, p, tables, start| {
                    garbler
                        .at_gate(at + start as u64)
                        .garble_part(split, p, tables)
                },
                &mut |_, gates, labels, start| {
                    garbler
                        .at_gate(at + start as u64)
                        .garble(gates, labels, tables)?;
                    if tables.len() >= FLUSH_BYTES {
                        chan.send_tables(tables)?;
                        tables.clear();
                    }
                    Ok(())
                },
            )?;
            if parallel {
                for tables in self.split.tables() {
                    if !tables.is_empty() {
                        self.chan.send_tables(tables)?;
                    }
                }
            }
        }
        self.garbler = self.garbler.at_gate(first + run.len() as u64);
        Ok(())
    }
}

impl<S: GarblingScheme, K: TableSink> Engine for GarblingEngine<'_, S, K> {
    type Label = ZeroLabel;
    type Error = ProtocolError;

    fn run_gates(
        &mut self,
        batch: Batch<'_>,
        labels: &mut [ZeroLabel],
    ) -> Result<(), ProtocolError> {
        let fgp = self.fgp;
        for_each_step(batch, fgp, |step| {
            let before = self.garbler.next_gate_id();
            match step {
                Step::Split(run) => self.garble_parallel(run, labels)?,
                Step::Gates(gates) => self.garbler.garble(&gates, labels, &mut self.tables)?,
            }
            let done = self.garbler.next_gate_id() - before;
            self.ands += done;
            if self.tables.len() >= FLUSH_BYTES {
                self.send_tables()?;
            }
            if let Some(p) = &self.progress {
                p(done);
            }
            Ok(())
        })
    }

    fn skip_ands(&mut self, n: u64) {
        self.garbler = self.garbler.at_gate(self.garbler.next_gate_id() + n);
        self.ands += n;
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
    chan: &'c mut R,
    tables: Vec<u8>,
    used: usize,
    frame: Vec<u8>,
    fgp: Fgp,
    split: Splitter,
    ands: u64,
    progress: Option<Progress>,
}

impl<'c, S: GarblingScheme, R: TableSource> EvaluatingEngine<'c, S, R> {
    /// An engine receiving tables from `chan`, its first AND gate numbered
    /// `first_gate`, splitting wide AND runs as `fgp` says.
    pub fn new(first_gate: u64, chan: &'c mut R, fgp: Fgp, progress: Option<Progress>) -> Self {
        EvaluatingEngine {
            evaluator: S::Evaluator::new(first_gate),
            chan,
            tables: Vec::new(),
            used: 0,
            frame: Vec::new(),
            fgp,
            split: Splitter::new("evaluating", fgp.threads),
            ands: 0,
            progress,
        }
    }

    /// Checks that every table sent was used; returns the AND gates evaluated
    /// (and skipped, see [`Engine::skip_ands`]).
    pub fn finish(self) -> Result<u64, ProtocolError> {
        if self.used != self.tables.len() {
            return Err(ProtocolError::Malformed(format!(
                "{} garbled-table bytes more than the program needs",
                self.tables.len() - self.used
            )));
        }
        Ok(self.ands)
    }

    /// Receives frames until `bytes` unused table bytes are buffered.
    fn fill(&mut self, bytes: usize) -> Result<(), ProtocolError> {
        if self.tables.len() - self.used >= bytes {
            return Ok(());
        }
        self.tables.drain(..self.used);
        self.used = 0;
        self.tables.reserve(bytes.saturating_sub(self.tables.len()));
        while self.tables.len() < bytes {
            self.chan.recv_tables(&mut self.frame, &mut self.tables)?;
        }
        Ok(())
    }

    /// Evaluates an AND run split in rounds as the garbler split it, from
    /// the tables of each round (the parts' tables one after another, as
    /// the garbler sent them).
    fn evaluate_parallel(
        &mut self,
        run: AndRun<'_>,
        labels: &mut [ActiveLabel],
    ) -> Result<(), ProtocolError> {
        let first = self.evaluator.next_gate_id();
        let k = self.split.threads();
        for round in rounds(run.len(), k) {
            let at = first + round.start as u64;
            let run = run.slice(round);
            let part_bytes = |p: usize| S::table_bytes(part_range(run.len(), k, p).len());
            let total: usize = (0..k).map(part_bytes).sum();
            self.fill(total)?;
            let tables = &self.tables[self.used..self.used + total];
            // Part `p`'s tables, after those of the parts before it.
            let part_tables = |p: usize| {
                let start: usize = (0..p).map(part_bytes).sum();
                &tables[start..start + part_bytes(p)]
            };
            self.split.run_round(
                run,
                labels,
                &|split, p, _, start| {
                    S::Evaluator::new(at + start as u64).evaluate_part(split, p, part_tables(p))
                },
                &mut |p, gates, labels, start| {
                    let mut evaluator = S::Evaluator::new(at + start as u64);
                    Ok(evaluator.evaluate(gates, labels, part_tables(p))?)
                },
            )?;
            self.used += total;
        }
        self.evaluator = S::Evaluator::new(first + run.len() as u64);
        Ok(())
    }
}

impl<S: GarblingScheme, R: TableSource> Engine for EvaluatingEngine<'_, S, R> {
    type Label = ActiveLabel;
    type Error = ProtocolError;

    fn run_gates(
        &mut self,
        batch: Batch<'_>,
        labels: &mut [ActiveLabel],
    ) -> Result<(), ProtocolError> {
        let fgp = self.fgp;
        for_each_step(batch, fgp, |step| {
            let ands = match step {
                Step::Split(run) => {
                    self.evaluate_parallel(run, labels)?;
                    run.len()
                }
                Step::Gates(gates) => {
                    let ands = gates.and_count();
                    let bytes = S::table_bytes(ands);
                    self.fill(bytes)?;
                    let tables = &self.tables[self.used..self.used + bytes];
                    self.evaluator.evaluate(&gates, labels, tables)?;
                    self.used += bytes;
                    ands
                }
            };
            self.ands += ands as u64;
            if let Some(p) = &self.progress {
                p(ands as u64);
            }
            Ok(())
        })
    }

    fn skip_ands(&mut self, n: u64) {
        self.evaluator = S::Evaluator::new(self.evaluator.next_gate_id() + n);
        self.ands += n;
    }
}

impl<S: GarblingScheme, R: TableSource> EvaluatingEngine<'_, S, R> {
    /// The id of the next AND gate this engine evaluates.
    pub fn next_gate(&self) -> u64 {
        self.evaluator.next_gate_id()
    }
}
