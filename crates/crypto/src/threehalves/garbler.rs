//! The three-halves garbler.

use super::gate::DeltaTerms;
use super::kernel::{BitWriter, Garbling, Scratch};
use super::ThreeHalves;
use crate::aes::Aes128;
use crate::batch::{check_ids, conclude, garble_loop, Core};
use crate::block::Block;
use crate::delta::Delta;
use crate::error::CryptoError;
use crate::label::{RawLabels, ZeroLabel};
use crate::prg::Prg;
use crate::scheme::{garbler_accessors, GarblingScheme, SchemeGarbler};
use crate::Backend;
use twofold_circuit::Gate;
use zeroize::Zeroize;

/// The three-halves garbler: holds Δ, the key of its coins and the id of
/// the next AND gate. It garbles through [`SchemeGarbler`]: the tables of a
/// call are [`ThreeHalves::table_bytes`] of its AND count, the ciphertexts
/// `G0, G1, G2` of every AND gate, then their control bits. Gates must be
/// in the levelled order of the [half-gates docs](crate::halfgates).
#[derive(Debug)]
pub struct Garbler {
    delta: Delta,
    terms: DeltaTerms,
    core: Core,
    coins: Aes128,
    bits: BitWriter,
}

impl Drop for Garbler {
    /// Wipes Δ and the terms made of it (the coin key is wiped with its
    /// [`Aes128`]).
    fn drop(&mut self) {
        self.delta.zeroize();
        self.terms.zeroize();
    }
}

impl Garbler {
    /// A garbler with offset `delta` whose first AND gate gets id
    /// `first_gate_id`, on the fastest AES backend, with a coin key drawn
    /// from the OS (an error if the OS cannot supply it).
    pub fn new(delta: Delta, first_gate_id: u64) -> Result<Garbler, CryptoError> {
        let key = Prg::try_from_os()?.random_block();
        Ok(Garbler::build(
            delta,
            Core::new(first_gate_id),
            Aes128::new(key),
        ))
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
            Core::with_backend(first_gate_id, backend)?,
            Aes128::with_backend(coin_key, backend)?,
        ))
    }

    fn build(delta: Delta, core: Core, coins: Aes128) -> Garbler {
        Garbler {
            delta,
            terms: DeltaTerms::new(delta.block()),
            core,
            coins,
            bits: BitWriter::default(),
        }
    }
}

impl SchemeGarbler for Garbler {
    fn new(delta: Delta, first_gate_id: u64) -> Result<Garbler, CryptoError> {
        Garbler::new(delta, first_gate_id)
    }

    fn at_gate(&self, gate_id: u64) -> Garbler {
        Garbler::build(self.delta, self.core.at(gate_id), self.coins.clone())
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
        let num_wires = labels.len();
        self.bits.clear();
        let delta = self.delta.block();
        let (gid, buffers) = (self.core.next_gate, &mut *self.core.buffers);
        let mut out = Garbling {
            tccr: &self.core.tccr,
            coins: &self.coins,
            terms: &self.terms,
            tables,
            bits: &mut self.bits,
            scratch: Scratch::new(),
        };
        // SAFETY: the loop checks every wire against the label array, the
        // exclusive borrow keeps other threads away; the kernel runs on plain blocks
        // and hashes through `Tccr`.
        let done =
            unsafe { garble_loop(&mut out, delta, gid, gates, RawLabels::of(labels), buffers) };
        match done {
            Ok(_) => self.bits.finish(tables),
            Err(_) => tables.truncate(start),
        }
        let needed = ThreeHalves::table_bytes;
        conclude(done, &mut self.core.next_gate, gates, num_wires, 0, needed)
    }
}
