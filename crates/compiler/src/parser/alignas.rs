//! C11 alignment specifiers, `_Alignas(constant)` and `_Alignas(type)`
//! (`alignas` of C23 and `<stdalign.h>`). On a variable they change no
//! value (twofold has no addresses to align); on a struct member they
//! change the struct's C layout (`sizeof`, `offsetof`, `_Alignof`).

use super::expr::const_eval;
use super::Parser;
use crate::ast::TypeExpr;
use crate::error::{err, DResult, Loc};

/// The greatest alignment `_Alignas` may ask, as gcc allows on x86-64.
const MAX_ALIGN: i128 = 1 << 28;

impl Parser<'_> {
    /// The parenthesized operand of `_Alignas`, after the keyword: the
    /// alignment in bytes it asks (0, which asks none, or a power of 2).
    pub(super) fn alignas_spec(&mut self) -> DResult<u64> {
        self.expect("(")?;
        let at = self.loc();
        let align = if self.starts_type() {
            let written = self.type_name()?;
            let ty = self.known(written)?;
            if let Some(t) = ty.incomplete() {
                return err(at, format!("_Alignas of the incomplete type '{t}'"));
            }
            ty.align()
        } else {
            let e = self.cond_expr()?;
            match const_eval(&e) {
                Some(v) if v == 0 || (v > 0 && v <= MAX_ALIGN && v.count_ones() == 1) => v as u64,
                Some(v) => {
                    return err(
                        at,
                        format!(
                            "requested alignment {v} is not a positive power of 2 (up to 2^28)"
                        ),
                    )
                }
                None => return err(at, "_Alignas needs a constant expression or a type name"),
            }
        };
        self.expect(")")?;
        Ok(align)
    }

    /// Checks the alignment `align` that `_Alignas` asks (0: none) of the
    /// declaration of `name`, of type `ty`, at `loc`: not on a typedef, and
    /// not less strict than the type's own alignment.
    pub(super) fn check_alignas(
        &self,
        align: u64,
        typedef: bool,
        ty: &TypeExpr,
        name: &str,
        loc: Loc,
    ) -> DResult<()> {
        if align == 0 {
            return Ok(());
        }
        if typedef {
            return err(loc, format!("_Alignas on the typedef '{name}'"));
        }
        // (A type the parser cannot size, a VLA or `typeof(expr)`, is not
        // checked.)
        match self.known(ty.clone()) {
            Ok(t) if t.incomplete().is_none() && t.align() > align => err(
                loc,
                format!(
                    "_Alignas({align}) cannot reduce the alignment of '{name}' ({} bytes)",
                    t.align()
                ),
            ),
            _ => Ok(()),
        }
    }
}
