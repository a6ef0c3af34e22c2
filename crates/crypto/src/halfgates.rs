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
//! AND gates are processed in chunks of up to [`AND_CHUNK`] consecutive AND
//! gates (a chunk also ends where gate ids reach 2^63): all inputs of a chunk
//! are read, hashed in batches, then all outputs are written, in gate order.
//! The gate list must therefore be *levelled*: within every maximal run of
//! consecutive AND gates, no gate reads a wire written by an earlier gate of
//! the same run. (A gate may overwrite the slot one of its own inputs came
//! from, or one read by another gate of its run.) Garbler and evaluator chunk
//! identically on every backend, so they always agree with each other; the
//! levelled order makes them agree with plaintext evaluation too.
//!
//! Every wire is checked against the label slice and every table read
//! against the tables given; bad input is reported as a [`CryptoError`],
//! never a panic.

use crate::aes::Keys;
use crate::block::Block;
use crate::delta::Delta;
use crate::error::CryptoError;
use crate::tccr::{soft_tccr, Tccr};
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
        // SAFETY: `ZeroLabel` is a transparent `Block`.
        let lab =
            unsafe { std::slice::from_raw_parts_mut(labels.as_mut_ptr() as *mut Block, num_wires) };
        let (delta, gid) = (self.delta.block(), self.next_gate);
        // SAFETY: the loops check every wire against the label slice;
        // hardware kernels are only reachable through a feature-checked
        // `HwBackend`.
        let done = unsafe {
            match self.tccr.keys() {
                Keys::Soft(aes) => garble_loop(&SoftKernel(aes), delta, gid, gates, lab, tables),
                #[cfg(target_arch = "x86_64")]
                Keys::Hw(rk, hw) => x86::garble(*hw, rk, delta, gid, gates, lab, tables),
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
        // SAFETY: `ActiveLabel` is a transparent `Block`.
        let lab =
            unsafe { std::slice::from_raw_parts_mut(labels.as_mut_ptr() as *mut Block, num_wires) };
        let gid = self.next_gate;
        // SAFETY: the loops check every wire against the label slice and
        // every table read against `tables.len()`; hardware kernels are only
        // reachable through a feature-checked `HwBackend`.
        let done = unsafe {
            match self.tccr.keys() {
                Keys::Soft(aes) => evaluate_loop(&SoftKernel(aes), gid, gates, lab, tables),
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
            Err(stop) => Err(stop.into_error(gates, num_wires, tables.len())),
        }
    }
}

/// 128-bit label operations for the loops around the AND kernels: plain
/// [`Block`]s, or SSE registers on x86-64.
///
/// # Safety
/// Every method requires the CPU features of the implementation; pointers
/// must be valid for one block.
pub(crate) trait Label128: Copy {
    /// `b` as a label.
    unsafe fn splat(b: Block) -> Self;
    /// Loads a block.
    unsafe fn load(p: *const Block) -> Self;
    /// Stores a block.
    unsafe fn store(self, p: *mut Block);
    /// Bitwise XOR.
    unsafe fn xor(self, o: Self) -> Self;
}

impl Label128 for Block {
    #[inline(always)]
    unsafe fn splat(b: Block) -> Self {
        b
    }
    #[inline(always)]
    unsafe fn load(p: *const Block) -> Self {
        // SAFETY: the caller guarantees `p` is valid.
        unsafe { *p }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut Block) {
        // SAFETY: the caller guarantees `p` is valid.
        unsafe { *p = self }
    }
    #[inline(always)]
    unsafe fn xor(self, o: Self) -> Self {
        self ^ o
    }
}

/// Wires `[a, b, out]` of the AND gates of one chunk, padded by
/// [`PAD`] copies of the last gate so vector kernels can read whole vectors.
type Wires = [[u32; 3]; AND_CHUNK + PAD];

/// Padding of chunk buffers: vector kernels process up to 4 gates at once
/// and may compute (and then ignore) up to 3 lanes past the chunk's end.
const PAD: usize = 3;

/// One chunk of AND gates, ready for a kernel.
///
/// Invariants: `ws` holds `k ≥ 1` gates followed by [`PAD`] copies of the
/// last one, all with wires that index into `labels`; the AND ids
/// `gid..gid + k` do not wrap the low 64 bits of the tweak `2·id + 1` (see
/// `chunk_limit`).
struct Chunk<'a> {
    ws: &'a Wires,
    k: usize,
    gid: u64,
    labels: *const Block,
}

/// Garbles or evaluates one chunk of AND gates.
///
/// # Safety (all methods)
/// The chunk's invariants hold and the CPU supports the kernel.
trait AndKernel {
    /// The label representation of the surrounding loop.
    type Label: Label128;

    /// Writes `(TG, TE)` of gate `m` to `tables[2m..2m + 2]` (the buffer may
    /// be overwritten up to `2(k + PAD)` blocks) and its output 0-label to
    /// `outs[m]` (up to `k + PAD`).
    unsafe fn garble_ands(&self, c: &Chunk, delta: Block, tables: *mut Block, outs: *mut Block);

    /// Reads `(TG, TE)` of gate `m` from `tables[2m..2m + 2]` (exactly `2k`
    /// blocks are readable) and writes its output label to `outs[m]` (up to
    /// `k + PAD`).
    unsafe fn eval_ands(&self, c: &Chunk, tables: *const Block, outs: *mut Block);
}

/// The most AND gates the chunk starting at id `gid` may hold: at most
/// [`AND_CHUNK`], and never straddling id 2^63, so the low 64 bits of the
/// tweaks `2·id` and `2·id + 1` of a chunk never wrap and vector kernels can
/// count tweaks with 64-bit additions.
#[inline(always)]
fn chunk_limit(gid: u64) -> usize {
    const HALF: u64 = 1 << 63;
    if gid < HALF && HALF - gid < AND_CHUNK as u64 {
        (HALF - gid) as usize
    } else {
        AND_CHUNK
    }
}

/// Reads the next run of at most `limit` AND gates from `gates[*i..]` into
/// `ws`, checking their wires, and pads `ws`. Returns the number read (≥ 1
/// when `gates[*i]` is an AND gate).
///
/// # Safety
/// `*i < gates.len()`.
#[inline(always)]
unsafe fn collect_ands(
    gates: &[Gate],
    i: &mut usize,
    limit: usize,
    num_wires: usize,
    ws: &mut Wires,
) -> Result<usize, Stop> {
    let start = *i;
    let end = gates.len().min(start + limit);
    let g = gates.as_ptr();
    // The OR of all wires bounds each of them: one cheap check of the whole
    // run before any label is read, and an exact one only if it fails.
    let mut any = 0u32;
    let mut j = start;
    while j < end {
        let Gate::And { a, b, out } = *g.add(j) else {
            break;
        };
        any |= a | b | out;
        *ws.get_unchecked_mut(j - start) = [a, b, out];
        j += 1;
    }
    if any as usize >= num_wires
        && ws[..j - start]
            .iter()
            .any(|&[a, b, out]| !in_range(a, b, out, num_wires))
    {
        // Error path: report the first offending gate.
        let bad = (start..j).find(|&m| {
            let [a, b, out] = *ws.get_unchecked(m - start);
            !in_range(a, b, out, num_wires)
        });
        return Err(Stop::Wire(bad.unwrap_or(start)));
    }
    let k = j - start;
    *i = j;
    let last = *ws.get_unchecked(k.saturating_sub(1));
    for p in 0..PAD {
        *ws.get_unchecked_mut(k + p) = last;
    }
    Ok(k)
}

/// Whether all three wires are below `n`.
#[inline(always)]
fn in_range(a: u32, b: u32, out: u32, n: usize) -> bool {
    (a.max(b).max(out) as usize) < n
}

/// The garbling loop; returns the number of AND gates garbled.
///
/// # Safety
/// The CPU supports the kernel.
#[inline(always)]
unsafe fn garble_loop<K: AndKernel>(
    kern: &K,
    delta: Block,
    first_gid: u64,
    gates: &[Gate],
    labels: &mut [Block],
    tables: &mut Vec<Block>,
) -> Result<u64, Stop> {
    let num_wires = labels.len();
    let labels = labels.as_mut_ptr();
    let d = K::Label::splat(delta);
    let mut ws: Wires = [[0; 3]; AND_CHUNK + PAD];
    let mut outs = [Block::ZERO; AND_CHUNK + PAD];
    let mut gid = first_gid;
    let n = gates.len();
    let mut i = 0;
    while i < n {
        match *gates.as_ptr().add(i) {
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
                let k = collect_ands(gates, &mut i, chunk_limit(gid), num_wires, &mut ws)?;
                tables.reserve(2 * (k + PAD));
                let len = tables.len();
                let tp = tables.as_mut_ptr().add(len);
                let c = Chunk {
                    ws: &ws,
                    k,
                    gid,
                    labels,
                };
                kern.garble_ands(&c, delta, tp, outs.as_mut_ptr());
                // Vector kernels may have written padding lanes (hashed with
                // the next gates' tweaks) past the chunk: wipe them.
                for p in 2 * k..2 * (k + PAD) {
                    *tp.add(p) = Block::ZERO;
                }
                // The kernel initialised the first `2 * k` reserved blocks.
                tables.set_len(len + 2 * k);
                // All inputs of the chunk were read; now write its outputs.
                for m in 0..k {
                    let out = ws.get_unchecked(m)[2] as usize;
                    K::Label::load(outs.as_ptr().add(m)).store(labels.add(out));
                }
                gid += k as u64;
            }
        }
    }
    Ok(gid - first_gid)
}

/// The evaluation loop; returns the number of AND gates evaluated.
///
/// # Safety
/// The CPU supports the kernel.
#[inline(always)]
unsafe fn evaluate_loop<K: AndKernel>(
    kern: &K,
    first_gid: u64,
    gates: &[Gate],
    labels: &mut [Block],
    tables: &[Block],
) -> Result<u64, Stop> {
    let num_wires = labels.len();
    let labels = labels.as_mut_ptr();
    let mut ws: Wires = [[0; 3]; AND_CHUNK + PAD];
    let mut outs = [Block::ZERO; AND_CHUNK + PAD];
    let mut gid = first_gid;
    let mut used = 0usize;
    let n = gates.len();
    let mut i = 0;
    while i < n {
        match *gates.as_ptr().add(i) {
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
                K::Label::load(labels.add(a as usize)).store(labels.add(out as usize));
                i += 1;
            }
            Gate::And { .. } => {
                let k = collect_ands(gates, &mut i, chunk_limit(gid), num_wires, &mut ws)?;
                if (tables.len() - used) / 2 < k {
                    return Err(Stop::Tables);
                }
                let tp = tables.as_ptr().add(used);
                let c = Chunk {
                    ws: &ws,
                    k,
                    gid,
                    labels,
                };
                kern.eval_ands(&c, tp, outs.as_mut_ptr());
                used += 2 * k;
                for m in 0..k {
                    let out = ws.get_unchecked(m)[2] as usize;
                    K::Label::load(outs.as_ptr().add(m)).store(labels.add(out));
                }
                gid += k as u64;
            }
        }
    }
    Ok(gid - first_gid)
}

/// The tweak pair `(2g, 2g + 1)` of AND gate `g`.
#[inline(always)]
fn tweaks(g: u64) -> (Block, Block) {
    let j = (g as u128) << 1;
    (Block(j), Block(j | 1))
}

/// The portable kernel: gathers a chunk's hash inputs into buffers, hashes
/// them with the `aes` crate, then combines.
struct SoftKernel<'a>(&'a aes::Aes128);

impl AndKernel for SoftKernel<'_> {
    type Label = Block;

    unsafe fn garble_ands(&self, c: &Chunk, delta: Block, tables: *mut Block, outs: *mut Block) {
        let (ws, k, gid, labels) = (c.ws, c.k, c.gid, c.labels);
        // Per gate: hash inputs A0, A0⊕Δ, B0, B0⊕Δ with tweaks j, j, j', j'.
        let mut xs = [Block::ZERO; 4 * AND_CHUNK];
        let mut hs = [Block::ZERO; 4 * AND_CHUNK];
        let mut ts = [Block::ZERO; 4 * AND_CHUNK];
        for (m, w) in ws[..k].iter().enumerate() {
            let (a0, b0) = (*labels.add(w[0] as usize), *labels.add(w[1] as usize));
            let (j0, j1) = tweaks(gid + m as u64);
            xs[4 * m..4 * m + 4].copy_from_slice(&[a0, a0 ^ delta, b0, b0 ^ delta]);
            ts[4 * m..4 * m + 4].copy_from_slice(&[j0, j0, j1, j1]);
        }
        hs[..4 * k].copy_from_slice(&xs[..4 * k]);
        soft_tccr(self.0, &mut hs[..4 * k], &ts[..4 * k]);
        for m in 0..k {
            let [ha0, ha1, hb0, hb1] = [hs[4 * m], hs[4 * m + 1], hs[4 * m + 2], hs[4 * m + 3]];
            let (a0, pb) = (xs[4 * m], xs[4 * m + 2].lsb());
            let tg = ha0 ^ ha1 ^ delta.select(pb);
            let wg = ha0 ^ tg.select(a0.lsb());
            let te = hb0 ^ hb1 ^ a0;
            let we = hb0 ^ (hb0 ^ hb1).select(pb);
            *tables.add(2 * m) = tg;
            *tables.add(2 * m + 1) = te;
            *outs.add(m) = wg ^ we;
        }
    }

    unsafe fn eval_ands(&self, c: &Chunk, tables: *const Block, outs: *mut Block) {
        let (ws, k, gid, labels) = (c.ws, c.k, c.gid, c.labels);
        // Per gate: hash inputs A, B with tweaks j, j'.
        let mut xs = [Block::ZERO; 2 * AND_CHUNK];
        let mut hs = [Block::ZERO; 2 * AND_CHUNK];
        let mut ts = [Block::ZERO; 2 * AND_CHUNK];
        for (m, w) in ws[..k].iter().enumerate() {
            let (j0, j1) = tweaks(gid + m as u64);
            xs[2 * m] = *labels.add(w[0] as usize);
            xs[2 * m + 1] = *labels.add(w[1] as usize);
            ts[2 * m] = j0;
            ts[2 * m + 1] = j1;
        }
        hs[..2 * k].copy_from_slice(&xs[..2 * k]);
        soft_tccr(self.0, &mut hs[..2 * k], &ts[..2 * k]);
        for m in 0..k {
            let (a, b) = (xs[2 * m], xs[2 * m + 1]);
            let (tg, te) = (*tables.add(2 * m), *tables.add(2 * m + 1));
            *outs.add(m) =
                hs[2 * m] ^ tg.select(a.lsb()) ^ hs[2 * m + 1] ^ (te ^ a).select(b.lsb());
        }
    }
}

/// The hardware kernels, generic over the vector width, and their
/// per-backend instantiations compiled with the backend's CPU features.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{evaluate_loop, garble_loop, AndKernel, Chunk, Stop, PAD};
    use crate::aes::{HwBackend, RoundKeys};
    use crate::block::Block;
    use crate::x86::{splat_keys, tccr_regs, Lanes, X1, Y2, Z4};
    use twofold_circuit::Gate;

    /// A hardware kernel: the fixed-key round keys splatted into vectors `L`.
    /// A vector holds one lane per gate, for `L::BLOCKS` gates at once.
    ///
    /// The garbler hashes `GG` vector-groups of gates at a time (`GW = 4·GG`
    /// vectors), the evaluator `EG` groups (`EW = 2·EG` vectors): enough
    /// independent AES streams to keep the pipeline full without too many
    /// register spills (tuned per vector width).
    pub(super) struct HwKernel<
        L: Lanes,
        const GG: usize,
        const GW: usize,
        const EG: usize,
        const EW: usize,
    > {
        k: [L; 11],
    }

    /// Lane `i` holds `2·(gid + i)`: the first tweak of gate `gid + i`.
    /// (Padding lanes past a chunk's end thus hash with the next gates'
    /// tweaks; their results are discarded and never leave the crate.)
    #[inline(always)]
    unsafe fn first_tweaks<L: Lanes>(gid: u64) -> L {
        let mut t = [Block::ZERO; 4];
        for (i, ti) in t.iter_mut().enumerate() {
            *ti = Block(((gid as u128) + i as u128) << 1);
        }
        L::load(t.as_ptr())
    }

    impl<L: Lanes, const GG: usize, const GW: usize, const EG: usize, const EW: usize>
        HwKernel<L, GG, GW, EG, EW>
    {
        /// Splats the round keys.
        ///
        /// # Safety
        /// The CPU must support the features of `L`.
        #[inline(always)]
        unsafe fn new(rk: &RoundKeys) -> Self {
            HwKernel { k: splat_keys(rk) }
        }

        /// Garbles `G` vector-groups of gates (`G · L::BLOCKS` gates) from
        /// group `v` on, hashing `4·G` vectors together.
        #[inline(always)]
        unsafe fn garble_groups<const G: usize, const W: usize>(
            &self,
            c: &Chunk,
            v: usize,
            ta: &mut L,
            d: L,
            tables: *mut Block,
            outs: *mut Block,
        ) {
            let (ws, labels) = (c.ws, c.labels);
            let one = L::splat(Block(1));
            let step = L::splat(Block(2 * L::BLOCKS as u128));
            let mut x = [d; W];
            let mut t = [d; W];
            for g in 0..G {
                let w = ws.as_ptr().add((v + g) * L::BLOCKS);
                let (a0, b0) = (L::gather(labels, w, 0), L::gather(labels, w, 1));
                x[4 * g] = a0;
                x[4 * g + 1] = a0.xor(d);
                x[4 * g + 2] = b0;
                x[4 * g + 3] = b0.xor(d);
                let tb = ta.xor(one);
                t[4 * g] = *ta;
                t[4 * g + 1] = *ta;
                t[4 * g + 2] = tb;
                t[4 * g + 3] = tb;
                *ta = ta.add64(step);
            }
            let mut h = x;
            tccr_regs(&self.k, &mut h, &t);
            for g in 0..G {
                let (ha0, ha1, hb0, hb1) = (h[4 * g], h[4 * g + 1], h[4 * g + 2], h[4 * g + 3]);
                let (a0, b0) = (x[4 * g], x[4 * g + 2]);
                let (pa, pb) = (a0.colour(), b0.colour());
                // TG = H(A0) ⊕ H(A1) ⊕ pb·Δ, WG = H(A0) ⊕ pa·TG,
                // TE = H(B0) ⊕ H(B1) ⊕ A0, WE = H(B0) ⊕ pb·(H(B0) ⊕ H(B1)).
                let tg = ha0.xor(ha1).mask_xor(pb, d);
                let wg = ha0.mask_xor(pa, tg);
                let gb = hb0.xor(hb1);
                let te = gb.xor(a0);
                let we = hb0.mask_xor(pb, gb);
                let gate = (v + g) * L::BLOCKS;
                L::store_interleaved(tg, te, tables.add(2 * gate));
                wg.xor(we).store(outs.add(gate));
            }
        }

        /// Evaluates `G` vector-groups of gates from group `v` on, hashing
        /// `2·G` vectors together; `tables` points at group `v`'s tables.
        #[inline(always)]
        unsafe fn eval_groups<const G: usize, const W: usize>(
            &self,
            c: &Chunk,
            v: usize,
            ta: &mut L,
            tables: *const Block,
            outs: *mut Block,
        ) {
            let (ws, labels) = (c.ws, c.labels);
            let one = L::splat(Block(1));
            let step = L::splat(Block(2 * L::BLOCKS as u128));
            let mut x = [one; W];
            let mut t = [one; W];
            for g in 0..G {
                let w = ws.as_ptr().add((v + g) * L::BLOCKS);
                x[2 * g] = L::gather(labels, w, 0);
                x[2 * g + 1] = L::gather(labels, w, 1);
                t[2 * g] = *ta;
                t[2 * g + 1] = ta.xor(one);
                *ta = ta.add64(step);
            }
            let mut h = x;
            tccr_regs(&self.k, &mut h, &t);
            for g in 0..G {
                let (a, b) = (x[2 * g], x[2 * g + 1]);
                let (tg, te) = L::load_deinterleaved(tables.add(2 * g * L::BLOCKS));
                // C = H(A) ⊕ sa·TG ⊕ H(B) ⊕ sb·(TE ⊕ A).
                let c = h[2 * g]
                    .xor(h[2 * g + 1])
                    .mask_xor(a.colour(), tg)
                    .mask_xor(b.colour(), te.xor(a));
                c.store(outs.add((v + g) * L::BLOCKS));
            }
        }
    }

    impl<L: Lanes, const GG: usize, const GW: usize, const EG: usize, const EW: usize> AndKernel
        for HwKernel<L, GG, GW, EG, EW>
    {
        type Label = X1;

        #[inline(always)]
        unsafe fn garble_ands(
            &self,
            c: &Chunk,
            delta: Block,
            tables: *mut Block,
            outs: *mut Block,
        ) {
            const { assert!(PAD + 1 >= L::BLOCKS) };
            let d = L::splat(delta);
            let mut ta = first_tweaks::<L>(c.gid);
            // Vector groups, the last possibly padded (PAD ≥ BLOCKS - 1).
            let groups = c.k.div_ceil(L::BLOCKS);
            let mut v = 0;
            const { assert!(GW == 4 * GG) };
            while v + GG <= groups {
                self.garble_groups::<GG, GW>(c, v, &mut ta, d, tables, outs);
                v += GG;
            }
            while v < groups {
                self.garble_groups::<1, 4>(c, v, &mut ta, d, tables, outs);
                v += 1;
            }
        }

        #[inline(always)]
        unsafe fn eval_ands(&self, c: &Chunk, tables: *const Block, outs: *mut Block) {
            const { assert!(PAD + 1 >= L::BLOCKS) };
            let mut ta = first_tweaks::<L>(c.gid);
            let full = c.k / L::BLOCKS;
            let mut v = 0;
            const { assert!(EW == 2 * EG) };
            while v + EG <= full {
                let tp = tables.add(2 * v * L::BLOCKS);
                self.eval_groups::<EG, EW>(c, v, &mut ta, tp, outs);
                v += EG;
            }
            while v < full {
                let tp = tables.add(2 * v * L::BLOCKS);
                self.eval_groups::<1, 2>(c, v, &mut ta, tp, outs);
                v += 1;
            }
            let rest = c.k - full * L::BLOCKS;
            if rest > 0 {
                // A padded last group: copy its tables so whole vectors can
                // be read without passing the end of the caller's slice.
                let mut tail = [Block::ZERO; 2 * PAD + 2];
                let tp = tables.add(2 * full * L::BLOCKS);
                std::ptr::copy_nonoverlapping(tp, tail.as_mut_ptr(), 2 * rest);
                self.eval_groups::<1, 2>(c, full, &mut ta, tail.as_ptr(), outs);
            }
        }
    }

    macro_rules! instantiate {
        ($garble:ident, $evaluate:ident, $kernel:ty, $features:literal) => {
            #[target_feature(enable = $features)]
            unsafe fn $garble(
                rk: &RoundKeys,
                delta: Block,
                gid: u64,
                gates: &[Gate],
                labels: &mut [Block],
                tables: &mut Vec<Block>,
            ) -> Result<u64, Stop> {
                let kern = <$kernel>::new(rk);
                garble_loop(&kern, delta, gid, gates, labels, tables)
            }

            #[target_feature(enable = $features)]
            unsafe fn $evaluate(
                rk: &RoundKeys,
                gid: u64,
                gates: &[Gate],
                labels: &mut [Block],
                tables: &[Block],
            ) -> Result<u64, Stop> {
                let kern = <$kernel>::new(rk);
                evaluate_loop(&kern, gid, gates, labels, tables)
            }
        };
    }

    // Stream counts measured best on an AMD Zen 5 (16 SSE/AVX registers for
    // AES-NI and VAES-256, 32 for VAES-512).
    instantiate!(
        garble_aesni,
        evaluate_aesni,
        HwKernel<X1, 2, 8, 4, 8>,
        "aes,sse4.1"
    );
    instantiate!(
        garble_vaes256,
        evaluate_vaes256,
        HwKernel<Y2, 2, 8, 4, 8>,
        "aes,sse4.1,avx2,vaes"
    );
    instantiate!(
        garble_vaes512,
        evaluate_vaes512,
        HwKernel<Z4, 4, 16, 6, 12>,
        "aes,sse4.1,avx2,vaes,avx512f"
    );

    /// Garbles on a hardware backend.
    ///
    /// # Safety
    /// As `garble_loop`, with `hw` built by feature detection.
    pub(super) unsafe fn garble(
        hw: HwBackend,
        rk: &RoundKeys,
        delta: Block,
        gid: u64,
        gates: &[Gate],
        labels: &mut [Block],
        tables: &mut Vec<Block>,
    ) -> Result<u64, Stop> {
        let f = match hw {
            HwBackend::AesNi => garble_aesni,
            HwBackend::Vaes256 => garble_vaes256,
            HwBackend::Vaes512 => garble_vaes512,
        };
        f(rk, delta, gid, gates, labels, tables)
    }

    /// Evaluates on a hardware backend.
    ///
    /// # Safety
    /// As `evaluate_loop`, with `hw` built by feature detection.
    pub(super) unsafe fn evaluate(
        hw: HwBackend,
        rk: &RoundKeys,
        gid: u64,
        gates: &[Gate],
        labels: &mut [Block],
        tables: &[Block],
    ) -> Result<u64, Stop> {
        let f = match hw {
            HwBackend::AesNi => evaluate_aesni,
            HwBackend::Vaes256 => evaluate_vaes256,
            HwBackend::Vaes512 => evaluate_vaes512,
        };
        f(rk, gid, gates, labels, tables)
    }
}
