//! The opening exchange: both parties send a hello and check the peer's.

use sha2::{Digest, Sha256};
use twofold_circuit::Party;
use twofold_crypto::prg::Prg;
use twofold_net::Channel;

use crate::error::ProtocolError;
use crate::ipp::IppMode;
use crate::schedule::Schedule;
use crate::session::{Reveal, SessionOptions};
use crate::PROTOCOL_VERSION;

const MAGIC: &[u8; 8] = b"2fold-hi";
const HELLO_LEN: usize = 8 + 4 + 1 + 32 + 1 + 4 + 1 + 1 + 16;

/// What each party announces.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Hello {
    version: u32,
    party: Party,
    program_hash: [u8; 32],
    reveal: Reveal,
    threads: u32,
    schedule: Schedule,
    ipp: IppMode,
    nonce: [u8; 16],
}

impl Hello {
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HELLO_LEN);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.version.to_le_bytes());
        out.push(party_byte(self.party));
        out.extend_from_slice(&self.program_hash);
        out.push(self.reveal as u8);
        out.extend_from_slice(&self.threads.to_le_bytes());
        out.push(self.schedule as u8);
        out.push(self.ipp as u8);
        out.extend_from_slice(&self.nonce);
        out
    }

    fn decode(bytes: &[u8]) -> Result<Hello, ProtocolError> {
        if bytes.len() < 12 || &bytes[..8] != MAGIC {
            return Err(ProtocolError::Malformed(
                "the peer is not a twofold party".into(),
            ));
        }
        let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
        if version != PROTOCOL_VERSION {
            return Err(ProtocolError::Mismatch {
                what: "the protocol version",
                ours: PROTOCOL_VERSION.to_string(),
                theirs: version.to_string(),
            });
        }
        if bytes.len() != HELLO_LEN {
            return Err(ProtocolError::Malformed(format!(
                "hello of {} bytes, expected {HELLO_LEN}",
                bytes.len()
            )));
        }
        let party = match bytes[12] {
            0 => Party::A,
            1 => Party::B,
            p => return Err(ProtocolError::Malformed(format!("unknown party {p}"))),
        };
        let reveal = Reveal::from_byte(bytes[45]).ok_or_else(|| {
            ProtocolError::Malformed(format!("unknown reveal mode {}", bytes[45]))
        })?;
        Ok(Hello {
            version,
            party,
            program_hash: bytes[13..45].try_into().expect("32 bytes"),
            reveal,
            threads: u32::from_le_bytes(bytes[46..50].try_into().expect("4 bytes")),
            schedule: Schedule::from_byte(bytes[50]).ok_or_else(|| {
                ProtocolError::Malformed(format!("unknown schedule {}", bytes[50]))
            })?,
            ipp: IppMode::from_byte(bytes[51]).ok_or_else(|| {
                ProtocolError::Malformed(format!("unknown IPP mode {}", bytes[51]))
            })?,
            nonce: bytes[52..68].try_into().expect("16 bytes"),
        })
    }
}

fn party_byte(p: Party) -> u8 {
    match p {
        Party::A => 0,
        Party::B => 1,
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Exchanges hellos, checks that the peer is the other party running the same
/// program in the same way, and returns the session id both will use (a hash
/// of both parties' fresh nonces and the program).
pub fn handshake(
    chan: &mut Channel,
    party: Party,
    program_hash: [u8; 32],
    opts: &SessionOptions,
) -> Result<[u8; 32], ProtocolError> {
    let mut nonce = [0u8; 16];
    Prg::from_os().fill_bytes(&mut nonce);
    let ours = Hello {
        version: PROTOCOL_VERSION,
        party,
        program_hash,
        reveal: opts.reveal,
        threads: opts.threads,
        schedule: opts.schedule,
        ipp: opts.ipp,
        nonce,
    };
    chan.send_frame(&ours.encode())?;
    chan.flush()?;
    let mut buf = Vec::new();
    chan.recv_frame(&mut buf)?;
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
    let (nonce_a, nonce_b) = match party {
        Party::A => (ours.nonce, theirs.nonce),
        Party::B => (theirs.nonce, ours.nonce),
    };
    let mut h = Sha256::new();
    h.update(b"twofold session");
    h.update(nonce_a);
    h.update(nonce_b);
    h.update(program_hash);
    Ok(h.finalize().into())
}

/// Ties an extra connection to the session: both ends send the session id
/// and the connection's index and check the other's.
pub fn bind_channel(
    chan: &mut Channel,
    session_id: &[u8; 32],
    index: u32,
) -> Result<(), ProtocolError> {
    let mut ours = session_id.to_vec();
    ours.extend_from_slice(&index.to_le_bytes());
    chan.send_frame(&ours)?;
    chan.flush()?;
    let mut theirs = Vec::new();
    chan.recv_frame(&mut theirs)?;
    if theirs != ours {
        return Err(ProtocolError::Malformed(format!(
            "connection {index} does not belong to this session"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hello_round_trips_and_rejects_garbage() {
        let hello = Hello {
            version: PROTOCOL_VERSION,
            party: Party::B,
            program_hash: [7; 32],
            reveal: Reveal::A,
            threads: 2,
            schedule: Schedule::Cgp,
            ipp: IppMode::NoOverlap,
            nonce: [9; 16],
        };
        assert_eq!(Hello::decode(&hello.encode()).unwrap(), hello);
        assert!(Hello::decode(b"GET / HTTP/1.1\r\n").is_err());
        let mut short = hello.encode();
        short.pop();
        assert!(Hello::decode(&short).is_err());
        let mut bad_version = hello.encode();
        bad_version[8] = 99;
        assert!(matches!(
            Hello::decode(&bad_version),
            Err(ProtocolError::Mismatch { .. })
        ));
    }
}
