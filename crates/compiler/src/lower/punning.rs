//! Memory read as another type than it holds (type punning), through C's
//! byte layout. Little-endian, as gcc on x86-64: a byte of an integer is a
//! slice of its bits, a float is its IEEE bits, a `_Bool` is a byte
//! holding 0 or 1. It is wiring only.
//!
//! - Unions: a union's memory is its bytes (one `unsigned char` leaf
//!   each). A member of a union, or anything inside one, is a place in
//!   those bytes viewed as its type: a read gathers its bytes and cuts
//!   them into its leaves at their bits ([`CType::leaf_bits`]), a write
//!   splits its leaves into bytes and writes those (padding keeps what it
//!   held; a bit-field keeps the other bits of its bytes).
//! - `memcpy` and `memset` between layouts, and a scalar through a
//!   pointer of another type at a public position (`*(uint32_t *)&f`):
//!   the bytes of any object, read and written at their C offsets.

use super::decl::Braces;
use super::place::value_of;
use super::*;

impl Lower<'_> {
    /// Member `m` of the struct or union at place `p` (a place in a
    /// union's bytes if the member lies in a union).
    pub(super) fn member_place(&self, mut p: Place, m: &str, loc: Loc) -> DResult<Place> {
        let (ft, off, bytes) = self.field_type(p.ty.clone(), m, p.bytes, loc)?;
        if let CType::Struct(s) = &p.ty {
            let shift = match bytes {
                true => s.bit_start(m).unwrap_or(0) % 8,
                false => 0,
            };
            p.bit_field = s.bit_field(m).map(|bf| (bf.clone(), shift));
        }
        p.leaf += off as i64;
        p.ty = ft;
        p.bytes = bytes;
        Ok(p)
    }

    /// Reads place `p`, which lies in a union's bytes.
    pub(super) fn read_bytes(&mut self, p: &Place, loc: Loc) -> DResult<Val> {
        let slots = self.read_leaves(p, loc)?;
        value_of(&p.ty, slots, loc)
    }

    /// The leaves of place `p`, which lies in a union's bytes.
    fn read_leaves(&mut self, p: &Place, loc: Loc) -> DResult<Vec<Slot>> {
        let (spans, n) = view(p);
        if let (Some(rec), false) = (self.recording.as_mut(), p.view) {
            rec.access(p, n, false);
        }
        let bytes = self.gather_bytes(p, n, loc)?;
        let bits = self.bits_of(&bytes, loc)?;
        let mut tys = Vec::new();
        p.ty.leaf_types(&mut tys);
        let mut slots = Vec::with_capacity(tys.len());
        for (t, (at, width, signed)) in tys.iter().zip(spans) {
            if matches!(t, CType::Pointer(_)) {
                return err(loc, "a pointer in a union is not supported");
            }
            let mut leaf = bits[at as usize..(at + u64::from(width)) as usize].to_vec();
            let fill = match signed {
                true => leaf[width as usize - 1],
                false => Bit::Const(false),
            };
            // The leaf's own width: a `_Bool` its low bit, a bit-field
            // extended.
            leaf.resize(t.width() as usize, fill);
            slots.push(Slot::Val(Word::from_bits(leaf)));
        }
        Ok(slots)
    }

    /// Writes `slots` (a value of `p`'s type) at place `p`, which lies in
    /// a union's bytes: the bytes its leaves cover, in runs between
    /// padding (the rest of a byte a bit-field shares keeps its bits).
    pub(super) fn write_bytes(&mut self, p: &Place, slots: &[Slot], loc: Loc) -> DResult<()> {
        let (spans, n) = view(p);
        if let (Some(rec), false) = (self.recording.as_mut(), p.view) {
            rec.access(p, n, false);
        }
        let mut image = vec![None; n * 8];
        for ((at, width, _), s) in spans.into_iter().zip(slots) {
            let Slot::Val(w) = s else {
                return err(loc, "a pointer cannot be stored in a union");
            };
            let mut bits = w.bits(&mut self.b);
            // A `_Bool` fills its byte with 0 or 1.
            bits.resize(width as usize, Bit::Const(false));
            for (k, bit) in bits.into_iter().enumerate() {
                image[at as usize + k] = Some(bit);
            }
        }
        if p.bit_field.is_some() {
            let old = self.gather_bytes(p, n, loc)?;
            for (new, old) in image.iter_mut().zip(self.bits_of(&old, loc)?) {
                new.get_or_insert(old);
            }
        }
        // Bytes written, `None` for padding (bits of padding are 0).
        let bytes: Vec<Option<Slot>> = image
            .chunks(8)
            .map(|byte| {
                let bits = byte.iter().map(|b| b.unwrap_or(Bit::Const(false)));
                let any = byte.iter().any(Option::is_some);
                any.then(|| Slot::Val(Word::from_bits(bits.collect())))
            })
            .collect();
        let mut k = 0;
        while k < bytes.len() {
            let run: Vec<Slot> = bytes[k..].iter().map_while(|b| b.clone()).collect();
            if !run.is_empty() {
                self.scatter_bytes(p, p.leaf + k as i64, &run, loc)?;
            }
            k += run.len().max(1);
        }
        Ok(())
    }

    /// The bits of `bytes`, a union's bytes.
    fn bits_of(&mut self, bytes: &[Slot], loc: Loc) -> DResult<Vec<Bit>> {
        let mut bits = Vec::with_capacity(bytes.len() * 8);
        for s in bytes {
            let Slot::Val(w) = s else {
                return err(loc, "a union's bytes hold a pointer");
            };
            let mut b = w.bits(&mut self.b);
            b.resize(8, Bit::Const(false));
            bits.extend(b);
        }
        Ok(bits)
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
            let mut p = Place::whole(obj, member.clone());
            p.leaf = leaf as i64;
            p.bytes = true;
            if self.union_members.get(&(obj, leaf)) == Some(&k) {
                // The member written last: what its designators wrote
                // stays (`.w = a, .h = b` into one struct of the union).
                for (i, slot) in self.read_leaves(&p, loc)?.into_iter().enumerate() {
                    self.write_slot(tmp, i, slot);
                }
            }
            match nested {
                Some(b) => self.init_list(tmp, 0, &member, items, it, loc, b)?,
                None => self.init_member(tmp, 0, &member, init, items, it, loc)?,
            }
            let slots = self.objs[tmp].slots.clone();
            self.write_bytes(&p, &slots, loc)?;
            self.union_members.insert((obj, leaf), k);
        }
        Ok(())
    }
}

/// The bits place `p` in a union's bytes covers, per leaf of its type
/// (see [`CType::leaf_bits`]), and how many bytes they span.
fn view(p: &Place) -> (Spans, usize) {
    match &p.bit_field {
        Some((bf, shift)) => {
            let signed = bf.ty.scalar().is_some_and(|s| s.signed);
            let n = (shift + u64::from(bf.width)).div_ceil(8) as usize;
            (vec![(*shift, bf.width, signed)], n)
        }
        None => {
            let mut spans = Vec::new();
            p.ty.leaf_bits(0, &mut spans);
            (spans, p.ty.size() as usize)
        }
    }
}

/// Refuses a union, a bit-field or a 128-bit integer (whose values
/// inputs and outputs cannot spell) as (part of) an input or output of
/// the entry function (`what` names it: "input 'INPUT_A'").
pub(super) fn refuse_io(what: &str, ty: &CType, loc: Loc) -> DResult<()> {
    let (held, instead) = if ty.holds_union() {
        ("a union: unions", "use a member's type")
    } else if ty.holds_bit_field() {
        ("a bit-field: bit-fields", "use a struct without bit-fields")
    } else if holds_int128(ty) {
        (
            "a 128-bit integer: 128-bit integers",
            "use two 64-bit halves",
        )
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

/// Whether a value of type `ty` holds an `__int128`.
fn holds_int128(ty: &CType) -> bool {
    match ty {
        CType::Array(e, _) => holds_int128(e),
        CType::Struct(s) => s.fields.iter().any(|(_, t)| holds_int128(t)),
        t => t.scalar().is_some_and(|s| s.width > 64),
    }
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
        let image = self.object_image(src, n, &format!("'{name}'"), loc)?;
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

    /// The bits of the `n` bytes from where `src` points on, in C's
    /// layout (padding as 0, as it is unless written as bytes: reading
    /// padding written so is refused); `what` reads them.
    pub(super) fn object_image(
        &mut self,
        src: &Ptr,
        n: i128,
        what: &str,
        loc: Loc,
    ) -> DResult<Vec<Bit>> {
        let (spans, start) = self.spans(src, n, loc)?;
        let mut image = vec![Bit::Const(false); n as usize * 8];
        let end = start + image.len() as u64;
        if self.objs[src.obj].padding_written && !covers(&spans, start, end) {
            let ty = self.objs[src.obj].ty.name();
            return err(
                loc,
                format!("{what} reads padding of {ty} that was written as bytes: twofold keeps no padding (copy the members instead)"),
            );
        }
        for (leaf, &(at, width, _)) in leaves_from(&spans, start, end) {
            let refused =
                || format!("{what} of a pointer into memory of another layout is not supported");
            let bits = self.stored_bits(src.obj, leaf, width, refused, loc)?;
            for (k, bit) in bits.into_iter().enumerate() {
                if let Some(i) = image_index(at + k as u64, start, end) {
                    image[i] = bit;
                }
            }
        }
        Ok(image)
    }

    /// The `width` bits leaf `leaf` of `obj` holds in C's layout (a
    /// pointer's are `refused`).
    fn stored_bits(
        &mut self,
        obj: usize,
        leaf: usize,
        width: u32,
        refused: impl FnOnce() -> String,
        loc: Loc,
    ) -> DResult<Vec<Bit>> {
        let Slot::Val(w) = self.slot(obj, leaf) else {
            return err(loc, refused());
        };
        let mut bits = w.bits(&mut self.b);
        bits.resize(width as usize, Bit::Const(false));
        Ok(bits)
    }

    /// Whether the `n` bytes from where `p` points on are whole values
    /// (no padding, no bit-field), which `memcpy` and `memset` may copy
    /// value by value.
    pub(super) fn whole_values(&self, p: &Ptr, n: i128) -> bool {
        if p.bytes {
            return false;
        }
        let Ok((spans, start)) = self.spans(p, n, Loc::default()) else {
            return false;
        };
        let end = start + n as u64 * 8;
        let tys = &self.objs[p.obj].leaf_tys;
        let in_range = spans.iter().zip(tys.iter());
        let bit_field = in_range
            .filter(|((at, width, _), _)| *at < end && at + u64::from(*width) > start)
            .any(|((_, width, _), t)| u64::from(*width) != t.size() * 8);
        covers(&spans, start, end) && !bit_field
    }

    /// Reads the scalar place `p`, a view of memory of another layout at a
    /// public position (`*(uint32_t *)&f`): its bytes in C's layout.
    pub(super) fn read_view(&mut self, p: &Place, loc: Loc) -> DResult<Val> {
        let at = self.view_start(p, loc)?;
        let what = format!("access as {}", p.ty.name());
        let mut bits = self.object_image(&at, p.ty.size() as i128, &what, loc)?;
        bits.truncate(p.ty.width() as usize);
        value_of(&p.ty, vec![Slot::Val(Word::from_bits(bits))], loc)
    }

    /// Writes the scalar `slots` at place `p`, a view of memory of another
    /// layout at a public position: over its bytes in C's layout.
    pub(super) fn write_view(&mut self, p: &Place, slots: &[Slot], loc: Loc) -> DResult<()> {
        let [Slot::Val(w)] = slots else {
            return err(
                loc,
                format!("cannot store a value of type {} there", p.ty.name()),
            );
        };
        let at = self.view_start(p, loc)?;
        let mut bits = w.bits(&mut self.b);
        // A `_Bool` fills its byte with 0 or 1.
        bits.resize(p.ty.size() as usize * 8, Bit::Const(false));
        self.write_object_bits(&at, &bits, &format!("access as {}", p.ty.name()), loc)
    }

    /// Where view `p` starts, as a pointer; notes its access (the leaves
    /// its bytes cover) for a probe's replays.
    fn view_start(&mut self, p: &Place, loc: Loc) -> DResult<Ptr> {
        let at = Ptr::new(p.obj, p.leaf, Vec::new());
        if self.recording.is_some() {
            let (spans, start) = self.spans(&at, p.ty.size() as i128, loc)?;
            let end = start + p.ty.size() * 8;
            let covered = spans[p.leaf as usize..]
                .iter()
                .take_while(|s| s.0 < end)
                .count();
            if let Some(rec) = self.recording.as_mut() {
                rec.access(p, covered, false);
            }
        }
        Ok(at)
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
        let zero = |i: u64| image[(i - start) as usize] == Bit::Const(false);
        if !covers(&spans, start, end) && !uncovered(&spans, start, end).all(zero) {
            self.objs[dst.obj].padding_written = true;
        }
        for (leaf, &(at, width, signed)) in leaves_from(&spans, start, end) {
            let refused =
                || format!("'{name}' over a pointer in memory of another layout is not supported");
            let mut bits = self.stored_bits(dst.obj, leaf, width, refused, loc)?;
            for (k, bit) in bits.iter_mut().enumerate() {
                if let Some(i) = image_index(at + k as u64, start, end) {
                    *bit = image[i];
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

    /// `image` (whole bytes' bits from where `at` points on) with the
    /// bits of padding there 0.
    pub(super) fn without_padding(
        &self,
        at: &Ptr,
        mut image: Vec<Bit>,
        loc: Loc,
    ) -> DResult<Vec<Bit>> {
        let (spans, start) = self.spans(at, (image.len() / 8) as i128, loc)?;
        for bit in uncovered(&spans, start, start + image.len() as u64) {
            image[(bit - start) as usize] = Bit::Const(false);
        }
        Ok(image)
    }

    /// The C layout of the object `p` points into, and the bit where
    /// `p` points (see [`CType::leaf_pointees`]; a pointer counting bytes
    /// at its byte), checking that `n` bytes from there lie inside.
    fn spans(&self, p: &Ptr, n: i128, loc: Loc) -> DResult<(Spans, u64)> {
        let ty = &self.objs[p.obj].ty;
        let mut spans = Vec::new();
        ty.leaf_bits(0, &mut spans);
        let mut pointees = Vec::new();
        if !p.bytes {
            ty.leaf_pointees(0, 0, &mut pointees);
        }
        let size = ty.size() as i128 * 8;
        let start = match pointees.get(p.leaf as usize) {
            _ if p.leaf < 0 => return err(loc, "memory access outside the object"),
            _ if p.bytes => p.leaf as u64 * 8,
            Some(&at) => at,
            None => size as u64,
        };
        if n < 0 || start as i128 + n * 8 > size {
            return err(loc, "memory access outside the object");
        }
        Ok((spans, start))
    }
}

/// Whether the leaves (`spans`, in order) hold every bit of `start..end`.
fn covers(spans: &Spans, start: u64, end: u64) -> bool {
    uncovered(spans, start, end).next().is_none()
}

/// The bits of `start..end` no leaf (`spans`, in order) holds: padding.
fn uncovered(spans: &Spans, start: u64, end: u64) -> impl Iterator<Item = u64> + '_ {
    let mut at = 0;
    (start..end).filter(move |&bit| {
        while at < spans.len() && spans[at].0 + u64::from(spans[at].1) <= bit {
            at += 1;
        }
        !spans
            .get(at)
            .is_some_and(|&(first, width, _)| first <= bit && bit < first + u64::from(width))
    })
}

/// The leaves (`spans`, in order) holding bits of `start..end`.
fn leaves_from(
    spans: &Spans,
    start: u64,
    end: u64,
) -> impl Iterator<Item = (usize, &(u64, u32, bool))> {
    spans
        .iter()
        .enumerate()
        .skip_while(move |(_, s)| s.0 + u64::from(s.1) <= start)
        .take_while(move |(_, s)| s.0 < end)
}

/// Where bit `bit` of an object lies in an image of its bits `start..end`.
fn image_index(bit: u64, start: u64, end: u64) -> Option<usize> {
    (start..end).contains(&bit).then(|| (bit - start) as usize)
}
