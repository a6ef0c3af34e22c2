//! What lowering tells the partition: every lazy sum reduced to bits with
//! its rows (words and products of words), so that a sum of products can
//! run in the arithmetic sharing instead of its Boolean circuit, and a
//! product can read a linear sum (no product of two secret words: `a - b`)
//! as the linear combination it is rather than as its bits. Notes are
//! kept per compiling thread (as range tapes are), only while a mixed
//! compilation asks for them; products of two secret words are counted
//! always, so that a Boolean compilation says whether arithmetic could help
//! (and tells its [`Watch`], if it has one, when it meets the first).

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;
use twofold_circuit::Bit;

use crate::gates::Range;
use crate::watch::Watch;

/// One term of a noted sum.
#[derive(Clone, Debug)]
pub(crate) enum Term {
    /// A word, read modulo `2^w` (narrower words extended by their last
    /// bit).
    Word(Rc<[Bit]>),
    /// The product of two words, modulo `2^w`.
    Product(Rc<[Bit]>, Rc<[Bit]>),
}

/// A sum reduced to bits: `out = Σ ±terms mod 2^w`. A sum with a product
/// of two secret words has no Boolean circuit (its bits are fresh wires);
/// a linear one has its circuit, which the partition leaves out when
/// nothing but arithmetic reads its bits.
#[derive(Clone, Debug)]
pub(crate) struct SumNote {
    /// The width of the sum.
    pub w: u32,
    /// Its terms, each added or (if `true`) subtracted.
    pub terms: Vec<(Term, bool)>,
    /// Its bits (narrower than `w` where its range allows: extended by the
    /// last bit).
    pub out: Vec<Bit>,
    /// The least and greatest value of the sum as integers, if every
    /// term's bits (of at most `w`), extended by their last, read as the
    /// term's value: then its bits extended beyond `w` by zeros or by the
    /// last bit are still the sum where these bounds allow.
    pub bounds: Option<(i128, i128)>,
    /// A sum with a product of two secret words: its number among those
    /// (in the order lowering met them, the ones made Boolean too), which
    /// names it to [`start`]'s `boolean` of a later compilation.
    pub product_sum: Option<u32>,
    /// The numbers of the later sums of products with the same terms: they
    /// are this one (its bits), as structural hashing makes them in a
    /// Boolean compilation.
    pub twins: Vec<u32>,
}

/// Whether a word has a secret bit.
pub(crate) fn secret(x: &[Bit]) -> bool {
    x.iter().any(|b| matches!(b, Bit::Wire(_)))
}

thread_local! {
    static NOTES: RefCell<Option<Vec<SumNote>>> = const { RefCell::new(None) };
    static PRODUCTS: Cell<u64> = const { Cell::new(0) };
    static WATCH: RefCell<Option<Watch>> = const { RefCell::new(None) };
    static BOOLEAN: RefCell<Option<Arc<[u32]>>> = const { RefCell::new(None) };
    static PRODUCT_SUMS: Cell<u32> = const { Cell::new(0) };
    static NOTED_BYTES: Cell<u64> = const { Cell::new(0) };
    static HELD: Cell<u32> = const { Cell::new(0) };
    static TWINS: RefCell<HashMap<u64, (usize, Range)>> = RefCell::default();
}

/// Bytes a bit of a noted sum (its terms' and its own) costs over a mixed
/// compilation: the note's copy, then the flat program's and the
/// partition's (measured: a loop of 100,000 products noted 105 MB and
/// peaked at 562 MB).
const NOTED_BIT_BYTES: u64 = 5 * std::mem::size_of::<Bit>() as u64;

/// The bytes the sums noted so far on this thread stand for, for the
/// memory budget of the compilation noting them.
pub(crate) fn held_bytes() -> u64 {
    NOTED_BYTES.with(Cell::get)
}

/// Starts a compilation on this thread: no products counted, sums noted
/// if `record` (but for the sums of products numbered in `boolean`,
/// sorted, which get their Boolean circuit), and the first product told
/// to `watch`.
pub(crate) fn start(record: bool, watch: Option<Watch>, boolean: Option<Arc<[u32]>>) {
    PRODUCTS.with(|p| p.set(0));
    HELD.with(|h| h.set(0));
    PRODUCT_SUMS.with(|p| p.set(0));
    NOTED_BYTES.with(|b| b.set(0));
    NOTES.with(|n| *n.borrow_mut() = record.then(Vec::new));
    TWINS.with(|t| t.borrow_mut().clear());
    WATCH.with(|w| *w.borrow_mut() = watch);
    BOOLEAN.with(|b| *b.borrow_mut() = boolean);
}

/// A [`noted`] sum with a product of two secret words is met: its number
/// among those, if it runs arithmetically (`None`: [`start`] asked for
/// its Boolean circuit).
pub(crate) fn product_sum() -> Option<u32> {
    let k = PRODUCT_SUMS.with(|p| p.replace(p.get() + 1));
    let boolean = BOOLEAN.with(|b| {
        b.borrow()
            .as_ref()
            .is_some_and(|s| s.binary_search(&k).is_ok())
    });
    (!boolean).then_some(k)
}

/// Whether sums are being noted: then a [`noted`] sum with a product of two
/// secret words gets no Boolean circuit, only fresh wires for its bits and
/// a note.
pub(crate) fn recording() -> bool {
    NOTES.with(|n| n.borrow().is_some())
}

/// Whether a sum of `w` bits is noted (when [`recording`]): words of 2 to
/// 64 bits, the arithmetic sharing's. It runs arithmetically if it has a
/// product of two secret words, else it is linear.
pub(crate) fn noted(w: u32) -> bool {
    recording() && (2..=64).contains(&w)
}

/// Notes a sum (when [`recording`]).
pub(crate) fn record(sum: SumNote) {
    NOTES.with(|n| {
        if let Some(notes) = n.borrow_mut().as_mut() {
            let bits: usize = sum.out.len()
                + (sum.terms.iter())
                    .map(|(t, _)| match t {
                        Term::Word(x) => x.len(),
                        Term::Product(x, y) => x.len() + y.len(),
                    })
                    .sum::<usize>();
            NOTED_BYTES.with(|b| b.set(b.get() + bits as u64 * NOTED_BIT_BYTES));
            notes.push(sum);
        }
    });
}

/// Notes a sum of products that runs arithmetically, its bits having range
/// `range`, under `key` (a hash of its terms) for [`twin`].
pub(crate) fn record_product_sum(sum: SumNote, key: u64, range: Range) {
    let at = NOTES.with(|n| n.borrow().as_ref().map(Vec::len));
    if let Some(at) = at {
        // (One sum a key, the first: keys of different sums seldom
        // collide, and a list a key cost a large product's compilation
        // tens of MB.)
        TWINS.with(|t| {
            t.borrow_mut().entry(key).or_insert((at, range));
        });
    }
    record(sum);
}

/// The bits and range of a sum of products noted before under `key` that
/// `same` finds has the terms of sum number `k`, met now: `k` is noted as
/// its twin. A sum written twice (a macro's `DOT(x, y)`) is then one
/// arithmetic sum, as it is one circuit in a Boolean compilation, where
/// what reads both (`a * b == a * b`) folds the same way.
pub(crate) fn twin(key: u64, same: impl Fn(&SumNote) -> bool, k: u32) -> Option<(Vec<Bit>, Range)> {
    let (at, range) = TWINS.with(|t| t.borrow().get(&key).copied())?;
    NOTES.with(|n| {
        let mut n = n.borrow_mut();
        let notes = n.as_mut()?;
        notes.get(at).filter(|note| same(note))?;
        notes[at].twins.push(k);
        Some((notes[at].out.clone(), range))
    })
}

/// Counts `products` products of two secret words.
pub(crate) fn count(products: u64) {
    let before = PRODUCTS.with(|p| p.replace(p.get().saturating_add(products)));
    if before == 0 && products > 0 && HELD.with(Cell::get) == 0 {
        WATCH.with(|w| w.borrow().as_ref().map(Watch::note_product));
    }
}

/// Holds what is counted from now on (a kept loop's trial template, which
/// may be thrown away) from the watch until [`release`]; returns the
/// products counted so far.
pub(crate) fn hold() -> u64 {
    HELD.with(|h| h.set(h.get() + 1));
    PRODUCTS.with(Cell::get)
}

/// Ends a [`hold`] that returned `mark`: the products counted since are
/// forgotten if `discard` (the template was thrown away), else the watch
/// is told of them (if no other hold is on).
pub(crate) fn release(mark: u64, discard: bool) {
    HELD.with(|h| h.set(h.get().saturating_sub(1)));
    if discard {
        PRODUCTS.with(|p| p.set(mark));
    } else if mark == 0 && PRODUCTS.with(Cell::get) > 0 && HELD.with(Cell::get) == 0 {
        WATCH.with(|w| w.borrow().as_ref().map(Watch::note_product));
    }
}

/// Ends a compilation on this thread: the products of two secret words
/// reduced, the sums noted, and how many sums of products got their
/// Boolean circuits.
pub(crate) fn finish() -> (u64, Vec<SumNote>, usize) {
    let products = PRODUCTS.with(|p| p.replace(0));
    let met = PRODUCT_SUMS.with(|p| p.replace(0));
    let boolean = BOOLEAN.with(|b| {
        let b = b.borrow();
        let set = b.as_deref().unwrap_or_default();
        set.partition_point(|&k| k < met)
    });
    let notes = NOTES.with(|n| n.borrow_mut().take()).unwrap_or_default();
    TWINS.with(|t| t.borrow_mut().clear());
    NOTED_BYTES.with(|b| b.set(0));
    WATCH.with(|w| w.borrow_mut().take());
    BOOLEAN.with(|b| b.borrow_mut().take());
    (products, notes, boolean)
}
