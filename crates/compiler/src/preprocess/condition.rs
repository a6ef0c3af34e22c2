//! The value of an `#if` expression, its macros expanded: C's integer
//! arithmetic on `long`s.

use crate::error::{err, DResult, Loc};
use crate::lexer::{binary_precedence, Tok, Token};

/// Whether the expression `toks` (of the `#if` at `loc`) is true.
pub(super) fn value(toks: &[Token], loc: Loc) -> DResult<bool> {
    let mut p = IfEval {
        toks,
        pos: 0,
        loc,
        depth: 0,
    };
    let v = p.expr(0)?;
    if p.pos != toks.len() {
        return err(toks[p.pos].loc, "unexpected token in #if expression");
    }
    Ok(v != 0)
}

/// Deepest nesting of parentheses and unary operators in an `#if`.
const MAX_IF_NESTING: usize = 256;

struct IfEval<'a> {
    toks: &'a [Token],
    pos: usize,
    loc: Loc,
    /// Unary operators and parentheses entered.
    depth: usize,
}

impl IfEval<'_> {
    fn peek_punct(&self) -> Option<&'static str> {
        match self.toks.get(self.pos).map(|t| &t.tok) {
            Some(Tok::Punct(p)) => Some(p),
            _ => None,
        }
    }

    fn here(&self) -> Loc {
        self.toks.get(self.pos).map(|t| t.loc).unwrap_or(self.loc)
    }

    /// Runs `rule` one level deeper, failing past [`MAX_IF_NESTING`].
    fn nested(&mut self, rule: impl FnOnce(&mut Self) -> DResult<i64>) -> DResult<i64> {
        if self.depth >= MAX_IF_NESTING {
            return err(
                self.here(),
                format!("#if expression nested more than {MAX_IF_NESTING} deep"),
            );
        }
        self.depth += 1;
        let v = rule(self);
        self.depth -= 1;
        v
    }

    fn unary(&mut self) -> DResult<i64> {
        self.nested(Self::operand)
    }

    fn operand(&mut self) -> DResult<i64> {
        let Some(t) = self.toks.get(self.pos) else {
            return err(self.loc, "incomplete #if expression");
        };
        self.pos += 1;
        match &t.tok {
            Tok::Int(v, ..) => Ok(*v as i64),
            Tok::Char(c, _) => Ok(*c),
            Tok::Ident(_) => Ok(0),
            Tok::Punct("(") => {
                let v = self.expr(0)?;
                if self.peek_punct() != Some(")") {
                    return err(self.here(), "expected ')' in #if expression");
                }
                self.pos += 1;
                Ok(v)
            }
            Tok::Punct("-") => Ok(self.unary()?.wrapping_neg()),
            Tok::Punct("+") => self.unary(),
            Tok::Punct("!") => Ok((self.unary()? == 0) as i64),
            Tok::Punct("~") => Ok(!self.unary()?),
            _ => err(t.loc, "bad token in #if expression"),
        }
    }

    fn expr(&mut self, min_prec: u8) -> DResult<i64> {
        self.nested(|p| p.binary(min_prec))
    }

    fn binary(&mut self, min_prec: u8) -> DResult<i64> {
        let mut lhs = self.unary()?;
        while let Some(op) = self.peek_punct() {
            if op == "?" {
                if min_prec > 1 {
                    break;
                }
                self.pos += 1;
                let a = self.expr(0)?;
                if self.peek_punct() != Some(":") {
                    return err(self.here(), "expected ':' in #if expression");
                }
                self.pos += 1;
                let b = self.expr(1)?;
                lhs = if lhs != 0 { a } else { b };
                continue;
            }
            let Some(prec) = binary_precedence(op) else {
                break;
            };
            if prec < min_prec.max(1) {
                break;
            }
            let loc = self.here();
            self.pos += 1;
            let rhs = self.expr(prec + 1)?;
            lhs = match op {
                "*" => lhs.wrapping_mul(rhs),
                "/" | "%" if rhs == 0 => return err(loc, "division by zero in #if"),
                "/" => lhs.wrapping_div(rhs),
                "%" => lhs.wrapping_rem(rhs),
                "+" => lhs.wrapping_add(rhs),
                "-" => lhs.wrapping_sub(rhs),
                "<<" => lhs.wrapping_shl(rhs as u32),
                ">>" => lhs.wrapping_shr(rhs as u32),
                "<" => (lhs < rhs) as i64,
                "<=" => (lhs <= rhs) as i64,
                ">" => (lhs > rhs) as i64,
                ">=" => (lhs >= rhs) as i64,
                "==" => (lhs == rhs) as i64,
                "!=" => (lhs != rhs) as i64,
                "&" => lhs & rhs,
                "^" => lhs ^ rhs,
                "|" => lhs | rhs,
                "&&" => (lhs != 0 && rhs != 0) as i64,
                _ => (lhs != 0 || rhs != 0) as i64,
            };
        }
        Ok(lhs)
    }
}
