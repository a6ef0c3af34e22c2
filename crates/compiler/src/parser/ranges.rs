//! GNU's range designators (`[lo ... hi] = x`): the item is read as one
//! item for each index of the range, `[lo] = x, ..., [hi] = x`.

use super::expr::const_eval;
use super::Parser;
use crate::ast::*;
use crate::error::{diag, err, DResult, Loc};
use crate::types::Scalar;

/// Most elements one range designator may name.
const MAX_RANGE: i128 = 1 << 20;

/// A range designator: where it is in its item's designators, its bounds
/// and where it is.
pub(super) type Range = (usize, i128, i128, Loc);

impl Parser<'_> {
    /// After `[lo`: the rest of a range designator (`... hi]`), if there
    /// is one, which takes position `at` in the item's designators.
    pub(super) fn range_end(&mut self, lo: &Expr, at: usize) -> DResult<Option<Range>> {
        if !self.eat("...") {
            return Ok(None);
        }
        let hi = self.cond_expr()?;
        let bound = |e: &Expr| {
            const_eval(e).ok_or_else(|| diag(e.loc, "range designator bound is not a constant"))
        };
        let (l, h) = (bound(lo)?, bound(&hi)?);
        if h < l {
            return err(
                hi.loc,
                "range designator is empty (its end is below its start)",
            );
        }
        if h - l >= MAX_RANGE {
            return err(
                hi.loc,
                format!("range designator covers more than {MAX_RANGE} elements"),
            );
        }
        Ok(Some((at, l, h, lo.loc)))
    }
}

/// The items `[lo ... hi]` designators in `des` stand for: `init` once for
/// each index of each range (all combinations), in order. An initializer
/// with side effects is refused there: gcc has them happen once.
pub(super) fn expand(
    des: Vec<Designator>,
    ranges: &[Range],
    init: Init,
) -> DResult<Vec<(Vec<Designator>, Init)>> {
    if let Some((.., loc)) = ranges.first() {
        let mut effects = false;
        init.for_each_expr(&mut |e| effects |= e.has_side_effects());
        if effects {
            return err(
                *loc,
                "a range designator's initializer has side effects (not supported: gcc has them happen once)",
            );
        }
    }
    Ok(copies(des, ranges, init))
}

/// `init` with `des`, once for each combination of the indices of `ranges`.
fn copies(des: Vec<Designator>, ranges: &[Range], init: Init) -> Vec<(Vec<Designator>, Init)> {
    let Some(((at, lo, hi, loc), rest)) = ranges.split_first() else {
        return vec![(des, init)];
    };
    let mut items = Vec::new();
    for k in *lo..=*hi {
        let mut one = des.clone();
        let index = Expr {
            kind: ExprKind::Int(k as u64, Scalar::int(64, true)),
            loc: *loc,
        };
        one[*at] = Designator::Index(index);
        items.extend(copies(one, rest, init.clone()));
    }
    items
}
