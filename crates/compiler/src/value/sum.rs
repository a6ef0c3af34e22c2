//! Lazy sums: rows of words and products added modulo `2^w`, reduced to
//! bits together (carry-save) when their bits are first needed.

mod copies;

use std::cell::{Cell, Ref, RefCell};
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

use rustc_hash::{FxHashMap as HashMap, FxHasher};

use twofold_circuit::{Bit, Builder};

use super::{SharedBits, Word};
use crate::gates::{self, Bits, Range};
use crate::mixed::notes::{self, secret, SumNote, Term};
use copies::Copied;

/// Most rows a lazy sum collects before it is reduced.
pub(super) const MAX_ROWS: usize = 256;

/// A lazy sum: rows added modulo `2^w`.
#[derive(Debug)]
pub struct Lazy {
    pub(super) w: u32,
    rows: Rows,
    cache: RefCell<Option<(SharedBits, Range)>>,
    /// Whether a sum took these rows already.
    pub(super) taken: Cell<bool>,
    /// The wider sum of the same rows this one is the low `w` bits of
    /// (a conversion to a narrower type before the wider sum was reduced):
    /// once that one is reduced, these are its low bits, no gates made.
    wider: Option<Rc<Lazy>>,
}

/// A lazy sum's rows: the first `len` rows of a vector that the sums made
/// by adding to it share. `acc + x` appends `x`'s rows to `acc`'s vector in
/// place while no other sum has appended to it (else it copies them), so
/// accumulating `n` terms one at a time copies `O(n)` rows, not `O(n²)`.
#[derive(Debug)]
struct Rows {
    all: Rc<RefCell<Vec<Row>>>,
    len: usize,
    /// The sums of the vector's first rows reduced so far, by how many:
    /// shared with the vector (see [`Lazy::resolve`]).
    reduced: Rc<RefCell<BTreeMap<usize, (SharedBits, Range)>>>,
    /// Runs of the vector that are other sums' rows (see `copies`).
    copies: Rc<RefCell<Vec<Copied>>>,
}

impl Rows {
    fn new(rows: Vec<Row>) -> Rows {
        let len = rows.len();
        Rows {
            all: Rc::new(RefCell::new(rows)),
            len,
            reduced: Rc::default(),
            copies: Rc::default(),
        }
    }

    /// These rows followed by `more`.
    fn append(&self, more: Vec<Row>) -> Rows {
        let mut all = self.all.borrow_mut();
        if all.len() == self.len {
            all.extend(more);
            return Rows {
                all: self.all.clone(),
                len: all.len(),
                reduced: self.reduced.clone(),
                copies: self.copies.clone(),
            };
        }
        let mut rows = Vec::with_capacity(self.len + more.len());
        rows.extend_from_slice(&all[..self.len]);
        rows.extend(more);
        let copied = Rows::new(rows);
        let ours = self.copies.borrow();
        let within = ours.iter().filter(|c| c.at + c.len <= self.len);
        copied.copies.borrow_mut().extend(within.cloned());
        copied
    }

    /// The longest of these rows' first rows reduced already, how many
    /// they are, and their bits and range.
    fn reduced_prefix(&self) -> Option<(usize, SharedBits, Range)> {
        let reduced = self.reduced.borrow();
        let (&n, (bits, r)) = reduced.range(..=self.len).next_back()?;
        Some((n, bits.clone(), *r))
    }
}

/// One row of a lazy sum, added or (if `neg`) subtracted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub(super) kind: RowKind,
    pub(super) neg: bool,
}

/// What a row adds: a word, or the product of two.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum RowKind {
    Word(SharedBits, Range),
    Product((SharedBits, Range), (SharedBits, Range)),
}

/// How many of `x` are not constants.
pub(super) fn secret_bits(x: &[Bit]) -> usize {
    x.iter().filter(|b| matches!(b, Bit::Wire(_))).count()
}

impl Row {
    /// Whether the row's words, of at most `w` bits, extended by their
    /// last bit read as their values (their ranges lie in what their bits
    /// read as signed numbers).
    fn reads_exactly(&self, w: u32) -> bool {
        let exact = |x: &[Bit], r: &Range| {
            let n = x.len() as u32;
            (1..=w).contains(&n) && -(1i128 << (n - 1)) <= r.lo && r.hi < 1i128 << (n - 1)
        };
        match &self.kind {
            RowKind::Word(x, r) => exact(x, r),
            RowKind::Product((x, rx), (y, ry)) => exact(x, rx) && exact(y, ry),
        }
    }

    /// The secret bits the row adds (a product's, as its factors'
    /// multiplied: the partial products it stands for).
    pub(super) fn bits(&self) -> usize {
        match &self.kind {
            RowKind::Word(x, _) => secret_bits(x),
            RowKind::Product((x, _), (y, _)) => secret_bits(x) * secret_bits(y),
        }
    }
}

impl Lazy {
    /// A sum of `rows` modulo `2^w`, not reduced yet.
    pub(super) fn word(w: u32, rows: Vec<Row>) -> Word {
        Lazy::of_rows(w, Rows::new(rows))
    }

    fn of_rows(w: u32, rows: Rows) -> Word {
        Word::Sum(Rc::new(Lazy {
            w,
            rows,
            cache: RefCell::new(None),
            taken: Cell::new(false),
            wider: None,
        }))
    }

    /// The low `w` bits of `wider` (not reduced yet), as a sum of its
    /// rows modulo `2^w` that takes `wider`'s bits once those are made.
    pub(super) fn truncation(wider: &Rc<Lazy>, w: u32) -> Word {
        Word::Sum(Rc::new(Lazy {
            w,
            rows: Rows::new(wider.rows().to_vec()),
            cache: RefCell::new(None),
            taken: Cell::new(false),
            wider: Some(wider.clone()),
        }))
    }

    /// Its bits and range if it is reduced, or is the low bits of a sum
    /// that is (see `wider`); kept as its own once found.
    pub(super) fn reduced_bits(&self) -> Option<(SharedBits, Range)> {
        if let Some(c) = self.cache.borrow().as_ref() {
            return Some(c.clone());
        }
        // (Not in a mixed compilation: there the narrower sum is noted as
        // its own, which the arithmetic sharing computes at its width.)
        let wider = self.wider.as_ref().filter(|_| !notes::recording())?;
        let (bits, r) = wider.reduced_bits()?;
        let low: Bits = bits[..self.w as usize].to_vec();
        // The low bits read as the wider value where its range fits in
        // what they can hold (as a conversion to a narrower type reads).
        let window = gates::value_range(&low);
        let r = if window.contains(&r) { r } else { window };
        let res = (Rc::from(low), r);
        *self.cache.borrow_mut() = Some(res.clone());
        Some(res)
    }

    /// Its rows.
    pub(super) fn rows(&self) -> Ref<'_, [Row]> {
        Ref::map(self.rows.all.borrow(), |all| &all[..self.rows.len])
    }

    /// How many rows it has.
    pub(super) fn row_count(&self) -> usize {
        self.rows.len
    }

    /// Whether it adds at most two words (no products, nothing
    /// subtracted): its own carry-save form.
    pub(super) fn is_two_words(&self) -> bool {
        let rows = self.rows();
        rows.len() <= 2 && (rows.iter()).all(|r| matches!(r.kind, RowKind::Word(..)) && !r.neg)
    }

    /// The sum of `w` bits of these rows followed by `more` (shared, see
    /// `Rows`).
    pub(super) fn append(&self, w: u32, more: Vec<Row>) -> Word {
        Lazy::of_rows(w, self.rows.append(more))
    }

    /// Notes that its last `len` rows are `from`'s (subtracted if `neg`),
    /// copied when added: reduced by then, `from` stands for them (see
    /// `copies`). One row stands for itself, so its copy is not noted:
    /// each noted copy keeps `from`'s allocation (a 128×128 matrix
    /// product's two million products held 300 MB that way).
    pub(super) fn note_copied(&self, from: &Rc<Lazy>, len: usize, neg: bool) {
        if len < 2 {
            return;
        }
        let at = self.rows.len - len;
        (self.rows.copies.borrow_mut()).push(Copied::of(from, at, len, neg));
    }

    /// Whether its bits have been reduced (then it reads as one word).
    pub(super) fn is_reduced(&self) -> bool {
        self.reduced_bits().is_some()
    }

    /// How many first rows this sum and `other` have in common: all the
    /// shorter one's when one was made by adding to the other (they share
    /// their rows, see `Rows`), else as many as are equal in turn.
    pub(super) fn common_rows(&self, other: &Lazy) -> usize {
        let shorter = self.rows.len.min(other.rows.len);
        if Rc::ptr_eq(&self.rows.all, &other.rows.all) {
            return shorter;
        }
        let (a, b) = (self.rows(), other.rows());
        a.iter().zip(b.iter()).take_while(|(x, y)| x == y).count()
    }

    /// Whether it has the same rows as `other`. Sums that differ mostly
    /// share their first rows (one was made from the other, or both from a
    /// third), so the rows are compared from the last.
    pub(super) fn same_rows(&self, other: &Lazy) -> bool {
        let (len, other_len) = (self.rows.len, other.rows.len);
        len == other_len
            && (Rc::ptr_eq(&self.rows.all, &other.rows.all)
                || self.rows().iter().rev().eq(other.rows().iter().rev()))
    }

    /// The sum of `w` bits of its first `n` rows and `row` (sharing the
    /// rows when no other sum has added to the first `n`).
    pub(super) fn prefix_and(&self, n: usize, row: Row) -> Word {
        let first = Rows {
            all: self.rows.all.clone(),
            len: n,
            reduced: self.rows.reduced.clone(),
            copies: self.rows.copies.clone(),
        };
        Lazy::of_rows(self.w, first.append(vec![row]))
    }

    /// The sum's bits and range, reduced once and kept. A sum whose first
    /// rows another sum (made by adding to it) reduced already adds the
    /// rest to those bits, and rows copied from a sum reduced since are
    /// added as its bits (see `copies`), where that adds no more secret
    /// bits: a running total stored every step (`s += x[i]; out[i] = s;`)
    /// costs one adder a step, not the sum of all rows so far for every
    /// output. (Not in a mixed compilation, whose notes name the rows.)
    pub(super) fn resolve(&self, b: &mut Builder) -> (SharedBits, Range) {
        if let Some(c) = self.reduced_bits() {
            return c;
        }
        let noted = notes::noted(self.w);
        let prefix = self.rows.reduced_prefix().filter(|_| !noted);
        let res = match prefix {
            Some((n, bits, r)) if n == self.rows.len => (bits, r),
            None if Rc::strong_count(&self.rows.all) > 2 && !noted => self.reduce_in_steps(b),
            _ => {
                let rows = self.rows();
                let (mut from, n) = match prefix {
                    Some((n, bits, r)) => {
                        let row = Row {
                            kind: RowKind::Word(bits, r),
                            neg: false,
                        };
                        (vec![row], n)
                    }
                    None => (Vec::new(), 0),
                };
                let copies = self.rows.copies.borrow();
                match copies::with_reduced_copies(&rows, &copies, n).filter(|_| !noted) {
                    Some(rest) => from.extend(rest),
                    None => from.extend_from_slice(&rows[n..]),
                }
                // Rows that cancel others (`t = a + b; u = t - a;`) stay
                // rows where that adds fewer secret bits.
                let cheaper = from.len() < rows.len() && copies::cost(&from) <= copies::cost(&rows);
                let (bits, r) = reduce(b, self.w, if cheaper { &from } else { &rows });
                (Rc::from(bits), r)
            }
        };
        (self.rows.reduced.borrow_mut()).insert(self.rows.len, res.clone());
        *self.cache.borrow_mut() = Some(res.clone());
        res
    }

    /// The sum's bits and range, made as the sums of its first rows in
    /// turn, each kept for the sums of as many rows that share them (other
    /// sums hold its first rows: a running total stored every step, made
    /// to reduce here by a read or by its length). Distinct words cost as
    /// many AND gates added one by one as all at once (a full adder a bit
    /// either way); sums with products or like terms are reduced at once.
    fn reduce_in_steps(&self, b: &mut Builder) -> (SharedBits, Range) {
        let rows = self.rows();
        let distinct_words = rows.iter().all(|r| matches!(r.kind, RowKind::Word(..)))
            && like_rows(&rows).len() == rows.len();
        if !distinct_words {
            let (bits, r) = reduce(b, self.w, &rows);
            return (Rc::from(bits), r);
        }
        let (bits, r) = reduce(b, self.w, &rows[..1]);
        let mut sum: (SharedBits, Range) = (Rc::from(bits), r);
        let mut reduced = self.rows.reduced.borrow_mut();
        reduced.insert(1, sum.clone());
        for (n, row) in rows.iter().enumerate().skip(1) {
            let so_far = Row {
                kind: RowKind::Word(sum.0, sum.1),
                neg: false,
            };
            let (bits, r) = reduce(b, self.w, &[so_far, row.clone()]);
            sum = (Rc::from(bits), r);
            reduced.insert(n + 1, sum.clone());
        }
        sum
    }
}

/// The sum of `rows` modulo `2^w` as bits, and its range. A mixed
/// compilation runs sums of products in the arithmetic sharing
/// (`crate::mixed`): their bits are fresh wires, noted with the rows; a
/// linear sum is reduced as always and noted too.
pub(super) fn reduce(b: &mut Builder, w: u32, rows: &[Row]) -> (Bits, Range) {
    let products = secret_products(rows);
    notes::count(products as u64);
    let mut s = gates::Sum::new(w as usize);
    let noted = notes::noted(w);
    let product_sum = (noted && products > 0).then(notes::product_sum);
    if let Some(Some(k)) = product_sum {
        let key = twin_key(w, rows);
        let same = |n: &SumNote| n.w == w && same_terms(&n.terms, rows);
        if let Some((bits, range)) = notes::twin(key, same, k) {
            return (bits, range);
        }
        for r in rows {
            match &r.kind {
                RowKind::Word(x, rx) => s.account_word(x, r.neg, Some(*rx)),
                RowKind::Product((x, rx), (y, ry)) => {
                    s.account_product((x, Some(*rx)), (y, Some(*ry)), r.neg)
                }
            }
        }
        let (bits, range) = s.finish_fresh(b);
        let mut note = note(w, rows, &bits);
        note.product_sum = Some(k);
        notes::record_product_sum(note, key, range);
        return (bits, range);
    }
    if noted {
        // (Row by row: the note's terms are the rows.)
        for r in rows {
            add_row(b, &mut s, &r.kind, if r.neg { -1 } else { 1 });
        }
    } else {
        for (kind, k) in like_rows(rows) {
            add_row(b, &mut s, kind, k);
        }
    }
    let exact = s.range();
    let (bits, range) = s.finish_ranged(b);
    // (A sum of products made Boolean is no note: the partition reads
    // its bits as gates'.)
    if noted && product_sum.is_none() {
        let mut note = note(w, rows, &bits);
        note.bounds = rows
            .iter()
            .all(|r| r.reads_exactly(w))
            .then_some((exact.lo, exact.hi));
        notes::record(note);
    }
    (bits, range)
}

/// Adds `k` times the row `kind` to `s`: a product of two secrets added
/// more than once reduced once and multiplied by `k`; another row as `|k|`
/// rows. (The sum collects their like terms; a word times `k` as copies
/// shifted by `k`'s bits would pair less well in the full adders, and a
/// product by a public value is shifted copies already, which reducing
/// would cost AND gates.)
fn add_row(b: &mut Builder, s: &mut gates::Sum, kind: &RowKind, k: i128) {
    match kind {
        RowKind::Word(x, rx) => {
            for _ in 0..k.unsigned_abs() {
                s.add_ranged(b, x, k < 0, Some(*rx));
            }
        }
        RowKind::Product((x, rx), (y, ry)) if k.abs() > 1 && secret(x) && secret(y) => {
            s.add_product_times(b, (x, Some(*rx)), (y, Some(*ry)), k)
        }
        RowKind::Product((x, rx), (y, ry)) => {
            for _ in 0..k.unsigned_abs() {
                s.add_product_ranged(b, (x, Some(*rx)), (y, Some(*ry)), k < 0);
            }
        }
    }
}

/// The distinct rows of `rows`, each with the times it is added less the
/// times it is subtracted, in the order they first appear: a row added
/// `k` times costs one row times `k` (a product is reduced once, not its
/// partial products `k` times), one added and subtracted costs nothing.
fn like_rows(rows: &[Row]) -> Vec<(&RowKind, i128)> {
    let mut by_hash: HashMap<u64, Vec<usize>> = HashMap::default();
    let mut out: Vec<(&RowKind, i128)> = Vec::with_capacity(rows.len());
    for r in rows {
        let sign = if r.neg { -1 } else { 1 };
        let mut h = FxHasher::default();
        match &r.kind {
            RowKind::Word(x, _) => x.hash(&mut h),
            RowKind::Product((x, _), (y, _)) => (x, y).hash(&mut h),
        }
        let same = by_hash.entry(h.finish()).or_default();
        match same.iter().find(|&&i| *out[i].0 == r.kind) {
            Some(&i) => out[i].1 += sign,
            None => {
                same.push(out.len());
                out.push((&r.kind, sign));
            }
        }
    }
    out
}

/// Products of two secret words among `rows`.
pub(super) fn secret_products(rows: &[Row]) -> usize {
    rows.iter()
        .filter(|r| matches!(&r.kind, RowKind::Product((x, _), (y, _)) if secret(x) && secret(y)))
        .count()
}

/// The note of the sum of `rows` modulo `2^w`, whose bits are `out`.
fn note(w: u32, rows: &[Row], out: &[Bit]) -> SumNote {
    SumNote {
        w,
        terms: rows
            .iter()
            .map(|r| {
                let term = match &r.kind {
                    RowKind::Word(x, _) => Term::Word(x.clone()),
                    RowKind::Product((x, _), (y, _)) => Term::Product(x.clone(), y.clone()),
                };
                (term, r.neg)
            })
            .collect(),
        out: out.to_vec(),
        bounds: None,
        product_sum: None,
        twins: Vec::new(),
    }
}

/// A hash of a sum's width and its rows' shapes (each row's kind, sign,
/// widths and first and last bits): sums with the same rows have the same
/// key, and others seldom do (see [`notes::twin`]).
fn twin_key(w: u32, rows: &[Row]) -> u64 {
    let mut h = FxHasher::default();
    w.hash(&mut h);
    let ends = |x: &[Bit], h: &mut FxHasher| (x.len(), x.first(), x.last()).hash(h);
    for r in rows {
        r.neg.hash(&mut h);
        match &r.kind {
            RowKind::Word(x, _) => ends(x, &mut h),
            RowKind::Product((x, _), (y, _)) => {
                ends(x, &mut h);
                ends(y, &mut h);
            }
        }
    }
    h.finish()
}

/// Whether a note's terms are `rows`, in order.
fn same_terms(terms: &[(Term, bool)], rows: &[Row]) -> bool {
    terms.len() == rows.len()
        && terms.iter().zip(rows).all(|((t, neg), r)| {
            *neg == r.neg
                && match (t, &r.kind) {
                    (Term::Word(x), RowKind::Word(y, _)) => x[..] == y[..],
                    (Term::Product(x, y), RowKind::Product((u, _), (v, _))) => {
                        x[..] == u[..] && y[..] == v[..]
                    }
                    _ => false,
                }
        })
}

/// `x` and `y` less the rows they have in common (each row of one taken
/// out with at most one equal row of the other): the common rows, then
/// what is left of `x` and of `y`; `None` if they have none in common.
pub(super) fn without_common(x: &[Row], y: &[Row]) -> Option<(Vec<Row>, Vec<Row>, Vec<Row>)> {
    let mut y_left: Vec<Option<&Row>> = y.iter().map(Some).collect();
    let (mut common, mut x_left) = (Vec::new(), Vec::new());
    for row in x {
        match y_left.iter_mut().find(|s| *s == &Some(row)) {
            Some(taken) => {
                *taken = None;
                common.push(row.clone());
            }
            None => x_left.push(row.clone()),
        }
    }
    if common.is_empty() {
        return None;
    }
    Some((
        common,
        x_left,
        y_left.into_iter().flatten().cloned().collect(),
    ))
}

/// The least and greatest values of the sum of `rows` as integers (not
/// modulo anything), if it has no products.
pub(super) fn rows_bounds(rows: &[Row]) -> Option<(i128, i128)> {
    rows.iter()
        .try_fold((0i128, 0i128), |(lo, hi), row| match &row.kind {
            RowKind::Word(_, r) if row.neg => Some((lo.checked_sub(r.hi)?, hi.checked_sub(r.lo)?)),
            RowKind::Word(_, r) => Some((lo.checked_add(r.lo)?, hi.checked_add(r.hi)?)),
            RowKind::Product(..) => None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row adding the word of wires `first..first + 4`.
    fn row(first: u32) -> Row {
        let bits: Bits = (first..first + 4).map(Bit::Wire).collect();
        let r = gates::value_range(&bits);
        Row {
            kind: RowKind::Word(Rc::from(bits), r),
            neg: false,
        }
    }

    #[test]
    fn sums_made_by_adding_share_rows_and_each_sees_its_own() {
        let a = Rows::new(vec![row(0)]);
        let b = a.append(vec![row(10)]);
        let c = b.append(vec![row(20), row(30)]);
        assert!(Rc::ptr_eq(&a.all, &c.all), "appended in place");
        let seen = |r: &Rows| r.all.borrow()[..r.len].to_vec();
        assert_eq!(seen(&a), vec![row(0)]);
        assert_eq!(seen(&b), vec![row(0), row(10)]);
        assert_eq!(seen(&c), vec![row(0), row(10), row(20), row(30)]);
        // `b` again: its vector holds rows it must not see, so it copies.
        let d = b.append(vec![row(40)]);
        assert!(!Rc::ptr_eq(&b.all, &d.all));
        assert_eq!(seen(&d), vec![row(0), row(10), row(40)]);
        assert_eq!(seen(&c), vec![row(0), row(10), row(20), row(30)]);
    }

    /// The lazy sum of `rows`.
    fn lazy(rows: Rows) -> Rc<Lazy> {
        match Lazy::of_rows(8, rows) {
            Word::Sum(l) => l,
            _ => unreachable!("of_rows makes a sum"),
        }
    }

    #[test]
    fn sums_compare_and_select_by_their_shared_rows() {
        let x = lazy(Rows::new(vec![row(0), row(10)]));
        let plus = lazy(x.rows.append(vec![row(20)]));
        assert_eq!(x.common_rows(&plus), 2, "one made from the other");
        // Made apart, equal rows are found in turn.
        let apart = lazy(Rows::new(vec![row(0), row(10), row(30)]));
        assert_eq!(apart.common_rows(&plus), 2);
        assert_eq!(apart.common_rows(&lazy(Rows::new(vec![row(10)]))), 0);
        assert!(!apart.same_rows(&plus), "the last rows differ");
        assert!(plus.same_rows(&lazy(Rows::new(vec![row(0), row(10), row(20)]))));
        assert!(!x.same_rows(&plus), "fewer rows");
        // `x`'s rows and another row: `plus`'s vector holds a row after
        // them, which neither it nor `x` sees change.
        let other = lazy_rows(&x.prefix_and(2, row(40)));
        assert_eq!(&*other, &[row(0), row(10), row(40)]);
        assert_eq!(&*plus.rows(), &[row(0), row(10), row(20)]);
        assert_eq!(&*x.rows(), &[row(0), row(10)]);
    }

    /// A sum's rows.
    fn lazy_rows(w: &Word) -> Vec<Row> {
        match w {
            Word::Sum(l) => l.rows().to_vec(),
            _ => panic!("not a sum"),
        }
    }
}
