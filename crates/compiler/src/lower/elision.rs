//! The size an initializer gives an array declared without one, its
//! braces elided (C11 6.7.9p20-22): `struct P a[] = {1, 2, 3, 4, 5}` has
//! three elements, `int b[][2] = {{1}, 2, 3}` two.

use super::*;
use crate::types::bad_array_size;

impl<'p> Lower<'p> {
    /// How many elements of type `elem` the initializer list `items`
    /// initializes: one more than the last it reaches.
    pub(super) fn elements_initialized(
        &mut self,
        elem: &CType,
        items: &[(Vec<Designator>, Init)],
        loc: Loc,
    ) -> DResult<u32> {
        let (mut i, mut k, mut n) = (0usize, 0i128, 0i128);
        while i < items.len() {
            let des = &items[i].0;
            if let Some(d) = des.first() {
                let Designator::Index(e) = d else {
                    return err(loc, "field designator in an array initializer");
                };
                k = const_eval(e)
                    .ok_or_else(|| diag(e.loc, "designator index is not a constant"))?;
                if k < 0 {
                    return err(e.loc, "designator index out of bounds");
                }
            }
            // The aggregates a designator (`[1].a.b = x`) enters, with
            // the member it names in each.
            let mut entered = Vec::new();
            let mut ty = elem.clone();
            for d in des.iter().skip(1) {
                loop {
                    let (m, inner) = self.designated(&ty, d, loc)?;
                    let member = member_type(&ty, m);
                    entered.push((ty, m));
                    ty = member;
                    if !inner {
                        break;
                    }
                }
            }
            let before = i;
            self.consume(&ty, items, &mut i)?;
            // (Items after it fill the rest of what it entered.)
            for (t, m) in entered.iter().rev() {
                self.elided(t, m + 1, items, &mut i, false)?;
            }
            // (An item that fills nothing, as in an array of no
            // elements, is one too many: initializing says so.)
            i = i.max(before + 1);
            k += 1;
            n = n.max(k);
        }
        match bad_array_size(n, MAX_LEAVES as i128) {
            Some(why) => err(loc, why),
            None => Ok(n as u32),
        }
    }

    /// Passes over the items from `*i` that initialize an object of type
    /// `ty`: one, or as many as fill it where its braces are elided.
    fn consume(
        &mut self,
        ty: &CType,
        items: &[(Vec<Designator>, Init)],
        i: &mut usize,
    ) -> DResult<()> {
        let whole = match (&items[*i].1, ty) {
            (Init::List(..), _) => true,
            (Init::Expr(e), CType::Array(..)) => matches!(
                e.kind,
                ExprKind::Str(_) | ExprKind::Compound(TypeExpr::Known(CType::Array(..)), _)
            ),
            (Init::Expr(e), CType::Struct(_)) => self.static_type(e).is_ok_and(|t| t == *ty),
            _ => true,
        };
        match whole {
            true => {
                *i += 1;
                Ok(())
            }
            false => self.elided(ty, 0, items, i, true),
        }
    }

    /// Passes over the items from `*i` that fill the members of aggregate
    /// `ty` from member `from` on, its braces elided: up to one with a
    /// designator (the enclosing list's), but for the first if `first`
    /// (its designators led here).
    fn elided(
        &mut self,
        ty: &CType,
        from: usize,
        items: &[(Vec<Designator>, Init)],
        i: &mut usize,
        mut first: bool,
    ) -> DResult<()> {
        let count = match ty {
            CType::Array(_, n) => *n as usize,
            CType::Struct(s) if s.union => 1,
            CType::Struct(s) => s.fields.len(),
            _ => 1,
        };
        for k in from..count {
            if *i >= items.len() || !first && !items[*i].0.is_empty() {
                break;
            }
            first = false;
            self.consume(&member_type(ty, k), items, i)?;
        }
        Ok(())
    }
}

/// The type of member `k` of aggregate `ty`.
fn member_type(ty: &CType, k: usize) -> CType {
    match ty {
        CType::Array(elem, _) => (**elem).clone(),
        CType::Struct(s) => s.fields[k].1.clone(),
        t => t.clone(),
    }
}
