//! Products of one party's value with the other's by correlated OT
//! (Gilboa 1999, as ABY multiplies): a vector `x` of the *sender* times a
//! scalar `y` of the *receiver*, each party ending with an additive share
//! of every `x[k]·y` modulo 2^ℓ.
//!
//! One correlated OT (by the session's extension, SoftSpoken unless
//! [`twofold_ot::Extension::DEFAULT`] says otherwise) per bit `yᵢ` of the
//! scalar (the receiver's choice bits): the sender learns `K0ⱼ`, the receiver `Kⱼ = K0ⱼ ⊕ yᵢ·Δ`. Hashing
//! the labels gives random pads, `m0 = H(K0ⱼ)` and `m1 = H(K0ⱼ ⊕ Δ)` word by
//! word (the TCCR hash under tweak `j‖block`, `j` the OT's index in the
//! session, so no tweak repeats), and the sender corrects them to the
//! correlation it wants, `x[k] mod 2^(ℓ−i)`:
//!
//! * sender: share `−Σᵢ 2^i·m0[k]`, sends `τ[k] = m1[k] − m0[k] − x[k]`
//!   (`ℓ − i` bits: the high bits vanish once multiplied by `2^i`);
//! * receiver: `tᵢ[k] = H(Kⱼ)[k] − yᵢ·τ[k]`, which is `m0[k] + yᵢ·x[k]`;
//!   share `Σᵢ 2^i·tᵢ[k]`.
//!
//! The shares add up to `Σᵢ 2^i·yᵢ·x[k] = x[k]·y`. A vector of `n` words
//! under one scalar reuses the scalar's `ℓ` OTs for all `n` words, so it
//! costs `ℓ·κ + n·ℓ(ℓ+1)/2` bits, not `n·(ℓ·κ + ℓ(ℓ+1)/2)`: a matrix
//! product pays the OT matrix once per element of one factor.
//!
//! A layer's corrections go in chunks of about a megabyte (a scalar bit's
//! corrections are never cut), which both parties cut alike from the
//! vectors' lengths: the sender makes each chunk's corrections and its
//! shares of the words on one of its threads and sends the chunks in
//! order as they are done; the receiver works on each chunk as it
//! arrives, on its threads. Neither holds the whole layer's corrections
//! (138 MB for a 128×128 `int32_t` matrix product), and the bytes on the
//! wire are those of one packed message, whatever the threads.
//!
//! Security (semi-honest): the sender sees only the OT extension's
//! messages, which hide the choice bits; the receiver sees `τ`, which is `m1 − m0 − x` under a
//! pad `m_{1−yᵢ}` it cannot compute (correlation robustness of the hash
//! with Δ unknown to it), so `τ` is uniform to it. The full argument is in
//! `docs/arith.md`.

use std::ops::Range;

use twofold_crypto::{Block, Delta, Prg, Tccr};
use twofold_net::Transport;
use twofold_ot::{CotReceiver, CotSender, Extension};

use super::packed::{BitReader, BitWriter};
use super::ring::{mask, Width};
use super::stream::{StreamReceiver, StreamSender};
use crate::error::ProtocolError;

/// Correction bits a chunk holds (1 MiB): a chunk closes once it has this
/// many, so a party holds a few chunks of a layer's corrections at a time,
/// not all of them, and the receiver starts on the first while the sender
/// makes the next.
const CHUNK_BITS: usize = 1 << 23;

/// The sender's side: its own correlated-OT sender (with a Δ of its own, not the
/// garbling Δ), the index of its next OT and the threads it computes on.
pub(crate) struct VoleSender {
    cot: CotSender,
    tccr: Tccr,
    next: u64,
    threads: usize,
}

/// The receiver's side: its correlated-OT receiver, the index of its next OT
/// and the threads it computes on.
pub(crate) struct VoleReceiver {
    cot: CotReceiver,
    tccr: Tccr,
    next: u64,
    threads: usize,
}

/// What the receiver keeps between sending its choices and receiving the
/// corrections: its labels and the shape of the products.
pub(crate) struct Pending {
    labels: Vec<Block>,
    scalars: Vec<u64>,
    lens: Vec<usize>,
    bits: u32,
    first: u64,
}

/// The tweak of hash block `block` of OT `ot`.
fn tweak(ot: u64, block: usize) -> Block {
    Block(((ot as u128) << 64) | block as u128)
}

/// Room to hash pads in: the blocks and their tweaks.
#[derive(Default)]
struct Hashing {
    blocks: Vec<Block>,
    tweaks: Vec<Block>,
}

impl Hashing {
    /// Hashes `label` into the pads of OT `ot`: `len` words (two per
    /// block, low half first), written to `out`.
    fn pads(&mut self, tccr: &Tccr, label: Block, ot: u64, len: usize, out: &mut Vec<u64>) {
        let blocks = len.div_ceil(2);
        self.blocks.clear();
        self.blocks.resize(blocks, label);
        self.tweaks.clear();
        self.tweaks.extend((0..blocks).map(|b| tweak(ot, b)));
        tccr.hash_in_place(&mut self.blocks, &self.tweaks)
            .expect("as many tweaks as blocks");
        out.clear();
        out.extend(
            self.blocks
                .iter()
                .flat_map(|b| [b.0 as u64, (b.0 >> 64) as u64]),
        );
    }
}

/// Bits of all corrections of products of vectors of lengths `lens` under
/// `bits`-bit scalars in ring `width`.
fn correction_bits(width: Width, bits: u32, lens: impl Iterator<Item = usize>) -> usize {
    let per_word: usize = (0..bits).map(|i| (width.bits() - i) as usize).sum();
    lens.map(|n| n * per_word).sum()
}

/// Checks that the scalars' bits fit the ring.
fn check_bits(width: Width, bits: u32) -> Result<(), ProtocolError> {
    if bits == 0 || bits > width.bits() {
        return Err(ProtocolError::Internal(format!(
            "a product's scalar has {bits} bits in {width}"
        )));
    }
    Ok(())
}

/// Consecutive OTs of one scalar: the corrections of all its vector's
/// words under scalar bits `ots`, one after the other in the stream.
struct Piece {
    group: usize,
    ots: Range<u32>,
}

/// Pieces that follow each other in the corrections, from bit `start` of
/// the stream, `bits` long. Each scalar's vector appears in a chunk once
/// at most.
struct Chunk {
    pieces: Vec<Piece>,
    start: usize,
    bits: usize,
}

/// The corrections of vectors of lengths `lens` under `bits`-bit scalars
/// in ring `width` (vector after vector, scalar bit after bit, word
/// after word) cut into chunks of about [`CHUNK_BITS`]: both parties cut
/// alike, from the lengths alone.
fn chunks(width: Width, bits: u32, lens: &[usize]) -> Vec<Chunk> {
    let mut out = Vec::new();
    let mut open = Chunk {
        pieces: Vec::new(),
        start: 0,
        bits: 0,
    };
    for (group, &n) in lens.iter().enumerate() {
        for i in 0..bits {
            match open.pieces.last_mut() {
                Some(p) if p.group == group => p.ots.end = i + 1,
                _ => open.pieces.push(Piece {
                    group,
                    ots: i..i + 1,
                }),
            }
            open.bits += n * (width.bits() - i) as usize;
            if open.bits >= CHUNK_BITS {
                let start = open.start + open.bits;
                out.push(std::mem::replace(
                    &mut open,
                    Chunk {
                        pieces: Vec::new(),
                        start,
                        bits: 0,
                    },
                ));
            }
        }
    }
    if !open.pieces.is_empty() {
        out.push(open);
    }
    out
}

/// `f` of each of `items`, on a thread each (the first on this one).
fn in_parallel<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    let mut items = items.into_iter();
    let Some(first) = items.next() else {
        return Vec::new();
    };
    if items.len() == 0 {
        return vec![f(first)];
    }
    std::thread::scope(|scope| {
        let f = &f;
        let others: Vec<_> = items.map(|x| scope.spawn(move || f(x))).collect();
        let mut out = vec![f(first)];
        out.extend(others.into_iter().map(|h| h.join().expect("no panic")));
        out
    })
}

/// Adds a chunk's `parts` (each piece's words, in turn) into `shares`.
fn add_parts(shares: &mut [Vec<u64>], chunk: &Chunk, parts: &[u64]) {
    let mut at = 0;
    for p in &chunk.pieces {
        let share = &mut shares[p.group];
        let n = share.len();
        for (s, &x) in share.iter_mut().zip(&parts[at..at + n]) {
            *s = s.wrapping_add(x);
        }
        at += n;
    }
}

impl VoleSender {
    /// Sets up the correlated-OT sender of extension `ext` with a fresh Δ
    /// from the OS; the peer runs [`VoleReceiver::setup`] with the same
    /// `session_id` and extension.
    pub fn setup(
        chan: &mut impl Transport,
        session_id: &[u8],
        ext: Extension,
    ) -> Result<Self, ProtocolError> {
        let delta = Delta::random(&mut Prg::try_from_os()?);
        Ok(VoleSender {
            cot: CotSender::setup_with(chan, delta, session_id, ext)?,
            tccr: Tccr::new(),
            next: 0,
            threads: 1,
        })
    }

    /// Computes on `threads` threads (at least one) from now on.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// The sender's half of the products `x·y` for each of its `vectors`
    /// (the receiver holds one `bits`-bit scalar `y` per vector): receives
    /// the receiver's OT matrix and sends the corrections chunk by chunk
    /// (the last not flushed). Returns the sender's share of every `x[k]·y`.
    pub fn send(
        &mut self,
        chan: &mut impl Transport,
        width: Width,
        bits: u32,
        vectors: &[Vec<u64>],
    ) -> Result<Vec<Vec<u64>>, ProtocolError> {
        check_bits(width, bits)?;
        let m = vectors.len() * bits as usize;
        let labels = self.cot.send(chan, m)?;
        let sender = ChunkSender {
            tccr: &self.tccr,
            labels: &labels,
            delta: self.cot.delta().block(),
            first: self.next,
            width,
            bits,
            vectors,
        };
        self.next += m as u64;
        let lens: Vec<usize> = vectors.iter().map(Vec::len).collect();
        let mut shares: Vec<Vec<u64>> = lens.iter().map(|&n| vec![0; n]).collect();
        let mut stream = StreamSender::default();
        for batch in chunks(width, bits, &lens).chunks(self.threads) {
            let made = in_parallel(batch.iter().collect(), |c| sender.chunk(c));
            for (chunk, (bytes, parts)) in batch.iter().zip(made) {
                debug_assert_eq!(stream.offset(), chunk.start);
                stream.append(chan, &bytes, chunk.bits)?;
                add_parts(&mut shares, chunk, &parts);
            }
        }
        stream.finish(chan)?;
        Ok(reduced(shares, width))
    }
}

/// Every share reduced into ring `width`.
fn reduced(shares: Vec<Vec<u64>>, width: Width) -> Vec<Vec<u64>> {
    let reduce = |share: Vec<u64>| share.into_iter().map(|s| width.reduce(s)).collect();
    shares.into_iter().map(reduce).collect()
}

/// What the sender's chunks are made from.
struct ChunkSender<'a> {
    tccr: &'a Tccr,
    /// The OTs' `K0` labels, `bits` a vector.
    labels: &'a [Block],
    delta: Block,
    /// The index of the first OT.
    first: u64,
    width: Width,
    bits: u32,
    vectors: &'a [Vec<u64>],
}

impl ChunkSender<'_> {
    /// `chunk`'s corrections, packed from bit `chunk.start % 8`, and the
    /// sender's share of each of its pieces' words (piece after piece).
    fn chunk(&self, chunk: &Chunk) -> (Vec<u8>, Vec<u64>) {
        let offset = (chunk.start % 8) as u32;
        let mut out = BitWriter::with_bits(offset as usize + chunk.bits);
        out.push(0, offset);
        let mut parts = Vec::new();
        let (mut hashing, mut h0, mut h1) = (Hashing::default(), Vec::new(), Vec::new());
        for p in &chunk.pieces {
            let x = &self.vectors[p.group];
            let at = parts.len();
            parts.resize(at + x.len(), 0u64);
            let share = &mut parts[at..];
            for i in p.ots.clone() {
                let j = p.group * self.bits as usize + i as usize;
                let ot = self.first + j as u64;
                let k = self.labels[j];
                hashing.pads(self.tccr, k, ot, x.len(), &mut h0);
                hashing.pads(self.tccr, k ^ self.delta, ot, x.len(), &mut h1);
                let keep = self.width.bits() - i;
                let low = mask(keep);
                let pads = h0.iter().zip(&h1);
                let corrections =
                    share
                        .iter_mut()
                        .zip(x)
                        .zip(pads)
                        .map(|((s, &xk), (&m0, &m1))| {
                            let m0 = m0 & low;
                            *s = s.wrapping_sub(m0 << i);
                            m1.wrapping_sub(m0).wrapping_sub(xk)
                        });
                out.push_each(corrections, keep);
            }
        }
        (out.finish(), parts)
    }
}

impl VoleReceiver {
    /// Sets up the correlated-OT receiver of extension `ext`; the peer
    /// runs [`VoleSender::setup`] with the same `session_id` and extension.
    pub fn setup(
        chan: &mut impl Transport,
        session_id: &[u8],
        ext: Extension,
    ) -> Result<Self, ProtocolError> {
        Ok(VoleReceiver {
            cot: CotReceiver::setup_with(chan, session_id, ext)?,
            tccr: Tccr::new(),
            next: 0,
            threads: 1,
        })
    }

    /// Computes on `threads` threads (at least one) from now on.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// Sends the choice bits of the low `bits` bits of each scalar (as
    /// the OT extension's lines, flushed); `lens[g]` is the length of the sender's
    /// vector that `scalars[g]` multiplies.
    pub fn choose(
        &mut self,
        chan: &mut impl Transport,
        bits: u32,
        scalars: &[u64],
        lens: &[usize],
    ) -> Result<Pending, ProtocolError> {
        if scalars.len() != lens.len() {
            return Err(ProtocolError::Internal(format!(
                "{} scalars with {} vector lengths",
                scalars.len(),
                lens.len()
            )));
        }
        let choices: Vec<bool> = scalars
            .iter()
            .flat_map(|&y| (0..bits).map(move |i| (y >> i) & 1 == 1))
            .collect();
        let labels = self.cot.receive(chan, &choices)?;
        let first = self.next;
        self.next += choices.len() as u64;
        Ok(Pending {
            labels,
            scalars: scalars.to_vec(),
            lens: lens.to_vec(),
            bits,
            first,
        })
    }

    /// Receives the sender's corrections for `pending`, chunk by chunk,
    /// and returns the receiver's share of every `x[k]·y`.
    pub fn finish(
        &mut self,
        chan: &mut impl Transport,
        width: Width,
        pending: Pending,
    ) -> Result<Vec<Vec<u64>>, ProtocolError> {
        check_bits(width, pending.bits)?;
        let lens = &pending.lens;
        let total = correction_bits(width, pending.bits, lens.iter().copied());
        let mut stream = StreamReceiver::new(total, "product corrections");
        let mut shares: Vec<Vec<u64>> = lens.iter().map(|&n| vec![0; n]).collect();
        for batch in chunks(width, pending.bits, lens).chunks(self.threads) {
            let mut received = Vec::with_capacity(batch.len());
            for c in batch {
                received.push((c, stream.piece(chan, c.start, c.start + c.bits)?));
            }
            let parts = in_parallel(received, |(c, corrections)| {
                receive_chunk(&self.tccr, &pending, width, c, corrections)
            });
            for (chunk, parts) in batch.iter().zip(parts) {
                add_parts(&mut shares, chunk, &parts);
            }
        }
        Ok(reduced(shares, width))
    }
}

/// The receiver's share of each word of `chunk`'s pieces (piece after
/// piece), from the chunk's `corrections`.
fn receive_chunk(
    tccr: &Tccr,
    pending: &Pending,
    width: Width,
    chunk: &Chunk,
    mut corrections: BitReader,
) -> Vec<u64> {
    let bits = pending.bits;
    let mut parts = Vec::new();
    let (mut hashing, mut h) = (Hashing::default(), Vec::new());
    for p in &chunk.pieces {
        let n = pending.lens[p.group];
        let y = pending.scalars[p.group];
        let at = parts.len();
        parts.resize(at + n, 0u64);
        let share = &mut parts[at..];
        for i in p.ots.clone() {
            let j = p.group * bits as usize + i as usize;
            hashing.pads(tccr, pending.labels[j], pending.first + j as u64, n, &mut h);
            let keep = width.bits() - i;
            // yᵢ as a mask of all ones or none: no branch on the secret.
            let choice = 0u64.wrapping_sub((y >> i) & 1);
            let low = mask(keep);
            corrections.take_each(share.iter_mut().zip(&h), keep, |(s, &pad), tau| {
                let t = pad.wrapping_sub(tau & choice) & low;
                *s = s.wrapping_add(t << i);
            });
        }
    }
    parts
}
