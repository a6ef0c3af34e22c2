//! IKNP correlated OT extension with a global correlation Δ.
//!
//! The extension *sender* (the garbler) holds Δ (lsb 1) and learns `K0ⱼ`;
//! the extension *receiver* (the evaluator) with choice bit `bⱼ` learns
//! `K0ⱼ ⊕ bⱼ·Δ` — exactly the input labels of the evaluator's wires under
//! free-XOR.
//!
//! Setup (once per session and direction) runs 128 base OTs with the roles
//! swapped: the extension receiver is the base-OT sender of random seed pairs
//! `(k⁰ᵢ, k¹ᵢ)`, the extension sender is the base-OT receiver with the bits
//! `sᵢ` of Δ as choices and learns `k^{sᵢ}ᵢ`. Each seed keys an AES-CTR
//! [`Prg`] that is never reset: every batch continues the streams where the
//! previous one stopped, so no PRG output is ever used twice.
//!
//! A batch of `m` OTs, in chunks of at most [`CHUNK_ROWS`] (each chunk
//! padded to a multiple of 128 rows):
//!
//! * the receiver expands `tᵢ = G(k⁰ᵢ)` and sends `uᵢ = tᵢ ⊕ G(k¹ᵢ) ⊕ b`;
//! * the sender computes `qᵢ = G(k^{sᵢ}ᵢ) ⊕ sᵢ·uᵢ = tᵢ ⊕ sᵢ·b`;
//! * transposing, row `j` gives the sender `qⱼ = tⱼ ⊕ bⱼ·Δ`, and the
//!   receiver `tⱼ`. So `K0ⱼ = qⱼ` and the receiver holds `K0ⱼ ⊕ bⱼ·Δ`.
//!
//! Data flows only from the receiver to the sender during a batch (one
//! count frame, then one frame per chunk), so batches cost no round trip.
//! Both parties must use the same channel settings; the channel's maximum
//! frame length must be at least [`CHUNK_FRAME_LEN`].

use twofold_crypto::{Block, Delta, Prg};
use twofold_net::Transport;
use zeroize::{Zeroize, Zeroizing};

use crate::base::{base_receive, base_send};
use crate::error::{OtError, Result};
use crate::transpose::{transpose, LINES};

/// OTs per chunk of a batch (each chunk is one frame on the channel).
pub const CHUNK_ROWS: usize = 1 << 16;

/// Largest frame a batch sends: 128 lines of `CHUNK_ROWS` bits (1 MiB).
pub const CHUNK_FRAME_LEN: usize = CHUNK_ROWS / 8 * LINES;

/// Prefix of the session id given to the base OTs of the extension.
const BASE_SESSION_PREFIX: &[u8] = b"twofold/ot/iknp/v1/base/";

/// The extension sender (garbler) of a correlated-OT session.
pub struct CotSender {
    delta: Delta,
    /// One PRG per line, keyed by the base-OT seed `k^{sᵢ}ᵢ`.
    prgs: Vec<Prg>,
    /// The receiver's `u` matrix of the current chunk.
    u: Vec<u8>,
    /// The `q` matrix of the current chunk.
    q: Vec<u8>,
    /// Rows of a final partial chunk.
    scratch: Vec<Block>,
}

/// The extension receiver (evaluator) of a correlated-OT session.
pub struct CotReceiver {
    /// One pair of PRGs per line, keyed by the base-OT seeds `(k⁰ᵢ, k¹ᵢ)`.
    prgs: Vec<(Prg, Prg)>,
    /// The `t` matrix of the current chunk.
    t: Vec<u8>,
    /// The `u` matrix of the current chunk (sent to the sender).
    u: Vec<u8>,
    /// The packed choice bits of the current chunk.
    bits: Vec<u8>,
    /// Rows of a final partial chunk.
    scratch: Vec<Block>,
}

impl Drop for CotSender {
    fn drop(&mut self) {
        self.delta.zeroize();
    }
}

impl std::fmt::Debug for CotSender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CotSender(..)")
    }
}

impl std::fmt::Debug for CotReceiver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CotReceiver(..)")
    }
}

impl CotSender {
    /// Runs the base OTs of the extension as base-OT receiver, with the bits
    /// of `delta` as choices. The peer runs [`CotReceiver::setup`] with the
    /// same `session_id`, which should be unique to this session and
    /// direction.
    pub fn setup(chan: &mut impl Transport, delta: Delta, session_id: &[u8]) -> Result<CotSender> {
        check_frame_limit(chan)?;
        let d = delta.block().0;
        let choices: Zeroizing<Vec<bool>> =
            Zeroizing::new((0..LINES).map(|i| (d >> i) & 1 == 1).collect());
        let seeds = Zeroizing::new(base_receive(chan, &choices, &base_session_id(session_id))?);
        Ok(CotSender {
            delta,
            prgs: seeds.iter().map(|&seed| Prg::from_seed(seed)).collect(),
            u: Vec::new(),
            q: Vec::new(),
            scratch: Vec::new(),
        })
    }

    /// The correlation Δ.
    pub fn delta(&self) -> Delta {
        self.delta
    }

    /// Runs a batch of `m` correlated OTs and returns `K0ⱼ` for each; the
    /// peer's [`CotReceiver::receive`] must ask for the same count.
    pub fn send(&mut self, chan: &mut impl Transport, m: usize) -> Result<Vec<Block>> {
        let mut out = vec![Block::ZERO; m];
        self.send_into(chan, &mut out)?;
        Ok(out)
    }

    /// Like [`send`](CotSender::send) with `m = out.len()`, writing `K0ⱼ`
    /// into `out` (for callers that reuse their buffers).
    pub fn send_into(&mut self, chan: &mut impl Transport, out: &mut [Block]) -> Result<()> {
        check_frame_limit(chan)?;
        let m = out.len() as u64;
        let theirs = chan.recv_u64()?;
        if theirs != m {
            return Err(OtError::CountMismatch { ours: m, theirs });
        }
        for chunk in out.chunks_mut(CHUNK_ROWS) {
            self.send_chunk(chan, chunk)?;
        }
        Ok(())
    }

    fn send_chunk(&mut self, chan: &mut impl Transport, out: &mut [Block]) -> Result<()> {
        let stride = out.len().next_multiple_of(LINES) / 8;
        self.u.resize(stride * LINES, 0);
        chan.recv_frame_exact(&mut self.u)?;
        self.q.resize(stride * LINES, 0);
        let delta = self.delta.block().0;
        let lines = self
            .q
            .chunks_exact_mut(stride)
            .zip(self.u.chunks_exact(stride));
        for (i, (prg, (q, u))) in self.prgs.iter_mut().zip(lines).enumerate() {
            prg.fill_bytes(q);
            // sᵢ·uᵢ without branching on the secret bit sᵢ.
            let mask = 0u8.wrapping_sub(((delta >> i) & 1) as u8);
            for (q, u) in q.iter_mut().zip(u) {
                *q ^= u & mask;
            }
        }
        transpose_into(&self.q, out, &mut self.scratch);
        Ok(())
    }
}

impl CotReceiver {
    /// Runs the base OTs of the extension as base-OT sender of random seed
    /// pairs. The peer runs [`CotSender::setup`] with the same `session_id`.
    pub fn setup(chan: &mut impl Transport, session_id: &[u8]) -> Result<CotReceiver> {
        check_frame_limit(chan)?;
        let seeds = Zeroizing::new(base_send(chan, LINES, &base_session_id(session_id))?);
        Ok(CotReceiver {
            prgs: seeds
                .iter()
                .map(|&(k0, k1)| (Prg::from_seed(k0), Prg::from_seed(k1)))
                .collect(),
            t: Vec::new(),
            u: Vec::new(),
            bits: Vec::new(),
            scratch: Vec::new(),
        })
    }

    /// Runs a batch of `choices.len()` correlated OTs and returns
    /// `K0ⱼ ⊕ bⱼ·Δ` for each choice bit `bⱼ`; the peer's
    /// [`CotSender::send`] must ask for the same count. Flushes the channel.
    pub fn receive(&mut self, chan: &mut impl Transport, choices: &[bool]) -> Result<Vec<Block>> {
        let mut out = vec![Block::ZERO; choices.len()];
        self.receive_into(chan, choices, &mut out)?;
        Ok(out)
    }

    /// Like [`receive`](CotReceiver::receive), writing the labels into
    /// `out`, which must be as long as `choices` (else
    /// [`OtError::OutputLength`] before anything is sent).
    pub fn receive_into(
        &mut self,
        chan: &mut impl Transport,
        choices: &[bool],
        out: &mut [Block],
    ) -> Result<()> {
        if out.len() != choices.len() {
            return Err(OtError::OutputLength {
                choices: choices.len(),
                out: out.len(),
            });
        }
        check_frame_limit(chan)?;
        chan.send_u64(choices.len() as u64)?;
        for (out, choices) in out.chunks_mut(CHUNK_ROWS).zip(choices.chunks(CHUNK_ROWS)) {
            self.receive_chunk(chan, choices, out)?;
        }
        chan.flush()?;
        Ok(())
    }

    fn receive_chunk(
        &mut self,
        chan: &mut impl Transport,
        choices: &[bool],
        out: &mut [Block],
    ) -> Result<()> {
        let stride = out.len().next_multiple_of(LINES) / 8;
        self.bits.clear();
        self.bits.resize(stride, 0);
        for (byte, bits) in self.bits.iter_mut().zip(choices.chunks(8)) {
            *byte = bits
                .iter()
                .enumerate()
                .fold(0u8, |acc, (k, &b)| acc | (b as u8) << k);
        }
        self.t.resize(stride * LINES, 0);
        self.u.resize(stride * LINES, 0);
        let lines = self
            .t
            .chunks_exact_mut(stride)
            .zip(self.u.chunks_exact_mut(stride));
        for ((prg0, prg1), (t, u)) in self.prgs.iter_mut().zip(lines) {
            prg0.fill_bytes(t);
            prg1.fill_bytes(u);
            for ((u, t), b) in u.iter_mut().zip(t.iter()).zip(&self.bits) {
                *u ^= t ^ b;
            }
        }
        chan.send_frame(&self.u)?;
        transpose_into(&self.t, out, &mut self.scratch);
        Ok(())
    }
}

/// Transposes the lines of a chunk into `out`, through `scratch` when `out`
/// is not a whole number of 128-row blocks.
fn transpose_into(lines: &[u8], out: &mut [Block], scratch: &mut Vec<Block>) {
    let padded = lines.len() / LINES * 8;
    if out.len() == padded {
        transpose(lines, out);
    } else {
        scratch.resize(padded, Block::ZERO);
        transpose(lines, scratch);
        out.copy_from_slice(&scratch[..out.len()]);
    }
}

/// The OT-extension messages must fit the channel's frames.
fn check_frame_limit(chan: &impl Transport) -> Result<()> {
    let max = chan.max_frame_len();
    if max < CHUNK_FRAME_LEN {
        return Err(OtError::FrameLimit {
            needed: CHUNK_FRAME_LEN,
            max,
        });
    }
    Ok(())
}

/// The session id of the extension's base OTs.
fn base_session_id(session_id: &[u8]) -> Vec<u8> {
    [BASE_SESSION_PREFIX, session_id].concat()
}
