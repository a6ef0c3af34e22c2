//! The three-halves evaluator.

use super::kernel::Evaluating;
use super::{ThreeHalves, HALVES_BYTES};
use crate::batch::{check_ids, evaluate_loop};
use crate::block::Block;
use crate::error::CryptoError;
use crate::label::ActiveLabel;
use crate::scheme::{GarblingScheme, SchemeEvaluator};
use crate::tccr::Tccr;
use crate::Backend;
use twofold_circuit::Gate;

/// The three-halves evaluator: holds the id of the next AND gate.
#[derive(Clone, Debug)]
pub struct Evaluator {
    next_gate: u64,
    tccr: Tccr,
}

impl Evaluator {
    /// An evaluator whose first AND gate gets id `first_gate_id`, on the
    /// fastest AES backend.
    pub fn new(first_gate_id: u64) -> Evaluator {
        Evaluator {
            next_gate: first_gate_id,
            tccr: Tccr::new(),
        }
    }

    /// As [`Evaluator::new`] on a given AES backend (fails if unavailable).
    pub fn with_backend(first_gate_id: u64, backend: Backend) -> Result<Evaluator, CryptoError> {
        Ok(Evaluator {
            next_gate: first_gate_id,
            tccr: Tccr::with_backend(backend)?,
        })
    }

    /// The id the next AND gate will get.
    pub fn next_gate_id(&self) -> u64 {
        self.next_gate
    }

    /// Evaluates `gates` on active labels indexed by wire, consuming exactly
    /// [`ThreeHalves::table_bytes`] of their AND count from the front of
    /// `tables`: what the garbler's call on the same gates appended (extra
    /// bytes are ignored).
    ///
    /// Fails if a gate uses a wire outside `labels`, `tables` is too short,
    /// or the AND-gate ids would overflow. On failure the gate counter is
    /// unchanged, but `labels` may have been partly updated and must be
    /// discarded.
    pub fn evaluate(
        &mut self,
        gates: &[Gate],
        labels: &mut [ActiveLabel],
        tables: &[u8],
    ) -> Result<(), CryptoError> {
        check_ids(self.next_gate, gates)?;
        let ands = gates.iter().filter(|g| g.is_and()).count();
        let needed = ThreeHalves::table_bytes(ands);
        if tables.len() < needed {
            return Err(CryptoError::TablesTooShort {
                needed,
                got: tables.len(),
            });
        }
        let (halves, bits) = tables[..needed].split_at(HALVES_BYTES * ands);
        let num_wires = labels.len();
        // SAFETY: `ActiveLabel` is a transparent `Block`.
        let lab =
            unsafe { std::slice::from_raw_parts_mut(labels.as_mut_ptr() as *mut Block, num_wires) };
        let mut input = Evaluating {
            tccr: &self.tccr,
            halves,
            bits,
            done: 0,
        };
        // SAFETY: the loop checks every wire against the label slice; the
        // kernel checks its table reads and hashes through `Tccr`.
        match unsafe { evaluate_loop(&mut input, self.next_gate, gates, lab) } {
            Ok(n) => {
                self.next_gate += n;
                Ok(())
            }
            Err(stop) => {
                Err(stop.into_error(gates, num_wires, tables.len(), ThreeHalves::table_bytes))
            }
        }
    }
}

impl SchemeEvaluator for Evaluator {
    fn new(first_gate_id: u64) -> Evaluator {
        Evaluator::new(first_gate_id)
    }

    fn next_gate_id(&self) -> u64 {
        self.next_gate
    }

    #[inline]
    fn evaluate(
        &mut self,
        gates: &[Gate],
        labels: &mut [ActiveLabel],
        tables: &[u8],
    ) -> Result<(), CryptoError> {
        Evaluator::evaluate(self, gates, labels, tables)
    }
}
