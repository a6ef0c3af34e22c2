//! The garbler and evaluator as [`Engine`]s: the pure half-gates cores, with
//! garbled tables streamed over the channel in frames so that memory stays
//! bounded whatever the circuit size.

use std::sync::Arc;

use twofold_circuit::{Engine, Gate};
use twofold_crypto::halfgates::{ActiveLabel, Evaluator, Garbler, ZeroLabel};
use twofold_crypto::{blocks_as_bytes, blocks_as_bytes_mut, Block};
use twofold_net::Channel;

use crate::error::ProtocolError;

/// Gates handed to the core at once: bounds the tables held in memory.
const GATES_PER_STEP: usize = 8192;
/// Tables are sent once this many blocks have accumulated (128 KiB).
const FLUSH_BLOCKS: usize = 8192;

/// Called with the number of AND gates done so far.
pub type Progress = Arc<dyn Fn(u64) + Send + Sync>;

/// The garbling side: garbles batches and streams the tables to the peer.
pub struct GarblingEngine<'c> {
    garbler: Garbler,
    chan: &'c mut Channel,
    tables: Vec<Block>,
    ands: u64,
    progress: Option<Progress>,
}

impl<'c> GarblingEngine<'c> {
    /// An engine sending tables over `chan`.
    pub fn new(garbler: Garbler, chan: &'c mut Channel, progress: Option<Progress>) -> Self {
        GarblingEngine {
            garbler,
            chan,
            tables: Vec::with_capacity(FLUSH_BLOCKS + 2 * GATES_PER_STEP),
            ands: 0,
            progress,
        }
    }

    /// Sends the tables still buffered; call once the whole program ran.
    pub fn finish(mut self) -> Result<(Garbler, u64), ProtocolError> {
        self.send_tables()?;
        self.chan.flush()?;
        Ok((self.garbler, self.ands))
    }

    fn send_tables(&mut self) -> Result<(), ProtocolError> {
        if !self.tables.is_empty() {
            self.chan.send_frame(blocks_as_bytes(&self.tables))?;
            self.tables.clear();
        }
        Ok(())
    }
}

impl Engine for GarblingEngine<'_> {
    type Label = ZeroLabel;
    type Error = ProtocolError;

    fn run_gates(&mut self, gates: &[Gate], labels: &mut [ZeroLabel]) -> Result<(), ProtocolError> {
        for step in gates.chunks(GATES_PER_STEP) {
            let before = self.tables.len();
            self.garbler.garble(step, labels, &mut self.tables)?;
            self.ands += ((self.tables.len() - before) / 2) as u64;
            if self.tables.len() >= FLUSH_BLOCKS {
                self.send_tables()?;
                if let Some(p) = &self.progress {
                    p(self.ands);
                }
            }
        }
        Ok(())
    }
}

/// The evaluating side: receives tables as needed and evaluates batches.
pub struct EvaluatingEngine<'c> {
    evaluator: Evaluator,
    chan: &'c mut Channel,
    tables: Vec<Block>,
    used: usize,
    frame: Vec<u8>,
    ands: u64,
    progress: Option<Progress>,
}

impl<'c> EvaluatingEngine<'c> {
    /// An engine receiving tables from `chan`.
    pub fn new(evaluator: Evaluator, chan: &'c mut Channel, progress: Option<Progress>) -> Self {
        EvaluatingEngine {
            evaluator,
            chan,
            tables: Vec::new(),
            used: 0,
            frame: Vec::new(),
            ands: 0,
            progress,
        }
    }

    /// Checks that every table sent was used; call once the program ran.
    pub fn finish(self) -> Result<u64, ProtocolError> {
        if self.used != self.tables.len() {
            return Err(ProtocolError::Malformed(format!(
                "{} garbled-table blocks more than the program needs",
                self.tables.len() - self.used
            )));
        }
        Ok(self.ands)
    }

    /// Receives frames until `blocks` unused table blocks are buffered.
    fn fill(&mut self, blocks: usize) -> Result<(), ProtocolError> {
        if self.tables.len() - self.used >= blocks {
            return Ok(());
        }
        self.tables.drain(..self.used);
        self.used = 0;
        while self.tables.len() < blocks {
            self.chan.recv_frame(&mut self.frame)?;
            if self.frame.is_empty() || !self.frame.len().is_multiple_of(32) {
                return Err(ProtocolError::Malformed(format!(
                    "a frame of garbled tables of {} bytes (not a whole number of tables)",
                    self.frame.len()
                )));
            }
            let old = self.tables.len();
            self.tables.resize(old + self.frame.len() / 16, Block::ZERO);
            blocks_as_bytes_mut(&mut self.tables[old..]).copy_from_slice(&self.frame);
            if let Some(p) = &self.progress {
                p(self.ands);
            }
        }
        Ok(())
    }
}

impl Engine for EvaluatingEngine<'_> {
    type Label = ActiveLabel;
    type Error = ProtocolError;

    fn run_gates(
        &mut self,
        gates: &[Gate],
        labels: &mut [ActiveLabel],
    ) -> Result<(), ProtocolError> {
        for step in gates.chunks(GATES_PER_STEP) {
            let ands = step.iter().filter(|g| g.is_and()).count();
            self.fill(2 * ands)?;
            self.evaluator
                .evaluate(step, labels, &self.tables[self.used..])?;
            self.used += 2 * ands;
            self.ands += ands as u64;
        }
        Ok(())
    }
}
