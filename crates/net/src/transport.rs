//! The transport seam: what a protocol layer needs from a byte channel to
//! its peer, whatever carries the bytes.

use crate::{NetError, Result};

/// A framed, counted, deadline-bounded, reliable byte channel to one peer.
///
/// Frames arrive whole and in order. Every frame is at most
/// [`max_frame_len`](Transport::max_frame_len) bytes: a longer one is refused
/// on sending and on receiving, before anything is allocated for it. A read
/// that waits longer than the transport's timeout ends in
/// [`NetError::Timeout`], a peer that has gone in [`NetError::Disconnected`];
/// after any error the transport refuses further use with
/// [`NetError::Broken`].
///
/// Sending may be buffered: call [`flush`](Transport::flush) before waiting
/// for the peer's answer.
///
/// Implemented by the TCP [`Channel`](crate::Channel) and by the in-memory
/// [`MemoryTransport`](crate::MemoryTransport) pair (for tests).
pub trait Transport {
    /// Longest frame payload sent or accepted (both peers must agree).
    fn max_frame_len(&self) -> usize;

    /// Queues one frame; it reaches the peer at the latest on
    /// [`flush`](Transport::flush).
    fn send_frame(&mut self, payload: &[u8]) -> Result<()>;

    /// Sends everything queued to the peer.
    fn flush(&mut self) -> Result<()>;

    /// Receives one frame into `buf`, replacing its contents (`buf`'s
    /// allocation is reused).
    fn recv_frame(&mut self, buf: &mut Vec<u8>) -> Result<()>;

    /// Receives one frame that must be exactly `out.len()` bytes long (else
    /// [`NetError::UnexpectedLength`]).
    fn recv_frame_exact(&mut self, out: &mut [u8]) -> Result<()>;

    /// Bytes sent so far, frame headers included (as on TCP), counting bytes
    /// still queued.
    fn bytes_sent(&self) -> u64;

    /// Bytes received so far, frame headers included (as on TCP).
    fn bytes_received(&self) -> u64;

    /// Queues a `u64` as an 8-byte little-endian frame.
    fn send_u64(&mut self, value: u64) -> Result<()> {
        self.send_frame(&value.to_le_bytes())
    }

    /// Receives a `u64` sent by [`send_u64`](Transport::send_u64).
    fn recv_u64(&mut self) -> Result<u64> {
        let mut bytes = [0u8; 8];
        self.recv_frame_exact(&mut bytes)?;
        Ok(u64::from_le_bytes(bytes))
    }
}

/// Refuses a frame of `len` bytes longer than `max`.
pub(crate) fn check_frame_len(len: u64, max: usize) -> Result<()> {
    if len > max as u64 {
        Err(NetError::FrameTooLarge { len, max })
    } else {
        Ok(())
    }
}
