//! The C lexer: source text to tokens with positions.

use std::rc::Rc;

use crate::error::{err, DResult, Loc};

/// What a token is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// An identifier or keyword.
    Ident(String),
    /// An integer constant: its value, suffix (`unsigned`, `long` count)
    /// and whether it was written in decimal (C gives decimal and other
    /// constants different types).
    Int(u64, bool, u8, bool),
    /// A character constant: its value, and its type's width (32: `int`;
    /// 16: `u'x'`, an `unsigned short`).
    Char(i64, u32),
    /// A string literal's characters (escapes resolved, one byte each),
    /// and, where joining it to a wide literal would read it otherwise
    /// (a `\u` name, a character beyond ASCII, an escape beyond a byte),
    /// its characters as a wide literal's: of 32 and of 16 bits.
    Str(String, Option<Box<[Vec<u32>; 2]>>),
    /// A wide string literal (`L"..."`, `u"..."`, `U"..."`): its
    /// characters (UTF-16 code units for `u`) and its element type's width
    /// and signedness.
    WideStr(Vec<u32>, u32, bool),
    /// A floating-point constant: its bit pattern and whether it is a
    /// `float` (suffix `f`) rather than a `double`.
    Float(u64, bool),
    /// A punctuator such as `+=` or `(`.
    Punct(&'static str),
    /// A preprocessing number that is no C constant (`0x`, `1e`, or one
    /// too large): `##` may paste it into one (`0x ## 1F`), as gcc does;
    /// the preprocessor refuses one left in its output.
    PpNumber(String),
    /// A character no token begins with, or a quote its literal does not
    /// close on its line (`doesn't`): an error only if it is left after
    /// preprocessing (skipped `#if 0` text may hold one, as gcc allows).
    /// Its spelling, and the error.
    Stray(String, String),
}

impl Tok {
    /// A string literal of the characters `s` (bytes), read alike where
    /// joined to a wide literal.
    pub fn str(s: String) -> Tok {
        Tok::Str(s, None)
    }
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
    /// A constant's or literal's spelling in the source, which `#` and
    /// `##` use as gcc does (`010` stays `010`, `'a'` stays `'a'`); none
    /// for identifiers, punctuators and tokens the preprocessor made.
    pub text: Option<Rc<str>>,
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
    // Not C's, but preprocessing tokens all the same: a group `#if 0`
    // skips may hold them; the parser refuses them anywhere else.
    "@", "`", "\\",
];

/// C's digraphs (C11 6.4.6p3) and the punctuators they spell, the
/// longest first.
const DIGRAPHS: &[(&str, &str)] = &[
    ("%:%:", "##"),
    ("<:", "["),
    (":>", "]"),
    ("<%", "{"),
    ("%>", "}"),
    ("%:", "#"),
];

/// Splits `src` (file number `file`) into tokens.
pub fn lex(src: &str, file: u32) -> DResult<Vec<Token>> {
    let (spliced, splices) = splice_lines(src);
    let src: &str = &spliced;
    let mut cur = Cursor {
        src,
        b: src.as_bytes(),
        splices: &splices,
        next_splice: 0,
        // A byte order mark before the first line is skipped, as gcc does.
        i: if src.starts_with('\u{feff}') {
            '\u{feff}'.len_utf8()
        } else {
            0
        },
        line: 1,
        col: 1,
        file,
    };
    cur.settle();
    let mut toks = Vec::new();
    let mut line_start = true;
    let mut space = false;
    while cur.i < cur.b.len() {
        if let Some(newline) = cur.skip_blank()? {
            line_start |= newline;
            space = true;
            continue;
        }
        let loc = cur.loc();
        let start = cur.i;
        let tok = cur.token(loc)?;
        let text = match tok {
            Tok::Ident(_) | Tok::Punct(_) => None,
            _ => Some(Rc::from(&src[start..cur.i])),
        };
        toks.push(Token {
            tok,
            loc,
            line_start,
            space_before: space,
            text,
        });
        line_start = false;
        space = false;
    }
    Ok(toks)
}

/// `src` without its line splices (a backslash ending a line joins it
/// to the next, before anything else: C11 5.1.1.2, phase 2), and where
/// each splice was in the result (ascending).
fn splice_lines(src: &str) -> (std::borrow::Cow<'_, str>, Vec<usize>) {
    if !src.contains("\\\n") && !src.contains("\\\r\n") {
        return (src.into(), Vec::new());
    }
    let b = src.as_bytes();
    let (mut out, mut at) = (Vec::with_capacity(b.len()), Vec::new());
    let mut k = 0;
    while k < b.len() {
        let n = match (b[k], b.get(k + 1), b.get(k + 2)) {
            (b'\\', Some(b'\n'), _) => 2,
            (b'\\', Some(b'\r'), Some(b'\n')) => 3,
            _ => 0,
        };
        if n > 0 {
            at.push(out.len());
            k += n;
        } else {
            out.push(b[k]);
            k += 1;
        }
    }
    // (Only ASCII bytes were removed: still UTF-8.)
    let text = String::from_utf8(out).unwrap_or_else(|_| src.to_string());
    (text.into(), at)
}

/// The lexer's position in the source: byte index, line and column.
struct Cursor<'s> {
    src: &'s str,
    b: &'s [u8],
    /// Where the source's line splices were removed, and the next one
    /// the cursor has not passed: lines are counted as written.
    splices: &'s [usize],
    next_splice: usize,
    i: usize,
    line: u32,
    col: u32,
    file: u32,
}

impl Cursor<'_> {
    /// The byte `k` places after the cursor, if any.
    fn at(&self, k: usize) -> Option<u8> {
        self.b.get(self.i + k).copied()
    }

    /// Where the cursor is.
    fn loc(&self) -> Loc {
        Loc {
            file: self.file,
            line: self.line,
            col: self.col,
        }
    }

    /// Moves past one byte, counting lines and columns.
    fn adv(&mut self) {
        if self.b[self.i] == b'\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        self.i += 1;
        self.settle();
    }

    /// Counts the lines of the splices the cursor has reached.
    fn settle(&mut self) {
        while matches!(self.splices.get(self.next_splice), Some(&at) if at <= self.i) {
            self.line += 1;
            self.col = 1;
            self.next_splice += 1;
        }
    }

    /// Moves past `n` bytes.
    fn adv_n(&mut self, n: usize) {
        for _ in 0..n {
            self.adv();
        }
    }

    /// Skips one blank item at the cursor (a newline, a line splice,
    /// whitespace or a comment): `Some(true)` after a newline, `Some(false)`
    /// after anything else, `None` if a token starts here.
    fn skip_blank(&mut self) -> DResult<Option<bool>> {
        let c = self.b[self.i];
        if c == b'\n' {
            self.adv();
            return Ok(Some(true));
        }
        if c == b'\\' && (self.at(1) == Some(b'\n') || self.at(1) == Some(b'\r')) {
            self.adv();
            if self.b[self.i] == b'\r' {
                self.adv();
            }
            if self.at(0) == Some(b'\n') {
                self.adv();
            }
        } else if c.is_ascii_whitespace() {
            self.adv();
        } else if c == b'/' && self.at(1) == Some(b'/') {
            while self.at(0).is_some_and(|c| c != b'\n') {
                self.adv();
            }
        } else if c == b'/' && self.at(1) == Some(b'*') {
            self.block_comment()?;
        } else {
            return Ok(None);
        }
        Ok(Some(false))
    }

    /// Skips a `/* ... */` comment starting at the cursor.
    fn block_comment(&mut self) -> DResult<()> {
        let start = self.loc();
        self.adv_n(2);
        loop {
            if self.i + 1 >= self.b.len() {
                return err(start, "unterminated comment");
            }
            if self.b[self.i] == b'*' && self.b[self.i + 1] == b'/' {
                self.adv_n(2);
                return Ok(());
            }
            self.adv();
        }
    }

    /// The token starting at the cursor (at `loc`).
    fn token(&mut self, loc: Loc) -> DResult<Tok> {
        let c = self.b[self.i];
        let start = self.i;
        // (`$` in identifiers: a GNU extension gcc allows.)
        if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            while self
                .at(0)
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'$')
            {
                self.adv();
            }
            let word = &self.src[start..self.i];
            if matches!(word, "L" | "u" | "U") && self.at(0) == Some(b'\'') {
                return self.prefixed_char(word, loc);
            }
            if matches!(word, "L" | "u" | "U") && self.at(0) == Some(b'"') {
                return self.wide_string(word, loc);
            }
            if word == "u8" && self.at(0) == Some(b'"') {
                // UTF-8 bytes, as a plain string holds them: `char[]`.
                let vals = self.quoted(b'"', loc, "unterminated string literal", 8)?;
                return Ok(Tok::str(vals.iter().map(|&v| v as u8 as char).collect()));
            }
            Ok(Tok::Ident(word.to_string()))
        } else if c.is_ascii_digit()
            || (c == b'.' && self.at(1).is_some_and(|d| d.is_ascii_digit()))
        {
            while self.i < self.b.len() && self.in_number(start) {
                self.adv();
            }
            // A preprocessing number that is no constant is an error only
            // if it is left after preprocessing.
            let text = &self.src[start..self.i];
            Ok(number(text, loc).unwrap_or_else(|_| Tok::PpNumber(text.to_string())))
        } else if c == b'\'' {
            let at = (self.i, self.col, self.line, self.next_splice);
            let vals = match self.quoted(b'\'', loc, "unterminated character constant", 8) {
                Ok(vals) => vals,
                Err(e) => {
                    (self.i, self.col, self.line, self.next_splice) = at;
                    self.adv();
                    return Ok(Tok::Stray("'".into(), e.message));
                }
            };
            match vals[..] {
                [] => err(loc, "empty character constant"),
                // A plain `char` is signed: '\xff' is -1.
                [v] => Ok(Tok::Char(v as u8 as i8 as i64, 32)),
                // A multi-character constant (`'ab'`) is an `int` of its
                // bytes, the last one lowest, as gcc makes it (of more than
                // four, the last four).
                _ => {
                    let v = vals.iter().fold(0u32, |v, &c| v << 8 | (c & 0xff));
                    Ok(Tok::Char(i64::from(v as i32), 32))
                }
            }
        } else if c == b'"' {
            // A literal with escapes or characters beyond ASCII is read
            // as a wide literal's characters too (of 32 and of 16 bits),
            // which it takes where it is joined to one.
            let (i, col, line, next) = (self.i, self.col, self.line, self.next_splice);
            let read = |me: &mut Self, unit| {
                (me.i, me.col, me.line, me.next_splice) = (i, col, line, next);
                me.quoted(b'"', loc, "unterminated string literal", unit)
            };
            let text = self.b[i + 1..].split(|&b| b == b'"' || b == b'\n').next();
            let plain = text.is_some_and(|t| t.iter().all(|&b| b.is_ascii() && b != b'\\'));
            let wide = match plain {
                true => None,
                false => Some([read(self, 32)?, utf16(read(self, 16)?)]),
            };
            let vals = read(self, 8)?;
            let bytes: String = vals.iter().map(|&v| v as u8 as char).collect();
            let wide = wide.filter(|w| !bytes.chars().map(u32::from).eq(w[0].iter().copied()));
            Ok(Tok::Str(bytes, wide.map(Box::new)))
        } else {
            Ok(self.punct())
        }
    }

    /// A character constant with its prefix `L` (`wchar_t`: `int` here),
    /// `u` (`char16_t`: `unsigned short`) or `U` (`char32_t`: `unsigned
    /// int`), its quote at the cursor.
    fn prefixed_char(&mut self, prefix: &str, loc: Loc) -> DResult<Tok> {
        let vals = self.quoted(
            b'\'',
            loc,
            "unterminated character constant",
            unit_bits(prefix),
        )?;
        if vals.len() != 1 {
            return err(loc, "character constants must hold exactly one character");
        }
        let v = vals[0];
        Ok(match prefix {
            "L" => Tok::Char(i64::from(v as i32), 32),
            "u" => Tok::Char(i64::from(v as u16), 16),
            _ => Tok::Int(u64::from(v), true, 0, false),
        })
    }

    /// A string literal with its prefix `L` (of `wchar_t`, `int` here),
    /// `u` (of `char16_t`, UTF-16) or `U` (of `char32_t`), its quote at the
    /// cursor.
    fn wide_string(&mut self, prefix: &str, loc: Loc) -> DResult<Tok> {
        let vals = self.quoted(b'"', loc, "unterminated string literal", unit_bits(prefix))?;
        Ok(match prefix {
            "L" => Tok::WideStr(vals, 32, true),
            "U" => Tok::WideStr(vals, 32, false),
            _ => Tok::WideStr(utf16(vals), 16, false),
        })
    }

    /// Whether the byte at the cursor continues the number that started at
    /// `start` (a pp-number: digits, letters, `.`, `_`, and a sign after an
    /// exponent letter: `e` of a decimal constant, `p` of any).
    fn in_number(&self, start: usize) -> bool {
        let (b, i) = (self.b, self.i);
        b[i].is_ascii_alphanumeric()
            || b[i] == b'.'
            || b[i] == b'_'
            || ((b[i] == b'+' || b[i] == b'-')
                && (matches!(b[i - 1], b'p' | b'P')
                    || matches!(b[i - 1], b'e' | b'E')
                        && !self.src[start..i].starts_with("0x")
                        && !self.src[start..i].starts_with("0X")))
    }

    /// The characters of a literal quoted by `quote` starting at the cursor
    /// (at `loc`), escapes decoded; `unterminated` if it ends early. A
    /// wide literal (code units of `unit` bits, more than 8) takes a UTF-8
    /// sequence as one character (its code point), a plain one as its
    /// bytes.
    fn quoted(&mut self, quote: u8, loc: Loc, unterminated: &str, unit: u32) -> DResult<Vec<u32>> {
        let wide = unit > 8;
        self.adv();
        let mut vals = Vec::new();
        loop {
            if self.i >= self.b.len() || self.b[self.i] == b'\n' {
                return err(loc, unterminated);
            }
            if self.b[self.i] == quote {
                self.adv();
                return Ok(vals);
            }
            let utf8 = (wide && !self.b[self.i].is_ascii())
                .then(|| self.src[self.i..].chars().next())
                .flatten();
            if let Some(c) = utf8 {
                self.adv_n(c.len_utf8());
                vals.push(c as u32);
                continue;
            }
            if let Some((c, n)) = universal(&self.b[self.i..], loc)? {
                // A universal character name is a character: its code
                // point in a wide literal, its UTF-8 bytes in a plain one.
                self.adv_n(n);
                if wide {
                    vals.push(c as u32);
                } else {
                    vals.extend(c.to_string().bytes().map(u32::from));
                }
                continue;
            }
            // A numeric escape is a code unit, cut to its width as gcc cuts
            // it (`u"\x12345"` holds 0x2345), where a character of the
            // source is a code point.
            let (v, n) = escape(&self.b[self.i..], loc)?;
            self.adv_n(n);
            vals.push(if unit < 32 { v & ((1 << unit) - 1) } else { v });
        }
    }

    /// The punctuator at the cursor, or the stray character there.
    fn punct(&mut self) -> Tok {
        let rest = &self.src[self.i..];
        if let Some((d, p)) = DIGRAPHS.iter().find(|(d, _)| rest.starts_with(d)) {
            self.adv_n(d.len());
            return Tok::Punct(p);
        }
        match PUNCTS.iter().find(|p| rest.starts_with(**p)) {
            Some(p) => {
                self.adv_n(p.len());
                Tok::Punct(p)
            }
            None => {
                let ch = rest.chars().next().unwrap_or('?');
                let code = format!("U+{:04X}", u32::from(ch));
                self.adv_n(ch.len_utf8());
                Tok::Stray(
                    ch.to_string(),
                    match ch {
                        _ if ch.is_ascii_graphic() => format!("unexpected character '{ch}'"),
                        _ if ch.is_control() || ch.is_whitespace() => {
                            format!("unexpected character {code}")
                        }
                        _ => format!("unexpected character '{ch}' ({code})"),
                    },
                )
            }
        }
    }
}

/// The spelling of a wide string literal of characters `v` whose
/// elements have `bits` and `signed` (for `#` and `##`).
pub fn spell_wide(v: &[u32], bits: u32, signed: bool) -> String {
    let prefix = match (bits, signed) {
        (32, true) => "L",
        (32, false) => "U",
        _ => "u",
    };
    let text: String = v.iter().filter_map(|&c| char::from_u32(c)).collect();
    format!("{prefix}{text:?}")
}

/// The UTF-16 code units of the characters `vals` of a `u""` literal (as
/// [`Cursor::quoted`] reads them with 16-bit units: a value beyond 16 bits
/// is a character, made a surrogate pair).
fn utf16(vals: Vec<u32>) -> Vec<u32> {
    let mut units = Vec::with_capacity(vals.len());
    for v in vals {
        match char::from_u32(v) {
            Some(c) if v > 0xffff => {
                let mut pair = [0u16; 2];
                units.extend(c.encode_utf16(&mut pair).iter().map(|&u| u32::from(u)));
            }
            _ => units.push(v & 0xffff),
        }
    }
    units
}

/// The bits of a code unit of a literal with `prefix` (`L`, `u` or `U`).
fn unit_bits(prefix: &str) -> u32 {
    match prefix {
        "u" => 16,
        _ => 32,
    }
}

/// The character a universal character name (`\u00e9`, `\U0001F600`) at
/// the start of `b` names, and its length; `None` if `b` starts otherwise.
fn universal(b: &[u8], loc: Loc) -> DResult<Option<(char, usize)>> {
    let digits = match b {
        [b'\\', b'u', ..] => 4,
        [b'\\', b'U', ..] => 8,
        _ => return Ok(None),
    };
    let hex = b
        .get(2..2 + digits)
        .filter(|h| h.iter().all(u8::is_ascii_hexdigit));
    let Some(hex) = hex else {
        return err(
            loc,
            format!("\\{} needs {digits} hexadecimal digits", b[1] as char),
        );
    };
    let v = hex
        .iter()
        .fold(0u32, |v, &h| v * 16 + (h as char).to_digit(16).unwrap_or(0));
    match char::from_u32(v) {
        Some(c) => Ok(Some((c, 2 + digits))),
        None => err(
            loc,
            format!("\\{} names no character (U+{v:04X})", b[1] as char),
        ),
    }
}

/// One (possibly escaped) character of a literal: its value and byte
/// length. A numeric escape's value is whole (`\x1234`): a plain `char`
/// or string keeps its low byte, a wide character all of it.
pub(crate) fn escape(b: &[u8], loc: Loc) -> DResult<(u32, usize)> {
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
        // GNU's escape (`\e`, `\E`): the escape character.
        b'e' | b'E' => Some(27),
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
        return Ok((v, n));
    }
    if (b'0'..=b'7').contains(&c) {
        let mut v = 0;
        let mut n = 1;
        while n < b.len() && n < 4 && (b'0'..=b'7').contains(&b[n]) {
            v = v * 8 + (b[n] - b'0') as u32;
            n += 1;
        }
        return Ok((v, n));
    }
    err(loc, format!("unknown escape sequence '\\{}'", c as char))
}

/// Parses an integer constant with its suffix, or a floating one.
pub(crate) fn number(text: &str, loc: Loc) -> DResult<Tok> {
    let lower = text.to_ascii_lowercase();
    let is_hex = lower.starts_with("0x");
    if !is_hex && (lower.contains('.') || lower.contains('e'))
        || is_hex && (lower.contains('.') || lower.contains('p'))
    {
        return float_constant(text, &lower, loc);
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
    // `u` and `l` or `ll` (not `lL`), each at most once, in either order.
    let (unsigned, longs) = match suffix {
        "" => (false, 0),
        "u" => (true, 0),
        "l" => (false, 1),
        "ul" | "lu" => (true, 1),
        "ll" => (false, 2),
        "ull" | "llu" => (true, 2),
        _ => return err(loc, format!("invalid suffix on integer constant '{text}'")),
    };
    if longs == 2 && !(text.contains("ll") || text.contains("LL")) {
        return err(loc, format!("invalid suffix on integer constant '{text}'"));
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
        Ok(v) => Ok(Tok::Int(v, unsigned, longs, radix == 10)),
        Err(_) => err(
            loc,
            format!("invalid or too large integer constant '{text}'"),
        ),
    }
}

/// A floating constant (`lower` is `text` in lower case): `double`, or
/// `float` with the suffix `f`; `long double` (suffix `l`) is refused.
fn float_constant(text: &str, lower: &str, loc: Loc) -> DResult<Tok> {
    let (body, single) = match lower.strip_suffix('f') {
        Some(b) if !lower.starts_with("0x") || lower.contains('p') => (b, true),
        _ => (lower, false),
    };
    if body.ends_with('l') {
        return err(
            loc,
            format!("'long double' constants are not supported: '{text}'"),
        );
    }
    if body.starts_with("0x") && !body.contains('p') {
        return err(
            loc,
            format!("hexadecimal floating constant '{text}' requires an exponent"),
        );
    }
    let bits = if single { 32 } else { 64 };
    match crate::floats::parse(body, bits) {
        Some(v) if !body.starts_with(['+', '-']) => Ok(Tok::Float(v, single)),
        _ => err(loc, format!("invalid floating constant '{text}'")),
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
