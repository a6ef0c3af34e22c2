//! The C lexer: source text to tokens with positions.

use crate::error::{err, DResult, Loc};

/// What a token is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// An identifier or keyword.
    Ident(String),
    /// An integer constant: its value and suffix (`unsigned`, `long` count).
    Int(u64, bool, u8),
    /// A character constant (type `int`).
    Char(i64),
    /// A string literal (only accepted where it is reported as unsupported).
    Str(String),
    /// A floating-point constant (always an error when used).
    Float,
    /// A punctuator such as `+=` or `(`.
    Punct(&'static str),
}

/// A token with its position and layout facts the preprocessor needs.
#[derive(Clone, Debug)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Where it starts.
    pub loc: Loc,
    /// First token on its line.
    pub line_start: bool,
    /// Whitespace precedes it (for `#define F(x)` versus `#define F (x)`).
    pub space_before: bool,
}

impl Token {
    /// Whether this is the punctuator `p`.
    pub fn is(&self, p: &str) -> bool {
        matches!(&self.tok, Tok::Punct(q) if *q == p)
    }

    /// The identifier, if this is one.
    pub fn ident(&self) -> Option<&str> {
        match &self.tok {
            Tok::Ident(s) => Some(s),
            _ => None,
        }
    }
}

const PUNCTS: &[&str] = &[
    "...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=",
    "-=", "*=", "/=", "%=", "&=", "^=", "|=", "##", "[", "]", "(", ")", "{", "}", ".", "&", "*",
    "+", "-", "~", "!", "/", "%", "<", ">", "^", "|", "?", ":", ";", "=", ",", "#",
];

/// Splits `src` (file number `file`) into tokens.
pub fn lex(src: &str, file: u32) -> DResult<Vec<Token>> {
    let b = src.as_bytes();
    let mut toks = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    let mut line_start = true;
    let mut space = false;
    macro_rules! adv {
        () => {{
            if b[i] == b'\n' {
                line += 1;
                col = 1;
            } else {
                col += 1;
            }
            i += 1;
        }};
    }
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            adv!();
            line_start = true;
            space = true;
            continue;
        }
        if c == b'\\' && (b.get(i + 1) == Some(&b'\n') || b.get(i + 1) == Some(&b'\r')) {
            adv!();
            if b[i] == b'\r' {
                adv!();
            }
            if i < b.len() && b[i] == b'\n' {
                adv!();
            }
            space = true;
            continue;
        }
        if c.is_ascii_whitespace() {
            adv!();
            space = true;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                adv!();
            }
            space = true;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let start = Loc { file, line, col };
            adv!();
            adv!();
            loop {
                if i + 1 >= b.len() {
                    return err(start, "unterminated comment");
                }
                if b[i] == b'*' && b[i + 1] == b'/' {
                    adv!();
                    adv!();
                    break;
                }
                adv!();
            }
            space = true;
            continue;
        }
        let loc = Loc { file, line, col };
        let start = i;
        let tok = if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                adv!();
            }
            Tok::Ident(src[start..i].to_string())
        } else if c.is_ascii_digit()
            || (c == b'.' && b.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            while i < b.len()
                && (b[i].is_ascii_alphanumeric()
                    || b[i] == b'.'
                    || b[i] == b'_'
                    || ((b[i] == b'+' || b[i] == b'-')
                        && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P')
                        && !src[start..i].starts_with("0x")
                        && !src[start..i].starts_with("0X")))
            {
                adv!();
            }
            number(&src[start..i], loc)?
        } else if c == b'\'' {
            adv!();
            let mut vals = Vec::new();
            loop {
                if i >= b.len() || b[i] == b'\n' {
                    return err(loc, "unterminated character constant");
                }
                if b[i] == b'\'' {
                    adv!();
                    break;
                }
                let (v, n) = escape(&b[i..], loc)?;
                for _ in 0..n {
                    adv!();
                }
                vals.push(v);
            }
            if vals.len() != 1 {
                return err(loc, "character constants must hold exactly one character");
            }
            // A plain `char` is signed: '\xff' is -1.
            Tok::Char(vals[0] as u8 as i8 as i64)
        } else if c == b'"' {
            adv!();
            let mut s = String::new();
            loop {
                if i >= b.len() || b[i] == b'\n' {
                    return err(loc, "unterminated string literal");
                }
                if b[i] == b'"' {
                    adv!();
                    break;
                }
                let (v, n) = escape(&b[i..], loc)?;
                for _ in 0..n {
                    adv!();
                }
                s.push(v as u8 as char);
            }
            Tok::Str(s)
        } else {
            let p = PUNCTS.iter().find(|p| src[i..].starts_with(**p));
            match p {
                Some(p) => {
                    for _ in 0..p.len() {
                        adv!();
                    }
                    Tok::Punct(p)
                }
                None => {
                    let ch = src[i..].chars().next().unwrap_or('?');
                    return err(loc, format!("unexpected character '{ch}'"));
                }
            }
        };
        toks.push(Token {
            tok,
            loc,
            line_start,
            space_before: space,
        });
        line_start = false;
        space = false;
    }
    Ok(toks)
}

/// One (possibly escaped) character of a literal: its value and byte length.
fn escape(b: &[u8], loc: Loc) -> DResult<(u32, usize)> {
    if b[0] != b'\\' {
        return Ok((b[0] as u32, 1));
    }
    let Some(&c) = b.get(1) else {
        return err(loc, "bad escape sequence");
    };
    let simple = match c {
        b'n' => Some(10),
        b't' => Some(9),
        b'r' => Some(13),
        b'a' => Some(7),
        b'b' => Some(8),
        b'f' => Some(12),
        b'v' => Some(11),
        b'\\' => Some(92),
        b'\'' => Some(39),
        b'"' => Some(34),
        b'?' => Some(63),
        _ => None,
    };
    if let Some(v) = simple {
        return Ok((v, 2));
    }
    if c == b'x' {
        let mut v: u32 = 0;
        let mut n = 2;
        while n < b.len() && b[n].is_ascii_hexdigit() {
            v = v.wrapping_mul(16) + (b[n] as char).to_digit(16).unwrap_or(0);
            n += 1;
        }
        if n == 2 {
            return err(loc, "bad \\x escape");
        }
        return Ok((v & 0xff, n));
    }
    if (b'0'..=b'7').contains(&c) {
        let mut v = 0;
        let mut n = 1;
        while n < b.len() && n < 4 && (b'0'..=b'7').contains(&b[n]) {
            v = v * 8 + (b[n] - b'0') as u32;
            n += 1;
        }
        return Ok((v & 0xff, n));
    }
    err(loc, format!("unknown escape sequence '\\{}'", c as char))
}

/// Parses an integer constant with its suffix; floats become [`Tok::Float`].
fn number(text: &str, loc: Loc) -> DResult<Tok> {
    let lower = text.to_ascii_lowercase();
    let is_hex = lower.starts_with("0x");
    if !is_hex && (lower.contains('.') || lower.contains('e'))
        || is_hex && (lower.contains('.') || lower.contains('p'))
    {
        return Ok(Tok::Float);
    }
    let digits_end = lower
        .char_indices()
        .skip(if is_hex || lower.starts_with("0b") {
            2
        } else {
            0
        })
        .find(|(_, c)| {
            if is_hex {
                !c.is_ascii_hexdigit()
            } else {
                !c.is_ascii_digit()
            }
        })
        .map(|(k, _)| k)
        .unwrap_or(lower.len());
    let (digits, suffix) = lower.split_at(digits_end);
    let mut unsigned = false;
    let mut longs = 0u8;
    let mut rest = suffix;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("ll") {
            longs = 2;
            rest = r;
        } else if let Some(r) = rest.strip_prefix('l') {
            longs = 1;
            rest = r;
        } else if let Some(r) = rest.strip_prefix('u') {
            unsigned = true;
            rest = r;
        } else if rest == "f" {
            return Ok(Tok::Float);
        } else {
            return err(loc, format!("invalid integer constant '{text}'"));
        }
    }
    let (radix, body) = if is_hex {
        (16, &digits[2..])
    } else if let Some(b) = digits.strip_prefix("0b") {
        (2, b)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    match u64::from_str_radix(body, radix) {
        Ok(v) => Ok(Tok::Int(v, unsigned, longs)),
        Err(_) => err(
            loc,
            format!("invalid or too large integer constant '{text}'"),
        ),
    }
}

/// Precedence of a binary operator (10 for `* / %` down to 1 for `||`), for
/// the parser and for `#if` expressions; `None` for anything else.
pub(crate) fn binary_precedence(op: &str) -> Option<u8> {
    Some(match op {
        "*" | "/" | "%" => 10,
        "+" | "-" => 9,
        "<<" | ">>" => 8,
        "<" | "<=" | ">" | ">=" => 7,
        "==" | "!=" => 6,
        "&" => 5,
        "^" => 4,
        "|" => 3,
        "&&" => 2,
        "||" => 1,
        _ => return None,
    })
}
