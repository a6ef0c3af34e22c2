//! Bit injection by arithmetic ciphertexts, for garbled bits whose shares
//! are needed modulo small powers of two (the wrap counts of widened
//! lanes). For a wire with labels `X_0`, `X_1` and a modulus `2^k`, CP1
//! draws `s` (its share is `−s`) and sends CP2 two `k`-bit ciphertexts, the
//! one of `v` in row `lsb(X_v)`: `(v + s mod 2^k) ⊕ H(X_v, t)`, `H` the
//! TCCR hash (its low `k` bits) under a tweak `t` of its own. CP2 holds
//! `X_b`, so it decrypts the row its label points to: its share `b + s`.
//! CP3's share is 0 (the word is rerandomized before any share of it
//! leaves). No message waits for the evaluation: the ciphertexts go with
//! the garbled tables, and CP2 has its share as soon as it has the label.

use twofold_circuit::mixed::mask;
use twofold_crypto::{ActiveLabel, Block, Delta, Tccr, ZeroLabel};

/// The top bit of every injection tweak: AND gates' tweaks are small
/// multiples of a 64-bit gate id (below 2^67), so no tweak is used twice.
const TWEAK_SPACE: u128 = 1 << 127;

/// The hash pad of `label` under injection tweak `j`, `bits` bits.
fn pad(tccr: &Tccr, label: Block, j: u64, bits: u32) -> u64 {
    let Block(h) = tccr.hash(label, Block(TWEAK_SPACE | j as u128));
    h as u64 & mask(bits)
}

/// CP1: the two rows of a wire with 0-label `zero` that open `b + s`
/// modulo 2^`bits` to the holder of `X_b`, under injection tweak `j`.
pub(crate) fn offer(
    tccr: &Tccr,
    zero: ZeroLabel,
    delta: Delta,
    s: u64,
    bits: u32,
    j: u64,
) -> [u64; 2] {
    let mut rows = [0; 2];
    for v in [false, true] {
        let label = zero.encode(delta, v).block();
        let word = (v as u64).wrapping_add(s) & mask(bits);
        rows[label.lsb() as usize] = word ^ pad(tccr, label, j, bits);
    }
    rows
}

/// CP2: `b + s` modulo 2^`bits` from its label `X_b` of a wire and the
/// wire's rows, under injection tweak `j`.
pub(crate) fn take(tccr: &Tccr, label: ActiveLabel, rows: [u64; 2], bits: u32, j: u64) -> u64 {
    let label = label.block();
    rows[label.lsb() as usize] ^ pad(tccr, label, j, bits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use twofold_crypto::Prg;

    #[test]
    fn the_label_opens_its_bit_plus_the_mask_and_nothing_else() {
        let tccr = Tccr::new();
        let mut prg = Prg::from_seed(Block(11));
        let delta = Delta::random(&mut prg);
        for j in 0..64u64 {
            let zero = ZeroLabel::random(&mut prg);
            let bits = 1 + (j % 64) as u32;
            let s = prg.random_block().0 as u64 & mask(bits);
            let rows = offer(&tccr, zero, delta, s, bits, j);
            for b in [false, true] {
                let got = take(&tccr, zero.encode(delta, b), rows, bits, j);
                assert_eq!(got, (b as u64).wrapping_add(s) & mask(bits));
                // Another tweak opens something else.
                let other = take(&tccr, zero.encode(delta, b), rows, bits, j + 1);
                if bits > 8 {
                    assert_ne!(other, got);
                }
            }
            // The rows are not the plain words.
            if bits > 8 {
                assert!(!rows.contains(&s) && !rows.contains(&((s + 1) & mask(bits))));
            }
        }
    }
}
