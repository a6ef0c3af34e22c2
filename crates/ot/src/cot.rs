//! Correlated OT extension with a global correlation Δ, by IKNP or by
//! SoftSpoken (chosen with [`Extension`]).
//!
//! The extension *sender* (the garbler) holds Δ (lsb 1) and learns `K0ⱼ`;
//! the extension *receiver* (the evaluator) with choice bit `bⱼ` learns
//! `K0ⱼ ⊕ bⱼ·Δ` — exactly the input labels of the evaluator's wires under
//! free-XOR.
//!
//! Setup (once per session and direction) runs 128 base OTs, the extension
//! receiver as base-OT sender; SoftSpoken's receiver sends one more frame,
//! the corrections of its GGM trees, at the start of its first batch (where
//! the sender reads it), so that its setup waits for no message the IKNP
//! setup does not (the modules `iknp` and `softspoken` describe each).
//! Every PRG is keyed once and never reset: each batch continues the
//! streams where the previous one stopped, so no PRG output is ever used
//! twice.
//!
//! A batch of `m` OTs runs in chunks of at most [`CHUNK_ROWS`] (each chunk
//! padded to a multiple of 128 rows). In each chunk both parties derive 128
//! lines of bits: the receiver the lines `t` and some lines to send (128 for
//! IKNP, `⌈128 / k⌉` for SoftSpoken with `k` bits per group), the sender,
//! from those, the lines `q` with `qᵢ = tᵢ ⊕ Δᵢ·b`. Transposing, row `j` is
//! `K0ⱼ = qⱼ` for the sender and `tⱼ = K0ⱼ ⊕ bⱼ·Δ` for the receiver.
//!
//! Data flows only from the receiver to the sender during a batch (one
//! count frame, then one frame per chunk), so batches cost no round trip.
//! Both parties must use the same extension and channel settings; the
//! channel's maximum frame length must be at least [`CHUNK_FRAME_LEN`].

use twofold_crypto::{blocks_as_bytes, blocks_as_bytes_mut, Block, Delta};
use twofold_net::{Transport, HEADER_LEN};
use zeroize::Zeroize;

use crate::base;
use crate::error::{OtError, Result};
use crate::iknp::{IknpReceiver, IknpSender};
use crate::softspoken::{self, SoftReceiver, SoftSender};
use crate::transpose::{transpose, LINES};

/// OTs per chunk of a batch (each chunk is one frame on the channel).
pub const CHUNK_ROWS: usize = 1 << 16;

/// Largest frame a batch sends: 128 lines of `CHUNK_ROWS` bits (1 MiB).
pub const CHUNK_FRAME_LEN: usize = CHUNK_ROWS / 8 * LINES;

/// Which OT extension a [`CotSender`]/[`CotReceiver`] pair runs. Both
/// parties must choose the same one (its [`name`](Extension::name) belongs
/// in a session's handshake).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Extension {
    /// IKNP: 128 bits per OT on the wire.
    Iknp,
    /// SoftSpoken with `k` bits of Δ per GGM tree (`2 ≤ k ≤ 8`):
    /// `⌈128 / k⌉` bits per OT on the wire, for about `128·2^k / k` PRG
    /// bits per OT at each party.
    SoftSpoken {
        /// Bits of Δ per group (tree depth).
        k: u8,
    },
}

impl Extension {
    /// The extension [`CotSender::setup`] and [`CotReceiver::setup`] use:
    /// SoftSpoken with 4-bit groups, which sends a quarter of IKNP's bytes
    /// per OT and runs at least as fast (`examples/ot_speed.rs`). Its GGM
    /// corrections (3,076 bytes) go with an instance's first batch, so an
    /// instance set up and never used does not send them (the mixed
    /// protocol's estimate counts the instances that run).
    pub const DEFAULT: Extension = Extension::SoftSpoken { k: 4 };

    /// A stable name, e.g. `iknp` or `softspoken-k4`.
    pub fn name(self) -> String {
        match self {
            Extension::Iknp => "iknp".into(),
            Extension::SoftSpoken { k } => format!("softspoken-k{k}"),
        }
    }

    /// Bit lines the receiver sends per chunk: the bits per OT on the
    /// wire (before padding and frame headers).
    ///
    /// # Panics
    /// For SoftSpoken with `k = 0` (which the setups refuse).
    pub const fn lines(self) -> usize {
        match self {
            Extension::Iknp => LINES,
            Extension::SoftSpoken { k } => softspoken::groups(k as usize),
        }
    }

    /// Bytes both parties send for the setup, frame headers included: the
    /// base OTs, and [`deferred_setup_bytes`](Extension::deferred_setup_bytes)
    /// with the first batch.
    ///
    /// # Panics
    /// As [`lines`](Extension::lines).
    pub const fn setup_bytes(self) -> u64 {
        base::wire_bytes(LINES) + self.deferred_setup_bytes()
    }

    /// Bytes of the setup the receiver sends at the start of its first
    /// batch rather than in the setup: SoftSpoken's GGM corrections.
    ///
    /// # Panics
    /// As [`lines`](Extension::lines).
    pub const fn deferred_setup_bytes(self) -> u64 {
        match self {
            Extension::Iknp => 0,
            Extension::SoftSpoken { k } => {
                (HEADER_LEN + 32 * (LINES - softspoken::groups(k as usize))) as u64
            }
        }
    }

    /// Bytes of a batch of `m` OTs, frame headers included: a count frame,
    /// then per chunk one frame of [`lines`](Extension::lines) lines of the
    /// chunk's rows padded to 128.
    ///
    /// # Panics
    /// As [`lines`](Extension::lines).
    pub const fn batch_bytes(self, m: u64) -> u64 {
        let chunk = CHUNK_ROWS as u64;
        let padded = m / chunk * chunk + (m % chunk).next_multiple_of(128);
        let header = HEADER_LEN as u64;
        header + 8 + m.div_ceil(chunk) * header + padded / 8 * self.lines() as u64
    }

    /// Bytes an instance moves for its `batches` (their OT counts), frame
    /// headers included, but for the base OTs (the same for every
    /// extension): the batches and, if any runs, the deferred setup.
    ///
    /// # Panics
    /// As [`lines`](Extension::lines).
    pub fn instance_bytes(self, batches: &[u64]) -> u64 {
        let deferred = if batches.is_empty() {
            0
        } else {
            self.deferred_setup_bytes()
        };
        batches
            .iter()
            .fold(deferred, |sum, &m| sum.saturating_add(self.batch_bytes(m)))
    }

    /// The extension an instance should run for `batches` (their OT
    /// counts, known to both parties before the setup): IKNP where its
    /// bytes are fewer than [`DEFAULT`](Extension::DEFAULT)'s — below
    /// about 256 OTs, SoftSpoken's 3,076 bytes of GGM corrections outweigh
    /// the 12 bytes it saves an OT — else the default.
    pub fn cheapest(batches: &[u64]) -> Extension {
        if Extension::Iknp.instance_bytes(batches) < Extension::DEFAULT.instance_bytes(batches) {
            Extension::Iknp
        } else {
            Extension::DEFAULT
        }
    }

    /// Refuses a SoftSpoken group width outside `2..=8`.
    fn check(self) -> Result<()> {
        match self {
            Extension::SoftSpoken { k } if !(2..=8).contains(&k) => {
                Err(OtError::BadExtension(self.name()))
            }
            _ => Ok(()),
        }
    }

    /// The session id of the extension's base OTs.
    fn base_session_id(self, session_id: &[u8]) -> Vec<u8> {
        [
            b"twofold/ot/",
            self.name().as_bytes(),
            b"/v1/base/",
            session_id,
        ]
        .concat()
    }
}

/// The extension sender (garbler) of a correlated-OT session.
pub struct CotSender {
    delta: Delta,
    ext: SenderExt,
    /// The receiver's lines of the current chunk.
    u: Vec<Block>,
    /// The `q` lines of the current chunk.
    q: Vec<Block>,
    /// Rows of a final partial chunk.
    scratch: Vec<Block>,
}

/// The sender's state of the chosen extension.
enum SenderExt {
    Iknp(IknpSender),
    SoftSpoken(SoftSender),
}

impl SenderExt {
    /// Lines received per chunk.
    fn lines(&self) -> usize {
        match self {
            SenderExt::Iknp(_) => LINES,
            SenderExt::SoftSpoken(s) => s.lines(),
        }
    }
}

/// The extension receiver (evaluator) of a correlated-OT session.
pub struct CotReceiver {
    ext: ReceiverExt,
    /// The `t` lines of the current chunk.
    t: Vec<Block>,
    /// The lines sent to the sender in the current chunk.
    u: Vec<Block>,
    /// The packed choice bits of the current chunk (one line).
    bits: Vec<Block>,
    /// Rows of a final partial chunk.
    scratch: Vec<Block>,
}

/// The receiver's state of the chosen extension.
enum ReceiverExt {
    Iknp(IknpReceiver),
    SoftSpoken(SoftReceiver),
}

impl ReceiverExt {
    /// Lines sent per chunk.
    fn lines(&self) -> usize {
        match self {
            ReceiverExt::Iknp(_) => LINES,
            ReceiverExt::SoftSpoken(r) => r.lines(),
        }
    }
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
    /// Sets up [`Extension::DEFAULT`]: see [`setup_with`](CotSender::setup_with).
    pub fn setup(chan: &mut impl Transport, delta: Delta, session_id: &[u8]) -> Result<CotSender> {
        CotSender::setup_with(chan, delta, session_id, Extension::DEFAULT)
    }

    /// Runs the base OTs of the extension `ext` as base-OT receiver, with
    /// choices from the bits of `delta`. The peer runs
    /// [`CotReceiver::setup_with`] with the same `session_id` (which should
    /// be unique to this session and direction) and extension.
    pub fn setup_with(
        chan: &mut impl Transport,
        delta: Delta,
        session_id: &[u8],
        ext: Extension,
    ) -> Result<CotSender> {
        ext.check()?;
        check_frame_limit(chan)?;
        let sid = ext.base_session_id(session_id);
        let d = delta.block().0;
        let ext = match ext {
            Extension::Iknp => SenderExt::Iknp(IknpSender::setup(chan, d, &sid)?),
            Extension::SoftSpoken { k } => {
                SenderExt::SoftSpoken(SoftSender::setup(chan, d, k as usize, &sid)?)
            }
        };
        Ok(CotSender {
            delta,
            ext,
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
        if let SenderExt::SoftSpoken(s) = &mut self.ext {
            s.receive_corrections(chan, self.delta.block().0)?;
        }
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
        let stride = out.len().div_ceil(LINES);
        self.u.resize(stride * self.ext.lines(), Block::ZERO);
        chan.recv_frame_exact(blocks_as_bytes_mut(&mut self.u))?;
        self.q.resize(stride * LINES, Block::ZERO);
        let delta = self.delta.block().0;
        match &mut self.ext {
            SenderExt::Iknp(s) => s.chunk(delta, &self.u, &mut self.q),
            SenderExt::SoftSpoken(s) => s.chunk(delta, &self.u, &mut self.q),
        }
        transpose_into(&self.q, out, &mut self.scratch);
        Ok(())
    }
}

impl CotReceiver {
    /// Sets up [`Extension::DEFAULT`]: see [`setup_with`](CotReceiver::setup_with).
    pub fn setup(chan: &mut impl Transport, session_id: &[u8]) -> Result<CotReceiver> {
        CotReceiver::setup_with(chan, session_id, Extension::DEFAULT)
    }

    /// Runs the base OTs of the extension `ext` as base-OT sender of random
    /// seed pairs. The peer runs [`CotSender::setup_with`] with the same
    /// `session_id` and extension.
    pub fn setup_with(
        chan: &mut impl Transport,
        session_id: &[u8],
        ext: Extension,
    ) -> Result<CotReceiver> {
        ext.check()?;
        check_frame_limit(chan)?;
        let sid = ext.base_session_id(session_id);
        let ext = match ext {
            Extension::Iknp => ReceiverExt::Iknp(IknpReceiver::setup(chan, &sid)?),
            Extension::SoftSpoken { k } => {
                ReceiverExt::SoftSpoken(SoftReceiver::setup(chan, k as usize, &sid)?)
            }
        };
        Ok(CotReceiver {
            ext,
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
        if let ReceiverExt::SoftSpoken(r) = &mut self.ext {
            r.send_corrections(chan)?;
        }
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
        let stride = out.len().div_ceil(LINES);
        self.bits.clear();
        self.bits.resize(stride, Block::ZERO);
        let packed = blocks_as_bytes_mut(&mut self.bits);
        for (byte, bits) in packed.iter_mut().zip(choices.chunks(8)) {
            *byte = bits
                .iter()
                .enumerate()
                .fold(0u8, |acc, (k, &b)| acc | (b as u8) << k);
        }
        self.t.resize(stride * LINES, Block::ZERO);
        self.u.resize(stride * self.ext.lines(), Block::ZERO);
        match &mut self.ext {
            ReceiverExt::Iknp(r) => r.chunk(&self.bits, &mut self.t, &mut self.u),
            ReceiverExt::SoftSpoken(r) => r.chunk(&self.bits, &mut self.t, &mut self.u),
        }
        chan.send_frame(blocks_as_bytes(&self.u))?;
        transpose_into(&self.t, out, &mut self.scratch);
        Ok(())
    }
}

/// Transposes the lines of a chunk into `out`, through `scratch` when `out`
/// is not a whole number of 128-row blocks.
fn transpose_into(lines: &[Block], out: &mut [Block], scratch: &mut Vec<Block>) {
    // 128 lines of `padded / 128` blocks: as many blocks as padded rows.
    let padded = lines.len();
    let lines = blocks_as_bytes(lines);
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
