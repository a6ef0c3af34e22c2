//! How values are compared for kept loops: a slot's shape (its structure,
//! ranges and constant bits, each wire named by where it first appears),
//! and whether a slot has a given shape once its ranges are relaxed.

use twofold_circuit::{Bit, Wire};

use super::sum::RowKind;
use super::{Slot, Word};
use crate::gates::{self, Bits, Range, Widening};

/// An encoding compared with `want` as it is made (see
/// [`Slot::relaxed_shape_is`]).
struct Compare<'a> {
    want: &'a [i128],
    /// How much has been compared.
    at: usize,
    /// Whether all of it was the same.
    same: bool,
}

impl Extend<i128> for Compare<'_> {
    fn extend<I: IntoIterator<Item = i128>>(&mut self, items: I) {
        for v in items {
            self.same &= self.want.get(self.at) == Some(&v);
            self.at += 1;
        }
    }
}

/// [`Slot::relaxed_shape_is`] for a word of `bits` in range `r`, in one
/// pass, if its wires increase (as a word's bits mostly do; the k-th wire
/// is then named k); `None` if they do not, and the general comparison
/// must tell.
fn plain_shape_is(bits: &[Bit], r: Range, how: Widening, want: &[i128]) -> Option<bool> {
    // A word's encoding: its kind, range and width, then its bits.
    let n = bits.len();
    if want.len() != n + 4 || want[0] != 1 || want[3] != n as i128 {
        return Some(false);
    }
    let (mut wires, mut last) = (0i128, None);
    for (&b, &code) in bits.iter().zip(&want[4..]) {
        let mine = match b {
            Bit::Const(v) => -1 - v as i128,
            Bit::Wire(w) if last.is_none_or(|l| w > l) => {
                last = Some(w);
                wires += 1;
                wires - 1
            }
            Bit::Wire(_) => return None,
        };
        if mine != code {
            return Some(false);
        }
    }
    // Distinct wires, no constant: all `n`-bit values, without reading the
    // bits again.
    let relaxed = if wires == n as i128 && n < 127 {
        gates::bucket_in(r, Range::new(0, (1 << n) - 1), how)
    } else {
        gates::bucket(r, bits, how)
    };
    Some(relaxed.lo == want[1] && relaxed.hi == want[2])
}

/// How the bits of a value appear when its structure is encoded (see
/// [`Slot::encode`]): a constant, or a wire named by the caller.
fn encode_bit(b: Bit, out: &mut impl Extend<i128>, wire: &mut impl FnMut(Wire) -> i128) {
    match b {
        Bit::Const(v) => out.extend([-1 - v as i128]),
        Bit::Wire(w) => out.extend([wire(w)]),
    }
}

fn encode_bits(bits: &[Bit], out: &mut impl Extend<i128>, wire: &mut impl FnMut(Wire) -> i128) {
    out.extend([bits.len() as i128]);
    for &b in bits {
        encode_bit(b, out, wire);
    }
}

impl Word {
    /// Encodes the value's structure — kind, widths, ranges, rows and
    /// constant bits — with wires named by `wire` and the range `r` of
    /// each word `x` written as `range(r, x)` (the encoding of the value
    /// with its ranges so replaced, without making that value).
    fn encode_ranged(
        &self,
        out: &mut impl Extend<i128>,
        wire: &mut impl FnMut(Wire) -> i128,
        range: &mut impl FnMut(Range, &Bits) -> Range,
    ) {
        fn word(
            out: &mut impl Extend<i128>,
            kind: i128,
            (bits, r): (&Bits, Range),
            wire: &mut impl FnMut(Wire) -> i128,
            range: &mut impl FnMut(Range, &Bits) -> Range,
        ) {
            let r = range(r, bits);
            out.extend([kind, r.lo, r.hi]);
            encode_bits(bits, out, wire);
        }
        match self {
            Word::Const { v, w } => out.extend([0, *v as i128, *w as i128]),
            Word::Bits(bits, r) => word(out, 1, (bits, *r), wire, range),
            Word::Sum(l) => {
                let cached = l.cache.borrow().clone();
                if let Some((bits, r)) = cached {
                    return word(out, 1, (&bits, r), wire, range);
                }
                out.extend([2, l.w as i128, l.rows.len() as i128]);
                for row in &l.rows {
                    out.extend([row.neg as i128]);
                    match &row.kind {
                        RowKind::Word(x, r) => word(out, 0, (x, *r), wire, range),
                        RowKind::Product((x, rx), (y, ry)) => {
                            let (rx, ry) = (range(*rx, x), range(*ry, y));
                            out.extend([1, rx.lo, rx.hi, ry.lo, ry.hi]);
                            encode_bits(x, out, wire);
                            encode_bits(y, out, wire);
                        }
                    }
                }
            }
        }
    }
}

impl Slot {
    /// Encodes the slot's structure (a word's kind, widths, ranges, rows and
    /// constant bits; a pointer's object, position and index terms) with
    /// wires named by `wire`.
    pub fn encode(&self, out: &mut Vec<i128>, wire: &mut impl FnMut(Wire) -> i128) {
        self.encode_ranged(out, wire, &mut |r, _| r);
    }

    /// [`Slot::encode`] with its value's ranges replaced (see
    /// [`Word::encode_ranged`]).
    fn encode_ranged(
        &self,
        out: &mut impl Extend<i128>,
        wire: &mut impl FnMut(Wire) -> i128,
        range: &mut impl FnMut(Range, &Bits) -> Range,
    ) {
        match self {
            Slot::Val(w) => w.encode_ranged(out, wire, range),
            Slot::Ptr(p) => {
                out.extend([3, p.obj as i128, p.leaf as i128, p.sec.len() as i128]);
                for s in &p.sec {
                    out.extend([s.stride as i128, s.count as i128]);
                    encode_bits(&s.idx, out, wire);
                }
            }
        }
    }

    /// Whether the slot, relaxed (see [`Slot::relaxed`]), has shape
    /// `want`; `seen` is scratch space reused between calls.
    pub fn relaxed_shape_is(&self, how: Widening, want: &[i128], seen: &mut Vec<Wire>) -> bool {
        if let Slot::Val(Word::Bits(bits, r)) = self {
            if let Some(same) = plain_shape_is(bits, *r, how, want) {
                return same;
            }
        }
        seen.clear();
        // A wire above every one seen is new (a word's bits are mostly
        // increasing wires): only the others are looked up.
        let mut highest = None;
        let mut wire = |w| {
            let new = highest.is_none_or(|h| w > h);
            let found = if new {
                None
            } else {
                seen.iter().position(|&s| s == w)
            };
            match found {
                Some(i) => i as i128,
                None => {
                    highest = highest.max(Some(w));
                    seen.push(w);
                    seen.len() as i128 - 1
                }
            }
        };
        // The relaxed slot's encoding, compared as it is made, without
        // making the relaxed slot or the encoding.
        let mut compare = Compare {
            want,
            at: 0,
            same: true,
        };
        self.encode_ranged(&mut compare, &mut wire, &mut |r, x| {
            gates::bucket(r, x, how)
        });
        compare.same && compare.at == want.len()
    }

    /// The slot's shape: its structure with each wire named by where it
    /// first appears in the slot. Two slots of the same shape make the
    /// lowering do the same, up to which wires it reads.
    pub fn shape(&self) -> Vec<i128> {
        let mut seen: Vec<Wire> = Vec::new();
        let mut out = Vec::new();
        self.encode(&mut out, &mut |w| match seen.iter().position(|&s| s == w) {
            Some(i) => i as i128,
            None => {
                seen.push(w);
                seen.len() as i128 - 1
            }
        });
        out
    }
}
