//! Ranges of words: narrowing a word to the bits its range needs, and the
//! widened ranges (buckets) a kept loop's template reads.

use twofold_circuit::Bit;

use super::{bitlen, extend, value_range, Bits, Range};

/// The widest words (C's integer types up to 64 bits) that ranges narrow
/// and whose sums are reduced to their range's bits: a range's `i128`
/// bounds saturate near `2^126`, so they do not bound the values of
/// 128-bit integers, which keep all their bits.
pub const WIDEST_RANGED: usize = 64;

/// Buckets per power of two, as a shift: `2^BUCKET_SHIFT` of them.
const BUCKET_SHIFT: usize = 3;

/// How far a kept loop's template widens the ranges it reads (so that
/// iterations whose ranges differ within the widened ones match).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Widening {
    /// Not at all: a template for iterations whose ranges are the same (a
    /// loop whose every iteration is probed, where a wider range would
    /// cost AND gates the iterations' own do not).
    Exact,
    /// Each bound rounded outwards to a multiple of an eighth of the
    /// largest power of two the bits allow: values whose ranges grow a
    /// little at a time (a DP row) share buckets for a while, and a bucket
    /// leaves room above its values, so adding a little to them does not
    /// need a bit more.
    Fine,
    /// Each bound rounded outwards to the next `±7·2^m`: few, wide buckets
    /// that still leave an eighth of their width of room below the next
    /// power of two.
    Wide,
    /// To all the bits allow.
    Bits,
}

/// The range `r` of a value with bits `x`, widened as `how` says (never
/// beyond what the bits allow).
pub fn bucket(r: Range, x: &[Bit], how: Widening) -> Range {
    bucket_in(r, value_range(x), x.len() as u32, how)
}

/// [`bucket`] for a value of `n` bits that allow the range `natural`
/// (known without reading them, as for a word of distinct wires); the
/// result stays in `r`'s window (see [`Range::meet_modulo`]).
pub fn bucket_in(r: Range, natural: Range, n: u32, how: Widening) -> Range {
    if how == Widening::Bits {
        return natural;
    }
    if how == Widening::Exact {
        return r.meet_modulo(natural, n);
    }
    if how == Widening::Wide {
        let up = |v: i128| {
            let mut b = 6i128;
            while b < v {
                b = b * 2 + 1;
            }
            b
        };
        let hi = if r.hi < 0 { r.hi } else { up(r.hi) };
        let lo = if r.lo >= 0 {
            r.lo.min(0)
        } else {
            -up(-r.lo - 1) - 1
        };
        return Range::new(lo, hi).meet_modulo(natural, n);
    }
    let span = natural.hi.max(-(natural.lo + 1)).max(1) as u128;
    // Buckets of `2^s` values (floor division by them is a shift).
    let s = bitlen(span).saturating_sub(BUCKET_SHIFT);
    let hi = (((r.hi >> s) + 1) << s) - 1;
    let lo = (r.lo >> s) << s;
    Range::new(lo, hi).meet_modulo(natural, n)
}

/// The word with the bits above what `r` needs replaced by the extension
/// of the rest (a value known to lie in `r` needs no more bits).
pub fn narrow(x: &[Bit], r: Range) -> Bits {
    let w = x.len();
    let (signed, need) = needed_bits(r);
    if need >= w || w > WIDEST_RANGED {
        return x.to_vec();
    }
    extend(&x[..need], w, signed)
}

/// Whether [`narrow`] changes a word of `w` bits in range `r`.
pub fn narrows(w: usize, r: Range) -> bool {
    needed_bits(r).1 < w
}

/// Whether every value of range `r` fits `w` bits (signed, if some are
/// negative).
pub fn fits(w: usize, r: Range) -> bool {
    needed_bits(r).1 <= w
}

/// Whether values of range `r` are signed, and the bits they need.
fn needed_bits(r: Range) -> (bool, usize) {
    if r.lo >= 0 {
        (false, bitlen(r.hi.max(0) as u128))
    } else {
        (
            true,
            bitlen(r.hi.max(0) as u128).max(bitlen((-(r.lo + 1)) as u128)) + 1,
        )
    }
}
