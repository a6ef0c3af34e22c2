//! The oblivious choice of CP2's labels for the bits only CP3 knows (the
//! combination `y` of CP2's and CP3's shares, and CP3's masks), without
//! giving CP3 Δ or any label. For each such wire, with labels `L0` and
//! `L1 = L0 ⊕ Δ`:
//!
//! - CP1 draws pads `k0`, `k1` and a bit `r`; it sends CP2 the pair
//!   `(L0 ⊕ k0, L1 ⊕ k1)` swapped when `r = 1`, and CP3 `(r, k0, k1)`;
//! - CP3, holding the wire's bit `y`, sends CP2 the index `y ⊕ r` and the
//!   pad `k_y`;
//! - CP2 takes the entry at that index and removes the pad: `L_y`.
//!
//! CP3 sees only fresh random pads and a random bit; CP2 sees the other
//! label under a pad it never learns and an index that `r` makes uniform.

use twofold_crypto::{Block, Delta, Prg};

/// What CP1 sends for the wires CP3 chooses.
pub(crate) struct Offer {
    /// To CP2: two padded labels per wire, in the order the flip bit sets.
    pub pairs: Vec<Block>,
    /// To CP3: the two pads per wire (`k0`, `k1`).
    pub pads: Vec<Block>,
    /// To CP3: the flip bit `r` of each wire.
    pub flips: Vec<bool>,
}

/// CP1: the offer for wires whose 0-labels are `zeros`.
pub(crate) fn offer(zeros: &[Block], delta: Delta, prg: &mut Prg) -> Offer {
    let mut out = Offer {
        pairs: Vec::with_capacity(2 * zeros.len()),
        pads: Vec::with_capacity(2 * zeros.len()),
        flips: Vec::with_capacity(zeros.len()),
    };
    for &zero in zeros {
        let (k0, k1, r) = (prg.random_block(), prg.random_block(), prg.random_bool());
        let padded = [zero ^ k0, zero ^ delta.block() ^ k1];
        out.pairs
            .extend([padded[usize::from(r)], padded[usize::from(!r)]]);
        out.pads.extend([k0, k1]);
        out.flips.push(r);
    }
    out
}

/// CP3: for each wire, from CP1's `pads` and `flips` and the wire's bit,
/// the pad `k_y` and the index `y ⊕ r` CP2 needs.
pub(crate) fn choose(
    pads: &[Block],
    flips: &[bool],
    bits: impl Iterator<Item = bool>,
) -> (Vec<Block>, Vec<bool>) {
    pads.chunks(2)
        .zip(flips)
        .zip(bits)
        .map(|((k, &r), y)| (k[usize::from(y)], y ^ r))
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
        let offer = offer(&zeros, delta, &mut prg);
        let (keys, indices) = choose(&offer.pads, &offer.flips, bits.iter().copied());
        let labels = take(&offer.pairs, &keys, &indices);
        for ((&label, &zero), &bit) in labels.iter().zip(&zeros).zip(&bits) {
            assert_eq!(label, zero ^ delta.block().select(bit));
        }
        // CP3's messages hold neither Δ nor a label, nor do any two of its
        // blocks differ by Δ.
        let to_cp3 = &offer.pads;
        for (i, &a) in to_cp3.iter().enumerate() {
            assert_ne!(a, delta.block());
            assert!(!zeros.contains(&a) && !labels.contains(&a));
            for &b in &to_cp3[i + 1..] {
                assert_ne!(a ^ b, delta.block());
            }
        }
        // The indices CP2 sees are not the bits.
        assert_ne!(indices, bits);
    }
}
