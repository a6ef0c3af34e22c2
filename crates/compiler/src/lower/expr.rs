//! Expressions: operators with C conversions, conditions, `?:`, casts, `sizeof`.

use super::*;

impl<'p> Lower<'p> {
    // ----- expressions ------------------------------------------------------

    /// Evaluates a condition to one bit.
    pub(super) fn cond(&mut self, e: &Expr) -> DResult<Bit> {
        let v = self.eval(e)?;
        self.truth(v, e.loc)
    }

    pub(super) fn truth(&mut self, v: Val, loc: Loc) -> DResult<Bit> {
        match v {
            Val::Int(_, w) => Ok(w.truth(&mut self.b)),
            Val::Ptr(_, p) => Ok(Bit::Const(p.obj != usize::MAX)),
            _ => err(loc, "a struct or void value used as a condition"),
        }
    }

    pub(super) fn word_eq(&mut self, x: &Word, y: &Word) -> Bit {
        match (x.as_const(), y.as_const()) {
            (Some(a), Some(b)) => Bit::Const(a == b),
            _ => {
                let (xb, yb) = (x.bits(&mut self.b), y.bits(&mut self.b));
                gates::equal(&mut self.b, &xb, &yb)
            }
        }
    }

    pub(super) fn int(v: i128, ty: Scalar) -> Val {
        Val::Int(ty, Word::konst(v as u64, ty.width))
    }

    pub(super) fn bool_val(b: Bit) -> Val {
        let mut bits = vec![Bit::Const(false); 32];
        bits[0] = b;
        Val::Int(Scalar::INT, Word::from_bits(bits))
    }

    /// Converts a value to type `ty` (assignment conversions).
    pub(super) fn convert(&mut self, v: Val, ty: &CType, loc: Loc) -> DResult<Val> {
        match (v, ty) {
            (Val::Int(s, w), t) if t.scalar().is_some() => {
                let to = t.scalar().unwrap_or(Scalar::INT);
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

    pub(super) fn eval(&mut self, e: &Expr) -> DResult<Val> {
        if let ExprKind::Ident(_) = e.kind {
            if let Some(v) = self.stored_counter(e.loc) {
                return Ok(v);
            }
        }
        match &e.kind {
            ExprKind::Int(v, ty) => Ok(Val::Int(*ty, Word::konst(*v, ty.width))),
            ExprKind::Str => err(e.loc, "string literals are not supported"),
            ExprKind::Ident(_)
            | ExprKind::Index(..)
            | ExprKind::Member(..)
            | ExprKind::Arrow(..)
            | ExprKind::Unary(UnOp::Deref, _) => {
                if let ExprKind::Member(a, m) = &e.kind {
                    if !is_lvalue(a) {
                        let v = self.eval(a)?;
                        return self.member_of_value(v, m, e.loc);
                    }
                }
                let p = self.place(e)?;
                self.read(&p, e.loc)
            }
            ExprKind::Unary(op, a) => self.unary(*op, a, e.loc),
            ExprKind::IncDec { pre, inc, e: a } => {
                let p = self.place(a)?;
                let old = self.read(&p, a.loc)?;
                let one = Self::int(1, Scalar::INT);
                let new = self.binop(
                    if *inc { BinOp::Add } else { BinOp::Sub },
                    old.clone(),
                    one,
                    e.loc,
                )?;
                let new = self.convert(new, &p.ty, e.loc)?;
                self.write(&p, new.clone(), e.loc)?;
                Ok(if *pre { new } else { old })
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                self.binop_at(*op, x, y, e.loc)
            }
            ExprKind::LogAnd(a, b) | ExprKind::LogOr(a, b) => {
                let is_and = matches!(e.kind, ExprKind::LogAnd(..));
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
                            let (t, _) =
                                self.fork(sel, e.loc, |me| me.cond(b), |_| Ok(Bit::Const(false)))?;
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
            ExprKind::Assign(op, a, b) => {
                let p = self.place(a)?;
                let rhs = self.eval(b)?;
                let v = match op {
                    None => rhs,
                    Some(op) => {
                        let old = self.read(&p, a.loc)?;
                        self.binop_at(*op, old, rhs, e.loc)?
                    }
                };
                let v = self.convert(v, &p.ty, e.loc)?;
                self.write(&p, v.clone(), e.loc)?;
                Ok(v)
            }
            ExprKind::Cond(c, a, b) => {
                let cv = self.cond(c)?;
                match cv {
                    Bit::Const(taken) => {
                        let (run, other) = if taken { (a, b) } else { (b, a) };
                        let v = self.eval(run)?;
                        // The result has the common type of both sides.
                        let ot = decay(self.static_type(other)?);
                        match (&v, ot.scalar()) {
                            (Val::Int(s, _), Some(o)) => {
                                let t = Scalar::common(*s, o).ctype();
                                self.convert(v, &t, e.loc)
                            }
                            _ => Ok(v),
                        }
                    }
                    _ => {
                        let (x, y) = if a.has_side_effects() || b.has_side_effects() {
                            self.fork(cv, e.loc, |me| me.eval(a), |me| me.eval(b))?
                        } else {
                            (self.eval(a)?, self.eval(b)?)
                        };
                        self.select(cv, x, y, e.loc)
                    }
                }
            }
            ExprKind::Comma(a, b) => {
                self.eval(a)?;
                self.eval(b)
            }
            ExprKind::Call(name, args) => self.call(name, args, e.loc),
            ExprKind::Cast(t, a) => {
                let ty = self.resolve_type(t, None, e.loc)?;
                let v = self.eval(a)?;
                match (&ty, v) {
                    (CType::Void, _) => Ok(Val::Void),
                    (CType::Pointer(t), Val::Ptr(_, p)) => Ok(Val::Ptr((**t).clone(), p)),
                    (_, v) => self.convert(v, &ty, e.loc),
                }
            }
            ExprKind::SizeofType(t) => {
                let ty = self.resolve_type(t, None, e.loc)?;
                Ok(Self::int(
                    ty.size() as i128,
                    Scalar {
                        width: 64,
                        signed: false,
                    },
                ))
            }
            ExprKind::SizeofExpr(a) => {
                let ty = self.static_type(a)?;
                Ok(Self::int(
                    ty.size() as i128,
                    Scalar {
                        width: 64,
                        signed: false,
                    },
                ))
            }
        }
    }

    /// The type of an expression without evaluating it (for `sizeof` and
    /// the type of `?:` when only one side runs).
    pub(super) fn static_type(&mut self, e: &Expr) -> DResult<CType> {
        let scalar = |t: &CType| t.scalar();
        Ok(match &e.kind {
            ExprKind::Int(_, s) => s.ctype(),
            ExprKind::Str => return err(e.loc, "string literals are not supported"),
            ExprKind::Ident(n) => self
                .lookup(n)
                .map(|(_, t)| t)
                .ok_or_else(|| diag(e.loc, format!("undeclared identifier '{n}'")))?,
            ExprKind::Index(a, i) => match self.static_type(a)? {
                CType::Array(t, _) | CType::Pointer(t) => *t,
                _ => match self.static_type(i)? {
                    CType::Array(t, _) | CType::Pointer(t) => *t,
                    _ => return err(e.loc, "subscripted value is not an array or pointer"),
                },
            },
            ExprKind::Unary(UnOp::Deref, a) => match self.static_type(a)? {
                CType::Array(t, _) | CType::Pointer(t) => *t,
                _ => return err(e.loc, "dereferenced value is not a pointer"),
            },
            ExprKind::Unary(UnOp::Addr, a) => CType::Pointer(Box::new(self.static_type(a)?)),
            ExprKind::Unary(UnOp::Not, _) | ExprKind::LogAnd(..) | ExprKind::LogOr(..) => {
                CType::INT
            }
            ExprKind::Unary(_, a) => match scalar(&self.static_type(a)?) {
                Some(s) => s.promote().ctype(),
                None => return err(e.loc, "operand of a unary operator is not an integer"),
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
                    (BinOp::Shl | BinOp::Shr, _, _) => match scalar(&ta) {
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
            ExprKind::Comma(_, b) => self.static_type(b)?,
            ExprKind::Call(name, _) => match self.funcs.get(name.as_str()) {
                Some(f) => f.ret.clone(),
                None if matches!(name.as_str(), "memcpy" | "memmove" | "memset") => {
                    CType::Pointer(Box::new(CType::Void))
                }
                None => {
                    return err(
                        e.loc,
                        format!("call of undeclared (or undefined) function '{name}'"),
                    )
                }
            },
            ExprKind::Member(a, m) => {
                let t = self.static_type(a)?;
                self.field_type(t, m, e.loc)?.0
            }
            ExprKind::Arrow(a, m) => match self.static_type(a)? {
                CType::Pointer(t) | CType::Array(t, _) => self.field_type(*t, m, e.loc)?.0,
                _ => return err(e.loc, "'->' on a non-pointer"),
            },
            ExprKind::Cast(t, _) => self.resolve_type(t, None, e.loc)?,
            ExprKind::SizeofType(_) | ExprKind::SizeofExpr(_) => CType::Int {
                bits: 64,
                signed: false,
            },
        })
    }

    pub(super) fn field_type(&self, ty: CType, m: &str, loc: Loc) -> DResult<(CType, usize)> {
        let CType::Struct(s) = &ty else {
            return err(
                loc,
                format!("member '{m}' of a non-struct value ({})", ty.name()),
            );
        };
        let mut off = 0;
        for (n, t) in &s.fields {
            if n == m {
                return Ok((t.clone(), off));
            }
            off += t.leaves();
        }
        err(loc, format!("{} has no member named '{m}'", ty.name()))
    }

    pub(super) fn member_of_value(&mut self, v: Val, m: &str, loc: Loc) -> DResult<Val> {
        let Val::Agg(ty, slots) = v else {
            return err(loc, format!("member '{m}' of a non-struct value"));
        };
        let (ft, off) = self.field_type(ty, m, loc)?;
        let n = ft.leaves();
        let part: Vec<Slot> = slots[off..off + n].to_vec();
        Ok(match (&ft, part.first()) {
            (t, Some(Slot::Val(w))) if t.scalar().is_some() => {
                Val::Int(t.scalar().unwrap_or(Scalar::INT), w.clone())
            }
            (CType::Pointer(t), Some(Slot::Ptr(p))) => Val::Ptr((**t).clone(), p.clone()),
            _ => Val::Agg(ft, part),
        })
    }

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
            (Val::Ptr(t, p), Val::Ptr(_, q)) if p == q => Ok(Val::Ptr(t, p)),
            (Val::Void, Val::Void) => Ok(Val::Void),
            (Val::Ptr(..), _) | (_, Val::Ptr(..)) => err(
                loc,
                "a pointer whose target depends on a secret condition is not supported",
            ),
            _ => err(loc, "operands of '?:' have incompatible types"),
        }
    }

    pub(super) fn unary(&mut self, op: UnOp, a: &Expr, loc: Loc) -> DResult<Val> {
        if op == UnOp::Addr {
            if let ExprKind::Ident(n) = &a.kind {
                if self.lookup(n).is_none() && self.funcs.contains_key(n) {
                    return err(loc, "function pointers are not supported");
                }
            }
            let p = self.place(a)?;
            return Ok(Val::Ptr(
                p.ty.clone(),
                Ptr {
                    obj: p.obj,
                    leaf: p.leaf,
                    sec: p.sec,
                },
            ));
        }
        let v = self.eval(a)?;
        let Val::Int(s, w) = v else {
            if op == UnOp::Not {
                if let Val::Ptr(_, p) = v {
                    return Ok(Self::bool_val(Bit::Const(p.obj == usize::MAX)));
                }
            }
            return err(loc, "operand of a unary operator is not an integer");
        };
        let t = s.promote();
        let w = w.convert(&mut self.b, s, t);
        Ok(match op {
            UnOp::Plus => Val::Int(t, w),
            UnOp::Neg => match w.as_const() {
                Some(v) => Self::int(-(t.to_i128(v)), t),
                None => Val::Int(t, Word::konst(0, t.width).add(&mut self.b, &w, true)),
            },
            UnOp::BitNot => match w.as_const() {
                Some(v) => Val::Int(t, Word::konst(!v, t.width)),
                None => {
                    let bits = w.bits(&mut self.b);
                    Val::Int(t, Word::from_bits(gates::not(&mut self.b, &bits)))
                }
            },
            _ => {
                let tr = w.truth(&mut self.b);
                let n = self.b.not(tr);
                Self::bool_val(n)
            }
        })
    }

    pub(super) fn binop(&mut self, op: BinOp, x: Val, y: Val, loc: Loc) -> DResult<Val> {
        match (x, y) {
            (Val::Int(s1, w1), Val::Int(s2, w2)) => self.arith(op, s1, w1, s2, w2),
            (Val::Ptr(t, p), Val::Int(s, w)) if matches!(op, BinOp::Add | BinOp::Sub) => {
                let w = w.convert(
                    &mut self.b,
                    s,
                    Scalar {
                        width: 64,
                        signed: true,
                    },
                );
                let w = if op == BinOp::Sub {
                    match w.as_const() {
                        Some(v) => Word::konst(v.wrapping_neg(), 64),
                        None => Word::konst(0, 64).add(&mut self.b, &w, true),
                    }
                } else {
                    w
                };
                self.ptr_add(t, p, w, loc)
            }
            (Val::Int(s, w), Val::Ptr(t, p)) if op == BinOp::Add => {
                let w = w.convert(
                    &mut self.b,
                    s,
                    Scalar {
                        width: 64,
                        signed: true,
                    },
                );
                self.ptr_add(t, p, w, loc)
            }
            (Val::Ptr(t, p), Val::Ptr(_, q)) => {
                // Where pointers point may move with a loop variable.
                self.fail_probes("pointers are compared or subtracted");
                if !p.sec.is_empty() || !q.sec.is_empty() {
                    return err(
                        loc,
                        "comparing or subtracting pointers with secret offsets is not supported",
                    );
                }
                if p.obj != q.obj && op != BinOp::Eq && op != BinOp::Ne {
                    return err(
                        loc,
                        "pointers into different objects cannot be compared or subtracted",
                    );
                }
                let stride = t.leaves().max(1) as i64;
                let same = p.obj == q.obj;
                let r = match op {
                    BinOp::Sub => {
                        return Ok(Self::int(
                            ((p.leaf - q.leaf) / stride) as i128,
                            Scalar {
                                width: 64,
                                signed: true,
                            },
                        ))
                    }
                    BinOp::Eq => same && p.leaf == q.leaf,
                    BinOp::Ne => !(same && p.leaf == q.leaf),
                    BinOp::Lt => p.leaf < q.leaf,
                    BinOp::Le => p.leaf <= q.leaf,
                    BinOp::Gt => p.leaf > q.leaf,
                    BinOp::Ge => p.leaf >= q.leaf,
                    _ => return err(loc, "invalid operation on pointers"),
                };
                Ok(Self::bool_val(Bit::Const(r)))
            }
            (Val::Ptr(_, p), Val::Int(_, Word::Const { v: 0, .. }))
            | (Val::Int(_, Word::Const { v: 0, .. }), Val::Ptr(_, p))
                if matches!(op, BinOp::Eq | BinOp::Ne) =>
            {
                let is_null = p.obj == usize::MAX;
                Ok(Self::bool_val(Bit::Const(is_null == (op == BinOp::Eq))))
            }
            _ => err(loc, "invalid operands of a binary operator"),
        }
    }

    pub(super) fn ptr_add(&mut self, t: CType, mut p: Ptr, off: Word, loc: Loc) -> DResult<Val> {
        if p.obj == usize::MAX {
            return err(loc, "arithmetic on a null pointer");
        }
        let stride = t.leaves().max(1);
        let len = self.objs[p.obj].slots.len() as i64;
        match off.as_const() {
            Some(v) => {
                let k = v as i64;
                let nl = k
                    .checked_mul(stride as i64)
                    .and_then(|o| o.checked_add(p.leaf))
                    .unwrap_or(-1);
                if nl < 0 || nl > len {
                    return err(loc, "pointer arithmetic leaves the object it points into");
                }
                p.leaf = nl;
            }
            None => {
                let extra: i64 = p
                    .sec
                    .iter()
                    .map(|s| ((s.count - 1) * s.stride) as i64)
                    .sum();
                let remaining = len - p.leaf - extra - t.leaves() as i64;
                if remaining < 0 {
                    return err(loc, "pointer arithmetic leaves the object it points into");
                }
                let count = remaining as usize / stride + 1;
                // How many elements a secret index selects from depends on
                // where the pointer points: it must not move in a kept loop.
                self.note_fact(&[p.obj as i128, p.leaf as i128, count as i128]);
                p.sec.push(SecIdx {
                    idx: Rc::new(off.bits(&mut self.b)),
                    stride,
                    count,
                });
            }
        }
        Ok(Val::Ptr(t, p))
    }

    pub(super) fn arith(
        &mut self,
        op: BinOp,
        s1: Scalar,
        w1: Word,
        s2: Scalar,
        w2: Word,
    ) -> DResult<Val> {
        if let Some(right) = shift_kind(op) {
            return Ok(self.shift(right, s1, w1, s2, w2));
        }
        let t = Scalar::common(s1, s2);
        let x = w1.convert(&mut self.b, s1, t);
        let y = w2.convert(&mut self.b, s2, t);
        let n = t.width;
        if let Some(r) = self.compare_by_ranges(op, t, &x, &y) {
            return Ok(Self::bool_val(Bit::Const(r)));
        }
        if let (Some(a), Some(c)) = (x.as_const(), y.as_const()) {
            let (ia, ic) = (t.to_i128(a), t.to_i128(c));
            let cmp = |r: bool| Self::bool_val(Bit::Const(r));
            return Ok(match op {
                BinOp::Add => Val::Int(t, Word::konst(a.wrapping_add(c), n)),
                BinOp::Sub => Val::Int(t, Word::konst(a.wrapping_sub(c), n)),
                BinOp::Mul => Val::Int(t, Word::konst(a.wrapping_mul(c), n)),
                BinOp::Div | BinOp::Rem => {
                    Val::Int(t, Word::konst(const_divrem(t, a, c, op == BinOp::Rem), n))
                }
                BinOp::And => Val::Int(t, Word::konst(a & c, n)),
                BinOp::Or => Val::Int(t, Word::konst(a | c, n)),
                BinOp::Xor => Val::Int(t, Word::konst(a ^ c, n)),
                BinOp::Lt => cmp(ia < ic),
                BinOp::Le => cmp(ia <= ic),
                BinOp::Gt => cmp(ia > ic),
                BinOp::Ge => cmp(ia >= ic),
                BinOp::Eq => cmp(ia == ic),
                BinOp::Ne => cmp(ia != ic),
                // Shifts were handled by `shift` above.
                BinOp::Shl | BinOp::Shr => Val::Int(t, x),
            });
        }
        match op {
            BinOp::Add => return Ok(Val::Int(t, x.add(&mut self.b, &y, false))),
            BinOp::Sub => return Ok(Val::Int(t, x.add(&mut self.b, &y, true))),
            BinOp::Mul => return Ok(Val::Int(t, x.mul(&mut self.b, &y))),
            _ => {}
        }
        let rx = x.range(&mut self.b);
        let (xb, yb) = (x.bits(&mut self.b), y.bits(&mut self.b));
        let b = &mut self.b;
        let word = |bits: Bits| Val::Int(t, Word::from_bits(bits));
        Ok(match op {
            BinOp::Add => word(gates::add(b, &xb, &yb)),
            BinOp::Sub => word(gates::sub(b, &xb, &yb)),
            BinOp::Mul => word(gates::mul(b, &xb, &yb)),
            BinOp::Div | BinOp::Rem => {
                let rem = op == BinOp::Rem;
                let (q, r) = if t.signed {
                    gates::sdivrem(b, &xb, &yb, rem)
                } else {
                    gates::udivrem(b, &xb, &yb, rem)
                };
                let bits = if rem { r } else { q };
                match div_range(t, (rx.lo, rx.hi), y.as_const(), rem) {
                    Some((lo, hi)) => Val::Int(
                        t,
                        Word::from_bits_ranged(bits, crate::range::Range::new(lo, hi)),
                    ),
                    None => word(bits),
                }
            }
            BinOp::And => word(gates::and(b, &xb, &yb)),
            BinOp::Or => word(gates::or(b, &xb, &yb)),
            BinOp::Xor => word(gates::xor(b, &xb, &yb)),
            BinOp::Lt => Self::bool_val(gates::less(b, &xb, &yb, t.signed)),
            BinOp::Gt => Self::bool_val(gates::less(b, &yb, &xb, t.signed)),
            BinOp::Le => {
                let g = gates::less(b, &yb, &xb, t.signed);
                Self::bool_val(b.not(g))
            }
            BinOp::Ge => {
                let l = gates::less(b, &xb, &yb, t.signed);
                Self::bool_val(b.not(l))
            }
            BinOp::Eq => Self::bool_val(gates::equal(b, &xb, &yb)),
            BinOp::Ne => {
                let e = gates::equal(b, &xb, &yb);
                Self::bool_val(b.not(e))
            }
            // Shifts were handled by `shift` above.
            BinOp::Shl | BinOp::Shr => Val::Int(t, Word::from_bits(xb)),
        })
    }

    /// `x < y` of two words of type `t` as one bit.
    pub(super) fn compare_lt(&mut self, t: Scalar, x: &Word, y: &Word) -> Bit {
        match self.arith(BinOp::Lt, t, x.clone(), t, y.clone()) {
            Ok(Val::Int(_, w)) => w.truth(&mut self.b),
            _ => Bit::Const(false),
        }
    }

    /// A comparison decided by the operands' value ranges, if it is.
    pub(super) fn compare_by_ranges(
        &mut self,
        op: BinOp,
        t: Scalar,
        x: &Word,
        y: &Word,
    ) -> Option<bool> {
        if !matches!(
            op,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
        ) {
            return None;
        }
        if x.as_const().is_some() && y.as_const().is_some() {
            return None;
        }
        // The ranges bound the C values only where the two readings agree.
        let w = t.width;
        let (lo, hi) = if t.signed {
            (-(1i128 << (w - 1)), 1i128 << (w - 1))
        } else {
            (0, 1i128 << w)
        };
        let (rx, ry) = (x.range(&mut self.b), y.range(&mut self.b));
        if rx.lo < lo || rx.hi >= hi || ry.lo < lo || ry.hi >= hi {
            return None;
        }
        let lt = if rx.hi < ry.lo {
            Some(true)
        } else if rx.lo >= ry.hi {
            Some(false)
        } else {
            None
        };
        let le = if rx.hi <= ry.lo {
            Some(true)
        } else if rx.lo > ry.hi {
            Some(false)
        } else {
            None
        };
        let disjoint = rx.hi < ry.lo || ry.hi < rx.lo;
        match op {
            BinOp::Lt => lt,
            BinOp::Le => le,
            BinOp::Gt => le.map(|v| !v),
            BinOp::Ge => lt.map(|v| !v),
            BinOp::Eq => disjoint.then_some(false),
            _ => disjoint.then_some(true),
        }
    }

    /// `x << y` or `x >> y` (`right`): the left operand's promoted type;
    /// the amount's low log2(width) bits are used.
    pub(super) fn shift(&mut self, right: bool, s1: Scalar, w1: Word, s2: Scalar, w2: Word) -> Val {
        let t = s1.promote();
        let x = w1.convert(&mut self.b, s1, t);
        let t2 = s2.promote();
        let y = w2.convert(&mut self.b, s2, t2);
        let n = t.width as usize;
        let mask = (n - 1) as u64;
        let r = match (x.as_const(), y.as_const()) {
            (Some(a), Some(c)) => {
                let c = (c & mask) as u32;
                let v = if !right {
                    a << c
                } else if t.signed {
                    (t.to_i128(a) >> c) as u64
                } else {
                    a >> c
                };
                Word::konst(v, t.width)
            }
            (_, Some(c)) => {
                let c = (c & mask) as usize;
                let xb = x.bits(&mut self.b);
                let fill = if t.signed {
                    xb[n - 1]
                } else {
                    Bit::Const(false)
                };
                let bits: Bits = (0..n)
                    .map(|i| {
                        if !right {
                            if i >= c {
                                xb[i - c]
                            } else {
                                Bit::Const(false)
                            }
                        } else if i + c < n {
                            xb[i + c]
                        } else {
                            fill
                        }
                    })
                    .collect();
                Word::from_bits(bits)
            }
            _ => {
                let bits = if !right {
                    let (xb, yb) = (x.bits(&mut self.b), y.bits(&mut self.b));
                    gates::shl_var(&mut self.b, &xb, &yb)
                } else {
                    let (xb, yb) = (x.bits(&mut self.b), y.bits(&mut self.b));
                    gates::shr_var(&mut self.b, &xb, &yb, t.signed)
                };
                Word::from_bits(bits)
            }
        };
        Val::Int(t, r)
    }
}

/// The range of `x / c` or `x % c` for a public divisor `c`, from the range
/// `rx` of `x` (when it bounds the C value of `x`).
fn div_range(t: Scalar, rx: (i128, i128), c: Option<u64>, rem: bool) -> Option<(i128, i128)> {
    let c = t.to_i128(c?);
    let w = t.width;
    let (lo, hi) = if t.signed {
        (-(1i128 << (w - 1)), 1i128 << (w - 1))
    } else {
        (0, 1i128 << w)
    };
    if c == 0 || c == -1 || rx.0 < lo || rx.1 >= hi {
        return None;
    }
    let m = c.abs() - 1;
    Some(if rem {
        match (rx.0 >= 0, rx.1 <= 0) {
            (true, _) => (0, m.min(rx.1)),
            (_, true) => ((-m).max(rx.0), 0),
            _ => ((-m).max(rx.0), m.min(rx.1)),
        }
    } else {
        // Truncating division is monotonic in x for a fixed divisor.
        let (a, b2) = (rx.0 / c, rx.1 / c);
        (a.min(b2), a.max(b2))
    })
}
