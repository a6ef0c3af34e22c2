//! A packed message (see [`packed`](super::packed)) sent and received a
//! piece at a time, so that neither party holds all of a large one (a
//! matrix product's corrections are a hundred megabytes) and the receiver
//! works on the first pieces while the sender makes the next. The frames
//! on the wire are exactly those [`packed::send`](super::packed::send)
//! makes of the whole message: a peer cannot tell how it was made.

use twofold_net::Transport;

use super::packed::{check_padding, recv_frame, BitReader, PACKED_FRAME};
use crate::error::ProtocolError;

/// Sends a packed message piece by piece: each piece is packed on its own
/// from bit [`StreamSender::offset`] `% 8` of its first byte (the bits
/// before it zero), and whole frames go out, flushed, as they fill.
#[derive(Default)]
pub struct StreamSender {
    /// Bytes not sent yet, from the start of a frame; the last one holds
    /// `bits % 8` bits if that is not 0.
    pending: Vec<u8>,
    /// Bits appended so far.
    bits: usize,
}

impl StreamSender {
    /// Where the next piece starts in the message, in bits.
    pub fn offset(&self) -> usize {
        self.bits
    }

    /// Appends a piece of `bits` bits packed from bit `offset() % 8` of
    /// its first byte; sends every frame now complete.
    pub fn append(
        &mut self,
        chan: &mut impl Transport,
        piece: &[u8],
        bits: usize,
    ) -> Result<(), ProtocolError> {
        let rest = match (self.bits % 8, piece.split_first()) {
            (0, _) | (_, None) => piece,
            (_, Some((&first, rest))) => {
                // The first byte's low bits are the last pending byte's.
                let last = self.pending.last_mut().expect("a partial byte is pending");
                *last |= first;
                rest
            }
        };
        self.pending.extend_from_slice(rest);
        self.bits += bits;
        // Only the last byte may be partial: a frame of the bytes before it
        // is complete.
        if self.pending.len() > PACKED_FRAME {
            let whole = (self.pending.len() - 1) / PACKED_FRAME * PACKED_FRAME;
            for frame in self.pending[..whole].chunks(PACKED_FRAME) {
                chan.send_frame(frame)?;
            }
            self.pending.drain(..whole);
            chan.flush()?;
        }
        Ok(())
    }

    /// Sends the frames left (not flushed).
    pub fn finish(self, chan: &mut impl Transport) -> Result<(), ProtocolError> {
        for frame in self.pending.chunks(PACKED_FRAME) {
            chan.send_frame(frame)?;
        }
        Ok(())
    }
}

/// Receives a packed message of a known length, frame by frame as its
/// pieces are asked for (in order), holding only the frames a piece
/// needs; the message is checked as [`packed::recv`](super::packed::recv)
/// checks it.
pub struct StreamReceiver<'w> {
    /// The message's length in bits.
    bits: usize,
    /// Received bytes not dropped yet; the first is byte `base` of the
    /// message.
    held: Vec<u8>,
    base: usize,
    /// Bytes received so far.
    received: usize,
    what: &'w str,
}

impl<'w> StreamReceiver<'w> {
    /// A receiver of a message of `bits` bits; `what` names it in errors.
    pub fn new(bits: usize, what: &'w str) -> Self {
        StreamReceiver {
            bits,
            held: Vec::new(),
            base: 0,
            received: 0,
            what,
        }
    }

    /// A reader of bits `start..end` of the message (`start` at least
    /// the previous piece's), receiving the frames they are in.
    pub fn piece(
        &mut self,
        chan: &mut impl Transport,
        start: usize,
        end: usize,
    ) -> Result<BitReader, ProtocolError> {
        let total = self.bits.div_ceil(8);
        assert!(start <= end && end <= self.bits && start / 8 >= self.base);
        self.held.drain(..start / 8 - self.base);
        self.base = start / 8;
        while self.received < end.div_ceil(8) {
            let len = PACKED_FRAME.min(total - self.received);
            let at = self.held.len();
            self.held.resize(at + len, 0);
            recv_frame(chan, &mut self.held[at..], self.what)?;
            self.received += len;
            if self.received == total {
                check_padding(&self.held, self.bits, self.what)?;
            }
        }
        let bytes = self.held[..end.div_ceil(8) - self.base].to_vec();
        let mut reader = BitReader::new(bytes);
        reader.take((start % 8) as u32);
        Ok(reader)
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use twofold_net::{ChannelOptions, MemoryTransport};

    use super::super::packed::{recv, send, BitWriter};
    use super::*;
    use crate::arith::ring::mask;

    /// Random words of random lengths, cut into pieces at random word
    /// boundaries: `(words of the piece, its bits)` each.
    fn pieces(rng: &mut impl Rng, words: usize) -> Vec<(Vec<(u64, u32)>, usize)> {
        let mut out = Vec::new();
        let mut left = words;
        while left > 0 {
            let n = rng.gen_range(1..=left.min(70_000));
            let piece: Vec<(u64, u32)> = (0..n)
                .map(|_| {
                    let bits = rng.gen_range(1..=64);
                    (rng.gen::<u64>() & mask(bits), bits)
                })
                .collect();
            let bits = piece.iter().map(|&(_, b)| b as usize).sum();
            out.push((piece, bits));
            left -= n;
        }
        out
    }

    /// Pieces sent through a [`StreamSender`] make the frames one packed
    /// message makes, and a [`StreamReceiver`] reads each piece back, from
    /// those frames or from the whole message's.
    #[test]
    fn pieces_go_as_one_message_and_read_back() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(8);
        for words in [1, 5, 40_000, 300_000] {
            let pieces = pieces(&mut rng, words);
            let total: usize = pieces.iter().map(|p| p.1).sum();
            let mut whole = BitWriter::with_bits(total);
            let (mut peer, mut me) = MemoryTransport::pair(ChannelOptions::default()).unwrap();
            let mut stream = StreamSender::default();
            for (piece, bits) in &pieces {
                let mut w = BitWriter::with_bits(stream.offset() % 8 + bits);
                w.push(0, (stream.offset() % 8) as u32);
                for &(word, b) in piece {
                    w.push(word, b);
                    whole.push(word, b);
                }
                stream.append(&mut peer, &w.finish(), *bits).unwrap();
            }
            stream.finish(&mut peer).unwrap();
            let whole = whole.finish();
            send(&mut peer, &whole).unwrap();
            peer.flush().unwrap();
            // The streamed message as frames of one message, read whole.
            let mut r = recv(&mut me, total, "words").unwrap();
            for &(word, b) in pieces.iter().flat_map(|p| &p.0) {
                assert_eq!(r.take(b), word);
            }
            // The message sent whole, read a piece at a time.
            let mut stream = StreamReceiver::new(total, "words");
            let mut start = 0;
            for (piece, bits) in &pieces {
                let mut r = stream.piece(&mut me, start, start + bits).unwrap();
                for &(word, b) in piece {
                    assert_eq!(r.take(b), word);
                }
                start += bits;
            }
            assert_eq!(me.bytes_received(), peer.bytes_sent());
        }
    }

    /// The pieces' receiver refuses what the whole message's refuses: a
    /// padding bit set, a frame too short.
    #[test]
    fn a_malformed_message_is_refused_piece_by_piece() {
        let (mut peer, mut me) = MemoryTransport::pair(ChannelOptions::default()).unwrap();
        peer.send_frame(&[0xff, 0x80]).unwrap();
        peer.send_frame(&[0xff]).unwrap();
        peer.flush().unwrap();
        let mut stream = StreamReceiver::new(12, "words");
        let e = stream.piece(&mut me, 0, 12).err().expect("refused");
        assert!(e.to_string().contains("padding bits"), "{e}");
        let mut stream = StreamReceiver::new(12, "words");
        let e = stream.piece(&mut me, 0, 3).err().expect("refused");
        assert!(
            e.to_string().contains("1 bytes of words, expected 2"),
            "{e}"
        );
    }
}
