//! The loops shared by every AND kernel: gates are walked in order, XOR and
//! INV gates done in place, and runs of AND gates gathered into chunks of up
//! to [`AND_CHUNK`] gates that an [`AndKernel`] garbles or evaluates at once.

use super::{HalfGates, AND_CHUNK};
use crate::block::Block;
use crate::error::CryptoError;
use crate::scheme::GarblingScheme;
use twofold_circuit::Gate;

/// Blocks of table per AND gate: `(TG, TE)`.
const TB: usize = HalfGates::TABLE_BLOCKS;

/// Why a garbling or evaluation loop stopped early.
pub(super) enum Stop {
    /// The gate at this index uses a wire outside the label slice.
    Wire(usize),
    /// The tables ran out (evaluator).
    Tables,
}

impl Stop {
    /// The precise error (computed on the error path only).
    pub(super) fn into_error(self, gates: &[Gate], num_wires: usize, tables: usize) -> CryptoError {
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
                needed: TB * gates.iter().filter(|g| g.is_and()).count(),
                got: tables,
            },
        }
    }
}

/// Checks that the AND gates of `gates`, numbered from `first`, leave the
/// next id representable. Counts the AND gates only near the end of the id
/// space.
pub(super) fn check_ids(first: u64, gates: &[Gate]) -> Result<(), CryptoError> {
    let room = u64::MAX - first;
    if gates.len() as u64 <= room || gates.iter().filter(|g| g.is_and()).count() as u64 <= room {
        Ok(())
    } else {
        Err(CryptoError::GateIdOverflow)
    }
}

/// 128-bit label operations for the loops around the AND kernels: plain
/// [`Block`]s, or SSE registers on x86-64.
///
/// # Safety
/// Every method requires the CPU features of the implementation; pointers
/// must be valid for one block.
pub(super) trait Label128: Copy {
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
pub(super) type Wires = [[u32; 3]; AND_CHUNK + PAD];

/// Padding of chunk buffers: vector kernels process up to 4 gates at once
/// and may compute (and then ignore) up to 3 lanes past the chunk's end.
pub(super) const PAD: usize = 3;

/// One chunk of AND gates, ready for a kernel.
///
/// Invariants: `ws` holds `k ≥ 1` gates followed by [`PAD`] copies of the
/// last one, all with wires that index into `labels`; the AND ids
/// `gid..gid + k` do not wrap the low 64 bits of the tweak `2·id + 1` (see
/// `chunk_limit`).
pub(super) struct Chunk<'a> {
    pub(super) ws: &'a Wires,
    pub(super) k: usize,
    pub(super) gid: u64,
    pub(super) labels: *const Block,
}

/// Garbles or evaluates one chunk of AND gates.
///
/// # Safety (all methods)
/// The chunk's invariants hold and the CPU supports the kernel.
pub(super) trait AndKernel {
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
pub(super) unsafe fn garble_loop<K: AndKernel>(
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
                tables.reserve(TB * (k + PAD));
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
                for p in TB * k..TB * (k + PAD) {
                    *tp.add(p) = Block::ZERO;
                }
                // The kernel initialised the first `TB * k` reserved blocks.
                tables.set_len(len + TB * k);
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
pub(super) unsafe fn evaluate_loop<K: AndKernel>(
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
                if (tables.len() - used) / TB < k {
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
                used += TB * k;
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
pub(super) fn tweaks(g: u64) -> (Block, Block) {
    let j = (g as u128) << 1;
    (Block(j), Block(j | 1))
}
