//! Unions: a union's memory is its bytes (one `unsigned char` leaf each).
//! A member of a union, or anything inside one, is a place in those bytes
//! viewed as its type: a read gathers its bytes and cuts them into its
//! leaves at their C offsets, a write splits its leaves into bytes and
//! writes those (padding bytes keep what they held). Little-endian, as gcc
//! on x86-64: a byte of an integer is a slice of its bits, a float is its
//! IEEE bits, a `_Bool` is a byte holding 0 or 1. It is wiring only.

use super::decl::Braces;
use super::place::value_of;
use super::*;

impl Lower<'_> {
    /// Member `m` of the struct or union at place `p` (a place in a
    /// union's bytes if the member lies in a union).
    pub(super) fn member_place(&self, mut p: Place, m: &str, loc: Loc) -> DResult<Place> {
        let (ft, off, bytes) = self.field_type(p.ty.clone(), m, p.bytes, loc)?;
        if let CType::Struct(s) = &p.ty {
            p.bit_field = s.bit_field(m).cloned();
        }
        p.leaf += off as i64;
        p.ty = ft;
        p.bytes = bytes;
        Ok(p)
    }

    /// Reads place `p`, which lies in a union's bytes.
    pub(super) fn read_bytes(&mut self, p: &Place, loc: Loc) -> DResult<Val> {
        let size = p.ty.size() as usize;
        if let Some(rec) = self.recording.as_mut() {
            rec.access(p, size, false);
        }
        let bytes = self.gather(p.obj, p.leaf, &p.sec, size, loc)?;
        let mut bits = Vec::with_capacity(size * 8);
        for s in &bytes {
            let Slot::Val(w) = s else {
                return err(loc, "a union's bytes hold a pointer");
            };
            let mut b = w.bits(&mut self.b);
            b.resize(8, Bit::Const(false));
            bits.extend(b);
        }
        let mut tys = Vec::new();
        p.ty.leaf_types(&mut tys);
        let mut offs = Vec::new();
        p.ty.leaf_offsets(0, &mut offs);
        let mut slots = Vec::with_capacity(tys.len());
        for (t, at) in tys.iter().zip(offs) {
            if matches!(t, CType::Pointer(_)) {
                return err(loc, "a pointer in a union is not supported");
            }
            let at = at as usize * 8;
            let leaf = bits[at..at + t.width() as usize].to_vec();
            slots.push(Slot::Val(Word::from_bits(leaf)));
        }
        value_of(&p.ty, slots, loc)
    }

    /// Writes `slots` (a value of `p`'s type) at place `p`, which lies in
    /// a union's bytes: its leaves' bytes, in runs between padding.
    pub(super) fn write_bytes(&mut self, p: &Place, slots: &[Slot], loc: Loc) -> DResult<()> {
        if let Some(rec) = self.recording.as_mut() {
            rec.access(p, p.ty.size() as usize, false);
        }
        let bytes = self.bytes_of(&p.ty, slots, loc)?;
        let mut k = 0;
        while k < bytes.len() {
            let run: Vec<Slot> = bytes[k..].iter().map_while(|b| b.clone()).collect();
            if !run.is_empty() {
                let at = p.leaf + k as i64;
                self.scatter(p.obj, at, &p.sec, &run, Bit::Const(true), loc)?;
            }
            k += run.len().max(1);
        }
        Ok(())
    }

    /// The bytes of a value of type `ty` whose leaves are `slots`, in C's
    /// layout (`None` for padding).
    fn bytes_of(&mut self, ty: &CType, slots: &[Slot], loc: Loc) -> DResult<Vec<Option<Slot>>> {
        let mut tys = Vec::new();
        ty.leaf_types(&mut tys);
        let mut offs = Vec::new();
        ty.leaf_offsets(0, &mut offs);
        let mut bytes = vec![None; ty.size() as usize];
        for ((t, at), s) in tys.iter().zip(offs).zip(slots) {
            let Slot::Val(w) = s else {
                return err(loc, "a pointer cannot be stored in a union");
            };
            let mut bits = w.bits(&mut self.b);
            // A `_Bool` fills its byte with 0 or 1.
            bits.resize(t.size() as usize * 8, Bit::Const(false));
            for (k, byte) in bits.chunks(8).enumerate() {
                bytes[at as usize + k] = Some(Slot::Val(Word::from_bits(byte.to_vec())));
            }
        }
        Ok(bytes)
    }

    /// Initializes union `ty` at leaf `leaf` of `obj` from list items
    /// from `*it` on, within `braces` (as [`Self::init_list`]): the first
    /// member, or each designated one in turn.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn init_union(
        &mut self,
        obj: usize,
        leaf: usize,
        ty: &CType,
        items: &[(Vec<Designator>, Init)],
        it: &mut usize,
        loc: Loc,
        braces: Braces,
    ) -> DResult<()> {
        let CType::Struct(s) = ty else {
            return err(loc, format!("{} is not a union", ty.name()));
        };
        let start = *it;
        while *it < items.len() {
            let (des, init) = &items[*it];
            let (taken, ours) = match braces {
                Braces::Own => (0, true),
                Braces::Designated(n) if *it == start => (n, true),
                _ => (0, false),
            };
            let des = &des[taken.min(des.len())..];
            let mut nested = None;
            let k = match des.first() {
                Some(_) if !ours => return Ok(()),
                Some(d) => {
                    let (k, inner) = self.designated(ty, d, loc)?;
                    if inner || des.len() > 1 {
                        nested = Some(Braces::Designated(taken + usize::from(!inner)));
                    }
                    k
                }
                None if *it == start => 0,
                None if braces == Braces::Own => {
                    return err(loc, "too many initializers for the union")
                }
                None => return Ok(()),
            };
            let member = s.fields[k].1.clone();
            let tmp = self.new_object(&member, loc)?;
            match nested {
                Some(b) => self.init_list(tmp, 0, &member, items, it, loc, b)?,
                None => self.init_member(tmp, 0, &member, init, items, it, loc)?,
            }
            let slots = self.objs[tmp].slots.clone();
            for (at, byte) in self.bytes_of(&member, &slots, loc)?.into_iter().enumerate() {
                if let Some(byte) = byte {
                    self.write_slot(obj, leaf + at, byte);
                }
            }
        }
        Ok(())
    }
}

/// Refuses a union or a bit-field as (part of) an input or output of the
/// entry function (`what` names it: "input 'INPUT_A'").
pub(super) fn refuse_io(what: &str, ty: &CType, loc: Loc) -> DResult<()> {
    let (held, instead) = if ty.holds_union() {
        ("a union: unions", "use a member's type")
    } else if ty.holds_bit_field() {
        ("a bit-field: bit-fields", "use a struct without bit-fields")
    } else {
        return Ok(());
    };
    err(
        loc,
        format!(
            "{what} has type {}, which holds {held} cannot be inputs or outputs ({instead})",
            ty.name()
        ),
    )
}

/// Where each leaf of an object lies in C's layout (see
/// [`CType::leaf_bits`]).
type Spans = Vec<(u64, u32, bool)>;

impl Lower<'_> {
    /// `memcpy` (`name`) of `n` bytes from `src` to `dst` (of pointee
    /// type `dt`) whose leaves differ: the source's bytes in C's layout
    /// (padding as 0) written over the destination's.
    pub(super) fn copy_bytes(
        &mut self,
        name: &str,
        (dt, dst): (CType, Ptr),
        (src, n): (&Ptr, i128),
        loc: Loc,
    ) -> DResult<Val> {
        let (spans, start) = self.spans(src, n, loc)?;
        let mut image = vec![Bit::Const(false); n as usize * 8];
        let end = start + image.len() as u64;
        for (leaf, &(at, width, _)) in spans.iter().enumerate().skip(src.leaf as usize) {
            if at >= end {
                break;
            }
            let Slot::Val(w) = self.slot(src.obj, leaf) else {
                return err(
                    loc,
                    format!("'{name}' of a pointer into memory of another layout is not supported"),
                );
            };
            let mut bits = w.bits(&mut self.b);
            bits.resize(width as usize, Bit::Const(false));
            for (k, bit) in bits.into_iter().enumerate() {
                if let Some(i) = (at + k as u64)
                    .checked_sub(start)
                    .filter(|&i| i < end - start)
                {
                    image[i as usize] = bit;
                }
            }
        }
        self.write_object_bits(&dst, &image, name, loc)?;
        Ok(Val::Ptr(dt, dst))
    }

    /// `memset` (`name`) of `n` bytes at `dst` to `byte`, in C's layout.
    pub(super) fn set_bytes(
        &mut self,
        dst: &Ptr,
        byte: &Word,
        n: i128,
        name: &str,
        loc: Loc,
    ) -> DResult<()> {
        self.spans(dst, n, loc)?;
        let bits = byte.bits(&mut self.b);
        let image: Vec<Bit> = (0..n as usize * 8).map(|i| bits[i % 8]).collect();
        self.write_object_bits(dst, &image, name, loc)
    }

    /// Writes `image` (whole bytes' bits) over the object `dst` points
    /// into, from its leaf on, in C's layout (for `name`).
    pub(super) fn write_object_bits(
        &mut self,
        dst: &Ptr,
        image: &[Bit],
        name: &str,
        loc: Loc,
    ) -> DResult<()> {
        let (spans, start) = self.spans(dst, (image.len() / 8) as i128, loc)?;
        let end = start + image.len() as u64;
        for (leaf, &(at, width, signed)) in spans.iter().enumerate().skip(dst.leaf as usize) {
            if at >= end {
                break;
            }
            let Slot::Val(w) = self.slot(dst.obj, leaf) else {
                return err(
                    loc,
                    format!("'{name}' over a pointer in memory of another layout is not supported"),
                );
            };
            let mut bits = w.bits(&mut self.b);
            bits.resize(width as usize, Bit::Const(false));
            for (k, bit) in bits.iter_mut().enumerate() {
                if let Some(i) = (at + k as u64)
                    .checked_sub(start)
                    .filter(|&i| i < end - start)
                {
                    *bit = image[i as usize];
                }
            }
            // The leaf's own width: a `_Bool` its low bit, a bit-field
            // extended.
            let fill = match signed {
                true => bits[width as usize - 1],
                false => Bit::Const(false),
            };
            bits.resize(self.objs[dst.obj].leaf_tys[leaf].width() as usize, fill);
            self.write_slot(dst.obj, leaf, Slot::Val(Word::from_bits(bits)));
        }
        Ok(())
    }

    /// The C layout of the object `p` points into, and the bit where
    /// `p`'s leaf starts, checking that `n` bytes from there lie inside.
    fn spans(&self, p: &Ptr, n: i128, loc: Loc) -> DResult<(Spans, u64)> {
        let ty = &self.objs[p.obj].ty;
        let mut spans = Vec::new();
        ty.leaf_bits(0, &mut spans);
        let size = ty.size() as i128 * 8;
        let start = match spans.get(p.leaf as usize) {
            _ if p.leaf < 0 => return err(loc, "memory access outside the object"),
            Some(&(at, ..)) => at,
            None => size as u64,
        };
        if n < 0 || start as i128 + n * 8 > size {
            return err(loc, "memory access outside the object");
        }
        Ok((spans, start))
    }
}
