//! The three-halves garbler.

use super::kernel::{BitWriter, Garbling};
use super::ThreeHalves;
use crate::aes::Aes128;
use crate::batch::{check_ids, garble_loop};
use crate::block::Block;
use crate::delta::Delta;
use crate::error::CryptoError;
use crate::label::ZeroLabel;
use crate::prg::Prg;
use crate::scheme::{GarblingScheme, SchemeGarbler};
use crate::tccr::Tccr;
use crate::Backend;
use twofold_circuit::Gate;

/// The three-halves garbler: holds Δ, the key of its coins and the id of
/// the next AND gate.
#[derive(Clone, Debug)]
pub struct Garbler {
    delta: Delta,
    next_gate: u64,
    tccr: Tccr,
    coins: Aes128,
    bits: BitWriter,
}

impl Garbler {
    /// A garbler with offset `delta` whose first AND gate gets id
    /// `first_gate_id`, on the fastest AES backend, with a coin key drawn
    /// from the OS.
    pub fn new(delta: Delta, first_gate_id: u64) -> Garbler {
        let key = Prg::from_os().random_block();
        Garbler::build(delta, first_gate_id, Tccr::new(), Aes128::new(key))
    }

    /// As [`Garbler::new`] on a given AES backend with a given coin key: the
    /// same key gives the same tables on every backend (for tests; a
    /// session uses [`Garbler::new`]). Fails if the backend is unavailable.
    pub fn with_coins(
        delta: Delta,
        first_gate_id: u64,
        backend: Backend,
        coin_key: Block,
    ) -> Result<Garbler, CryptoError> {
        Ok(Garbler::build(
            delta,
            first_gate_id,
            Tccr::with_backend(backend)?,
            Aes128::with_backend(coin_key, backend)?,
        ))
    }

    fn build(delta: Delta, next_gate: u64, tccr: Tccr, coins: Aes128) -> Garbler {
        Garbler {
            delta,
            next_gate,
            tccr,
            coins,
            bits: BitWriter::default(),
        }
    }

    /// The AES backend in use.
    pub fn backend(&self) -> Backend {
        self.tccr.backend()
    }

    /// Garbles `gates` over 0-labels indexed by wire, appending
    /// [`ThreeHalves::table_bytes`] of their AND count to `tables`: the
    /// ciphertexts `G0, G1, G2` of every AND gate, then their control bits.
    ///
    /// Fails if a gate uses a wire outside `labels` or the AND-gate ids would
    /// overflow. On failure `tables` and the gate counter are unchanged, but
    /// `labels` may have been partly updated and must be discarded. See the
    /// [half-gates docs](crate::halfgates) for the levelled order the gates
    /// must be in.
    pub fn garble(
        &mut self,
        gates: &[Gate],
        labels: &mut [ZeroLabel],
        tables: &mut Vec<u8>,
    ) -> Result<(), CryptoError> {
        check_ids(self.next_gate, gates)?;
        let start = tables.len();
        let num_wires = labels.len();
        // SAFETY: `ZeroLabel` is a transparent `Block`.
        let lab =
            unsafe { std::slice::from_raw_parts_mut(labels.as_mut_ptr() as *mut Block, num_wires) };
        self.bits.clear();
        let delta = self.delta.block();
        let mut out = Garbling {
            tccr: &self.tccr,
            coins: &self.coins,
            delta,
            tables,
            bits: &mut self.bits,
        };
        // SAFETY: the loop checks every wire against the label slice; the
        // kernel runs on plain blocks and hashes through `Tccr`.
        match unsafe { garble_loop(&mut out, delta, self.next_gate, gates, lab) } {
            Ok(ands) => {
                self.bits.finish(tables);
                self.next_gate += ands;
                Ok(())
            }
            Err(stop) => {
                tables.truncate(start);
                Err(stop.into_error(gates, num_wires, 0, ThreeHalves::table_bytes))
            }
        }
    }
}

impl SchemeGarbler for Garbler {
    fn new(delta: Delta, first_gate_id: u64) -> Garbler {
        Garbler::new(delta, first_gate_id)
    }

    fn at_gate(&self, gate_id: u64) -> Garbler {
        Garbler {
            next_gate: gate_id,
            ..self.clone()
        }
    }

    fn delta(&self) -> Delta {
        self.delta
    }

    fn next_gate_id(&self) -> u64 {
        self.next_gate
    }

    fn backend(&self) -> Backend {
        self.tccr.backend()
    }

    #[inline]
    fn garble(
        &mut self,
        gates: &[Gate],
        labels: &mut [ZeroLabel],
        tables: &mut Vec<u8>,
    ) -> Result<(), CryptoError> {
        Garbler::garble(self, gates, labels, tables)
    }
}
