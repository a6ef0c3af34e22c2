//! Sums that share rows: comparing or selecting between them leaves the
//! rows they have in common out (`x + 1 < y + 1` is `x < y`, and the lesser
//! of `x + 1` and `y + 1` is the lesser of `x` and `y`, plus 1), so neither
//! sum is reduced to bits for it.

use twofold_circuit::{Bit, Builder};

use super::sum::{rows_bounds, without_common, RowKind};
use super::{Lazy, Row, Word};
use crate::gates;

impl Word {
    /// `self` and `y` less the rows of their sums they have in common,
    /// where each is then a single word (comparing them needs no adder):
    /// compared as values of a type whose values lie in `fits` (an order)
    /// or modulo `2^width` (`None`: equality), they compare as `self` and
    /// `y` do. The common rows add the same to both sides and, for an
    /// order, no side leaves `fits` with or without them.
    pub fn without_common_rows(
        &self,
        b: &mut Builder,
        y: &Word,
        fits: Option<(i128, i128)>,
    ) -> Option<(Word, Word)> {
        if !matches!(self, Word::Sum(_)) && !matches!(y, Word::Sum(_)) {
            return None;
        }
        let w = self.width();
        let (rx, ry) = (self.rows(b), y.rows(b));
        let (_, x_left, y_left) = without_common(&rx, &ry)?;
        if let Some(fits) = fits {
            if !all_inside(fits, [&rx, &ry, &x_left, &y_left]) {
                return None;
            }
        }
        Some((single_row(w, &x_left)?, single_row(w, &y_left)?))
    }

    /// `sel ? self : y` where `sel` says that `self` is the greater of the
    /// two (`greater`) or the lesser, for two sums with rows in common, of
    /// a type whose values lie in `fits`: the common rows, plus the
    /// greater (or lesser) of what is left of each, selected by `sel` and
    /// ranged as such. Only where what is left of each is a single word
    /// and no side leaves `fits` with or without the common rows: the
    /// comparison that made `sel` then compared those words (see
    /// [`Word::without_common_rows`]) and ordered them as the sums, and
    /// neither sum is reduced (the result is, once, where it is read).
    pub fn extremum_of_sums(
        &self,
        b: &mut Builder,
        sel: Bit,
        y: &Word,
        greater: bool,
        fits: (i128, i128),
    ) -> Option<Word> {
        if !matches!(self, Word::Sum(_)) || !matches!(y, Word::Sum(_)) {
            return None;
        }
        let w = self.width();
        let (rx, ry) = (self.rows(b), y.rows(b));
        let (mut rows, x_left, y_left) = without_common(&rx, &ry)?;
        if !all_inside(fits, [&rx, &ry, &x_left, &y_left]) {
            return None;
        }
        let (sx, sy) = (single_row(w, &x_left)?, single_row(w, &y_left)?);
        let picked = if greater {
            sx.range(b).greater(sy.range(b))
        } else {
            sx.range(b).lesser(sy.range(b))
        };
        let (bx, by) = (sx.bits(b), sy.bits(b));
        let m = Word::from_bits_ranged(gates::mux(b, sel, &bx, &by), picked);
        let (bits, r) = m.shared_bits(b);
        rows.push(Row {
            kind: RowKind::Word(bits, r),
            neg: false,
        });
        Some(Lazy::word(w, rows))
    }
}

/// Whether the sums of each of `sums` lie in `fits` (`lo..=hi`) as
/// integers.
fn all_inside<const N: usize>((lo, hi): (i128, i128), sums: [&Vec<Row>; N]) -> bool {
    sums.into_iter()
        .all(|rows| rows_bounds(rows).is_some_and(|(l, h)| lo <= l && h <= hi))
}

/// The word a sum of `rows` modulo `2^w` is when it needs no adder: no
/// row (zero) or a single word added.
fn single_row(w: u32, rows: &[Row]) -> Option<Word> {
    match rows {
        [] => Some(Word::konst(0, w)),
        [Row {
            kind: RowKind::Word(x, r),
            neg: false,
        }] if x.len() == w as usize => Some(Word::from_bits_ranged(x.to_vec(), *r)),
        _ => None,
    }
}
