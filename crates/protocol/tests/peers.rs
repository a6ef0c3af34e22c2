//! Misbehaving peers: wrong program, garbage, oversized frames, disconnects
//! and stalls end the session with a clear error, never a hang or a panic.

use std::io::Write;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use twofold_circuit::{Party, Program};
use twofold_net::{Channel, ChannelOptions, Listener};
use twofold_protocol::{run_session, PartyInputs, Peer, ProtocolError, Reveal, SessionOptions};
use twofold_testkit::random_session;

fn short_timeouts() -> ChannelOptions {
    ChannelOptions {
        read_timeout: Duration::from_millis(1500),
        write_timeout: Duration::from_millis(1500),
        max_frame_len: 1 << 20,
        ..ChannelOptions::default()
    }
}

fn opts() -> SessionOptions {
    SessionOptions {
        reveal: Reveal::Both,
        threads: 1,
        ..SessionOptions::default()
    }
}

/// Runs party A against a peer given as a closure on a raw stream.
fn party_a_against(peer: impl FnOnce(TcpStream) + Send + 'static) -> ProtocolError {
    let (program, a, _) = random_session(5);
    let listener = Listener::bind("127.0.0.1:0")
        .unwrap()
        .with_options(short_timeouts())
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let t = std::thread::spawn(move || peer(TcpStream::connect(addr).unwrap()));
    let chan = listener.accept(Duration::from_secs(5)).unwrap();
    let peer = Peer::Listen(&listener, Duration::from_secs(5));
    let start = Instant::now();
    let err = run_session(chan, &peer, Party::A, &program, &a, &opts()).unwrap_err();
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "took {:?}",
        start.elapsed()
    );
    t.join().unwrap();
    err
}

/// Runs a session between a listening and a connecting party, each with its
/// own role, program and inputs, both expected to fail; their errors.
fn both_fail(
    listening: (Party, Program, PartyInputs),
    connecting: (Party, Program, PartyInputs),
) -> (ProtocolError, ProtocolError) {
    let listener = Listener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let wait = Duration::from_secs(5);
    let t = std::thread::spawn(move || {
        let (party, program, inputs) = connecting;
        let chan = Channel::connect(addr, wait, ChannelOptions::default()).unwrap();
        let peer = Peer::Connect(addr.to_string(), wait, ChannelOptions::default());
        run_session(chan, &peer, party, &program, &inputs, &opts()).unwrap_err()
    });
    let (party, program, inputs) = listening;
    let chan = listener.accept(wait).unwrap();
    let peer = Peer::Listen(&listener, wait);
    let err = run_session(chan, &peer, party, &program, &inputs, &opts()).unwrap_err();
    (err, t.join().unwrap())
}

#[test]
fn a_peer_running_another_program_is_rejected_on_both_sides() {
    let (p1, a, _) = random_session(1);
    let (p2, _, b) = random_session(2);
    let (err_a, err_b) = both_fail((Party::A, p1, a), (Party::B, p2, b));
    for err in [err_a, err_b] {
        assert!(
            matches!(
                err,
                ProtocolError::Mismatch {
                    what: "the program (hash)",
                    ..
                }
            ),
            "{err}"
        );
    }
}

#[test]
fn both_parties_claiming_the_same_role_is_rejected() {
    let (p, a, _) = random_session(1);
    let (err, err_peer) = both_fail((Party::A, p.clone(), a.clone()), (Party::A, p, a));
    assert!(err.to_string().contains("party"), "{err}");
    assert!(err_peer.to_string().contains("party"), "{err_peer}");
}

#[test]
fn garbage_from_the_peer_is_rejected() {
    let err = party_a_against(|mut s| {
        s.write_all(b"\x10\x00\x00\x00GET / HTTP/1.1\r\n\r\n")
            .unwrap();
        std::thread::sleep(Duration::from_millis(200));
    });
    assert!(matches!(err, ProtocolError::Malformed(_)), "{err}");
}

#[test]
fn an_http_server_is_not_a_twofold_party() {
    let err = party_a_against(|mut s| {
        s.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n").unwrap();
        std::thread::sleep(Duration::from_millis(200));
    });
    let message = err.to_string();
    assert!(
        message.contains("the peer is not a twofold party: it sent `HTTP`"),
        "{message}"
    );
}

#[test]
fn an_oversized_frame_is_rejected_without_allocating_it() {
    let err = party_a_against(|mut s| {
        s.write_all(&u32::MAX.to_le_bytes()).unwrap();
        std::thread::sleep(Duration::from_millis(200));
    });
    assert!(
        err.to_string().contains("exceeds the maximum frame length"),
        "{err}"
    );
}

#[test]
fn a_hello_is_read_with_its_own_length_limit_not_the_frame_limit() {
    // Within the 1 MiB frame limit, but no hello is 100 kB long: refused
    // on the header, before anything is allocated or waited for.
    let err = party_a_against(|mut s| {
        s.write_all(&100_000u32.to_le_bytes()).unwrap();
        std::thread::sleep(Duration::from_millis(200));
    });
    let message = err.to_string();
    assert!(
        message.contains("frame of 100000 bytes exceeds"),
        "{message}"
    );
    assert!(!message.contains("1048576"), "{message}");
}

#[test]
fn a_silent_peer_times_out() {
    let err = party_a_against(|_s| std::thread::sleep(Duration::from_millis(2500)));
    assert!(err.to_string().contains("timed out"), "{err}");
}

/// Forwards bytes between `client` and `server` and cuts both connections
/// once `limit` bytes have gone from server to client.
fn cutting_relay(client: TcpStream, server: TcpStream, limit: usize) {
    use std::io::Read;
    let (mut c_read, mut s_write) = (client.try_clone().unwrap(), server.try_clone().unwrap());
    let up = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = c_read.read(&mut buf) {
            if s_write.write_all(&buf[..n]).is_err() {
                break;
            }
        }
    });
    let (mut s_read, mut c_write) = (server.try_clone().unwrap(), client.try_clone().unwrap());
    let mut sent = 0;
    let mut buf = [0u8; 4096];
    while sent < limit {
        match s_read.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let n = n.min(limit - sent);
                if c_write.write_all(&buf[..n]).is_err() {
                    break;
                }
                sent += n;
            }
        }
    }
    let _ = client.shutdown(std::net::Shutdown::Both);
    let _ = server.shutdown(std::net::Shutdown::Both);
    up.join().unwrap();
}

#[test]
fn a_connection_cut_mid_session_ends_both_parties_with_an_error() {
    // 2,560 AND gates: about 82 KB of tables from A to B.
    let program = Program::from(twofold_circuit::synthetic::layered(64, 40, 64, 9));
    let a: PartyInputs = vec![Some(vec![true; 32]), None];
    let b: PartyInputs = vec![None, Some(vec![false; 32])];
    for limit in [10, 3000, 40_000] {
        let listener = Listener::bind("127.0.0.1:0")
            .unwrap()
            .with_options(short_timeouts())
            .unwrap();
        let a_addr = listener.local_addr().unwrap();
        let relay = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let relay_addr = relay.local_addr().unwrap();
        let r = std::thread::spawn(move || {
            let (client, _) = relay.accept().unwrap();
            cutting_relay(client, TcpStream::connect(a_addr).unwrap(), limit);
        });
        let (p, bb) = (program.clone(), b.clone());
        let start = Instant::now();
        let tb = std::thread::spawn(move || {
            let chan =
                Channel::connect(relay_addr, Duration::from_secs(5), short_timeouts()).unwrap();
            let peer = Peer::Connect(
                relay_addr.to_string(),
                Duration::from_secs(5),
                short_timeouts(),
            );
            run_session(chan, &peer, Party::B, &p, &bb, &opts())
        });
        let chan = listener.accept(Duration::from_secs(5)).unwrap();
        let peer = Peer::Listen(&listener, Duration::from_secs(5));
        let ra = run_session(chan, &peer, Party::A, &program, &a, &opts());
        let rb = tb.join().unwrap();
        r.join().unwrap();
        assert!(start.elapsed() < Duration::from_secs(10));
        let eb = rb.expect_err("B cannot finish: A's messages were cut");
        assert!(
            matches!(eb, ProtocolError::Net(_) | ProtocolError::Ot(_)),
            "{eb}"
        );
        if let Err(ea) = ra {
            assert!(
                matches!(ea, ProtocolError::Net(_) | ProtocolError::Ot(_)),
                "{ea}"
            );
        }
    }
}
