//! Expressions by precedence climbing, integer constants and constant
//! evaluation.

use super::readonly::Modified;
use super::{is_keyword, Parser};
use crate::ast::*;
use crate::error::{err, DResult, Loc};
use crate::lexer::{binary_precedence, Tok};
use crate::types::{CType, Scalar};

impl Parser<'_> {
    pub(super) fn expr(&mut self) -> DResult<Expr> {
        let mut e = self.assign_expr()?;
        let depth = self.depth;
        while self.is(",") {
            self.chained()?;
            let loc = self.loc();
            self.pos += 1;
            let r = self.assign_expr()?;
            e = Expr {
                kind: ExprKind::Comma(Box::new(e), Box::new(r)),
                loc,
            };
        }
        self.depth = depth;
        Ok(e)
    }

    pub(super) fn assign_expr(&mut self) -> DResult<Expr> {
        self.nested(Self::assign_expr_level)
    }

    fn assign_expr_level(&mut self) -> DResult<Expr> {
        let lhs = self.cond_expr()?;
        let loc = self.loc();
        let op = match self.peek().map(|t| &t.tok) {
            Some(Tok::Punct(p)) => match *p {
                "=" => Some(None),
                "+=" => Some(Some(BinOp::Add)),
                "-=" => Some(Some(BinOp::Sub)),
                "*=" => Some(Some(BinOp::Mul)),
                "/=" => Some(Some(BinOp::Div)),
                "%=" => Some(Some(BinOp::Rem)),
                "<<=" => Some(Some(BinOp::Shl)),
                ">>=" => Some(Some(BinOp::Shr)),
                "&=" => Some(Some(BinOp::And)),
                "|=" => Some(Some(BinOp::Or)),
                "^=" => Some(Some(BinOp::Xor)),
                _ => None,
            },
            _ => None,
        };
        let Some(op) = op else { return Ok(lhs) };
        self.refuse_readonly(&lhs, Modified::Assignment, loc)?;
        self.pos += 1;
        let rhs = self.assign_expr()?;
        Ok(Expr {
            kind: ExprKind::Assign(op, Box::new(lhs), Box::new(rhs)),
            loc,
        })
    }

    pub(super) fn cond_expr(&mut self) -> DResult<Expr> {
        self.nested(Self::cond_expr_level)
    }

    fn cond_expr_level(&mut self) -> DResult<Expr> {
        let c = self.binary(0)?;
        if !self.is("?") {
            return Ok(c);
        }
        let loc = self.loc();
        self.pos += 1;
        // GNU `c ?: b`: `c ? c : b`, `c` evaluated once.
        let a = if self.is(":") {
            if c.has_side_effects() {
                return err(loc, "'c ?: b' with side effects in 'c' is not supported");
            }
            c.clone()
        } else {
            self.expr()?
        };
        self.expect(":")?;
        let b = self.cond_expr()?;
        Ok(Expr {
            kind: ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
            loc,
        })
    }

    fn binary(&mut self, min_prec: u8) -> DResult<Expr> {
        let mut lhs = self.cast_expr()?;
        // A chain `a + b + c ...` nests to the left: one level an operator.
        let depth = self.depth;
        while let Some(Tok::Punct(op)) = self.peek().map(|t| &t.tok) {
            let Some(prec) = binary_precedence(op) else {
                break;
            };
            if prec < min_prec {
                break;
            }
            self.chained()?;
            let op = *op;
            let loc = self.loc();
            self.pos += 1;
            let rhs = self.binary(prec + 1)?;
            let (l, r) = (Box::new(lhs), Box::new(rhs));
            let kind = match op {
                "&&" => ExprKind::LogAnd(l, r),
                "||" => ExprKind::LogOr(l, r),
                _ => ExprKind::Binary(
                    match op {
                        "*" => BinOp::Mul,
                        "/" => BinOp::Div,
                        "%" => BinOp::Rem,
                        "+" => BinOp::Add,
                        "-" => BinOp::Sub,
                        "<<" => BinOp::Shl,
                        ">>" => BinOp::Shr,
                        "<" => BinOp::Lt,
                        "<=" => BinOp::Le,
                        ">" => BinOp::Gt,
                        ">=" => BinOp::Ge,
                        "==" => BinOp::Eq,
                        "!=" => BinOp::Ne,
                        "&" => BinOp::And,
                        "^" => BinOp::Xor,
                        _ => BinOp::Or,
                    },
                    l,
                    r,
                ),
            };
            lhs = Expr { kind, loc };
        }
        self.depth = depth;
        Ok(lhs)
    }

    fn cast_expr(&mut self) -> DResult<Expr> {
        self.nested(Self::cast_expr_level)
    }

    fn cast_expr_level(&mut self) -> DResult<Expr> {
        if self.is("(") {
            let save = self.pos;
            let loc = self.loc();
            self.pos += 1;
            if self.starts_type() {
                let t = self.type_name()?;
                self.expect(")")?;
                if self.is("{") {
                    let init = self.initializer()?;
                    let literal = Expr {
                        kind: ExprKind::Compound(t, Box::new(init)),
                        loc,
                    };
                    return self.suffixes(literal);
                }
                let e = self.cast_expr()?;
                return Ok(Expr {
                    kind: ExprKind::Cast(t, Box::new(e)),
                    loc,
                });
            }
            self.pos = save;
        }
        self.unary()
    }

    fn unary(&mut self) -> DResult<Expr> {
        self.nested(Self::unary_level)
    }

    fn unary_level(&mut self) -> DResult<Expr> {
        let loc = self.loc();
        let Some(t) = self.peek() else {
            return err(loc, "expected an expression but found end of file");
        };
        let op = match &t.tok {
            Tok::Punct("-") => Some(UnOp::Neg),
            Tok::Punct("+") => Some(UnOp::Plus),
            Tok::Punct("!") => Some(UnOp::Not),
            Tok::Punct("~") => Some(UnOp::BitNot),
            Tok::Punct("*") => Some(UnOp::Deref),
            Tok::Punct("&") => Some(UnOp::Addr),
            _ => None,
        };
        if let Some(op) = op {
            self.pos += 1;
            let e = self.cast_expr()?;
            let kind = match (op, e.kind) {
                // `*(a + i)` is `a[i]` (C 6.5.2.1), the form loops and
                // regions know their accesses by.
                (UnOp::Deref, ExprKind::Binary(BinOp::Add, a, i)) => ExprKind::Index(a, i),
                (op, kind) => ExprKind::Unary(op, Box::new(Expr { kind, loc: e.loc })),
            };
            return Ok(Expr { kind, loc });
        }
        if t.is("++") || t.is("--") {
            let inc = t.is("++");
            self.pos += 1;
            let e = self.unary()?;
            self.refuse_readonly(&e, Modified::of_step(inc), loc)?;
            return Ok(Expr {
                kind: ExprKind::IncDec {
                    pre: true,
                    inc,
                    e: Box::new(e),
                },
                loc,
            });
        }
        if t.ident() == Some("__builtin_constant_p") {
            self.pos += 1;
            return self.constant_p(loc);
        }
        if t.ident() == Some("__builtin_choose_expr") {
            self.pos += 1;
            let chosen = self.choose_expr()?;
            return self.suffixes(chosen);
        }
        if t.ident() == Some("__builtin_offsetof") {
            self.pos += 1;
            return self.offsetof(loc);
        }
        if matches!(t.ident(), Some("_Alignof" | "__alignof__" | "__alignof")) {
            self.pos += 1;
            return self.alignof(loc);
        }
        if t.ident() == Some("_Generic") {
            self.pos += 1;
            let selection = self.generic(loc)?;
            return self.suffixes(selection);
        }
        if t.ident() == Some("sizeof") {
            self.pos += 1;
            if self.is("(") {
                let save = self.pos;
                self.pos += 1;
                if self.starts_type() {
                    let ty = self.type_name()?;
                    self.expect(")")?;
                    return Ok(Expr {
                        kind: ExprKind::SizeofType(ty),
                        loc,
                    });
                }
                self.pos = save;
            }
            let e = self.unary()?;
            return Ok(Expr {
                kind: ExprKind::SizeofExpr(Box::new(e)),
                loc,
            });
        }
        self.postfix()
    }

    /// `_Alignof(type)` (`alignof` of `<stdalign.h>`): the type's
    /// alignment in bytes, in C's layout, a `size_t` constant.
    fn alignof(&mut self, loc: Loc) -> DResult<Expr> {
        self.expect("(")?;
        if !self.starts_type() {
            return err(self.loc(), "_Alignof takes a type name");
        }
        let written = self.type_name()?;
        let ty = self.known(written)?;
        self.expect(")")?;
        if let Some(name) = ty.incomplete() {
            return err(loc, format!("_Alignof of the incomplete type '{name}'"));
        }
        Ok(Expr {
            kind: ExprKind::Int(ty.align(), Scalar::int(64, false)),
            loc,
        })
    }

    /// `__builtin_offsetof(type, member)` (`offsetof` of `<stddef.h>`): the
    /// byte offset, in C's layout, of a member designator like `a.b[2].c`.
    fn offsetof(&mut self, loc: Loc) -> DResult<Expr> {
        self.expect("(")?;
        let written = self.type_name()?;
        let mut ty = self.known(written)?;
        self.expect(",")?;
        let mut offset = 0i128;
        let mut member = Some(self.ident()?);
        loop {
            if let Some((name, at)) = member.take() {
                let Some((t, o)) = ty.member_offset(&name) else {
                    return err(at, format!("'{ty}' has no member named '{name}'"));
                };
                if matches!(&ty, CType::Struct(s) if s.bit_field(&name).is_some()) {
                    return err(at, format!("offsetof of bit-field '{name}'"));
                }
                offset += o as i128;
                ty = t;
            } else if self.eat(".") {
                member = Some(self.ident()?);
            } else if self.is("[") {
                let at = self.loc();
                self.pos += 1;
                let k = self.expr()?;
                self.expect("]")?;
                let (CType::Array(elem, _), Some(k)) = (&ty, const_eval(&k)) else {
                    return err(
                        at,
                        "offsetof: expected a constant index into an array member",
                    );
                };
                offset += k * elem.size() as i128;
                ty = (**elem).clone();
            } else {
                break;
            }
        }
        self.expect(")")?;
        if !(0..=i64::MAX as i128).contains(&offset) {
            return err(loc, "offsetof: the offset is negative or too large");
        }
        Ok(Expr {
            kind: ExprKind::Int(offset as u64, Scalar::int(64, false)),
            loc,
        })
    }

    fn postfix(&mut self) -> DResult<Expr> {
        let e = self.primary()?;
        self.suffixes(e)
    }

    /// `e` with the postfix suffixes that follow it (`[i]`, `.m`, `->m`,
    /// `++`, `--`, a call's arguments).
    fn suffixes(&mut self, mut e: Expr) -> DResult<Expr> {
        // `a[i].x(...)++` nests to the left: one level a suffix.
        let depth = self.depth;
        loop {
            self.chained()?;
            let loc = self.loc();
            if self.eat("[") {
                let i = self.expr()?;
                self.expect("]")?;
                e = Expr {
                    kind: ExprKind::Index(Box::new(e), Box::new(i)),
                    loc,
                };
            } else if self.eat(".") {
                let (m, _) = self.ident()?;
                e = Expr {
                    kind: ExprKind::Member(Box::new(e), m),
                    loc,
                };
            } else if self.eat("->") {
                let (m, _) = self.ident()?;
                e = Expr {
                    kind: ExprKind::Arrow(Box::new(e), m),
                    loc,
                };
            } else if self.is("++") || self.is("--") {
                let inc = self.is("++");
                self.refuse_readonly(&e, Modified::of_step(inc), loc)?;
                self.pos += 1;
                e = Expr {
                    kind: ExprKind::IncDec {
                        pre: false,
                        inc,
                        e: Box::new(e),
                    },
                    loc,
                };
            } else if self.is("(") {
                self.pos += 1;
                let mut args = Vec::new();
                if !self.eat(")") {
                    loop {
                        args.push(self.assign_expr()?);
                        if self.eat(",") {
                            continue;
                        }
                        self.expect(")")?;
                        break;
                    }
                }
                e = called(e, args);
            } else {
                break;
            }
        }
        self.depth = depth;
        Ok(e)
    }

    /// The bytes of the string literals from the current token on,
    /// adjacent ones joined (none if there is no string literal here).
    pub(super) fn string_bytes(&mut self) -> Vec<u8> {
        let mut bytes = Vec::new();
        while let Some(Tok::Str(s, _)) = self.peek().map(|t| &t.tok) {
            bytes.extend(s.chars().map(|c| c as u32 as u8));
            self.pos += 1;
        }
        bytes
    }

    fn primary(&mut self) -> DResult<Expr> {
        let loc = self.loc();
        let Some(t) = self.peek() else {
            return err(loc, "expected an expression but found end of file");
        };
        let kind = match &t.tok {
            Tok::Int(v, u, l, decimal) => int_literal(*v, *u, *l, *decimal),
            Tok::Char(c, 32) => ExprKind::Int(*c as u64 & 0xffff_ffff, Scalar::INT),
            Tok::Char(c, bits) => ExprKind::Int(*c as u64, Scalar::int(*bits, false)),
            Tok::Float(v, single) => {
                ExprKind::Float(*v, Scalar::float(if *single { 32 } else { 64 }))
            }
            Tok::Str(..) if !self.wide_string_ahead() => {
                return Ok(Expr {
                    kind: ExprKind::Str(self.string_bytes()),
                    loc,
                });
            }
            Tok::Str(..) | Tok::WideStr(..) => return self.wide_string(loc),
            // The function's name (C99; GNU's names for it too).
            Tok::Ident(s)
                if matches!(
                    s.as_str(),
                    "__func__" | "__FUNCTION__" | "__PRETTY_FUNCTION__"
                ) && !self.function.is_empty() =>
            {
                ExprKind::Str(self.function.as_bytes().to_vec())
            }
            Tok::Ident(s) if !is_keyword(s) => match self.enum_of(s) {
                Some((v, ty)) => ExprKind::Int(v as u64 & ty.mask(), ty),
                None => ExprKind::Ident(self.variable(s)),
            },
            Tok::Punct("(") => {
                self.pos += 1;
                if self.is("{") {
                    return self.nested(|p| p.stmt_expr(loc));
                }
                let e = self.expr()?;
                self.expect(")")?;
                return Ok(e);
            }
            _ => {
                let found = self.describe();
                return err(loc, format!("expected an expression but found {found}"));
            }
        };
        self.pos += 1;
        Ok(Expr { kind, loc })
    }
}

/// The type of an integer constant (C11 6.4.4.1, LP64).
fn int_literal(v: u64, unsigned: bool, longs: u8, decimal: bool) -> ExprKind {
    // C11 6.4.4.1: the first type of its list that holds the value. A
    // decimal constant without `u` is signed (int, long, long long); a
    // hexadecimal, octal or binary one may be unsigned at each width. A
    // decimal one past LLONG_MAX has no standard type: gcc makes it
    // `__int128` (its extended type, with a warning), and so does twofold.
    let int_fits = longs == 0 && v <= i32::MAX as u64 && !unsigned;
    let uint_fits = longs == 0 && v <= u32::MAX as u64 && (unsigned || !decimal);
    let ty = if int_fits {
        Scalar::INT
    } else if uint_fits {
        Scalar::int(32, false)
    } else if !unsigned && v <= i64::MAX as u64 {
        Scalar::int(64, true)
    } else if !unsigned && decimal {
        Scalar::int(128, true)
    } else {
        Scalar::int(64, false)
    };
    ExprKind::Int(v, ty)
}

/// Evaluates a constant expression (array sizes, enum values, case labels);
/// `None` if it is not constant.
pub fn const_eval(e: &Expr) -> Option<i128> {
    Some(constant(e)?.0)
}

/// The value and type of the integer constant expression `e`, computed as
/// C computes it: operands promoted and converted to their common type,
/// results wrapped to it (`~0u >> 28` is 15, `-1 < 0u` is 0), as gcc
/// does (signed overflow wraps, as with `-fwrapv`).
fn constant(e: &Expr) -> Option<(i128, Scalar)> {
    let int = |v: bool| (v as i128, Scalar::INT);
    // (A value of a signed 128-bit type is its own wrap: it is held in
    // 128 bits.)
    let wrap = |v: i128, t: Scalar| match t.width {
        128 if t.signed => (v, t),
        _ => (t.to_i128(v as u64), t),
    };
    let promoted = |a: &Expr| constant(a).map(|(v, t)| (v, t.promote()));
    Some(match &e.kind {
        ExprKind::Int(v, t) => (t.to_i128(*v), *t),
        ExprKind::Unary(UnOp::Neg, a) => {
            let (x, t) = promoted(a)?;
            wrap(x.wrapping_neg(), t)
        }
        ExprKind::Unary(UnOp::Plus, a) => promoted(a)?,
        ExprKind::Unary(UnOp::Not, a) => int(constant(a)?.0 == 0),
        ExprKind::Unary(UnOp::BitNot, a) => {
            let (x, t) = promoted(a)?;
            wrap(!x, t)
        }
        ExprKind::Binary(op @ (BinOp::Shl | BinOp::Shr), a, b) => {
            let (x, t) = promoted(a)?;
            let n = u32::try_from(constant(b)?.0)
                .ok()
                .filter(|&n| n < t.width)?;
            wrap(if *op == BinOp::Shl { x << n } else { x >> n }, t)
        }
        ExprKind::Binary(op, a, b) => {
            let ((x, s), (y, u)) = (constant(a)?, constant(b)?);
            let t = Scalar::common(s, u);
            let (x, y) = (wrap(x, t).0, wrap(y, t).0);
            let v = match op {
                BinOp::Add => x.wrapping_add(y),
                BinOp::Sub => x.wrapping_sub(y),
                BinOp::Mul => x.wrapping_mul(y),
                BinOp::Div => x.checked_div(y)?,
                BinOp::Rem => x.checked_rem(y)?,
                BinOp::And => x & y,
                BinOp::Or => x | y,
                BinOp::Xor => x ^ y,
                op => return Some(int(op.compare(x, y)?)),
            };
            wrap(v, t)
        }
        ExprKind::LogAnd(a, b) => int(const_eval(a)? != 0 && const_eval(b)? != 0),
        ExprKind::LogOr(a, b) => int(const_eval(a)? != 0 || const_eval(b)? != 0),
        ExprKind::Cond(c, a, b) => {
            let (taken, other) = match const_eval(c)? != 0 {
                true => (a, b),
                false => (b, a),
            };
            // (The other operand is not evaluated: `0 ? 1 / 0 : 2` is 2.)
            let (v, s) = constant(taken)?;
            let t = constant(other).map_or(s.promote(), |(_, u)| Scalar::common(s, u));
            wrap(v, t)
        }
        ExprKind::SizeofType(TypeExpr::Known(t)) if t.incomplete().is_none() => {
            (t.size() as i128, Scalar::int(64, false))
        }
        ExprKind::Cast(TypeExpr::Known(t), a) => {
            let v = const_eval(a)?;
            let s = t.scalar()?;
            match s.width {
                1 => (i128::from(v != 0), s),
                _ => wrap(v, s),
            }
        }
        _ => return None,
    })
}

/// The call of `callee` with `args`: of the function it names, through
/// the function pointer it is, or, for a generic selection of functions
/// (`_Generic(x, long: labs, default: abs)(x)`), the selection of their
/// calls, which evaluates the arguments once, in the call selected.
fn called(callee: Expr, args: Vec<Expr>) -> Expr {
    let loc = callee.loc;
    let kind = match callee.kind {
        ExprKind::Ident(name) => ExprKind::Call(name, args),
        ExprKind::Generic(controlling, assocs) => {
            let assocs = assocs
                .into_iter()
                .map(|a| Association {
                    value: called(a.value, args.clone()),
                    ..a
                })
                .collect();
            ExprKind::Generic(controlling, assocs)
        }
        callee => ExprKind::CallPointer(Box::new(Expr { kind: callee, loc }), args),
    };
    Expr { kind, loc }
}
