//! Byte-level mutations: the edits a coverage-blind fuzzer stacks on a
//! corpus entry to make a new input.

use rand::seq::SliceRandom;
use rand::Rng;

/// Longest input the mutator makes (bytes).
pub const MAX_LEN: usize = 1 << 16;

/// Numbers that sit on the edges readers get wrong: zero, one, powers of two
/// and their neighbours, the limits of 8-, 16-, 32- and 64-bit integers.
const INTERESTING: &[u64] = &[
    0,
    1,
    2,
    7,
    8,
    16,
    31,
    32,
    63,
    64,
    127,
    128,
    255,
    256,
    4096,
    32767,
    32768,
    65535,
    65536,
    1 << 20,
    (1 << 31) - 1,
    1 << 31,
    u32::MAX as u64 - 1,
    u32::MAX as u64,
    1 << 32,
    3_505_561_080,
    (1 << 63) - 1,
    1 << 63,
    6_148_914_691_236_517_206,
    u64::MAX - 1,
    u64::MAX,
];

/// Text that the C front end and the value parser nest or repeat.
const TOKENS: &[&[u8]] = &[
    b"(",
    b")",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b"?",
    b":",
    b"~",
    b"-",
    b"+",
    b"*",
    b"=",
    b".",
    b";",
    b"\n",
    b" ",
    b"#define X X X\n",
    b"#include ",
    b"if (x) ",
    b"for (int i = 0; i < 100000; i++) ",
    b"(int)",
    b".a = ",
    b"MAND",
    b"AND",
    b"XOR",
    b"INV",
    b"EQW",
    b"EQ",
];

/// Returns a mutant of `base`: between one and eight edits stacked, some of
/// them splicing in parts of `other` (another corpus entry).
pub fn mutate(rng: &mut impl Rng, base: &[u8], other: &[u8]) -> Vec<u8> {
    let mut data = base.to_vec();
    for _ in 0..rng.gen_range(1..=8) {
        edit(rng, &mut data, other);
    }
    data.truncate(MAX_LEN);
    data
}

/// One random edit of `data`.
fn edit(rng: &mut impl Rng, data: &mut Vec<u8>, other: &[u8]) {
    let len = data.len();
    let at = rng.gen_range(0..=len);
    match rng.gen_range(0..12) {
        0 if len > 0 => {
            let i = rng.gen_range(0..len);
            data[i] ^= 1 << rng.gen_range(0..8);
        }
        1 if len > 0 => {
            let i = rng.gen_range(0..len);
            data[i] = rng.gen();
        }
        2 if len > 0 => {
            // Delete a run.
            let end = (at + rng.gen_range(1..=16)).min(len);
            data.drain(at.min(end)..end);
        }
        3 if len > 0 => {
            // Repeat a short run many times (deep nesting, long lists).
            let start = rng.gen_range(0..len);
            let end = (start + rng.gen_range(1..=8)).min(len);
            let chunk = data[start..end].to_vec();
            let times = *[2usize, 16, 256, 4096].choose(rng).expect("not empty");
            let insert: Vec<u8> = chunk
                .iter()
                .copied()
                .cycle()
                .take(chunk.len() * times)
                .collect();
            data.splice(at..at, insert);
        }
        4 => {
            // An interesting number as decimal text, replacing a run of digits.
            let n = INTERESTING.choose(rng).expect("not empty").to_string();
            let end = digits_end(data, at);
            data.splice(at..end, n.into_bytes());
        }
        5 => {
            // An interesting number in little-endian binary (u32 or u64).
            let n = *INTERESTING.choose(rng).expect("not empty");
            let bytes: Vec<u8> = if rng.gen() {
                (n as u32).to_le_bytes().to_vec()
            } else {
                n.to_le_bytes().to_vec()
            };
            let end = (at + bytes.len()).min(len);
            data.splice(at..end, bytes);
        }
        6 => {
            let token = TOKENS.choose(rng).expect("not empty");
            let times = *[1usize, 1, 4, 1000].choose(rng).expect("not empty");
            let insert: Vec<u8> = token
                .iter()
                .copied()
                .cycle()
                .take(token.len() * times)
                .collect();
            data.splice(at..at, insert);
        }
        7 if !other.is_empty() => {
            // Splice in a part of another input.
            let start = rng.gen_range(0..other.len());
            let end = (start + rng.gen_range(1..=64)).min(other.len());
            data.splice(at..at, other[start..end].iter().copied());
        }
        8 if len > 0 => data.truncate(rng.gen_range(0..len)),
        9 if len > 1 => {
            // Swap two bytes.
            let (i, j) = (rng.gen_range(0..len), rng.gen_range(0..len));
            data.swap(i, j);
        }
        10 if len > 0 => {
            // Copy a run over another place.
            let start = rng.gen_range(0..len);
            let end = (start + rng.gen_range(1..=32)).min(len);
            let chunk = data[start..end].to_vec();
            let to = rng.gen_range(0..len);
            let stop = (to + chunk.len()).min(len);
            data[to..stop].copy_from_slice(&chunk[..stop - to]);
        }
        _ => {
            let byte = *b"0123456789 \n{}(),;-".choose(rng).expect("not empty");
            data.insert(at, byte);
        }
    }
}

/// The end of the run of ASCII digits starting at `at`.
fn digits_end(data: &[u8], at: usize) -> usize {
    at + data[at..].iter().take_while(|b| b.is_ascii_digit()).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn mutants_stay_under_the_length_cap() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let mut data = b"1 2\n1 1\n1 1\n\n1 1 0 1 INV\n".to_vec();
        for _ in 0..2000 {
            data = mutate(&mut rng, &data, b"2 1 0 0 1 AND");
            assert!(data.len() <= MAX_LEN);
        }
    }
}
