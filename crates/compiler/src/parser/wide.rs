//! Wide string literals, `L"..."` (of `wchar_t`, `int` on x86-64 Linux),
//! `u"..."` (of `char16_t`, `unsigned short`) and `U"..."` (of `char32_t`,
//! `unsigned int`); adjacent literals are joined, a plain one taking the
//! wide one's type. A wide literal is the unnamed array it denotes: a
//! compound literal `(T[n + 1]){c0, ..., 0}`.

use std::sync::Arc;

use super::Parser;
use crate::ast::{Expr, ExprKind, Init, TypeExpr};
use crate::error::{err, DResult, Loc};
use crate::lexer::Tok;
use crate::types::{CType, Scalar};

impl Parser<'_> {
    /// Whether the string literals from the current token on (adjacent
    /// ones) include a wide one.
    pub(super) fn wide_string_ahead(&self) -> bool {
        let mut k = 0;
        while let Some(t) = self.peek_at(k) {
            match t.tok {
                Tok::WideStr(..) => return true,
                Tok::Str(..) => k += 1,
                _ => break,
            }
        }
        false
    }

    /// The adjacent string literals from the current token on (at `loc`),
    /// one of them wide, as an array of their characters and a NUL.
    pub(super) fn wide_string(&mut self, loc: Loc) -> DResult<Expr> {
        // The element type is the wide pieces' (a plain piece may come
        // first); each plain piece is then read as a literal of it.
        let mut pieces = Vec::new();
        let mut elem: Option<Scalar> = None;
        while let Some(t) = self.peek() {
            match &t.tok {
                Tok::Str(..) => {}
                Tok::WideStr(_, bits, signed) => {
                    let s = Scalar::int(*bits, *signed);
                    if elem.is_some_and(|e| e != s) {
                        return err(t.loc, "adjacent wide string literals of different kinds");
                    }
                    elem = Some(s);
                }
                _ => break,
            }
            pieces.push(t.tok.clone());
            self.pos += 1;
        }
        let elem = elem.unwrap_or(Scalar::INT);
        let mut chars: Vec<u32> = Vec::new();
        for piece in pieces {
            match piece {
                Tok::Str(_, Some(wide)) => {
                    let [utf32, utf16] = *wide;
                    chars.extend(if elem.width == 16 { utf16 } else { utf32 });
                }
                Tok::Str(s, None) => chars.extend(s.chars().map(u32::from)),
                Tok::WideStr(v, ..) => chars.extend(v),
                _ => {}
            }
        }
        let items = (chars.iter().chain(&[0]))
            .map(|&c| {
                let e = Expr {
                    kind: ExprKind::Int(u64::from(c) & elem.mask(), elem),
                    loc,
                };
                (Vec::new(), Init::Expr(e))
            })
            .collect();
        let ty = CType::Array(Arc::new(elem.ctype()), chars.len() as u32 + 1);
        Ok(Expr {
            kind: ExprKind::Compound(TypeExpr::Known(ty), Box::new(Init::List(items, loc))),
            loc,
        })
    }
}
