//! An in-memory [`Transport`] pair: the two ends of a connection inside one
//! process, for testing protocols without sockets.
//!
//! It keeps the contract of the TCP [`Channel`](crate::Channel): frames are
//! bounded by the maximum both ends share, reads time out after
//! [`ChannelOptions::read_timeout`], a dropped peer is
//! [`NetError::Disconnected`], an error breaks the transport, and bytes are
//! counted with their frame headers. It is stricter about flushing: queued
//! frames reach the peer only on [`flush`](Transport::flush), so a protocol
//! that waits for an answer without flushing fails here (by timeout) instead
//! of working by luck of buffer sizes.

use std::fmt;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};

use crate::transport::check_frame_len;
use crate::{ChannelOptions, NetError, Result, Transport, HEADER_LEN};

/// One end of an in-memory connection: the [`Transport`] contract of the TCP
/// [`Channel`](crate::Channel), with frames delivered on
/// [`flush`](Transport::flush) only. Made in pairs by [`MemoryTransport::pair`].
pub struct MemoryTransport {
    to_peer: Sender<Vec<u8>>,
    from_peer: Receiver<Vec<u8>>,
    queued: Vec<Vec<u8>>,
    opts: ChannelOptions,
    bytes_sent: u64,
    bytes_received: u64,
    broken: bool,
}

impl fmt::Debug for MemoryTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryTransport")
            .field("bytes_sent", &self.bytes_sent)
            .field("bytes_received", &self.bytes_received)
            .field("broken", &self.broken)
            .finish()
    }
}

impl MemoryTransport {
    /// The two connected ends, both with `opts` (validated as for a
    /// [`Channel`](crate::Channel); the buffer size is not used).
    pub fn pair(opts: ChannelOptions) -> Result<(MemoryTransport, MemoryTransport)> {
        opts.validate()?;
        let (to_b, from_a) = mpsc::channel();
        let (to_a, from_b) = mpsc::channel();
        let end = |to_peer, from_peer, opts| MemoryTransport {
            to_peer,
            from_peer,
            queued: Vec::new(),
            opts,
            bytes_sent: 0,
            bytes_received: 0,
            broken: false,
        };
        Ok((end(to_b, from_b, opts.clone()), end(to_a, from_a, opts)))
    }

    /// The options this end was made with.
    pub fn options(&self) -> &ChannelOptions {
        &self.opts
    }

    fn check(&self) -> Result<()> {
        if self.broken {
            Err(NetError::Broken)
        } else {
            Ok(())
        }
    }

    /// Marks the transport broken and returns `e`.
    fn fail<T>(&mut self, e: NetError) -> Result<T> {
        self.broken = true;
        Err(e)
    }

    /// The next frame from the peer (both ends share the maximum frame
    /// length, which the sending end enforces).
    fn next_frame(&mut self) -> Result<Vec<u8>> {
        self.check()?;
        let frame = match self.from_peer.recv_timeout(self.opts.read_timeout) {
            Ok(frame) => frame,
            Err(RecvTimeoutError::Timeout) => {
                return self.fail(NetError::Timeout(self.opts.read_timeout))
            }
            Err(RecvTimeoutError::Disconnected) => return self.fail(NetError::Disconnected),
        };
        self.bytes_received += (HEADER_LEN + frame.len()) as u64;
        Ok(frame)
    }
}

impl Transport for MemoryTransport {
    fn max_frame_len(&self) -> usize {
        self.opts.max_frame_len
    }

    fn send_frame(&mut self, payload: &[u8]) -> Result<()> {
        self.check()?;
        check_frame_len(payload.len() as u64, self.opts.max_frame_len)?;
        self.queued.push(payload.to_vec());
        self.bytes_sent += (HEADER_LEN + payload.len()) as u64;
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        self.check()?;
        for frame in self.queued.drain(..) {
            if self.to_peer.send(frame).is_err() {
                self.broken = true;
                return Err(NetError::Disconnected);
            }
        }
        Ok(())
    }

    fn recv_frame(&mut self, buf: &mut Vec<u8>) -> Result<()> {
        let frame = self.next_frame()?;
        buf.clear();
        buf.extend_from_slice(&frame);
        Ok(())
    }

    fn recv_frame_exact(&mut self, out: &mut [u8]) -> Result<()> {
        let frame = self.next_frame()?;
        if frame.len() != out.len() {
            return self.fail(NetError::UnexpectedLength {
                expected: out.len(),
                got: frame.len(),
            });
        }
        out.copy_from_slice(&frame);
        Ok(())
    }

    fn bytes_sent(&self) -> u64 {
        self.bytes_sent
    }

    fn bytes_received(&self) -> u64 {
        self.bytes_received
    }
}
