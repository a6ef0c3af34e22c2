//! The value of an `#if` expression: `defined`, `__has_include` and
//! `__has_attribute` replaced, its macros expanded, and C's integer
//! arithmetic on `intmax_t` and `uintmax_t` (64 bits).

use std::path::Path;

use super::{constants, header_name, headers::builtin_header, predefined, Preprocessor};
use crate::error::{err, DResult, Loc};
use crate::lexer::{binary_precedence, Tok, Token};

/// The operators of `#if` besides `defined`, which `#ifdef` finds
/// defined, as gcc has them.
const HAS_OPERATORS: [&str; 3] = ["__has_include", "__has_attribute", "__has_c_attribute"];

impl Preprocessor {
    /// Whether `name` is a macro (for `defined` and `#ifdef`).
    pub(super) fn defined(&self, name: &str) -> bool {
        self.macros.contains_key(name)
            || predefined::DYNAMIC.contains(&name)
            || HAS_OPERATORS.contains(&name)
    }

    /// Whether the condition of the directive `line` (its tokens after
    /// `#`: `if`, `ifdef`, `ifndef`, `elif`, `elifdef` or `elifndef`) at
    /// `loc`, in a file in `dir`, holds.
    pub(super) fn condition(&self, line: &[Token], loc: Loc, dir: Option<&Path>) -> DResult<bool> {
        let name = line[0].ident().unwrap_or_default();
        let kind = name.strip_prefix("el").unwrap_or(name);
        if kind == "if" {
            return self.eval_if(&line[1..], loc, dir);
        }
        let Some(id) = line.get(1).and_then(|t| t.ident()) else {
            return err(loc, format!("#{name} needs a macro name"));
        };
        Ok(self.defined(id) == (kind == "ifdef"))
    }

    /// Whether the condition `line` of the `#if` (or `#elif`) at `loc`
    /// holds.
    fn eval_if(&self, line: &[Token], loc: Loc, dir: Option<&Path>) -> DResult<bool> {
        // `defined X` / `defined(X)` first, then those the macros make.
        let toks = self.replace_defined(line, dir)?;
        self.in_if.set(true);
        let toks = self.expand(toks);
        self.in_if.set(false);
        let toks = self.replace_defined(&toks?, dir)?;
        constants(&toks)?;
        value(&toks, loc)
    }

    /// Whether `__has_include` finds the header `name` (a system header if
    /// `system`), from a file in `dir`.
    fn has_include(&self, name: &str, system: bool, dir: Option<&Path>) -> bool {
        builtin_header(name).is_some()
            || (!system && self.find_include(name, dir).is_ok_and(|f| f.is_some()))
    }

    /// The value of `__has_include` or `__has_attribute` (`op`) whose
    /// parenthesized operand starts `rest`, and how many tokens it takes.
    fn has(&self, op: &str, rest: &[Token], dir: Option<&Path>) -> Option<(bool, usize)> {
        if !rest.first()?.is("(") {
            return None;
        }
        let (v, n) = match op {
            "__has_include" => {
                let (name, system, n) = header_name(&rest[1..])?;
                (self.has_include(&name, system, dir), n)
            }
            _ => {
                // `gnu::packed`: the name is the last word.
                let n = rest.iter().position(|t| t.is(")"))? - 1;
                let name = rest[n].ident()?;
                (crate::parser::supported_attribute(name), n)
            }
        };
        rest.get(n + 1).filter(|t| t.is(")"))?;
        Some((v, n + 2))
    }

    /// `line` with each `defined X` or `defined(X)`, `__has_include(...)`
    /// and `__has_attribute(...)` replaced by 1 or 0.
    fn replace_defined(&self, line: &[Token], dir: Option<&Path>) -> DResult<Vec<Token>> {
        let mut toks = Vec::new();
        let mut k = 0;
        while k < line.len() {
            let op = line[k].ident().filter(|w| HAS_OPERATORS.contains(w));
            if let Some(op) = op {
                let Some((v, n)) = self.has(op, &line[k + 1..], dir) else {
                    return err(line[k].loc, format!("bad '{op}'"));
                };
                toks.push(truth(v, line[k].loc));
                k += 1 + n;
                continue;
            }
            if line[k].ident() == Some("defined") {
                let (name, skip) = if line.get(k + 1).is_some_and(|t| t.is("(")) {
                    (line.get(k + 2).and_then(|t| t.ident()), 4)
                } else {
                    (line.get(k + 1).and_then(|t| t.ident()), 2)
                };
                let Some(name) = name else {
                    return err(line[k].loc, "bad 'defined'");
                };
                let v = self.defined(name);
                toks.push(truth(v, line[k].loc));
                k += skip;
                continue;
            }
            toks.push(line[k].clone());
            k += 1;
        }
        Ok(toks)
    }
}

/// Whether the expression `toks` (of the `#if` at `loc`) is true.
fn value(toks: &[Token], loc: Loc) -> DResult<bool> {
    let mut p = IfEval {
        toks,
        pos: 0,
        loc,
        depth: 0,
        dead: false,
    };
    let v = p.comma()?;
    if p.pos != toks.len() {
        return err(toks[p.pos].loc, "unexpected token in #if expression");
    }
    Ok(v.0 != 0)
}

/// Deepest nesting of parentheses and unary operators in an `#if`.
const MAX_IF_NESTING: usize = 256;

struct IfEval<'a> {
    toks: &'a [Token],
    pos: usize,
    loc: Loc,
    /// Unary operators and parentheses entered.
    depth: usize,
    /// Inside an operand that is not evaluated (`0 && ...`).
    dead: bool,
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
    fn nested(&mut self, rule: impl FnOnce(&mut Self) -> DResult<Val>) -> DResult<Val> {
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

    fn unary(&mut self) -> DResult<Val> {
        self.nested(Self::operand)
    }

    fn operand(&mut self) -> DResult<Val> {
        let Some(t) = self.toks.get(self.pos) else {
            return err(self.loc, "incomplete #if expression");
        };
        self.pos += 1;
        match &t.tok {
            // A constant too large for `intmax_t` is a `uintmax_t`, as gcc
            // has it (decimal ones too, with a warning).
            Tok::Int(v, u, ..) => Ok(Val(*v as i64, *u || *v > i64::MAX as u64)),
            Tok::Char(c, _) => Ok(Val(*c, false)),
            Tok::Ident(_) => Ok(Val(0, false)),
            Tok::Punct("(") => {
                let v = self.comma()?;
                if self.peek_punct() != Some(")") {
                    return err(self.here(), "expected ')' in #if expression");
                }
                self.pos += 1;
                Ok(v)
            }
            Tok::Punct("-") => self.unary().map(|v| Val(v.0.wrapping_neg(), v.1)),
            Tok::Punct("+") => self.unary(),
            Tok::Punct("!") => self.unary().map(|v| Val((v.0 == 0) as i64, false)),
            Tok::Punct("~") => self.unary().map(|v| Val(!v.0, v.1)),
            _ => err(t.loc, "bad token in #if expression"),
        }
    }

    /// Expressions separated by commas (gcc allows them in `#if`): the
    /// last one's value.
    fn comma(&mut self) -> DResult<Val> {
        let mut v = self.expr(0)?;
        while self.peek_punct() == Some(",") {
            self.pos += 1;
            v = self.expr(0)?;
        }
        Ok(v)
    }

    fn expr(&mut self, min_prec: u8) -> DResult<Val> {
        self.nested(|p| p.binary(min_prec))
    }

    /// Parses with `dead` (an operand not evaluated: `0 && 1 / 0` is no
    /// division by zero) set to `skip`, restoring it after.
    fn operand_of(
        &mut self,
        skip: bool,
        rule: impl FnOnce(&mut Self) -> DResult<Val>,
    ) -> DResult<Val> {
        let was = self.dead;
        self.dead |= skip;
        let v = rule(self);
        self.dead = was;
        v
    }

    fn binary(&mut self, min_prec: u8) -> DResult<Val> {
        let mut lhs = self.unary()?;
        while let Some(op) = self.peek_punct() {
            if op == "?" {
                if min_prec > 1 {
                    break;
                }
                self.pos += 1;
                let a = self.operand_of(lhs.0 == 0, Self::comma)?;
                if self.peek_punct() != Some(":") {
                    return err(self.here(), "expected ':' in #if expression");
                }
                self.pos += 1;
                let b = self.operand_of(lhs.0 != 0, |p| p.expr(1))?;
                // Of the usual arithmetic conversions' type.
                let v = if lhs.0 != 0 { a.0 } else { b.0 };
                lhs = Val(v, a.1 || b.1);
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
            let skip = match op {
                "&&" => lhs.0 == 0,
                "||" => lhs.0 != 0,
                _ => false,
            };
            let rhs = self.operand_of(skip, |p| p.expr(prec + 1))?;
            lhs = self.apply(op, lhs, rhs, loc)?;
        }
        Ok(lhs)
    }

    /// `lhs op rhs` in `intmax_t`, or in `uintmax_t` if either operand
    /// is unsigned (a shift: if its left operand is), as C's usual
    /// arithmetic conversions have it.
    fn apply(&self, op: &str, lhs: Val, rhs: Val, loc: Loc) -> DResult<Val> {
        let unsigned = lhs.1 || rhs.1;
        let (a, b) = (lhs.0, rhs.0);
        let (ua, ub) = (a as u64, b as u64);
        let truth = |c: bool| Ok(Val(c as i64, false));
        let arith = |v: i64| Ok(Val(v, unsigned));
        match op {
            "*" => arith(a.wrapping_mul(b)),
            "/" | "%" if b == 0 => match self.dead {
                true => arith(0),
                false => err(loc, "division by zero in #if"),
            },
            "/" if unsigned => arith((ua / ub) as i64),
            "%" if unsigned => arith((ua % ub) as i64),
            "/" => arith(a.wrapping_div(b)),
            "%" => arith(a.wrapping_rem(b)),
            "+" => arith(a.wrapping_add(b)),
            "-" => arith(a.wrapping_sub(b)),
            "<<" | ">>" => {
                // A negative count shifts the other way; a count past the
                // width leaves 0 (or -1: a negative signed value shifted
                // right), as gcc's preprocessor computes.
                let left = (op == "<<") != (!rhs.1 && b < 0);
                let n = if !rhs.1 && b < 0 {
                    b.unsigned_abs()
                } else {
                    ub
                };
                let v = match (left, n >= 64) {
                    (true, true) => 0,
                    (true, false) => a << n,
                    (false, true) => match !lhs.1 && a < 0 {
                        true => -1,
                        false => 0,
                    },
                    (false, false) if lhs.1 => (ua >> n) as i64,
                    (false, false) => a >> n,
                };
                Ok(Val(v, lhs.1))
            }
            "<" if unsigned => truth(ua < ub),
            "<=" if unsigned => truth(ua <= ub),
            ">" if unsigned => truth(ua > ub),
            ">=" if unsigned => truth(ua >= ub),
            "<" => truth(a < b),
            "<=" => truth(a <= b),
            ">" => truth(a > b),
            ">=" => truth(a >= b),
            "==" => truth(a == b),
            "!=" => truth(a != b),
            "&" => arith(a & b),
            "^" => arith(a ^ b),
            "|" => arith(a | b),
            "&&" => truth(a != 0 && b != 0),
            _ => truth(a != 0 || b != 0),
        }
    }
}

/// A value of an `#if` expression: its bits, and whether its type is
/// `uintmax_t` (else `intmax_t`).
#[derive(Clone, Copy)]
struct Val(i64, bool);

/// The token `1` or `0` that a `defined` or `__has_...` operator reads as,
/// at `loc`.
fn truth(v: bool, loc: Loc) -> Token {
    Token {
        tok: Tok::Int(v as u64, false, 0, true),
        loc,
        line_start: false,
        space_before: true,
        text: None,
    }
}
