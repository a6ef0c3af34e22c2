//! The portable AND kernel, on the `aes` crate.

use super::batch::{tweaks, AndKernel};
use crate::batch::{Chunk, AND_CHUNK};
use crate::block::Block;
use crate::tccr::soft_tccr;

/// The portable kernel: gathers a chunk's hash inputs into buffers, hashes
/// them with the `aes` crate, then combines.
pub(super) struct SoftKernel<'a>(pub(super) &'a aes::Aes128);

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
            tables.add(2 * m).write_unaligned(tg);
            tables.add(2 * m + 1).write_unaligned(te);
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
            let (tg, te) = (
                tables.add(2 * m).read_unaligned(),
                tables.add(2 * m + 1).read_unaligned(),
            );
            *outs.add(m) =
                hs[2 * m] ^ tg.select(a.lsb()) ^ hs[2 * m + 1] ^ (te ^ a).select(b.lsb());
        }
    }
}
