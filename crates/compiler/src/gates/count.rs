//! Counting bits: how many are set, and where the first set bit is from
//! either end of a word (GCC's `__builtin_popcount`, `__builtin_ctz`,
//! `__builtin_clz`, `__builtin_ffs`).

use twofold_circuit::{Bit, Builder};

use super::{konst, Bits, Range, Sum};

/// How many of `x`'s bits are set, as a `w`-bit word, and its range: the
/// bits summed in columns by full adders (`n − popcount(n)` AND gates for
/// `n` bits, the fewest known).
pub fn popcount(b: &mut Builder, x: &[Bit], w: usize) -> (Bits, Range) {
    let mut s = Sum::new(w);
    for &bit in x {
        s.add_ranged(b, &[bit, Bit::Const(false)], false, Some(Range::new(0, 1)));
    }
    s.finish_ranged(b)
}

/// Where the first set bit of `bits` is, in their order, plus `offset`, or
/// `if_none` when no bit is set: a `w`-bit word and its range. One AND
/// gate a bit: whether every bit so far is zero is a running AND, the
/// first set bit is where that changes (an XOR), and as that is one-hot,
/// each bit of its position is an XOR of the places that have it.
pub fn first_set(
    b: &mut Builder,
    bits: impl Iterator<Item = Bit>,
    offset: u64,
    if_none: u64,
    w: usize,
) -> (Bits, Range) {
    let mut out = konst(0, w);
    let mut all_zero = Bit::Const(true);
    let mut last = offset;
    for (i, bit) in bits.enumerate() {
        let zero = b.not(bit);
        let still = b.and(all_zero, zero);
        let first_here = b.xor(all_zero, still);
        let at = offset + i as u64;
        for (k, o) in out.iter_mut().enumerate().take(64) {
            if at >> k & 1 == 1 {
                *o = b.xor(*o, first_here);
            }
        }
        (all_zero, last) = (still, at);
    }
    for (k, o) in out.iter_mut().enumerate().take(64) {
        if if_none >> k & 1 == 1 {
            *o = b.xor(*o, all_zero);
        }
    }
    let r = Range::new(offset.min(if_none).into(), last.max(if_none).into());
    (out, r)
}
