//! Reading and writing a socket against a deadline for the whole operation,
//! not for each system call: a peer that trickles a byte now and then
//! cannot keep a party waiting longer than the timeout of one frame.

use std::io::{self, BufReader, Read, Write};
use std::time::Instant;

use crate::socket::Socket;

/// The time left until `deadline`, or `TimedOut` when it has passed.
fn remaining(deadline: Instant) -> io::Result<std::time::Duration> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        Err(io::ErrorKind::TimedOut.into())
    } else {
        Ok(left)
    }
}

/// Fills `out` from `reader` before `deadline`.
pub(crate) fn read_exact(
    reader: &mut BufReader<Socket>,
    out: &mut [u8],
    deadline: Instant,
) -> io::Result<()> {
    let mut filled = 0;
    while filled < out.len() {
        if reader.buffer().is_empty() {
            // The next read waits on the socket: for no longer than is left.
            reader
                .get_ref()
                .set_read_timeout(Some(remaining(deadline)?))?;
        }
        match reader.read(&mut out[filled..]) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// A write buffer in front of a socket whose every write to the socket
/// ends by a deadline.
pub(crate) struct Writer {
    stream: Socket,
    buf: Vec<u8>,
    capacity: usize,
}

impl Writer {
    /// A buffer of `capacity` bytes in front of `stream`.
    pub fn new(stream: Socket, capacity: usize) -> Writer {
        Writer {
            stream,
            buf: Vec::with_capacity(capacity),
            capacity,
        }
    }

    /// The socket.
    pub fn stream(&self) -> &Socket {
        &self.stream
    }

    /// Queues `bytes`, writing to the socket (before `deadline`) what does
    /// not fit in the buffer.
    pub fn write_all(&mut self, bytes: &[u8], deadline: Instant) -> io::Result<()> {
        if self.buf.len() + bytes.len() <= self.capacity {
            self.buf.extend_from_slice(bytes);
            return Ok(());
        }
        self.flush(deadline)?;
        if bytes.len() >= self.capacity {
            send(&mut self.stream, bytes, deadline)
        } else {
            self.buf.extend_from_slice(bytes);
            Ok(())
        }
    }

    /// Writes everything buffered to the socket before `deadline`.
    pub fn flush(&mut self, deadline: Instant) -> io::Result<()> {
        let sent = send(&mut self.stream, &self.buf, deadline);
        self.buf.clear();
        sent
    }
}

/// Writes all of `bytes` to `stream` before `deadline`.
fn send(stream: &mut Socket, bytes: &[u8], deadline: Instant) -> io::Result<()> {
    let mut done = 0;
    while done < bytes.len() {
        stream.set_write_timeout(Some(remaining(deadline)?))?;
        match stream.write(&bytes[done..]) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
