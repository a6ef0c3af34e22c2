//! Lazy sums: rows of words and products added modulo `2^w`, reduced to
//! bits together (carry-save) when their bits are first needed.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use twofold_circuit::{Bit, Builder};

use super::Word;
use crate::gates::{self, Bits, Range};

/// Most rows a lazy sum collects before it is reduced.
pub(super) const MAX_ROWS: usize = 256;

/// A lazy sum: rows added modulo `2^w`.
#[derive(Debug)]
pub struct Lazy {
    pub(super) w: u32,
    pub(super) rows: Vec<Row>,
    pub(super) cache: RefCell<Option<(Rc<Bits>, Range)>>,
    /// Whether a sum took these rows already.
    pub(super) taken: Cell<bool>,
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
    Word(Rc<Bits>, Range),
    Product((Rc<Bits>, Range), (Rc<Bits>, Range)),
}

/// How many of `x` are not constants.
pub(super) fn secret_bits(x: &[Bit]) -> usize {
    x.iter().filter(|b| matches!(b, Bit::Wire(_))).count()
}

impl Row {
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
        Word::Sum(Rc::new(Lazy {
            w,
            rows,
            cache: RefCell::new(None),
            taken: Cell::new(false),
        }))
    }

    /// The sum's bits and range, reduced once and kept.
    pub(super) fn resolve(&self, b: &mut Builder) -> (Rc<Bits>, Range) {
        if let Some(c) = self.cache.borrow().as_ref() {
            return c.clone();
        }
        let (bits, r) = reduce(b, self.w, &self.rows);
        let res = (Rc::new(bits), r);
        *self.cache.borrow_mut() = Some(res.clone());
        res
    }
}

/// The sum of `rows` modulo `2^w` as bits, and its range.
pub(super) fn reduce(b: &mut Builder, w: u32, rows: &[Row]) -> (Bits, Range) {
    let mut s = gates::Sum::new(w as usize);
    for r in rows {
        match &r.kind {
            RowKind::Word(x, rx) => s.add_ranged(b, x, r.neg, Some(*rx)),
            RowKind::Product((x, rx), (y, ry)) => {
                s.add_product_ranged(b, (x, Some(*rx)), (y, Some(*ry)), r.neg)
            }
        }
    }
    s.finish_ranged(b)
}
