//! The half-gates evaluator.

use super::batch::Evaluating;
use super::soft::SoftKernel;
#[cfg(target_arch = "x86_64")]
use super::x86;
use super::HalfGates;
use crate::aes::Keys;
use crate::batch::{check_ids, conclude, evaluate_loop};
use crate::error::CryptoError;
use crate::label::{ActiveLabel, RawLabels};
use crate::scheme::{EvaluatorOf, GarblingScheme, SchemeEvaluator};
use twofold_circuit::Gate;

/// The half-gates evaluator: holds the id of the next AND gate.
pub type Evaluator = EvaluatorOf<HalfGates>;

impl Evaluator {
    /// Evaluates `gates` on active labels indexed by wire, consuming exactly
    /// two blocks (32 bytes) per AND gate from the front of `tables` (extra
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
        SchemeEvaluator::evaluate(self, gates, labels, tables)
    }
}

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
        let lab = RawLabels::of(labels);
        let gid = self.core.next_gate;
        let buffers = &mut *self.core.buffers;
        // SAFETY: the loops check every wire against the label array and
        // every table read against `tables.len()`, the exclusive borrow
        // keeps other threads away; hardware kernels are only reachable through a
        // feature-checked `HwBackend`.
        let done = unsafe {
            match self.core.tccr.keys() {
                Keys::Soft(aes) => {
                    let kern = SoftKernel(aes);
                    let mut input = Evaluating {
                        kern: &kern,
                        tables,
                        used: 0,
                    };
                    evaluate_loop(&mut input, gid, gates, lab, buffers)
                }
                #[cfg(target_arch = "x86_64")]
                Keys::Hw(rk, hw) => x86::evaluate(*hw, rk, gid, gates, lab, tables, buffers),
                #[cfg(not(target_arch = "x86_64"))]
                Keys::Hw(..) => unreachable!("no hardware AES backend on this architecture"),
            }
        };
        let needed = HalfGates::table_bytes;
        conclude(
            done,
            &mut self.core.next_gate,
            gates,
            lab.len,
            tables.len(),
            needed,
        )
    }
}
