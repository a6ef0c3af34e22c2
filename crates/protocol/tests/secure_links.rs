//! Extra connections of a session on the secure channel: a stranger, or a
//! holder of the right key from another session, cannot take one over.

use std::net::{SocketAddr, TcpListener};
use std::sync::mpsc;
use std::time::Duration;

use twofold_circuit::{Party, Program};
use twofold_net::{Channel, ChannelOptions, KeyPair, Listener, NetError, Security};
use twofold_protocol::messages::LinkBinding;
use twofold_protocol::{
    run_local, run_session, Peer, ProtocolError, Reveal, Schedule, SessionOptions,
};
use twofold_testkit::random_session;

/// TLS options: present `ours`, accept `peer`.
fn tls(ours: &KeyPair, peer: &KeyPair) -> ChannelOptions {
    ChannelOptions {
        read_timeout: Duration::from_millis(1500),
        write_timeout: Duration::from_millis(1500),
        security: Security::tls(ours, &[peer.public()]).unwrap(),
        ..ChannelOptions::default()
    }
}

/// Two threads, two connections (CGP).
fn opts() -> SessionOptions {
    SessionOptions {
        reveal: Reveal::Both,
        threads: 2,
        schedule: Schedule::Cgp,
        // Split the regions between threads, however small.
        fgp_min_ands: Some(1),
        ..SessionOptions::default()
    }
}

/// Party A (key `a`, expecting `b`) listens; party B opens the first
/// connection, then its extra ones go to a decoy that never answers, while
/// `stranger` opens A's second connection. Returns A's error.
fn party_a_with_a_stranger(stranger: impl FnOnce(SocketAddr) + Send + 'static) -> ProtocolError {
    let (program, inputs_a, inputs_b) = random_session(7);
    let (a, b) = (KeyPair::generate().unwrap(), KeyPair::generate().unwrap());
    let listener = Listener::bind("127.0.0.1:0")
        .unwrap()
        .with_options(tls(&a, &b))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let decoy = TcpListener::bind("127.0.0.1:0").unwrap();
    let decoy_addr = decoy.local_addr().unwrap().to_string();
    let (connected, first_is_in) = mpsc::channel();
    let (program_b, opts_b) = (program.clone(), tls(&b, &a));
    let party_b = std::thread::spawn(move || {
        let wait = Duration::from_secs(5);
        let first = Channel::connect(addr, wait, opts_b.clone()).unwrap();
        connected.send(()).unwrap();
        let peer = Peer::Connect(decoy_addr, wait, opts_b);
        let _ = run_session(first, &peer, Party::B, &program_b, &inputs_b, &opts());
        drop(decoy);
    });
    let strange = std::thread::spawn(move || {
        first_is_in.recv().unwrap();
        stranger(addr);
    });
    let first = listener.accept(Duration::from_secs(5)).unwrap();
    let peer = Peer::Listen(&listener, Duration::from_secs(5));
    let err = run_session(first, &peer, Party::A, &program, &inputs_a, &opts()).unwrap_err();
    strange.join().unwrap();
    party_b.join().unwrap();
    err
}

#[test]
fn a_strangers_extra_connection_is_refused() {
    let err = party_a_with_a_stranger(|addr| {
        let (mallory, a) = (KeyPair::generate().unwrap(), KeyPair::generate().unwrap());
        // Mallory does not know A's key either: it accepts whatever it pins.
        let _ = Channel::connect(addr, Duration::from_secs(5), tls(&mallory, &a));
    });
    assert!(
        matches!(err, ProtocolError::Net(NetError::Integrity(_))),
        "{err}"
    );
}

#[test]
fn an_unencrypted_extra_connection_is_refused() {
    let err = party_a_with_a_stranger(|addr| {
        let plain = ChannelOptions::default();
        if let Ok(mut chan) = Channel::connect(addr, Duration::from_secs(5), plain) {
            let binding = LinkBinding {
                session_id: [0; 32],
                index: 1,
            };
            let _ = chan.send_frame(&binding.encode());
            let _ = chan.flush();
            let _ = chan.recv_bytes();
        }
    });
    assert!(
        matches!(err, ProtocolError::Net(NetError::Integrity(_))),
        "{err}"
    );
}

#[test]
fn a_connection_from_another_session_is_refused_even_with_the_right_key() {
    // The stranger holds B's key (say, B's process of another session) but
    // not this session's id, which only the two ends of the first
    // connection can derive.
    let (program, inputs_a, inputs_b) = random_session(7);
    let (a, b) = (KeyPair::generate().unwrap(), KeyPair::generate().unwrap());
    let listener = Listener::bind("127.0.0.1:0")
        .unwrap()
        .with_options(tls(&a, &b))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let decoy = TcpListener::bind("127.0.0.1:0").unwrap();
    let decoy_addr = decoy.local_addr().unwrap().to_string();
    let opts_b = tls(&b, &a);
    let party_b = std::thread::spawn(move || {
        let wait = Duration::from_secs(5);
        let first = Channel::connect(addr, wait, opts_b.clone()).unwrap();
        let peer = Peer::Connect(decoy_addr, wait, opts_b.clone());
        let session = std::thread::spawn(move || {
            run_session(first, &peer, Party::B, &program_b(), &inputs_b, &opts())
        });
        // The same key, another connection: a link of some other session.
        let mut other = Channel::connect(addr, wait, opts_b).unwrap();
        let binding = LinkBinding {
            session_id: [7; 32],
            index: 1,
        };
        other.send_frame(&binding.encode()).unwrap();
        other.flush().unwrap();
        let _ = other.recv_bytes();
        let _ = session.join();
        drop(decoy);
    });
    let first = listener.accept(Duration::from_secs(5)).unwrap();
    let peer = Peer::Listen(&listener, Duration::from_secs(5));
    let err = run_session(first, &peer, Party::A, &program, &inputs_a, &opts()).unwrap_err();
    party_b.join().unwrap();
    assert!(
        err.to_string().contains("does not belong to this session"),
        "{err}"
    );
}

fn program_b() -> Program {
    random_session(7).0
}

#[test]
fn sessions_over_tls_with_cgp_and_ipp_get_the_plain_result() {
    let (program, inputs_a, inputs_b) = random_session(7);
    let pair = KeyPair::generate().unwrap();
    let tls = ChannelOptions {
        security: Security::tls(&pair, &[pair.public()]).unwrap(),
        ..ChannelOptions::default()
    };
    for opts in [
        opts(),
        SessionOptions {
            ipp: twofold_protocol::IppMode::On,
            ..opts()
        },
    ] {
        let (plain_a, _) = run_local(
            &program,
            &inputs_a,
            &inputs_b,
            &opts,
            &ChannelOptions::default(),
        )
        .unwrap();
        let (secure_a, secure_b) = run_local(&program, &inputs_a, &inputs_b, &opts, &tls).unwrap();
        assert_eq!(secure_a.outputs, plain_a.outputs);
        assert_eq!(secure_b.outputs, plain_a.outputs);
    }
}
