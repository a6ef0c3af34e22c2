//! The opening exchange: both parties send a `Hello` and check the peer's;
//! every extra connection then starts with a `LinkBinding` (see the
//! crate's `messages` module for both).

use sha2::{Digest, Sha256};
use twofold_circuit::Party;
use twofold_crypto::prg::Prg;
use twofold_net::Channel;

use crate::engine::FGP_MIN_ANDS;
use crate::error::ProtocolError;
use crate::messages::{Hello, LinkBinding, HELLO_SLACK};
use crate::options::SessionOptions;
use crate::PROTOCOL_VERSION;

/// Bytes as lower-case hex (program hashes in errors).
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Exchanges hellos, checks that the peer is the other party running the same
/// program in the same way, and returns the session id both will use (a hash
/// of both parties' fresh nonces, the program and, on a secure channel, the
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
    chan.recv_frame_at_most(&mut buf, ours.encode().len() + HELLO_SLACK)?;
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
    if let Some(exported) = chan.exporter() {
        h.update(b"tls exporter");
        h.update(exported);
    }
    Ok(h.finalize().into())
}

/// Ties an extra connection to the session: both ends send the session id
/// and the connection's index and check the other's. On a secure channel
/// the id sent is bound to this connection too (a hash of the session id
/// and the connection's exported keying material), so only a party of this
/// session, at the other end of this very connection, can answer it.
pub fn bind_channel(
    chan: &mut Channel,
    session_id: &[u8; 32],
    index: u32,
) -> Result<(), ProtocolError> {
    let session_id = match chan.exporter() {
        None => *session_id,
        Some(exported) => {
            let mut h = Sha256::new();
            h.update(b"twofold link");
            h.update(session_id);
            h.update(index.to_le_bytes());
            h.update(exported);
            h.finalize().into()
        }
    };
    let ours = LinkBinding { session_id, index }.encode();
    chan.send_frame(&ours)?;
    chan.flush()?;
    let mut theirs = Vec::new();
    chan.recv_frame_at_most(&mut theirs, ours.len())?;
    if theirs != ours {
        return Err(ProtocolError::Malformed(format!(
            "connection {index} does not belong to this session"
        )));
    }
    Ok(())
}
