//! The three-halves AND kernels: a chunk's hash queries are gathered and
//! hashed in one batch by the TCCR hash (AES-NI / VAES where available),
//! then each gate is finished by the per-gate algebra of `gate`.

use super::gate::{self, DeltaTerms};
use super::HALVES_BYTES;
use crate::aes::Aes128;
use crate::batch::{Chunk, ChunkEvaluator, ChunkGarbler, Stop, AND_CHUNK};
use crate::block::Block;
use crate::tccr::Tccr;

/// The three tweaks `3g, 3g + 1, 3g + 2` of AND gate `g`.
#[inline(always)]
fn tweaks(g: u64) -> [Block; 3] {
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

/// Hash queries (replaced by their hashes), tweaks and inputs of one
/// chunk, `Q` queries per gate: reused from chunk to chunk.
pub(super) struct Scratch<const Q: usize> {
    xs: [[Block; Q]; AND_CHUNK],
    ts: [[Block; Q]; AND_CHUNK],
    ins: [[Block; 2]; AND_CHUNK],
}

impl<const Q: usize> Scratch<Q> {
    pub(super) fn new() -> Self {
        Scratch {
            xs: [[Block::ZERO; Q]; AND_CHUNK],
            ts: [[Block::ZERO; Q]; AND_CHUNK],
            ins: [[Block::ZERO; 2]; AND_CHUNK],
        }
    }

    /// Hashes the first `k` gates' queries in place.
    #[inline(always)]
    fn hash(&mut self, tccr: &Tccr, k: usize) {
        tccr.hash_unchecked(self.xs[..k].as_flattened_mut(), self.ts[..k].as_flattened());
    }
}

/// Garbles chunks: ciphertexts straight into `tables`, control bits into
/// `bits` (appended to the tables when the call ends).
pub(super) struct Garbling<'a> {
    pub(super) tccr: &'a Tccr,
    pub(super) coins: &'a Aes128,
    pub(super) terms: &'a DeltaTerms,
    pub(super) tables: &'a mut Vec<u8>,
    pub(super) bits: &'a mut BitWriter,
    pub(super) scratch: Scratch<6>,
}

impl ChunkGarbler for Garbling<'_> {
    type Label = Block;

    #[inline(always)]
    unsafe fn garble_chunk(&mut self, c: &Chunk, outs: *mut Block) {
        let (k, d) = (c.k, self.terms.delta());
        let sc = &mut self.scratch;
        for (m, w) in c.ws[..k].iter().enumerate() {
            let (za, zb) = (*c.labels.add(w[0] as usize), *c.labels.add(w[1] as usize));
            // The colour-0 labels.
            let (a0, b0) = (za ^ d.select(za.lsb()), zb ^ d.select(zb.lsb()));
            let x0 = a0 ^ b0;
            let [ta, tb, tx] = tweaks(c.gid + m as u64);
            sc.ins[m] = [a0, b0];
            sc.xs[m] = [a0, a0 ^ d, b0, b0 ^ d, x0, x0 ^ d];
            sc.ts[m] = [ta, ta, tb, tb, tx, tx];
        }
        sc.hash(self.tccr, k);
        let coin = coins(self.coins, c.gid, k);
        self.tables.reserve(HALVES_BYTES * k);
        let len = self.tables.len();
        let out = self.tables.as_mut_ptr().add(len);
        for m in 0..k {
            let [a0, b0] = sc.ins[m];
            // The colours of the 1-labels are those the 0-labels lack.
            let w = &c.ws[m];
            let ones = (
                !(*c.labels.add(w[0] as usize)).lsb() as usize,
                !(*c.labels.add(w[1] as usize)).lsb() as usize,
            );
            let (c0, g, z) = gate::garble(self.terms, a0, b0, ones, coin(m), &sc.xs[m]);
            for (q, gq) in g.iter().enumerate() {
                let p = out.add(HALVES_BYTES * m + 8 * q) as *mut [u8; 8];
                p.write_unaligned(gq.to_le_bytes());
            }
            self.bits.push5(z);
            *outs.add(m) = c0;
        }
        // The loop initialised the `HALVES_BYTES * k` bytes reserved.
        self.tables.set_len(len + HALVES_BYTES * k);
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
    pub(super) scratch: Scratch<3>,
}

/// The control bits `z1..z5` of gate `m` of a call with control bits `bits`.
#[inline(always)]
fn control(bits: &[u8], m: usize) -> usize {
    let p = 5 * m;
    let lo = bits[p / 8] as usize;
    let hi = bits.get(p / 8 + 1).copied().unwrap_or(0) as usize;
    ((lo | hi << 8) >> (p % 8)) & 0b1_1111
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
        let sc = &mut self.scratch;
        for (m, w) in c.ws[..k].iter().enumerate() {
            let (a, b) = (*c.labels.add(w[0] as usize), *c.labels.add(w[1] as usize));
            sc.ins[m] = [a, b];
            sc.xs[m] = [a, b, a ^ b];
            sc.ts[m] = tweaks(c.gid + m as u64);
        }
        sc.hash(self.tccr, k);
        for m in 0..k {
            let n = self.done + m;
            let row = &self.halves[HALVES_BYTES * n..HALVES_BYTES * (n + 1)];
            let g = std::array::from_fn(|q| {
                u64::from_le_bytes(row[8 * q..8 * q + 8].try_into().expect("8 bytes"))
            });
            let [a, b] = sc.ins[m];
            *outs.add(m) = gate::evaluate(a, b, &sc.xs[m], g, control(self.bits, n));
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
