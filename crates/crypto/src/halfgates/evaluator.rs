//! The half-gates evaluator.

use super::batch::Evaluating;
use super::soft::SoftKernel;
#[cfg(target_arch = "x86_64")]
use super::x86;
use super::HalfGates;
use crate::aes::Keys;
use crate::batch::{check_ids, evaluate_loop};
use crate::block::Block;
use crate::error::CryptoError;
use crate::label::ActiveLabel;
use crate::scheme::{GarblingScheme, SchemeEvaluator};
use crate::tccr::Tccr;
use crate::Backend;
use twofold_circuit::Gate;

/// The half-gates evaluator: holds the id of the next AND gate.
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

    /// The AES backend in use.
    pub fn backend(&self) -> Backend {
        self.tccr.backend()
    }

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
        check_ids(self.next_gate, gates)?;
        let num_wires = labels.len();
        // SAFETY: `ActiveLabel` is a transparent `Block`.
        let lab =
            unsafe { std::slice::from_raw_parts_mut(labels.as_mut_ptr() as *mut Block, num_wires) };
        let gid = self.next_gate;
        // SAFETY: the loops check every wire against the label slice and
        // every table read against `tables.len()`; hardware kernels are only
        // reachable through a feature-checked `HwBackend`.
        let done = unsafe {
            match self.tccr.keys() {
                Keys::Soft(aes) => {
                    let kern = SoftKernel(aes);
                    let mut input = Evaluating {
                        kern: &kern,
                        tables,
                        used: 0,
                    };
                    evaluate_loop(&mut input, gid, gates, lab)
                }
                #[cfg(target_arch = "x86_64")]
                Keys::Hw(rk, hw) => x86::evaluate(*hw, rk, gid, gates, lab, tables),
                #[cfg(not(target_arch = "x86_64"))]
                Keys::Hw(..) => unreachable!("no hardware AES backend on this architecture"),
            }
        };
        match done {
            Ok(ands) => {
                self.next_gate += ands;
                Ok(())
            }
            Err(stop) => {
                Err(stop.into_error(gates, num_wires, tables.len(), HalfGates::table_bytes))
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
