//! Bit injection without a garbled subtractor, for bits whose shares are
//! needed modulo small powers of two (the wrap counts of widened lanes).
//! CP1 masks each garbled bit `b` with a bit `r` that CP3 draws alike
//! (their common stream) and opens `z = b ⊕ r` to CP2. Then
//! `b = z + r − 2·z·r`, and `z·r = u·r + v·r` for a word `u` that CP1 and
//! CP2 draw alike and `v = z − u`, which CP2 sends CP3. The shares are
//! CP1's `r − 2·u·r`, CP2's `z` and CP3's `−2·v·r`. CP2 sees `z`, masked by
//! `r`; CP3 sees `v`, masked by `u`; CP1 sees nothing. A bit costs its
//! mask's label and decoding bit and one word to CP3, where a garbled
//! subtractor costs a label and an AND gate per bit of the word.

use twofold_circuit::mixed::mask;

use super::{Exec, MaskPart, Role, Src};
use crate::arith::packed::{recv, send, BitWriter};
use crate::error::ProtocolError;
use crate::mixed3::garbled::Garbled;
use crate::options::ShareKind;

impl<G: Garbled> Exec<'_, G> {
    /// This party's additive shares of garbled bits, each modulo
    /// 2^(its `u32`), before rerandomization.
    pub(super) fn inject(&mut self, bits: Vec<(G::Label, u32)>) -> Result<Vec<u64>, ProtocolError> {
        if bits.is_empty() {
            return Ok(Vec::new());
        }
        let n = bits.len();
        // The common draws, in the same order on both holders of a stream.
        let zeros = &mut self.zeros;
        let (r, u): (Vec<u64>, Vec<u64>) = match self.role {
            Role::Cp1 => (
                (0..n).map(|_| zeros.common_with_prev(1)).collect(),
                bits.iter()
                    .map(|&(_, k)| zeros.common_with_next(k))
                    .collect(),
            ),
            Role::Cp2 => (
                Vec::new(),
                bits.iter()
                    .map(|&(_, k)| zeros.common_with_prev(k))
                    .collect(),
            ),
            Role::Cp3 => (
                (0..n).map(|_| zeros.common_with_next(1)).collect(),
                Vec::new(),
            ),
        };
        let parts: Vec<MaskPart<G::Label>> = bits
            .iter()
            .map(|&(label, _)| MaskPart {
                kind: ShareKind::Xor,
                lane: 1,
                bits: vec![Src::Wire(label)],
            })
            .collect();
        let masks = match self.role {
            Role::Cp1 => r.iter().map(|&r| r == 1).collect(),
            Role::Cp2 => Vec::new(),
            Role::Cp3 => vec![false; n],
        };
        let opened = self.masked_with(&parts, false, masks)?;
        let twice = |x: u64, r: u64| x.wrapping_mul(r).wrapping_mul(2);
        let moduli = bits.iter().map(|&(_, k)| k);
        match self.role {
            Role::Cp1 => Ok(r
                .iter()
                .zip(&u)
                .zip(moduli)
                .map(|((&r, &u), k)| r.wrapping_sub(twice(u, r)) & mask(k))
                .collect()),
            Role::Cp2 => {
                let z: Vec<u64> = opened.iter().map(|bits| bits[0] as u64).collect();
                let total = bits.iter().map(|&(_, k)| k as usize).sum();
                let mut writer = BitWriter::with_bits(total);
                for ((&z, &u), k) in z.iter().zip(&u).zip(moduli) {
                    writer.push(z.wrapping_sub(u) & mask(k), k);
                }
                let chan = &mut self.links.to(Role::Cp3)[0];
                send(chan, &writer.finish())?;
                chan.flush()?;
                Ok(z)
            }
            Role::Cp3 => {
                let total = bits.iter().map(|&(_, k)| k as usize).sum();
                let chan = &mut self.links.to(Role::Cp2)[0];
                let mut reader = recv(chan, total, "CP2's masked bits")?;
                Ok(r.iter()
                    .zip(moduli)
                    .map(|(&r, k)| 0u64.wrapping_sub(twice(reader.take(k), r)) & mask(k))
                    .collect())
            }
        }
    }
}
