//! Enumeration specifiers.

use super::expr::const_eval;
use super::Parser;
use crate::error::{err, DResult, Loc};
use crate::types::{CType, Scalar};

impl Parser<'_> {
    /// An enumeration specifier; its type is what gcc gives it: `unsigned
    /// int` without negative values, `int` with them, and the 64-bit type
    /// of that signedness where values pass 32 bits (with the `packed`
    /// attribute, the narrowest type of that signedness that holds the
    /// values). A constant that fits `int` is an `int`; any other has the
    /// enumeration's type.
    pub(super) fn enum_spec(&mut self, loc: Loc) -> DResult<CType> {
        let mut attributes = self.attributes()?;
        let tag = self.tag();
        if !self.eat("{") {
            let Some(tag) = tag else {
                return err(loc, "expected an enum tag or '{'");
            };
            return Ok(self.enum_types.get(&tag).cloned().unwrap_or(CType::INT));
        }
        let int_range = i32::MIN as i128..=i32::MAX as i128;
        let mut values: Vec<(String, i128)> = Vec::new();
        let mut next = 0i128;
        while !self.eat("}") {
            let (name, at) = self.ident()?;
            if values.iter().any(|(n, _)| *n == name) {
                return err(at, format!("redeclaration of enumerator '{name}'"));
            }
            if self.eat("=") {
                let e = self.cond_expr()?;
                match const_eval(&e) {
                    Some(v) => next = v,
                    None => return err(e.loc, "enum value is not a constant"),
                }
            }
            if !(i64::MIN as i128..=u64::MAX as i128).contains(&next) {
                return err(loc, format!("enumerator '{name}' is out of range"));
            }
            let ty = match next {
                v if int_range.contains(&v) => Scalar::INT,
                v if (0..=u32::MAX as i128).contains(&v) => Scalar::int(32, false),
                v if v > i64::MAX as i128 => Scalar::int(64, false),
                _ => Scalar::int(64, true),
            };
            if let Some(s) = self.enums.last_mut() {
                s.insert(name.clone(), (next as i64, ty));
            }
            values.push((name, next));
            next += 1;
            if !self.eat(",") {
                self.expect("}")?;
                break;
            }
        }
        let signed = values.iter().any(|(_, v)| *v < 0);
        let wide = if signed {
            values.iter().any(|(_, v)| !int_range.contains(v))
        } else {
            values.iter().any(|(_, v)| *v > u32::MAX as i128)
        };
        if signed && values.iter().any(|(_, v)| *v > i64::MAX as i128) {
            return err(loc, "enumerator values do not fit one integer type");
        }
        attributes = attributes.with(self.attributes()?);
        let bits = match attributes.packed {
            true => packed_width(&values, signed),
            false if wide => 64,
            false => 32,
        };
        let ty = Scalar::int(bits, signed);
        for (name, v) in values.iter().filter(|(_, v)| !int_range.contains(v)) {
            if let Some(s) = self.enums.last_mut() {
                s.insert(name.clone(), (*v as i64, ty));
            }
        }
        let ctype = CType::Int {
            bits: ty.width,
            signed,
        };
        if let Some(tag) = tag {
            self.enum_types.insert(tag, ctype.clone());
        }
        Ok(ctype)
    }
}

/// The width of the narrowest integer type of signedness `signed` that
/// holds every value of a `packed` enumeration.
fn packed_width(values: &[(String, i128)], signed: bool) -> u32 {
    let fits = |bits: u32| {
        let (lo, hi) = match signed {
            true => (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1),
            false => (0, (1i128 << bits) - 1),
        };
        values.iter().all(|(_, v)| (lo..=hi).contains(v))
    };
    [8, 16, 32].into_iter().find(|&b| fits(b)).unwrap_or(64)
}
