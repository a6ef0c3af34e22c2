//! The oblivious choice of CP2's labels for the bits only CP3 knows (the
//! combination `y` of CP2's and CP3's shares, and CP3's masks), without
//! giving CP3 Δ or any label. For each such wire, with labels `L0` and
//! `L1 = L0 ⊕ Δ`:
//!
//! - CP1 and CP3 draw pads `k0`, `k1` and a bit `r` alike, from a seed CP1
//!   sent CP3 once ([`Pads`]); CP1 sends CP2 the pair `(L0 ⊕ k0, L1 ⊕ k1)`
//!   swapped when `r = 1`;
//! - CP3, holding the wire's bit `y`, sends CP2 the index `y ⊕ r` and the
//!   pad `k_y`;
//! - CP2 takes the entry at that index and removes the pad: `L_y`.
//!
//! CP3 sees only the seed (its pads and flips are pseudorandom); CP2 sees
//! the other label under a pad it never learns and an index that `r`
//! makes uniform. Drawing the pads from a shared seed instead of sending
//! them saves two labels and a bit a wire, and CP3 need not wait for CP1.

use twofold_crypto::{Block, Delta, Prg};
use twofold_net::Transport;

use crate::error::ProtocolError;
use crate::messages::Labels;

/// The pads and flip bits CP1 and CP3 draw alike, wire after wire.
pub(crate) struct Pads(Prg);

impl Pads {
    /// CP1: a fresh seed from the OS, sent to CP3.
    pub fn send(to_cp3: &mut impl Transport) -> Result<Pads, ProtocolError> {
        let seed = Prg::try_from_os()?.random_block();
        Labels::send(to_cp3, &[seed])?;
        Ok(Pads(Prg::from_seed(seed)))
    }

    /// CP3: the seed CP1 sent.
    pub fn recv(from_cp1: &mut impl Transport) -> Result<Pads, ProtocolError> {
        let seed = Labels::recv(from_cp1, 1, "the choice's seed")?;
        Ok(Pads(Prg::from_seed(seed[0])))
    }

    /// The next wire's pads `k0`, `k1` and flip bit `r`.
    fn next(&mut self) -> ([Block; 2], bool) {
        let (k0, k1) = (self.0.random_block(), self.0.random_block());
        // Drawn on its own: CP2 receives one of the pads, so the flip
        // must not be a function of either.
        ([k0, k1], self.0.random_bool())
    }
}

/// CP1: the padded label pairs CP2 receives for wires whose 0-labels are
/// `zeros`.
pub(crate) fn offer(zeros: &[Block], delta: Delta, pads: &mut Pads) -> Vec<Block> {
    let mut pairs = Vec::with_capacity(2 * zeros.len());
    for &zero in zeros {
        let ([k0, k1], r) = pads.next();
        let padded = [zero ^ k0, zero ^ delta.block() ^ k1];
        pairs.extend([padded[usize::from(r)], padded[usize::from(!r)]]);
    }
    pairs
}

/// CP3: for each wire's bit, the pad `k_y` and the index `y ⊕ r` CP2
/// needs.
pub(crate) fn choose(pads: &mut Pads, bits: impl Iterator<Item = bool>) -> (Vec<Block>, Vec<bool>) {
    bits.map(|y| {
        let (k, r) = pads.next();
        (k[usize::from(y)], y ^ r)
    })
    .unzip()
}

/// CP2: each wire's label, from CP1's `pairs` and CP3's `keys` and
/// `indices`.
pub(crate) fn take(pairs: &[Block], keys: &[Block], indices: &[bool]) -> Vec<Block> {
    pairs
        .chunks(2)
        .zip(keys.iter().zip(indices))
        .map(|(pair, (&k, &i))| pair[usize::from(i)] ^ k)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cp2_gets_the_label_of_each_bit_and_cp3_nothing_of_delta() {
        let mut prg = Prg::from_seed(Block(7));
        let delta = Delta::random(&mut prg);
        let zeros: Vec<Block> = (0..64).map(|_| prg.random_block()).collect();
        let bits: Vec<bool> = (0..64).map(|_| prg.random_bool()).collect();
        let seed = prg.random_block();
        let (mut cp1, mut cp3) = (Pads(Prg::from_seed(seed)), Pads(Prg::from_seed(seed)));
        let pairs = offer(&zeros, delta, &mut cp1);
        let (keys, indices) = choose(&mut cp3, bits.iter().copied());
        let labels = take(&pairs, &keys, &indices);
        for ((&label, &zero), &bit) in labels.iter().zip(&zeros).zip(&bits) {
            assert_eq!(label, zero ^ delta.block().select(bit));
        }
        // What CP3 sends holds neither Δ nor a label, nor do any two of
        // its blocks differ by Δ.
        for (i, &a) in keys.iter().enumerate() {
            assert_ne!(a, delta.block());
            assert!(!zeros.contains(&a) && !labels.contains(&a));
            for &b in &keys[i + 1..] {
                assert_ne!(a ^ b, delta.block());
            }
        }
        // The indices CP2 sees are not the bits, and the flips are not the
        // low bits of the pads CP2 receives.
        assert_ne!(indices, bits);
        let flips: Vec<bool> = (0..64).map(|k| indices[k] ^ bits[k]).collect();
        let low: Vec<bool> = keys.iter().map(|k| k.0 & 1 == 1).collect();
        assert_ne!(flips, low);
    }
}
