//! A TLS connection over a socket, driven by hand (`read_tls`,
//! `process_new_packets`, `write_tls`) so that every operation ends by a
//! deadline, as on plain TCP (see `deadline.rs`).
//!
//! Small writes are gathered in a plaintext buffer; larger ones are
//! encrypted where they are, in whole 16 KiB records, and the records are
//! sent a buffer's worth at a time (one vectored write for many records);
//! reads take the plaintext rustls has already decrypted and authenticated.
//! A record that fails authentication, or an alert from the peer, ends in
//! a [`TlsFailure`] error, after the alert rustls queued for the peer has
//! been sent: the peer learns at once why the connection ends.

use std::io::{self, BufReader, Read, Write};
use std::time::{Duration, Instant};

use rustls::Connection;

use crate::keys::PublicKey;
use crate::socket::Socket;
use crate::tls::{describe, TlsConfig, EXPORTER_LABEL};

/// Longest single wait on the socket: a wait for a distant deadline is
/// cut into slices this long, so the socket's timeout is set once, not
/// before every read.
const SLICE: Duration = Duration::from_millis(250);

/// The plaintext of a full TLS record: rustls's default (and largest)
/// fragment size.
const RECORD: usize = 16 << 10;

/// How long a party waits for the peer's alert after the peer closed the
/// connection under it.
const ALERT_GRACE: Duration = Duration::from_millis(200);

/// A TLS record failed authentication, the handshake failed, or the peer
/// sent an alert (carried inside an `io::Error` of kind `InvalidData`).
#[derive(Debug)]
pub(crate) struct TlsFailure(pub String);

impl std::fmt::Display for TlsFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TlsFailure {}

fn failure(e: &rustls::Error) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, TlsFailure(describe(e)))
}

/// The time left until `deadline`, or `TimedOut`.
fn remaining(deadline: Instant) -> io::Result<Duration> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        Err(io::ErrorKind::TimedOut.into())
    } else {
        Ok(left)
    }
}

/// Whether an error only says that the socket's timeout passed.
fn timed_out(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
    )
}

/// One TLS connection and its socket.
pub(crate) struct TlsWire {
    conn: Connection,
    sock: Socket,
    /// The socket's read half, buffered: rustls asks for at most a record
    /// (often 4 KiB) a call; this turns many such calls into one read.
    input: BufReader<Socket>,
    out: Vec<u8>,
    capacity: usize,
    /// Plaintext bytes encrypted since the queue was last sent.
    sealed: usize,
    read_wait: Option<Duration>,
    write_wait: Option<Duration>,
    exporter: [u8; 32],
    peer: Option<PublicKey>,
    suite: Option<&'static str>,
}

impl TlsWire {
    /// Runs the handshake on `sock` as the client (`server == false`) or
    /// the server, before `deadline`.
    pub fn handshake(
        sock: Socket,
        config: &TlsConfig,
        server: bool,
        capacity: usize,
        deadline: Instant,
    ) -> io::Result<TlsWire> {
        let conn: Connection = if server {
            rustls::ServerConnection::new(config.server.clone())
                .map_err(|e| failure(&e))?
                .into()
        } else {
            rustls::ClientConnection::new(config.client.clone(), TlsConfig::server_name())
                .map_err(|e| failure(&e))?
                .into()
        };
        let input = BufReader::with_capacity(capacity, sock.try_clone()?);
        let mut wire = TlsWire {
            conn,
            sock,
            input,
            out: Vec::with_capacity(capacity),
            capacity,
            sealed: 0,
            read_wait: None,
            write_wait: None,
            exporter: [0; 32],
            peer: None,
            suite: None,
        };
        while wire.conn.is_handshaking() {
            wire.drain(deadline)?;
            if wire.conn.is_handshaking() && wire.conn.wants_read() {
                wire.fill(deadline)?;
            }
        }
        wire.drain(deadline)?;
        wire.conn.set_buffer_limit(None);
        wire.conn
            .export_keying_material(&mut wire.exporter, EXPORTER_LABEL, None)
            .map_err(|e| failure(&e))?;
        wire.suite = wire
            .conn
            .negotiated_cipher_suite()
            .and_then(|s| s.suite().as_str());
        wire.peer = wire
            .conn
            .peer_certificates()
            .and_then(|certs| certs.first())
            .and_then(|spki| PublicKey::from_spki_der(spki.as_ref()).ok());
        Ok(wire)
    }

    /// The socket.
    pub fn stream(&self) -> &Socket {
        &self.sock
    }

    /// Keying material exported from this connection (the same at both
    /// ends, different on every connection).
    pub fn exporter(&self) -> &[u8; 32] {
        &self.exporter
    }

    /// The key the peer proved it holds.
    pub fn peer_key(&self) -> Option<PublicKey> {
        self.peer
    }

    /// The negotiated cipher suite's name.
    pub fn cipher_suite(&self) -> Option<&'static str> {
        self.suite
    }

    /// Fills `out` with plaintext before `deadline`.
    pub fn read_exact(&mut self, out: &mut [u8], deadline: Instant) -> io::Result<()> {
        let mut filled = 0;
        while filled < out.len() {
            match self.conn.reader().read(&mut out[filled..]) {
                Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.fill(deadline)?,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Queues `bytes`, encrypting and sending (before `deadline`) what does
    /// not fit in the buffer. Of a write of a record or more, the whole
    /// records are encrypted where they are, not copied into the buffer.
    pub fn write_all(&mut self, bytes: &[u8], deadline: Instant) -> io::Result<()> {
        let unit = RECORD.min(self.capacity);
        if bytes.len() < unit && self.out.len() + bytes.len() <= self.capacity {
            self.out.extend_from_slice(bytes);
            return Ok(());
        }
        let top = (unit - self.out.len() % unit) % unit;
        let (head, rest) = bytes.split_at(top.min(bytes.len()));
        self.out.extend_from_slice(head);
        self.seal_buffer(deadline)?;
        let (whole, tail) = rest.split_at(rest.len() - rest.len() % unit);
        for chunk in whole.chunks(self.capacity) {
            self.seal(chunk, deadline)?;
        }
        self.out.extend_from_slice(tail);
        Ok(())
    }

    /// Encrypts and sends everything buffered before `deadline`.
    pub fn flush(&mut self, deadline: Instant) -> io::Result<()> {
        self.seal_buffer(deadline)?;
        self.drain(deadline)
    }

    /// Sends a close_notify alert (best effort, briefly): the peer sees an
    /// orderly end rather than a reset.
    pub fn close(&mut self) {
        self.conn.send_close_notify();
        let _ = self.drain(Instant::now() + ALERT_GRACE);
    }

    /// Encrypts the buffer into records (see [`seal`](Self::seal)).
    fn seal_buffer(&mut self, deadline: Instant) -> io::Result<()> {
        let out = std::mem::take(&mut self.out);
        let sealed = self.seal(&out, deadline);
        self.out = out;
        self.out.clear();
        sealed
    }

    /// Encrypts `plain` into records, queued in rustls; sends the queue
    /// (before `deadline`) once it holds a buffer's worth.
    fn seal(&mut self, plain: &[u8], deadline: Instant) -> io::Result<()> {
        if plain.is_empty() {
            return Ok(());
        }
        self.conn.writer().write_all(plain)?;
        self.sealed += plain.len();
        if self.sealed >= self.capacity {
            self.drain(deadline)?;
        }
        Ok(())
    }

    /// Sends every record rustls has queued before `deadline`. When the
    /// peer has gone, looks for the alert it may have sent first, so that
    /// a party whose peer refused its data says why.
    fn drain(&mut self, deadline: Instant) -> io::Result<()> {
        while self.conn.wants_write() {
            let wait = remaining(deadline)?.min(SLICE);
            if self.write_wait != Some(wait) {
                self.sock.set_write_timeout(Some(wait))?;
                self.write_wait = Some(wait);
            }
            match self.conn.write_tls(&mut self.sock) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(_) => {}
                Err(e) if timed_out(&e) => {}
                Err(e) => return Err(self.peer_verdict().unwrap_or(e)),
            }
        }
        self.sealed = 0;
        Ok(())
    }

    /// Reads and processes more records before `deadline`.
    fn fill(&mut self, deadline: Instant) -> io::Result<()> {
        loop {
            if self.input.buffer().is_empty() {
                let wait = remaining(deadline)?.min(SLICE);
                if self.read_wait != Some(wait) {
                    self.sock.set_read_timeout(Some(wait))?;
                    self.read_wait = Some(wait);
                }
            }
            match self.conn.read_tls(&mut self.input) {
                Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                Ok(_) => break,
                Err(e) if timed_out(&e) => {}
                Err(e) => return Err(e),
            }
        }
        self.process()
    }

    /// Decrypts what was read; on failure sends rustls's alert to the peer.
    fn process(&mut self) -> io::Result<()> {
        match self.conn.process_new_packets() {
            Ok(_) => Ok(()),
            Err(e) => {
                let err = failure(&e);
                let _ = self.drain_briefly();
                Err(err)
            }
        }
    }

    /// Sends queued records (an alert), waiting at most [`ALERT_GRACE`].
    fn drain_briefly(&mut self) -> io::Result<()> {
        let deadline = Instant::now() + ALERT_GRACE;
        while self.conn.wants_write() {
            let wait = remaining(deadline)?;
            self.sock.set_write_timeout(Some(wait))?;
            self.write_wait = Some(wait);
            if self.conn.write_tls(&mut self.sock)? == 0 {
                break;
            }
        }
        Ok(())
    }

    /// After a failed write: the failure the peer reported in an alert
    /// before it closed, if any arrives within [`ALERT_GRACE`].
    fn peer_verdict(&mut self) -> Option<io::Error> {
        let deadline = Instant::now() + ALERT_GRACE;
        loop {
            let wait = remaining(deadline).ok()?;
            self.sock.set_read_timeout(Some(wait)).ok()?;
            self.read_wait = Some(wait);
            match self.conn.read_tls(&mut self.input) {
                Ok(0) => return None,
                Ok(_) => {
                    if let Err(e) = self.conn.process_new_packets() {
                        return Some(failure(&e));
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
        }
    }
}
