//! The half-gates AND kernels' interface and its adapters to the shared
//! gate loops ([`crate::batch`]): tables are `(TG, TE)`, 32 bytes per AND
//! gate, appended to (read from) a byte buffer.

use crate::batch::{
    prefetch_bytes, Chunk, ChunkEvaluator, ChunkGarbler, Label128, Stop, PAD, PREFETCH_BYTES,
};
use crate::block::Block;

/// Bytes of table per AND gate: `(TG, TE)`.
pub(super) const GATE_BYTES: usize = 32;

/// Garbles or evaluates one chunk of AND gates.
///
/// # Safety (all methods)
/// The chunk's invariants hold and the CPU supports the kernel; table
/// pointers need no alignment (kernels store and load unaligned).
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

/// An [`AndKernel`] garbling into a byte buffer.
pub(super) struct Garbling<'a, K> {
    pub(super) kern: &'a K,
    pub(super) delta: Block,
    pub(super) tables: &'a mut Vec<u8>,
}

impl<K: AndKernel> ChunkGarbler for Garbling<'_, K> {
    type Label = K::Label;

    #[inline(always)]
    unsafe fn garble_chunk(&mut self, c: &Chunk, outs: *mut Block) {
        let k = c.k;
        self.tables.reserve(GATE_BYTES * (k + PAD));
        let len = self.tables.len();
        let tp = self.tables.as_mut_ptr().add(len);
        self.kern.garble_ands(c, self.delta, tp as *mut Block, outs);
        // Vector kernels may have written padding lanes (hashed with the
        // next gates' tweaks) past the chunk: wipe them.
        std::ptr::write_bytes(tp.add(GATE_BYTES * k), 0, GATE_BYTES * PAD);
        // The kernel initialised the first `GATE_BYTES * k` reserved bytes.
        self.tables.set_len(len + GATE_BYTES * k);
    }
}

/// An [`AndKernel`] evaluating from a byte slice, front to back.
pub(super) struct Evaluating<'a, K> {
    pub(super) kern: &'a K,
    pub(super) tables: &'a [u8],
    pub(super) used: usize,
}

impl<K: AndKernel> ChunkEvaluator for Evaluating<'_, K> {
    type Label = K::Label;

    #[inline(always)]
    unsafe fn eval_chunk(&mut self, c: &Chunk, outs: *mut Block) -> Result<(), Stop> {
        let bytes = GATE_BYTES * c.k;
        if self.tables.len() - self.used < bytes {
            return Err(Stop::Tables);
        }
        let tp = self.tables.as_ptr().add(self.used);
        prefetch_bytes(tp.wrapping_add(PREFETCH_BYTES), bytes);
        self.kern.eval_ands(c, tp as *const Block, outs);
        self.used += bytes;
        Ok(())
    }
}

/// The tweak pair `(2g, 2g + 1)` of AND gate `g`.
#[inline(always)]
pub(super) fn tweaks(g: u64) -> (Block, Block) {
    let j = (g as u128) << 1;
    (Block(j), Block(j | 1))
}
