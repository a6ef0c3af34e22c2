//! Garbling then evaluation in memory, without a peer: a garbler
//! [`Engine`] that keeps its garbled tables (or drops them, to time garbling
//! alone) and an evaluator [`Engine`] that consumes them from a slice.
//!
//! For tests and for measuring the cores ([`crate::speed`]); a session
//! streams the tables to its peer instead (the engines of
//! `twofold-protocol`).

use twofold_circuit::{Engine, Gate};

use crate::block::Block;
use crate::delta::Delta;
use crate::error::CryptoError;
use crate::halfgates::{ActiveLabel, Evaluator, Garbler, HalfGates, ZeroLabel};
use crate::scheme::GarblingScheme;

/// Blocks of garbled table per AND gate.
const TABLE_BLOCKS: usize = HalfGates::TABLE_BLOCKS;

/// Gates garbled at once when the tables are dropped: their tables stay in
/// cache, as they do when a session streams them.
const DROP_STEP: usize = 8192;

/// Garbles into memory, keeping every table (to evaluate afterwards, see
/// [`MemoryGarbler::evaluator`]) or dropping them as they come.
#[derive(Debug)]
pub struct MemoryGarbler {
    garbler: Garbler,
    first_gate: u64,
    tables: Vec<Block>,
    keep: bool,
}

impl MemoryGarbler {
    /// A garbler with offset `delta` whose first AND gate gets id
    /// `first_gate`, keeping every table.
    pub fn new(delta: Delta, first_gate: u64) -> MemoryGarbler {
        MemoryGarbler {
            garbler: Garbler::new(delta, first_gate),
            first_gate,
            tables: Vec::new(),
            keep: true,
        }
    }

    /// As [`MemoryGarbler::new`], but dropping the tables as they come
    /// (garbling speed alone).
    pub fn dropping_tables(delta: Delta, first_gate: u64) -> MemoryGarbler {
        MemoryGarbler {
            keep: false,
            ..MemoryGarbler::new(delta, first_gate)
        }
    }

    /// The garbling core (its Δ, next gate id, backend, input encoding).
    pub fn garbler(&self) -> &Garbler {
        &self.garbler
    }

    /// The tables kept so far, two blocks per AND gate in execution order.
    pub fn tables(&self) -> &[Block] {
        &self.tables
    }

    /// An evaluator of what this garbler garbled: the same first gate id,
    /// reading the tables kept.
    pub fn evaluator(&self) -> MemoryEvaluator<'_> {
        MemoryEvaluator::new(self.first_gate, &self.tables)
    }
}

impl Engine for MemoryGarbler {
    type Label = ZeroLabel;
    type Error = CryptoError;

    fn run_gates(&mut self, gates: &[Gate], labels: &mut [ZeroLabel]) -> Result<(), CryptoError> {
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
        self.garbler = Garbler::new(self.garbler.delta(), self.garbler.next_gate_id() + n);
    }
}

/// Evaluates from tables in memory, consuming them from the front.
#[derive(Debug)]
pub struct MemoryEvaluator<'t> {
    evaluator: Evaluator,
    tables: &'t [Block],
}

impl<'t> MemoryEvaluator<'t> {
    /// An evaluator whose first AND gate has id `first_gate`, reading
    /// `tables` (two blocks per AND gate, in execution order).
    pub fn new(first_gate: u64, tables: &'t [Block]) -> MemoryEvaluator<'t> {
        MemoryEvaluator {
            evaluator: Evaluator::new(first_gate),
            tables,
        }
    }

    /// The id the next AND gate will get.
    pub fn next_gate_id(&self) -> u64 {
        self.evaluator.next_gate_id()
    }

    /// The tables not used yet.
    pub fn unused_tables(&self) -> &'t [Block] {
        self.tables
    }
}

impl Engine for MemoryEvaluator<'_> {
    type Label = ActiveLabel;
    type Error = CryptoError;

    fn run_gates(&mut self, gates: &[Gate], labels: &mut [ActiveLabel]) -> Result<(), CryptoError> {
        let ands = gates.iter().filter(|g| g.is_and()).count();
        self.evaluator.evaluate(gates, labels, self.tables)?;
        self.tables = &self.tables[TABLE_BLOCKS * ands..];
        Ok(())
    }

    fn skip_ands(&mut self, n: u64) {
        self.evaluator = Evaluator::new(self.evaluator.next_gate_id() + n);
    }
}
