//! How values are compared for kept loops: a slot's shape (its structure,
//! ranges and constant bits, each wire named by where it first appears),
//! and whether a slot has a given shape once its ranges are relaxed.

use rustc_hash::FxHashMap as HashMap;
use twofold_circuit::{Bit, Wire};

use super::sum::RowKind;
use super::{Slot, Word};
use crate::gates::{self, Range, Widening};

/// Names wires by the order they first appear in (0, 1, ...), as shapes
/// do. A wire above every one seen is new (a word's bits are mostly
/// increasing wires); the others are looked up, in a hash map once many
/// have been seen (a sum of many rows names thousands).
#[derive(Debug, Default)]
pub struct WireNames {
    seen: Vec<Wire>,
    /// The names of `seen`'s first wires, once they are many.
    index: HashMap<Wire, usize>,
    highest: Option<Wire>,
}

/// How many wires [`WireNames`] looks up by scanning.
const SCANNED_NAMES: usize = 16;

impl WireNames {
    /// Forgets every wire named.
    pub fn clear(&mut self) {
        self.seen.clear();
        self.index.clear();
        self.highest = None;
    }

    /// `w`'s name (a new one if it has none).
    fn name(&mut self, w: Wire) -> usize {
        if self.highest.is_none_or(|h| w > h) {
            self.highest = Some(w);
        } else if self.seen.len() <= SCANNED_NAMES {
            if let Some(i) = self.seen.iter().position(|&s| s == w) {
                return i;
            }
        } else {
            for (i, &s) in self.seen.iter().enumerate().skip(self.index.len()) {
                self.index.entry(s).or_insert(i);
            }
            if let Some(&i) = self.index.get(&w) {
                return i;
            }
        }
        self.seen.push(w);
        self.seen.len() - 1
    }
}

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
fn plain_shape_is(
    bits: &[Bit],
    r: Range,
    how: Widening,
    want: &[i128],
    distinct: bool,
) -> Option<bool> {
    // A word's encoding: its kind, range and width, then its bits.
    let n = bits.len();
    if want.len() != n + 4 || want[0] != 1 || want[3] != n as i128 {
        return Some(false);
    }
    if distinct {
        // The codes are 0, 1, ...: the bits must be new wires, one after
        // the other (increasing, or the general comparison tells).
        let mut least = 0u64;
        for &b in bits {
            let Bit::Wire(w) = b else {
                return Some(false);
            };
            if u64::from(w) < least {
                return None;
            }
            least = u64::from(w) + 1;
        }
        return Some(relaxed_word_range(bits, r, how) == (want[1], want[2]));
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
    let distinct = wires == n as i128;
    let relaxed = if distinct {
        relaxed_word_range(bits, r, how)
    } else {
        let relaxed = gates::bucket(r, bits, how);
        (relaxed.lo, relaxed.hi)
    };
    Some(relaxed == (want[1], want[2]))
}

/// The relaxed range of a word of distinct wires `bits` in range `r`:
/// bucketed among all values of its width, without reading the bits again.
fn relaxed_word_range(bits: &[Bit], r: Range, how: Widening) -> (i128, i128) {
    let relaxed = match gates::distinct_wires_range(bits.len()) {
        Some(all) => gates::bucket_in(r, all, bits.len() as u32, how),
        None => gates::bucket(r, bits, how),
    };
    (relaxed.lo, relaxed.hi)
}

/// Whether `want` is the shape of a word of distinct wires (each bit a new
/// one, named 0, 1, ... in order): what most observations are, and what
/// [`Slot::relaxed_shape_is`] then checks without reading the bits' codes.
pub(crate) fn is_distinct_word(want: &[i128]) -> bool {
    want.len() >= 4
        && want[0] == 1
        && want[3] == want.len() as i128 - 4
        && want[4..].iter().zip(0..).all(|(&c, k)| c == k)
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
        range: &mut impl FnMut(Range, &[Bit]) -> Range,
    ) {
        fn word(
            out: &mut impl Extend<i128>,
            kind: i128,
            (bits, r): (&[Bit], Range),
            wire: &mut impl FnMut(Wire) -> i128,
            range: &mut impl FnMut(Range, &[Bit]) -> Range,
        ) {
            let r = range(r, bits);
            out.extend([kind, r.lo, r.hi]);
            encode_bits(bits, out, wire);
        }
        match self {
            Word::Const { v, w } => out.extend([0, *v as i128, *w as i128]),
            Word::Bits(bits, r) => word(out, 1, (bits, *r), wire, range),
            Word::Sum(l) => {
                if let Some((bits, r)) = l.reduced_bits() {
                    return word(out, 1, (&bits, r), wire, range);
                }
                out.extend([2, l.w as i128, l.row_count() as i128]);
                for row in l.rows().iter() {
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
        range: &mut impl FnMut(Range, &[Bit]) -> Range,
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
    /// `want`, given whether that is a word of distinct wires (see
    /// [`is_distinct_word`]); `seen` is scratch space reused between calls.
    pub fn relaxed_shape_is(
        &self,
        how: Widening,
        (want, distinct): (&[i128], bool),
        names: &mut WireNames,
    ) -> bool {
        match self {
            Slot::Val(Word::Bits(bits, r)) => {
                if let Some(same) = plain_shape_is(bits, *r, how, want, distinct) {
                    return same;
                }
            }
            // (A public value's encoding: see `Word::encode_ranged`.)
            Slot::Val(Word::Const { v, w }) => return want == [0, *v as i128, *w as i128],
            _ => {}
        }
        names.clear();
        let mut wire = |w| names.name(w) as i128;
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
        let mut names = WireNames::default();
        let mut out = Vec::new();
        self.encode(&mut out, &mut |w| names.name(w) as i128);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use std::rc::Rc;

    /// A random word: constants, increasing wires and repeated ones.
    fn word(rng: &mut impl Rng, n: usize) -> Slot {
        let mut next: Wire = 10;
        let bits: Vec<Bit> = (0..n)
            .map(|_| match rng.gen_range(0..10) {
                0 => Bit::Const(rng.gen()),
                1 => Bit::Wire(10),
                2 => Bit::Wire(next.saturating_sub(2)),
                _ => {
                    next += rng.gen_range(1..4);
                    Bit::Wire(next)
                }
            })
            .collect();
        let range = gates::value_range(&bits);
        Slot::Val(Word::Bits(Rc::from(bits), range))
    }

    /// Telling a shape of distinct wires as such changes no answer: words
    /// of every kind against the shapes of others, in every widening.
    #[test]
    fn the_distinct_word_check_agrees_with_the_general_one() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let mut names = WireNames::default();
        let (mut distinct, mut same) = (0, 0);
        for _ in 0..4000 {
            let n = rng.gen_range(1..40);
            let (a, b) = (word(&mut rng, n), word(&mut rng, n));
            let want = b.relaxed(Widening::Fine).shape();
            let flag = is_distinct_word(&want);
            distinct += usize::from(flag);
            for how in [Widening::Fine, Widening::Wide, Widening::Bits] {
                let told = a.relaxed_shape_is(how, (&want, flag), &mut names);
                let general = a.relaxed_shape_is(how, (&want, false), &mut names);
                assert_eq!(told, general, "{a:?} against {want:?}, {how:?}");
                same += usize::from(told);
            }
        }
        assert!(
            distinct > 100 && same > 100,
            "{distinct} distinct, {same} same"
        );
    }
}
