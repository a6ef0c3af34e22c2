//! IKNP (Ishai–Kilian–Nissim–Petrank) OT extension, the chunk step of
//! [`Extension::Iknp`](crate::Extension::Iknp).
//!
//! Setup runs 128 base OTs with the roles swapped: the extension receiver
//! is the base-OT sender of random seed pairs `(k⁰ᵢ, k¹ᵢ)`, the extension
//! sender is the base-OT receiver with the bits `sᵢ` of Δ as choices and
//! learns `k^{sᵢ}ᵢ`. Each seed keys an AES-CTR [`Prg`] that is never reset.
//!
//! A chunk of `m` rows (a multiple of 128):
//!
//! * the receiver expands `tᵢ = G(k⁰ᵢ)` and sends `uᵢ = tᵢ ⊕ G(k¹ᵢ) ⊕ b`;
//! * the sender computes `qᵢ = G(k^{sᵢ}ᵢ) ⊕ sᵢ·uᵢ = tᵢ ⊕ sᵢ·b`;
//! * transposing, row `j` gives the sender `qⱼ = tⱼ ⊕ bⱼ·Δ`, and the
//!   receiver `tⱼ`. So `K0ⱼ = qⱼ` and the receiver holds `K0ⱼ ⊕ bⱼ·Δ`.

use twofold_crypto::{blocks_as_bytes, blocks_as_bytes_mut, Block, Prg};
use twofold_net::Transport;
use zeroize::Zeroizing;

use crate::base::{base_receive, base_send};
use crate::error::Result;
use crate::transpose::LINES;

/// The sender's state: one PRG per line, keyed by `k^{sᵢ}ᵢ`.
pub(crate) struct IknpSender {
    prgs: Vec<Prg>,
}

/// The receiver's state: one pair of PRGs per line, keyed by `(k⁰ᵢ, k¹ᵢ)`.
pub(crate) struct IknpReceiver {
    prgs: Vec<(Prg, Prg)>,
}

impl IknpSender {
    /// Base OTs as receiver with the bits of Δ as choices.
    pub(crate) fn setup(chan: &mut impl Transport, delta: u128, base_sid: &[u8]) -> Result<Self> {
        let choices: Zeroizing<Vec<bool>> =
            Zeroizing::new((0..LINES).map(|i| (delta >> i) & 1 == 1).collect());
        let seeds = Zeroizing::new(base_receive(chan, &choices, base_sid)?);
        Ok(IknpSender {
            prgs: seeds.iter().map(|&seed| Prg::from_seed(seed)).collect(),
        })
    }

    /// One chunk: from the receiver's 128 lines `u`, writes the lines `q`.
    pub(crate) fn chunk(&mut self, delta: u128, u: &[Block], q: &mut [Block]) {
        let stride = u.len() / LINES * 16;
        let lines = blocks_as_bytes_mut(q)
            .chunks_exact_mut(stride)
            .zip(blocks_as_bytes(u).chunks_exact(stride));
        for (i, (prg, (q, u))) in self.prgs.iter_mut().zip(lines).enumerate() {
            prg.fill_bytes(q);
            // sᵢ·uᵢ without branching on the secret bit sᵢ.
            let mask = 0u8.wrapping_sub(((delta >> i) & 1) as u8);
            for (q, u) in q.iter_mut().zip(u) {
                *q ^= u & mask;
            }
        }
    }
}

impl IknpReceiver {
    /// Base OTs as sender of random seed pairs.
    pub(crate) fn setup(chan: &mut impl Transport, base_sid: &[u8]) -> Result<Self> {
        let seeds = Zeroizing::new(base_send(chan, LINES, base_sid)?);
        Ok(IknpReceiver {
            prgs: seeds
                .iter()
                .map(|&(k0, k1)| (Prg::from_seed(k0), Prg::from_seed(k1)))
                .collect(),
        })
    }

    /// One chunk: for the packed choice bits `bits` (one line), writes the
    /// lines `t` and the lines `u` to send.
    pub(crate) fn chunk(&mut self, bits: &[Block], t: &mut [Block], u: &mut [Block]) {
        let stride = bits.len() * 16;
        let bits = blocks_as_bytes(bits);
        let lines = blocks_as_bytes_mut(t)
            .chunks_exact_mut(stride)
            .zip(blocks_as_bytes_mut(u).chunks_exact_mut(stride));
        for ((prg0, prg1), (t, u)) in self.prgs.iter_mut().zip(lines) {
            prg0.fill_bytes(t);
            prg1.fill_bytes(u);
            for ((u, t), b) in u.iter_mut().zip(t.iter()).zip(bits) {
                *u ^= t ^ b;
            }
        }
    }
}
