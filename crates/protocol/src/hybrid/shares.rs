//! Splitting a value into three shares and combining them again, bitwise
//! (XOR) or additively (modulo 2^width). Values are bit vectors, least
//! significant bit first.

use twofold_crypto::Prg;

use crate::options::ShareKind;

/// Splits `value` into three shares of `kind`: the first two uniformly
/// random, the third what makes them combine to `value`.
pub fn split(kind: ShareKind, value: &[bool], prg: &mut Prg) -> [Vec<bool>; 3] {
    let mut random = || -> Vec<bool> { value.iter().map(|_| prg.random_bool()).collect() };
    let (first, second) = (random(), random());
    let third = match kind {
        ShareKind::Xor => xor(&xor(value, &first), &second),
        ShareKind::Add => sub(&sub(value, &first), &second),
    };
    [first, second, third]
}

/// The value three shares of `kind` stand for.
pub fn combine(kind: ShareKind, shares: [&[bool]; 3]) -> Vec<bool> {
    let two = combine_two(kind, shares[0], shares[1]);
    combine_two(kind, &two, shares[2])
}

/// Two shares of `kind` combined into one (XOR or sum modulo 2^width).
pub fn combine_two(kind: ShareKind, a: &[bool], b: &[bool]) -> Vec<bool> {
    match kind {
        ShareKind::Xor => xor(a, b),
        ShareKind::Add => add(a, b, false),
    }
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
                let shares = split(kind, &value_bits, &mut prg);
                assert_eq!(
                    combine(kind, [&shares[0], &shares[1], &shares[2]]),
                    value_bits,
                    "{kind} {v}"
                );
            }
            // Each share alone is uniform: over many splits of one value,
            // every bit of every share is set about half of the time.
            let value_bits = bits(0x0f0f, 16);
            let mut ones = [[0u32; 16]; 3];
            for _ in 0..2000 {
                let shares = split(kind, &value_bits, &mut prg);
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
        assert_eq!(value(&combine_two(ShareKind::Add, &a, &b)), 44);
        assert_eq!(value(&sub(&b, &a)), 156);
    }
}
