//! Three-party arithmetic on 3-out-of-3 additive shares modulo 2^w.
//!
//! * **Zero sharings.** Each party `i` shares a key with the next party
//!   (`k_i`) and one with the previous (`k_{i−1}`); of each pair the party
//!   with the lower number draws the key and sends it at setup (CP1 both of
//!   its keys, CP2 `k_2`), and the other takes it before it first receives
//!   anything else from that party, so no party waits for a key before its
//!   first messages and CP1 never waits for one. Its share of a fresh
//!   sharing of zero is
//!   `F(k_i) − F(k_{i−1})`, `F` an AES-CTR stream drawn in step by both
//!   holders of a key: the three shares sum to zero, and each is uniform
//!   to every other single party, which lacks one of its two keys.
//! * **Replicated pairs.** Before a product, each party rerandomizes its
//!   share of a factor with a zero sharing and sends it to the previous
//!   party: party `i` then holds `(x_i, x_{i+1})`, the replicated form
//!   (ABY3-style, converted from additive shares at the edge).
//! * **Products.** `z_i = x_i·y_i + x_i·y_{i+1} + x_{i+1}·y_i + r_i`, `r`
//!   a zero sharing, gives additive shares of `x·y` with no message; a dot
//!   product sums its terms first, so it also costs only its factors'
//!   replication, once per factor value however many products read it.

use twofold_circuit::mixed::mask;
use twofold_crypto::{Block, Prg};
use twofold_net::Channel;

use crate::arith::packed::{recv, send, BitWriter};
use crate::error::ProtocolError;
use crate::hybrid::meet::Links;
use crate::messages::Labels;
use crate::options::Role;

/// The party after `role` in the ring CP1 → CP2 → CP3 → CP1.
pub(crate) fn next(role: Role) -> Role {
    match role {
        Role::Cp1 => Role::Cp2,
        Role::Cp2 => Role::Cp3,
        Role::Cp3 => Role::Cp1,
    }
}

/// The party before `role`.
pub(crate) fn prev(role: Role) -> Role {
    next(next(role))
}

/// One party's streams of zero sharings: the key it shares with the next
/// party and the one it shares with the previous party, each `None` until
/// taken from the party that drew it.
pub(crate) struct Zeros {
    with_next: Option<Prg>,
    with_prev: Option<Prg>,
}

impl Zeros {
    /// Draws the keys of the pairs in which `role` has the lower number
    /// and sends each to the other party of its pair (no wait).
    pub fn offer(role: Role, links: &mut Links) -> Result<Zeros, ProtocolError> {
        let mut draw = |peer: Role| -> Result<Option<Prg>, ProtocolError> {
            if peer < role {
                return Ok(None);
            }
            let key = Prg::try_from_os()?.random_block();
            Labels::send(&mut links.to(peer)[0], &[key])?;
            Ok(Some(Prg::from_seed(key)))
        };
        Ok(Zeros {
            with_next: draw(next(role))?,
            with_prev: draw(prev(role))?,
        })
    }

    /// Receives the keys the other parties drew ([`Zeros::offer`]); must
    /// come before anything else this party receives from them.
    pub fn accept(&mut self, role: Role, links: &mut Links) -> Result<(), ProtocolError> {
        for (peer, prg) in [
            (next(role), &mut self.with_next),
            (prev(role), &mut self.with_prev),
        ] {
            if prg.is_none() {
                let key = Labels::recv(&mut links.to(peer)[0], 1, "the zero-sharing key")?;
                *prg = Some(Prg::from_seed(key[0]));
            }
        }
        Ok(())
    }

    /// This party's share of a fresh sharing of zero, modulo 2^`bits`.
    pub fn zero(&mut self, bits: u32) -> u64 {
        let word = Self::word;
        word(&mut self.with_next).wrapping_sub(word(&mut self.with_prev)) & mask(bits)
    }

    /// This party's share of a fresh sharing of zero in which the key of
    /// `silent` and the party after it is not drawn, modulo 2^`bits`:
    /// `silent`'s share is `−F(k)` of its key with the party before it, so
    /// that party knows it and gets it as well (`None` elsewhere).
    pub fn zero_apart(&mut self, role: Role, silent: Role, bits: u32) -> (u64, Option<u64>) {
        let draw = |skip: bool, prg: &mut Option<Prg>| if skip { 0 } else { Self::word(prg) };
        let ours = draw(role == silent, &mut self.with_next);
        let theirs = draw(prev(role) == silent, &mut self.with_prev);
        let known = (next(role) == silent).then(|| ours.wrapping_neg() & mask(bits));
        (ours.wrapping_sub(theirs) & mask(bits), known)
    }

    /// The next 64 bits of a stream (accepted before the first draw).
    fn word(prg: &mut Option<Prg>) -> u64 {
        let prg = prg
            .as_mut()
            .expect("the keys are accepted before the first draw");
        let Block(b) = prg.random_block();
        b as u64
    }
}

/// Largest replication message every party sends before it receives: far
/// below what a socket buffers, so the ring of sends cannot block.
const SEND_FIRST_BYTES: usize = 16 << 10;

/// Sends each party's `words` (each with its width) to the previous party
/// and returns the next party's: the replication exchange. A small message
/// goes out at once from every party; with a larger one CP1 receives
/// before it sends, so the ring of messages cannot block on full buffers.
pub(crate) fn pass_back(
    role: Role,
    links: &mut Links,
    words: &[(u64, u32)],
) -> Result<Vec<u64>, ProtocolError> {
    let bits: usize = words.iter().map(|&(_, w)| w as usize).sum();
    if role == Role::Cp1 && bits.div_ceil(8) > SEND_FIRST_BYTES {
        let theirs = recv_words(role, links, words)?;
        send_words(role, links, words)?;
        Ok(theirs)
    } else {
        send_words(role, links, words)?;
        recv_words(role, links, words)
    }
}

/// The replication exchange of words `silent` holds no share of (its
/// share is 0): every party adds its share of a zero sharing without
/// `silent`'s key to the next party ([`Zeros::zero_apart`]) and sends
/// the result to the previous party, but `silent` sends nothing, as the
/// party before it knows its share. Returns each word's replicated pair
/// (`words`: this party's shares, `silent`'s being 0, and widths). The
/// messages form no ring, so none waits for another.
pub(crate) fn pass_apart(
    role: Role,
    links: &mut Links,
    zeros: &mut Zeros,
    silent: Role,
    words: &[(u64, u32)],
) -> Result<Vec<(u64, u64)>, ProtocolError> {
    let mut mine = Vec::with_capacity(words.len());
    let mut known = Vec::with_capacity(words.len());
    for &(word, w) in words {
        let (zero, next_share) = zeros.zero_apart(role, silent, w);
        mine.push((word.wrapping_add(zero) & mask(w), w));
        known.extend(next_share);
    }
    if role != silent {
        send_words(role, links, &mine)?;
    }
    let theirs = if next(role) == silent {
        known
    } else {
        recv_words(role, links, &mine)?
    };
    Ok(mine.iter().map(|&(share, _)| share).zip(theirs).collect())
}

/// Sends `words` (each of its width) to the party before `role`.
fn send_words(role: Role, links: &mut Links, words: &[(u64, u32)]) -> Result<(), ProtocolError> {
    let bits: usize = words.iter().map(|&(_, w)| w as usize).sum();
    let mut writer = BitWriter::with_bits(bits);
    for &(word, w) in words {
        writer.push(word, w);
    }
    let chan: &mut Channel = &mut links.to(prev(role))[0];
    send(chan, &writer.finish())?;
    Ok(chan.flush()?)
}

/// Receives from the party after `role` words of the widths of `words`.
fn recv_words(
    role: Role,
    links: &mut Links,
    words: &[(u64, u32)],
) -> Result<Vec<u64>, ProtocolError> {
    let bits: usize = words.iter().map(|&(_, w)| w as usize).sum();
    let chan = &mut links.to(next(role))[0];
    let mut reader = recv(chan, bits, "replicated shares")?;
    Ok(words.iter().map(|&(_, w)| reader.take(w)).collect())
}

/// This party's share of `Σ x·y` over replicated pairs `(x_i, x_{i+1})`,
/// before rerandomization, modulo 2^`bits`.
pub(crate) fn dot(pairs: impl Iterator<Item = ((u64, u64), (u64, u64))>, bits: u32) -> u64 {
    let sum = pairs.fold(0u64, |acc, ((x, xn), (y, yn))| {
        acc.wrapping_add(x.wrapping_mul(y))
            .wrapping_add(x.wrapping_mul(yn))
            .wrapping_add(xn.wrapping_mul(y))
    });
    sum & mask(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replicated_products_sum_to_the_product() {
        // Shares of x = 1000 and y = 77 modulo 2^16, and a zero sharing.
        let bits = 16;
        let x = [0x1234u64, 0xbeef, 0];
        let x2 = (1000u64.wrapping_sub(x[0]).wrapping_sub(x[1])) & mask(bits);
        let x = [x[0], x[1], x2];
        let y = [
            0x0101u64,
            0xffff,
            (77u64.wrapping_sub(0x0101 + 0xffff)) & mask(bits),
        ];
        let r = [5u64, 9, (0u64.wrapping_sub(14)) & mask(bits)];
        let mut total = 0u64;
        for i in 0..3 {
            let n = (i + 1) % 3;
            let z = dot(std::iter::once(((x[i], x[n]), (y[i], y[n]))), bits);
            total = total.wrapping_add(z).wrapping_add(r[i]);
        }
        assert_eq!(total & mask(bits), 77_000 & mask(bits));
        // One party's own term alone is not the product.
        assert_ne!(
            dot(std::iter::once(((x[0], 0), (y[0], 0))), bits),
            77_000 & mask(bits)
        );
    }

    #[test]
    fn zero_sharings_without_a_key_sum_to_zero_and_keep_the_streams_in_step() {
        // Party i holds k_i (with the next) and k_{i−1} (with the previous).
        let key = |i: u128| Some(Prg::from_seed(Block(i)));
        let mut zeros: Vec<Zeros> = (0..3u128)
            .map(|i| Zeros {
                with_next: key(i),
                with_prev: key((i + 2) % 3),
            })
            .collect();
        let bits = 40;
        for _ in 0..4 {
            let got: Vec<(u64, Option<u64>)> = Role::ALL
                .into_iter()
                .zip(&mut zeros)
                .map(|(role, z)| z.zero_apart(role, Role::Cp2, bits))
                .collect();
            let sum = got.iter().fold(0u64, |acc, &(s, _)| acc.wrapping_add(s));
            assert_eq!(sum & mask(bits), 0);
            // CP1 knows CP2's share, and no one else's is known.
            assert_eq!(got[0].1, Some(got[1].0));
            assert!(got[1].1.is_none() && got[2].1.is_none());
            assert_ne!(got[0].0, 0);
            // The ordinary sharings after it still sum to zero.
            let sum = zeros
                .iter_mut()
                .map(|z| z.zero(bits))
                .fold(0u64, u64::wrapping_add);
            assert_eq!(sum & mask(bits), 0);
        }
    }

    #[test]
    fn the_ring_runs_cp1_cp2_cp3() {
        for role in Role::ALL {
            assert_eq!(prev(next(role)), role);
            assert_ne!(next(role), role);
        }
        assert_eq!(next(Role::Cp3), Role::Cp1);
    }
}
