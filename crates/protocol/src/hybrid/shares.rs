//! Splitting a value into three shares and combining them again, bitwise
//! (XOR) or additively. Values are bit vectors, least significant bit
//! first. Additive shares are taken per **lane**: the value's bits are cut
//! into consecutive lanes of `lane` bits (bits `0..lane` the first), each
//! shared modulo 2^lane on its own, so no carry crosses from one lane into
//! the next (an array of 32-bit integers is shared element by element,
//! modulo 2^32 each). A lane of the value's whole width shares it modulo
//! 2^width. Bitwise shares ignore the lane.

use twofold_crypto::Prg;

use crate::options::ShareKind;

/// Splits `value` into three shares of `kind` (additive: per lane of
/// `lane` bits): the first two uniformly random, the third what makes them
/// combine to `value`.
pub fn split(kind: ShareKind, lane: u32, value: &[bool], prg: &mut Prg) -> [Vec<bool>; 3] {
    let mut random = || -> Vec<bool> { value.iter().map(|_| prg.random_bool()).collect() };
    let (first, second) = (random(), random());
    let third = match kind {
        ShareKind::Xor => xor(&xor(value, &first), &second),
        ShareKind::Add => {
            let once = per_lane(lane, value, &first, sub);
            per_lane(lane, &once, &second, sub)
        }
    };
    [first, second, third]
}

/// The value three shares of `kind` stand for (additive: per lane of
/// `lane` bits).
pub fn combine(kind: ShareKind, lane: u32, shares: [&[bool]; 3]) -> Vec<bool> {
    let two = combine_two(kind, lane, shares[0], shares[1]);
    combine_two(kind, lane, &two, shares[2])
}

/// Two shares of `kind` combined into one: XOR, or the sum of each lane of
/// `lane` bits modulo 2^lane.
pub fn combine_two(kind: ShareKind, lane: u32, a: &[bool], b: &[bool]) -> Vec<bool> {
    match kind {
        ShareKind::Xor => xor(a, b),
        ShareKind::Add => per_lane(lane, a, b, |x, y| add(x, y, false)),
    }
}

/// `op` applied to each lane of `lane` bits of `a` and `b` (a lane of 0
/// counts as 1; a last lane shorter than `lane` is taken as it is: callers
/// check that `lane` divides the width).
fn per_lane(
    lane: u32,
    a: &[bool],
    b: &[bool],
    op: impl Fn(&[bool], &[bool]) -> Vec<bool>,
) -> Vec<bool> {
    let lane = lane.max(1) as usize;
    a.chunks(lane)
        .zip(b.chunks(lane))
        .flat_map(|(x, y)| op(x, y))
        .collect()
}

fn xor(a: &[bool], b: &[bool]) -> Vec<bool> {
    a.iter().zip(b).map(|(x, y)| x ^ y).collect()
}

/// `a + b + carry` modulo 2^width.
fn add(a: &[bool], b: &[bool], mut carry: bool) -> Vec<bool> {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| {
            let sum = x ^ y ^ carry;
            carry = (x & y) | (carry & (x ^ y));
            sum
        })
        .collect()
}

/// `a - b` modulo 2^width (`a + !b + 1`).
fn sub(a: &[bool], b: &[bool]) -> Vec<bool> {
    let not_b: Vec<bool> = b.iter().map(|x| !x).collect();
    add(a, &not_b, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(v: u64, width: usize) -> Vec<bool> {
        (0..width).map(|i| (v >> i) & 1 == 1).collect()
    }

    fn value(bits: &[bool]) -> u64 {
        bits.iter().rev().fold(0, |acc, &b| acc << 1 | b as u64)
    }

    #[test]
    fn shares_combine_to_the_value_and_look_random() {
        let mut prg = Prg::from_seed(twofold_crypto::Block(7));
        for kind in ShareKind::ALL {
            for (v, width) in [
                (0u64, 1),
                (1, 1),
                (13, 4),
                (0xdead_beef, 32),
                (u64::MAX, 64),
            ] {
                let value_bits = bits(v, width);
                let shares = split(kind, width as u32, &value_bits, &mut prg);
                assert_eq!(
                    combine(kind, width as u32, [&shares[0], &shares[1], &shares[2]]),
                    value_bits,
                    "{kind} {v}"
                );
            }
            // Each share alone is uniform: over many splits of one value,
            // every bit of every share is set about half of the time.
            let value_bits = bits(0x0f0f, 16);
            let mut ones = [[0u32; 16]; 3];
            for _ in 0..2000 {
                let shares = split(kind, 4, &value_bits, &mut prg);
                for (s, share) in shares.iter().enumerate() {
                    for (i, &b) in share.iter().enumerate() {
                        ones[s][i] += b as u32;
                    }
                }
            }
            for counts in ones {
                for c in counts {
                    assert!((850..1150).contains(&c), "{kind}: {c} of 2000");
                }
            }
        }
    }

    #[test]
    fn additive_shares_wrap_modulo_the_width() {
        let a = bits(200, 8);
        let b = bits(100, 8);
        assert_eq!(value(&combine_two(ShareKind::Add, 8, &a, &b)), 44);
        assert_eq!(value(&sub(&b, &a)), 156);
    }

    /// `bytes` as bits, byte 0 first.
    fn lanes(bytes: &[u8]) -> Vec<bool> {
        bytes.iter().flat_map(|&b| bits(b as u64, 8)).collect()
    }

    #[test]
    fn additive_shares_of_lanes_wrap_each_lane_alone() {
        // Four bytes, each summed modulo 256: no carry crosses a lane.
        let a = lanes(&[200, 255, 1, 128]);
        let b = lanes(&[100, 1, 2, 128]);
        assert_eq!(
            combine_two(ShareKind::Add, 8, &a, &b),
            lanes(&[44, 0, 3, 0])
        );
        // As one 32-bit lane the carries do cross.
        let whole = value(&a) + value(&b);
        assert_eq!(
            value(&combine_two(ShareKind::Add, 32, &a, &b)),
            whole & 0xffff_ffff
        );
        assert_ne!(whole & 0xffff_ffff, value(&lanes(&[44, 0, 3, 0])));
        // XOR ignores the lane.
        assert_eq!(
            combine_two(ShareKind::Xor, 8, &a, &b),
            combine_two(ShareKind::Xor, 32, &a, &b)
        );
    }

    #[test]
    fn lane_shares_combine_per_lane_and_each_lane_looks_random() {
        let mut prg = Prg::from_seed(twofold_crypto::Block(11));
        let value_bits = lanes(&[0, 255, 7, 128]);
        for lane in [1, 2, 8, 16, 32] {
            for kind in ShareKind::ALL {
                let shares = split(kind, lane, &value_bits, &mut prg);
                let got = combine(kind, lane, [&shares[0], &shares[1], &shares[2]]);
                assert_eq!(got, value_bits, "{kind} lane {lane}");
            }
        }
        // Each byte of the three shares combines to its byte modulo 256,
        // whatever the other bytes are.
        for _ in 0..200 {
            let shares = split(ShareKind::Add, 8, &value_bits, &mut prg);
            for (k, want) in [0u64, 255, 7, 128].into_iter().enumerate() {
                let byte = |s: &[bool]| value(&s[8 * k..8 * k + 8]);
                let sum = shares.iter().map(|s| byte(s)).sum::<u64>() % 256;
                assert_eq!(sum, want, "byte {k}");
            }
        }
    }
}
