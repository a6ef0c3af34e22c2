//! The three-halves evaluator.

use super::kernel::{Evaluating, Scratch};
use super::{ThreeHalves, HALVES_BYTES};
use crate::batch::{check_ids, conclude, evaluate_loop};
use crate::error::CryptoError;
use crate::label::{ActiveLabel, RawLabels};
use crate::scheme::{EvaluatorOf, GarblingScheme, SchemeEvaluator};
use twofold_circuit::Gate;

/// The three-halves evaluator: holds the id of the next AND gate. It
/// evaluates through [`SchemeEvaluator`], consuming exactly
/// [`ThreeHalves::table_bytes`] of a call's AND count: what the garbler's
/// call on the same gates appended.
pub type Evaluator = EvaluatorOf<ThreeHalves>;

impl SchemeEvaluator for Evaluator {
    fn new(first_gate_id: u64) -> Evaluator {
        Evaluator::new(first_gate_id)
    }

    fn next_gate_id(&self) -> u64 {
        Evaluator::next_gate_id(self)
    }

    fn evaluate(
        &mut self,
        gates: &[Gate],
        labels: &mut [ActiveLabel],
        tables: &[u8],
    ) -> Result<(), CryptoError> {
        check_ids(self.core.next_gate, gates)?;
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
        let mut input = Evaluating {
            tccr: &self.core.tccr,
            halves,
            bits,
            done: 0,
            scratch: Scratch::new(),
        };
        // SAFETY: the loop checks every wire against the label array, the
        // exclusive borrow keeps other threads away; the kernel checks its table
        // reads and hashes through `Tccr`.
        let gid = self.core.next_gate;
        let buffers = &mut *self.core.buffers;
        let done = unsafe { evaluate_loop(&mut input, gid, gates, RawLabels::of(labels), buffers) };
        let needed = ThreeHalves::table_bytes;
        conclude(
            done,
            &mut self.core.next_gate,
            gates,
            num_wires,
            tables.len(),
            needed,
        )
    }
}
