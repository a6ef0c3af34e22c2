//! The half-gates garbler.

use super::batch::Garbling;
use super::soft::SoftKernel;
#[cfg(target_arch = "x86_64")]
use super::x86;
use super::HalfGates;
use crate::aes::Keys;
use crate::batch::{check_ids, conclude, garble_loop, Core};
use crate::delta::Delta;
use crate::error::CryptoError;
use crate::label::{ActiveLabel, RawLabels, ZeroLabel};
use crate::scheme::{garbler_accessors, GarblingScheme, SchemeGarbler};
use crate::Backend;
use twofold_circuit::Gate;
use zeroize::Zeroize;

/// The half-gates garbler: holds Δ and the id of the next AND gate.
#[derive(Debug)]
pub struct Garbler {
    delta: Delta,
    core: Core,
}

impl Drop for Garbler {
    fn drop(&mut self) {
        self.delta.zeroize();
    }
}

impl Garbler {
    /// A garbler with offset `delta` whose first AND gate gets id
    /// `first_gate_id`, on the fastest AES backend.
    pub fn new(delta: Delta, first_gate_id: u64) -> Garbler {
        Garbler {
            delta,
            core: Core::new(first_gate_id),
        }
    }

    /// As [`Garbler::new`] on a given AES backend (fails if unavailable).
    pub fn with_backend(
        delta: Delta,
        first_gate_id: u64,
        backend: Backend,
    ) -> Result<Garbler, CryptoError> {
        Ok(Garbler {
            delta,
            core: Core::with_backend(first_gate_id, backend)?,
        })
    }

    /// The free-XOR offset Δ.
    pub fn delta(&self) -> Delta {
        self.delta
    }

    /// The id the next AND gate will get.
    pub fn next_gate_id(&self) -> u64 {
        self.core.next_gate
    }

    /// The AES backend in use.
    pub fn backend(&self) -> Backend {
        self.core.tccr.backend()
    }

    /// The label encoding `bit` on a wire with 0-label `zero`:
    /// `zero ⊕ bit·Δ` (what the garbler sends for its own inputs).
    #[inline]
    pub fn encode(&self, zero: ZeroLabel, bit: bool) -> ActiveLabel {
        zero.encode(self.delta, bit)
    }

    /// Garbles `gates` over 0-labels indexed by wire, appending two blocks
    /// `(TG, TE)` (32 bytes, little-endian) per AND gate to `tables`
    /// (reserve capacity beforehand to avoid reallocation while garbling).
    ///
    /// Fails if a gate uses a wire outside `labels` or the AND-gate ids would
    /// overflow. On failure `tables` and the gate counter are unchanged, but
    /// `labels` may have been partly updated and must be discarded. See the
    /// [module docs](super) for the levelled order the gates must be in.
    pub fn garble(
        &mut self,
        gates: &[Gate],
        labels: &mut [ZeroLabel],
        tables: &mut Vec<u8>,
    ) -> Result<(), CryptoError> {
        SchemeGarbler::garble(self, gates, labels, tables)
    }
}

impl SchemeGarbler for Garbler {
    fn new(delta: Delta, first_gate_id: u64) -> Result<Garbler, CryptoError> {
        Ok(Garbler::new(delta, first_gate_id))
    }

    fn at_gate(&self, gate_id: u64) -> Garbler {
        Garbler {
            delta: self.delta,
            core: self.core.at(gate_id),
        }
    }

    garbler_accessors!();

    fn garble(
        &mut self,
        gates: &[Gate],
        labels: &mut [ZeroLabel],
        tables: &mut Vec<u8>,
    ) -> Result<(), CryptoError> {
        check_ids(self.core.next_gate, gates)?;
        let start = tables.len();
        let lab = RawLabels::of(labels);
        let (delta, gid) = (self.delta.block(), self.core.next_gate);
        let buffers = &mut *self.core.buffers;
        // SAFETY: the loops check every wire against the label array, the
        // exclusive borrow keeps other threads away; hardware kernels are only
        // reachable through a feature-checked `HwBackend`.
        let done = unsafe {
            match self.core.tccr.keys() {
                Keys::Soft(aes) => {
                    let kern = SoftKernel(aes);
                    let mut out = Garbling {
                        kern: &kern,
                        delta,
                        tables,
                    };
                    garble_loop(&mut out, delta, gid, gates, lab, buffers)
                }
                #[cfg(target_arch = "x86_64")]
                Keys::Hw(rk, hw) => x86::garble(*hw, rk, delta, gid, gates, lab, tables, buffers),
                #[cfg(not(target_arch = "x86_64"))]
                Keys::Hw(..) => unreachable!("no hardware AES backend on this architecture"),
            }
        };
        if done.is_err() {
            tables.truncate(start);
        }
        let needed = HalfGates::table_bytes;
        conclude(done, &mut self.core.next_gate, gates, lab.len, 0, needed)
    }
}
