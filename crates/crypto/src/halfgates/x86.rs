//! The hardware kernels, generic over the vector width, and their
//! per-backend instantiations compiled with the backend's CPU features.

use super::batch::{AndKernel, Evaluating, Garbling};
use crate::batch::{evaluate_loop, garble_loop, Chunk, Label128, LoopBuffers, Stop, PAD};
use crate::block::Block;
use crate::hw::{HwBackend, RoundKeys};
use crate::label::RawLabels;
use crate::x86::{splat_keys, tccr_regs, Lanes, X1, Y2, Z4};
use twofold_circuit::Gate;

/// SSE registers as the labels of the loops around the hardware kernels.
impl Label128 for X1 {
    #[inline]
    #[target_feature(enable = "aes,sse4.1")]
    unsafe fn splat(b: Block) -> Self {
        <X1 as Lanes>::splat(b)
    }
    #[inline]
    #[target_feature(enable = "aes,sse4.1")]
    unsafe fn load(p: *const Block) -> Self {
        <X1 as Lanes>::load(p)
    }
    #[inline]
    #[target_feature(enable = "aes,sse4.1")]
    unsafe fn store(self, p: *mut Block) {
        <X1 as Lanes>::store(self, p)
    }
    #[inline]
    #[target_feature(enable = "aes,sse4.1")]
    unsafe fn xor(self, o: Self) -> Self {
        <X1 as Lanes>::xor(self, o)
    }
}

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
    unsafe fn garble_ands(&self, c: &Chunk, delta: Block, tables: *mut Block, outs: *mut Block) {
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
            // (Byte-wise: the tables need not be aligned.)
            std::ptr::copy_nonoverlapping(tp as *const u8, tail.as_mut_ptr() as *mut u8, 32 * rest);
            self.eval_groups::<1, 2>(c, full, &mut ta, tail.as_ptr(), outs);
        }
    }
}

macro_rules! instantiate {
    ($garble:ident, $evaluate:ident, $kernel:ty, $features:literal) => {
        #[target_feature(enable = $features)]
        #[allow(clippy::too_many_arguments)]
        unsafe fn $garble(
            rk: &RoundKeys,
            delta: Block,
            gid: u64,
            gates: &[Gate],
            labels: RawLabels,
            tables: &mut Vec<u8>,
            buffers: &mut LoopBuffers,
        ) -> Result<u64, Stop> {
            let kern = <$kernel>::new(rk);
            let mut out = Garbling {
                kern: &kern,
                delta,
                tables,
            };
            garble_loop(&mut out, delta, gid, gates, labels, buffers)
        }

        #[target_feature(enable = $features)]
        unsafe fn $evaluate(
            rk: &RoundKeys,
            gid: u64,
            gates: &[Gate],
            labels: RawLabels,
            tables: &[u8],
            buffers: &mut LoopBuffers,
        ) -> Result<u64, Stop> {
            let kern = <$kernel>::new(rk);
            let mut input = Evaluating {
                kern: &kern,
                tables,
                used: 0,
            };
            evaluate_loop(&mut input, gid, gates, labels, buffers)
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
// The loop's inputs, passed through to the kernel of `hw`.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn garble(
    hw: HwBackend,
    rk: &RoundKeys,
    delta: Block,
    gid: u64,
    gates: &[Gate],
    labels: RawLabels,
    tables: &mut Vec<u8>,
    buffers: &mut LoopBuffers,
) -> Result<u64, Stop> {
    let f = match hw {
        HwBackend::AesNi => garble_aesni,
        HwBackend::Vaes256 => garble_vaes256,
        HwBackend::Vaes512 => garble_vaes512,
    };
    f(rk, delta, gid, gates, labels, tables, buffers)
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
    labels: RawLabels,
    tables: &[u8],
    buffers: &mut LoopBuffers,
) -> Result<u64, Stop> {
    let f = match hw {
        HwBackend::AesNi => evaluate_aesni,
        HwBackend::Vaes256 => evaluate_vaes256,
        HwBackend::Vaes512 => evaluate_vaes512,
    };
    f(rk, gid, gates, labels, tables, buffers)
}
