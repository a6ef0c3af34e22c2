//! The opening exchange: both parties send a `Hello` and check the peer's;
//! every extra connection then starts with a `LinkBinding` (see the
//! crate's `messages` module for both).

use sha2::{Digest, Sha256};
use twofold_circuit::Party;
use twofold_crypto::prg::Prg;
use twofold_net::Channel;
use twofold_ot::Extension;

use crate::engine::FGP_MIN_ANDS;
use crate::error::ProtocolError;
use crate::messages::{recv_hello, Hello, LinkBinding, HELLO_SLACK};
use crate::options::SessionOptions;
use crate::PROTOCOL_VERSION;

/// Bytes as lower-case hex (program hashes in errors).
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Exchanges hellos, checks that the peer is the other party running the same
/// program in the same way, and returns the session id both will use (a hash
/// of both parties' fresh nonces, the program, the OT extension's name and,
/// on a secure channel, the
/// keying material exported from the first connection's TLS session — so
/// the id is secret and belongs to this one connection).
pub fn handshake(
    chan: &mut Channel,
    party: Party,
    program_hash: [u8; 32],
    opts: &SessionOptions,
) -> Result<[u8; 32], ProtocolError> {
    let mut nonce = [0u8; 16];
    Prg::try_from_os()?.fill_bytes(&mut nonce);
    let ours = Hello {
        version: PROTOCOL_VERSION,
        party,
        program_hash,
        reveal: opts.reveal,
        threads: opts.threads,
        schedule: opts.schedule,
        ipp: opts.ipp,
        nonce,
        scheme: opts.scheme,
        fgp_min_ands: opts.fgp_min_ands.unwrap_or(FGP_MIN_ANDS) as u64,
    };
    chan.send_frame(&ours.encode())?;
    chan.flush()?;
    let mut buf = Vec::new();
    recv_hello(chan, &mut buf, ours.encode().len() + HELLO_SLACK, "party")?;
    let theirs = Hello::decode(&buf)?;
    let mismatch =
        |what, ours: String, theirs: String| Err(ProtocolError::Mismatch { what, ours, theirs });
    if theirs.party == party {
        return mismatch(
            "the party",
            format!("party {party}"),
            format!("party {}", theirs.party),
        );
    }
    if theirs.program_hash != program_hash {
        return mismatch(
            "the program (hash)",
            hex(&program_hash),
            hex(&theirs.program_hash),
        );
    }
    if theirs.reveal != opts.reveal {
        return mismatch(
            "who learns the output",
            opts.reveal.to_string(),
            theirs.reveal.to_string(),
        );
    }
    if theirs.threads != opts.threads {
        return mismatch(
            "the thread count",
            opts.threads.to_string(),
            theirs.threads.to_string(),
        );
    }
    if theirs.schedule != opts.schedule {
        return mismatch(
            "the schedule",
            opts.schedule.name().into(),
            theirs.schedule.name().into(),
        );
    }
    if theirs.ipp != opts.ipp {
        return mismatch(
            "inter-party parallelism",
            opts.ipp.name().into(),
            theirs.ipp.name().into(),
        );
    }
    if theirs.scheme != ours.scheme {
        return mismatch(
            "the garbling scheme",
            ours.scheme.name().into(),
            theirs.scheme.name().into(),
        );
    }
    if theirs.fgp_min_ands != ours.fgp_min_ands {
        return mismatch(
            "the FGP threshold (--fgp-min-ands)",
            ours.fgp_min_ands.to_string(),
            theirs.fgp_min_ands.to_string(),
        );
    }
    let (nonce_a, nonce_b) = match party {
        Party::A => (ours.nonce, theirs.nonce),
        Party::B => (theirs.nonce, ours.nonce),
    };
    let mut h = Sha256::new();
    h.update(b"twofold session");
    h.update(nonce_a);
    h.update(nonce_b);
    h.update(program_hash);
    h.update(b"ot extension ");
    h.update(Extension::DEFAULT.name());
    if let Some(exported) = chan.exporter() {
        h.update(b"tls exporter");
        h.update(exported);
    }
    Ok(h.finalize().into())
}

/// Ties an extra connection to the session: each end sends a binding of
/// the session id, the connection's index and its own role (`party`), and
/// checks that the other sent the binding of the *other* role — so a
/// binding echoed back, or sent by a second process of the same role, is
/// refused. On a secure channel the bindings also hash this connection's
/// exported keying material, so only a party of this session, at the other
/// end of this very connection, can answer.
pub fn bind_channel(
    chan: &mut Channel,
    session_id: &[u8; 32],
    index: u32,
    party: Party,
) -> Result<(), ProtocolError> {
    let binding = |sender: Party| {
        let mut h = Sha256::new();
        h.update(b"twofold link v2");
        h.update(match sender {
            Party::A => b"from a",
            Party::B => b"from b",
        });
        h.update(session_id);
        h.update(index.to_le_bytes());
        if let Some(exported) = chan.exporter() {
            h.update(b"tls exporter");
            h.update(exported);
        }
        LinkBinding {
            session_id: h.finalize().into(),
            index,
        }
        .encode()
    };
    let (ours, expected) = (binding(party), binding(party.other()));
    chan.send_frame(&ours)?;
    chan.flush()?;
    let mut theirs = Vec::new();
    chan.recv_frame_at_most(&mut theirs, ours.len())?;
    if theirs != expected {
        return Err(ProtocolError::Malformed(format!(
            "connection {index} does not belong to this session"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{TcpListener, TcpStream};
    use twofold_net::ChannelOptions;

    /// Two ends of a plain loopback connection.
    fn pair() -> (Channel, Channel) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let near = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (far, _) = listener.accept().unwrap();
        let opts = ChannelOptions::default();
        (
            Channel::new(near, opts.clone()).unwrap(),
            Channel::new(far, opts).unwrap(),
        )
    }

    #[test]
    fn a_binding_echoed_back_or_from_the_same_role_is_refused() {
        let id = [7u8; 32];
        // The two roles bind.
        let (mut a, mut b) = pair();
        let other = std::thread::spawn(move || bind_channel(&mut b, &id, 1, Party::B));
        bind_channel(&mut a, &id, 1, Party::A).unwrap();
        other.join().unwrap().unwrap();
        // A relay that echoes A's binding back.
        let (mut a, mut echo) = pair();
        let relay = std::thread::spawn(move || {
            let mut frame = Vec::new();
            echo.recv_frame(&mut frame).unwrap();
            echo.send_frame(&frame).unwrap();
            echo.flush().unwrap();
        });
        let err = bind_channel(&mut a, &id, 1, Party::A).unwrap_err();
        assert!(err.to_string().contains("does not belong"), "{err}");
        relay.join().unwrap();
        // Two ends both claiming A.
        let (mut a, mut b) = pair();
        let other = std::thread::spawn(move || bind_channel(&mut b, &id, 1, Party::A));
        assert!(bind_channel(&mut a, &id, 1, Party::A).is_err());
        assert!(other.join().unwrap().is_err());
    }
}
