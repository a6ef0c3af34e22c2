//! Byte pointers: a pointer into memory of another layout than its type's
//! (an `unsigned char *` into an `int`, a struct or an array of wider
//! elements; a `uint32_t *` moved over a `char` array) counts the
//! object's bytes in C's layout, as gcc's does on x86-64 ([`Ptr::bytes`]).
//!
//! Pointer arithmetic and comparisons move and compare byte positions; a
//! dereference is a view of the bytes there as its type (a place with
//! [`Place::bytes`] and [`Place::view`]), read and written through
//! [`punning`](super::punning)'s byte images of the object: wiring only at
//! a public position, a multiplexer over the positions a secret offset
//! may give (a decoder for writes), as a secret array index is. Where a
//! byte position is a leaf of the pointed-to layout, the pointer counts
//! leaves again.

use super::place::start_within;
use super::*;

impl Place {
    /// A pointer to this place (in bytes if it is a view of bytes of
    /// memory of another layout).
    pub(super) fn pointer(self) -> Ptr {
        Ptr {
            terms: self.terms,
            bytes: self.bytes && self.view,
            ..Ptr::new(self.obj, self.leaf, self.sec)
        }
    }
}

impl Lower<'_> {
    /// The object's length and a step of an element of type `t`, in the
    /// units `p` counts (bytes or leaves), and how many units an element
    /// covers (a null pointer's object has length 0).
    pub(super) fn units(&self, t: &CType, p: &Ptr) -> (i64, usize, i64) {
        let obj = self.objs.get(p.obj);
        match p.bytes {
            true => {
                let size = t.size().max(1);
                let len = obj.map_or(0, |o| o.ty.size() as i64);
                (len, size as usize, size as i64)
            }
            false => (
                obj.map_or(0, |o| o.slots.len() as i64),
                t.leaves().max(1),
                t.leaves() as i64,
            ),
        }
    }

    /// `p` as a pointer to elements of type `t` that arithmetic may move
    /// by `off` elements (`None`: a secret number) and subtraction count:
    /// in bytes where counting leaves would be wrong (a `char *` over
    /// `int`s, or from chars into padding).
    pub(super) fn counted(&self, t: &CType, p: Ptr, off: Option<i64>, loc: Loc) -> DResult<Ptr> {
        if p.bytes || p.obj == usize::MAX || *t == CType::Void {
            return Ok(p);
        }
        let len = self.objs[p.obj].slots.len() as i64;
        let leaves_count = match (t, off) {
            (CType::Int { bits: 8, .. }, Some(k)) => {
                let to = p.leaf.saturating_add(k);
                let (from, to) = (p.leaf.min(to), p.leaf.max(to));
                to <= len && self.bytes_in_a_row(p.obj, from, to)
            }
            // Whatever a secret offset gives, up to the object's end.
            (CType::Int { bits: 8, .. }, None) => self.bytes_in_a_row(p.obj, p.leaf, len),
            _ => {
                // (One past the end: the element before.)
                let base = p.leaf.min(len - t.leaves() as i64).max(0) as usize;
                self.punned(p.obj, base, t).is_none()
            }
        };
        match leaves_count {
            true => Ok(p),
            false => self.byte_pointer(&p, loc),
        }
    }

    /// Whether leaves `from..to` of `obj` are bytes in a row, and the
    /// position `to` (a leaf, or the object's end) the byte after them:
    /// there a `char` pointer counts leaves as it would count bytes.
    fn bytes_in_a_row(&self, obj: usize, from: i64, to: i64) -> bool {
        let o = &self.objs[obj];
        let mut spans = Vec::new();
        o.ty.leaf_bits(0, &mut spans);
        let (Ok(from), Ok(to)) = (usize::try_from(from), usize::try_from(to)) else {
            return false;
        };
        let bit_of = |k: usize| match spans.get(k) {
            Some(s) => Some(s.0),
            None => (k == spans.len()).then(|| o.ty.size() * 8),
        };
        let Some(first) = bit_of(from) else {
            return false;
        };
        (from..to).all(|k| spans[k].1 == 8)
            && (from..=to).all(|k| bit_of(k) == Some(first + 8 * (k - from) as u64))
    }

    /// Whether a pointer of object `obj` lies in its bytes `from..to`.
    fn pointer_between(&self, obj: usize, from: i64, to: i64) -> bool {
        let o = &self.objs[obj];
        let mut offsets = Vec::new();
        o.ty.leaf_offsets(0, &mut offsets);
        (offsets.iter().zip(o.leaf_tys.iter())).any(|(&at, t)| {
            let at = at as i64;
            matches!(t, CType::Pointer(_)) && at < to && from < at + 8
        })
    }

    /// Whether object `obj`'s leaves are its bytes in order (a `char`
    /// array, a union's bytes): there leaves and bytes count alike.
    fn leaves_are_bytes(&self, obj: usize) -> bool {
        self.bytes_in_a_row(obj, 0, self.objs[obj].slots.len() as i64)
    }

    /// Pointer `p` counting bytes: its leaf's position in C's layout, its
    /// secret terms scaled to the bytes their steps cover.
    pub(super) fn byte_pointer(&self, p: &Ptr, loc: Loc) -> DResult<Ptr> {
        if p.bytes || p.obj == usize::MAX {
            return Ok(p.clone());
        }
        let ty = &self.objs[p.obj].ty;
        let mut pointees = Vec::new();
        ty.leaf_pointees(0, 0, &mut pointees);
        let size = ty.size() * 8;
        let byte_at = |leaf: i64| match usize::try_from(leaf) {
            Ok(l) if l < pointees.len() => Some(pointees[l] / 8),
            Ok(l) if l == pointees.len() => Some(size / 8),
            _ => None,
        };
        let outside = || diag(loc, "a byte pointer outside the object it points into");
        let start = byte_at(p.leaf).ok_or_else(outside)? as i64;
        let mut sec = Vec::with_capacity(p.sec.len());
        for s in &p.sec {
            // A term's steps must cover the same bytes each (elements of
            // an array).
            let at = |k: usize| byte_at(p.leaf + (k * s.stride) as i64).map(|b| b as i64);
            let step = at(s.count.saturating_sub(1).min(1)).ok_or_else(outside)? - start;
            let even = (0..s.count).all(|k| at(k).is_none_or(|b| b - start == k as i64 * step));
            if !even || step < 0 {
                return err(
                    loc,
                    "a secret position in memory of another layout that is not an array's element cannot be viewed as bytes",
                );
            }
            sec.push(SecIdx {
                stride: step as usize,
                ..s.clone()
            });
        }
        Ok(Ptr {
            leaf: start,
            sec,
            bytes: true,
            ..p.clone()
        })
    }

    /// `p` counting leaves where that reads elements of type `t` as the
    /// memory lays them out: a byte position at the start of a leaf of
    /// `t`'s layout, or any in an object whose leaves are its bytes.
    fn leaf_pointer(&self, t: &CType, p: &Ptr) -> Option<Ptr> {
        let leaf = if self.leaves_are_bytes(p.obj) {
            p.leaf
        } else if p.sec.is_empty() {
            let mut spans = Vec::new();
            self.objs[p.obj].ty.leaf_bits(0, &mut spans);
            let at = u64::try_from(p.leaf).ok()? * 8;
            spans.iter().position(|s| s.0 == at)? as i64
        } else {
            return None;
        };
        let fits = leaf >= 0 && leaf + t.leaves() as i64 <= self.objs[p.obj].slots.len() as i64;
        (fits && self.punned(p.obj, leaf as usize, t).is_none()).then(|| Ptr {
            leaf,
            bytes: false,
            ..p.clone()
        })
    }

    /// Pointers `p` and `q` to elements of type `t`, for a comparison or
    /// subtraction: into one object, both in the same units.
    pub(super) fn comparable(&self, t: &CType, p: Ptr, q: Ptr, loc: Loc) -> DResult<(Ptr, Ptr)> {
        if p.obj != q.obj || p.obj == usize::MAX {
            return Ok((p, q));
        }
        // Chars in a row between them count alike as leaves.
        let (a, b) = (p.leaf.min(q.leaf), p.leaf.max(q.leaf));
        let publicly = p.sec.is_empty() && q.sec.is_empty() && !p.bytes && !q.bytes;
        if matches!(t, CType::Int { bits: 8, .. }) && publicly && self.bytes_in_a_row(p.obj, a, b) {
            return Ok((p, q));
        }
        let (p, q) = (
            self.counted(t, p, None, loc)?,
            self.counted(t, q, None, loc)?,
        );
        match p.bytes == q.bytes {
            true => Ok((p, q)),
            false => Ok((self.byte_pointer(&p, loc)?, self.byte_pointer(&q, loc)?)),
        }
    }

    /// The place `*p` for a pointer `p` to `t` counting bytes: the leaves
    /// there if they have `t`'s layout, else a view of the bytes.
    pub(super) fn byte_place(&mut self, t: CType, p: Ptr, loc: Loc) -> DResult<Place> {
        if let Some(leaves) = self.leaf_pointer(&t, &p) {
            return self.deref_place(t, leaves, loc);
        }
        self.bytes_view(t, p, loc)
    }

    /// The place `*p` viewing the bytes `p` points to (`p` counting
    /// bytes, or made to) as type `t`.
    pub(super) fn bytes_view(&mut self, t: CType, p: Ptr, loc: Loc) -> DResult<Place> {
        let mut p = self.byte_pointer(&p, loc)?;
        let size = t.size() as i64;
        // A secret position may give any byte of the object.
        let (from, to) = match p.sec.is_empty() {
            true => (p.leaf, p.leaf + size),
            false => (0, i64::MAX),
        };
        if t.holds_pointer() || self.pointer_between(p.obj, from, to) {
            return err(
                loc,
                format!(
                    "access as {} through the bytes of {}: pointers cannot be read or written as bytes",
                    t.name(),
                    self.objs[p.obj].ty.name()
                ),
            );
        }
        let outside = |p: &Ptr, len: i64| p.leaf < 0 || p.leaf + size > len;
        let len = self.objs[p.obj].ty.size() as i64;
        if p.sec.is_empty() && outside(&p, len) && self.secret_depth > 0 {
            // On a secret path, which may never run: some bytes of the
            // object, as a secret index out of bounds.
            let zero = Word::konst(0, 64);
            if let Val::Ptr(_, moved) = self.ptr_moved(t.clone(), p.clone(), zero, loc)? {
                p = moved;
            }
        }
        if p.sec.is_empty() && outside(&p, len) {
            return err(loc, "pointer dereference outside the object it points into");
        }
        Ok(Place {
            obj: p.obj,
            leaf: p.leaf,
            sec: p.sec,
            ty: t,
            terms: p.terms,
            bytes: true,
            bit_field: None,
            view: true,
        })
    }

    /// The `n` bytes place `p` (in a union's bytes, or a view of bytes of
    /// memory of another layout) covers, one 8-bit word each.
    pub(super) fn gather_bytes(&mut self, p: &Place, n: usize, loc: Loc) -> DResult<Vec<Slot>> {
        if !p.view {
            return self.gather(p.obj, p.leaf, &p.sec, n, loc);
        }
        self.fail_probes("memory of another layout is accessed through its bytes");
        let obj = p.obj;
        self.select_positions(p.leaf, &p.sec, n, loc, &mut |me, at, chosen| {
            let at = me.byte_start(obj, at, n, chosen, loc)?;
            let bits = me.object_image(&at, n as i128, "access through bytes", loc)?;
            let byte = |b: &[Bit]| Slot::Val(Word::from_bits(b.to_vec()));
            Ok(bits.chunks(8).map(byte).collect())
        })
    }

    /// A pointer counting bytes at byte `base` of `obj`, where `n` bytes
    /// must lie inside (`chosen`: see [`start_within`]).
    fn byte_start(&self, obj: usize, base: i64, n: usize, chosen: bool, loc: Loc) -> DResult<Ptr> {
        let len = self.objs[obj].ty.size() as i64;
        Ok(Ptr {
            bytes: true,
            ..Ptr::new(obj, start_within(base, n, len, chosen, loc)?, Vec::new())
        })
    }

    /// Writes the bytes `run` (8-bit words) at byte `at` of place `p`
    /// (in a union's bytes, or a view of bytes of memory of another
    /// layout), moved by its secret terms.
    pub(super) fn scatter_bytes(
        &mut self,
        p: &Place,
        at: i64,
        run: &[Slot],
        loc: Loc,
    ) -> DResult<()> {
        if !p.view {
            return self.scatter((p.obj, at, None), &p.sec, run, Bit::Const(true), loc);
        }
        self.fail_probes("memory of another layout is accessed through its bytes");
        let mut image = Vec::with_capacity(run.len() * 8);
        for s in run {
            let Slot::Val(w) = s else {
                return err(loc, "a pointer cannot be written as bytes");
            };
            let mut bits = w.bits(&mut self.b);
            bits.resize(8, Bit::Const(false));
            image.extend(bits);
        }
        self.write_view_bytes_at(p.obj, at, &p.sec, &image, None, loc)
    }

    /// Writes `image` (whole bytes' bits) at byte `base` of `obj` moved by
    /// the secret terms `sec`; `chosen`: a position a secret index gives,
    /// written where that enable holds (nothing if it is outside the
    /// object).
    fn write_view_bytes_at(
        &mut self,
        obj: usize,
        base: i64,
        sec: &[SecIdx],
        image: &[Bit],
        chosen: Option<Bit>,
        loc: Loc,
    ) -> DResult<()> {
        let Some((s, rest)) = sec.split_first() else {
            let n = image.len() / 8;
            let len = self.objs[obj].ty.size() as i64;
            if (base < 0 || base + n as i64 > len) && chosen.is_some() {
                return Ok(());
            }
            let at = self.byte_start(obj, base, n, false, loc)?;
            let what = "write through bytes";
            let new = match chosen {
                None | Some(Bit::Const(true)) => image.to_vec(),
                Some(en) => {
                    let old = self.object_image(&at, n as i128, what, loc)?;
                    let new = (image.iter().zip(old))
                        .map(|(&new, old)| self.b.mux(en, new, old))
                        .collect();
                    // A position the index may give leaves padding as it
                    // is (0: twofold keeps none).
                    self.without_padding(&at, new, loc)?
                }
            };
            return self.write_object_bits(&at, &new, what, loc);
        };
        let en = chosen.unwrap_or(Bit::Const(true));
        for (k, e) in self.decoder(en, s).into_iter().enumerate().take(s.count) {
            if e != Bit::Const(false) {
                let at = base + (k * s.stride) as i64;
                self.write_view_bytes_at(obj, at, rest, image, Some(e), loc)?;
            }
        }
        Ok(())
    }
}
