//! Operators: unary and binary operators with C's conversions, pointer
//! arithmetic, comparisons (decided by ranges where they can be) and
//! shifts.

use super::*;

/// The error for pointer arithmetic that leaves its object (a loop
/// walking a string past its end: see [`Lower::unwind_hint`]).
pub(super) const LEAVES_OBJECT: &str = "pointer arithmetic leaves the object it points into";

impl Lower<'_> {
    /// Notes for a probe's replays that `p` is used other than to reach
    /// what it points to (see [`keep::Recording::escape`]).
    pub(super) fn pointer_escapes(&mut self, p: &Ptr) {
        if let Some(rec) = self.recording.as_mut() {
            rec.escape(p);
        }
    }

    /// A unary operator applied to `a` (`&a` takes its address).
    pub(super) fn unary(&mut self, op: UnOp, a: &Expr, loc: Loc) -> DResult<Val> {
        if op == UnOp::Addr {
            self.refuse_bit_field(a, "taking the address", loc)?;
            if let Some(v) = self.one_past_the_end(a, loc)? {
                return Ok(v);
            }
            let p = self.place(a)?;
            // (Accesses through it move with the keys that placed it.)
            let ty = p.ty.clone();
            return Ok(Val::Ptr(ty, p.pointer()));
        }
        let v = self.eval(a)?;
        if let Val::Int(s, w) = &v {
            if s.float {
                return self.float_unary(op, *s, w.clone(), loc);
            }
        }
        let Val::Int(s, w) = v else {
            if op == UnOp::Not {
                if let Val::Ptr(_, p) = v {
                    let not_null = self.pointer_truth(&p, loc)?;
                    return Ok(Self::bool_val(self.b.not(not_null)));
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

    /// A binary operator on two values: integers with the usual
    /// arithmetic conversions, or pointer arithmetic and comparisons.
    pub(super) fn binop(&mut self, op: BinOp, x: Val, y: Val, loc: Loc) -> DResult<Val> {
        match (x, y) {
            (Val::Int(s1, w1), Val::Int(s2, w2)) if s1.float || s2.float => {
                self.float_binop(op, (s1, w1), (s2, w2), loc)
            }
            (Val::Int(s1, w1), Val::Int(s2, w2)) => self.arith(op, s1, w1, s2, w2),
            (Val::Ptr(..), Val::Int(s, _)) | (Val::Int(s, _), Val::Ptr(..)) if s.float => {
                err(loc, "invalid operands: a pointer and a floating value")
            }
            (Val::Ptr(t, p), Val::Int(s, w)) if matches!(op, BinOp::Add | BinOp::Sub) => {
                let w = w.convert(&mut self.b, s, Scalar::int(64, true));
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
                let w = w.convert(&mut self.b, s, Scalar::int(64, true));
                self.ptr_add(t, p, w, loc)
            }
            (Val::Ptr(t, p), Val::Ptr(_, q)) => {
                let (p, q) = self.nullable_functions(&p, &q).unwrap_or((p, q));
                self.pointer_escapes(&p);
                self.pointer_escapes(&q);
                let (p, q) = self.comparable(&t, p, q, loc)?;
                // Where pointers point may move with a loop variable.
                self.fail_probes("pointers are compared or subtracted");
                if (!p.sec.is_empty() || !q.sec.is_empty()) && p.obj == q.obj {
                    return self.secret_pointer_op(op, &t, &p, &q, loc);
                }
                if p.obj != q.obj && op != BinOp::Eq && op != BinOp::Ne {
                    return err(
                        loc,
                        "pointers into different objects cannot be compared or subtracted",
                    );
                }
                let same = p.obj == q.obj;
                let stride = match same {
                    true => self.units(&t, &p).1 as i64,
                    false => 1,
                };
                let r = match op {
                    BinOp::Sub => {
                        return Ok(Self::int(
                            ((p.leaf - q.leaf) / stride) as i128,
                            Scalar::int(64, true),
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
                let not_null = self.pointer_truth(&p, loc)?;
                let r = match op {
                    BinOp::Eq => self.b.not(not_null),
                    _ => not_null,
                };
                Ok(Self::bool_val(r))
            }
            _ => err(loc, "invalid operands of a binary operator"),
        }
    }

    /// The pointer `p` to elements of type `t` moved by `off` elements.
    pub(super) fn ptr_add(&mut self, t: CType, mut p: Ptr, off: Word, loc: Loc) -> DResult<Val> {
        if p.obj == usize::MAX {
            return err(loc, "arithmetic on a null pointer");
        }
        if off.as_const() != Some(0) {
            let k = off.as_const().map(|v| v as i64);
            p = self.counted(&t, p, k, loc)?;
        }
        let (len, stride, leaves) = self.units(&t, &p);
        match off.as_const() {
            Some(v) => {
                let k = v as i64;
                let nl = k
                    .checked_mul(stride as i64)
                    .and_then(|o| o.checked_add(p.leaf))
                    .unwrap_or(-1);
                if (0..=len).contains(&nl) {
                    p.leaf = nl;
                } else if p.sec.is_empty() && self.secret_depth == 0 {
                    return err(loc, LEAVES_OBJECT);
                } else {
                    // The public part leaves the object, the secret part
                    // may bring it back (`q = a + 4 + (x & 3); q -= 5`);
                    // or on a secret path, which may never run (as a
                    // public index out of bounds is there), a position
                    // outside selects some element.
                    return self.ptr_moved(t, p, off, loc);
                }
            }
            None => {
                self.pointer_escapes(&p);
                let bits = off.bits(&mut self.b);
                // A second secret offset, or one that may be negative, is
                // added to the position the pointer has.
                if !p.sec.is_empty() || bits.last() != Some(&Bit::Const(false)) {
                    return self.ptr_moved(t, p, off, loc);
                }
                let remaining = len - p.leaf - leaves;
                if remaining < 0 {
                    return err(loc, LEAVES_OBJECT);
                }
                let count = remaining as usize / stride + 1;
                // How many elements a secret index selects from depends on
                // where the pointer points: it must not move in a kept loop.
                self.note_fact(&[p.obj as i128, p.leaf as i128, count as i128]);
                self.check_subscript(&bits);
                p.sec.push(SecIdx {
                    idx: Rc::new(bits),
                    stride,
                    count,
                });
            }
        }
        Ok(Val::Ptr(t, p))
    }

    /// `p + off` (elements of `t`) as one secret index over the whole
    /// object: the position `p` has (its secret terms summed) plus `off`,
    /// in steps of an element where every term moves by whole elements.
    /// A position outside the object selects some element of it, as a
    /// secret index out of bounds does.
    pub(super) fn ptr_moved(&mut self, t: CType, mut p: Ptr, off: Word, loc: Loc) -> DResult<Val> {
        self.pointer_escapes(&p);
        let (len, stride, leaves) = self.units(&t, &p);
        let step = if p.sec.iter().all(|s| s.stride % stride == 0) {
            stride
        } else {
            1
        };
        let base = p.leaf.rem_euclid(step as i64);
        let count = (len - base - leaves).div_euclid(step as i64) + 1;
        if count < 1 {
            return err(loc, LEAVES_OBJECT);
        }
        let i64 = Scalar::int(64, true);
        let at = Val::Int(i64, self.distance(&p, base, step as u64, loc)?);
        let scale = Self::int((stride / step) as i128, i64);
        let moved = self.binop(BinOp::Mul, Val::Int(i64, off), scale, loc)?;
        let Val::Int(_, at) = self.binop(BinOp::Add, at, moved, loc)? else {
            return err(loc, "a pointer's position is not an integer");
        };
        // The position, and so the gates, depend on where the pointer
        // points: it must not move in a kept loop.
        self.note_fact(&[p.obj as i128, i128::from(p.leaf), count as i128]);
        p.leaf = base;
        let idx = at.bits(&mut self.b);
        self.check_subscript(&idx);
        p.sec = vec![SecIdx {
            idx: Rc::new(idx),
            stride: step,
            count: count as usize,
        }];
        Ok(Val::Ptr(t, p))
    }

    /// `&b[i]` as `b + i` (which it is), where that points one past the
    /// end, which a place cannot: `&a[n]` for an array of `n`, or past
    /// the object a pointer `b` points into. `None` for any other `&e`.
    fn one_past_the_end(&mut self, e: &Expr, loc: Loc) -> DResult<Option<Val>> {
        let ExprKind::Index(b, i) = &e.kind else {
            return Ok(None);
        };
        let Some(k) = const_eval(i) else {
            return Ok(None);
        };
        let past = match self.static_type(b) {
            Ok(CType::Array(_, n)) => k == i128::from(n),
            Ok(CType::Pointer(_)) => true,
            _ => false,
        };
        if !past || b.has_side_effects() {
            return Ok(None);
        }
        if let Some(rec) = self.recording.as_mut() {
            rec.subscript(i, None);
        }
        let base = self.eval(b)?;
        let k = self.eval(i)?;
        if !matches!(base, Val::Ptr(..)) {
            return Ok(None);
        }
        self.binop(BinOp::Add, base, k, loc).map(Some)
    }

    /// `p op q` for pointers to `t` into one object, one at least at a
    /// secret position: their positions as words, subtracted (and divided
    /// by the element's size) or compared.
    fn secret_pointer_op(
        &mut self,
        op: BinOp,
        t: &CType,
        p: &Ptr,
        q: &Ptr,
        loc: Loc,
    ) -> DResult<Val> {
        let base = p.leaf.min(q.leaf);
        let i64 = Scalar::int(64, true);
        let at_p = Val::Int(i64, self.distance(p, base, 1, loc)?);
        let at_q = Val::Int(i64, self.distance(q, base, 1, loc)?);
        match op {
            BinOp::Sub => {
                let apart = self.binop(BinOp::Sub, at_p, at_q, loc)?;
                let size = Self::int(self.units(t, p).1 as i128, i64);
                self.binop(BinOp::Div, apart, size, loc)
            }
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                self.binop(op, at_p, at_q, loc)
            }
            _ => err(loc, "invalid operation on pointers"),
        }
    }

    /// A binary operator on two integers (of types `s1`, `s2`), computed at
    /// compile time when both are public.
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
        let (x, y) = self.without_common_rows(op, t, x, y);
        if let Some(r) = self.compare_by_ranges(op, t, &x, &y) {
            return Ok(Self::bool_val(Bit::Const(r)));
        }
        if let (Some(a), Some(c)) = (x.as_const(), y.as_const()) {
            if let Some(r) = op.compare(t.to_i128(a), t.to_i128(c)) {
                return Ok(Self::bool_val(Bit::Const(r)));
            }
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
                // Shifts were handled by `shift` above, comparisons just
                // now.
                _ => Val::Int(t, x),
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

    /// The operands of `op` on type `t`, less the rows of their sums they
    /// have in common if `op` compares them (see
    /// [`Word::without_common_rows`]).
    fn without_common_rows(&mut self, op: BinOp, t: Scalar, x: Word, y: Word) -> (Word, Word) {
        if !op.is_comparison() || t.float {
            return (x, y);
        }
        let fits = match op {
            BinOp::Eq | BinOp::Ne => None,
            _ => Some(t.bounds()),
        };
        x.without_common_rows(&mut self.b, &y, fits)
            .unwrap_or((x, y))
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
        if !op.is_comparison() {
            return None;
        }
        if x.as_const().is_some() && y.as_const().is_some() {
            return None;
        }
        // The ranges bound the C values only where the two readings agree.
        let w = t.width;
        if w as usize > gates::WIDEST_RANGED {
            return None;
        }
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
