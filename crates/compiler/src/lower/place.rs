//! Places (lvalues): variables, members, elements, dereferences; reads and writes at secret indices.

use super::*;

impl Place {
    /// All of object `obj`, of type `ty`.
    pub(super) fn whole(obj: usize, ty: CType) -> Place {
        Place {
            obj,
            leaf: 0,
            sec: Vec::new(),
            ty,
            terms: Vec::new(),
            bytes: false,
            bit_field: None,
            view: false,
        }
    }
}

impl<'p> Lower<'p> {
    /// The type of the first leaf of object `obj` from `base` on whose
    /// scalar width differs from `t`'s laid over them (`None` if `t` fits
    /// them, or if they end first): pointers count leaves, so a pointer of
    /// another layout (a `char *` into `int`s) would be read, moved and
    /// subtracted by the wrong amounts. (A leaf holds its bits: a `float`
    /// over an `int` reads them as they are; a `double` over a `float` is
    /// another layout.)
    pub(super) fn punned(&self, obj: usize, base: usize, t: &CType) -> Option<CType> {
        let mut tys = Vec::new();
        t.leaf_types(&mut tys);
        let have = self.objs[obj].leaf_tys.get(base..)?;
        // A bit-field's leaf has its promoted type, but fewer bits: it is
        // another layout than a value of that type.
        let (stored, wanted) = (bits_held(&self.objs[obj].ty), bits_held(t));
        let held = |bits: &Option<Vec<u32>>, k: usize, t: &CType| {
            bits.as_ref().map_or(t.size() as u32 * 8, |b| b[k])
        };
        tys.iter()
            .zip(have)
            .enumerate()
            .find_map(|(k, (lt, have))| {
                let ok = match (have, lt) {
                    (CType::Pointer(_), CType::Pointer(_)) => true,
                    (a, b) => a.arith().map(|s| s.width) == b.arith().map(|s| s.width),
                };
                let same_bits = held(&stored, base + k, have) == held(&wanted, k, lt);
                (!ok || !same_bits).then(|| have.clone())
            })
    }

    // ----- places -----------------------------------------------------------

    pub(super) fn place(&mut self, e: &Expr) -> DResult<Place> {
        match &e.kind {
            ExprKind::Ident(n) => match self.lookup(n) {
                Some(_) if self.undefined_extern(n) => err(
                    e.loc,
                    format!("'{n}' is declared extern but never defined (undefined reference)"),
                ),
                Some((obj, ty)) => Ok(Place::whole(obj, ty)),
                None => {
                    if self.funcs.contains_key(n) {
                        err(e.loc, format!("'{n}' is a function, not an object (it cannot be assigned or changed)"))
                    } else {
                        err(e.loc, format!("undeclared identifier '{n}'"))
                    }
                }
            },
            ExprKind::Str(bytes) => {
                let ty = string_type(bytes);
                self.unnamed_object(ty, e.loc, |l, obj, ty| {
                    let CType::Array(elem, n) = ty else {
                        unreachable!("a string literal is an array")
                    };
                    l.initialize_chars(obj, 0, elem, *n, bytes, e.loc)
                })
            }
            ExprKind::Compound(t, init) => {
                let ty = self.resolve_type(t, Some(init), e.loc)?;
                self.unnamed_object(ty, e.loc, |l, obj, ty| l.initialize_object(obj, ty, init))
            }
            ExprKind::Index(a, i) => {
                // `i[a]` is `a[i]`.
                let integer = |l: &mut Self, e: &Expr| {
                    (l.static_type(e)).is_ok_and(|t| matches!(t, CType::Int { .. } | CType::Bool))
                };
                // (The subscript's type first: most are integers, and the
                // type of `s.m[i]` costs its struct's member lookup.)
                let (a, i) = if !integer(self, i) && integer(self, a) {
                    (i, a)
                } else {
                    (a, i)
                };
                let iv = self.eval(i)?;
                let Val::Int(is, iw) = iv else {
                    return err(i.loc, "array index is not an integer");
                };
                if is.float {
                    return err(i.loc, "array subscript is not an integer");
                }
                if is_lvalue(a) {
                    let mut p = self.place(a)?;
                    if let CType::Array(elem, n) = p.ty.clone() {
                        // Inside a union's bytes, elements are bytes apart.
                        let stride = match p.bytes {
                            true => elem.size() as usize,
                            false => elem.leaves(),
                        };
                        let array = iw.as_const().map(|_| (stride as i64, n as i64));
                        if let Some(rec) = self.recording.as_mut() {
                            p.terms.extend(rec.subscript(i, array));
                        }
                        let k = iw.as_const().map(|v| is.to_i128(v));
                        match k {
                            Some(k) if (0..n as i128).contains(&k) => {
                                p.leaf += k as i64 * stride as i64;
                            }
                            // Out of bounds where every path runs: an
                            // error. On a secret path, which may never run
                            // (a loop's iteration past a merge's end), it
                            // is read and written as a secret index is.
                            Some(k) if self.secret_depth == 0 => {
                                return err(
                                    e.loc,
                                    format!("array index {k} is out of bounds [0, {n})"),
                                );
                            }
                            _ => {
                                let idx = iw.bits(&mut self.b);
                                self.check_subscript(&idx);
                                p.sec.push(SecIdx {
                                    idx: Rc::new(idx),
                                    stride,
                                    count: n as usize,
                                })
                            }
                        }
                        p.ty = Arc::unwrap_or_clone(elem);
                        return Ok(p);
                    }
                }
                if let Some(rec) = self.recording.as_mut() {
                    rec.subscript(i, None);
                }
                let base = self.eval(a)?;
                let Val::Ptr(t, ptr) = base else {
                    return err(e.loc, "subscripted value is not an array or pointer");
                };
                let off = iw.convert(&mut self.b, is, Scalar::int(64, true));
                let Val::Ptr(t, ptr) = self.ptr_add(t, ptr, off, e.loc)? else {
                    return err(e.loc, "bad pointer arithmetic");
                };
                self.deref_place(t, ptr, e.loc)
            }
            ExprKind::Member(a, m) => {
                let p = self.place(a)?;
                self.member_place(p, m, e.loc)
            }
            ExprKind::Arrow(a, m) => {
                let v = self.eval(a)?;
                let Val::Ptr(t, ptr) = v else {
                    return err(e.loc, "'->' on a non-pointer");
                };
                let p = self.deref_place(t, ptr, e.loc)?;
                self.member_place(p, m, e.loc)
            }
            ExprKind::Unary(UnOp::Deref, a) => {
                let v = self.eval(a)?;
                let Val::Ptr(t, ptr) = v else {
                    return err(e.loc, "dereferencing a non-pointer");
                };
                self.deref_place(t, ptr, e.loc)
            }
            _ => err(e.loc, "expression is not assignable (not an lvalue)"),
        }
    }

    pub(super) fn deref_place(&mut self, t: CType, mut p: Ptr, loc: Loc) -> DResult<Place> {
        if p.obj == usize::MAX {
            return err(loc, "dereferencing a null pointer");
        }
        if t == CType::Void {
            return err(loc, "dereferencing a void pointer");
        }
        if p.bytes {
            return self.byte_place(t, p, loc);
        }
        let n = t.leaves() as i64;
        let outside = |p: &Ptr, len: usize| p.leaf < 0 || p.leaf + n > len as i64;
        if outside(&p, self.objs[p.obj].slots.len()) && self.secret_depth > 0 {
            // On a secret path, which may never run, as a secret index
            // out of bounds: some element of the object.
            let zero = Word::konst(0, 64);
            let Val::Ptr(_, moved) = self.ptr_moved(t.clone(), p, zero, loc)? else {
                return err(loc, "a pointer's position is not a pointer");
            };
            p = moved;
        }
        let obj = &self.objs[p.obj];
        if outside(&p, obj.slots.len()) {
            return err(loc, "pointer dereference outside the object it points into");
        }
        // The leaves must have the pointed-to layout, or be viewed as a
        // scalar's bytes at a public position.
        let mut punned = self.punned(p.obj, p.leaf as usize, &t);
        if punned.is_some() && !p.sec.is_empty() {
            // A position no offset the program can take gives (`r[-1]`
            // under `if (k > 0)`, before an array member): the place is
            // read and written where the offsets give `t`'s layout.
            let place = Place {
                leaf: p.leaf,
                sec: p.sec.clone(),
                ..Place::whole(p.obj, t.clone())
            };
            if self.first_of_layout(&place).is_some() {
                punned = None;
            }
        }
        let view = punned.as_ref().is_some_and(|have| {
            p.sec.is_empty() && t.arith().is_some() && !matches!(have, CType::Pointer(_))
        });
        if let (Some(have), false) = (punned, view) {
            if !matches!(have, CType::Pointer(_)) {
                return self.bytes_view(t, p, loc);
            }
            return err(
                loc,
                format!(
                    "access as {} of memory holding {} (type punning) is not supported",
                    t.name(),
                    have.name()
                ),
            );
        }
        Ok(Place {
            obj: p.obj,
            terms: p.terms,
            leaf: p.leaf,
            sec: p.sec,
            ty: t,
            bytes: false,
            bit_field: None,
            view,
        })
    }

    /// A new object of type `ty` (a string or compound literal, an array
    /// member of a struct value) that `fill` initializes, as a place.
    pub(super) fn unnamed_object(
        &mut self,
        ty: CType,
        loc: Loc,
        fill: impl FnOnce(&mut Self, usize, &CType) -> DResult<()>,
    ) -> DResult<Place> {
        let obj = self.new_object(&ty, loc)?;
        fill(self, obj, &ty)?;
        Ok(Place::whole(obj, ty))
    }

    pub(super) fn read(&mut self, p: &Place, loc: Loc) -> DResult<Val> {
        if p.bytes && !matches!(p.ty, CType::Array(..)) {
            return self.read_bytes(p, loc);
        }
        if p.view {
            return self.read_view(p, loc);
        }
        if let Some(rec) = self.recording.as_mut() {
            rec.access(p, p.ty.leaves(), matches!(p.ty, CType::Array(..)));
        }
        if let CType::Array(elem, _) = &p.ty {
            let ptr = Ptr {
                terms: Vec::new(),
                ..p.clone().pointer()
            };
            return Ok(Val::Ptr((**elem).clone(), ptr));
        }
        let slots = self.gather_place(p, loc)?;
        value_of(&p.ty, slots, loc)
    }

    /// The slots of `p`, read at every position its secret terms may give.
    /// A position where memory has another layout than `p`'s type (past
    /// the end of an array member, in the members after it: `short m[4];
    /// char c;` read through `m + k` at `[1]` tries `c`) is one no C
    /// program reaches (where the selection of words of two widths would
    /// have cut the value read to the narrower): it reads the slots at the
    /// first position of `p`'s layout the terms may give instead.
    fn gather_place(&mut self, p: &Place, loc: Loc) -> DResult<Vec<Slot>> {
        let (obj, n, ty) = (p.obj, p.ty.leaves(), &p.ty);
        let bit_field = p.bit_field.is_some();
        let len = self.objs[obj].slots.len() as i64;
        let mut home = None;
        self.select_positions(p.leaf, &p.sec, n, loc, &mut |me, at, chosen| {
            let mut at = start_within(at, n, len, chosen, loc)?;
            if chosen && me.other_layout(obj, at as usize, (ty, bit_field)) {
                let first = || me.first_of_layout(p).unwrap_or(p.leaf);
                at = *home.get_or_insert_with(first);
            }
            let at = at as usize;
            Ok((at..at + n).map(|leaf| me.slot(obj, leaf)).collect())
        })
    }

    /// The first position inside its object that `p`'s secret terms may
    /// give where memory has the layout of `p`'s type, if any.
    pub(super) fn first_of_layout(&self, p: &Place) -> Option<i64> {
        let n = p.ty.leaves() as i64;
        let len = self.objs[p.obj].slots.len() as i64;
        let layout = (&p.ty, p.bit_field.is_some());
        let fits =
            |at: i64| at >= 0 && at + n <= len && !self.other_layout(p.obj, at as usize, layout);
        first_position(p.leaf, &p.sec, &fits)
    }

    /// Whether memory at leaf `at` of `obj` has another layout than values
    /// of type `ty` (see [`Lower::punned`]); for a bit-field (`true`),
    /// whose leaf holds fewer bits than its type, another type's width.
    fn other_layout(&self, obj: usize, at: usize, (ty, bit_field): (&CType, bool)) -> bool {
        if !bit_field {
            return self.punned(obj, at, ty).is_some();
        }
        let width = |t: &CType| t.arith().map(|s| s.width);
        self.objs[obj].leaf_tys.get(at).map(width) != Some(width(ty))
    }

    /// The `n` slots at leaf `base` of `obj`, moved by the secret index
    /// terms `sec` (a multiplexer over every position they may give).
    pub(super) fn gather(
        &mut self,
        obj: usize,
        base: i64,
        sec: &[SecIdx],
        n: usize,
        loc: Loc,
    ) -> DResult<Vec<Slot>> {
        let len = self.objs[obj].slots.len() as i64;
        self.select_positions(base, sec, n, loc, &mut |me, at, chosen| {
            let at = start_within(at, n, len, chosen, loc)? as usize;
            Ok((at..at + n).map(|leaf| me.slot(obj, leaf)).collect())
        })
    }

    /// The `n` slots at position `base` moved by the secret index terms
    /// `sec`: `read(self, position, chosen)` gives them at each position
    /// the terms may give, and a multiplexer tree selects (`chosen`: the
    /// position is one a secret index may give, read as a secret index
    /// out of bounds is; see [`start_within`]).
    pub(super) fn select_positions(
        &mut self,
        base: i64,
        sec: &[SecIdx],
        n: usize,
        loc: Loc,
        read: &mut ReadAt<'_, 'p>,
    ) -> DResult<Vec<Slot>> {
        self.select_positions_at(base, sec, n, loc, false, read)
    }

    /// [`Self::select_positions`], `chosen` as its positions are.
    fn select_positions_at(
        &mut self,
        base: i64,
        sec: &[SecIdx],
        n: usize,
        loc: Loc,
        chosen: bool,
        read: &mut ReadAt<'_, 'p>,
    ) -> DResult<Vec<Slot>> {
        let Some((s, rest)) = sec.split_first() else {
            return read(self, base, chosen);
        };
        // (Only candidates the index's constant bits let it select are
        // read: a binary search's probe read all 16,384 elements where
        // the index could give two.)
        let selectable = selectable(&s.idx, s.count);
        let mut layer = Vec::with_capacity(s.count);
        for (k, &selectable) in selectable.iter().enumerate() {
            let at = base + (k * s.stride) as i64;
            layer.push(match selectable {
                true => Some(self.select_positions_at(at, rest, n, loc, true, read)?),
                false => None,
            });
        }
        self.select_slots(&s.idx, layer, n, loc)
    }

    /// The candidate `layer[k]` (each `n` slots, or `None` where the index
    /// cannot select it: see [`selectable`]) that the index `idx` (bit 0
    /// first) selects: a multiplexer tree.
    fn select_slots(
        &mut self,
        idx: &[Bit],
        mut layer: Vec<Option<Vec<Slot>>>,
        n: usize,
        loc: Loc,
    ) -> DResult<Vec<Slot>> {
        let mut j = 0;
        while layer.len() > 1 {
            let sel = idx.get(j).copied().unwrap_or(Bit::Const(false));
            let mut next = Vec::with_capacity(layer.len().div_ceil(2));
            let mut it = layer.into_iter();
            while let Some(lo) = it.next() {
                let merged = match (it.next(), sel) {
                    (None, _) => lo,
                    (Some(hi), Bit::Const(c)) => {
                        if c {
                            hi
                        } else {
                            lo
                        }
                    }
                    (Some(Some(hi)), _) => {
                        let lo = lo.ok_or_else(|| diag(loc, "internal: a candidate not read"))?;
                        let mut m = Vec::with_capacity(n);
                        for (a, b) in hi.iter().zip(&lo) {
                            m.push(self.merge_slot(sel, a, b, loc)?);
                        }
                        Some(m)
                    }
                    (Some(None), _) if lo.is_none() => None,
                    (Some(None), _) => return err(loc, "internal: a candidate not read"),
                };
                next.push(merged);
            }
            layer = next;
            j += 1;
        }
        (layer.pop().flatten()).ok_or_else(|| diag(loc, "empty array access"))
    }

    pub(super) fn write(&mut self, p: &Place, v: Val, loc: Loc) -> DResult<()> {
        let slots = match v {
            Val::Int(_, w) => vec![Slot::Val(w)],
            Val::Ptr(_, ptr) => vec![Slot::Ptr(ptr)],
            Val::Agg(_, s) => s,
            Val::Void => return err(loc, "assigning a void value"),
        };
        if matches!(p.ty, CType::Array(..)) {
            return err(loc, "arrays cannot be assigned");
        }
        if p.bytes {
            return self.write_bytes(p, &slots, loc);
        }
        if p.view {
            return self.write_view(p, &slots, loc);
        }
        if let Some(rec) = self.recording.as_mut() {
            rec.access(p, slots.len(), false);
        }
        let at = (p.obj, p.leaf, Some((&p.ty, p.bit_field.is_some())));
        self.scatter(at, &p.sec, &slots, Bit::Const(true), loc)
    }

    /// Writes `vals` at leaf `base` of `obj`, moved by the secret index
    /// terms `sec`, where `en` holds: values of the layout given, if any
    /// (a type, and whether a bit-field holds it: a position the terms may
    /// give where memory has another layout is one no C program reaches,
    /// and is not written; see [`Lower::gather_place`]).
    pub(super) fn scatter(
        &mut self,
        (obj, base, layout): (usize, i64, Option<(&CType, bool)>),
        sec: &[SecIdx],
        vals: &[Slot],
        en: Bit,
        loc: Loc,
    ) -> DResult<()> {
        self.scatter_at((obj, base, layout), sec, vals, en, loc, false)
    }

    /// [`Self::scatter`]; `chosen`: the position is one a secret index
    /// may give, where nothing is written if it is outside the object
    /// (see [`start_within`]) or of another layout.
    fn scatter_at(
        &mut self,
        (obj, base, layout): (usize, i64, Option<(&CType, bool)>),
        sec: &[SecIdx],
        vals: &[Slot],
        en: Bit,
        loc: Loc,
        chosen: bool,
    ) -> DResult<()> {
        let len = self.objs[obj].slots.len() as i64;
        let Some((s, rest)) = sec.split_first() else {
            if base < 0 || base + vals.len() as i64 > len {
                if chosen {
                    return Ok(());
                }
                return err(loc, "access outside the object");
            }
            if chosen && layout.is_some_and(|l| self.other_layout(obj, base as usize, l)) {
                return Ok(());
            }
            for (i, v) in vals.iter().enumerate() {
                let leaf = base as usize + i;
                let new = if en == Bit::Const(true) {
                    v.clone()
                } else {
                    let old = self.slot(obj, leaf);
                    self.merge_slot(en, v, &old, loc)?
                };
                self.write_slot(obj, leaf, new);
            }
            return Ok(());
        };
        for (k, e) in self.decoder(en, s).into_iter().enumerate().take(s.count) {
            if e == Bit::Const(false) {
                continue;
            }
            let at = (obj, base + (k * s.stride) as i64, layout);
            self.scatter_at(at, rest, vals, e, loc, true)?;
        }
        Ok(())
    }

    /// One-hot decoder of the low bits of secret term `s`'s index (one
    /// enable per position it may give, and `en`).
    pub(super) fn decoder(&mut self, en: Bit, s: &SecIdx) -> Vec<Bit> {
        let mut nbits = 0;
        while (1usize << nbits) < s.count {
            nbits += 1;
        }
        let mut dec = vec![en];
        for j in 0..nbits {
            let x = s.idx.get(j).copied().unwrap_or(Bit::Const(false));
            let nx = self.b.not(x);
            let mut next = Vec::with_capacity(dec.len() * 2);
            for half in 0..2 {
                for &d in &dec {
                    let sel = if half == 1 { x } else { nx };
                    next.push(self.b.and(d, sel));
                }
            }
            dec = next;
        }
        dec
    }
}

/// The value of type `ty` whose leaves are `slots`.
pub(super) fn value_of(ty: &CType, slots: Vec<Slot>, loc: Loc) -> DResult<Val> {
    Ok(match (ty, slots.first()) {
        (t, Some(Slot::Val(w))) if t.arith().is_some() => {
            Val::Int(t.arith().unwrap_or(Scalar::INT), w.clone())
        }
        (CType::Pointer(t), Some(Slot::Ptr(ptr))) => Val::Ptr((**t).clone(), ptr.clone()),
        (CType::Struct(_), _) => Val::Agg(ty.clone(), slots),
        _ => return err(loc, format!("cannot read a value of type {}", ty.name())),
    })
}

/// The bits each leaf of a value of type `ty` holds in C's layout, if it
/// has bit-fields (else every leaf holds all of its type's).
fn bits_held(ty: &CType) -> Option<Vec<u32>> {
    ty.holds_bit_field().then(|| {
        let mut spans = Vec::new();
        ty.leaf_bits(0, &mut spans);
        spans.iter().map(|s| s.1).collect()
    })
}

/// What [`Lower::select_positions`] reads the slots at one position with
/// (the position, and whether a secret index chose it).
pub(super) type ReadAt<'a, 'p> = dyn FnMut(&mut Lower<'p>, i64, bool) -> DResult<Vec<Slot>> + 'a;

/// The first position `base` moved by the secret terms `sec` may give
/// (in the order of the terms' indices) where `fits` holds.
fn first_position(base: i64, sec: &[SecIdx], fits: &impl Fn(i64) -> bool) -> Option<i64> {
    let Some((s, rest)) = sec.split_first() else {
        return fits(base).then_some(base);
    };
    (0..s.count).find_map(|k| first_position(base + (k * s.stride) as i64, rest, fits))
}

/// Where `n` units from `base` start inside an object of `len` units.
/// A position `chosen` by a secret index is read as a secret index out of
/// bounds is (some units of the object): clamped inside (`p = a + (x &
/// 1); p[1]` with `a[8]` tries `p[1]` at `a[8]`, where `x & 1` would be
/// 7); any other outside the object is an error.
pub(super) fn start_within(base: i64, n: usize, len: i64, chosen: bool, loc: Loc) -> DResult<i64> {
    match base {
        b if b >= 0 && b + n as i64 <= len => Ok(b),
        b if chosen && n as i64 <= len => Ok(b.clamp(0, len - n as i64)),
        _ => err(loc, "access outside the object"),
    }
}

/// Which of `count` candidates the multiplexer tree of
/// [`Lower::select_slots`] may select with index bits `idx` (bits past
/// its end are zeros): at a level whose bit is constant only one side of
/// each pair can be, and a candidate left alone at a level's end is passed
/// on whatever the bit.
fn selectable(idx: &[Bit], count: usize) -> Vec<bool> {
    if count == 0 {
        return Vec::new();
    }
    // Level sizes, from the candidates up to the root.
    let mut sizes = vec![count];
    while let Some(&len) = sizes.last().filter(|&&len| len > 1) {
        sizes.push(len.div_ceil(2));
    }
    let mut above = vec![true];
    for j in (0..sizes.len() - 1).rev() {
        let len = sizes[j];
        let sel = idx.get(j).copied().unwrap_or(Bit::Const(false));
        above = (0..len)
            .map(|p| {
                let parent = above[p / 2];
                let alone = p % 2 == 0 && p + 1 == len;
                match sel {
                    Bit::Const(c) if !alone => parent && (p % 2 == 1) == c,
                    _ => parent,
                }
            })
            .collect();
    }
    above
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_candidates_the_constant_bits_allow_are_selectable() {
        let w = Bit::Wire(7);
        let (zero, one) = (Bit::Const(false), Bit::Const(true));
        // Odd positions only.
        assert_eq!(
            selectable(&[one, w, w], 6),
            [false, true, false, true, false, true]
        );
        // Bit 2 set among 5 candidates: only 4 (5..7 do not exist).
        assert_eq!(
            selectable(&[w, w, one], 5),
            [false, false, false, false, true]
        );
        // Bits past the index's end are zeros.
        assert_eq!(selectable(&[w], 4), [true, true, false, false]);
        assert_eq!(selectable(&[zero, one], 3), [false, false, true]);
        assert_eq!(selectable(&[w, w], 0), Vec::<bool>::new());
        assert_eq!(selectable(&[], 1), [true]);
    }
}
