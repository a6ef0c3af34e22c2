//! Sums in carry-save form, as a parallel region's iterations leave
//! their partials: two words (and constants) that the total adds up with
//! the other partials' rows, instead of a word each reduced in the region.

use std::rc::Rc;

use twofold_circuit::{Bit, Builder};

use super::sum::{self, Lazy, Row, RowKind};
use super::Word;
use crate::gates;

impl Word {
    /// The same value with a sum's rows reduced to two words and a
    /// constant row (carry-save, without the final carry chain): the gates
    /// of a partial sum are made now, and adding it into a later sum costs
    /// what adding its rows would have. (The constant kept apart costs
    /// nothing there: see [`gates::Sum::finish_carry_save_apart`].)
    pub fn carry_save(&self, b: &mut Builder) -> Word {
        let Word::Sum(l) = self else {
            return self.clone();
        };
        // At most two words added: they are their own carry-save form.
        let short = self.without_zero_rows();
        match &short {
            Word::Sum(s) if !s.is_reduced() && !s.is_two_words() => {}
            _ => return short,
        }
        let mut s = gates::Sum::new(l.w as usize);
        for r in l.rows().iter() {
            match &r.kind {
                RowKind::Word(x, rx) => s.add_ranged(b, x, r.neg, Some(*rx)),
                RowKind::Product((x, rx), (y, ry)) => {
                    s.add_product_ranged(b, (x, Some(*rx)), (y, Some(*ry)), r.neg)
                }
            }
        }
        // (Only parallel regions make partials: a mixed compilation has
        // none, so the products are counted, not noted.)
        crate::mixed::notes::count(sum::secret_products(&l.rows()) as u64);
        let (x, y, c) = s.finish_carry_save_apart(b);
        let constant = (c != 0).then(|| Word::konst_wide(c, l.w).bits(b));
        let rows = [x, y]
            .into_iter()
            .chain(constant)
            .map(|bits| {
                let r = gates::value_range(&bits);
                Row {
                    kind: RowKind::Word(Rc::from(bits), r),
                    neg: false,
                }
            })
            .collect();
        Lazy::word(l.w, rows)
    }

    /// The same sum without its rows of zeros (a sum started from zero,
    /// `s = 0; s += x`, holds one), the word itself if one word is left:
    /// no gates are made.
    pub fn without_zero_rows(&self) -> Word {
        let Word::Sum(l) = self else {
            return self.clone();
        };
        if l.is_reduced() {
            return self.clone();
        }
        let rows: Vec<Row> = (l.rows().iter())
            .filter(|r| !matches!(&r.kind, RowKind::Word(x, _) if x.iter().all(|b| *b == Bit::Const(false))))
            .cloned()
            .collect();
        if let [Row {
            kind: RowKind::Word(x, r),
            neg: false,
        }] = &rows[..]
        {
            return Word::Bits(x.clone(), *r);
        }
        Lazy::word(l.w, rows)
    }

    /// A sum of at most 64 bits without its rows of constant bits, and
    /// their total modulo `2^w` as a constant (`None` if it has none, or
    /// they add up to zero); another value as it is. A region's partials
    /// give theirs to the reduction's folded constant (see
    /// [`Word::carry_save`]), rather than hold a row of constants an
    /// iteration.
    pub fn constant_rows_apart(&self) -> (Word, Option<Word>) {
        let Word::Sum(l) = self else {
            return (self.clone(), None);
        };
        if l.w > 64 || l.is_reduced() {
            return (self.clone(), None);
        }
        let (mut total, mut rows) = (0u64, Vec::new());
        for r in l.rows().iter() {
            let value = match &r.kind {
                RowKind::Word(x, _) => gates::const_value(x),
                RowKind::Product(..) => None,
            };
            match value {
                Some(v) if r.neg => total = total.wrapping_sub(v),
                Some(v) => total = total.wrapping_add(v),
                None => rows.push(r.clone()),
            }
        }
        let constant = Word::konst(total, l.w);
        if constant.as_const() == Some(0) {
            // (None, or rows adding up to zero: the sum as it is.)
            return (self.clone(), None);
        }
        (Lazy::word(l.w, rows), Some(constant))
    }
}
