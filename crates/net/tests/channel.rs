//! Loopback tests of the framed channel; the [`Transport`] contract is
//! checked on TCP and on the in-memory pair alike.

use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use twofold_net::{
    Channel, ChannelOptions, Listener, MemoryTransport, NetError, Transport, HEADER_LEN,
};

const DEADLINE: Duration = Duration::from_secs(10);

fn short_timeouts(ms: u64) -> ChannelOptions {
    ChannelOptions {
        read_timeout: Duration::from_millis(ms),
        write_timeout: Duration::from_millis(ms),
        ..ChannelOptions::default()
    }
}

fn listener() -> (Listener, SocketAddr) {
    let l = Listener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    (l, addr)
}

/// A connected pair of channels.
fn pair(opts: ChannelOptions) -> (Channel, Channel) {
    let (l, addr) = listener();
    let l = l.with_options(opts.clone()).unwrap();
    let client = thread::spawn(move || Channel::connect(addr, DEADLINE, opts).unwrap());
    let server = l.accept(DEADLINE).unwrap();
    (server, client.join().unwrap())
}

/// A connected in-memory pair.
fn memory(opts: ChannelOptions) -> (MemoryTransport, MemoryTransport) {
    MemoryTransport::pair(opts).unwrap()
}

/// Deterministic filler so that corrupted payloads are noticed.
fn payload(len: usize, salt: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(salt) ^ (i >> 8) as u8)
        .collect()
}

#[test]
fn round_trips_frames_of_many_sizes_and_counts_bytes() {
    round_trips(pair(ChannelOptions::default()));
}

#[test]
fn memory_round_trips_frames_of_many_sizes_and_counts_bytes() {
    round_trips(memory(ChannelOptions::default()));
}

fn round_trips<T: Transport + Send + 'static>((mut server, mut client): (T, T)) {
    let sizes = [
        0usize,
        1,
        3,
        4,
        5,
        255,
        4096,
        65_535,
        256 << 10,
        (256 << 10) + 1,
        1 << 20,
        5 << 20,
    ];
    let echo = thread::spawn(move || {
        let mut buf = Vec::new();
        for _ in 0..sizes.len() {
            server.recv_frame(&mut buf).unwrap();
            server.send_frame(&buf).unwrap();
            server.flush().unwrap();
        }
        (server.bytes_sent(), server.bytes_received())
    });
    let mut buf = Vec::new();
    let mut expected = 0u64;
    for (i, &len) in sizes.iter().enumerate() {
        let p = payload(len, i as u8);
        client.send_frame(&p).unwrap();
        client.flush().unwrap();
        client.recv_frame(&mut buf).unwrap();
        assert_eq!(buf.len(), len);
        assert!(buf == p, "frame of {len} bytes corrupted");
        expected += (HEADER_LEN + len) as u64;
    }
    let (server_sent, server_received) = echo.join().unwrap();
    assert_eq!(client.bytes_sent(), expected);
    assert_eq!(client.bytes_received(), expected);
    assert_eq!(server_sent, expected);
    assert_eq!(server_received, expected);
}

#[test]
fn u64_and_bytes_helpers_round_trip() {
    let (mut a, mut b) = pair(ChannelOptions::default());
    a.send_u64(0).unwrap();
    a.send_u64(u64::MAX).unwrap();
    a.send_u64(0x0123_4567_89ab_cdef).unwrap();
    a.send_bytes(b"twofold").unwrap();
    a.send_bytes(b"").unwrap();
    a.flush().unwrap();
    assert_eq!(b.recv_u64().unwrap(), 0);
    assert_eq!(b.recv_u64().unwrap(), u64::MAX);
    assert_eq!(b.recv_u64().unwrap(), 0x0123_4567_89ab_cdef);
    assert_eq!(b.recv_bytes().unwrap(), b"twofold");
    assert_eq!(b.recv_bytes().unwrap(), b"");
    assert_eq!(a.bytes_sent(), 3 * 12 + 11 + 4);
    assert_eq!(b.bytes_received(), a.bytes_sent());
}

#[test]
fn wrong_length_for_u64_is_an_error() {
    wrong_length_for_u64(pair(ChannelOptions::default()));
}

#[test]
fn memory_wrong_length_for_u64_is_an_error() {
    wrong_length_for_u64(memory(ChannelOptions::default()));
}

fn wrong_length_for_u64<T: Transport>((mut a, mut b): (T, T)) {
    a.send_frame(&[1, 2, 3]).unwrap();
    a.flush().unwrap();
    match b.recv_u64() {
        Err(NetError::UnexpectedLength {
            expected: 8,
            got: 3,
        }) => {}
        other => panic!("expected UnexpectedLength, got {other:?}"),
    }
    // The stream is out of step now: the channel refuses further use.
    assert!(matches!(b.recv_u64(), Err(NetError::Broken)));
}

#[test]
fn oversize_frame_is_rejected_before_allocation() {
    let (l, addr) = listener();
    let opts = ChannelOptions {
        max_frame_len: 1 << 20,
        ..short_timeouts(2000)
    };
    let l = l.with_options(opts).unwrap();
    let raw = thread::spawn(move || {
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(&u32::MAX.to_le_bytes()).unwrap();
        s.write_all(&[0u8; 64]).unwrap();
        s
    });
    let mut chan = l.accept(DEADLINE).unwrap();
    let mut buf = Vec::new();
    match chan.recv_frame(&mut buf) {
        Err(NetError::FrameTooLarge { len, max }) => {
            assert_eq!(len, u32::MAX as u64);
            assert_eq!(max, 1 << 20);
        }
        other => panic!("expected FrameTooLarge, got {other:?}"),
    }
    assert_eq!(buf.capacity(), 0, "nothing may be allocated for the frame");
    assert!(matches!(chan.recv_frame(&mut buf), Err(NetError::Broken)));
    drop(raw.join().unwrap());
}

/// Options with a maximum frame length of 1000 bytes.
fn max_1000() -> ChannelOptions {
    ChannelOptions {
        max_frame_len: 1000,
        ..short_timeouts(2000)
    }
}

#[test]
fn frame_one_past_the_maximum_is_rejected_on_both_ends() {
    frame_one_past_the_maximum(pair(max_1000()));
}

#[test]
fn memory_frame_one_past_the_maximum_is_rejected() {
    frame_one_past_the_maximum(memory(max_1000()));
}

fn frame_one_past_the_maximum<T: Transport>((mut a, mut b): (T, T)) {
    let max = 1000;
    assert_eq!(a.max_frame_len(), max);
    // Exactly the maximum passes.
    a.send_frame(&vec![7u8; max]).unwrap();
    a.flush().unwrap();
    let mut buf = Vec::new();
    b.recv_frame(&mut buf).unwrap();
    assert_eq!(buf.len(), max);
    // One more is refused by the sender, and nothing is sent.
    assert!(matches!(
        a.send_frame(&vec![7u8; max + 1]),
        Err(NetError::FrameTooLarge {
            len: 1001,
            max: 1000
        })
    ));
    assert_eq!(a.bytes_sent(), (HEADER_LEN + max) as u64);
}

#[test]
fn peer_disconnecting_mid_frame_gives_disconnected() {
    let (l, addr) = listener();
    let l = l.with_options(short_timeouts(5000)).unwrap();
    let raw = thread::spawn(move || {
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(&100u32.to_le_bytes()).unwrap();
        s.write_all(&[1u8; 10]).unwrap();
        // Dropped here: the connection closes after 10 of 100 bytes.
    });
    let mut chan = l.accept(DEADLINE).unwrap();
    raw.join().unwrap();
    let start = Instant::now();
    let mut buf = Vec::new();
    assert!(matches!(
        chan.recv_frame(&mut buf),
        Err(NetError::Disconnected)
    ));
    assert!(
        start.elapsed() < Duration::from_secs(4),
        "must not wait for the timeout"
    );
}

#[test]
fn peer_disconnecting_between_frames_gives_disconnected() {
    peer_disconnecting_between_frames(pair(short_timeouts(5000)));
}

#[test]
fn memory_peer_disconnecting_between_frames_gives_disconnected() {
    peer_disconnecting_between_frames(memory(short_timeouts(5000)));
}

fn peer_disconnecting_between_frames<T: Transport>((mut a, b): (T, T)) {
    drop(b);
    let mut buf = Vec::new();
    assert!(matches!(
        a.recv_frame(&mut buf),
        Err(NetError::Disconnected)
    ));
}

#[test]
fn silent_peer_gives_timeout_within_the_configured_time() {
    silent_peer_gives_timeout(pair(short_timeouts(200)));
}

#[test]
fn memory_silent_peer_gives_timeout_within_the_configured_time() {
    silent_peer_gives_timeout(memory(short_timeouts(200)));
}

#[test]
fn memory_frames_reach_the_peer_only_on_flush() {
    let (mut a, mut b) = memory(short_timeouts(100));
    a.send_frame(b"queued").unwrap();
    let mut buf = Vec::new();
    assert!(matches!(b.recv_frame(&mut buf), Err(NetError::Timeout(_))));
    let (mut a, mut b) = memory(short_timeouts(100));
    a.send_frame(b"queued").unwrap();
    a.flush().unwrap();
    b.recv_frame(&mut buf).unwrap();
    assert_eq!(buf, b"queued");
}

fn silent_peer_gives_timeout<T: Transport>((mut a, _b): (T, T)) {
    let start = Instant::now();
    let mut buf = Vec::new();
    match a.recv_frame(&mut buf) {
        Err(NetError::Timeout(t)) => assert_eq!(t, Duration::from_millis(200)),
        other => panic!("expected Timeout, got {other:?}"),
    }
    let waited = start.elapsed();
    assert!(
        waited >= Duration::from_millis(150),
        "returned after {waited:?}"
    );
    assert!(waited < Duration::from_secs(2), "returned after {waited:?}");
}

#[test]
fn peer_that_stops_reading_gives_write_timeout() {
    let (mut a, _b) = pair(short_timeouts(200));
    let chunk = vec![0u8; 1 << 20];
    let start = Instant::now();
    let mut result = Ok(());
    // Loopback socket buffers hold a few MiB at most; 256 MiB is far more.
    for _ in 0..256 {
        result = a.send_frame(&chunk).and_then(|_| a.flush());
        if result.is_err() {
            break;
        }
    }
    assert!(matches!(result, Err(NetError::Timeout(_))), "{result:?}");
    assert!(start.elapsed() < Duration::from_secs(10));
}

#[test]
fn connect_retries_until_the_listener_appears() {
    // Find a free port, release it, and listen on it only later.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let server = thread::spawn(move || {
        thread::sleep(Duration::from_millis(300));
        let l = Listener::bind(addr).unwrap();
        let mut chan = l.accept(DEADLINE).unwrap();
        chan.send_u64(42).unwrap();
        chan.flush().unwrap();
        chan
    });
    let start = Instant::now();
    let mut client = Channel::connect(addr, DEADLINE, ChannelOptions::default()).unwrap();
    assert!(start.elapsed() >= Duration::from_millis(250));
    assert_eq!(client.recv_u64().unwrap(), 42);
    assert_eq!(client.peer_addr().unwrap(), addr);
    drop(server.join().unwrap());
}

#[test]
fn connect_gives_up_at_the_deadline() {
    let addr = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let start = Instant::now();
    let res = Channel::connect(addr, Duration::from_millis(200), ChannelOptions::default());
    assert!(matches!(res, Err(NetError::Connect { .. })), "{res:?}");
    assert!(start.elapsed() >= Duration::from_millis(200));
    assert!(start.elapsed() < Duration::from_secs(3));
}

/// An address that does not parse (no port, a port out of range) fails at
/// once instead of being retried until the deadline.
#[test]
fn an_address_that_does_not_parse_fails_at_once() {
    for addr in ["foo", "127.0.0.1", "127.0.0.1:99999"] {
        let start = Instant::now();
        let res = Channel::connect(addr, Duration::from_secs(30), ChannelOptions::default());
        assert!(
            matches!(res, Err(NetError::Connect { .. })),
            "{addr}: {res:?}"
        );
        assert!(start.elapsed() < Duration::from_secs(3), "{addr}");
    }
}

#[test]
fn accept_gives_up_at_the_deadline() {
    let (l, _) = listener();
    let start = Instant::now();
    assert!(matches!(
        l.accept(Duration::from_millis(100)),
        Err(NetError::AcceptTimeout(_))
    ));
    assert!(start.elapsed() >= Duration::from_millis(100));
    assert!(start.elapsed() < Duration::from_secs(3));
}

#[test]
fn invalid_options_are_refused() {
    let (l, _) = listener();
    let zero = ChannelOptions {
        read_timeout: Duration::ZERO,
        ..ChannelOptions::default()
    };
    assert!(matches!(
        l.with_options(zero),
        Err(NetError::InvalidOptions(_))
    ));
    let huge = ChannelOptions {
        max_frame_len: u32::MAX as usize + 1,
        ..ChannelOptions::default()
    };
    assert!(huge.validate().is_err());
    assert!(ChannelOptions::default().validate().is_ok());
}

/// A raw socket connected to a channel accepted with `opts`.
fn raw_peer(opts: ChannelOptions) -> (Channel, TcpStream) {
    let (l, addr) = listener();
    let l = l.with_options(opts).unwrap();
    let raw = thread::spawn(move || TcpStream::connect(addr).unwrap());
    let chan = l.accept(DEADLINE).unwrap();
    (chan, raw.join().unwrap())
}

#[test]
fn a_peer_trickling_a_frame_times_out_within_one_frame_timeout() {
    let (mut chan, mut raw) = raw_peer(short_timeouts(600));
    // A frame of 100 bytes, one byte every 200 ms: each byte arrives well
    // within the timeout, the frame never does.
    let trickle = thread::spawn(move || {
        let _ = raw.write_all(&100u32.to_le_bytes());
        for _ in 0..100 {
            if raw.write_all(&[7]).is_err() {
                return;
            }
            thread::sleep(Duration::from_millis(200));
        }
    });
    let start = Instant::now();
    let mut buf = Vec::new();
    let result = chan.recv_frame(&mut buf);
    assert!(matches!(result, Err(NetError::Timeout(_))), "{result:?}");
    assert!(
        start.elapsed() < Duration::from_millis(1500),
        "{:?}",
        start.elapsed()
    );
    drop(chan);
    trickle.join().unwrap();
}

#[test]
fn a_peer_reading_a_frame_slowly_times_out_the_sender_within_one_frame_timeout() {
    let (mut chan, mut raw) = raw_peer(short_timeouts(600));
    // The peer takes 64 KiB every 100 ms: every write makes progress, the
    // 64 MiB frame would take over a minute.
    let slow = thread::spawn(move || {
        let mut buf = vec![0u8; 64 << 10];
        while let Ok(n) = std::io::Read::read(&mut raw, &mut buf) {
            if n == 0 {
                return;
            }
            thread::sleep(Duration::from_millis(100));
        }
    });
    let start = Instant::now();
    let big = vec![1u8; 64 << 20];
    let result = chan.send_frame(&big).and_then(|()| chan.flush());
    assert!(matches!(result, Err(NetError::Timeout(_))), "{result:?}");
    assert!(
        start.elapsed() < Duration::from_millis(1500),
        "{:?}",
        start.elapsed()
    );
    drop(chan);
    slow.join().unwrap();
}
