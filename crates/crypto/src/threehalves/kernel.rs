//! The three-halves AND kernels: a chunk's hash queries are gathered and
//! hashed in one batch by the TCCR hash (AES-NI / VAES where available),
//! then each gate is combined with the precomputed masks of the paper's
//! matrices.

use super::{EVAL_MASKS, GARBLE_MASKS, HALVES_BYTES};
use crate::aes::Aes128;
use crate::batch::{Chunk, ChunkEvaluator, ChunkGarbler, Stop, AND_CHUNK};
use crate::block::Block;
use crate::tccr::Tccr;

/// Low half of a block.
#[inline(always)]
fn lo(x: Block) -> u64 {
    x.0 as u64
}

/// High half of a block.
#[inline(always)]
fn hi(x: Block) -> u64 {
    (x.0 >> 64) as u64
}

/// The control-bit mask of a hash output: bit 64.
#[inline(always)]
fn cbit(x: Block) -> u8 {
    (x.0 >> 64) as u8 & 1
}

/// `Σ masks[s] & src[s]` over GF(2).
#[inline(always)]
fn combine<const N: usize>(masks: &[u64; N], src: &[u64; N]) -> u64 {
    let mut acc = 0;
    for s in 0..N {
        acc ^= masks[s] & src[s];
    }
    acc
}

/// The three tweaks `3g, 3g + 1, 3g + 2` of AND gate `g`.
#[inline(always)]
pub(super) fn tweaks(g: u64) -> [Block; 3] {
    let t = 3 * g as u128;
    [Block(t), Block(t + 1), Block(t + 2)]
}

/// The garbler's two coins for each of the AND gates `gid..gid + k` (k ≤
/// 64): bits `2(g mod 64)` and `2(g mod 64) + 1` of `AES_K(⌊g/64⌋)`.
#[inline(always)]
fn coins(aes: &Aes128, gid: u64, k: usize) -> impl Fn(usize) -> usize {
    let q = gid >> 6;
    let mut blocks = [Block(q as u128), Block(q as u128 + 1)];
    if (gid & 63) as usize + k > 64 {
        aes.encrypt_blocks(&mut blocks);
    } else {
        aes.encrypt_blocks(&mut blocks[..1]);
    }
    let all = [blocks[0].0, blocks[1].0];
    let first = 2 * (gid & 63) as usize;
    move |m| {
        let off = first + 2 * m;
        (all[off / 128] >> (off % 128)) as usize & 0b11
    }
}

/// Garbles chunks: ciphertexts straight into `tables`, control bits into
/// `bits` (appended to the tables when the call ends).
pub(super) struct Garbling<'a> {
    pub(super) tccr: &'a Tccr,
    pub(super) coins: &'a Aes128,
    pub(super) delta: Block,
    pub(super) tables: &'a mut Vec<u8>,
    pub(super) bits: &'a mut BitWriter,
}

impl ChunkGarbler for Garbling<'_> {
    type Label = Block;

    #[inline(always)]
    unsafe fn garble_chunk(&mut self, c: &Chunk, outs: *mut Block) {
        let (k, d) = (c.k, self.delta);
        let mut xs = [Block::ZERO; 6 * AND_CHUNK];
        let mut ts = [Block::ZERO; 6 * AND_CHUNK];
        let mut zero = [[Block::ZERO; 2]; AND_CHUNK];
        // Per gate, the colours `a | b << 1` of the 1-labels.
        let mut ones = [0usize; AND_CHUNK];
        for (m, w) in c.ws[..k].iter().enumerate() {
            let (za, zb) = (*c.labels.add(w[0] as usize), *c.labels.add(w[1] as usize));
            // The colour-0 labels.
            let (a0, b0) = (za ^ d.select(za.lsb()), zb ^ d.select(zb.lsb()));
            zero[m] = [a0, b0];
            ones[m] = (!za.lsb() as usize) | (!zb.lsb() as usize) << 1;
            let x0 = a0 ^ b0;
            let [ta, tb, tx] = tweaks(c.gid + m as u64);
            xs[6 * m..6 * m + 6].copy_from_slice(&[a0, a0 ^ d, b0, b0 ^ d, x0, x0 ^ d]);
            ts[6 * m..6 * m + 6].copy_from_slice(&[ta, ta, tb, tb, tx, tx]);
        }
        self.tccr.hash_unchecked(&mut xs[..6 * k], &ts[..6 * k]);
        let coin = coins(self.coins, c.gid, k);
        let mut halves = [0u8; HALVES_BYTES * AND_CHUNK];
        for m in 0..k {
            let [a0, b0] = zero[m];
            let [ha0, ha1, hb0, hb1, hx0, hx1] = [
                xs[6 * m],
                xs[6 * m + 1],
                xs[6 * m + 2],
                xs[6 * m + 3],
                xs[6 * m + 4],
                xs[6 * m + 5],
            ];
            let (a, b) = (ones[m] & 1, ones[m] >> 1);
            let r = coin(m);
            let masks = &GARBLE_MASKS[ones[m] | r << 2];
            let src = [lo(a0), hi(a0), lo(b0), hi(b0), lo(d), hi(d)];
            let cl = combine(&masks[0], &src) ^ lo(ha0) ^ lo(hx0);
            let cr = combine(&masks[1], &src) ^ lo(hb0) ^ lo(hx0);
            let g0 = combine(&masks[2], &src) ^ lo(ha0 ^ ha1);
            let g1 = combine(&masks[3], &src) ^ lo(hb0 ^ hb1);
            let g2 = combine(&masks[4], &src) ^ lo(hx0 ^ hx1);
            let row = &mut halves[HALVES_BYTES * m..HALVES_BYTES * (m + 1)];
            row[..8].copy_from_slice(&g0.to_le_bytes());
            row[8..16].copy_from_slice(&g1.to_le_bytes());
            row[16..].copy_from_slice(&g2.to_le_bytes());
            let (ca0, ca1, cb0, cb1, cx0, cx1) = (
                cbit(ha0),
                cbit(ha1),
                cbit(hb0),
                cbit(hb1),
                cbit(hx0),
                cbit(hx1),
            );
            let z = (r as u8 & 1 ^ ca0 ^ cx0)
                | (r as u8 >> 1 ^ cb0 ^ cx0) << 1
                | (a as u8 ^ ca0 ^ ca1) << 2
                | (b as u8 ^ cb0 ^ cb1) << 3
                | ((a ^ b) as u8 ^ cx0 ^ cx1) << 4;
            self.bits.push5(z);
            *outs.add(m) = Block(cl as u128 | (cr as u128) << 64);
        }
        self.tables.extend_from_slice(&halves[..HALVES_BYTES * k]);
    }
}

/// Evaluates chunks from one call's tables: the ciphertexts of `n` gates,
/// then their control bits.
pub(super) struct Evaluating<'a> {
    pub(super) tccr: &'a Tccr,
    /// `24n` bytes of ciphertexts.
    pub(super) halves: &'a [u8],
    /// `⌈5n/8⌉` bytes of control bits.
    pub(super) bits: &'a [u8],
    /// Gates evaluated so far in this call.
    pub(super) done: usize,
}

impl Evaluating<'_> {
    /// The control bits `z1..z5` of gate `m` of the call.
    #[inline(always)]
    fn control(&self, m: usize) -> usize {
        let p = 5 * m;
        let lo = self.bits[p / 8] as usize;
        let hi = self.bits.get(p / 8 + 1).copied().unwrap_or(0) as usize;
        ((lo | hi << 8) >> (p % 8)) & 0b1_1111
    }
}

impl ChunkEvaluator for Evaluating<'_> {
    type Label = Block;

    #[inline(always)]
    unsafe fn eval_chunk(&mut self, c: &Chunk, outs: *mut Block) -> Result<(), Stop> {
        let k = c.k;
        if self.halves.len() < HALVES_BYTES * (self.done + k)
            || self.bits.len() < (5 * (self.done + k)).div_ceil(8)
        {
            return Err(Stop::Tables);
        }
        let mut xs = [Block::ZERO; 3 * AND_CHUNK];
        let mut ts = [Block::ZERO; 3 * AND_CHUNK];
        let mut ins = [[Block::ZERO; 2]; AND_CHUNK];
        for (m, w) in c.ws[..k].iter().enumerate() {
            let (a, b) = (*c.labels.add(w[0] as usize), *c.labels.add(w[1] as usize));
            ins[m] = [a, b];
            let [ta, tb, tx] = tweaks(c.gid + m as u64);
            xs[3 * m..3 * m + 3].copy_from_slice(&[a, b, a ^ b]);
            ts[3 * m..3 * m + 3].copy_from_slice(&[ta, tb, tx]);
        }
        self.tccr.hash_unchecked(&mut xs[..3 * k], &ts[..3 * k]);
        for m in 0..k {
            let g = self.done + m;
            let row = &self.halves[HALVES_BYTES * g..HALVES_BYTES * (g + 1)];
            let word = |o: usize| u64::from_le_bytes(row[o..o + 8].try_into().expect("8 bytes"));
            let [a, b] = ins[m];
            let [ha, hb, hx] = [xs[3 * m], xs[3 * m + 1], xs[3 * m + 2]];
            let (i, j) = (a.lsb() as usize, b.lsb() as usize);
            let z = self.control(g);
            let ij = i ^ j;
            let (z1, z2, z3, z4, z5) = (z & 1, z >> 1 & 1, z >> 2 & 1, z >> 3 & 1, z >> 4 & 1);
            let d1 = (z1 ^ (i & z3) ^ (ij & z5)) as u8 ^ cbit(ha) ^ cbit(hx);
            let d2 = (z2 ^ (j & z4) ^ (ij & z5)) as u8 ^ cbit(hb) ^ cbit(hx);
            let masks = &EVAL_MASKS[i | j << 1 | (d1 as usize) << 2 | (d2 as usize) << 3];
            let src = [lo(a), hi(a), lo(b), hi(b), word(0), word(8), word(16)];
            let cl = combine(&masks[0], &src) ^ lo(ha ^ hx);
            let cr = combine(&masks[1], &src) ^ lo(hb ^ hx);
            *outs.add(m) = Block(cl as u128 | (cr as u128) << 64);
        }
        self.done += k;
        Ok(())
    }
}

/// Packs five control bits per gate, gate `m` at bits `5m..5m+5`.
#[derive(Clone, Debug, Default)]
pub(super) struct BitWriter {
    bytes: Vec<u8>,
    acc: u32,
    n: u32,
}

impl BitWriter {
    /// Starts a new call's bits.
    pub(super) fn clear(&mut self) {
        self.bytes.clear();
        self.acc = 0;
        self.n = 0;
    }

    /// Appends the five bits of `z`.
    #[inline(always)]
    fn push5(&mut self, z: u8) {
        self.acc |= (z as u32 & 0b1_1111) << self.n;
        self.n += 5;
        if self.n >= 8 {
            self.bytes.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    /// Appends the packed bits (the last byte padded with zeros) to `out`.
    pub(super) fn finish(&mut self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.bytes);
        if self.n > 0 {
            out.push(self.acc as u8);
        }
        self.clear();
    }
}
