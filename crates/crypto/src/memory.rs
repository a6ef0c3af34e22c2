//! Garbling then evaluation in memory, without a peer: a garbler
//! [`Engine`] that keeps its garbled tables (or drops them, to time garbling
//! alone) and an evaluator [`Engine`] that consumes them from a slice, for
//! any [`GarblingScheme`].
//!
//! For tests and for measuring the cores ([`crate::speed`]); a session
//! streams the tables to its peer instead (the engines of
//! `twofold-protocol`).

use twofold_circuit::walk::Batch;
use twofold_circuit::Engine;

use crate::delta::Delta;
use crate::error::CryptoError;
use crate::label::{ActiveLabel, ZeroLabel};
use crate::scheme::{GarblingScheme, SchemeEvaluator, SchemeGarbler};

/// Gates garbled at once when the tables are dropped: their tables stay in
/// cache, as they do when a session streams them.
const DROP_STEP: usize = 8192;

/// Garbles into memory under scheme `S`, keeping every table (to evaluate
/// afterwards, see [`MemoryGarbler::evaluator`]) or dropping them as they
/// come.
#[derive(Debug)]
pub struct MemoryGarbler<S: GarblingScheme> {
    garbler: S::Garbler,
    first_gate: u64,
    tables: Vec<u8>,
    keep: bool,
}

impl<S: GarblingScheme> MemoryGarbler<S> {
    /// A garbler with offset `delta` whose first AND gate gets id
    /// `first_gate`, keeping every table (fails as
    /// [`SchemeGarbler::new`] does).
    pub fn new(delta: Delta, first_gate: u64) -> Result<Self, CryptoError> {
        Ok(MemoryGarbler {
            garbler: S::Garbler::new(delta, first_gate)?,
            first_gate,
            tables: Vec::new(),
            keep: true,
        })
    }

    /// As [`MemoryGarbler::new`], but dropping the tables as they come
    /// (garbling speed alone).
    pub fn dropping_tables(delta: Delta, first_gate: u64) -> Result<Self, CryptoError> {
        Ok(MemoryGarbler {
            keep: false,
            ..MemoryGarbler::new(delta, first_gate)?
        })
    }

    /// The garbling core (its Δ, next gate id, backend, input encoding).
    pub fn garbler(&self) -> &S::Garbler {
        &self.garbler
    }

    /// The tables kept so far, in execution order (one table string per
    /// [`Engine::run_gates`] call).
    pub fn tables(&self) -> &[u8] {
        &self.tables
    }

    /// An evaluator of what this garbler garbled: the same first gate id,
    /// reading the tables kept.
    pub fn evaluator(&self) -> MemoryEvaluator<'_, S> {
        MemoryEvaluator::new(self.first_gate, &self.tables)
    }
}

impl<S: GarblingScheme> Engine for MemoryGarbler<S> {
    type Label = ZeroLabel;
    type Error = CryptoError;

    fn run_gates(&mut self, batch: Batch<'_>, labels: &mut [ZeroLabel]) -> Result<(), CryptoError> {
        let gates = batch.gates();
        if self.keep {
            return self.garbler.garble(gates, labels, &mut self.tables);
        }
        for step in gates.chunks(DROP_STEP) {
            self.tables.clear();
            self.garbler.garble(step, labels, &mut self.tables)?;
        }
        Ok(())
    }

    fn skip_ands(&mut self, n: u64) {
        self.garbler = self.garbler.at_gate(self.garbler.next_gate_id() + n);
    }
}

/// Evaluates from tables in memory under scheme `S`, consuming them from
/// the front.
#[derive(Debug)]
pub struct MemoryEvaluator<'t, S: GarblingScheme> {
    evaluator: S::Evaluator,
    tables: &'t [u8],
}

impl<'t, S: GarblingScheme> MemoryEvaluator<'t, S> {
    /// An evaluator whose first AND gate has id `first_gate`, reading
    /// `tables` (as a [`MemoryGarbler`] of the same gates kept them).
    pub fn new(first_gate: u64, tables: &'t [u8]) -> Self {
        MemoryEvaluator {
            evaluator: S::Evaluator::new(first_gate),
            tables,
        }
    }

    /// The id the next AND gate will get.
    pub fn next_gate_id(&self) -> u64 {
        self.evaluator.next_gate_id()
    }

    /// The tables not used yet.
    pub fn unused_tables(&self) -> &'t [u8] {
        self.tables
    }
}

impl<S: GarblingScheme> Engine for MemoryEvaluator<'_, S> {
    type Label = ActiveLabel;
    type Error = CryptoError;

    fn run_gates(
        &mut self,
        batch: Batch<'_>,
        labels: &mut [ActiveLabel],
    ) -> Result<(), CryptoError> {
        let gates = batch.gates();
        let ands = gates.iter().filter(|g| g.is_and()).count();
        self.evaluator.evaluate(gates, labels, self.tables)?;
        self.tables = &self.tables[S::table_bytes(ands)..];
        Ok(())
    }

    fn skip_ands(&mut self, n: u64) {
        self.evaluator = S::Evaluator::new(self.evaluator.next_gate_id() + n);
    }
}
