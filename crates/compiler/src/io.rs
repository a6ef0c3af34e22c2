//! Input and output values: C initializers to bits and back, and JSON.

use crate::error::{CompileError, Loc};
use crate::floats;
use crate::types::{CType, Scalar};

/// A value for JSON output: a number or a nested list (arrays and structs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CValue {
    /// A scalar.
    Int(i128),
    /// A `float` (32 bits) or `double` (64): its bit pattern.
    Float {
        /// The IEEE-754 bit pattern.
        bits: u64,
        /// 32 or 64.
        width: u32,
    },
    /// An array's elements or a struct's members in order.
    List(Vec<CValue>),
}

impl CValue {
    /// The value as JSON text: numbers and nested arrays.
    pub fn to_json_string(&self) -> String {
        match self {
            CValue::Int(v) => v.to_string(),
            CValue::Float { bits, width } => {
                let text = floats::format(*bits, *width);
                if text.ends_with(|c: char| c.is_ascii_digit()) {
                    text
                } else {
                    format!("\"{text}\"")
                }
            }
            CValue::List(items) => {
                let parts: Vec<String> = items.iter().map(|v| v.to_json_string()).collect();
                format!("[{}]", parts.join(","))
            }
        }
    }
}

enum Node {
    Num(i128, usize),
    /// A floating value's text (a number with a point or an exponent,
    /// `inf`, `nan`), with its sign.
    Real(String, usize),
    /// A string literal's bytes (for an array of characters).
    Str(Vec<u8>, usize),
    List(Vec<(Option<Des>, Node)>, usize),
}

enum Des {
    Field(String, usize),
    Index(i128, usize),
}

fn verr(pos: usize, message: impl Into<String>) -> CompileError {
    CompileError {
        file: "<value>".into(),
        line: 1,
        col: pos as u32 + 1,
        message: message.into(),
        exceeded: None,
    }
}

/// Deepest nesting of braces in a value.
pub const MAX_VALUE_NESTING: usize = 256;

struct P<'a> {
    s: &'a [u8],
    i: usize,
    /// Braces open around the position.
    depth: usize,
}

impl P<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn node(&mut self) -> Result<Node, CompileError> {
        self.ws();
        let start = self.i;
        if self.eat(b'{') {
            self.depth += 1;
            if self.depth > MAX_VALUE_NESTING {
                return Err(verr(
                    start,
                    format!("braces nested more than {MAX_VALUE_NESTING} deep"),
                ));
            }
            let mut items = Vec::new();
            loop {
                if self.eat(b'}') {
                    break;
                }
                self.ws();
                let dpos = self.i;
                let des = if self.eat(b'.') {
                    self.ws();
                    let st = self.i;
                    while self.i < self.s.len()
                        && (self.s[self.i].is_ascii_alphanumeric() || self.s[self.i] == b'_')
                    {
                        self.i += 1;
                    }
                    if st == self.i {
                        return Err(verr(st, "expected a member name after '.'"));
                    }
                    let name = String::from_utf8_lossy(&self.s[st..self.i]).to_string();
                    self.one_designator(&format!(".{name}"))?;
                    if !self.eat(b'=') {
                        return Err(verr(self.i, "expected '=' after a designator"));
                    }
                    Some(Des::Field(name, dpos))
                } else if self.eat(b'[') {
                    let Node::Num(k, _) = self.number()? else {
                        return Err(verr(dpos, "bad index designator"));
                    };
                    if !self.eat(b']') {
                        return Err(verr(self.i, "expected ']' in a designator"));
                    }
                    self.one_designator(&format!("[{k}]"))?;
                    if !self.eat(b'=') {
                        return Err(verr(self.i, "expected '=' after a designator"));
                    }
                    Some(Des::Index(k, dpos))
                } else {
                    None
                };
                items.push((des, self.node()?));
                if self.eat(b',') {
                    continue;
                }
                if self.eat(b'}') {
                    break;
                }
                return Err(verr(self.i, "expected ',' or '}'"));
            }
            self.depth -= 1;
            return Ok(Node::List(items, start));
        }
        if self.eat(b'"') {
            return self.string(start);
        }
        self.number()
    }

    /// The rest of a string literal, after its opening quote.
    fn string(&mut self, start: usize) -> Result<Node, CompileError> {
        let mut bytes = Vec::new();
        loop {
            match self.s.get(self.i) {
                None => return Err(verr(start, "unterminated string")),
                Some(b'"') => break,
                Some(b'\\') => {
                    let (v, n) = self.escape()?;
                    // (A char of a string keeps a numeric escape's low
                    // byte, as the compiler's own literals do.)
                    bytes.push(v as u8);
                    self.i += n;
                }
                Some(&c) => {
                    bytes.push(c);
                    self.i += 1;
                }
            }
        }
        self.i += 1;
        Ok(Node::Str(bytes, start))
    }

    /// The escape sequence at the cursor (a backslash): its value and
    /// length, as in C's literals (`\n`, `\x41`, `\101`, ...).
    fn escape(&mut self) -> Result<(u32, usize), CompileError> {
        crate::lexer::escape(&self.s[self.i..], Loc::default()).map_err(|e| verr(self.i, e.message))
    }

    fn number(&mut self) -> Result<Node, CompileError> {
        self.ws();
        let start = self.i;
        let mut neg = false;
        if self.eat(b'-') {
            neg = true;
        } else {
            self.eat(b'+');
        }
        self.ws();
        let v: i128 = if self.s.get(self.i) == Some(&b'\'') {
            let c = *self
                .s
                .get(self.i + 1)
                .ok_or_else(|| verr(self.i, "bad character constant"))?;
            let (v, n) = if c == b'\\' {
                self.i += 1;
                let (v, n) = self.escape()?;
                self.i -= 1;
                // (A char constant is an `int` of a `char`'s value: `'\xff'` is -1.)
                (i128::from(v as u8 as i8), n + 1)
            } else {
                (c as i128, 2)
            };
            if self.s.get(self.i + n) != Some(&b'\'') {
                return Err(verr(self.i, "unterminated character constant"));
            }
            self.i += n + 1;
            v
        } else {
            let st = self.i;
            while self.i < self.s.len() && self.in_number(st) {
                self.i += 1;
            }
            // (`true` and `false`, as <stdbool.h> defines them: 1 and 0.)
            match &self.s[st..self.i] {
                b"true" => return Ok(Node::Num(if neg { -1 } else { 1 }, start)),
                b"false" => return Ok(Node::Num(0, start)),
                _ => {}
            }
            let text = String::from_utf8_lossy(&self.s[st..self.i]).to_ascii_lowercase();
            if is_real(&text) {
                let sign = if neg { "-" } else { "" };
                return Ok(Node::Real(format!("{sign}{text}"), start));
            }
            let body = text.trim_end_matches(['u', 'l']);
            let parsed = if let Some(h) = body.strip_prefix("0x") {
                i128::from_str_radix(h, 16)
            } else if let Some(b) = body.strip_prefix("0b") {
                i128::from_str_radix(b, 2)
            } else if body.len() > 1 && body.starts_with('0') {
                i128::from_str_radix(&body[1..], 8)
            } else {
                body.parse::<i128>()
            };
            match parsed {
                Ok(v) if !body.is_empty() => v,
                _ => return Err(self.not_a_number(st)),
            }
        };
        Ok(Node::Num(if neg { -v } else { v }, start))
    }
}

impl P<'_> {
    /// Fails if another designator follows `first` (C's `.v[2] = 5`),
    /// which values do not support, saying how to write it.
    fn one_designator(&mut self, first: &str) -> Result<(), CompileError> {
        self.ws();
        match self.s.get(self.i) {
            Some(b'.' | b'[') => Err(verr(
                self.i,
                format!(
                    "nested designators are not supported: write `{first} = {{...}}` with the \
                     rest inside the braces (`.v = {{[2] = 5}}` for `.v[2] = 5`)"
                ),
            )),
            _ => Ok(()),
        }
    }

    /// The error for the token at `st`, which is no number: quoted as
    /// given, up to the next space or punctuation of the value's syntax.
    fn not_a_number(&self, st: usize) -> CompileError {
        let rest = &self.s[st..];
        let end = rest
            .iter()
            .position(|c| c.is_ascii_whitespace() || b",{}=[]\"".contains(c))
            .unwrap_or(rest.len());
        match &rest[..end] {
            [] => verr(st, "expected a number"),
            token => verr(
                st,
                format!("invalid number '{}'", String::from_utf8_lossy(token)),
            ),
        }
    }

    /// Whether the byte at the cursor continues the number that started at
    /// `st`: letters and digits, a point, a sign after an exponent letter.
    fn in_number(&self, st: usize) -> bool {
        let c = self.s[self.i];
        let hex = self.s[st..].starts_with(b"0x") || self.s[st..].starts_with(b"0X");
        c.is_ascii_alphanumeric()
            || c == b'.'
            || (c == b'+' || c == b'-')
                && self.i > st
                && match self.s[self.i - 1] {
                    b'p' | b'P' => true,
                    b'e' | b'E' => !hex,
                    _ => false,
                }
    }
}

/// Whether a number's text (in lower case) is a floating value.
fn is_real(text: &str) -> bool {
    match text.strip_prefix("0x") {
        Some(h) => h.contains(['.', 'p']),
        None => {
            let number = text.starts_with(|c: char| c.is_ascii_digit() || c == '.');
            number && text.contains(['.', 'e']) || matches!(text, "inf" | "infinity" | "nan")
        }
    }
}

fn scalar_bits(s: Scalar, v: i128, pos: usize, out: &mut [bool]) -> Result<(), CompileError> {
    if s.width == 1 {
        out[0] = v != 0;
        return Ok(());
    }
    let w = s.width;
    let lo = -(1i128 << (w - 1));
    let hi = (1i128 << w) - 1;
    if v < lo || v > hi {
        return Err(verr(
            pos,
            format!("value {v} does not fit in {}", s.ctype().name()),
        ));
    }
    let u = v as u128;
    for (i, b) in out.iter_mut().enumerate().take(w as usize) {
        *b = (u >> i) & 1 == 1;
    }
    Ok(())
}

impl CType {
    /// Parses a C initializer for a value of this type (`5`, `-3`, `0x1f`,
    /// `'a'`, `{1, 2, 3}`, `{{1, 2}, {3, 4}}`, `{.x = 1, .y = 2}`) into its
    /// circuit bits, bit 0 first, scalars in layout order. Missing trailing
    /// elements are zero, as in C.
    pub fn parse_value(&self, text: &str) -> Result<Vec<bool>, CompileError> {
        let mut p = P {
            s: text.as_bytes(),
            i: 0,
            depth: 0,
        };
        let node = p.node()?;
        p.ws();
        if p.i != text.len() {
            return Err(verr(p.i, "unexpected text after the value"));
        }
        let mut out = vec![false; self.width() as usize];
        fill(self, &node, &mut out)?;
        Ok(out)
    }

    /// Formats bits (as laid out by [`CType::parse_value`]) as a C
    /// initializer in decimal: `-122667`, `{1, 2, 3}`, `{{1, 2}, 7}`.
    pub fn format_value(&self, bits: &[bool]) -> String {
        fmt_c(&self.json_value(bits))
    }

    /// The value as numbers and nested lists (for JSON output).
    pub fn json_value(&self, bits: &[bool]) -> CValue {
        let mut at = 0;
        self.value_at(bits, &mut at)
    }

    fn value_at(&self, bits: &[bool], at: &mut usize) -> CValue {
        match self {
            CType::Array(e, n) => CValue::List((0..*n).map(|_| e.value_at(bits, at)).collect()),
            CType::Struct(s) => {
                CValue::List(s.fields.iter().map(|(_, t)| t.value_at(bits, at)).collect())
            }
            CType::Float { bits: width } => {
                let w = *width as usize;
                let bits = (0..w)
                    .filter(|&i| bits.get(*at + i).copied().unwrap_or(false))
                    .map(|i| 1u64 << i)
                    .sum();
                *at += w;
                CValue::Float {
                    bits,
                    width: *width,
                }
            }
            t => {
                let w = t.width() as usize;
                let mut u: u128 = 0;
                for i in 0..w {
                    if bits.get(*at + i).copied().unwrap_or(false) {
                        u |= 1 << i;
                    }
                }
                *at += w;
                let signed = t.scalar().is_some_and(|s| s.signed);
                let v = if signed && w > 0 && (u >> (w - 1)) & 1 == 1 {
                    u as i128 - (1i128 << w)
                } else {
                    u as i128
                };
                CValue::Int(v)
            }
        }
    }
}

fn fmt_c(v: &CValue) -> String {
    match v {
        CValue::Int(x) => x.to_string(),
        CValue::Float { bits, width } => floats::format(*bits, *width),
        CValue::List(items) => {
            let parts: Vec<String> = items.iter().map(fmt_c).collect();
            format!("{{{}}}", parts.join(", "))
        }
    }
}

/// Whether `t` is an array of characters (a string initializes it).
fn chars(t: &CType) -> bool {
    matches!(t, CType::Array(e, _) if matches!(**e, CType::Int { bits: 8, .. }))
}

fn fill(ty: &CType, node: &Node, out: &mut [bool]) -> Result<(), CompileError> {
    match (ty, node) {
        // A string, braced or not, for an array of characters (its
        // terminating zero where there is room, as C's initializers).
        (CType::Array(e, n), Node::Str(bytes, pos)) if chars(ty) => {
            if bytes.len() > *n as usize {
                return Err(verr(
                    *pos,
                    format!("the string is longer than {}", ty.name()),
                ));
            }
            let s = e.scalar().unwrap_or(Scalar::int(8, false));
            for (k, &b) in bytes.iter().enumerate() {
                let v = if s.signed {
                    i128::from(b as i8)
                } else {
                    i128::from(b)
                };
                scalar_bits(s, v, *pos, &mut out[8 * k..8 * k + 8])?;
            }
            Ok(())
        }
        (t, Node::Str(_, pos)) => Err(verr(
            *pos,
            format!(
                "a string is a value for an array of characters, not {}",
                t.name()
            ),
        )),
        (CType::Array(..), Node::List(items, _))
            if chars(ty) && matches!(items.as_slice(), [(None, Node::Str(..))]) =>
        {
            fill(ty, &items[0].1, out)
        }
        (CType::Array(..) | CType::Struct(_), Node::List(items, _)) => {
            let mut it = 0;
            fill_list(ty, items, &mut it, out, true)?;
            if it < items.len() {
                return Err(verr(node_pos(&items[it].1), "too many values"));
            }
            Ok(())
        }
        (CType::Array(..) | CType::Struct(_), Node::Num(_, pos)) => Err(verr(
            *pos,
            format!("expected '{{' for a value of type {}", ty.name()),
        )),
        (_, Node::List(items, pos)) => match items.as_slice() {
            [(None, n)] => fill(ty, n, out),
            _ => Err(verr(
                *pos,
                format!("expected a single number for {}", ty.name()),
            )),
        },
        (CType::Float { bits }, Node::Num(v, pos)) => real_bits(&v.to_string(), *bits, *pos, out),
        (CType::Float { bits }, Node::Real(text, pos)) => real_bits(text, *bits, *pos, out),
        (t, Node::Real(text, pos)) => Err(verr(
            *pos,
            format!("'{text}' is not an integer, as {} needs", t.name()),
        )),
        (t, Node::Num(v, pos)) => match t.scalar() {
            Some(s) => scalar_bits(s, *v, *pos, out),
            None => Err(verr(
                *pos,
                format!("values of type {} cannot be given", t.name()),
            )),
        },
    }
}

/// Sets the bits of a floating value given as text (see [`floats::parse`]).
fn real_bits(text: &str, width: u32, pos: usize, out: &mut [bool]) -> Result<(), CompileError> {
    let Some(v) = floats::parse(text, width) else {
        return Err(verr(pos, format!("invalid floating value '{text}'")));
    };
    for (i, b) in out.iter_mut().enumerate().take(width as usize) {
        *b = (v >> i) & 1 == 1;
    }
    Ok(())
}

fn node_pos(n: &Node) -> usize {
    match n {
        Node::Num(_, p) | Node::Real(_, p) | Node::Str(_, p) | Node::List(_, p) => *p,
    }
}

fn fill_list(
    ty: &CType,
    items: &[(Option<Des>, Node)],
    it: &mut usize,
    out: &mut [bool],
    braced: bool,
) -> Result<(), CompileError> {
    // Members are looked up by index, not listed: an array may be large.
    let count = match ty {
        CType::Array(_, n) => *n as usize,
        CType::Struct(s) => s.fields.len(),
        _ => return Ok(()),
    };
    let member = |k: usize| -> (&CType, usize) {
        match ty {
            CType::Array(e, _) => (e, k * e.width() as usize),
            CType::Struct(s) => {
                let at = s.fields[..k].iter().map(|(_, t)| t.width() as usize).sum();
                (&s.fields[k].1, at)
            }
            _ => unreachable!("an aggregate"),
        }
    };
    let mut k = 0usize;
    // Without braces, the first item's designator (if any) named this
    // aggregate in the enclosing list; a later designator ends it.
    let first = *it;
    while *it < items.len() {
        let (des, node) = &items[*it];
        match des {
            Some(_) if !braced && *it == first => {}
            Some(_) if !braced => return Ok(()),
            Some(d) => {
                k = match (d, ty) {
                    (Des::Field(name, pos), CType::Struct(st)) => st
                        .fields
                        .iter()
                        .position(|(n, _)| n == name)
                        .ok_or_else(|| verr(*pos, format!("no member named '{name}'")))?,
                    (Des::Index(i, pos), CType::Array(_, n)) => {
                        if *i < 0 || *i >= *n as i128 {
                            return Err(verr(*pos, "index out of bounds"));
                        }
                        *i as usize
                    }
                    (Des::Field(_, pos) | Des::Index(_, pos), _) => {
                        return Err(verr(*pos, "designator does not fit the type"))
                    }
                };
            }
            None => {}
        }
        if k >= count {
            if braced {
                return Err(verr(node_pos(node), "too many values"));
            }
            return Ok(());
        }
        let (mt, at) = member(k);
        let slice = &mut out[at..at + mt.width() as usize];
        let aggregate = matches!(mt, CType::Array(..) | CType::Struct(_));
        // A value that is no list for an aggregate begins it, its braces
        // elided (a string, unless the aggregate is characters it fills).
        let elided = match node {
            Node::Num(..) | Node::Real(..) => aggregate,
            Node::Str(..) => aggregate && !chars(mt),
            Node::List(..) => false,
        };
        match node {
            _ if elided => {
                let before = *it;
                fill_list(mt, items, it, slice, false)?;
                if *it == before {
                    return Err(verr(node_pos(node), "no element to take this value"));
                }
            }
            _ => {
                *it += 1;
                fill(mt, node, slice)?;
            }
        }
        k += 1;
    }
    Ok(())
}
