//! The garbler and evaluator as [`Engine`]s: the pure cores of a
//! [`GarblingScheme`], with garbled tables streamed over the channel in
//! frames so that memory stays bounded whatever the circuit size.
//!
//! Both engines cut the gates into the same steps (the scheme's tables are
//! one byte string per garbling call, see [`twofold_crypto::scheme`]), so
//! the evaluator evaluates exactly the runs the garbler garbled.
//!
//! With more than one thread, an engine garbles (evaluates) every AND run of
//! at least [`FGP_MIN_ANDS`] gates in parallel (fine-grained parallelism):
//! the run goes in rounds of at most `threads × 32768` gates, each round is
//! cut into one contiguous part per thread, each part is garbled with the
//! gate ids (and coins) it has in the sequential order, and each part's
//! tables go out as one frame, in that order: frames stay small and the
//! evaluator, cutting the run alike, reads them as one stream.

use twofold_circuit::{Engine, Gate};
use twofold_crypto::halfgates::{ActiveLabel, ZeroLabel};
use twofold_crypto::{Crew, CryptoError, Delta, GarblingScheme, SchemeEvaluator, SchemeGarbler};
use twofold_net::Channel;

use crate::error::ProtocolError;
use crate::messages::Tables;
use crate::options::Progress;

/// Gates handed to the core at once: bounds the tables held in memory.
const GATES_PER_STEP: usize = 8192;
/// Tables are sent once this many bytes have accumulated (128 KiB).
const FLUSH_BYTES: usize = 128 << 10;
/// AND runs shorter than this are not split between threads. Measured with
/// `twofold bench --artificial --max-width 262144` on the 2-vCPU development
/// machine, splitting lost at every width (0.35-0.5x: its two vCPUs share
/// one core's AES units), so the threshold sits above the levels real
/// programs have; on a machine with real cores the same command finds it.
pub const FGP_MIN_ANDS: usize = 1 << 20;

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

/// Splits `gates` into steps: an AND run that `fgp` splits is one step
/// (`f(run, true)`); the gates between such runs go in steps of at most
/// [`GATES_PER_STEP`] gates (`f(step, false)`).
fn for_each_step(
    gates: &[Gate],
    fgp: Fgp,
    mut f: impl FnMut(&[Gate], bool) -> Result<(), ProtocolError>,
) -> Result<(), ProtocolError> {
    let (mut start, mut i) = (0, 0);
    // A step too short to hold a run FGP splits is not scanned for runs
    // (the scan costs as much as the free gates).
    if !fgp.splits(gates.len()) {
        i = gates.len();
    }
    while i < gates.len() {
        if gates[i].is_and() {
            let run = gates[i..].iter().take_while(|g| g.is_and()).count();
            if fgp.splits(run) {
                for step in gates[start..i].chunks(GATES_PER_STEP) {
                    f(step, false)?;
                }
                f(&gates[i..i + run], true)?;
                start = i + run;
            }
            i += run;
        } else {
            i += 1;
        }
    }
    for step in gates[start..].chunks(GATES_PER_STEP) {
        f(step, false)?;
    }
    Ok(())
}

/// Gates of a split AND run one thread garbles (evaluates) before the
/// tables are sent: a split run goes in rounds of `threads × PART_GATES`
/// gates, each thread's part of a round is sent as one frame of at most
/// 1 MiB of half-gates tables, so frames and memory stay bounded however
/// wide the level.
const PART_GATES: usize = 1 << 15;

/// Reusable buffers of one thread's part of a parallel AND run: its gates
/// renamed over a local label array (two inputs per gate, then the outputs),
/// so that parts share no memory they write, its tables, and how its last
/// work ended.
struct Part<L> {
    gates: Vec<Gate>,
    labels: Vec<L>,
    tables: Vec<u8>,
    failed: Option<CryptoError>,
}

impl<L> Default for Part<L> {
    fn default() -> Self {
        Part {
            gates: Vec::new(),
            labels: Vec::new(),
            tables: Vec::new(),
            failed: None,
        }
    }
}

impl<L: Copy + Default> Part<L> {
    /// Loads `run` (AND gates only), gathering its inputs from `labels`.
    fn load(&mut self, run: &[Gate], labels: &[L]) {
        let n = run.len() as u32;
        self.gates.clear();
        self.labels.clear();
        self.tables.clear();
        for (i, g) in (0u32..).zip(run) {
            if let Gate::And { a, b, .. } = *g {
                self.labels.push(labels[a as usize]);
                self.labels.push(labels[b as usize]);
                self.gates.push(Gate::And {
                    a: 2 * i,
                    b: 2 * i + 1,
                    out: 2 * n + i,
                });
            }
        }
        self.labels.resize(3 * run.len(), L::default());
    }

    /// The output labels, in gate order.
    fn outputs(&self) -> &[L] {
        &self.labels[2 * self.gates.len()..]
    }
}

/// The gates `start..end` of part `p` of `k` of a run of `n` gates.
fn part_bounds(n: usize, k: usize, p: usize) -> (usize, usize) {
    (n * p / k, n * (p + 1) / k)
}

/// The rounds of a split run of `n` gates on `k` threads: consecutive
/// ranges of at most `k × PART_GATES` gates.
fn rounds(n: usize, k: usize) -> impl Iterator<Item = std::ops::Range<usize>> {
    let step = k * PART_GATES;
    (0..n).step_by(step).map(move |s| s..n.min(s + step))
}

/// Runs `work(part, index)` on every part at once, part `i` on thread `i`
/// of `crew` (the caller takes part 0).
fn on_parts<L: Send>(
    crew: &mut Crew,
    parts: &mut [Part<L>],
    work: impl Fn(&mut Part<L>, usize) -> Result<(), CryptoError> + Sync,
) -> Result<(), CryptoError> {
    crew.for_each_mut(parts, |part, p| part.failed = work(part, p).err());
    match parts.iter_mut().find_map(|p| p.failed.take()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Splits `run` into one part per buffer in `parts`, loads each and runs
/// `work(part, index of the part, first gate index of the part)` on the
/// crew's threads; then writes the parts' outputs to their wires.
fn split_run<L: Copy + Default + Send + Sync>(
    crew: &mut Crew,
    parts: &mut [Part<L>],
    run: &[Gate],
    labels: &mut [L],
    work: impl Fn(&mut Part<L>, usize, usize) -> Result<(), CryptoError> + Sync,
) -> Result<(), CryptoError> {
    let k = parts.len();
    let bounds = |p: usize| part_bounds(run.len(), k, p);
    let shared: &[L] = labels;
    on_parts(crew, parts, |part, p| {
        let (start, end) = bounds(p);
        part.load(&run[start..end], shared);
        work(part, p, start)
    })?;
    for (p, part) in parts.iter().enumerate() {
        let (start, end) = bounds(p);
        for (g, l) in run[start..end].iter().zip(part.outputs()) {
            labels[g.out() as usize] = *l;
        }
    }
    Ok(())
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
/// sink), replayed in order to an evaluator. Replaying swaps each frame
/// into the evaluator's empty buffer rather than copying it, and frees
/// nothing until the recording is dropped.
#[derive(Debug, Default)]
pub struct Recording {
    frames: Vec<Vec<u8>>,
    next: usize,
}

impl Recording {
    /// Bytes of tables recorded and not yet replayed.
    pub fn bytes(&self) -> u64 {
        self.frames[self.next..]
            .iter()
            .map(|f| f.len() as u64)
            .sum()
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
        if tables.is_empty() {
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
    parts: Vec<Part<ZeroLabel>>,
    /// The threads that split runs, started at the first split run.
    crew: Option<Crew>,
    ands: u64,
    progress: Option<Progress>,
}

impl<'c, S: GarblingScheme, K: TableSink> GarblingEngine<'c, S, K> {
    /// An engine with offset `delta` sending tables to `chan`, its first AND
    /// gate numbered `first_gate`, splitting wide AND runs as `fgp` says.
    pub fn new(
        delta: Delta,
        first_gate: u64,
        chan: &'c mut K,
        fgp: Fgp,
        progress: Option<Progress>,
    ) -> Self {
        GarblingEngine {
            garbler: S::Garbler::new(delta, first_gate),
            chan,
            tables: Vec::with_capacity(FLUSH_BYTES + S::table_bytes(GATES_PER_STEP)),
            fgp,
            parts: (0..fgp.threads).map(|_| Part::default()).collect(),
            crew: None,
            ands: 0,
            progress,
        }
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

    /// Garbles an AND run on all threads, round by round; each part's
    /// tables of a round go out as one frame, in gate order.
    fn garble_parallel(
        &mut self,
        run: &[Gate],
        labels: &mut [ZeroLabel],
    ) -> Result<(), ProtocolError> {
        let first = self.garbler.next_gate_id();
        // What the sequential steps before left goes first.
        self.send_tables()?;
        for round in rounds(run.len(), self.parts.len()) {
            let at = first + round.start as u64;
            let garbler = &self.garbler;
            let crew = self.crew.get_or_insert_with(|| Crew::new(self.parts.len()));
            split_run(
                crew,
                &mut self.parts,
                &run[round],
                labels,
                |part, _, start| {
                    garbler.at_gate(at + start as u64).garble(
                        &part.gates,
                        &mut part.labels,
                        &mut part.tables,
                    )
                },
            )?;
            for part in &self.parts {
                if !part.tables.is_empty() {
                    self.chan.send_tables(&part.tables)?;
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

    fn run_gates(&mut self, gates: &[Gate], labels: &mut [ZeroLabel]) -> Result<(), ProtocolError> {
        let fgp = self.fgp;
        for_each_step(gates, fgp, |step, parallel| {
            let before = self.garbler.next_gate_id();
            if parallel {
                self.garble_parallel(step, labels)?;
            } else {
                self.garbler.garble(step, labels, &mut self.tables)?;
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
    parts: Vec<Part<ActiveLabel>>,
    /// The threads that split runs, started at the first split run.
    crew: Option<Crew>,
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
            parts: (0..fgp.threads).map(|_| Part::default()).collect(),
            crew: None,
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
        while self.tables.len() < bytes {
            self.chan.recv_tables(&mut self.frame, &mut self.tables)?;
        }
        Ok(())
    }

    /// Evaluates an AND run on all threads, round by round as the garbler
    /// garbled it, from the tables of each round (the parts' tables one
    /// after another, as the garbler sent them).
    fn evaluate_parallel(
        &mut self,
        run: &[Gate],
        labels: &mut [ActiveLabel],
    ) -> Result<(), ProtocolError> {
        let first = self.evaluator.next_gate_id();
        let k = self.parts.len();
        for round in rounds(run.len(), k) {
            let at = first + round.start as u64;
            let run = &run[round];
            // Where each part's tables start (from the unused ones), and
            // where the last one ends.
            let mut offsets = vec![0];
            for p in 0..k {
                let (start, end) = part_bounds(run.len(), k, p);
                offsets.push(offsets[p] + S::table_bytes(end - start));
            }
            self.fill(offsets[k])?;
            let tables = &self.tables[self.used..];
            let crew = self.crew.get_or_insert_with(|| Crew::new(k));
            split_run(crew, &mut self.parts, run, labels, |part, p, start| {
                S::Evaluator::new(at + start as u64).evaluate(
                    &part.gates,
                    &mut part.labels,
                    &tables[offsets[p]..offsets[p + 1]],
                )
            })?;
            self.used += offsets[k];
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
        gates: &[Gate],
        labels: &mut [ActiveLabel],
    ) -> Result<(), ProtocolError> {
        let fgp = self.fgp;
        for_each_step(gates, fgp, |step, parallel| {
            let ands = step.iter().filter(|g| g.is_and()).count();
            if parallel {
                self.evaluate_parallel(step, labels)?;
            } else {
                let bytes = S::table_bytes(ands);
                self.fill(bytes)?;
                let tables = &self.tables[self.used..self.used + bytes];
                self.evaluator.evaluate(step, labels, tables)?;
                self.used += bytes;
            }
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
