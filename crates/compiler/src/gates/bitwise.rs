//! Bitwise operations and multiplexers on words.

use twofold_circuit::{Bit, Builder};

use super::Bits;

/// Bitwise AND.
pub fn and(b: &mut Builder, x: &[Bit], y: &[Bit]) -> Bits {
    x.iter().zip(y).map(|(&p, &q)| b.and(p, q)).collect()
}

/// Bitwise OR.
pub fn or(b: &mut Builder, x: &[Bit], y: &[Bit]) -> Bits {
    x.iter().zip(y).map(|(&p, &q)| b.or(p, q)).collect()
}

/// Bitwise XOR.
pub fn xor(b: &mut Builder, x: &[Bit], y: &[Bit]) -> Bits {
    x.iter().zip(y).map(|(&p, &q)| b.xor(p, q)).collect()
}

/// Bitwise NOT.
pub fn not(b: &mut Builder, x: &[Bit]) -> Bits {
    x.iter().map(|&p| b.not(p)).collect()
}

/// `sel ? t : f`, bit by bit (one AND per differing bit).
pub fn mux(b: &mut Builder, sel: Bit, t: &[Bit], f: &[Bit]) -> Bits {
    t.iter().zip(f).map(|(&p, &q)| b.mux(sel, p, q)).collect()
}
