//! Values during lowering: words (public constants or secret bits),
//! pointers into objects, and the slots objects are made of.

use std::rc::Rc;

use twofold_circuit::{Bit, Builder};

use crate::gates::{self, Bits, Range, Widening};
use crate::types::{CType, Scalar};

mod carry;
mod common;
mod shape;
pub use shape::WireNames;
mod sum;

pub(crate) use shape::is_distinct_word;
use sum::{reduce, secret_bits, RowKind, MAX_ROWS};
pub use sum::{Lazy, Row};

/// A word's bits, shared between the values that hold them (one
/// allocation, the bits beside the count).
pub type SharedBits = Rc<[Bit]>;

/// A scalar's bits: a public constant, secret (possibly partly constant)
/// bits, or a sum not yet reduced to bits. Always of a known width.
#[derive(Clone, Debug)]
pub enum Word {
    /// A public value (masked to the width).
    Const {
        /// The bits.
        v: u64,
        /// Width in bits.
        w: u32,
    },
    /// Secret bits, bit 0 first, and the range of their value (see
    /// [`gates::Range`]), which may be tighter than the bits show.
    Bits(SharedBits, Range),
    /// A sum of words and products modulo `2^w`, kept as rows until its
    /// bits are needed: then all rows are reduced together with full
    /// adders (carry-save), so accumulating many small values costs about
    /// one AND gate per bit added.
    Sum(Rc<Lazy>),
}

impl PartialEq for Word {
    fn eq(&self, other: &Word) -> bool {
        match (self, other) {
            (Word::Const { v, w }, Word::Const { v: v2, w: w2 }) => v == v2 && w == w2,
            (Word::Bits(a, ra), Word::Bits(b, rb)) => (Rc::ptr_eq(a, b) || a == b) && ra == rb,
            (Word::Sum(a), Word::Sum(b)) => Rc::ptr_eq(a, b) || (a.w == b.w && a.same_rows(b)),
            _ => false,
        }
    }
}

impl Eq for Word {}

impl Word {
    /// A public constant of width `w` (masked).
    pub fn konst(v: u64, w: u32) -> Word {
        let m = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
        Word::Const { v: v & m, w }
    }

    /// A public constant of width `w`, `v` modulo `2^w`: wider than 64
    /// bits, constant bits (a [`Word::Const`] holds at most 64).
    pub fn konst_wide(v: i128, w: u32) -> Word {
        match w {
            0..=64 => Word::konst(v as u64, w),
            _ => Word::from_bits(
                (0..w)
                    .map(|i| Bit::Const(v >> i.min(127) & 1 == 1))
                    .collect(),
            ),
        }
    }

    /// Wraps bits, folding them into a constant when they all are.
    pub fn from_bits(bits: Bits) -> Word {
        let r = gates::value_range(&bits);
        Word::from_bits_ranged(bits, r)
    }

    /// Wraps bits whose value is known to lie in `r`: the bits above what
    /// `r` needs become the extension of the others.
    pub fn from_bits_ranged(bits: Bits, r: Range) -> Word {
        let bits = gates::narrow(&bits, r);
        match gates::const_value(&bits) {
            Some(v) if bits.len() <= 64 => Word::Const {
                v,
                w: bits.len() as u32,
            },
            _ => {
                let natural = gates::value_range(&bits);
                let n = bits.len() as u32;
                Word::Bits(Rc::from(bits), r.meet_modulo(natural, n))
            }
        }
    }

    /// The range of the value (reducing a sum if its rows can wrap).
    pub fn range(&self, b: &mut Builder) -> Range {
        match self {
            Word::Const { v, w } => gates::value_range(&gates::konst(*v, *w as usize)),
            Word::Bits(_, r) => *r,
            Word::Sum(l) => l.resolve(b).1,
        }
    }

    /// Width in bits.
    pub fn width(&self) -> u32 {
        match self {
            Word::Const { w, .. } => *w,
            Word::Bits(b, _) => b.len() as u32,
            Word::Sum(l) => l.w,
        }
    }

    /// The bits (constants as constant bits; sums reduced).
    pub fn bits(&self, b: &mut Builder) -> Bits {
        match self {
            Word::Const { v, w } => gates::konst(*v, *w as usize),
            Word::Bits(x, _) => x.to_vec(),
            Word::Sum(l) => l.resolve(b).0.to_vec(),
        }
    }

    /// Bit 0 (of a constant, constant; of a sum, reduced), without copying
    /// the others.
    pub fn low_bit(&self, b: &mut Builder) -> Bit {
        match self {
            Word::Const { v, .. } => Bit::Const(v & 1 == 1),
            Word::Bits(x, _) => x[0],
            Word::Sum(l) => l.resolve(b).0[0],
        }
    }

    /// The bits, shared, and their range.
    fn shared_bits(&self, b: &mut Builder) -> (SharedBits, Range) {
        match self {
            Word::Bits(x, r) => (x.clone(), *r),
            Word::Sum(l) => l.resolve(b),
            c => {
                let r = c.range(b);
                (Rc::from(c.bits(b)), r)
            }
        }
    }

    /// A sum's bits, reduced anew (not the bits a reader may have made
    /// already, and not kept for later readers); `None` for other values.
    pub fn settled(&self, b: &mut Builder) -> Option<Word> {
        let Word::Sum(l) = self else {
            return None;
        };
        let (bits, r) = reduce(b, l.w, &l.rows());
        Some(Word::Bits(Rc::from(bits), r))
    }

    /// The value with a sum of words reduced to bits, once for all its
    /// readers (see `lower::reads`); other values, and sums with secret
    /// products (which a mixed compilation runs in arithmetic sharing),
    /// as they are.
    pub fn reduced_for_readers(&self, b: &mut Builder) -> Word {
        match self {
            Word::Sum(l) if sum::secret_products(&l.rows()) == 0 => {
                let (bits, r) = l.resolve(b);
                Word::Bits(bits, r)
            }
            w => w.clone(),
        }
    }

    /// The secret bits a value holds: a word's, or the sum of its rows'
    /// (a measure of what adding them to another sum costs).
    pub fn held_bits(&self) -> usize {
        match self {
            Word::Const { .. } => 0,
            Word::Bits(x, _) => secret_bits(x),
            Word::Sum(l) => l.rows().iter().map(Row::bits).sum(),
        }
    }

    /// The rows of a sum, 1 for bits, 0 for a constant.
    pub fn row_count(&self) -> usize {
        match self {
            Word::Const { .. } => 0,
            Word::Bits(..) => 1,
            Word::Sum(l) => l.row_count(),
        }
    }

    /// The public value, if any.
    pub fn as_const(&self) -> Option<u64> {
        match self {
            Word::Const { v, .. } => Some(*v),
            _ => None,
        }
    }

    /// The rows of this word as a sum: its own rows if it is a sum (or the
    /// reduced value, once reduced), else the word itself.
    fn rows(&self, b: &mut Builder) -> Vec<Row> {
        match self {
            Word::Sum(l) => match l.reduced_bits() {
                Some((c, r)) => vec![Row {
                    kind: RowKind::Word(c, r),
                    neg: false,
                }],
                None => l.rows().to_vec(),
            },
            w => {
                let (x, r) = w.shared_bits(b);
                vec![Row {
                    kind: RowKind::Word(x, r),
                    neg: false,
                }]
            }
        }
    }

    /// `self + y` (or `self - y`) modulo `2^width`, lazily.
    pub fn add(&self, b: &mut Builder, y: &Word, neg: bool) -> Word {
        let w = self.width();
        if let (Some(x), Some(z)) = (self.as_const(), y.as_const()) {
            // (Public values stay public: a count a loop made is a size.)
            let z = if neg { z.wrapping_neg() } else { z };
            return Word::konst(x.wrapping_add(z), w);
        }
        for x in [self, y] {
            if let Word::Sum(l) = x {
                // Reduce a long operand, or one whose rows another sum took
                // already (`t += m; m += x;`: else each sum adds them up
                // again, and their number grows every time), once: the
                // result is cached, and later sums share it.
                if l.row_count() >= MAX_ROWS || l.taken.replace(true) {
                    l.resolve(b);
                }
            }
        }
        let mut more = y.rows(b);
        if neg {
            for r in &mut more {
                r.neg = !r.neg;
            }
        }
        let copied = match y {
            Word::Sum(l) if !l.is_reduced() => Some((Rc::clone(l), more.len())),
            _ => None,
        };
        let sum = match self {
            Word::Sum(l) if !l.is_reduced() => l.append(w, more),
            _ => {
                let mut rows = self.rows(b);
                rows.extend(more);
                Lazy::word(w, rows)
            }
        };
        if let (Word::Sum(s), Some((from, len))) = (&sum, copied) {
            s.note_copied(&from, len, neg);
        }
        sum
    }

    /// `self · y` modulo `2^width`, lazily (its rows join later sums).
    pub fn mul(&self, b: &mut Builder, y: &Word) -> Word {
        let x = self.shared_bits(b);
        let y = y.shared_bits(b);
        Lazy::word(
            self.width(),
            vec![Row {
                kind: RowKind::Product(x, y),
                neg: false,
            }],
        )
    }

    /// Converts a value of type `from` to type `to` (C conversion rules).
    pub fn convert(&self, b: &mut Builder, from: Scalar, to: Scalar) -> Word {
        if from.float || to.float {
            let bits = self.bits(b);
            return Word::from_bits(gates::float::convert(b, &bits, from, to));
        }
        if to.width == 1 {
            return match self {
                Word::Const { v, .. } => Word::konst((*v != 0) as u64, 1),
                w => {
                    let bits = w.bits(b);
                    let nz = gates::nonzero(b, &bits);
                    Word::from_bits(vec![nz])
                }
            };
        }
        match self {
            Word::Const { v, .. } => Word::konst_wide(from.to_i128(*v), to.width),
            _ if self.width() == to.width => self.clone(),
            Word::Sum(l) if to.width < l.w && !l.is_reduced() => {
                // Truncation keeps the sum: it is computed modulo 2^to.width
                // (or is the wider sum's low bits once that is reduced).
                Lazy::truncation(l, to.width)
            }
            w => {
                let r = w.range(b);
                let bits = w.bits(b);
                let new = gates::extend(&bits, to.width as usize, from.signed);
                // The new value is congruent to the old one modulo 2^n (n the
                // smaller width) and lies in a window of at most 2^n values:
                // if the old range fits in that window, the value is the same.
                let window = gates::value_range(&new);
                if window.contains(&r) {
                    Word::from_bits_ranged(new, r)
                } else {
                    Word::from_bits(new)
                }
            }
        }
    }

    /// The single condition bit of a value: `value != 0`.
    pub fn truth(&self, b: &mut Builder) -> Bit {
        match self {
            Word::Const { v, .. } => Bit::Const(*v != 0),
            w => {
                let bits = w.bits(b);
                gates::nonzero(b, &bits)
            }
        }
    }
}

/// `sel ? t : f` on words of equal width. Two sums that share their first
/// rows keep them and select only between the rows that differ.
pub fn mux_word(b: &mut Builder, sel: Bit, t: &Word, f: &Word) -> Word {
    if t == f {
        return t.clone();
    }
    match sel {
        Bit::Const(true) => return t.clone(),
        Bit::Const(false) => return f.clone(),
        _ => {}
    }
    match (t, f) {
        // Two sums not reduced yet (`if (c) n++;`): their rows, without
        // copying them.
        (Word::Sum(lt), Word::Sum(lf)) if !lt.is_reduced() && !lf.is_reduced() => {
            let common = lt.common_rows(lf);
            // (The rows are borrowed only while the tails are reduced.)
            let m = mux_tails(b, sel, t.width(), &lt.rows(), &lf.rows(), common);
            if let Some(m) = m {
                return lt.prefix_and(common, m);
            }
        }
        (Word::Sum(_), _) | (_, Word::Sum(_)) => {
            let (rt, rf) = (t.rows(b), f.rows(b));
            let common = rt.iter().zip(&rf).take_while(|(x, y)| x == y).count();
            if let Some(m) = mux_tails(b, sel, t.width(), &rt, &rf, common) {
                let mut rows = rt[..common].to_vec();
                rows.push(m);
                return Lazy::word(t.width(), rows);
            }
        }
        _ => {}
    }
    let (rt, rf) = (t.range(b), f.range(b));
    let (tb, fb) = (t.bits(b), f.bits(b));
    Word::from_bits_ranged(gates::mux(b, sel, &tb, &fb), rt.hull(rf))
}

/// The row `sel ? Σ t[common..] : Σ f[common..]` of `w` bits, where the
/// rows `t` and `f` agree on their first `common` rows and differ in at
/// most 8 rows after them; `None` otherwise (then the sums are selected
/// whole).
fn mux_tails(
    b: &mut Builder,
    sel: Bit,
    w: u32,
    t: &[Row],
    f: &[Row],
    common: usize,
) -> Option<Row> {
    if common == 0 || t.len() + f.len() - 2 * common > 8 {
        return None;
    }
    let (st, rst) = reduce(b, w, &t[common..]);
    let (sf, rsf) = reduce(b, w, &f[common..]);
    let m = Word::from_bits_ranged(gates::mux(b, sel, &st, &sf), rst.hull(rsf));
    let (mb, mr) = m.shared_bits(b);
    Some(Row {
        kind: RowKind::Word(mb, mr),
        neg: false,
    })
}

/// A secret index term of a location: element `idx` (of `count`), each
/// `stride` leaves apart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SecIdx {
    /// The index bits.
    pub idx: Rc<Bits>,
    /// Leaves per element.
    pub stride: usize,
    /// Number of candidate elements.
    pub count: usize,
}

/// A subscript key's part in a place (see `lower::keep::replay`): the
/// key, the array's element stride in leaves and its length.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Term {
    pub(crate) key: u32,
    pub(crate) stride: i64,
    pub(crate) count: i64,
}

/// A pointer: an object, a leaf position in it, and secret index terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ptr {
    /// The object (`usize::MAX` for the null pointer).
    pub obj: usize,
    /// Leaf index within the object (public part).
    pub leaf: i64,
    /// Secret index terms.
    pub sec: Vec<SecIdx>,
    /// The counter keys that placed what it points to, while a template
    /// is probed (see `lower::keep::replay`): accesses through it move
    /// with them.
    pub(crate) terms: Vec<Term>,
    /// Whether `leaf` and `sec`'s strides count bytes of the object's C
    /// layout, not leaves (a `char *` into an `int`: `lower::bytes`).
    pub bytes: bool,
}

impl Ptr {
    /// A pointer to leaf `leaf` of object `obj` (moved by `sec`).
    pub fn new(obj: usize, leaf: i64, sec: Vec<SecIdx>) -> Ptr {
        Ptr {
            obj,
            leaf,
            sec,
            terms: Vec::new(),
            bytes: false,
        }
    }

    /// The null pointer.
    pub fn null() -> Ptr {
        Ptr::new(usize::MAX, 0, Vec::new())
    }
}

/// What an object's leaf holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A scalar.
    Val(Word),
    /// A pointer.
    Ptr(Ptr),
}

/// An rvalue.
#[derive(Clone, Debug)]
pub enum Val {
    /// A scalar of a type.
    Int(Scalar, Word),
    /// A pointer to a type.
    Ptr(CType, Ptr),
    /// A struct (or array) value: its type and leaves.
    Agg(CType, Vec<Slot>),
    /// No value.
    Void,
}

impl Word {
    /// The form a value is compared and substituted in: a sum already
    /// reduced is its bits (the lowering treats the two alike).
    fn effective(&self) -> Word {
        match self {
            Word::Sum(l) => match l.reduced_bits() {
                Some((bits, r)) => Word::Bits(bits, r),
                None => self.clone(),
            },
            w => w.clone(),
        }
    }

    /// The same value with each of its words — its bits, or each row of a
    /// sum (factors in order) — replaced by `f(bits, range)`, in the order
    /// of [`Word::for_each_bit`].
    fn map_words(&self, f: &mut impl FnMut(&SharedBits, Range) -> (SharedBits, Range)) -> Word {
        match self.effective() {
            Word::Const { v, w } => Word::Const { v, w },
            Word::Bits(bits, r) => {
                let (bits, r) = f(&bits, r);
                Word::Bits(bits, r)
            }
            Word::Sum(l) => {
                let rows = l
                    .rows()
                    .iter()
                    .map(|row| Row {
                        kind: match &row.kind {
                            RowKind::Word(x, r) => {
                                let (x, r) = f(x, *r);
                                RowKind::Word(x, r)
                            }
                            RowKind::Product((x, rx), (y, ry)) => {
                                let x = f(x, *rx);
                                RowKind::Product(x, f(y, *ry))
                            }
                        },
                        neg: row.neg,
                    })
                    .collect();
                Lazy::word(l.w, rows)
            }
        }
    }

    /// The same bits with each range widened as `how` says (see
    /// [`gates::bucket`]): a value of this shape stands for every value
    /// with the same bits whose ranges lie in the same widened ones.
    pub fn relaxed(&self, how: Widening) -> Word {
        self.map_words(&mut |bits, r| (bits.clone(), gates::bucket(r, bits, how)))
    }

    /// The bits of a sum already reduced (by a reader that needed them),
    /// if this is one.
    pub fn reduced(&self) -> Option<Word> {
        match self {
            Word::Sum(l) => l.reduced_bits().map(|(bits, r)| Word::Bits(bits, r)),
            _ => None,
        }
    }

    /// The same value with every range `r` (of its bits, or of a sum's
    /// rows, in a fixed order) replaced by `f(r)`.
    pub fn with_ranges(&self, f: &mut impl FnMut(Range) -> Range) -> Word {
        self.map_words(&mut |bits, r| (bits.clone(), f(r)))
    }

    /// The value with its bits (and its rows' bits) narrowed to what their
    /// ranges need (see [`Word::from_bits_ranged`]), but for its low
    /// `keep` bits, which stay as they are.
    pub fn narrowed(&self, keep: usize) -> Word {
        match self.effective() {
            // Nothing above what the range needs, not all constant: the
            // same bits (the common case, without copying them).
            Word::Bits(bits, r)
                if !gates::narrows(bits.len(), r)
                    && bits.iter().any(|b| b.as_const().is_none()) =>
            {
                let natural = gates::value_range(&bits);
                let n = bits.len() as u32;
                Word::Bits(bits, r.meet_modulo(natural, n))
            }
            Word::Bits(bits, r) if keep > 0 => {
                let mut narrow = gates::narrow(&bits, r);
                let k = keep.min(bits.len());
                narrow[..k].copy_from_slice(&bits[..k]);
                if r.lo < 0 && k > 0 && gates::fits(k, r) {
                    // Negative values that fit the kept bits: the bits
                    // above extend the kept ones' top bit (equal to the
                    // sign), so that the value still needs only the kept
                    // width — not the kept bits and a sign beyond them,
                    // which would pad the next iteration's reads wider.
                    let top = bits[k - 1];
                    narrow[k..].iter_mut().for_each(|b| *b = top);
                }
                match gates::const_value(&narrow) {
                    Some(v) if narrow.len() <= 64 => Word::konst(v, narrow.len() as u32),
                    _ => {
                        let natural = gates::value_range(&narrow);
                        let n = narrow.len() as u32;
                        Word::Bits(Rc::from(narrow), r.meet_modulo(natural, n))
                    }
                }
            }
            Word::Bits(bits, r) => Word::from_bits_ranged(bits.to_vec(), r),
            w => w.map_words(&mut |x, r| (Rc::from(gates::narrow(x, r)), r)),
        }
    }

    /// The same value with every bit replaced by `f(bit)`, in the order of
    /// [`Word::for_each_bit`]; widths, ranges and the sum's rows are kept.
    pub fn map_bits(&self, f: &mut impl FnMut(Bit) -> Bit) -> Word {
        self.map_words(&mut |bits, r| (bits.iter().map(|&b| f(b)).collect(), r))
    }

    /// Calls `f` on every bit of the value's representation, in a fixed
    /// order (a sum not yet reduced: its rows' bits).
    pub fn for_each_bit(&self, f: &mut impl FnMut(Bit)) {
        self.for_each_word(&mut |bits, _| bits.iter().for_each(|&b| f(b)));
    }

    /// Calls `f` on each of the value's words and its range, in the order
    /// of [`Word::map_words`], copying nothing: a kept loop's simulation
    /// reads the bits and ranges of every value each iteration reads.
    fn for_each_word(&self, f: &mut impl FnMut(&[Bit], Range)) {
        match self {
            Word::Const { .. } => {}
            Word::Bits(bits, r) => f(bits, *r),
            Word::Sum(l) => {
                // (The cache is not borrowed while `f` runs.)
                match l.reduced_bits() {
                    Some((bits, r)) => f(&bits, r),
                    None => {
                        for row in l.rows().iter() {
                            match &row.kind {
                                RowKind::Word(x, r) => f(x, *r),
                                RowKind::Product((x, rx), (y, ry)) => {
                                    f(x, *rx);
                                    f(y, *ry);
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The value with its constant bits folded: a word whose bits are all
    /// constant becomes a constant, its range kept (after bits were
    /// replaced, see [`Word::map_bits`]).
    pub fn folded(self) -> Word {
        match self {
            Word::Bits(bits, r) if bits.iter().all(|b| b.as_const().is_some()) => {
                Word::from_bits_ranged(bits.to_vec(), r)
            }
            w => w,
        }
    }
}

impl Slot {
    /// The same slot with every bit replaced by `f(bit)` (see
    /// [`Word::map_bits`]; a pointer's secret index bits likewise).
    pub fn map_bits(&self, f: &mut impl FnMut(Bit) -> Bit) -> Slot {
        match self {
            Slot::Val(w) => Slot::Val(w.map_bits(f)),
            Slot::Ptr(p) => Slot::Ptr(Ptr {
                obj: p.obj,
                leaf: p.leaf,
                terms: p.terms.clone(),
                bytes: p.bytes,
                sec: p
                    .sec
                    .iter()
                    .map(|s| SecIdx {
                        idx: Rc::new(s.idx.iter().map(|&b| f(b)).collect()),
                        stride: s.stride,
                        count: s.count,
                    })
                    .collect(),
            }),
        }
    }

    /// [`Slot::map_bits`] and then [`Slot::folded`], in place: a word's
    /// bits are rewritten where no other value shares them, rather than
    /// copied (a kept loop's run rewrites every location it wrote once its
    /// outputs have wires).
    pub fn remap_bits(&mut self, f: &mut impl FnMut(Bit) -> Bit) {
        let Slot::Val(Word::Bits(bits, r)) = self else {
            *self = self.map_bits(f).folded();
            return;
        };
        let rewritten = Rc::make_mut(bits);
        rewritten.iter_mut().for_each(|b| *b = f(*b));
        if rewritten.iter().all(|b| b.as_const().is_some()) {
            let word = Word::from_bits_ranged(rewritten.to_vec(), *r);
            *self = Slot::Val(word);
        }
    }

    /// Calls `f` on every bit of the slot, in the order of
    /// [`Slot::map_bits`].
    pub fn for_each_bit(&self, f: &mut impl FnMut(Bit)) {
        match self {
            Slot::Val(w) => w.for_each_bit(f),
            Slot::Ptr(p) => p.sec.iter().for_each(|s| s.idx.iter().for_each(|&b| f(b))),
        }
    }

    /// The slot with its ranges replaced as [`Word::with_ranges`] does.
    pub fn with_ranges(&self, f: &mut impl FnMut(Range) -> Range) -> Slot {
        match self {
            Slot::Val(w) => Slot::Val(w.with_ranges(f)),
            p => p.clone(),
        }
    }

    /// Calls `f` on the slot's ranges, in the order of
    /// [`Slot::with_ranges`].
    pub fn for_each_range(&self, f: &mut impl FnMut(Range)) {
        if let Slot::Val(w) = self {
            w.for_each_word(&mut |_, r| f(r));
        }
    }

    /// The slot narrowed as [`Word::narrowed`] does.
    pub fn narrowed(&self, keep: usize) -> Slot {
        match self {
            Slot::Val(w) => Slot::Val(w.narrowed(keep)),
            p => p.clone(),
        }
    }

    /// The slot with its ranges widened to their buckets (see
    /// [`Word::relaxed`]).
    pub fn relaxed(&self, how: Widening) -> Slot {
        match self {
            Slot::Val(w) => Slot::Val(w.relaxed(how)),
            p => p.clone(),
        }
    }

    /// The slot with constant bits folded (see [`Word::folded`]).
    pub fn folded(self) -> Slot {
        match self {
            Slot::Val(w) => Slot::Val(w.folded()),
            p => p,
        }
    }
}

#[cfg(test)]
mod tests;
