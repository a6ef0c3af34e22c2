//! Every message this crate puts on the wire, with its encoding. Each is one
//! frame of a [`Transport`] ([`Labels`] and [`Bits`]: a run of frames whose
//! lengths both ends know); the order they come in says what they are, so
//! none carries a tag. (The messages of oblivious transfer are
//! `twofold-ot`'s.)
//!
//! | message | from | when |
//! | --- | --- | --- |
//! | [`Hello`] | both | first, on the first connection |
//! | [`LinkBinding`] | both | first, on every extra connection |
//! | [`Labels`] | A (B with IPP too) | A's input labels; labels at IPP role transfers |
//! | [`Tables`] | the garbler | garbled tables, streamed |
//! | [`Bits`] | both | decoding bits (A→B), colour bits (B→A) |
//! | [`HybridHello`] | every computing party | first, on every connection of the hybrid mode |
//!
//! Integers are little-endian; a label is a 16-byte block.

use twofold_circuit::Party;
use twofold_crypto::{blocks_as_bytes, blocks_as_bytes_mut, Block, Scheme};
use twofold_net::{Channel, NetError, Transport};

use crate::error::ProtocolError;
use crate::options::{IppMode, Reveal, Role, Schedule, ShareKind};
use crate::PROTOCOL_VERSION;

/// The first bytes of a [`Hello`].
const MAGIC: &[u8; 8] = b"2fold-hi";
/// Bytes of a [`Hello`]: magic, version, party, program hash, reveal,
/// threads, schedule, IPP mode, nonce, scheme, FGP threshold.
const HELLO_LEN: usize = 8 + 4 + 1 + 32 + 1 + 4 + 1 + 1 + 16 + 1 + 8;

/// Bytes of a hello frame read beyond what this party's own hello has: a
/// longer frame is refused before it is read (a peer can make this end
/// allocate no more), a shorter excess still decodes far enough to say what
/// differs (another version, more inputs).
pub const HELLO_SLACK: usize = 4096;

/// Receives the peer's hello into `buf`: a frame of at most `max` bytes.
/// A longer one is no hello, so the peer is not a twofold `party` (an HTTP
/// server's answer announces 1,347,703,880 bytes, its `HTTP`): said so,
/// with the length's bytes if they are printable text.
pub(crate) fn recv_hello(
    chan: &mut Channel,
    buf: &mut Vec<u8>,
    max: usize,
    party: &str,
) -> Result<(), ProtocolError> {
    chan.recv_frame_at_most(buf, max).map_err(|e| match e {
        NetError::FrameTooLarge { len, .. } => {
            let head = (len as u32).to_le_bytes();
            let sent = if head.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
                format!(": it sent `{}`", String::from_utf8_lossy(&head))
            } else {
                String::new()
            };
            ProtocolError::Malformed(format!("the peer is not a twofold {party}{sent} ({e})"))
        }
        e => e.into(),
    })
}

/// What each party announces at the handshake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    /// [`PROTOCOL_VERSION`].
    pub version: u32,
    /// The sender's party.
    pub party: Party,
    /// The program's hash.
    pub program_hash: [u8; 32],
    /// Who learns the outputs.
    pub reveal: Reveal,
    /// Threads per party.
    pub threads: u32,
    /// The schedule.
    pub schedule: Schedule,
    /// Inter-party parallelism.
    pub ipp: IppMode,
    /// Fresh randomness for the session id.
    pub nonce: [u8; 16],
    /// The garbling scheme.
    pub scheme: Scheme,
    /// The narrowest AND level FGP splits (both must cut the same steps).
    pub fgp_min_ands: u64,
}

impl Hello {
    /// The frame.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HELLO_LEN);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.version.to_le_bytes());
        out.push(self.party.index());
        out.extend_from_slice(&self.program_hash);
        out.push(self.reveal as u8);
        out.extend_from_slice(&self.threads.to_le_bytes());
        out.push(self.schedule as u8);
        out.push(self.ipp as u8);
        out.extend_from_slice(&self.nonce);
        out.push(self.scheme as u8);
        out.extend_from_slice(&self.fgp_min_ands.to_le_bytes());
        out
    }

    /// Reads a frame; a peer of another protocol version is a
    /// [`ProtocolError::Mismatch`].
    pub fn decode(bytes: &[u8]) -> Result<Hello, ProtocolError> {
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
        Ok(Hello {
            version,
            party,
            program_hash: bytes[13..45].try_into().expect("32 bytes"),
            reveal: decode_byte(bytes[45], "reveal mode", &Reveal::ALL, |r| r as u8)?,
            threads: u32::from_le_bytes(bytes[46..50].try_into().expect("4 bytes")),
            schedule: decode_byte(bytes[50], "schedule", &Schedule::ALL, |s| s as u8)?,
            ipp: decode_byte(bytes[51], "IPP mode", &IppMode::ALL, |m| m as u8)?,
            nonce: bytes[52..68].try_into().expect("16 bytes"),
            scheme: decode_byte(bytes[68], "garbling scheme", &Scheme::ALL, |s| s as u8)?,
            fgp_min_ands: u64::from_le_bytes(bytes[69..77].try_into().expect("8 bytes")),
        })
    }
}

/// The first bytes of a [`HybridHello`].
const HYBRID_MAGIC: &[u8; 8] = b"2fold-3p";

/// What a computing party of the hybrid mode announces on every connection
/// it opens or accepts: who it is, which connection of the pair this is,
/// and the terms of the run, which all three must share.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HybridHello {
    /// [`PROTOCOL_VERSION`].
    pub version: u32,
    /// The sender.
    pub role: Role,
    /// The connection's index between the two parties (0 for the first).
    pub index: u32,
    /// The program's hash.
    pub program_hash: [u8; 32],
    /// Threads of CP1 and CP2.
    pub threads: u32,
    /// The schedule of CP1 and CP2.
    pub schedule: Schedule,
    /// The garbling scheme of CP1 and CP2.
    pub scheme: Scheme,
    /// CP1's and CP2's FGP threshold (they must cut tables alike).
    pub fgp_min_ands: u64,
    /// How the outputs are shared.
    pub output_kind: ShareKind,
    /// How each input value is shared.
    pub input_kinds: Vec<ShareKind>,
    /// The sender's fresh randomness, the same on all its connections.
    pub nonce: [u8; 16],
    /// The identity of the store the sender keeps its shares in (zeros:
    /// none); two parties with the same store are refused.
    pub store_id: [u8; 16],
    /// The run that made each input value's shares (none, or one per input
    /// value); all three parties must hold shares of the same runs.
    pub input_runs: Vec<[u8; 16]>,
    /// The lane of each input value (additive shares are taken per lane).
    pub input_lanes: Vec<u32>,
    /// The lane of each output value.
    pub output_lanes: Vec<u32>,
}

impl HybridHello {
    /// Bytes before the input kinds.
    const FIXED_LEN: usize = 8 + 4 + 1 + 4 + 32 + 4 + 1 + 1 + 8 + 1 + 16 + 16 + 4;

    /// Bytes of [`encode`](HybridHello::encode)'s frame.
    pub fn encoded_len(&self) -> usize {
        Self::FIXED_LEN
            + self.input_kinds.len()
            + 4
            + 16 * self.input_runs.len()
            + 4
            + 4 * self.input_lanes.len()
            + 4
            + 4 * self.output_lanes.len()
    }

    /// The frame: the fixed fields, then the input kinds, the input runs,
    /// the input lanes and the output lanes, each list after its length.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len());
        out.extend_from_slice(HYBRID_MAGIC);
        out.extend_from_slice(&self.version.to_le_bytes());
        out.push(self.role as u8);
        out.extend_from_slice(&self.index.to_le_bytes());
        out.extend_from_slice(&self.program_hash);
        out.extend_from_slice(&self.threads.to_le_bytes());
        out.push(self.schedule as u8);
        out.push(self.scheme as u8);
        out.extend_from_slice(&self.fgp_min_ands.to_le_bytes());
        out.push(self.output_kind as u8);
        out.extend_from_slice(&self.nonce);
        out.extend_from_slice(&self.store_id);
        out.extend_from_slice(&(self.input_kinds.len() as u32).to_le_bytes());
        out.extend(self.input_kinds.iter().map(|&k| k as u8));
        out.extend_from_slice(&(self.input_runs.len() as u32).to_le_bytes());
        out.extend(self.input_runs.iter().flatten());
        for lanes in [&self.input_lanes, &self.output_lanes] {
            out.extend_from_slice(&(lanes.len() as u32).to_le_bytes());
            out.extend(lanes.iter().flat_map(|l| l.to_le_bytes()));
        }
        out
    }

    /// Reads a frame; a peer of another protocol version is a
    /// [`ProtocolError::Mismatch`].
    pub fn decode(bytes: &[u8]) -> Result<HybridHello, ProtocolError> {
        if bytes.len() < 12 || &bytes[..8] != HYBRID_MAGIC {
            return Err(ProtocolError::Malformed(
                "the peer is not a twofold computing party".into(),
            ));
        }
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let version = u32_at(8);
        if version != PROTOCOL_VERSION {
            return Err(ProtocolError::Mismatch {
                what: "the protocol version",
                ours: PROTOCOL_VERSION.to_string(),
                theirs: version.to_string(),
            });
        }
        if bytes.len() < Self::FIXED_LEN {
            return Err(ProtocolError::Malformed(format!(
                "a hello of {} bytes",
                bytes.len()
            )));
        }
        let malformed = || {
            ProtocolError::Malformed(format!(
                "a hello of {} bytes that does not hold its lists",
                bytes.len()
            ))
        };
        // The lists after the fixed fields, each of `size` bytes an item.
        let mut rest = &bytes[Self::FIXED_LEN - 4..];
        let mut list = |size: usize| -> Result<&[u8], ProtocolError> {
            let (count, tail) = rest.split_first_chunk::<4>().ok_or_else(malformed)?;
            let len = (u32::from_le_bytes(*count) as usize)
                .checked_mul(size)
                .filter(|&len| len <= tail.len())
                .ok_or_else(malformed)?;
            let (items, tail) = tail.split_at(len);
            rest = tail;
            Ok(items)
        };
        let (kinds, runs) = (list(1)?, list(16)?);
        let (input_lanes, output_lanes) = (list(4)?, list(4)?);
        if !rest.is_empty() {
            return Err(malformed());
        }
        let lanes = |items: &[u8]| -> Vec<u32> {
            items
                .chunks(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect()
        };
        let kind = |b: u8| decode_byte(b, "share kind", &ShareKind::ALL, |k| k as u8);
        Ok(HybridHello {
            version,
            role: decode_byte(bytes[12], "computing party", &Role::ALL, |r| r as u8)?,
            index: u32_at(13),
            program_hash: bytes[17..49].try_into().expect("32 bytes"),
            threads: u32_at(49),
            schedule: decode_byte(bytes[53], "schedule", &Schedule::ALL, |s| s as u8)?,
            scheme: decode_byte(bytes[54], "garbling scheme", &Scheme::ALL, |s| s as u8)?,
            fgp_min_ands: u64::from_le_bytes(bytes[55..63].try_into().expect("8 bytes")),
            output_kind: kind(bytes[63])?,
            nonce: bytes[64..80].try_into().expect("16 bytes"),
            store_id: bytes[80..96].try_into().expect("16 bytes"),
            input_kinds: kinds.iter().map(|&b| kind(b)).collect::<Result<_, _>>()?,
            input_runs: runs
                .chunks(16)
                .map(|c| c.try_into().expect("16 bytes"))
                .collect(),
            input_lanes: lanes(input_lanes),
            output_lanes: lanes(output_lanes),
        })
    }
}

/// The one of `values` whose `code` is `byte`; `what` names the kind in
/// the error.
fn decode_byte<T: Copy>(
    byte: u8,
    what: &str,
    values: &[T],
    code: impl Fn(T) -> u8,
) -> Result<T, ProtocolError> {
    values
        .iter()
        .copied()
        .find(|v| code(*v) == byte)
        .ok_or_else(|| ProtocolError::Malformed(format!("unknown {what} {byte}")))
}

/// Ties an extra connection to its session: the session id and the
/// connection's index. Both ends send theirs and expect the same back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkBinding {
    /// The id both parties derived at the handshake.
    pub session_id: [u8; 32],
    /// The connection's index (the first connection is 0).
    pub index: u32,
}

impl LinkBinding {
    /// The frame.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = self.session_id.to_vec();
        out.extend_from_slice(&self.index.to_le_bytes());
        out
    }
}

/// Labels, 16 bytes each: party A's labels of its own inputs, and the
/// labels sent at IPP role transfers. They go as frames of at most
/// [`LABELS_PER_FRAME`] labels (one frame, maybe empty, for none), so any
/// number fits the frame limit; the receiver knows how many to expect and
/// so how long each frame must be.
pub struct Labels;

/// Labels in one frame of [`Labels`]: 1 MiB of them.
pub const LABELS_PER_FRAME: usize = 1 << 16;

/// Bits in one frame of [`Bits`]: 1 MiB of them, eight to a byte.
pub const BITS_PER_FRAME: usize = 8 << 20;

/// How many items each frame carries when `n` items go `per_frame` at a
/// time: full frames, then the rest; one empty frame when `n` is 0.
fn frame_counts(n: usize, per_frame: usize) -> impl Iterator<Item = usize> {
    let frames = n.div_ceil(per_frame).max(1);
    (0..frames).map(move |i| (n - i * per_frame).min(per_frame))
}

impl Labels {
    /// Sends `labels` and flushes (the peer waits for them).
    pub fn send(chan: &mut impl Transport, labels: &[Block]) -> Result<(), ProtocolError> {
        let mut rest = labels;
        for count in frame_counts(labels.len(), LABELS_PER_FRAME) {
            let (frame, tail) = rest.split_at(count);
            chan.send_frame(blocks_as_bytes(frame))?;
            rest = tail;
        }
        Ok(chan.flush()?)
    }

    /// Receives exactly `n` labels; `what` names them in the error.
    pub fn recv(
        chan: &mut impl Transport,
        n: usize,
        what: &str,
    ) -> Result<Vec<Block>, ProtocolError> {
        let mut labels = vec![Block::default(); n];
        let mut rest = labels.as_mut_slice();
        for count in frame_counts(n, LABELS_PER_FRAME) {
            let (frame, tail) = rest.split_at_mut(count);
            chan.recv_frame_exact(blocks_as_bytes_mut(frame))
                .map_err(|e| malformed_length(e, what))?;
            rest = tail;
        }
        Ok(labels)
    }
}

/// Names the message in a frame of the wrong length.
fn malformed_length(err: NetError, what: &str) -> ProtocolError {
    match err {
        NetError::UnexpectedLength { expected, got } => ProtocolError::Malformed(format!(
            "a frame of {got} bytes of {what}, expected {expected}"
        )),
        other => other.into(),
    }
}

/// A frame of garbled tables: the tables of whole garbling calls of the
/// session's scheme, in gate-id order, as many as the garbler had ready.
pub struct Tables;

impl Tables {
    /// Sends `tables` (buffered: the garbler flushes when it is done).
    pub fn send(chan: &mut impl Transport, tables: &[u8]) -> Result<(), ProtocolError> {
        Ok(chan.send_frame(tables)?)
    }

    /// Receives a frame (into `frame`, a reusable buffer) and appends its
    /// tables to `tables`. (Their size is checked as they are used: the
    /// evaluator fails on tables that run short or are left over.)
    pub fn recv_into(
        chan: &mut impl Transport,
        frame: &mut Vec<u8>,
        tables: &mut Vec<u8>,
    ) -> Result<(), ProtocolError> {
        chan.recv_frame(frame)?;
        if frame.is_empty() {
            return Err(ProtocolError::Malformed(
                "an empty frame of garbled tables".into(),
            ));
        }
        if tables.is_empty() {
            // Nothing left over: take the frame as it is, no copy (the
            // old buffer becomes the next frame's).
            std::mem::swap(frame, tables);
        } else {
            tables.extend_from_slice(frame);
        }
        Ok(())
    }
}

/// A frame of bits, eight to a byte, bit 0 first: the decoding bits party
/// A sends, the colour bits party B sends, or (hybrid mode) CP2's input
/// shares to CP3.
pub struct Bits;

impl Bits {
    /// Sends `bits` and flushes.
    pub fn send(
        chan: &mut impl Transport,
        bits: impl Iterator<Item = bool>,
    ) -> Result<(), ProtocolError> {
        let bits: Vec<bool> = bits.collect();
        let mut rest = bits.as_slice();
        for count in frame_counts(bits.len(), BITS_PER_FRAME) {
            let (frame, tail) = rest.split_at(count);
            let packed: Vec<u8> = frame
                .chunks(8)
                .map(|c| {
                    c.iter()
                        .enumerate()
                        .fold(0u8, |acc, (i, &b)| acc | (b as u8) << i)
                })
                .collect();
            chan.send_frame(&packed)?;
            rest = tail;
        }
        Ok(chan.flush()?)
    }

    /// Receives exactly `n` bits; `what` names them in the error.
    pub fn recv(
        chan: &mut impl Transport,
        n: usize,
        what: &str,
    ) -> Result<Vec<bool>, ProtocolError> {
        let mut bits = Vec::with_capacity(n);
        let mut bytes = Vec::new();
        for count in frame_counts(n, BITS_PER_FRAME) {
            bytes.resize(count.div_ceil(8), 0);
            chan.recv_frame_exact(&mut bytes)
                .map_err(|e| malformed_length(e, what))?;
            bits.extend((0..count).map(|i| (bytes[i / 8] >> (i % 8)) & 1 == 1));
        }
        Ok(bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use twofold_net::{Channel, DEFAULT_MAX_FRAME_LEN};

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
            scheme: Scheme::ThreeHalves,
            fgp_min_ands: 1 << 20,
        };
        assert_eq!(Hello::decode(&hello.encode()).unwrap(), hello);
        assert!(Hello::decode(b"GET / HTTP/1.1\r\n").is_err());
        let mut short = hello.encode();
        short.pop();
        assert!(Hello::decode(&short).is_err());
        let mut bad_scheme = hello.encode();
        bad_scheme[68] = 7;
        assert!(matches!(
            Hello::decode(&bad_scheme),
            Err(ProtocolError::Malformed(m)) if m.contains("garbling scheme")
        ));
        let mut bad_version = hello.encode();
        bad_version[8] = 99;
        assert!(matches!(
            Hello::decode(&bad_version),
            Err(ProtocolError::Mismatch { .. })
        ));
    }

    #[test]
    fn hybrid_hello_round_trips_and_rejects_garbage() {
        let hello = HybridHello {
            version: PROTOCOL_VERSION,
            role: Role::Cp3,
            index: 2,
            program_hash: [5; 32],
            threads: 2,
            schedule: Schedule::Fgp,
            scheme: Scheme::ThreeHalves,
            fgp_min_ands: 77,
            output_kind: ShareKind::Add,
            input_kinds: vec![ShareKind::Xor, ShareKind::Add],
            nonce: [4; 16],
            store_id: [6; 16],
            input_runs: vec![[8; 16], [9; 16]],
            input_lanes: vec![1, 32],
            output_lanes: vec![64],
        };
        assert_eq!(HybridHello::decode(&hello.encode()).unwrap(), hello);
        assert_eq!(hello.encode().len(), hello.encoded_len());
        let mut short = hello.encode();
        short.pop();
        assert!(HybridHello::decode(&short).is_err());
        let mut long = hello.encode();
        long.push(0);
        assert!(HybridHello::decode(&long).is_err());
        // The lanes are the last lists: input lanes, then output lanes.
        let mut lanes = hello.encode();
        let at = lanes.len() - (4 + 2 * 4) - (4 + 4);
        assert_eq!(lanes[at..at + 4], 2u32.to_le_bytes());
        lanes[at + 8..at + 12].copy_from_slice(&8u32.to_le_bytes());
        let decoded = HybridHello::decode(&lanes).unwrap();
        assert_eq!(decoded.input_lanes, [1, 8]);
        assert_eq!(decoded.output_lanes, [64]);
        // A list longer than the frame is refused, not read past its end.
        lanes[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            HybridHello::decode(&lanes),
            Err(ProtocolError::Malformed(m)) if m.contains("lists")
        ));
        let mut no_lanes = hello.clone();
        no_lanes.input_lanes.clear();
        no_lanes.output_lanes.clear();
        assert_eq!(HybridHello::decode(&no_lanes.encode()).unwrap(), no_lanes);
        let mut bad_kind = hello.encode();
        let last_kind = HybridHello::FIXED_LEN + 1;
        bad_kind[last_kind] = 7;
        assert!(HybridHello::decode(&bad_kind).is_err());
        let mut no_runs = hello.clone();
        no_runs.input_runs.clear();
        assert_eq!(HybridHello::decode(&no_runs.encode()).unwrap(), no_runs);
        let mut bad_role = hello.encode();
        bad_role[12] = 0;
        assert!(HybridHello::decode(&bad_role).is_err());
        assert!(HybridHello::decode(
            &Hello {
                version: PROTOCOL_VERSION,
                party: Party::A,
                program_hash: [5; 32],
                reveal: Reveal::Both,
                threads: 1,
                schedule: Schedule::Auto,
                ipp: IppMode::Off,
                nonce: [0; 16],
                scheme: Scheme::HalfGates,
                fgp_min_ands: 1,
            }
            .encode()
        )
        .is_err());
    }

    #[test]
    fn hello_bytes_are_the_wire_format() {
        let hello = Hello {
            version: PROTOCOL_VERSION,
            party: Party::A,
            program_hash: [1; 32],
            reveal: Reveal::B,
            threads: 3,
            schedule: Schedule::Auto,
            ipp: IppMode::On,
            nonce: [2; 16],
            scheme: Scheme::ThreeHalves,
            fgp_min_ands: 258,
        };
        let mut want = b"2fold-hi".to_vec();
        want.extend_from_slice(&PROTOCOL_VERSION.to_le_bytes());
        want.push(0);
        want.extend_from_slice(&[1; 32]);
        want.extend_from_slice(&[2, 3, 0, 0, 0, 3, 1]);
        want.extend_from_slice(&[2; 16]);
        want.extend_from_slice(&[1, 2, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(hello.encode(), want);
        let binding = LinkBinding {
            session_id: [5; 32],
            index: 258,
        };
        let mut want = vec![5; 32];
        want.extend_from_slice(&[2, 1, 0, 0]);
        assert_eq!(binding.encode(), want);
    }

    /// A connected pair of loopback channels.
    fn channel_pair() -> (Channel, Channel) {
        let listener = twofold_net::Listener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let wait = std::time::Duration::from_secs(10);
        let client = std::thread::spawn(move || {
            Channel::connect(addr, wait, twofold_net::ChannelOptions::default()).unwrap()
        });
        let server = listener.accept(wait).unwrap();
        (server, client.join().unwrap())
    }

    #[test]
    fn frame_counts_cover_every_item_once() {
        assert_eq!(frame_counts(0, 4).collect::<Vec<_>>(), [0]);
        assert_eq!(frame_counts(4, 4).collect::<Vec<_>>(), [4]);
        assert_eq!(frame_counts(9, 4).collect::<Vec<_>>(), [4, 4, 1]);
    }

    #[test]
    fn more_labels_and_bits_than_one_frame_holds_arrive_whole() {
        // 64 MiB is the default frame limit: 4.2 M labels would not fit one frame.
        let (mut a, mut b) = channel_pair();
        let n = (DEFAULT_MAX_FRAME_LEN / 16) + 3;
        let labels: Vec<Block> = (0..n as u128).map(|i| Block::from(i << 64 | i)).collect();
        let bits: Vec<bool> = (0..8 * DEFAULT_MAX_FRAME_LEN + 5)
            .map(|i| i % 3 == 0)
            .collect();
        let (l, b2) = (labels.clone(), bits.clone());
        let sender = std::thread::spawn(move || {
            Labels::send(&mut a, &l).unwrap();
            Bits::send(&mut a, b2.into_iter()).unwrap();
        });
        assert!(Labels::recv(&mut b, n, "labels").unwrap() == labels);
        assert_eq!(Bits::recv(&mut b, bits.len(), "bits").unwrap(), bits);
        sender.join().unwrap();
    }

    #[test]
    fn a_label_frame_of_the_wrong_length_is_malformed() {
        let (mut a, mut b) = channel_pair();
        a.send_frame(&[0u8; 17]).unwrap();
        a.flush().unwrap();
        let err = Labels::recv(&mut b, 1, "input labels")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("17 bytes of input labels, expected 16"),
            "{err}"
        );
    }
}
