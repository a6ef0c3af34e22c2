//! Expressions: evaluation, conditions, conversions, `&&`, `||`, `?:`,
//! casts, `sizeof` (operators are in [`super::operator`]).

use super::*;

impl<'p> Lower<'p> {
    // ----- expressions ------------------------------------------------------

    /// Evaluates a condition to one bit.
    pub(super) fn cond(&mut self, e: &Expr) -> DResult<Bit> {
        let v = self.eval(e)?;
        self.truth(v, e.loc)
    }

    /// Whether a value is nonzero (a non-null pointer), as one bit.
    pub(super) fn truth(&mut self, v: Val, loc: Loc) -> DResult<Bit> {
        match v {
            Val::Int(s, w) if s.float => Ok(self.float_truth(&w)),
            Val::Int(_, w) => Ok(w.truth(&mut self.b)),
            Val::Ptr(_, p) => self.pointer_truth(&p, loc),
            _ => err(loc, "a struct or void value used as a condition"),
        }
    }

    /// `x == y` of two words as one bit.
    pub(super) fn word_eq(&mut self, x: &Word, y: &Word) -> Bit {
        match (x.as_const(), y.as_const()) {
            (Some(a), Some(b)) => Bit::Const(a == b),
            _ => {
                let (xb, yb) = (x.bits(&mut self.b), y.bits(&mut self.b));
                gates::equal(&mut self.b, &xb, &yb)
            }
        }
    }

    /// The public integer `v` of type `ty`.
    pub(super) fn int(v: i128, ty: Scalar) -> Val {
        Val::Int(ty, Word::konst_wide(v, ty.width))
    }

    /// The `int` 0 or 1 that the bit `b` says.
    pub(super) fn bool_val(b: Bit) -> Val {
        // (A loop's public condition is one each iteration.)
        if let Bit::Const(c) = b {
            return Val::Int(Scalar::INT, Word::konst(u64::from(c), 32));
        }
        let mut bits = vec![Bit::Const(false); 32];
        bits[0] = b;
        Val::Int(Scalar::INT, Word::from_bits(bits))
    }

    /// Converts a value to type `ty` (assignment conversions; a pointer
    /// converts to `_Bool` only of the integer types).
    pub(super) fn convert(&mut self, v: Val, ty: &CType, loc: Loc) -> DResult<Val> {
        match (v, ty) {
            (Val::Int(s, w), t) if t.arith().is_some() => {
                let to = t.arith().unwrap_or(Scalar::INT);
                Ok(Val::Int(to, w.convert(&mut self.b, s, to)))
            }
            (Val::Ptr(_, p), CType::Pointer(t)) => Ok(Val::Ptr((**t).clone(), p)),
            (Val::Int(_, Word::Const { v: 0, .. }), CType::Pointer(t)) => {
                Ok(Val::Ptr((**t).clone(), Ptr::null()))
            }
            (Val::Agg(t1, s), t2) if t1 == *t2 => Ok(Val::Agg(t1, s)),
            (Val::Int(..), CType::Pointer(_)) => {
                err(loc, "integers cannot be converted to pointers")
            }
            // (C11 6.3.1.2: a pointer converts to `_Bool` as it compares
            // unequal to a null pointer.)
            (v @ Val::Ptr(..), CType::Bool) => {
                let b = self.truth(v, loc)?;
                Ok(Val::Int(Scalar::BOOL, Word::from_bits(vec![b])))
            }
            (Val::Ptr(..), t) if t.scalar().is_some() => {
                err(loc, "pointers cannot be converted to integers")
            }
            (Val::Void, _) => err(loc, "a void value is used"),
            (v, t) => err(
                loc,
                format!("cannot convert {} to {}", val_type(&v).name(), t.name()),
            ),
        }
    }

    /// Evaluates an expression, with its side effects, to a value.
    pub(super) fn eval(&mut self, e: &Expr) -> DResult<Val> {
        self.nested(e.loc, |l| l.eval_level(e))
    }

    fn eval_level(&mut self, e: &Expr) -> DResult<Val> {
        if let Some(v) = self.hoisted_value(e) {
            return v;
        }
        if let Some(v) = self.general_key(e) {
            return v;
        }
        if let Some(v) = self.function_value(e) {
            return v;
        }
        if let ExprKind::Ident(_) = e.kind {
            if let Some(v) = self.stored_counter(e.loc) {
                return Ok(v);
            }
        }
        match &e.kind {
            ExprKind::Int(v, ty) | ExprKind::Float(v, ty) => {
                Ok(Val::Int(*ty, Word::konst(*v, ty.width)))
            }
            ExprKind::Ident(_)
            | ExprKind::Index(..)
            | ExprKind::Member(..)
            | ExprKind::Arrow(..)
            | ExprKind::Compound(..)
            | ExprKind::Str(_)
            | ExprKind::Unary(UnOp::Deref, _) => {
                if let ExprKind::Member(a, m) = &e.kind {
                    if !is_lvalue(a) {
                        let v = self.eval(a)?;
                        return self.member_of_value(v, m, e.loc);
                    }
                }
                let p = self.place(e)?;
                if let CType::Function(_) = p.ty {
                    return Ok(Self::function_at(p));
                }
                self.read(&p, e.loc)
            }
            ExprKind::Unary(op, a) => self.unary(*op, a, e.loc),
            ExprKind::IncDec { pre, inc, e: a } => self.inc_dec(*pre, *inc, a, e.loc),
            ExprKind::Binary(op, a, b) => {
                let (op, a, b) = self.sse_fold(*op, a, b);
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                if floating::sse_swaps(op, (a, &x), (b, &y)) {
                    return self.binop_at(op, y, x, e.loc);
                }
                self.binop_at(op, x, y, e.loc)
            }
            ExprKind::LogAnd(a, b) => self.logical(true, a, b, e.loc),
            ExprKind::LogOr(a, b) => self.logical(false, a, b, e.loc),
            ExprKind::Assign(op, a, b) => self.assign(*op, a, b, e.loc),
            ExprKind::Cond(c, a, b) => self.conditional(c, a, b, e.loc),
            ExprKind::Comma(a, b) => {
                self.eval(a)?;
                self.eval(b)
            }
            ExprKind::Call(name, args) => self.call(name, args, e.loc),
            ExprKind::CallPointer(callee, args) => self.call_pointer(callee, args, e.loc),
            ExprKind::Cast(t, a) => self.cast(t, a, e.loc),
            ExprKind::SizeofType(t) => {
                let ty = self.resolve_type(t, None, e.loc)?;
                Ok(Self::size_val(&ty))
            }
            ExprKind::SizeofExpr(a) => {
                self.refuse_bit_field(a, "'sizeof'", e.loc)?;
                let ty = self.static_type(a)?;
                Ok(Self::size_val(&ty))
            }
            ExprKind::StmtExpr(items) => self.stmt_expr(items),
            ExprKind::Generic(c, assocs) => {
                let chosen = self.generic_choice(c, assocs, e.loc)?;
                self.eval(chosen)
            }
        }
    }

    /// `++a`, `--a` (`pre`), `a++` or `a--`: writes the new value, and is
    /// the new or the old one.
    fn inc_dec(&mut self, pre: bool, inc: bool, a: &Expr, loc: Loc) -> DResult<Val> {
        let p = self.place(a)?;
        let old = self.read(&p, a.loc)?;
        let one = Self::int(1, Scalar::INT);
        let new = self.binop(
            if inc { BinOp::Add } else { BinOp::Sub },
            old.clone(),
            one,
            loc,
        )?;
        let new = self.convert(new, &p.ty, loc)?;
        let new = self.fit_bit_field(&p, new);
        self.write(&p, new.clone(), loc)?;
        Ok(if pre { new } else { old })
    }

    /// `a && b` (`is_and`) or `a || b`: `b` runs only if `a` does not
    /// decide, and, when `a` is secret and `b` has side effects, only on
    /// the side where it would.
    fn logical(&mut self, is_and: bool, a: &Expr, b: &Expr, loc: Loc) -> DResult<Val> {
        let x = self.cond(a)?;
        match (x, is_and) {
            (Bit::Const(false), true) => Ok(Self::bool_val(Bit::Const(false))),
            (Bit::Const(true), false) => Ok(Self::bool_val(Bit::Const(true))),
            (Bit::Const(_), _) => {
                let y = self.cond(b)?;
                Ok(Self::bool_val(y))
            }
            _ => {
                let y = if b.has_side_effects() {
                    let sel = if is_and { x } else { self.b.not(x) };
                    let (t, _) = self.fork(sel, loc, |me| me.cond(b), |_| Ok(Bit::Const(false)))?;
                    t
                } else {
                    self.cond(b)?
                };
                let r = if is_and {
                    self.b.and(x, y)
                } else {
                    self.b.or(x, y)
                };
                Ok(Self::bool_val(r))
            }
        }
    }

    /// `a = b`, or `a op= b`: writes the converted value, and is it.
    fn assign(&mut self, op: Option<BinOp>, a: &Expr, b: &Expr, loc: Loc) -> DResult<Val> {
        let p = self.place(a)?;
        let rhs = self.eval(b)?;
        let v = match op {
            None => rhs,
            Some(op) => {
                let old = self.read(&p, a.loc)?;
                if floating::sse_swaps(op, (a, &old), (b, &rhs)) {
                    self.binop_at(op, rhs, old, loc)?
                } else {
                    self.binop_at(op, old, rhs, loc)?
                }
            }
        };
        let v = self.convert(v, &p.ty, loc)?;
        let mut v = self.fit_bit_field(&p, v);
        if let Val::Int(s, w) = &v {
            if self.reduce_at.contains(&loc) {
                v = Val::Int(*s, w.reduced_for_readers(&mut self.b));
            }
        }
        self.write(&p, v.clone(), loc)?;
        Ok(v)
    }

    /// `c ? a : b`: only the side taken runs when `c` is public; for a
    /// secret `c` both do (on their own sides if they have side effects)
    /// and the result is selected.
    fn conditional(&mut self, c: &Expr, a: &Expr, b: &Expr, loc: Loc) -> DResult<Val> {
        let cv = self.cond(c)?;
        match cv {
            Bit::Const(taken) => {
                let (run, other) = if taken { (a, b) } else { (b, a) };
                let v = self.eval(run)?;
                // The result has the common type of both sides.
                let ot = decay(self.static_type(other)?);
                match (&v, ot.arith()) {
                    (Val::Int(s, _), Some(o)) => {
                        let t = Scalar::common(*s, o).ctype();
                        self.convert(v, &t, loc)
                    }
                    _ => Ok(v),
                }
            }
            _ => {
                let (x, y) = if a.has_side_effects() || b.has_side_effects() {
                    self.fork(cv, loc, |me| me.eval(a), |me| me.eval(b))?
                } else {
                    // Each side is a path that may never run (`j == 0 ?
                    // x : d[j - 1]` in a kept loop whose condition is an
                    // input of its template): a public index out of
                    // bounds there selects some element, as under a fork.
                    self.secret_depth += 1;
                    let sides = self.eval(a).and_then(|x| Ok((x, self.eval(b)?)));
                    self.secret_depth -= 1;
                    sides?
                };
                let picks = extremum(c, a, b);
                if let (Val::Int(s, wx), Val::Int(t, wy), Some(greater)) = (&x, &y, picks) {
                    if s == t && !s.float {
                        let fits = s.bounds();
                        if let Some(w) = wx.extremum_of_sums(&mut self.b, cv, wy, greater, fits) {
                            return Ok(Val::Int(*s, w));
                        }
                    }
                }
                let ranges = match (&x, &y, picks) {
                    (Val::Int(s, wx), Val::Int(t, wy), Some(greater)) if s == t && !s.float => {
                        let (rx, ry) = (wx.range(&mut self.b), wy.range(&mut self.b));
                        // Ranges of the values as the comparison orders
                        // them (not of bits read as the other signedness).
                        let held = |r: &crate::range::Range| {
                            let (lo, hi) = s.bounds();
                            lo <= r.lo && r.hi <= hi
                        };
                        (held(&rx) && held(&ry)).then_some((rx, ry, greater))
                    }
                    _ => None,
                };
                let v = self.select(cv, x, y, loc)?;
                match (v, ranges) {
                    // The greater (or lesser) of two values: its range is
                    // theirs, not both together.
                    (Val::Int(s, Word::Bits(bits, r)), Some((rx, ry, greater))) => {
                        let picked = if greater {
                            rx.greater(ry)
                        } else {
                            rx.lesser(ry)
                        };
                        let bits = bits.to_vec();
                        Ok(Val::Int(s, Word::from_bits_ranged(bits, r.meet(picked))))
                    }
                    (v, _) => Ok(v),
                }
            }
        }
    }

    /// `(t) a`.
    fn cast(&mut self, t: &TypeExpr, a: &Expr, loc: Loc) -> DResult<Val> {
        let ty = self.resolve_type(t, None, loc)?;
        let v = self.eval(a)?;
        match (&ty, v) {
            (CType::Void, _) => Ok(Val::Void),
            (CType::Pointer(t), Val::Ptr(_, p)) => Ok(Val::Ptr((**t).clone(), p)),
            (_, v) => self.convert(v, &ty, loc),
        }
    }

    /// The size of type `ty` in bytes, as a `size_t` (`sizeof`).
    fn size_val(ty: &CType) -> Val {
        Self::int(ty.size() as i128, Scalar::int(64, false))
    }

    /// The type of an expression without evaluating it (for `sizeof` and
    /// the type of `?:` when only one side runs).
    pub(super) fn static_type(&mut self, e: &Expr) -> DResult<CType> {
        // Floating types take part in the usual arithmetic conversions.
        let scalar = |t: &CType| t.arith();
        if let Some(t) = self.function_value_type(e) {
            return t;
        }
        Ok(match &e.kind {
            ExprKind::Int(_, s) | ExprKind::Float(_, s) => s.ctype(),
            ExprKind::Str(bytes) => string_type(bytes),
            ExprKind::Ident(n) => self
                .lookup(n)
                .map(|(_, t)| t)
                .ok_or_else(|| diag(e.loc, format!("undeclared identifier '{n}'")))?,
            ExprKind::Index(a, i) => match self.static_type(a)? {
                CType::Array(t, _) | CType::Pointer(t) => Arc::unwrap_or_clone(t),
                _ => match self.static_type(i)? {
                    CType::Array(t, _) | CType::Pointer(t) => Arc::unwrap_or_clone(t),
                    _ => return err(e.loc, "subscripted value is not an array or pointer"),
                },
            },
            ExprKind::Unary(UnOp::Deref, a) => match self.static_type(a)? {
                CType::Array(t, _) | CType::Pointer(t) => Arc::unwrap_or_clone(t),
                // (`*f` of a function designator is the function.)
                f @ CType::Function(_) => f,
                _ => return err(e.loc, "dereferenced value is not a pointer"),
            },
            ExprKind::Unary(UnOp::Addr, a) => CType::Pointer(Arc::new(self.static_type(a)?)),
            ExprKind::Unary(UnOp::Not, _) | ExprKind::LogAnd(..) | ExprKind::LogOr(..) => {
                CType::INT
            }
            ExprKind::Unary(_, a) => match scalar(&self.static_type(a)?) {
                Some(s) => s.promote().ctype(),
                None => return err(e.loc, "operand of a unary operator is not arithmetic"),
            },
            ExprKind::IncDec { e: a, .. } | ExprKind::Assign(_, a, _) => self.static_type(a)?,
            ExprKind::Binary(op, a, b) => {
                let ta = decay(self.static_type(a)?);
                let tb = decay(self.static_type(b)?);
                match (op, &ta, &tb) {
                    (
                        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne,
                        _,
                        _,
                    ) => CType::INT,
                    (BinOp::Sub, CType::Pointer(_), CType::Pointer(_)) => CType::Int {
                        bits: 64,
                        signed: true,
                    },
                    (_, CType::Pointer(_), _) => ta,
                    (_, _, CType::Pointer(_)) => tb,
                    (BinOp::Shl | BinOp::Shr, _, _) => match ta.scalar() {
                        Some(s) => s.promote().ctype(),
                        None => return err(e.loc, "invalid operands of a shift"),
                    },
                    _ => match (scalar(&ta), scalar(&tb)) {
                        (Some(x), Some(y)) => Scalar::common(x, y).ctype(),
                        _ => return err(e.loc, "invalid operands of a binary operator"),
                    },
                }
            }
            ExprKind::Cond(_, a, b) => {
                let ta = decay(self.static_type(a)?);
                let tb = decay(self.static_type(b)?);
                match (scalar(&ta), scalar(&tb)) {
                    (Some(x), Some(y)) => Scalar::common(x, y).ctype(),
                    _ => ta,
                }
            }
            // (An array operand is a pointer there: `sizeof(0, a)` is a
            // pointer's size.)
            ExprKind::Comma(_, b) => decay(self.static_type(b)?),
            ExprKind::Call(name, _) => {
                match self.funcs.get(call::library_name(name, &self.funcs)) {
                    Some(f) => f.ret.clone(),
                    None => match call::builtin_type(name) {
                        Some(t) => t,
                        None => return call::unknown_function(name, e.loc),
                    },
                }
            }
            ExprKind::CallPointer(callee, _) => self.call_pointer_type(callee)?,
            ExprKind::Member(a, m) => {
                let t = self.static_type(a)?;
                self.field_type(t, m, false, e.loc)?.0
            }
            ExprKind::Arrow(a, m) => match self.static_type(a)? {
                CType::Pointer(t) | CType::Array(t, _) => {
                    self.field_type(Arc::unwrap_or_clone(t), m, false, e.loc)?.0
                }
                _ => return err(e.loc, "'->' on a non-pointer"),
            },
            ExprKind::Cast(t, _) => self.resolve_type(t, None, e.loc)?,
            ExprKind::Compound(t, init) => self.resolve_type(t, Some(init), e.loc)?,
            ExprKind::SizeofType(_) | ExprKind::SizeofExpr(_) => CType::Int {
                bits: 64,
                signed: false,
            },
            ExprKind::StmtExpr(items) => self.stmt_expr_type(items)?,
            ExprKind::Generic(c, assocs) => {
                let chosen = self.generic_choice(c, assocs, e.loc)?;
                self.static_type(chosen)?
            }
        })
    }

    /// The type of member `m` of the struct or union type `ty` (whose
    /// leaves are bytes if `bytes`), its offset, and whether it lies in a
    /// union's bytes (see [`StructDef::locate`]).
    pub(super) fn field_type(
        &self,
        ty: CType,
        m: &str,
        bytes: bool,
        loc: Loc,
    ) -> DResult<(CType, u64, bool)> {
        // A pointer to a struct that was incomplete where the pointer or
        // the member was declared (`struct Node *next`, or `struct U *p;`
        // before `struct U { ... }` in a block) points to its definition.
        let definition = |id: u32| self.structs.get(&id).cloned();
        let ty = ty.completed(&definition).unwrap_or(ty);
        let CType::Struct(s) = &ty else {
            return err(
                loc,
                format!("member '{m}' of a non-struct value ({})", ty.name()),
            );
        };
        if !s.is_complete() {
            return err(
                loc,
                format!("'{}' is an incomplete type (not defined)", ty.name()),
            );
        }
        let Some((t, off, bytes)) = s.locate(m, bytes) else {
            return err(loc, format!("{} has no member named '{m}'", ty.name()));
        };
        Ok((
            t.completed(&definition).unwrap_or_else(|| t.clone()),
            off,
            bytes,
        ))
    }

    /// Member `m` of a struct value (one that is not an lvalue).
    pub(super) fn member_of_value(&mut self, v: Val, m: &str, loc: Loc) -> DResult<Val> {
        let Val::Agg(ty, slots) = v else {
            return err(loc, format!("member '{m}' of a non-struct value"));
        };
        let (ft, off, bytes) = self.field_type(ty.clone(), m, false, loc)?;
        if bytes {
            // A member in a union's bytes: read through a copy.
            let v = Val::Agg(ty.clone(), slots);
            let fill = |l: &mut Self, obj, _: &CType| {
                l.store(obj, 0, v);
                Ok(())
            };
            let whole = self.unnamed_object(ty, loc, fill)?;
            let p = self.member_place(whole, m, loc)?;
            return self.read(&p, loc);
        }
        let (off, n) = (off as usize, ft.leaves());
        let part: Vec<Slot> = slots[off..off + n].to_vec();
        Ok(match (&ft, part.first()) {
            (t, Some(Slot::Val(w))) if t.arith().is_some() => {
                Val::Int(t.arith().unwrap_or(Scalar::INT), w.clone())
            }
            (CType::Pointer(t), Some(Slot::Ptr(p))) => Val::Ptr((**t).clone(), p.clone()),
            (CType::Array(..), _) => {
                // An array decays to a pointer to its first element, here
                // in a temporary object (`make(a).v[i]`).
                let v = Val::Agg(ft.clone(), part);
                let fill = |l: &mut Self, obj, _: &CType| {
                    l.store(obj, 0, v);
                    Ok(())
                };
                let p = self.unnamed_object(ft, loc, fill)?;
                self.read(&p, loc)?
            }
            _ => Val::Agg(ft, part),
        })
    }

    /// `c ? x : y` of two values already computed (a multiplexer for
    /// secret `c`).
    pub(super) fn select(&mut self, c: Bit, x: Val, y: Val, loc: Loc) -> DResult<Val> {
        match (x, y) {
            (Val::Int(s1, w1), Val::Int(s2, w2)) => {
                let t = Scalar::common(s1, s2);
                let a = w1.convert(&mut self.b, s1, t);
                let b2 = w2.convert(&mut self.b, s2, t);
                Ok(Val::Int(t, mux_word(&mut self.b, c, &a, &b2)))
            }
            (Val::Agg(t1, a), Val::Agg(t2, b2)) if t1 == t2 => {
                let mut out = Vec::with_capacity(a.len());
                for (p, q) in a.iter().zip(&b2) {
                    out.push(self.merge_slot(c, p, q, loc)?);
                }
                Ok(Val::Agg(t1, out))
            }
            (Val::Ptr(t, p), Val::Ptr(_, q)) => Ok(Val::Ptr(t, self.mux_pointer(c, &p, &q, loc)?)),
            (Val::Void, Val::Void) => Ok(Val::Void),
            (Val::Ptr(..), _) | (_, Val::Ptr(..)) => {
                err(loc, "operands of '?:' are a pointer and an integer")
            }
            _ => err(loc, "operands of '?:' have incompatible types"),
        }
    }
}

/// Whether `c ? a : b` picks the greater of `a` and `b` (`Some(true)`: `c`
/// is `a > b`, `a >= b`, `b < a` or `b <= a`) or the lesser (`Some(false)`),
/// for operands without side effects; `None` otherwise.
fn extremum(c: &Expr, a: &Expr, b: &Expr) -> Option<bool> {
    let ExprKind::Binary(op, l, r) = &c.kind else {
        return None;
    };
    let first_greater = match op {
        BinOp::Gt | BinOp::Ge => true,
        BinOp::Lt | BinOp::Le => false,
        _ => return None,
    };
    if c.has_side_effects() || a.has_side_effects() || b.has_side_effects() {
        return None;
    }
    if l.same_as(a) && r.same_as(b) {
        Some(first_greater)
    } else if l.same_as(b) && r.same_as(a) {
        Some(!first_greater)
    } else {
        None
    }
}
