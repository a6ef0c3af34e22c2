//! C11 generic selections: the association chosen by the type of the
//! controlling expression after lvalue conversion (arrays become pointers;
//! qualifiers are not tracked), which is not evaluated.

use super::*;

impl<'p> Lower<'p> {
    /// The expression of the association `_Generic(c, assocs)` (at `loc`)
    /// selects. Twofold's types have no qualifiers and do not tell `long`
    /// from `long long` nor `char` from `signed char`: where two
    /// associations match for that reason, the selection is refused rather
    /// than guessed.
    pub(super) fn generic_choice<'e>(
        &mut self,
        c: &Expr,
        assocs: &'e [(Option<TypeExpr>, Expr)],
        loc: Loc,
    ) -> DResult<&'e Expr> {
        let ty = decay(self.static_type(c)?);
        let mut chosen = None;
        let mut default = None;
        for (t, e) in assocs {
            let Some(t) = t else {
                default = Some(e);
                continue;
            };
            if self.resolve_type(t, None, e.loc)? != ty {
                continue;
            }
            if chosen.is_some() {
                return err(
                    loc,
                    format!("_Generic: two associations match the type '{ty}' (twofold's types have no qualifiers, and do not tell 'long' from 'long long' nor 'char' from 'signed char')"),
                );
            }
            chosen = Some(e);
        }
        match chosen.or(default) {
            Some(e) => Ok(e),
            None => err(
                loc,
                format!("_Generic: no association matches the type '{ty}' and there is no default"),
            ),
        }
    }
}
