//! The ring Z_2^w of arithmetic shares: words of `w` bits (1 ≤ w ≤ 64) held
//! in a `u64`, every operation wrapping and masked to `w` bits.
//!
//! A value `x` is shared as `x = x_A + x_B mod 2^w`; each party holds one
//! share. Addition, subtraction, negation and multiplication by a public
//! constant act on the shares alone (no message); [`own_input`] and
//! [`peer_input`] are the shares of a value one party knows.

use twofold_circuit::Party;
use twofold_crypto::Prg;

use crate::error::ProtocolError;

/// The width `w` of a ring Z_2^w, 1 to 64 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Width(u32);

impl Width {
    /// 8-bit words.
    pub const W8: Width = Width(8);
    /// 16-bit words.
    pub const W16: Width = Width(16);
    /// 32-bit words.
    pub const W32: Width = Width(32);
    /// 64-bit words.
    pub const W64: Width = Width(64);

    /// The ring of `bits`-bit words (1 to 64).
    pub fn new(bits: u32) -> Result<Width, ProtocolError> {
        if (1..=64).contains(&bits) {
            Ok(Width(bits))
        } else {
            Err(ProtocolError::Inputs(format!(
                "an arithmetic word has 1 to 64 bits, not {bits}"
            )))
        }
    }

    /// Bits of a word.
    pub fn bits(self) -> u32 {
        self.0
    }

    /// The low `w` bits set.
    pub fn mask(self) -> u64 {
        mask(self.0)
    }

    /// `x` reduced modulo 2^w.
    pub fn reduce(self, x: u64) -> u64 {
        x & self.mask()
    }

    /// `x + y mod 2^w`.
    pub fn add(self, x: u64, y: u64) -> u64 {
        x.wrapping_add(y) & self.mask()
    }

    /// `x − y mod 2^w`.
    pub fn sub(self, x: u64, y: u64) -> u64 {
        x.wrapping_sub(y) & self.mask()
    }

    /// `−x mod 2^w`.
    pub fn neg(self, x: u64) -> u64 {
        x.wrapping_neg() & self.mask()
    }

    /// `x · y mod 2^w` (a share times a public constant, or two values in
    /// the clear).
    pub fn mul(self, x: u64, y: u64) -> u64 {
        x.wrapping_mul(y) & self.mask()
    }

    /// `Σ xᵢ·yᵢ mod 2^w` of two public vectors (the plaintext of a dot
    /// product; also a share vector times a public vector).
    pub fn dot(self, x: &[u64], y: &[u64]) -> u64 {
        x.iter()
            .zip(y)
            .fold(0u64, |acc, (&a, &b)| acc.wrapping_add(a.wrapping_mul(b)))
            & self.mask()
    }

    /// Bytes a word of this width takes on the wire, packed (`w / 8`,
    /// rounded up).
    pub fn bytes(self) -> usize {
        self.0.div_ceil(8) as usize
    }
}

impl std::fmt::Display for Width {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Z_2^{}", self.0)
    }
}

/// The low `bits` bits set (`bits` ≤ 64).
pub(crate) fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// A uniformly random word of ring `width`.
pub(crate) fn random_word(prg: &mut Prg, width: Width) -> u64 {
    let mut bytes = [0u8; 8];
    prg.fill_bytes(&mut bytes);
    width.reduce(u64::from_le_bytes(bytes))
}

/// This party's share of its own input `x`: `x` itself (the peer's share
/// is [`peer_input`], so no message is needed).
pub fn own_input(width: Width, x: u64) -> u64 {
    width.reduce(x)
}

/// This party's share of an input the peer holds: 0.
pub fn peer_input() -> u64 {
    0
}

/// This party's share of a public constant `c`: `c` for party A, 0 for
/// party B (the shares add up to `c`).
pub fn constant(width: Width, c: u64, party: Party) -> u64 {
    match party {
        Party::A => width.reduce(c),
        Party::B => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_wrap_modulo_the_width() {
        let w = Width::new(8).unwrap();
        assert_eq!(w.add(200, 100), 44);
        assert_eq!(w.sub(3, 5), 254);
        assert_eq!(w.neg(1), 255);
        assert_eq!(w.mul(16, 17), 16);
        assert_eq!(w.dot(&[255, 2], &[255, 3]), 7);
        let w = Width::W64;
        assert_eq!(w.add(u64::MAX, 2), 1);
        assert_eq!(w.mask(), u64::MAX);
        assert_eq!(Width::new(13).unwrap().bytes(), 2);
        assert!(Width::new(0).is_err() && Width::new(65).is_err());
    }
}
