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
//! Security (semi-honest): the sender sees only the OT extension's
//! messages, which hide the choice bits; the receiver sees `τ`, which is `m1 − m0 − x` under a
//! pad `m_{1−yᵢ}` it cannot compute (correlation robustness of the hash
//! with Δ unknown to it), so `τ` is uniform to it. The full argument is in
//! `docs/arith.md`.

use twofold_crypto::{Block, Delta, Prg, Tccr};
use twofold_net::Transport;
use twofold_ot::{CotReceiver, CotSender, Extension};

use super::packed::{self, BitWriter};
use super::ring::{mask, Width};
use crate::error::ProtocolError;

/// The sender's side: its own correlated-OT sender (with a Δ of its own, not the
/// garbling Δ) and the index of its next OT.
pub(crate) struct VoleSender {
    cot: CotSender,
    tccr: Tccr,
    next: u64,
}

/// The receiver's side: its correlated-OT receiver and the index of its next OT.
pub(crate) struct VoleReceiver {
    cot: CotReceiver,
    tccr: Tccr,
    next: u64,
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

/// Hashes `label` into the pads of OT `ot`: `len` words, two per block.
fn pads(tccr: &Tccr, label: Block, ot: u64, len: usize, out: &mut Vec<Block>) {
    let blocks = len.div_ceil(2);
    out.clear();
    out.resize(blocks, label);
    let tweaks: Vec<Block> = (0..blocks).map(|b| tweak(ot, b)).collect();
    tccr.hash_in_place(out, &tweaks)
        .expect("as many tweaks as blocks");
}

/// Word `k` of a pad.
fn word(pads: &[Block], k: usize) -> u64 {
    (pads[k / 2].0 >> (64 * (k % 2))) as u64
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
        })
    }

    /// The sender's half of the products `x·y` for each of its `vectors`
    /// (the receiver holds one `bits`-bit scalar `y` per vector): receives
    /// the receiver's OT matrix and queues the corrections (not flushed).
    /// Returns the sender's share of every `x[k]·y`.
    pub fn send(
        &mut self,
        chan: &mut impl Transport,
        width: Width,
        bits: u32,
        vectors: &[Vec<u64>],
    ) -> Result<Vec<Vec<u64>>, ProtocolError> {
        check_bits(width, bits)?;
        let m = vectors.len() * bits as usize;
        let k0 = self.cot.send(chan, m)?;
        let delta = self.cot.delta().block();
        let total = correction_bits(width, bits, vectors.iter().map(Vec::len));
        let mut out = BitWriter::with_bits(total);
        let (mut h0, mut h1) = (Vec::new(), Vec::new());
        let mut shares = Vec::with_capacity(vectors.len());
        for (x, labels) in vectors.iter().zip(k0.chunks_exact(bits as usize)) {
            let mut share = vec![0u64; x.len()];
            for (i, &k) in labels.iter().enumerate() {
                let ot = self.next;
                self.next += 1;
                pads(&self.tccr, k, ot, x.len(), &mut h0);
                pads(&self.tccr, k ^ delta, ot, x.len(), &mut h1);
                let keep = width.bits() - i as u32;
                for (k, (s, &xk)) in share.iter_mut().zip(x).enumerate() {
                    let m0 = word(&h0, k) & mask(keep);
                    let m1 = word(&h1, k);
                    *s = s.wrapping_sub(m0 << i);
                    out.push(m1.wrapping_sub(m0).wrapping_sub(xk), keep);
                }
            }
            shares.push(share.into_iter().map(|s| width.reduce(s)).collect());
        }
        packed::send(chan, &out.finish())?;
        Ok(shares)
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
        })
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

    /// Receives the sender's corrections for `pending` and returns the
    /// receiver's share of every `x[k]·y`.
    pub fn finish(
        &mut self,
        chan: &mut impl Transport,
        width: Width,
        pending: Pending,
    ) -> Result<Vec<Vec<u64>>, ProtocolError> {
        let Pending {
            labels,
            scalars,
            lens,
            bits,
            first,
        } = pending;
        check_bits(width, bits)?;
        let total = correction_bits(width, bits, lens.iter().copied());
        let mut corrections = packed::recv(chan, total, "product corrections")?;
        let mut h = Vec::new();
        let mut ot = first;
        let mut shares = Vec::with_capacity(scalars.len());
        let groups = scalars
            .iter()
            .zip(&lens)
            .zip(labels.chunks_exact(bits as usize));
        for ((&y, &n), labels) in groups {
            let mut share = vec![0u64; n];
            for (i, &k) in labels.iter().enumerate() {
                pads(&self.tccr, k, ot, n, &mut h);
                ot += 1;
                let keep = width.bits() - i as u32;
                // yᵢ as a mask of all ones or none: no branch on the secret.
                let choice = 0u64.wrapping_sub((y >> i) & 1);
                for (k, s) in share.iter_mut().enumerate() {
                    let tau = corrections.take(keep);
                    let t = word(&h, k).wrapping_sub(tau & choice) & mask(keep);
                    *s = s.wrapping_add(t << i);
                }
            }
            shares.push(share.into_iter().map(|s| width.reduce(s)).collect());
        }
        Ok(shares)
    }
}
