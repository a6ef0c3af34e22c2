//! Base OT: the Chou–Orlandi "simplest OT" on Ristretto255, batched.
//!
//! One round trip for any number `n` of 1-out-of-2 OTs of random 128-bit
//! keys (semi-honest security):
//!
//! 1. The sender picks a secret scalar `a` and sends `A = a·G` (together
//!    with `n`, so that a count mismatch is a clear error).
//! 2. For each OT `i` the receiver picks a secret scalar `bᵢ` and sends
//!    `Bᵢ = bᵢ·G` for choice 0 or `Bᵢ = A + bᵢ·G` for choice 1 (selected in
//!    constant time).
//! 3. The sender derives `k⁰ᵢ = KDF(a·Bᵢ)` and `k¹ᵢ = KDF(a·(Bᵢ − A))`, the
//!    receiver `kᵢ = KDF(bᵢ·A)`, which equals `k^{cᵢ}ᵢ`.
//!
//! The KDF is SHA-256 over a domain string, the session id, the OT index,
//! `A`, `Bᵢ` and the shared point, truncated to a 128-bit [`Block`]. Scalars
//! come straight from OS randomness.

use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoBasepointTable, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::Identity;
use sha2::{Digest, Sha256};
use subtle::{Choice, ConditionallySelectable};
use twofold_crypto::Block;
use twofold_net::{Transport, HEADER_LEN};
use zeroize::Zeroizing;

use crate::error::{OtError, Result};

/// Domain separation for the key derivation.
const DOMAIN: &[u8] = b"twofold/ot/base/chou-orlandi/v1";

/// Bytes of a compressed Ristretto255 point.
const POINT_LEN: usize = 32;

/// Bytes of the sender's message: the count `n` (u64 LE) and `A`.
const SENDER_MSG_LEN: usize = 8 + POINT_LEN;

/// Bytes both parties send for `n` base OTs, frame headers included.
pub const fn wire_bytes(n: usize) -> u64 {
    (2 * HEADER_LEN + SENDER_MSG_LEN + n * POINT_LEN) as u64
}

/// Runs the sender's side of `n` base OTs and returns the key pairs
/// `(k⁰ᵢ, k¹ᵢ)`. The peer must call [`base_receive`] with `n` choices and the
/// same `session_id`.
pub fn base_send(
    chan: &mut impl Transport,
    n: usize,
    session_id: &[u8],
) -> Result<Vec<(Block, Block)>> {
    let reply_len = reply_len(chan, n)?;
    let a = Zeroizing::new(random_scalar()?);
    let big_a = RistrettoPoint::mul_base(&a);
    let a_bytes = big_a.compress();
    let a_times_a = Zeroizing::new(*a * big_a);

    let mut msg = [0u8; SENDER_MSG_LEN];
    msg[..8].copy_from_slice(&(n as u64).to_le_bytes());
    msg[8..].copy_from_slice(a_bytes.as_bytes());
    chan.send_frame(&msg)?;
    chan.flush()?;

    let mut reply = vec![0u8; reply_len];
    chan.recv_frame_exact(&mut reply)?;
    reply
        .chunks_exact(POINT_LEN)
        .enumerate()
        .map(|(i, b_bytes)| {
            let (_, b) = parse_point(b_bytes, "receiver point", i)?;
            let shared = Zeroizing::new(*a * b);
            let other = Zeroizing::new(*shared - *a_times_a);
            let k0 = derive_key(session_id, i, &a_bytes, b_bytes, &shared);
            let k1 = derive_key(session_id, i, &a_bytes, b_bytes, &other);
            Ok((k0, k1))
        })
        .collect()
}

/// Runs the receiver's side of `choices.len()` base OTs and returns
/// `k^{cᵢ}ᵢ` for each choice bit `cᵢ`. The peer must call [`base_send`] with
/// the same count and `session_id`.
pub fn base_receive(
    chan: &mut impl Transport,
    choices: &[bool],
    session_id: &[u8],
) -> Result<Vec<Block>> {
    let n = choices.len();
    let reply_len = reply_len(chan, n)?;

    let mut msg = [0u8; SENDER_MSG_LEN];
    chan.recv_frame_exact(&mut msg)?;
    let mut count = [0u8; 8];
    count.copy_from_slice(&msg[..8]);
    let theirs = u64::from_le_bytes(count);
    if theirs != n as u64 {
        return Err(OtError::CountMismatch {
            ours: n as u64,
            theirs,
        });
    }
    let (a_compressed, big_a) = parse_point(&msg[8..], "sender point", 0)?;

    let mut secrets = Zeroizing::new(Vec::with_capacity(n));
    let mut reply = Vec::with_capacity(reply_len);
    for &c in choices {
        let b = random_scalar()?;
        let b_g = RistrettoPoint::mul_base(&b);
        let point = RistrettoPoint::conditional_select(&b_g, &(b_g + big_a), Choice::from(c as u8));
        reply.extend_from_slice(point.compress().as_bytes());
        secrets.push(b);
    }
    chan.send_frame(&reply)?;
    chan.flush()?;

    let table = RistrettoBasepointTable::create(&big_a);
    Ok(secrets
        .iter()
        .zip(reply.chunks_exact(POINT_LEN))
        .enumerate()
        .map(|(i, (b, b_bytes))| {
            let shared = Zeroizing::new(b * &table);
            derive_key(session_id, i, &a_compressed, b_bytes, &shared)
        })
        .collect())
}

/// Length of the receiver's message for `n` OTs, if the channel can carry it.
fn reply_len(chan: &impl Transport, n: usize) -> Result<usize> {
    let max = chan.max_frame_len();
    match n.checked_mul(POINT_LEN) {
        Some(len) if len <= max => Ok(len),
        _ => Err(OtError::FrameLimit {
            needed: n.saturating_mul(POINT_LEN),
            max,
        }),
    }
}

/// A uniformly random scalar from 64 bytes of OS randomness.
fn random_scalar() -> Result<Scalar> {
    let mut wide = [0u8; 64];
    getrandom::fill(&mut wide).map_err(|e| OtError::Randomness(e.to_string()))?;
    let s = Scalar::from_bytes_mod_order_wide(&wide);
    wide.fill(0);
    Ok(s)
}

/// Parses a point sent by the peer; anything invalid, and the identity
/// (which would make the keys derived from it public), is an error.
fn parse_point(
    bytes: &[u8],
    what: &'static str,
    index: usize,
) -> Result<(CompressedRistretto, RistrettoPoint)> {
    CompressedRistretto::from_slice(bytes)
        .ok()
        .and_then(|c| Some((c, c.decompress()?)))
        .filter(|(_, p)| *p != RistrettoPoint::identity())
        .ok_or(OtError::InvalidPoint { what, index })
}

/// `SHA-256(domain ‖ |sid| ‖ sid ‖ i ‖ A ‖ Bᵢ ‖ P)` truncated to 128 bits.
fn derive_key(
    session_id: &[u8],
    index: usize,
    a: &CompressedRistretto,
    b: &[u8],
    shared: &RistrettoPoint,
) -> Block {
    let digest = Sha256::new()
        .chain_update(DOMAIN)
        .chain_update((session_id.len() as u64).to_le_bytes())
        .chain_update(session_id)
        .chain_update((index as u64).to_le_bytes())
        .chain_update(a.as_bytes())
        .chain_update(b)
        .chain_update(shared.compress().as_bytes())
        .finalize();
    let mut key = [0u8; 16];
    key.copy_from_slice(&digest[..16]);
    Block::from_bytes(key)
}
