//! The socket under a [`Channel`](crate::Channel): a TCP connection between
//! processes, or one end of a Unix socketpair between parties in one
//! process (no address, no listening socket: nothing another local user
//! can connect to).

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
#[cfg(unix)]
use std::os::unix::net::UnixStream;
use std::time::Duration;

/// A connected stream socket.
#[derive(Debug)]
pub(crate) enum Socket {
    /// A TCP connection.
    Tcp(TcpStream),
    /// One end of a socketpair.
    #[cfg(unix)]
    Pair(UnixStream),
}

/// Evaluates `$e` with `$s` bound to whichever socket `$self` holds.
macro_rules! each {
    ($self:expr, $s:ident => $e:expr) => {
        match $self {
            Socket::Tcp($s) => $e,
            #[cfg(unix)]
            Socket::Pair($s) => $e,
        }
    };
}

impl Socket {
    /// A second handle on the same socket.
    pub fn try_clone(&self) -> io::Result<Socket> {
        Ok(match self {
            Socket::Tcp(s) => Socket::Tcp(s.try_clone()?),
            #[cfg(unix)]
            Socket::Pair(s) => Socket::Pair(s.try_clone()?),
        })
    }

    /// Sets the timeout of each read.
    pub fn set_read_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        each!(self, s => s.set_read_timeout(timeout))
    }

    /// Sets the timeout of each write.
    pub fn set_write_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        each!(self, s => s.set_write_timeout(timeout))
    }

    /// Makes reads and writes block (or not).
    pub fn set_nonblocking(&self, nonblocking: bool) -> io::Result<()> {
        each!(self, s => s.set_nonblocking(nonblocking))
    }

    /// Sends small writes at once (TCP only; a socketpair has no delay).
    pub fn set_nodelay(&self) -> io::Result<()> {
        match self {
            Socket::Tcp(s) => s.set_nodelay(true),
            #[cfg(unix)]
            Socket::Pair(_) => Ok(()),
        }
    }

    /// This end's address (a socketpair has none).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        match self {
            Socket::Tcp(s) => s.local_addr(),
            #[cfg(unix)]
            Socket::Pair(_) => Err(no_address()),
        }
    }

    /// The other end's address (a socketpair has none).
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        match self {
            Socket::Tcp(s) => s.peer_addr(),
            #[cfg(unix)]
            Socket::Pair(_) => Err(no_address()),
        }
    }
}

#[cfg(unix)]
fn no_address() -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        "an in-process connection (a socketpair) has no network address",
    )
}

impl Read for Socket {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        each!(self, s => s.read(buf))
    }
}

impl Write for Socket {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        each!(self, s => s.write(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        each!(self, s => s.flush())
    }
}
