//! SoftSpoken OT extension (Roy, CRYPTO 2022), semi-honest, with the
//! repetition code: the same correlated-OT relation as IKNP for `⌈128 / k⌉`
//! bits per OT on the wire instead of 128.
//!
//! The 128 bits of Δ are cut into groups of `k` bits (the last group takes
//! what is left when `k` does not divide 128); group `g` holds the bits
//! `o..o + kg` of Δ, read as the integer `δ` of `kg` bits.
//!
//! *Setup* — one punctured PRF per group. The extension receiver builds a
//! GGM tree of depth `kg` whose leaf `x ∈ {0,1}^kg` (bit `kg − l` chosen at
//! depth `l`, children `2y` and `2y + 1`) is the seed `sₓ`; the extension
//! sender learns every leaf but `s_δ` through `kg` of the 128 base OTs, with
//! the roles of IKNP (the extension receiver sends random pairs
//! `(a⁰ᵢ, a¹ᵢ)`, the extension sender chooses with `¬Δᵢ`). Depth 1 is the
//! base-OT pair itself; at each deeper level of bit `i` the receiver sends
//! `(a⁰ᵢ ⊕ Σ even children, a¹ᵢ ⊕ Σ odd children)`, one frame for all groups
//! sent at the start of its first batch (the setup then waits for no
//! message IKNP's does not), and the sender, who knows every node off its path, recovers the missing
//! off-path child. The sender keeps its tree in coordinates relative to its
//! path (node `y ⊕ δ-prefix`), so the only secret-dependent steps are
//! masked swaps and selects; it never touches memory at a secret address.
//! Each leaf keys an AES-CTR [`Prg`] that is never reset.
//!
//! *A chunk* of `m` rows (a multiple of 128): every leaf stream gives one
//! bit `rₓ[j]` per row. The receiver computes `u = Σₓ rₓ` and
//! `v = Σₓ x·rₓ` (`kg` bit lines); the sender, lacking only `r_δ`, computes
//! `w = Σₓ (x ⊕ δ)·rₓ = v ⊕ u·δ` (a subspace VOLE over `F_{2^kg}` with `u` in
//! `F₂`). The receiver sends the line `c = u ⊕ b` (its choice bits), the
//! sender sets `w ⊕= c·δ = v ⊕ b·δ`. Stacking the groups' lines gives 128
//! lines, transposed as in IKNP: the sender's row `j` is `K0ⱼ = vⱼ ⊕ bⱼ·Δ`,
//! the receiver's is `vⱼ = K0ⱼ ⊕ bⱼ·Δ`. Both sums are taken over a halving
//! tree (`O(2^kg)` line XORs per group) on sub-blocks of rows that fit the
//! cache.
//!
//! Security (semi-honest): the sender sees `c = u ⊕ b`, and `u` includes
//! `r_δ`, the stream of the one seed it lacks; the receiver sees nothing
//! but base-OT messages.

use twofold_crypto::{Block, Prg};
use twofold_net::Transport;
use zeroize::{Zeroize, Zeroizing};

use crate::base::{base_receive, base_send};
use crate::error::Result;
use crate::transpose::LINES;

/// Row blocks (of 128 rows) a leaf stream is expanded by at a time, so that
/// the leaves of a group of 8 bits stay in the L1/L2 cache.
const SUB_BLOCKS: usize = 32;

/// The group widths for `k` bits per group: `k`, …, `k`, then the rest.
fn widths(k: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..LINES)
        .step_by(k)
        .map(move |offset| (offset, k.min(LINES - offset)))
}

/// Lines the receiver sends per chunk: one per group.
pub(crate) const fn groups(k: usize) -> usize {
    LINES.div_ceil(k)
}

/// The GGM children of a node.
fn expand(node: Block) -> (Block, Block) {
    let mut prg = Prg::from_seed(node);
    (prg.random_block(), prg.random_block())
}

/// All-ones if `bit`, else zero (no branch).
fn mask(bit: bool) -> u128 {
    0u128.wrapping_sub(bit as u128)
}

/// The receiver's state: one PRG per leaf of every group.
pub(crate) struct SoftReceiver {
    k: usize,
    /// The GGM corrections, until they go with the first batch.
    corrections: Option<Vec<Block>>,
    /// `prgs[g]` holds the `2^kg` leaf streams of group `g`, by leaf `x`.
    prgs: Vec<Vec<Prg>>,
    /// The leaf lines of one sub-block.
    leaves: Vec<Block>,
}

/// The sender's state: per group, the PRGs of every leaf but its own.
pub(crate) struct SoftSender {
    k: usize,
    /// Its base-OT keys, until the corrections come with the first batch
    /// (then `prgs` is made from them).
    keys: Option<Zeroizing<Vec<Block>>>,
    /// `prgs[g][x' − 1]` is the stream of leaf `x' ⊕ δ`, for `x' ≥ 1`.
    prgs: Vec<Vec<Prg>>,
    /// The leaf lines of one sub-block.
    leaves: Vec<Block>,
}

impl SoftReceiver {
    /// Lines sent per chunk.
    pub(crate) fn lines(&self) -> usize {
        groups(self.k)
    }

    /// The receiver's setup: base OTs as sender, and the GGM corrections,
    /// which [`SoftReceiver::send_corrections`] sends before the first
    /// batch (so that the setup costs no message of its own).
    pub(crate) fn setup(
        chan: &mut impl Transport,
        k: usize,
        base_sid: &[u8],
    ) -> Result<SoftReceiver> {
        let pairs = Zeroizing::new(base_send(chan, LINES, base_sid)?);
        let mut corrections = Vec::with_capacity(2 * LINES);
        let mut prgs = Vec::with_capacity(groups(k));
        for (offset, kg) in widths(k) {
            // Depth 1: the pair of the group's top bit.
            let (a0, a1) = pairs[offset + kg - 1];
            let mut nodes = Zeroizing::new(vec![a0, a1]);
            for bit in (0..kg - 1).rev() {
                let mut next = Zeroizing::new(Vec::with_capacity(2 * nodes.len()));
                let (mut even, mut odd) = pairs[offset + bit];
                for &node in nodes.iter() {
                    let (c0, c1) = expand(node);
                    even ^= c0;
                    odd ^= c1;
                    next.extend([c0, c1]);
                }
                corrections.extend([even, odd]);
                nodes = next;
            }
            prgs.push(nodes.iter().map(|&s| Prg::from_seed(s)).collect());
        }
        Ok(SoftReceiver {
            k,
            corrections: Some(corrections),
            prgs,
            leaves: Vec::new(),
        })
    }

    /// Sends the GGM corrections, if not yet sent: at the start of the
    /// first batch, where the sender's [`SoftSender::receive_corrections`]
    /// reads them.
    pub(crate) fn send_corrections(&mut self, chan: &mut impl Transport) -> Result<()> {
        if let Some(corrections) = self.corrections.take() {
            chan.send_frame(twofold_crypto::blocks_as_bytes(&corrections))?;
        }
        Ok(())
    }

    /// One chunk: writes the 128 lines `v` into `t` and the group lines
    /// `u ⊕ b` into `u`, for the packed choice bits `bits` (one line).
    pub(crate) fn chunk(&mut self, bits: &[Block], t: &mut [Block], u: &mut [Block]) {
        let stride = bits.len();
        for ((offset, kg), (prgs, c)) in
            widths(self.k).zip(self.prgs.iter_mut().zip(u.chunks_exact_mut(stride)))
        {
            let v = &mut t[offset * stride..(offset + kg) * stride];
            group_lines(prgs, &mut self.leaves, kg, v, |start, sum| {
                let lines = c[start..].iter_mut().zip(sum).zip(&bits[start..]);
                for ((c, &sum), &b) in lines {
                    *c = sum ^ b;
                }
            });
        }
    }
}

impl SoftSender {
    /// Lines received per chunk.
    pub(crate) fn lines(&self) -> usize {
        groups(self.k)
    }

    /// The sender's setup: base OTs as receiver with the bits of `¬Δ`; the
    /// punctured trees follow from the receiver's corrections at the first
    /// batch ([`SoftSender::receive_corrections`]).
    pub(crate) fn setup(
        chan: &mut impl Transport,
        delta: u128,
        k: usize,
        base_sid: &[u8],
    ) -> Result<SoftSender> {
        let choices: Zeroizing<Vec<bool>> =
            Zeroizing::new((0..LINES).map(|i| (delta >> i) & 1 == 0).collect());
        let keys = Zeroizing::new(base_receive(chan, &choices, base_sid)?);
        Ok(SoftSender {
            k,
            keys: Some(keys),
            prgs: Vec::new(),
            leaves: Vec::new(),
        })
    }

    /// Reads the receiver's GGM corrections, if not yet read (at the start
    /// of the first batch), and makes the punctured trees from them.
    pub(crate) fn receive_corrections(
        &mut self,
        chan: &mut impl Transport,
        delta: u128,
    ) -> Result<()> {
        let Some(keys) = self.keys.take() else {
            return Ok(());
        };
        let k = self.k;
        let mut corrections = Zeroizing::new(vec![Block::ZERO; 2 * (LINES - groups(k))]);
        chan.recv_frame_exact(twofold_crypto::blocks_as_bytes_mut(&mut corrections))?;
        let mut corrections = corrections.chunks_exact(2);
        let mut prgs = Vec::with_capacity(groups(k));
        for (offset, kg) in widths(k) {
            // Relative node 0 is on the path (unknown), 1 the base-OT key.
            let mut nodes = Zeroizing::new(vec![Block::ZERO, keys[offset + kg - 1]]);
            for bit in (0..kg - 1).rev() {
                let d = mask((delta >> (offset + bit)) & 1 == 1);
                let pair = corrections.next().expect("one correction per level");
                // The sum of the off-path side, minus what is known of it.
                let mut missing =
                    (pair[1].0 ^ ((pair[0].0 ^ pair[1].0) & d)) ^ keys[offset + bit].0;
                let mut next = Zeroizing::new(vec![Block::ZERO; 2 * nodes.len()]);
                for (y, &node) in nodes.iter().enumerate().skip(1) {
                    let (c0, c1) = expand(node);
                    // Relative children: swapped when the path goes right.
                    let swap = (c0.0 ^ c1.0) & d;
                    let (e0, e1) = (c0.0 ^ swap, c1.0 ^ swap);
                    missing ^= e1;
                    next[2 * y] = Block(e0);
                    next[2 * y + 1] = Block(e1);
                }
                next[1] = Block(missing);
                missing.zeroize();
                nodes = next;
            }
            prgs.push(nodes[1..].iter().map(|&s| Prg::from_seed(s)).collect());
        }
        self.prgs = prgs;
        Ok(())
    }

    /// One chunk: from the receiver's group lines `u`, writes the 128 lines
    /// `v ⊕ b·Δ` into `q`.
    pub(crate) fn chunk(&mut self, delta: u128, u: &[Block], q: &mut [Block]) {
        let stride = u.len() / groups(self.k);
        for ((offset, kg), (prgs, c)) in
            widths(self.k).zip(self.prgs.iter_mut().zip(u.chunks_exact(stride)))
        {
            let w = &mut q[offset * stride..(offset + kg) * stride];
            group_lines(prgs, &mut self.leaves, kg, w, |_, _| {});
            for (l, line) in w.chunks_exact_mut(stride).enumerate() {
                let d = mask((delta >> (offset + l)) & 1 == 1);
                for (w, c) in line.iter_mut().zip(c) {
                    w.0 ^= c.0 & d;
                }
            }
        }
    }
}

/// The `kg` lines `Σₓ xₗ·rₓ` of one group (`x` relative to the sender's
/// path on its side), written into `out` (`kg` lines), from the group's
/// leaf streams: all `2^kg` of them (the receiver) or all but leaf 0 (the
/// sender, whose leaf 0 is its unknown `r_δ`, taken as zero). Works on
/// sub-blocks of [`SUB_BLOCKS`] row blocks, each passed to `sums` with its
/// first block and `Σₓ rₓ`.
fn group_lines(
    prgs: &mut [Prg],
    leaves: &mut Vec<Block>,
    kg: usize,
    out: &mut [Block],
    mut sums: impl FnMut(usize, &[Block]),
) {
    let stride = out.len() / kg;
    let missing = (1 << kg) - prgs.len();
    for start in (0..stride).step_by(SUB_BLOCKS) {
        let n = SUB_BLOCKS.min(stride - start);
        leaves.resize(n << kg, Block::ZERO);
        let (zero, known) = leaves.split_at_mut(missing * n);
        zero.fill(Block::ZERO);
        for (prg, leaf) in prgs.iter_mut().zip(known.chunks_exact_mut(n)) {
            prg.fill_blocks(leaf);
        }
        // Halving: at step `l` the odd entries are the leaves (or sums of
        // leaves) with bit `l` set, and pairs are summed in place.
        for l in 0..kg {
            let line = &mut out[l * stride + start..l * stride + start + n];
            line.fill(Block::ZERO);
            for y in 0..1 << (kg - l - 1) {
                let (low, high) = leaves.split_at_mut((2 * y + 1) * n);
                for ((o, &r), j) in line.iter_mut().zip(&high[..n]).zip(0..) {
                    *o ^= r;
                    low[y * n + j] = low[2 * y * n + j] ^ r;
                }
            }
        }
        sums(start, &leaves[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_cover_the_128_bits_of_delta_once() {
        for k in 2..=8 {
            let w: Vec<_> = widths(k).collect();
            assert_eq!(w.len(), groups(k));
            let mut next = 0;
            for (offset, kg) in w {
                assert_eq!(offset, next);
                assert!((1..=k).contains(&kg));
                next += kg;
            }
            assert_eq!(next, LINES);
        }
    }
}
