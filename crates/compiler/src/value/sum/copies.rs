//! Rows a lazy sum copied from another (`v = x + s[i - 1]`, where
//! `s[i - 1]` is a lazy sum stored before): if that sum's bits are made
//! before this sum's, its rows are added as one word, not again one by one.
//! A recurrence stored every step (`s[i] = x[i] + s[i - 1]`, an integral
//! image's `s[i][j] = x + s[i-1][j] + s[i][j-1] - s[i-1][j-1]`) then costs
//! an adder a step, not the sum of every row before it for each stored
//! value.

use std::rc::{Rc, Weak};

use super::{like_rows, secret_bits, Lazy, Row, RowKind};

/// Rows `at..at + len` of a row vector are the rows of the sum `from`,
/// subtracted if `neg`: added whole when `from` was not reduced.
#[derive(Clone, Debug)]
pub(super) struct Copied {
    pub(super) at: usize,
    pub(super) len: usize,
    pub(super) from: Weak<Lazy>,
    pub(super) neg: bool,
}

impl Copied {
    /// The copy of `from`'s rows at `at` (`len` of them).
    pub(super) fn of(from: &Rc<Lazy>, at: usize, len: usize, neg: bool) -> Copied {
        Copied {
            at,
            len,
            from: Rc::downgrade(from),
            neg,
        }
    }

    /// The row that stands for the copied rows: the sum's bits, if made.
    fn reduced(&self) -> Option<Row> {
        let from = self.from.upgrade()?;
        let (bits, range) = from.reduced_bits()?;
        Some(Row {
            kind: RowKind::Word(bits, range),
            neg: self.neg,
        })
    }
}

/// `rows[start..]` with every copy of a sum (`copies`, of the vector
/// `rows` begins) that lies within it and has been reduced since replaced
/// by that sum's bits; `None` if nothing is replaced.
pub(super) fn with_reduced_copies(
    rows: &[Row],
    copies: &[Copied],
    start: usize,
) -> Option<Vec<Row>> {
    let mut within: Vec<(&Copied, Row)> = copies
        .iter()
        .filter(|c| c.at >= start && c.at + c.len <= rows.len())
        .filter_map(|c| Some((c, c.reduced()?)))
        .collect();
    if within.is_empty() {
        return None;
    }
    within.sort_by_key(|(c, _)| c.at);
    let mut out = Vec::with_capacity(rows.len() - start);
    let mut at = start;
    for (c, row) in within {
        if c.at < at {
            continue;
        }
        out.extend_from_slice(&rows[at..c.at]);
        out.push(row);
        at = c.at + c.len;
    }
    out.extend_from_slice(&rows[at..]);
    Some(out)
}

/// The secret bits `rows` add once like rows are collected (a product's
/// as its factors' multiplied).
pub(super) fn cost(rows: &[Row]) -> usize {
    like_rows(rows)
        .into_iter()
        .map(|(kind, k)| {
            let bits = match kind {
                RowKind::Word(x, _) => secret_bits(x),
                RowKind::Product((x, _), (y, _)) => secret_bits(x) * secret_bits(y),
            };
            k.unsigned_abs() as usize * bits
        })
        .sum()
}
