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
use crate::tccr::{HashKernel, Label128, SoftKernel, Tccr};
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

/// Why a garbling or evaluation loop stopped early.
enum Stop {
    /// The gate at this index uses a wire outside the label slice.
    Wire(usize),
    /// The tables ran out (evaluator).
    Tables,
}

impl Stop {
    /// The precise error (computed on the error path only).
    fn into_error(self, gates: &[Gate], num_wires: usize, tables: usize) -> CryptoError {
        match self {
            Stop::Wire(i) => {
                let g = gates[i];
                let wire = g
                    .inputs()
                    .chain([g.out()])
                    .find(|&w| w as usize >= num_wires)
                    .unwrap_or(g.out());
                CryptoError::WireOutOfRange {
                    gate: i,
                    wire,
                    num_wires,
                }
            }
            Stop::Tables => CryptoError::TablesTooShort {
                needed: 2 * gates.iter().filter(|g| g.is_and()).count(),
                got: tables,
            },
        }
    }
}

/// Checks that the AND gates of `gates`, numbered from `first`, leave the
/// next id representable. Counts the AND gates only near the end of the id
/// space.
fn check_ids(first: u64, gates: &[Gate]) -> Result<(), CryptoError> {
    let room = u64::MAX - first;
    if gates.len() as u64 <= room || gates.iter().filter(|g| g.is_and()).count() as u64 <= room {
        Ok(())
    } else {
        Err(CryptoError::GateIdOverflow)
    }
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
    /// `(TG, TE)` per AND gate to `tables` (reserve capacity beforehand to
    /// avoid reallocation while garbling).
    ///
    /// Fails if a gate uses a wire outside `labels` or the AND-gate ids would
    /// overflow. On failure `tables` and the gate counter are unchanged, but
    /// `labels` may have been partly updated and must be discarded. See the
    /// [module docs](self) for the levelled order the gates must be in.
    pub fn garble(
        &mut self,
        gates: &[Gate],
        labels: &mut [ZeroLabel],
        tables: &mut Vec<Block>,
    ) -> Result<(), CryptoError> {
        check_ids(self.next_gate, gates)?;
        let start = tables.len();
        let num_wires = labels.len();
        let lab = labels.as_mut_ptr() as *mut Block;
        let (delta, gid) = (self.delta.block(), self.next_gate);
        // SAFETY: `lab` is valid for `num_wires` blocks (`ZeroLabel` is a
        // transparent `Block`), and the loops check every wire against it;
        // hardware kernels are only reachable through a feature-checked
        // `HwBackend`.
        let done = unsafe {
            match self.tccr.keys() {
                Keys::Soft(aes) => {
                    garble_core(&SoftKernel(aes), delta, gid, gates, lab, num_wires, tables)
                }
                #[cfg(target_arch = "x86_64")]
                Keys::Hw(rk, hw) => x86::garble(*hw, rk, delta, gid, gates, lab, num_wires, tables),
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
                tables.truncate(start);
                Err(stop.into_error(gates, num_wires, 0))
            }
        }
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
    /// Fails if a gate uses a wire outside `labels`, `tables` is too short,
    /// or the AND-gate ids would overflow. On failure the gate counter is
    /// unchanged, but `labels` may have been partly updated and must be
    /// discarded.
    pub fn evaluate(
        &mut self,
        gates: &[Gate],
        labels: &mut [ActiveLabel],
        tables: &[Block],
    ) -> Result<(), CryptoError> {
        check_ids(self.next_gate, gates)?;
        let num_wires = labels.len();
        let lab = labels.as_mut_ptr() as *mut Block;
        let gid = self.next_gate;
        // SAFETY: `lab` is valid for `num_wires` blocks (`ActiveLabel` is a
        // transparent `Block`), and the loops check every wire against it
        // and every table read against `tables.len()`; hardware kernels are
        // only reachable through a feature-checked `HwBackend`.
        let done = unsafe {
            match self.tccr.keys() {
                Keys::Soft(aes) => {
                    evaluate_core(&SoftKernel(aes), gid, gates, lab, num_wires, tables)
                }
                #[cfg(target_arch = "x86_64")]
                Keys::Hw(rk, hw) => x86::evaluate(*hw, rk, gid, gates, lab, num_wires, tables),
                #[cfg(not(target_arch = "x86_64"))]
                Keys::Hw(..) => unreachable!("no hardware AES backend on this architecture"),
            }
        };
        match done {
            Ok(ands) => {
                self.next_gate += ands;
                Ok(())
            }
            Err(stop) => Err(stop.into_error(gates, num_wires, tables.len())),
        }
    }
}

/// The tweak pair `(2g, 2g + 1)` of AND gate `g`.
#[inline(always)]
fn tweaks(g: u64) -> (Block, Block) {
    let j = (g as u128) << 1;
    (Block(j), Block(j | 1))
}

/// Whether all three wires are below `n`.
#[inline(always)]
fn in_range(a: u32, b: u32, out: u32, n: usize) -> bool {
    (a.max(b).max(out) as usize) < n
}

/// The garbling loop; returns the number of AND gates garbled.
///
/// # Safety
/// `labels` is valid for `num_wires` blocks; the CPU supports the kernel.
#[inline(always)]
unsafe fn garble_core<K: HashKernel>(
    kern: &K,
    delta: Block,
    first_gid: u64,
    gates: &[Gate],
    labels: *mut Block,
    num_wires: usize,
    tables: &mut Vec<Block>,
) -> Result<u64, Stop> {
    let mut gid = first_gid;
    let d = K::Label::splat(delta);
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
                if !in_range(a, b, out, num_wires) {
                    return Err(Stop::Wire(i));
                }
                let l = K::Label::load(labels.add(a as usize))
                    .xor(K::Label::load(labels.add(b as usize)));
                l.store(labels.add(out as usize));
                i += 1;
            }
            Gate::Inv { a, out } => {
                if !in_range(a, a, out, num_wires) {
                    return Err(Stop::Wire(i));
                }
                K::Label::load(labels.add(a as usize))
                    .xor(d)
                    .store(labels.add(out as usize));
                i += 1;
            }
            Gate::And { .. } => {
                let mut k = 0;
                // Gather: read every input of the chunk before any write.
                while k < AND_CHUNK && i < n {
                    let Gate::And { a, b, out } = *gates.add(i) else {
                        break;
                    };
                    if !in_range(a, b, out, num_wires) {
                        return Err(Stop::Wire(i));
                    }
                    let a0 = K::Label::load(labels.add(a as usize));
                    let b0 = K::Label::load(labels.add(b as usize));
                    let (j0, j1) = tweaks(gid.wrapping_add(k as u64));
                    *outs.get_unchecked_mut(k) = out;
                    let x = xs.as_mut_ptr().add(4 * k);
                    let t = ts.as_mut_ptr().add(4 * k);
                    a0.store(x);
                    a0.xor(d).store(x.add(1));
                    b0.store(x.add(2));
                    b0.xor(d).store(x.add(3));
                    *t = j0;
                    *t.add(1) = j0;
                    *t.add(2) = j1;
                    *t.add(3) = j1;
                    k += 1;
                    i += 1;
                }
                kern.hash(xs.as_ptr(), ts.as_ptr(), hs.as_mut_ptr(), 4 * k);
                tables.reserve(2 * k);
                let len = tables.len();
                let mut tp = tables.as_mut_ptr().add(len);
                // Combine and write the outputs.
                for m in 0..k {
                    let h = hs.as_ptr().add(4 * m);
                    let x = xs.as_ptr().add(4 * m);
                    let ha0 = K::Label::load(h);
                    let hb0 = K::Label::load(h.add(2));
                    let ga = ha0.xor(K::Label::load(h.add(1)));
                    let gb = hb0.xor(K::Label::load(h.add(3)));
                    let a0 = K::Label::load(x);
                    let pb = K::Label::load(x.add(2)).lsb_mask();
                    // TG = H(A0) ⊕ H(A1) ⊕ pb·Δ, WG = H(A0) ⊕ pa·TG,
                    // TE = H(B0) ⊕ H(B1) ⊕ A0, WE = H(B0) ⊕ pb·(H(B0) ⊕ H(B1)).
                    let tg = ga.xor(d.and(pb));
                    let wg = ha0.xor(tg.and(a0.lsb_mask()));
                    let te = gb.xor(a0);
                    let we = hb0.xor(gb.and(pb));
                    tg.store(tp);
                    te.store(tp.add(1));
                    tp = tp.add(2);
                    wg.xor(we)
                        .store(labels.add(*outs.get_unchecked(m) as usize));
                }
                // The reserve above made room for these `2 * k` blocks.
                tables.set_len(len + 2 * k);
                gid = gid.wrapping_add(k as u64);
            }
        }
    }
    Ok(gid.wrapping_sub(first_gid))
}

/// The evaluation loop; returns the number of AND gates evaluated.
///
/// # Safety
/// `labels` is valid for `num_wires` blocks; the CPU supports the kernel.
#[inline(always)]
unsafe fn evaluate_core<K: HashKernel>(
    kern: &K,
    first_gid: u64,
    gates: &[Gate],
    labels: *mut Block,
    num_wires: usize,
    tables: &[Block],
) -> Result<u64, Stop> {
    let mut gid = first_gid;
    let mut tp = tables.as_ptr();
    let mut tables_left = tables.len();
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
                if !in_range(a, b, out, num_wires) {
                    return Err(Stop::Wire(i));
                }
                let l = K::Label::load(labels.add(a as usize))
                    .xor(K::Label::load(labels.add(b as usize)));
                l.store(labels.add(out as usize));
                i += 1;
            }
            Gate::Inv { a, out } => {
                if !in_range(a, a, out, num_wires) {
                    return Err(Stop::Wire(i));
                }
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
                    if !in_range(a, b, out, num_wires) {
                        return Err(Stop::Wire(i));
                    }
                    let (j0, j1) = tweaks(gid.wrapping_add(k as u64));
                    *outs.get_unchecked_mut(k) = out;
                    let x = xs.as_mut_ptr().add(2 * k);
                    let t = ts.as_mut_ptr().add(2 * k);
                    K::Label::load(labels.add(a as usize)).store(x);
                    K::Label::load(labels.add(b as usize)).store(x.add(1));
                    *t = j0;
                    *t.add(1) = j1;
                    k += 1;
                    i += 1;
                }
                if tables_left / 2 < k {
                    return Err(Stop::Tables);
                }
                tables_left -= 2 * k;
                kern.hash(xs.as_ptr(), ts.as_ptr(), hs.as_mut_ptr(), 2 * k);
                // Combine and write the outputs:
                // C = H(A) ⊕ sa·TG ⊕ H(B) ⊕ sb·(TE ⊕ A).
                for m in 0..k {
                    let h = hs.as_ptr().add(2 * m);
                    let x = xs.as_ptr().add(2 * m);
                    let a = K::Label::load(x);
                    let b = K::Label::load(x.add(1));
                    let tg = K::Label::load(tp);
                    let te = K::Label::load(tp.add(1));
                    tp = tp.add(2);
                    let c = K::Label::load(h)
                        .xor(K::Label::load(h.add(1)))
                        .xor(tg.and(a.lsb_mask()))
                        .xor(te.xor(a).and(b.lsb_mask()));
                    c.store(labels.add(*outs.get_unchecked(m) as usize));
                }
                gid = gid.wrapping_add(k as u64);
            }
        }
    }
    Ok(gid.wrapping_sub(first_gid))
}

/// The per-backend instantiations of the loops, compiled with their CPU
/// features enabled so the AES kernel is inlined into the loop.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{evaluate_core, garble_core, Stop};
    use crate::aes::x86::{X1, Y2, Z4};
    use crate::aes::{HwBackend, RoundKeys};
    use crate::block::Block;
    use crate::tccr::HwKernel;
    use twofold_circuit::Gate;

    macro_rules! instantiate {
        ($garble:ident, $evaluate:ident, $lanes:ty, $features:literal) => {
            #[target_feature(enable = $features)]
            #[allow(clippy::too_many_arguments)]
            unsafe fn $garble(
                rk: &RoundKeys,
                delta: Block,
                gid: u64,
                gates: &[Gate],
                labels: *mut Block,
                num_wires: usize,
                tables: &mut Vec<Block>,
            ) -> Result<u64, Stop> {
                let kern = HwKernel::<$lanes>::new(rk);
                garble_core(&kern, delta, gid, gates, labels, num_wires, tables)
            }

            #[target_feature(enable = $features)]
            unsafe fn $evaluate(
                rk: &RoundKeys,
                gid: u64,
                gates: &[Gate],
                labels: *mut Block,
                num_wires: usize,
                tables: &[Block],
            ) -> Result<u64, Stop> {
                let kern = HwKernel::<$lanes>::new(rk);
                evaluate_core(&kern, gid, gates, labels, num_wires, tables)
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
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn garble(
        hw: HwBackend,
        rk: &RoundKeys,
        delta: Block,
        gid: u64,
        gates: &[Gate],
        labels: *mut Block,
        num_wires: usize,
        tables: &mut Vec<Block>,
    ) -> Result<u64, Stop> {
        let f = match hw {
            HwBackend::AesNi => garble_aesni,
            HwBackend::Vaes256 => garble_vaes256,
            HwBackend::Vaes512 => garble_vaes512,
        };
        f(rk, delta, gid, gates, labels, num_wires, tables)
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
        num_wires: usize,
        tables: &[Block],
    ) -> Result<u64, Stop> {
        let f = match hw {
            HwBackend::AesNi => evaluate_aesni,
            HwBackend::Vaes256 => evaluate_vaes256,
            HwBackend::Vaes512 => evaluate_vaes512,
        };
        f(rk, gid, gates, labels, num_wires, tables)
    }
}
