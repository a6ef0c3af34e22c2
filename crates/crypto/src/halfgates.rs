//! Half-gates garbling (Zahur–Rosulek–Evans) with free XOR, as pure cores:
//! no IO, no allocation in the hot loop.
//!
//! For an AND gate `c = a ∧ b` with id `g` the tweaks are `j = 2g` and
//! `j' = 2g + 1`, and with `H` the [TCCR hash](crate::tccr):
//!
//! * garbler: `pa = lsb(A0)`, `pb = lsb(B0)`,
//!   `TG = H(A0,j) ⊕ H(A0⊕Δ,j) ⊕ pb·Δ`, `WG = H(A0,j) ⊕ pa·TG`,
//!   `TE = H(B0,j') ⊕ H(B0⊕Δ,j') ⊕ A0`, `WE = H(B0,j') ⊕ pb·(TE ⊕ A0)`,
//!   `C0 = WG ⊕ WE`; the table is `(TG, TE)`.
//! * evaluator: `sa = lsb(A)`, `sb = lsb(B)`,
//!   `C = H(A,j) ⊕ sa·TG ⊕ H(B,j') ⊕ sb·(TE ⊕ A)`.
//!
//! XOR gates are free (`C = A ⊕ B` on both sides); an INV gate is
//! `C0 = A0 ⊕ Δ` for the garbler and `C = A` for the evaluator.
//!
//! AND gates are hashed in chunks of up to [`AND_CHUNK`] consecutive AND
//! gates: all inputs of a chunk are read, hashed in one batch, then all
//! outputs are written. The gate list must therefore be *levelled*: within
//! every maximal run of consecutive AND gates, no gate reads a wire written by
//! an earlier gate of the same run. (A gate may overwrite the slot one of its
//! own inputs came from, or one read by another gate of its run.) Garbler and
//! evaluator chunk identically, so they always agree with each other; the
//! levelled order makes them agree with plaintext evaluation too.

use crate::aes::Keys;
use crate::block::Block;
use crate::delta::Delta;
use crate::error::CryptoError;
use crate::tccr::{HashKernel, SoftKernel, Tccr};
use crate::Backend;
use twofold_circuit::Gate;

/// Consecutive AND gates hashed in one batch.
pub const AND_CHUNK: usize = 64;

/// The garbler's view of a wire: its 0-label (the 1-label is `0-label ⊕ Δ`).
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
#[repr(transparent)]
pub struct ZeroLabel(pub Block);

/// The evaluator's view of a wire: the one label it holds.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
#[repr(transparent)]
pub struct ActiveLabel(pub Block);

impl ZeroLabel {
    /// The decoding bit of an output wire, sent to the evaluator:
    /// `lsb` of the 0-label.
    #[inline]
    pub fn decode_bit(self) -> bool {
        self.0.lsb()
    }
}

impl ActiveLabel {
    /// The plaintext bit of an output wire, given the garbler's decoding bit.
    #[inline]
    pub fn decode(self, decode_bit: bool) -> bool {
        self.0.lsb() ^ decode_bit
    }
}

/// The half-gates garbler: holds Δ and the id of the next AND gate.
#[derive(Clone, Debug)]
pub struct Garbler {
    delta: Delta,
    next_gate: u64,
    tccr: Tccr,
}

/// The half-gates evaluator: holds the id of the next AND gate.
#[derive(Clone, Debug)]
pub struct Evaluator {
    next_gate: u64,
    tccr: Tccr,
}

/// Checks every wire of `gates` against `num_wires` and counts the AND gates.
fn scan(gates: &[Gate], num_wires: usize) -> Result<usize, CryptoError> {
    let mut ands = 0usize;
    let mut max = 0u32;
    for g in gates {
        let (a, b, out) = match *g {
            Gate::Xor { a, b, out } => (a, b, out),
            Gate::And { a, b, out } => {
                ands += 1;
                (a, b, out)
            }
            Gate::Inv { a, out } => (a, a, out),
        };
        max = max.max(a).max(b).max(out);
    }
    if !gates.is_empty() && max as usize >= num_wires {
        // Slow path only on error: find the first offending gate.
        for (i, g) in gates.iter().enumerate() {
            let out_of_range = g
                .inputs()
                .chain([g.out()])
                .find(|&w| w as usize >= num_wires);
            if let Some(wire) = out_of_range {
                return Err(CryptoError::WireOutOfRange {
                    gate: i,
                    wire,
                    num_wires,
                });
            }
        }
    }
    Ok(ands)
}

/// The id after `ands` AND gates starting at `first`, if it does not overflow.
fn advance(first: u64, ands: usize) -> Result<u64, CryptoError> {
    u64::try_from(ands)
        .ok()
        .and_then(|n| first.checked_add(n))
        .ok_or(CryptoError::GateIdOverflow)
}

impl Garbler {
    /// A garbler with offset `delta` whose first AND gate gets id
    /// `first_gate_id`, on the fastest AES backend.
    pub fn new(delta: Delta, first_gate_id: u64) -> Garbler {
        Garbler {
            delta,
            next_gate: first_gate_id,
            tccr: Tccr::new(),
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
            next_gate: first_gate_id,
            tccr: Tccr::with_backend(backend)?,
        })
    }

    /// The free-XOR offset Δ.
    pub fn delta(&self) -> Delta {
        self.delta
    }

    /// The id the next AND gate will get.
    pub fn next_gate_id(&self) -> u64 {
        self.next_gate
    }

    /// The AES backend in use.
    pub fn backend(&self) -> Backend {
        self.tccr.backend()
    }

    /// The label encoding `bit` on a wire with 0-label `zero`:
    /// `zero ⊕ bit·Δ` (what the garbler sends for its own inputs).
    #[inline]
    pub fn encode(&self, zero: ZeroLabel, bit: bool) -> ActiveLabel {
        ActiveLabel(zero.0 ^ self.delta.block().select(bit))
    }

    /// Garbles `gates` over 0-labels indexed by wire, appending two blocks
    /// `(TG, TE)` per AND gate to `tables`.
    ///
    /// Fails, changing nothing, if a gate uses a wire outside `labels` or the
    /// AND-gate ids would overflow. See the [module docs](self) for the
    /// levelled order the gates must be in.
    pub fn garble(
        &mut self,
        gates: &[Gate],
        labels: &mut [ZeroLabel],
        tables: &mut Vec<Block>,
    ) -> Result<(), CryptoError> {
        let ands = scan(gates, labels.len())?;
        let next = advance(self.next_gate, ands)?;
        tables.reserve(2 * ands);
        let len = tables.len();
        let out = tables.spare_capacity_mut().as_mut_ptr() as *mut Block;
        let labels = labels.as_mut_ptr() as *mut Block;
        let (delta, gid) = (self.delta.block(), self.next_gate);
        // SAFETY: `scan` checked every wire index against the label slice;
        // `out` has room for the `2 * ands` blocks written; hardware kernels
        // are only reachable through a feature-checked `HwBackend`.
        unsafe {
            match self.tccr.keys() {
                Keys::Soft(aes) => garble_core(&SoftKernel(aes), delta, gid, gates, labels, out),
                #[cfg(target_arch = "x86_64")]
                Keys::Hw(rk, hw) => x86::garble(*hw, rk, delta, gid, gates, labels, out),
                #[cfg(not(target_arch = "x86_64"))]
                Keys::Hw(..) => unreachable!("no hardware AES backend on this architecture"),
            }
            tables.set_len(len + 2 * ands);
        }
        self.next_gate = next;
        Ok(())
    }
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
    /// two blocks per AND gate from the front of `tables` (extra blocks are
    /// ignored).
    ///
    /// Fails, changing nothing, if a gate uses a wire outside `labels`,
    /// `tables` is too short, or the AND-gate ids would overflow.
    pub fn evaluate(
        &mut self,
        gates: &[Gate],
        labels: &mut [ActiveLabel],
        tables: &[Block],
    ) -> Result<(), CryptoError> {
        let ands = scan(gates, labels.len())?;
        let next = advance(self.next_gate, ands)?;
        if tables.len() / 2 < ands {
            return Err(CryptoError::TablesTooShort {
                needed: 2 * ands,
                got: tables.len(),
            });
        }
        let labels = labels.as_mut_ptr() as *mut Block;
        let (gid, tab) = (self.next_gate, tables.as_ptr());
        // SAFETY: `scan` checked every wire index; `tables` holds at least
        // `2 * ands` blocks; hardware kernels are only reachable through a
        // feature-checked `HwBackend`.
        unsafe {
            match self.tccr.keys() {
                Keys::Soft(aes) => evaluate_core(&SoftKernel(aes), gid, gates, labels, tab),
                #[cfg(target_arch = "x86_64")]
                Keys::Hw(rk, hw) => x86::evaluate(*hw, rk, gid, gates, labels, tab),
                #[cfg(not(target_arch = "x86_64"))]
                Keys::Hw(..) => unreachable!("no hardware AES backend on this architecture"),
            }
        }
        self.next_gate = next;
        Ok(())
    }
}

/// The tweak pair `(2g, 2g + 1)` of AND gate `g`.
#[inline(always)]
fn tweaks(g: u64) -> (Block, Block) {
    let j = (g as u128) << 1;
    (Block(j), Block(j | 1))
}

/// The garbling loop.
///
/// # Safety
/// Every wire of `gates` indexes into `labels`; `tables` has room for two
/// blocks per AND gate; the CPU supports the kernel.
#[inline(always)]
unsafe fn garble_core<K: HashKernel>(
    kern: &K,
    delta: Block,
    mut gid: u64,
    gates: &[Gate],
    labels: *mut Block,
    mut tables: *mut Block,
) {
    // Per AND gate: hash inputs A0, A0⊕Δ, B0, B0⊕Δ with tweaks j, j, j', j'.
    let mut xs = [Block::ZERO; 4 * AND_CHUNK];
    let mut ts = [Block::ZERO; 4 * AND_CHUNK];
    let mut hs = [Block::ZERO; 4 * AND_CHUNK];
    let mut outs = [0u32; AND_CHUNK];
    let n = gates.len();
    let gates = gates.as_ptr();
    let mut i = 0;
    while i < n {
        match *gates.add(i) {
            Gate::Xor { a, b, out } => {
                *labels.add(out as usize) = *labels.add(a as usize) ^ *labels.add(b as usize);
                i += 1;
            }
            Gate::Inv { a, out } => {
                *labels.add(out as usize) = *labels.add(a as usize) ^ delta;
                i += 1;
            }
            Gate::And { .. } => {
                let mut k = 0;
                // Gather: read every input of the chunk before any write.
                while k < AND_CHUNK && i < n {
                    let Gate::And { a, b, out } = *gates.add(i) else {
                        break;
                    };
                    let a0 = *labels.add(a as usize);
                    let b0 = *labels.add(b as usize);
                    let (j0, j1) = tweaks(gid.wrapping_add(k as u64));
                    *outs.get_unchecked_mut(k) = out;
                    let x = xs.as_mut_ptr().add(4 * k);
                    let t = ts.as_mut_ptr().add(4 * k);
                    *x = a0;
                    *x.add(1) = a0 ^ delta;
                    *x.add(2) = b0;
                    *x.add(3) = b0 ^ delta;
                    *t = j0;
                    *t.add(1) = j0;
                    *t.add(2) = j1;
                    *t.add(3) = j1;
                    k += 1;
                    i += 1;
                }
                kern.hash(xs.as_ptr(), ts.as_ptr(), hs.as_mut_ptr(), 4 * k);
                // Combine and write the outputs.
                for m in 0..k {
                    let h = hs.as_ptr().add(4 * m);
                    let (ha0, ha1, hb0, hb1) = (*h, *h.add(1), *h.add(2), *h.add(3));
                    let a0 = *xs.as_ptr().add(4 * m);
                    let pb = (*xs.as_ptr().add(4 * m + 2)).lsb();
                    let tg = ha0 ^ ha1 ^ delta.select(pb);
                    let wg = ha0 ^ tg.select(a0.lsb());
                    let te = hb0 ^ hb1 ^ a0;
                    let we = hb0 ^ (hb0 ^ hb1).select(pb);
                    *tables = tg;
                    *tables.add(1) = te;
                    tables = tables.add(2);
                    *labels.add(*outs.get_unchecked(m) as usize) = wg ^ we;
                }
                gid = gid.wrapping_add(k as u64);
            }
        }
    }
}

/// The evaluation loop.
///
/// # Safety
/// Every wire of `gates` indexes into `labels`; `tables` holds two blocks per
/// AND gate; the CPU supports the kernel.
#[inline(always)]
unsafe fn evaluate_core<K: HashKernel>(
    kern: &K,
    mut gid: u64,
    gates: &[Gate],
    labels: *mut Block,
    mut tables: *const Block,
) {
    // Per AND gate: hash inputs A, B with tweaks j, j'.
    let mut xs = [Block::ZERO; 2 * AND_CHUNK];
    let mut ts = [Block::ZERO; 2 * AND_CHUNK];
    let mut hs = [Block::ZERO; 2 * AND_CHUNK];
    let mut outs = [0u32; AND_CHUNK];
    let n = gates.len();
    let gates = gates.as_ptr();
    let mut i = 0;
    while i < n {
        match *gates.add(i) {
            Gate::Xor { a, b, out } => {
                *labels.add(out as usize) = *labels.add(a as usize) ^ *labels.add(b as usize);
                i += 1;
            }
            Gate::Inv { a, out } => {
                *labels.add(out as usize) = *labels.add(a as usize);
                i += 1;
            }
            Gate::And { .. } => {
                let mut k = 0;
                // Gather: read every input of the chunk before any write.
                while k < AND_CHUNK && i < n {
                    let Gate::And { a, b, out } = *gates.add(i) else {
                        break;
                    };
                    let (j0, j1) = tweaks(gid.wrapping_add(k as u64));
                    *outs.get_unchecked_mut(k) = out;
                    let x = xs.as_mut_ptr().add(2 * k);
                    let t = ts.as_mut_ptr().add(2 * k);
                    *x = *labels.add(a as usize);
                    *x.add(1) = *labels.add(b as usize);
                    *t = j0;
                    *t.add(1) = j1;
                    k += 1;
                    i += 1;
                }
                kern.hash(xs.as_ptr(), ts.as_ptr(), hs.as_mut_ptr(), 2 * k);
                // Combine and write the outputs.
                for m in 0..k {
                    let h = hs.as_ptr().add(2 * m);
                    let a = *xs.as_ptr().add(2 * m);
                    let b = *xs.as_ptr().add(2 * m + 1);
                    let (tg, te) = (*tables, *tables.add(1));
                    tables = tables.add(2);
                    let c = *h ^ tg.select(a.lsb()) ^ *h.add(1) ^ (te ^ a).select(b.lsb());
                    *labels.add(*outs.get_unchecked(m) as usize) = c;
                }
                gid = gid.wrapping_add(k as u64);
            }
        }
    }
}

/// The per-backend instantiations of the loops, compiled with their CPU
/// features enabled so the AES kernel is inlined into the loop.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{evaluate_core, garble_core};
    use crate::aes::x86::{X1, Y2, Z4};
    use crate::aes::{HwBackend, RoundKeys};
    use crate::block::Block;
    use crate::tccr::HwKernel;
    use twofold_circuit::Gate;

    macro_rules! instantiate {
        ($garble:ident, $evaluate:ident, $lanes:ty, $features:literal) => {
            #[target_feature(enable = $features)]
            unsafe fn $garble(
                rk: &RoundKeys,
                delta: Block,
                gid: u64,
                gates: &[Gate],
                labels: *mut Block,
                tables: *mut Block,
            ) {
                let kern = HwKernel::<$lanes>::new(rk);
                garble_core(&kern, delta, gid, gates, labels, tables)
            }

            #[target_feature(enable = $features)]
            unsafe fn $evaluate(
                rk: &RoundKeys,
                gid: u64,
                gates: &[Gate],
                labels: *mut Block,
                tables: *const Block,
            ) {
                let kern = HwKernel::<$lanes>::new(rk);
                evaluate_core(&kern, gid, gates, labels, tables)
            }
        };
    }

    instantiate!(garble_aesni, evaluate_aesni, X1, "aes,sse4.1");
    instantiate!(garble_vaes256, evaluate_vaes256, Y2, "aes,sse4.1,avx2,vaes");
    instantiate!(
        garble_vaes512,
        evaluate_vaes512,
        Z4,
        "aes,sse4.1,avx2,vaes,avx512f"
    );

    /// Garbles on a hardware backend.
    ///
    /// # Safety
    /// As `garble_core`, with `hw` built by feature detection.
    pub(super) unsafe fn garble(
        hw: HwBackend,
        rk: &RoundKeys,
        delta: Block,
        gid: u64,
        gates: &[Gate],
        labels: *mut Block,
        tables: *mut Block,
    ) {
        match hw {
            HwBackend::AesNi => garble_aesni(rk, delta, gid, gates, labels, tables),
            HwBackend::Vaes256 => garble_vaes256(rk, delta, gid, gates, labels, tables),
            HwBackend::Vaes512 => garble_vaes512(rk, delta, gid, gates, labels, tables),
        }
    }

    /// Evaluates on a hardware backend.
    ///
    /// # Safety
    /// As `evaluate_core`, with `hw` built by feature detection.
    pub(super) unsafe fn evaluate(
        hw: HwBackend,
        rk: &RoundKeys,
        gid: u64,
        gates: &[Gate],
        labels: *mut Block,
        tables: *const Block,
    ) {
        match hw {
            HwBackend::AesNi => evaluate_aesni(rk, gid, gates, labels, tables),
            HwBackend::Vaes256 => evaluate_vaes256(rk, gid, gates, labels, tables),
            HwBackend::Vaes512 => evaluate_vaes512(rk, gid, gates, labels, tables),
        }
    }
}
