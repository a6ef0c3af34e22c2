//! The gate loops shared by every garbling scheme: gates are walked in order,
//! XOR and INV gates done in place (free XOR), and runs of AND gates
//! gathered into [`Chunk`]s of up to [`AND_CHUNK`] gates that a scheme's
//! kernel garbles or evaluates at once, writing or reading its tables.

use crate::aes::Backend;
use crate::block::Block;
use crate::error::CryptoError;
use crate::label::RawLabels;
use crate::tccr::Tccr;
use twofold_circuit::Gate;

/// Consecutive AND gates hashed in one batch.
pub const AND_CHUNK: usize = 64;

/// What every scheme's garbler and evaluator hold besides their secrets:
/// the id of the next AND gate, the TCCR hash on its AES backend and the
/// gate loops' buffers.
#[derive(Clone, Debug)]
pub(crate) struct Core {
    pub(crate) next_gate: u64,
    pub(crate) tccr: Tccr,
    pub(crate) buffers: Box<LoopBuffers>,
}

/// The buffers of the gate loops (a chunk's wires and output labels), kept
/// between calls: zeroing them at every call cost about a quarter of a
/// call on a small batch (16 of 66 ns for two ANDs), and a walk of narrow
/// levels makes millions of such calls.
#[derive(Clone)]
pub(crate) struct LoopBuffers {
    ws: Wires,
    outs: [Block; AND_CHUNK + PAD],
}

impl Default for LoopBuffers {
    fn default() -> Self {
        LoopBuffers {
            ws: [[0; 3]; AND_CHUNK + PAD],
            outs: [Block::ZERO; AND_CHUNK + PAD],
        }
    }
}

impl std::fmt::Debug for LoopBuffers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LoopBuffers")
    }
}

impl Core {
    /// At AND gate `first_gate`, on the fastest backend.
    pub(crate) fn new(first_gate: u64) -> Core {
        Core {
            next_gate: first_gate,
            tccr: Tccr::new(),
            buffers: Box::default(),
        }
    }

    /// The same hash, at AND gate `gate_id` (for a garbler or evaluator
    /// continuing elsewhere: a part of a parallel run or after a skip).
    pub(crate) fn at(&self, gate_id: u64) -> Core {
        Core {
            next_gate: gate_id,
            tccr: self.tccr.clone(),
            buffers: Box::default(),
        }
    }

    /// At AND gate `first_gate`, on `backend` (fails if unavailable).
    pub(crate) fn with_backend(first_gate: u64, backend: Backend) -> Result<Core, CryptoError> {
        Ok(Core {
            next_gate: first_gate,
            tccr: Tccr::with_backend(backend)?,
            buffers: Box::default(),
        })
    }
}

/// Why a garbling or evaluation loop stopped early.
pub(crate) enum Stop {
    /// The gate at this index uses a wire outside the label slice.
    Wire(usize),
    /// The tables ran out (evaluator).
    Tables,
}

impl Stop {
    /// The precise error (computed on the error path only); `needed` is the
    /// scheme's table size for the AND gates of `gates`, `tables` the bytes
    /// supplied.
    pub(crate) fn into_error(
        self,
        gates: &[Gate],
        num_wires: usize,
        tables: usize,
        needed: fn(usize) -> usize,
    ) -> CryptoError {
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
                needed: needed(gates.iter().filter(|g| g.is_and()).count()),
                got: tables,
            },
        }
    }
}

/// Ends a garbling or evaluation call over `gates` and `num_wires` labels
/// that returned `done`: advances `next_gate` by the AND gates done, or
/// gives the precise error (`tables` bytes were supplied; `needed` is the
/// scheme's table size).
pub(crate) fn conclude(
    done: Result<u64, Stop>,
    next_gate: &mut u64,
    gates: &[Gate],
    num_wires: usize,
    tables: usize,
    needed: fn(usize) -> usize,
) -> Result<(), CryptoError> {
    match done {
        Ok(ands) => {
            *next_gate += ands;
            Ok(())
        }
        Err(stop) => Err(stop.into_error(gates, num_wires, tables, needed)),
    }
}

/// Checks that the AND gates of `gates`, numbered from `first`, leave the
/// next id representable. Counts the AND gates only near the end of the id
/// space.
pub(crate) fn check_ids(first: u64, gates: &[Gate]) -> Result<(), CryptoError> {
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
pub(crate) type Wires = [[u32; 3]; AND_CHUNK + PAD];

/// Padding of chunk buffers: vector kernels process up to 4 gates at once
/// and may compute (and then ignore) up to 3 lanes past the chunk's end.
pub(crate) const PAD: usize = 3;

/// One chunk of AND gates, ready for a kernel.
///
/// Invariants: `ws` holds `k ≥ 1` gates followed by [`PAD`] copies of the
/// last one, all with wires that index into `labels`; the AND ids
/// `gid..gid + k` do not cross 2^63 (see `chunk_limit`).
pub(crate) struct Chunk<'a> {
    pub(crate) ws: &'a Wires,
    pub(crate) k: usize,
    pub(crate) gid: u64,
    pub(crate) labels: *const Block,
}

/// A scheme's garbling kernel with its table output: garbles one chunk of
/// AND gates at a time, appending the chunk's tables.
pub(crate) trait ChunkGarbler {
    /// The label representation of the surrounding loop.
    type Label: Label128;

    /// Garbles the chunk (Δ is the kernel's), appends its tables and writes
    /// the output 0-label of gate `m` to `outs[m]` (the buffer holds
    /// `AND_CHUNK + PAD` blocks).
    ///
    /// # Safety
    /// The chunk's invariants hold and the CPU supports the kernel.
    unsafe fn garble_chunk(&mut self, c: &Chunk, outs: *mut Block);
}

/// A scheme's evaluating kernel with its table input: evaluates one chunk
/// of AND gates at a time, consuming the chunk's tables.
pub(crate) trait ChunkEvaluator {
    /// The label representation of the surrounding loop.
    type Label: Label128;

    /// Evaluates the chunk from the next tables and writes the output label
    /// of gate `m` to `outs[m]` (the buffer holds `AND_CHUNK + PAD` blocks);
    /// fails with [`Stop::Tables`] if the tables run out.
    ///
    /// # Safety
    /// The chunk's invariants hold and the CPU supports the kernel.
    unsafe fn eval_chunk(&mut self, c: &Chunk, outs: *mut Block) -> Result<(), Stop>;
}

/// The most AND gates the chunk starting at id `gid` may hold: at most
/// [`AND_CHUNK`], and never straddling id 2^63, so the low 64 bits of the
/// tweaks of a chunk never wrap and vector kernels can count tweaks with
/// 64-bit additions.
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
        prefetch(g.wrapping_add(j + PREFETCH_GATES));
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

/// How far ahead of what the loops read the streams they read are fetched
/// into the cache (4 KiB). A flat circuit's gate list (16 bytes a gate)
/// and an evaluator's tables (32 bytes an AND) stream from memory, tens of
/// megabytes, and on the development VM the hardware prefetcher does not
/// keep up: a loop of XOR gates ran at 5 ns a gate without this, 2 ns with
/// it.
pub(crate) const PREFETCH_BYTES: usize = 4096;
/// [`PREFETCH_BYTES`] in gates.
const PREFETCH_GATES: usize = PREFETCH_BYTES / std::mem::size_of::<Gate>();

/// Starts fetching the cache line at `p` (any address: a prefetch never
/// faults).
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch has no effect but on the cache, whatever the
    // address.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Starts fetching the `len` bytes at `p` (any addresses).
#[inline(always)]
pub(crate) fn prefetch_bytes(p: *const u8, len: usize) {
    for off in (0..len).step_by(64) {
        prefetch(p.wrapping_add(off));
    }
}

/// Whether all three wires are below `n`.
#[inline(always)]
fn in_range(a: u32, b: u32, out: u32, n: usize) -> bool {
    (a.max(b).max(out) as usize) < n
}

/// Walks `gates` over `labels`: XOR gates, INV gates (`inv` is what an INV
/// gate XORs in: Δ for the garbler, zero for the evaluator) and chunks of
/// AND gates handed to `and_chunk`. Returns the number of AND gates.
///
/// # Safety
/// The CPU supports `L`'s operations and `and_chunk`'s kernel; `labels` is
/// valid for its length, and while the loop runs no other thread reads a
/// wire `gates` write, nor writes a wire `gates` read or write.
#[inline(always)]
unsafe fn gate_loop<L: Label128>(
    inv: Option<Block>,
    first_gid: u64,
    gates: &[Gate],
    labels: RawLabels,
    buffers: &mut LoopBuffers,
    mut and_chunk: impl FnMut(&Chunk, *mut Block) -> Result<(), Stop>,
) -> Result<u64, Stop> {
    let (labels, num_wires) = (labels.ptr, labels.len);
    let d = inv.map(|d| L::splat(d));
    let LoopBuffers { ws, outs } = buffers;
    let mut gid = first_gid;
    let n = gates.len();
    let mut i = 0;
    while i < n {
        prefetch(gates.as_ptr().wrapping_add(i + PREFETCH_GATES));
        match *gates.as_ptr().add(i) {
            Gate::Xor { a, b, out } => {
                if !in_range(a, b, out, num_wires) {
                    return Err(Stop::Wire(i));
                }
                let l = L::load(labels.add(a as usize)).xor(L::load(labels.add(b as usize)));
                l.store(labels.add(out as usize));
                i += 1;
            }
            Gate::Inv { a, out } => {
                if !in_range(a, a, out, num_wires) {
                    return Err(Stop::Wire(i));
                }
                let l = L::load(labels.add(a as usize));
                match d {
                    Some(d) => l.xor(d),
                    None => l,
                }
                .store(labels.add(out as usize));
                i += 1;
            }
            Gate::And { .. } => {
                let k = collect_ands(gates, &mut i, chunk_limit(gid), num_wires, ws)?;
                let c = Chunk { ws, k, gid, labels };
                and_chunk(&c, outs.as_mut_ptr())?;
                // All inputs of the chunk were read; now write its outputs.
                for m in 0..k {
                    let out = ws.get_unchecked(m)[2] as usize;
                    L::load(outs.as_ptr().add(m)).store(labels.add(out));
                }
                gid += k as u64;
            }
        }
    }
    Ok(gid - first_gid)
}

/// The garbling loop; returns the number of AND gates garbled.
///
/// # Safety
/// As [`gate_loop`].
#[inline(always)]
pub(crate) unsafe fn garble_loop<K: ChunkGarbler>(
    kern: &mut K,
    delta: Block,
    first_gid: u64,
    gates: &[Gate],
    labels: RawLabels,
    buffers: &mut LoopBuffers,
) -> Result<u64, Stop> {
    gate_loop::<K::Label>(Some(delta), first_gid, gates, labels, buffers, |c, outs| {
        kern.garble_chunk(c, outs);
        Ok(())
    })
}

/// The evaluation loop; returns the number of AND gates evaluated.
///
/// # Safety
/// As [`gate_loop`].
#[inline(always)]
pub(crate) unsafe fn evaluate_loop<K: ChunkEvaluator>(
    kern: &mut K,
    first_gid: u64,
    gates: &[Gate],
    labels: RawLabels,
    buffers: &mut LoopBuffers,
) -> Result<u64, Stop> {
    gate_loop::<K::Label>(None, first_gid, gates, labels, buffers, |c, outs| {
        kern.eval_chunk(c, outs)
    })
}
