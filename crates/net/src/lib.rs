//! Framed, buffered TCP channels for the two parties of a twofold session.
//!
//! A [`Channel`] wraps one `TcpStream` (with `TCP_NODELAY` set) in large
//! buffered readers and writers and moves *frames*: a 4-byte little-endian
//! length followed by that many payload bytes. Every channel has an agreed
//! maximum frame length ([`ChannelOptions::max_frame_len`]); a longer frame is
//! refused before anything is allocated for it.
//!
//! Reads and writes time out ([`ChannelOptions::read_timeout`],
//! [`ChannelOptions::write_timeout`]) per frame — the whole frame must
//! arrive, or be sent, within the timeout, however the peer doles out its
//! bytes — so a stalled or trickling peer ends in
//! [`NetError::Timeout`] and a closed connection in
//! [`NetError::Disconnected`]: nothing here panics on peer input or blocks
//! forever.
//!
//! After any I/O or framing error the byte stream may be out of step with the
//! peer, so the channel refuses further use with [`NetError::Broken`]; the
//! session is meant to end there.
//!
//! Writes are buffered: call [`Channel::flush`] before waiting for the peer's
//! answer.
//!
//! With [`Security::Tls`] in the options, every channel is a TLS 1.3
//! connection (rustls, ring) on which both ends prove they hold a pinned
//! Ed25519 key ([`keys`]); a record that fails authentication ends in
//! [`NetError::Integrity`] at once, and the alert rustls sends makes the peer
//! end with the same error. See `docs/security.md`.
//!
//! Code that only moves frames (OT, the protocol) can be written against the
//! [`Transport`] trait, which the TCP [`Channel`] and the in-memory
//! [`MemoryTransport`] pair (for tests) implement.

use std::fmt;
use std::io::{self, BufReader};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::thread;
use std::time::{Duration, Instant};

mod deadline;
mod inprocess;
pub mod keys;
mod memory;
mod socket;
mod tls;
mod tls_wire;
mod transport;

pub use inprocess::InProcess;
pub use keys::{KeyError, KeyPair, Psk, PublicKey, PSK_HEADER};
pub use memory::MemoryTransport;
use socket::Socket;
pub use tls::{Security, TlsConfig, EXPORTER_LABEL};
use tls_wire::{TlsFailure, TlsWire};
use transport::check_frame_len;
pub use transport::Transport;

/// Size in bytes of the length header in front of every frame.
pub const HEADER_LEN: usize = 4;

/// Default maximum frame length: 64 MiB.
pub const DEFAULT_MAX_FRAME_LEN: usize = 64 << 20;

/// Default read and write timeout: 60 s.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Default size of the read buffer and of the write buffer: 256 KiB each.
pub const DEFAULT_BUFFER_SIZE: usize = 256 << 10;

/// The longest pause between attempts to connect to a peer that does not
/// listen yet: parties started together wait for each other's compiling,
/// and a pause doubling to 100 ms (as before) overshot the peer's start by
/// up to that much, a third of a three-party session on a LAN.
pub const MAX_CONNECT_PAUSE: Duration = Duration::from_millis(4);

/// Errors of the network layer. Each message includes its cause, and no
/// error exposes it again as [`source`](std::error::Error::source), so a
/// printed chain names every cause once.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    /// The peer sent (or the caller tried to send) a frame longer than the
    /// agreed maximum.
    #[error("frame of {len} bytes exceeds the maximum frame length of {max} bytes")]
    FrameTooLarge {
        /// The announced (or requested) frame length.
        len: u64,
        /// The agreed maximum frame length.
        max: usize,
    },
    /// A frame had a different length from the one the message requires.
    #[error("malformed message: expected a frame of {expected} bytes, got {got} bytes")]
    UnexpectedLength {
        /// The length the message requires.
        expected: usize,
        /// The length of the frame received.
        got: usize,
    },
    /// The peer did not send or receive data within the configured timeout.
    #[error("timed out: the peer sent or accepted nothing within {0:?}")]
    Timeout(Duration),
    /// The peer closed the connection (possibly in the middle of a frame).
    #[error("the peer closed the connection")]
    Disconnected,
    /// No connection could be established before the deadline.
    #[error("could not connect to {addr} within {waited:?}: {cause}")]
    Connect {
        /// The address as given by the caller.
        addr: String,
        /// How long connecting was retried.
        waited: Duration,
        /// The last error seen.
        cause: io::Error,
    },
    /// This process (or the system) has no file descriptor left for a
    /// connection.
    #[error("too many open files: raise `ulimit -n` or use fewer threads (--threads)")]
    TooManyOpenFiles,
    /// No peer connected before the deadline.
    #[error("no peer connected within {0:?}")]
    AcceptTimeout(Duration),
    /// Invalid [`ChannelOptions`].
    #[error("invalid channel options: {0}")]
    InvalidOptions(&'static str),
    /// An earlier error left the channel unusable.
    #[error("the channel is unusable after an earlier error")]
    Broken,
    /// The secure channel failed its integrity or authentication check: a
    /// record was modified, replayed or reordered, the peer's key is not
    /// the pinned one, the peer refused ours, or the peer does not speak
    /// TLS. Nothing received after the last authenticated record was used.
    #[error("the connection failed its integrity/authentication check: {0}")]
    Integrity(String),
    /// The TLS configuration could not be made from the keys.
    #[error("cannot set up the secure channel: {0}")]
    TlsSetup(String),
    /// Any other I/O error.
    #[error("network I/O error: {0}")]
    Io(io::Error),
}

/// Result type of this crate.
pub type Result<T> = std::result::Result<T, NetError>;

/// Settings of a [`Channel`]. Both parties must agree on `max_frame_len`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChannelOptions {
    /// Longest time receiving one frame may take, from starting to wait for
    /// it (must be non-zero).
    pub read_timeout: Duration,
    /// Longest time sending one frame (or flushing) may take (must be
    /// non-zero).
    pub write_timeout: Duration,
    /// Longest frame payload accepted or sent (at most `u32::MAX`).
    pub max_frame_len: usize,
    /// Capacity of the read buffer and of the write buffer, in bytes.
    pub buffer_size: usize,
    /// Plain TCP or TLS with pinned keys (default: plain).
    pub security: Security,
}

impl Default for ChannelOptions {
    fn default() -> Self {
        ChannelOptions {
            read_timeout: DEFAULT_TIMEOUT,
            write_timeout: DEFAULT_TIMEOUT,
            max_frame_len: DEFAULT_MAX_FRAME_LEN,
            buffer_size: DEFAULT_BUFFER_SIZE,
            security: Security::Plain,
        }
    }
}

impl ChannelOptions {
    /// Checks that the options are usable.
    pub fn validate(&self) -> Result<()> {
        if self.read_timeout.is_zero() || self.write_timeout.is_zero() {
            return Err(NetError::InvalidOptions("timeouts must be non-zero"));
        }
        if self.max_frame_len > u32::MAX as usize {
            return Err(NetError::InvalidOptions(
                "max_frame_len must fit the 4-byte frame header",
            ));
        }
        if self.buffer_size == 0 {
            return Err(NetError::InvalidOptions("buffer_size must be non-zero"));
        }
        Ok(())
    }
}

/// The bytes under a channel: plain TCP or a TLS connection.
enum Wire {
    Plain {
        reader: BufReader<Socket>,
        writer: deadline::Writer,
    },
    Tls(Box<TlsWire>),
}

impl Wire {
    fn stream(&self) -> &Socket {
        match self {
            Wire::Plain { writer, .. } => writer.stream(),
            Wire::Tls(tls) => tls.stream(),
        }
    }
}

/// A framed, buffered, byte-counting TCP (or TLS) connection to the peer.
pub struct Channel {
    wire: Wire,
    opts: ChannelOptions,
    bytes_sent: u64,
    bytes_received: u64,
    broken: bool,
}

impl fmt::Debug for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Channel")
            .field("peer", &self.wire.stream().peer_addr().ok())
            .field("secure", &self.is_secure())
            .field("bytes_sent", &self.bytes_sent)
            .field("bytes_received", &self.bytes_received)
            .field("broken", &self.broken)
            .finish()
    }
}

impl Channel {
    /// Wraps a stream this party connected: sets `TCP_NODELAY`, the
    /// timeouts and the buffers of `opts`; with [`Security::Tls`], runs the
    /// client side of the TLS handshake (within the read timeout).
    pub fn new(stream: TcpStream, opts: ChannelOptions) -> Result<Channel> {
        Channel::establish(Socket::Tcp(stream), opts, false)
    }

    /// Wraps a stream this party accepted, as [`new`](Channel::new) does;
    /// with [`Security::Tls`], runs the server side of the handshake.
    pub fn accepted(stream: TcpStream, opts: ChannelOptions) -> Result<Channel> {
        Channel::establish(Socket::Tcp(stream), opts, true)
    }

    /// The two ends of a new Unix socketpair, as the connecting and the
    /// accepting end (with [`Security::Tls`], after both sides of the
    /// handshake): a connection between parties in one process that has no
    /// address and needs no listening socket.
    #[cfg(unix)]
    pub fn pair(opts: &ChannelOptions) -> Result<(Channel, Channel)> {
        let (near, far) = std::os::unix::net::UnixStream::pair().map_err(io_error)?;
        thread::scope(|scope| {
            let accepting =
                scope.spawn(|| Channel::establish(Socket::Pair(far), opts.clone(), true));
            let connecting = Channel::establish(Socket::Pair(near), opts.clone(), false);
            let accepting = accepting.join().expect("a handshake does not panic");
            Ok((connecting?, accepting?))
        })
    }

    fn establish(stream: Socket, opts: ChannelOptions, server: bool) -> Result<Channel> {
        opts.validate()?;
        stream.set_nonblocking(false).map_err(io_error)?;
        stream.set_nodelay().map_err(io_error)?;
        stream
            .set_read_timeout(Some(opts.read_timeout))
            .map_err(io_error)?;
        stream
            .set_write_timeout(Some(opts.write_timeout))
            .map_err(io_error)?;
        let wire = match &opts.security {
            Security::Plain => {
                let read_half = stream.try_clone().map_err(io_error)?;
                Wire::Plain {
                    reader: BufReader::with_capacity(opts.buffer_size, read_half),
                    writer: deadline::Writer::new(stream, opts.buffer_size),
                }
            }
            Security::Tls(config) => {
                let deadline = Instant::now() + opts.read_timeout;
                let tls = TlsWire::handshake(stream, config, server, opts.buffer_size, deadline)
                    .map_err(|e| classify(e, opts.read_timeout))?;
                Wire::Tls(Box::new(tls))
            }
        };
        Ok(Channel {
            wire,
            opts,
            bytes_sent: 0,
            bytes_received: 0,
            broken: false,
        })
    }

    /// Connects to `addr`, retrying (the peer may not listen yet, every
    /// [`MAX_CONNECT_PAUSE`] at most) until `deadline` has passed since the
    /// call.
    pub fn connect<A: ToSocketAddrs + fmt::Display>(
        addr: A,
        deadline: Duration,
        opts: ChannelOptions,
    ) -> Result<Channel> {
        opts.validate()?;
        let start = Instant::now();
        let mut pause = Duration::from_millis(1);
        loop {
            let remaining = deadline.saturating_sub(start.elapsed());
            let err = match try_connect(&addr, remaining) {
                Ok(stream) => return Channel::new(stream, opts),
                Err(e) if matches!(e.raw_os_error(), Some(EMFILE | ENFILE)) => {
                    return Err(NetError::TooManyOpenFiles)
                }
                Err(e) => e,
            };
            let remaining = deadline.saturating_sub(start.elapsed());
            // (An address that does not parse never will: no waiting.)
            if remaining.is_zero() || err.kind() == io::ErrorKind::InvalidInput {
                return Err(NetError::Connect {
                    addr: addr.to_string(),
                    waited: start.elapsed(),
                    cause: err,
                });
            }
            thread::sleep(pause.min(remaining));
            pause = (pause * 2).min(MAX_CONNECT_PAUSE);
        }
    }

    /// The options this channel was made with.
    pub fn options(&self) -> &ChannelOptions {
        &self.opts
    }

    /// The local address of the connection.
    pub fn local_addr(&self) -> Result<SocketAddr> {
        self.wire.stream().local_addr().map_err(io_error)
    }

    /// The peer's address.
    pub fn peer_addr(&self) -> Result<SocketAddr> {
        self.wire.stream().peer_addr().map_err(io_error)
    }

    /// Whether this channel is a TLS connection with an authenticated peer.
    pub fn is_secure(&self) -> bool {
        matches!(self.wire, Wire::Tls(_))
    }

    /// Keying material exported from the TLS connection (label
    /// [`EXPORTER_LABEL`]): the same at both ends, unique to the
    /// connection, secret. `None` on plain TCP.
    pub fn exporter(&self) -> Option<&[u8; 32]> {
        match &self.wire {
            Wire::Plain { .. } => None,
            Wire::Tls(tls) => Some(tls.exporter()),
        }
    }

    /// The TLS cipher suite negotiated (`None` on plain TCP).
    pub fn cipher_suite(&self) -> Option<&'static str> {
        match &self.wire {
            Wire::Plain { .. } => None,
            Wire::Tls(tls) => tls.cipher_suite(),
        }
    }

    /// The key the peer proved it holds (`None` on plain TCP).
    pub fn peer_key(&self) -> Option<PublicKey> {
        match &self.wire {
            Wire::Plain { .. } => None,
            Wire::Tls(tls) => tls.peer_key(),
        }
    }

    /// Changes the read timeout (must be non-zero).
    pub fn set_read_timeout(&mut self, timeout: Duration) -> Result<()> {
        if timeout.is_zero() {
            return Err(NetError::InvalidOptions("timeouts must be non-zero"));
        }
        if let Wire::Plain { reader, .. } = &self.wire {
            reader
                .get_ref()
                .set_read_timeout(Some(timeout))
                .map_err(io_error)?;
        }
        self.opts.read_timeout = timeout;
        Ok(())
    }

    /// Bytes handed to the connection so far (payloads and headers),
    /// including bytes still in the write buffer.
    pub fn bytes_sent(&self) -> u64 {
        self.bytes_sent
    }

    /// Bytes read from the connection so far (payloads and headers).
    pub fn bytes_received(&self) -> u64 {
        self.bytes_received
    }

    /// Queues one frame. It reaches the peer at the latest on
    /// [`flush`](Channel::flush) or when the write buffer fills.
    pub fn send_frame(&mut self, payload: &[u8]) -> Result<()> {
        self.check()?;
        check_frame_len(payload.len() as u64, self.opts.max_frame_len)?;
        // Fits in u32: max_frame_len <= u32::MAX was validated.
        let header = (payload.len() as u32).to_le_bytes();
        let deadline = Instant::now() + self.opts.write_timeout;
        self.write_all(&header, deadline)?;
        self.write_all(payload, deadline)
    }

    /// Sends everything buffered to the peer.
    pub fn flush(&mut self) -> Result<()> {
        self.check()?;
        let deadline = Instant::now() + self.opts.write_timeout;
        let res = match &mut self.wire {
            Wire::Plain { writer, .. } => writer.flush(deadline),
            Wire::Tls(tls) => tls.flush(deadline),
        };
        self.io(res, self.opts.write_timeout)
    }

    /// Receives one frame into `buf`, replacing its contents. `buf`'s
    /// allocation is reused; it never grows beyond the maximum frame length.
    pub fn recv_frame(&mut self, buf: &mut Vec<u8>) -> Result<()> {
        self.recv_frame_at_most(buf, self.opts.max_frame_len)
    }

    /// Receives one frame into `buf`, like [`recv_frame`](Channel::recv_frame),
    /// but refuses (with [`NetError::FrameTooLarge`]) a frame longer than
    /// `max` bytes: for messages of a known small size, so that the peer
    /// cannot make this end allocate a maximum frame for them.
    pub fn recv_frame_at_most(&mut self, buf: &mut Vec<u8>, max: usize) -> Result<()> {
        let deadline = Instant::now() + self.opts.read_timeout;
        let len = self.recv_header(deadline, max.min(self.opts.max_frame_len))?;
        buf.clear();
        buf.resize(len, 0);
        self.read_exact(buf, deadline)
    }

    /// Receives one frame that must be exactly `out.len()` bytes long.
    pub fn recv_frame_exact(&mut self, out: &mut [u8]) -> Result<()> {
        let deadline = Instant::now() + self.opts.read_timeout;
        let len = self.recv_header(deadline, self.opts.max_frame_len)?;
        if len != out.len() {
            self.broken = true;
            return Err(NetError::UnexpectedLength {
                expected: out.len(),
                got: len,
            });
        }
        self.read_exact(out, deadline)
    }

    /// Queues a `u64` as an 8-byte little-endian frame.
    pub fn send_u64(&mut self, value: u64) -> Result<()> {
        Transport::send_u64(self, value)
    }

    /// Receives a `u64` sent by [`send_u64`](Channel::send_u64).
    pub fn recv_u64(&mut self) -> Result<u64> {
        Transport::recv_u64(self)
    }

    /// Queues a byte string as one frame (same as
    /// [`send_frame`](Channel::send_frame)).
    pub fn send_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        self.send_frame(bytes)
    }

    /// Receives one frame into a new vector.
    pub fn recv_bytes(&mut self) -> Result<Vec<u8>> {
        let mut buf = Vec::new();
        self.recv_frame(&mut buf)?;
        Ok(buf)
    }

    /// Reads a frame's header and checks its length against `max`.
    fn recv_header(&mut self, deadline: Instant, max: usize) -> Result<usize> {
        self.check()?;
        let mut header = [0u8; HEADER_LEN];
        self.read_exact(&mut header, deadline)?;
        let len = u32::from_le_bytes(header);
        if let Err(e) = check_frame_len(len as u64, max) {
            self.broken = true;
            return Err(e);
        }
        Ok(len as usize)
    }

    fn check(&self) -> Result<()> {
        if self.broken {
            Err(NetError::Broken)
        } else {
            Ok(())
        }
    }

    fn write_all(&mut self, bytes: &[u8], deadline: Instant) -> Result<()> {
        let res = match &mut self.wire {
            Wire::Plain { writer, .. } => writer.write_all(bytes, deadline),
            Wire::Tls(tls) => tls.write_all(bytes, deadline),
        };
        self.io(res, self.opts.write_timeout)?;
        self.bytes_sent += bytes.len() as u64;
        Ok(())
    }

    fn read_exact(&mut self, out: &mut [u8], deadline: Instant) -> Result<()> {
        let res = match &mut self.wire {
            Wire::Plain { reader, .. } => deadline::read_exact(reader, out, deadline),
            Wire::Tls(tls) => tls.read_exact(out, deadline),
        };
        self.io(res, self.opts.read_timeout)?;
        self.bytes_received += out.len() as u64;
        Ok(())
    }

    /// Maps an I/O result of an operation bounded by `timeout`, marking the
    /// channel broken on error.
    fn io<T>(&mut self, res: io::Result<T>, timeout: Duration) -> Result<T> {
        res.map_err(|e| {
            self.broken = true;
            classify(e, timeout)
        })
    }
}

impl Transport for Channel {
    fn max_frame_len(&self) -> usize {
        self.opts.max_frame_len
    }
    fn send_frame(&mut self, payload: &[u8]) -> Result<()> {
        Channel::send_frame(self, payload)
    }
    fn flush(&mut self) -> Result<()> {
        Channel::flush(self)
    }
    fn recv_frame(&mut self, buf: &mut Vec<u8>) -> Result<()> {
        Channel::recv_frame(self, buf)
    }
    fn recv_frame_exact(&mut self, out: &mut [u8]) -> Result<()> {
        Channel::recv_frame_exact(self, out)
    }
    fn bytes_sent(&self) -> u64 {
        self.bytes_sent
    }
    fn bytes_received(&self) -> u64 {
        self.bytes_received
    }
}

impl Drop for Channel {
    /// Ends a TLS connection with a close_notify alert (an orderly end the
    /// peer can tell from an attack).
    fn drop(&mut self) {
        if let (Wire::Tls(tls), false) = (&mut self.wire, self.broken) {
            tls.close();
        }
    }
}

/// Maps an I/O error to the matching [`NetError`].
fn classify(e: io::Error, timeout: Duration) -> NetError {
    use io::ErrorKind::*;
    if let Some(failure) = e.get_ref().and_then(|i| i.downcast_ref::<TlsFailure>()) {
        return NetError::Integrity(failure.0.clone());
    }
    match e.kind() {
        WouldBlock | TimedOut => NetError::Timeout(timeout),
        UnexpectedEof | ConnectionReset | ConnectionAborted | BrokenPipe | NotConnected
        | WriteZero => NetError::Disconnected,
        _ => io_error(e),
    }
}

/// `e` as a network error; running out of file descriptors (`EMFILE`, the
/// process's limit, or `ENFILE`, the system's) says what to do, at once.
fn io_error(e: io::Error) -> NetError {
    match e.raw_os_error() {
        Some(EMFILE | ENFILE) => NetError::TooManyOpenFiles,
        _ => NetError::Io(e),
    }
}

/// `EMFILE`: the process has no descriptor left (Linux and macOS).
const EMFILE: i32 = 24;
/// `ENFILE`: the system has no descriptor left (Linux and macOS).
const ENFILE: i32 = 23;

/// One connection attempt to every address `addr` resolves to.
fn try_connect<A: ToSocketAddrs>(addr: &A, remaining: Duration) -> io::Result<TcpStream> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, "address resolved to nothing");
    for a in addr.to_socket_addrs()? {
        // connect_timeout refuses a zero duration; never block unbounded.
        match TcpStream::connect_timeout(&a, remaining.max(Duration::from_millis(10))) {
            Ok(s) => return Ok(s),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// A listening socket that hands out [`Channel`]s.
#[derive(Debug)]
pub struct Listener {
    inner: TcpListener,
    opts: ChannelOptions,
}

impl Listener {
    /// Binds to `addr` (port 0 picks a free port; see
    /// [`local_addr`](Listener::local_addr)). Accepted channels use the
    /// default [`ChannelOptions`].
    pub fn bind<A: ToSocketAddrs>(addr: A) -> Result<Listener> {
        let inner = TcpListener::bind(addr).map_err(io_error)?;
        inner.set_nonblocking(true).map_err(io_error)?;
        Ok(Listener {
            inner,
            opts: ChannelOptions::default(),
        })
    }

    /// Sets the options of the channels accepted from now on.
    pub fn with_options(mut self, opts: ChannelOptions) -> Result<Listener> {
        opts.validate()?;
        self.opts = opts;
        Ok(self)
    }

    /// The bound address.
    pub fn local_addr(&self) -> Result<SocketAddr> {
        self.inner.local_addr().map_err(io_error)
    }

    /// Waits until a peer connects, at most `deadline`.
    pub fn accept(&self, deadline: Duration) -> Result<Channel> {
        let start = Instant::now();
        loop {
            match self.inner.accept() {
                Ok((stream, _)) => return Channel::accepted(stream, self.opts.clone()),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(io_error(e)),
            }
            let remaining = deadline.saturating_sub(start.elapsed());
            if remaining.is_zero() {
                return Err(NetError::AcceptTimeout(deadline));
            }
            thread::sleep(remaining.min(Duration::from_millis(2)));
        }
    }
}
