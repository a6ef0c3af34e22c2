//! Bit-fields: a named bit-field is one leaf of its promoted type (see
//! [`crate::types::StructDef`]) holding its value reduced to its width, as
//! gcc stores it: a value written keeps its low bits, sign-extended in a
//! signed bit-field. Its address and `sizeof` are errors, as in C.

use super::*;
use crate::types::BitField;

impl Lower<'_> {
    /// `v`, a value of `p`'s type, as a bit-field at `p` holds it (`v`
    /// itself if `p` is no bit-field).
    pub(super) fn fit_bit_field(&mut self, p: &Place, v: Val) -> Val {
        match (&p.bit_field, v) {
            (Some((bf, _)), Val::Int(s, w)) => Val::Int(s, self.reduce_to_width(&w, bf)),
            (_, v) => v,
        }
    }

    /// Reduces the word `w` (of a bit-field's promoted type) to the
    /// bit-field `bf`'s width: its low bits, extended by the sign bit if
    /// the declared type is signed.
    fn reduce_to_width(&mut self, w: &Word, bf: &BitField) -> Word {
        let (full, width) = (w.width() as usize, bf.width as usize);
        if width >= full {
            return w.clone();
        }
        let mut bits = w.bits(&mut self.b);
        bits.truncate(width);
        let signed = bf.ty.scalar().is_some_and(|s| s.signed);
        let fill = match signed {
            true => bits[width - 1],
            false => Bit::Const(false),
        };
        bits.resize(full, fill);
        Word::from_bits(bits)
    }

    /// Reduces member `k` of struct `ty`, initialized at leaf `leaf` of
    /// `obj`, to its width if it is a bit-field.
    pub(super) fn fit_initialized(&mut self, obj: usize, leaf: usize, ty: &CType, k: usize) {
        let CType::Struct(s) = ty else {
            return;
        };
        if let (Some(bf), Slot::Val(w)) = (s.bit_field_at(k), &self.objs[obj].slots[leaf]) {
            let w = self.reduce_to_width(&w.clone(), bf);
            self.write_slot(obj, leaf, Slot::Val(w));
        }
    }

    /// Fails if `e` names a bit-field (`what`, at `loc`, takes its address
    /// or size).
    pub(super) fn refuse_bit_field(&mut self, e: &Expr, what: &str, loc: Loc) -> DResult<()> {
        let (ExprKind::Member(a, m) | ExprKind::Arrow(a, m)) = &e.kind else {
            return Ok(());
        };
        let ty = match (&e.kind, self.static_type(a)?) {
            (ExprKind::Arrow(..), CType::Pointer(t) | CType::Array(t, _)) => (*t).clone(),
            (_, t) => t,
        };
        match &ty {
            CType::Struct(s) if s.bit_field(m).is_some() => {
                err(loc, format!("{what} of bit-field '{m}'"))
            }
            _ => Ok(()),
        }
    }
}
