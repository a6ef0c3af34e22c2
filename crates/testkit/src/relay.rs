//! A TCP relay that stands between two parties and does one thing wrong: it
//! flips, drops, duplicates, reorders, truncates, delays or trickles the
//! bytes of one direction of one connection at a chosen offset, and forwards
//! everything else as it comes. The channel and fault-injection tests put it
//! between two ends, threads or real processes.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// What the relay does wrong, at byte `offset` of the faulted stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// XOR the byte at `offset` with `mask` (not zero).
    Flip {
        /// Position in the stream.
        offset: u64,
        /// Bits to flip.
        mask: u8,
    },
    /// Leave out `len` bytes from `offset` on.
    Drop {
        /// Position in the stream.
        offset: u64,
        /// Bytes left out.
        len: u64,
    },
    /// Send the `len` bytes from `offset` on twice (a replay; a span that
    /// two reads cut in two is repeated piece by piece).
    Duplicate {
        /// Position in the stream.
        offset: u64,
        /// Bytes repeated.
        len: u64,
    },
    /// Swap the first two `len`-byte pieces of the first read that holds
    /// both, from `offset` on (bytes arriving out of order).
    Reorder {
        /// Position in the stream.
        offset: u64,
        /// Bytes in each piece.
        len: u64,
    },
    /// Close the connection, both ways, at `offset`.
    Truncate {
        /// Position in the stream.
        offset: u64,
    },
    /// Hold the bytes from `offset` on back for `millis` milliseconds.
    Delay {
        /// Position in the stream.
        offset: u64,
        /// How long.
        millis: u64,
    },
    /// From `offset` on, pass one byte every `millis` milliseconds.
    Trickle {
        /// Position in the stream.
        offset: u64,
        /// The pause after each byte.
        millis: u64,
    },
}

impl Fault {
    /// Where in the stream the fault strikes.
    pub fn offset(self) -> u64 {
        match self {
            Fault::Flip { offset, .. }
            | Fault::Drop { offset, .. }
            | Fault::Duplicate { offset, .. }
            | Fault::Reorder { offset, .. }
            | Fault::Truncate { offset }
            | Fault::Delay { offset, .. }
            | Fault::Trickle { offset, .. } => offset,
        }
    }

    /// Whether the fault changes the bytes that arrive (every fault but a
    /// delay or a trickle).
    pub fn corrupts(self) -> bool {
        !matches!(self, Fault::Delay { .. } | Fault::Trickle { .. })
    }
}

/// Which way the faulted bytes go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From the party that connects to the one that listens.
    ToListener,
    /// From the party that listens to the one that connects.
    ToConnector,
}

/// A running relay: connect to [`Relay::addr`] instead of the listening
/// party. Stops accepting when dropped.
pub struct Relay {
    addr: SocketAddr,
    applied: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
}

impl Relay {
    /// Starts a relay to the party listening at `target` that applies
    /// `fault` to the `direction` stream of the `connection`-th connection
    /// (0: the first) and forwards every other byte unchanged.
    pub fn start(
        target: SocketAddr,
        fault: Fault,
        direction: Direction,
        connection: usize,
    ) -> io::Result<Relay> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let relay = Relay {
            addr: listener.local_addr()?,
            applied: Arc::new(AtomicBool::new(false)),
            stop: Arc::new(AtomicBool::new(false)),
        };
        let (applied, stop) = (relay.applied.clone(), relay.stop.clone());
        let accepted = AtomicUsize::new(0);
        thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((from, _)) => {
                        let index = accepted.fetch_add(1, Ordering::Relaxed);
                        let faulted = (index == connection).then_some((fault, direction));
                        let _ = forward(from, target, faulted, applied.clone());
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        thread::sleep(Duration::from_millis(5));
                    }
                    Err(_) => return,
                }
            }
        });
        Ok(relay)
    }

    /// Where the connecting party should connect.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Whether the fault has struck (the faulted stream reached its offset).
    pub fn applied(&self) -> bool {
        self.applied.load(Ordering::Relaxed)
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Connects `from` to `target` and pumps both ways, the `faulted` direction
/// through the fault.
fn forward(
    from: TcpStream,
    target: SocketAddr,
    faulted: Option<(Fault, Direction)>,
    applied: Arc<AtomicBool>,
) -> io::Result<()> {
    from.set_nonblocking(false)?;
    let to = connect_retrying(target, Duration::from_secs(5))?;
    for stream in [&from, &to] {
        stream.set_nodelay(true)?;
    }
    let fault_for = |d: Direction| faulted.filter(|f| f.1 == d).map(|f| f.0);
    let pumps = [
        (
            from.try_clone()?,
            to.try_clone()?,
            fault_for(Direction::ToListener),
        ),
        (to, from, fault_for(Direction::ToConnector)),
    ];
    for (src, dst, fault) in pumps {
        let applied = applied.clone();
        thread::spawn(move || pump(src, dst, fault, &applied));
    }
    Ok(())
}

fn connect_retrying(target: SocketAddr, wait: Duration) -> io::Result<TcpStream> {
    let start = Instant::now();
    loop {
        match TcpStream::connect(target) {
            Ok(s) => return Ok(s),
            Err(e) if start.elapsed() > wait => return Err(e),
            Err(_) => thread::sleep(Duration::from_millis(20)),
        }
    }
}

/// Copies `src` to `dst` until either ends, applying `fault` on the way.
fn pump(mut src: TcpStream, mut dst: TcpStream, fault: Option<Fault>, applied: &AtomicBool) {
    let mut stream = FaultyStream {
        fault,
        position: 0,
        cut: false,
        done: false,
        pace: None,
        applied,
    };
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = match src.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let parts = stream.pass(&mut buf[..n]);
        let sent = parts.iter().all(|part| {
            let sent = dst.write_all(part).is_ok();
            if let Some(pause) = stream.pace {
                thread::sleep(pause);
            }
            sent
        });
        if stream.cut {
            // Truncated: both ways end here.
            let _ = src.shutdown(Shutdown::Both);
            let _ = dst.shutdown(Shutdown::Both);
            return;
        }
        if !sent {
            break;
        }
    }
    // The sender finished (or the receiver left): pass the end on, and
    // leave the other direction running, so that what the receiver still
    // says (a TLS alert) reaches the sender.
    let _ = dst.shutdown(Shutdown::Write);
}

/// The faulted stream's state: how far it has gone.
struct FaultyStream<'a> {
    fault: Option<Fault>,
    position: u64,
    /// Set once the connection is to be cut after what was passed.
    cut: bool,
    /// Set once a reorder has struck (it strikes once).
    done: bool,
    /// Once trickling: the pause after each piece.
    pace: Option<Duration>,
    applied: &'a AtomicBool,
}

impl FaultyStream<'_> {
    /// What to send for the `chunk` read next, as pieces in order (after
    /// which the connection is cut if [`cut`](FaultyStream::cut) is set).
    fn pass<'c>(&mut self, chunk: &'c mut [u8]) -> Vec<&'c [u8]> {
        let start = self.position;
        let end = start + chunk.len() as u64;
        self.position = end;
        let Some(fault) = self.fault else {
            return vec![chunk];
        };
        match fault {
            Fault::Reorder { offset, len } => return self.reorder(chunk, start, offset, len),
            Fault::Trickle { offset, millis } if end > offset => {
                self.applied.store(true, Ordering::Relaxed);
                let lo = (offset.max(start) - start) as usize;
                let (head, rest) = chunk.split_at(lo);
                let mut parts = vec![head];
                parts.extend(rest.chunks(1));
                self.pace = Some(Duration::from_millis(millis));
                return parts;
            }
            _ => {}
        }
        // The fault's span of bytes, as far as this chunk holds it.
        let span = match fault {
            Fault::Drop { len, .. } | Fault::Duplicate { len, .. } => len.max(1),
            _ => 1,
        };
        let (from, to) = (fault.offset(), fault.offset() + span);
        if end <= from || start >= to {
            return vec![chunk];
        }
        self.applied.store(true, Ordering::Relaxed);
        let lo = (from.max(start) - start) as usize;
        let hi = (to.min(end) - start) as usize;
        match fault {
            Fault::Flip { mask, .. } => {
                chunk[lo] ^= mask;
                vec![chunk]
            }
            Fault::Drop { .. } => {
                let (head, rest) = chunk.split_at(lo);
                vec![head, &rest[hi - lo..]]
            }
            Fault::Duplicate { .. } => {
                let (head, rest) = chunk.split_at(hi);
                vec![head, &head[lo..], rest]
            }
            Fault::Truncate { .. } => {
                self.cut = true;
                vec![&chunk[..lo]]
            }
            Fault::Delay { millis, .. } => {
                thread::sleep(Duration::from_millis(millis));
                vec![chunk]
            }
            Fault::Reorder { .. } | Fault::Trickle { .. } => vec![chunk],
        }
    }

    /// Swaps two `len`-byte pieces from `offset` on in `chunk` (which starts
    /// at `start`), if it holds both and no reorder struck before.
    fn reorder<'c>(
        &mut self,
        chunk: &'c mut [u8],
        start: u64,
        offset: u64,
        len: u64,
    ) -> Vec<&'c [u8]> {
        let end = start + chunk.len() as u64;
        let lo = offset.max(start);
        if !self.done && lo + 2 * len <= end {
            let (lo, len) = ((lo - start) as usize, len as usize);
            let (first, second) = chunk[lo..lo + 2 * len].split_at_mut(len);
            first.swap_with_slice(second);
            self.done = true;
            self.applied.store(true, Ordering::Relaxed);
        }
        vec![chunk]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What arrives when `chunks` pass through `fault`, and whether the
    /// fault struck.
    fn through(fault: Fault, chunks: &[&[u8]]) -> (Vec<u8>, bool) {
        let applied = AtomicBool::new(false);
        let mut stream = FaultyStream {
            fault: Some(fault),
            position: 0,
            cut: false,
            done: false,
            pace: None,
            applied: &applied,
        };
        let mut out = Vec::new();
        for chunk in chunks {
            let mut chunk = chunk.to_vec();
            for part in stream.pass(&mut chunk) {
                out.extend_from_slice(part);
            }
            if stream.cut {
                break;
            }
        }
        (out, applied.load(Ordering::Relaxed))
    }

    #[test]
    fn each_fault_does_what_it_says_across_chunks() {
        let chunks: [&[u8]; 2] = [b"abcd", b"efgh"];
        let cases = [
            (Fault::Flip { offset: 5, mask: 1 }, &b"abcdeggh"[..], true),
            (Fault::Drop { offset: 3, len: 2 }, b"abcfgh", true),
            (Fault::Duplicate { offset: 1, len: 2 }, b"abcbcdefgh", true),
            (Fault::Duplicate { offset: 3, len: 2 }, b"abcddeefgh", true),
            (Fault::Truncate { offset: 6 }, b"abcdef", true),
            (Fault::Reorder { offset: 3, len: 2 }, b"abcdghef", true),
            (Fault::Reorder { offset: 0, len: 2 }, b"cdabefgh", true),
            (
                Fault::Trickle {
                    offset: 6,
                    millis: 0,
                },
                b"abcdefgh",
                true,
            ),
            (
                Fault::Delay {
                    offset: 0,
                    millis: 1,
                },
                b"abcdefgh",
                true,
            ),
            (
                Fault::Flip {
                    offset: 99,
                    mask: 1,
                },
                b"abcdefgh",
                false,
            ),
        ];
        for (fault, want, applied) in cases {
            let (got, struck) = through(fault, &chunks);
            assert_eq!(got, want, "{fault:?}");
            assert_eq!(struck, applied, "{fault:?}");
        }
    }
}
