//! The secure channel: frames over TLS with pinned keys, and what an
//! attacker on the path, a stranger and a wrong key get.

use std::net::{SocketAddr, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use twofold_net::{Channel, ChannelOptions, KeyPair, Listener, NetError, Security};
use twofold_testkit::relay::{Direction, Fault, Relay};

const DEADLINE: Duration = Duration::from_secs(10);

/// Options with TLS: `ours` presents its key, accepts `peer`'s.
fn tls(ours: &KeyPair, peer: &KeyPair, timeout_ms: u64) -> ChannelOptions {
    ChannelOptions {
        read_timeout: Duration::from_millis(timeout_ms),
        write_timeout: Duration::from_millis(timeout_ms),
        security: Security::tls(ours, &[peer.public()]).unwrap(),
        ..ChannelOptions::default()
    }
}

/// A listener (server side) with `server` options, and its address.
fn listen(server: ChannelOptions) -> (Listener, SocketAddr) {
    let l = Listener::bind("127.0.0.1:0")
        .unwrap()
        .with_options(server)
        .unwrap();
    let addr = l.local_addr().unwrap();
    (l, addr)
}

/// Both ends' results of connecting `client` to a listener with `server`.
fn connect(
    server: ChannelOptions,
    client: ChannelOptions,
) -> (Result<Channel, NetError>, Result<Channel, NetError>) {
    let (l, addr) = listen(server);
    let c = thread::spawn(move || Channel::connect(addr, DEADLINE, client));
    let s = l.accept(DEADLINE);
    (s, c.join().unwrap())
}

fn is_integrity<T: std::fmt::Debug>(r: &Result<T, NetError>) -> bool {
    matches!(r, Err(NetError::Integrity(_)))
}

#[test]
fn frames_round_trip_over_tls_and_both_ends_agree_on_the_link() {
    let (a, b) = (KeyPair::generate().unwrap(), KeyPair::generate().unwrap());
    let (s, c) = connect(tls(&a, &b, 5000), tls(&b, &a, 5000));
    let (mut s, mut c) = (s.unwrap(), c.unwrap());
    assert!(s.is_secure() && c.is_secure());
    assert_eq!(s.exporter(), c.exporter());
    assert_eq!(s.peer_key(), Some(b.public()));
    assert_eq!(c.peer_key(), Some(a.public()));
    assert_eq!(c.cipher_suite(), Some("TLS13_AES_128_GCM_SHA256"));
    let sizes = [0usize, 1, 4, 16_383, 16_384, 16_385, 256 << 10, 3 << 20];
    let echo = thread::spawn(move || {
        let mut buf = Vec::new();
        for _ in 0..sizes.len() {
            s.recv_frame(&mut buf).unwrap();
            s.send_frame(&buf).unwrap();
            s.flush().unwrap();
        }
        s.bytes_received()
    });
    let mut buf = Vec::new();
    for (i, &len) in sizes.iter().enumerate() {
        let p: Vec<u8> = (0..len).map(|j| (j * 7 + i) as u8).collect();
        c.send_frame(&p).unwrap();
        c.flush().unwrap();
        c.recv_frame(&mut buf).unwrap();
        assert!(buf == p, "frame of {len} bytes corrupted");
    }
    assert_eq!(echo.join().unwrap(), c.bytes_sent());
    // Every connection has its own exporter.
    let (s2, c2) = connect(tls(&a, &b, 5000), tls(&b, &a, 5000));
    assert_eq!(s2.as_ref().unwrap().exporter(), c2.unwrap().exporter());
    assert_ne!(s2.unwrap().exporter(), c.exporter());
}

#[test]
fn a_server_with_the_wrong_key_is_refused_on_both_sides() {
    let (a, b, mallory) = (
        KeyPair::generate().unwrap(),
        KeyPair::generate().unwrap(),
        KeyPair::generate().unwrap(),
    );
    // The client expects `a`; `mallory` answers.
    let (s, c) = connect(tls(&mallory, &b, 2000), tls(&b, &a, 2000));
    let err = c.unwrap_err();
    assert!(matches!(err, NetError::Integrity(_)), "{err}");
    assert!(err.to_string().contains("not the one"), "{err}");
    // The server hears the client's refusal.
    let err = s.map(|_| ()).unwrap_err();
    assert!(
        err.to_string().contains("refused this party's key"),
        "{err}"
    );
}

#[test]
fn a_client_with_the_wrong_key_is_refused_on_both_sides() {
    let (a, b, mallory) = (
        KeyPair::generate().unwrap(),
        KeyPair::generate().unwrap(),
        KeyPair::generate().unwrap(),
    );
    let (s, c) = connect(tls(&a, &b, 2000), tls(&mallory, &a, 2000));
    let err = s.unwrap_err();
    assert!(err.to_string().contains("not the one"), "{err}");
    // In TLS 1.3 the client's handshake ends before the server checks its
    // key: the refusal arrives with the first read.
    let c = c.and_then(|mut c| c.recv_bytes());
    let err = c.unwrap_err();
    assert!(
        err.to_string().contains("refused this party's key"),
        "{err}"
    );
}

#[test]
fn a_plain_peer_is_refused_by_a_keyed_one() {
    let (a, b) = (KeyPair::generate().unwrap(), KeyPair::generate().unwrap());
    let plain = ChannelOptions {
        read_timeout: Duration::from_millis(2000),
        ..ChannelOptions::default()
    };
    // A plain client to a TLS server.
    let (l, addr) = listen(tls(&a, &b, 2000));
    let opts = plain.clone();
    let client = thread::spawn(move || {
        let mut c = Channel::connect(addr, DEADLINE, opts).unwrap();
        c.send_frame(b"hello, I am the peer").unwrap();
        c.flush().unwrap();
        c.recv_bytes()
    });
    let err = l.accept(DEADLINE).unwrap_err();
    assert!(matches!(err, NetError::Integrity(_)), "{err}");
    assert!(err.to_string().contains("not a valid TLS"), "{err}");
    assert!(client.join().unwrap().is_err());
    // A TLS client to a plain server that answers in clear.
    let (l, addr) = listen(plain);
    let client = thread::spawn(move || Channel::connect(addr, DEADLINE, tls(&b, &a, 2000)));
    let mut s = l.accept(DEADLINE).unwrap();
    s.send_frame(b"hello, I am the peer").unwrap();
    s.flush().unwrap();
    let err = client.join().unwrap().unwrap_err();
    assert!(matches!(err, NetError::Integrity(_)), "{err}");
}

#[test]
fn a_silent_peer_times_out_the_handshake() {
    let (a, b) = (KeyPair::generate().unwrap(), KeyPair::generate().unwrap());
    let (l, addr) = listen(tls(&a, &b, 300));
    let raw = TcpStream::connect(addr).unwrap();
    let start = Instant::now();
    let err = l.accept(DEADLINE).unwrap_err();
    assert!(matches!(err, NetError::Timeout(_)), "{err}");
    assert!(start.elapsed() < Duration::from_secs(2));
    drop(raw);
}

/// Client sends 8 frames of 256 KiB through a relay that does `fault` to
/// the client→server bytes, then waits for an answer; returns (server,
/// client) results.
fn through_relay(fault: Fault) -> (Result<(), NetError>, Result<(), NetError>) {
    let (a, b) = (KeyPair::generate().unwrap(), KeyPair::generate().unwrap());
    let (l, target) = listen(tls(&a, &b, 3000));
    let relay = Relay::start(target, fault, Direction::ToListener, 0).unwrap();
    let addr = relay.addr();
    let client = thread::spawn(move || -> Result<(), NetError> {
        let mut c = Channel::connect(addr, DEADLINE, tls(&b, &a, 3000))?;
        let frame = vec![0x5a; 256 << 10];
        for _ in 0..8 {
            c.send_frame(&frame)?;
        }
        c.flush()?;
        c.recv_bytes().map(|_| ())
    });
    let server = (|| -> Result<(), NetError> {
        let mut s = l.accept(DEADLINE)?;
        let mut buf = Vec::new();
        for _ in 0..8 {
            s.recv_frame(&mut buf)?;
            assert!(buf.iter().all(|&x| x == 0x5a), "tampered data delivered");
        }
        s.send_bytes(b"done")?;
        s.flush()
    })();
    (server, client.join().unwrap())
}

#[test]
fn an_untouched_relay_changes_nothing() {
    let (s, c) = through_relay(Fault::Flip {
        offset: u64::MAX - 1,
        mask: 1,
    });
    s.unwrap();
    c.unwrap();
}

#[test]
fn a_flipped_bit_ends_both_ends_with_an_integrity_error() {
    let start = Instant::now();
    let (s, c) = through_relay(Fault::Flip {
        offset: 1_000_000,
        mask: 1,
    });
    assert!(is_integrity(&s), "{s:?}");
    assert!(s.unwrap_err().to_string().contains("modified"));
    assert!(is_integrity(&c), "{c:?}");
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn a_replayed_chunk_ends_both_ends_with_an_integrity_error() {
    let (s, c) = through_relay(Fault::Duplicate {
        offset: 999_000,
        len: 1000,
    });
    assert!(is_integrity(&s), "{s:?}");
    assert!(is_integrity(&c), "{c:?}");
}

#[test]
fn reordered_chunks_end_both_ends_with_an_integrity_error() {
    let (s, c) = through_relay(Fault::Reorder {
        offset: 1_000_000,
        len: 1000,
    });
    assert!(is_integrity(&s), "{s:?}");
    assert!(is_integrity(&c), "{c:?}");
}

#[test]
fn a_trickling_relay_times_out_within_one_frame_timeout() {
    let start = Instant::now();
    let (s, _) = through_relay(Fault::Trickle {
        offset: 100_000,
        millis: 50,
    });
    assert!(matches!(s, Err(NetError::Timeout(_))), "{s:?}");
    assert!(
        start.elapsed() < Duration::from_secs(6),
        "{:?}",
        start.elapsed()
    );
}
