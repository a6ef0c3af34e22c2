//! Words packed bit-tight for the wire: a word of `k` bits takes `k` bits,
//! not a byte multiple, so an `(ℓ − i)`-bit correction word of a product
//! costs exactly `ℓ − i` bits. Both parties know how many bits a message
//! holds before it arrives, so messages carry no lengths; they go as
//! frames of at most [`PACKED_FRAME`] bytes. A received message must be
//! exactly that long, its padding bits zero, so that every message has one
//! encoding (the `packed` fuzz target checks this with a peer's bytes).

use twofold_net::{NetError, Transport};

use super::ring::mask;
use crate::error::ProtocolError;

/// Bytes in one frame of a packed message (1 MiB).
pub const PACKED_FRAME: usize = 1 << 20;

/// Packs words of given bit lengths, least significant bit first.
#[derive(Default)]
pub struct BitWriter {
    bytes: Vec<u8>,
    acc: u128,
    held: u32,
}

impl BitWriter {
    /// A writer with room for `bits` bits.
    pub fn with_bits(bits: usize) -> BitWriter {
        BitWriter {
            bytes: Vec::with_capacity(bits.div_ceil(8)),
            ..BitWriter::default()
        }
    }

    /// Appends the low `bits` bits of `word` (`bits` ≤ 64).
    pub fn push(&mut self, word: u64, bits: u32) {
        self.push_each([word], bits);
    }

    /// Appends the low `bits` bits of each of `words` (`bits` ≤ 64): as
    /// [`BitWriter::push`] of each, with the bits held in registers.
    #[inline]
    pub fn push_each(&mut self, words: impl IntoIterator<Item = u64>, bits: u32) {
        let (mut acc, mut held, keep) = (self.acc, self.held, mask(bits));
        for word in words {
            acc |= ((word & keep) as u128) << held;
            held += bits;
            if held >= 64 {
                self.bytes.extend_from_slice(&(acc as u64).to_le_bytes());
                acc >>= 64;
                held -= 64;
            }
        }
        (self.acc, self.held) = (acc, held);
    }

    /// The packed bytes (the last one padded with zero bits).
    pub fn finish(mut self) -> Vec<u8> {
        let tail = self.held.div_ceil(8) as usize;
        self.bytes
            .extend_from_slice(&(self.acc as u64).to_le_bytes()[..tail]);
        self.bytes
    }
}

/// Reads words back from a [`BitWriter`]'s bytes.
pub struct BitReader {
    bytes: Vec<u8>,
    at: usize,
    acc: u128,
    held: u32,
}

impl BitReader {
    /// A reader of `bytes`.
    pub fn new(bytes: Vec<u8>) -> BitReader {
        BitReader {
            bytes,
            at: 0,
            acc: 0,
            held: 0,
        }
    }

    /// The next `bits` bits as a word (`bits` ≤ 64). The caller reads no
    /// more bits than the message was received with ([`recv`] sizes it);
    /// past the end, zero bits are read.
    pub fn take(&mut self, bits: u32) -> u64 {
        let mut word = 0;
        self.take_each([()], bits, |(), w| word = w);
        word
    }

    /// Reads a word of `bits` bits (`bits` ≤ 64) for each of `items`,
    /// giving both to `f` in turn: as a [`BitReader::take`] an item, with
    /// the bits held in registers.
    #[inline]
    pub fn take_each<T>(
        &mut self,
        items: impl IntoIterator<Item = T>,
        bits: u32,
        mut f: impl FnMut(T, u64),
    ) {
        let (mut acc, mut held, keep) = (self.acc, self.held, mask(bits));
        for item in items {
            if held < bits {
                let mut next = [0u8; 8];
                let from = self.bytes.get(self.at..).unwrap_or_default();
                let m = from.len().min(8);
                next[..m].copy_from_slice(&from[..m]);
                acc |= (u64::from_le_bytes(next) as u128) << held;
                self.at += 8;
                held += 64;
            }
            f(item, acc as u64 & keep);
            acc >>= bits;
            held -= bits;
        }
        (self.acc, self.held) = (acc, held);
    }
}

/// Sends packed `bytes` as frames of at most [`PACKED_FRAME`] bytes (none
/// for an empty message), without flushing.
pub fn send(chan: &mut impl Transport, bytes: &[u8]) -> Result<(), ProtocolError> {
    for frame in bytes.chunks(PACKED_FRAME) {
        chan.send_frame(frame)?;
    }
    Ok(())
}

/// Receives a packed message of exactly `bits` bits, sent by [`send`];
/// `what` names it in the error for a frame of the wrong length or for
/// padding bits (those after the `bits` in the last byte) that are not zero.
pub fn recv(
    chan: &mut impl Transport,
    bits: usize,
    what: &str,
) -> Result<BitReader, ProtocolError> {
    let mut bytes = vec![0u8; bits.div_ceil(8)];
    for frame in bytes.chunks_mut(PACKED_FRAME) {
        recv_frame(chan, frame, what)?;
    }
    check_padding(&bytes, bits, what)?;
    Ok(BitReader::new(bytes))
}

/// Receives one frame of a packed message into `frame`, which it must
/// fill exactly; `what` names the message in the error.
pub(crate) fn recv_frame(
    chan: &mut impl Transport,
    frame: &mut [u8],
    what: &str,
) -> Result<(), ProtocolError> {
    chan.recv_frame_exact(frame).map_err(|e| match e {
        NetError::UnexpectedLength { expected, got } => ProtocolError::Malformed(format!(
            "a frame of {got} bytes of {what}, expected {expected}"
        )),
        other => other.into(),
    })
}

/// Refuses a packed message of `bits` bits whose last byte (the last of
/// `bytes`) has a padding bit set.
pub(crate) fn check_padding(bytes: &[u8], bits: usize, what: &str) -> Result<(), ProtocolError> {
    let used = bits % 8;
    match bytes.last() {
        Some(&last) if used > 0 && last >> used != 0 => Err(ProtocolError::Malformed(format!(
            "padding bits set after the {bits} bits of {what}"
        ))),
        _ => Ok(()),
    }
}

/// Sends `words` of `bits` bits each, packed, without flushing.
pub(crate) fn send_words(
    chan: &mut impl Transport,
    words: impl ExactSizeIterator<Item = u64>,
    bits: u32,
) -> Result<(), ProtocolError> {
    let mut w = BitWriter::with_bits(words.len() * bits as usize);
    for word in words {
        w.push(word, bits);
    }
    send(chan, &w.finish())
}

/// Receives `n` words of `bits` bits each, sent by [`send_words`].
pub(crate) fn recv_words(
    chan: &mut impl Transport,
    n: usize,
    bits: u32,
    what: &str,
) -> Result<Vec<u64>, ProtocolError> {
    let mut r = recv(chan, n * bits as usize, what)?;
    Ok((0..n).map(|_| r.take(bits)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use twofold_net::{ChannelOptions, MemoryTransport, HEADER_LEN};

    /// Sends `frames` from one end of an in-memory pair and receives a
    /// message of `bits` bits at the other.
    fn received(frames: &[&[u8]], bits: usize) -> Result<BitReader, ProtocolError> {
        let (mut peer, mut me) = MemoryTransport::pair(ChannelOptions::default()).unwrap();
        for frame in frames {
            peer.send_frame(frame).unwrap();
        }
        peer.flush().unwrap();
        recv(&mut me, bits, "the words")
    }

    fn malformed(result: Result<BitReader, ProtocolError>) -> String {
        match result {
            Err(ProtocolError::Malformed(message)) => message,
            Err(e) => panic!("another error: {e}"),
            Ok(_) => panic!("accepted"),
        }
    }

    #[test]
    fn set_padding_bits_are_refused() {
        for bits in [1, 3, 7, 9, 63] {
            let mut w = BitWriter::with_bits(bits);
            w.push(u64::MAX, bits as u32);
            let mut bytes = w.finish();
            assert_eq!(
                received(&[&bytes], bits).unwrap().take(bits as u32),
                mask(bits as u32)
            );
            *bytes.last_mut().unwrap() |= 0x80;
            let message = malformed(received(&[&bytes], bits));
            assert!(message.contains("padding bits"), "{message}");
        }
    }

    #[test]
    fn frames_short_or_long_are_refused() {
        let message = malformed(received(&[&[1, 2]], 17));
        assert!(
            message.contains("2 bytes of the words, expected 3"),
            "{message}"
        );
        malformed(received(&[&[1, 2, 3, 4]], 17));
        // Nothing arrives for an empty message; a frame is left unread.
        assert!(received(&[&[]], 0).is_ok());
    }

    #[test]
    fn a_message_longer_than_a_frame_goes_in_frames() {
        let n = 8 * PACKED_FRAME / 13 + 1;
        let bits = 13 * n;
        let mut w = BitWriter::with_bits(bits);
        for k in 0..n {
            w.push(k as u64 ^ 0x1a5a, 13);
        }
        let bytes = w.finish();
        let (mut peer, mut me) = MemoryTransport::pair(ChannelOptions::default()).unwrap();
        send(&mut peer, &bytes).unwrap();
        peer.flush().unwrap();
        let mut r = recv(&mut me, bits, "the words").unwrap();
        assert_eq!(me.bytes_received(), (bytes.len() + 2 * HEADER_LEN) as u64);
        for k in 0..n {
            assert_eq!(r.take(13), (k as u64 ^ 0x1a5a) & mask(13));
        }
        let (first, last) = bytes.split_at(PACKED_FRAME);
        malformed(received(&[first, &last[1..]], bits));
    }

    #[test]
    fn words_of_any_length_pack_tight_and_read_back() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let words: Vec<(u64, u32)> = (0..500)
            .map(|_| {
                let bits = rng.gen_range(1..=64);
                (rng.gen::<u64>() & mask(bits), bits)
            })
            .collect();
        let total: usize = words.iter().map(|&(_, b)| b as usize).sum();
        let mut w = BitWriter::with_bits(total);
        for &(word, bits) in &words {
            // High bits beyond the length are dropped, not packed.
            w.push(word | !mask(bits), bits);
        }
        let bytes = w.finish();
        assert_eq!(bytes.len(), total.div_ceil(8));
        let mut r = BitReader::new(bytes);
        for &(word, bits) in &words {
            assert_eq!(r.take(bits), word);
        }
    }
}
