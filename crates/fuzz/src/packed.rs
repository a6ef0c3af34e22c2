//! The `packed` target: the reader of packed words
//! (`arith::packed::recv`, then `BitReader::take`, and the same message a
//! piece at a time through `arith::stream::StreamReceiver`), which the
//! two-party products and openings and the three-party replication run on
//! what a peer sends.
//!
//! The input: a byte whose value modulo 65 is the number of widths, a byte
//! `r` for how often they repeat (`r + 1` times; 255 repeats them until the
//! message needs a second frame), one byte per width (modulo 65: 0 to 64
//! bits, the protocol's 8, 16, 32 and 64 among them), then the frames the
//! peer sends, as in the `peer` target (each a 4-byte little-endian length,
//! then its bytes). This party receives a message of the widths' bits from
//! those frames and takes the words.
//!
//! Checked, besides no panic, hang or unbounded allocation: the reader
//! accepts exactly the messages of the right frames (as many bytes as the
//! bits need, in frames of [`PACKED_FRAME`] bytes and a last shorter one)
//! whose padding bits are zero; the words it gives are the message's bits
//! (compared with a bit-by-bit reading); and an accepted message is the
//! encoding of its words, so no two messages read as the same words. Apart
//! from the peer's bytes, words of those widths (their high bits set at
//! random) go through [`BitWriter`] and `send` over an in-memory pair and
//! must read back masked to their widths.

use twofold_net::{ChannelOptions, MemoryTransport, Transport, HEADER_LEN};
use twofold_protocol::arith::packed::{recv, send, BitWriter};
use twofold_protocol::arith::stream::StreamReceiver;
use twofold_protocol::arith::PACKED_FRAME;

use crate::peer::{script, ScriptedPeer};

/// Widths are taken modulo this: 0 to 64 bits.
const WIDTHS: u8 = 65;

/// The repeat byte that repeats the widths until the message needs two
/// frames.
const TWO_FRAMES: u8 = u8::MAX;

/// Runs `data` as described above; whether the peer's frames were one
/// message and the reader accepted it (frames after it would be read as the
/// next message: not an error, but not worth keeping either).
pub fn packed(data: &[u8]) -> bool {
    let Some(words) = Words::parse(data) else {
        return false;
    };
    round_trip(&words, data);
    in_pieces(&words);
    from_peer(&words)
}

/// The words a message holds, read from an input.
struct Words<'a> {
    /// The widths, in order (each 0 to 64).
    widths: Vec<u32>,
    /// How many times the widths follow each other.
    repeat: usize,
    /// The frames the peer sends.
    script: &'a [u8],
}

impl<'a> Words<'a> {
    fn parse(data: &'a [u8]) -> Option<Words<'a>> {
        let [count, repeat, rest @ ..] = data else {
            return None;
        };
        let n = usize::from(count % WIDTHS);
        if rest.len() < n {
            return None;
        }
        let (widths, script) = rest.split_at(n);
        let widths: Vec<u32> = widths.iter().map(|&w| u32::from(w % WIDTHS)).collect();
        let once: usize = widths.iter().map(|&w| w as usize).sum();
        let repeat = if *repeat == TWO_FRAMES && once > 0 {
            8 * PACKED_FRAME / once + 1
        } else {
            usize::from(*repeat) + 1
        };
        Some(Words {
            widths,
            repeat,
            script,
        })
    }

    /// Every word's width, in order.
    fn each(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.repeat).flat_map(|_| self.widths.iter().copied())
    }

    /// Bits in the message.
    fn bits(&self) -> usize {
        self.widths.iter().map(|&w| w as usize).sum::<usize>() * self.repeat
    }
}

/// The low `width` bits.
fn mask(width: u32) -> u64 {
    u64::MAX.checked_shr(64 - width).unwrap_or(0)
}

/// Receives the message from the scripted peer; checks the verdict and the
/// words against [`well_formed`] and [`bits_at`].
fn from_peer(words: &Words) -> bool {
    let bits = words.bits();
    let mut peer = ScriptedPeer::new(words.script);
    let expected = well_formed(peer.frames(), bits);
    let result = recv(&mut peer, bits, "the fuzzed words");
    let (mut reader, bytes) = match (result, expected) {
        (Ok(reader), Some(bytes)) => (reader, bytes),
        (Err(_), None) => return false,
        (Ok(_), None) => panic!("a malformed message of {bits} bits accepted"),
        (Err(e), Some(_)) => panic!("a well-formed message of {bits} bits refused: {e}"),
    };
    let mut again = BitWriter::with_bits(bits);
    let mut at = 0;
    for width in words.each() {
        let word = reader.take(width);
        assert_eq!(word, bits_at(&bytes, at, width), "the word at bit {at}");
        again.push(word, width);
        at += width as usize;
    }
    assert!(
        again.finish() == bytes,
        "an accepted message is not the encoding of its words"
    );
    peer.done()
}

/// Receives the message from the scripted peer a piece at a time (a
/// piece per repeat of the widths, as the products' chunks are read, with
/// `StreamReceiver`): the verdict is [`well_formed`]'s, the words those of
/// [`bits_at`], as for the whole message.
fn in_pieces(words: &Words) {
    let bits = words.bits();
    let mut peer = ScriptedPeer::new(words.script);
    let expected = well_formed(peer.frames(), bits);
    let mut stream = StreamReceiver::new(bits, "the fuzzed words");
    let once: usize = words.widths.iter().map(|&w| w as usize).sum();
    let mut at = 0;
    for _ in 0..words.repeat {
        let piece = stream.piece(&mut peer, at, at + once);
        let (mut reader, bytes) = match (piece, &expected) {
            (Ok(reader), Some(bytes)) => (reader, bytes),
            (Err(_), None) => return,
            // A malformed frame may come after the pieces read so far.
            (Ok(_), None) => {
                at += once;
                continue;
            }
            (Err(e), Some(_)) => panic!("a well-formed message of {bits} bits refused: {e}"),
        };
        for &width in &words.widths {
            assert_eq!(
                reader.take(width),
                bits_at(bytes, at, width),
                "the word at bit {at}"
            );
            at += width as usize;
        }
    }
    assert!(
        expected.is_some(),
        "a malformed message of {bits} bits accepted in pieces"
    );
}

/// The message of `bits` bits the frames carry, if they are exactly those
/// `send` makes of some message: its bytes in frames of [`PACKED_FRAME`]
/// bytes and a last shorter one, the padding bits after the last word
/// zero. Frames after the message are not its own (they are read as the
/// next message).
fn well_formed<'f>(mut frames: impl Iterator<Item = &'f [u8]>, bits: usize) -> Option<Vec<u8>> {
    let len = bits.div_ceil(8);
    let mut bytes = Vec::new();
    while bytes.len() < len {
        let frame = frames.next()?;
        if frame.len() != (len - bytes.len()).min(PACKED_FRAME) {
            return None;
        }
        bytes.extend_from_slice(frame);
    }
    // The last byte's bits after the message's (none if it fills it).
    let used = 8 - (8 * len - bits);
    let padding = bytes.last().map_or(0, |&b| u32::from(b) >> used);
    (padding == 0).then_some(bytes)
}

/// The `width` bits of `bytes` from bit `at` on (bit `i` of a message is
/// bit `i % 8` of byte `i / 8`), one bit at a time.
fn bits_at(bytes: &[u8], at: usize, width: u32) -> u64 {
    (0..width as usize).fold(0, |word, j| {
        let i = at + j;
        word | (u64::from(bytes[i / 8] >> (i % 8) & 1) << j)
    })
}

/// A word of random bits for word `k` of an input hashed to `seed`
/// (SplitMix64: cheap, so that the longest messages stay fast).
fn word(seed: u64, k: usize) -> u64 {
    let mut z = seed.wrapping_add((k as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Words of the input's widths, their bits beyond the width set at random,
/// packed and sent over an in-memory pair, read back masked to their
/// widths, in as many frames as the message needs.
fn round_trip(words: &Words, data: &[u8]) {
    let seed = crate::fnv1a(data);
    let bits = words.bits();
    let mut writer = BitWriter::with_bits(bits);
    for (k, width) in words.each().enumerate() {
        writer.push(word(seed, k), width);
    }
    let bytes = writer.finish();
    assert_eq!(bytes.len(), bits.div_ceil(8), "the packed length");
    let (mut them, mut me) =
        MemoryTransport::pair(ChannelOptions::default()).expect("the default options are valid");
    send(&mut them, &bytes).expect("an in-memory send succeeds");
    them.flush().expect("an in-memory flush succeeds");
    let mut reader = recv(&mut me, bits, "the words sent").expect("a sent message is accepted");
    let frames = bytes.len().div_ceil(PACKED_FRAME);
    assert_eq!(
        me.bytes_received(),
        (bytes.len() + frames * HEADER_LEN) as u64,
        "{frames} frames"
    );
    for (k, width) in words.each().enumerate() {
        assert_eq!(reader.take(width), word(seed, k) & mask(width), "word {k}");
    }
}

/// Valid messages of mixed widths (1, 63 and 64 among them, and 0), an
/// empty one, one whose words fill two frames (its second frame cut short:
/// a whole one would make too large a seed) and one that is one byte short.
pub fn packed_seeds() -> Vec<Vec<u8>> {
    let message = |repeat: u8, widths: &[u8]| {
        let words = Words {
            widths: widths.iter().map(|&w| u32::from(w)).collect(),
            repeat: usize::from(repeat) + 1,
            script: &[],
        };
        let mut writer = BitWriter::with_bits(words.bits());
        for (k, width) in words.each().enumerate() {
            writer.push(word(7, k), width);
        }
        let mut data = vec![widths.len() as u8, repeat];
        data.extend_from_slice(widths);
        (data, writer.finish())
    };
    let whole = |(mut data, bytes): (Vec<u8>, Vec<u8>)| {
        data.extend(script([&bytes]));
        data
    };
    let mut two = vec![2, TWO_FRAMES, 17, 64];
    two.extend(script([&[0x5a; 64][..]]));
    let (mut short, bytes) = message(2, &[5, 64, 1]);
    short.extend(script([&bytes[1..]]));
    vec![
        whole(message(0, &[1, 63, 64, 7, 32])),
        whole(message(3, &[8, 16, 32, 64])),
        whole(message(1, &[0, 5, 13, 64, 1, 33])),
        whole(message(200, &[64, 3])),
        // No words: no frames.
        vec![0, 0],
        two,
        short,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seeds_are_read_as_described() {
        let accepted: Vec<bool> = packed_seeds().iter().map(|s| packed(s)).collect();
        assert_eq!(accepted, [true, true, true, true, true, false, false]);
    }

    #[test]
    fn the_seed_files_are_read_as_named() {
        let valid = ["mixed_widths", "odd_widths", "protocol_widths"];
        let seeds = crate::read_corpus(&crate::Target::Packed.corpus_dir().join("seeds"));
        assert!(seeds.len() > valid.len());
        for (path, data) in seeds {
            let name = path.file_name().unwrap().to_string_lossy();
            assert_eq!(packed(&data), valid.contains(&&*name), "{name}");
        }
    }

    #[test]
    fn set_padding_bits_and_stray_lengths_are_refused() {
        // Three words of 1, 2 and 1 bits: 4 bits in one byte.
        let input = |frames: &[&[u8]]| {
            let mut data = vec![3, 0, 1, 2, 1];
            data.extend(script(frames.iter().copied()));
            data
        };
        assert!(packed(&input(&[&[0b1011]])));
        // Read, but with the next message's frame after it.
        assert!(!packed(&input(&[&[0b1011], &[9, 9]])));
        assert!(!packed(&input(&[&[0b1_1011]])), "a padding bit set");
        assert!(!packed(&input(&[&[0b1011, 0]])), "a byte too many");
        assert!(!packed(&input(&[&[]])), "a byte too few");
        assert!(!packed(&input(&[])), "no frame");
    }
}
