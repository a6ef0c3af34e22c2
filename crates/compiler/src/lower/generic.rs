//! C11 generic selections: the association chosen by the type of the
//! controlling expression after lvalue conversion (arrays become pointers;
//! qualifiers are not tracked), which is not evaluated.

use super::*;

impl<'p> Lower<'p> {
    /// The expression of the association `_Generic(c, assocs)` (at `loc`)
    /// selects. A qualified type (`const int`) matches no controlling
    /// type, which is unqualified. Twofold's types record no qualifiers
    /// otherwise and do not tell `long` from `long long` nor `char` from
    /// `signed char`: a selection that turns on that is refused rather than
    /// guessed (gcc would not choose `long long` for a `long`).
    pub(super) fn generic_choice<'e>(
        &mut self,
        c: &Expr,
        assocs: &'e [Association],
        loc: Loc,
    ) -> DResult<&'e Expr> {
        let ty = decay(self.static_type(c)?);
        let mut chosen = None;
        let mut default = None;
        for a in assocs {
            let Some(t) = &a.ty else {
                default = Some(&a.value);
                continue;
            };
            if a.top_qualified || self.resolve_type(t, None, a.value.loc)? != ty {
                continue;
            }
            if chosen.is_some() {
                return err(
                    loc,
                    format!("_Generic: two associations match the type '{ty}' (twofold's types have no qualifiers, and do not tell 'long' from 'long long' nor 'char' from 'signed char')"),
                );
            }
            chosen = Some(a);
        }
        if let Some(a) = chosen {
            if let Some(why) = undecidable(&ty, a.qualified) {
                return err(
                    a.value.loc,
                    format!("_Generic: cannot tell whether this association matches the type '{ty}': {why}"),
                );
            }
        }
        match chosen.map(|a| &a.value).or(default) {
            Some(e) => Ok(e),
            None => err(
                loc,
                format!("_Generic: no association matches the type '{ty}' and there is no default"),
            ),
        }
    }
}

/// Why an association of type `ty` (spelled with a qualifier if
/// `qualified`) that matches the controlling type as twofold's types see
/// it may not match it as C's do: `None` if it does.
fn undecidable(ty: &CType, qualified: bool) -> Option<&'static str> {
    match ty {
        _ if qualified => Some("twofold's types do not record qualifiers"),
        CType::Int { bits: 64, .. } => Some("twofold's types do not tell 'long' from 'long long'"),
        CType::Int {
            bits: 8,
            signed: true,
        } => Some("twofold's types do not tell 'char' from 'signed char'"),
        CType::Pointer(_) => Some(
            "twofold's types do not record the qualifiers or spelling of what a pointer points to",
        ),
        _ => None,
    }
}
