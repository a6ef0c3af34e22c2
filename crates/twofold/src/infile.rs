//! Input values from files (`-i NAME=@FILE`): a C initializer (`.c`, `.txt`
//! or any other extension, as on the command line), JSON (`.json`) or CSV
//! (`.csv`), checked against the value's declared type with `FILE:LINE`
//! errors. JSON and CSV are read through a buffered reader straight into the
//! value's bits.

use std::fmt;
use std::io::{BufRead, BufReader};
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use twofold_circuit::value::parse_int;
use twofold_compiler::CType;

use crate::files::{clip, clip_in, open_regular, read_regular};
use crate::load::ValueKind;

/// The largest input file read for a value of `width` bits: 1 MiB plus 64
/// bytes a bit (a decimal 64-bit number takes at most 21, so this leaves
/// room for any layout while bounding what a device or a huge file costs).
pub fn file_cap(width: u32) -> u64 {
    (1 << 20) + 64 * u64::from(width)
}

/// Reads the value of kind `kind` (`width` bits) from the file at `path`,
/// in the format its extension names. The file must be a regular file of
/// at most [`file_cap`] bytes.
pub fn read_value(kind: &ValueKind, width: u32, path: &Path) -> Result<Vec<bool>> {
    let ty = Ty::of(kind, width);
    let name = path.display().to_string();
    let (what, cap) = ("the input file", file_cap(width));
    let opened = || -> Result<_> {
        let mut reader = BufReader::new(open_regular(path, what, cap)?);
        let head = reader
            .fill_buf()
            .with_context(|| format!("cannot read {name}"))?;
        if head.starts_with(BOM) {
            reader.consume(BOM.len());
        }
        Ok(reader)
    };
    match path.extension().and_then(|e| e.to_str()) {
        Some("json") => read_json(ty, opened()?, &name),
        Some("csv") => read_csv(ty, opened()?, &name),
        _ => {
            let bytes = read_regular(path, what, cap)?;
            let text = std::str::from_utf8(bytes.strip_prefix(BOM).unwrap_or(&bytes))
                .with_context(|| format!("{name}: not UTF-8 text"))?;
            read_initializer(ty, text, &name)
        }
    }
}

/// A UTF-8 byte order mark, skipped at the start of a file (Excel's "CSV
/// UTF-8" writes one).
const BOM: &[u8] = b"\xef\xbb\xbf";

/// The type a value is read as: a Bristol value of some bits, or a C type.
#[derive(Clone, Copy)]
enum Ty<'a> {
    /// An integer of this many bits (hex or decimal).
    Bits(u32),
    /// A value of a C type.
    C(&'a CType),
}

impl<'a> Ty<'a> {
    /// The type of a value of kind `kind` (`width` bits).
    fn of(kind: &'a ValueKind, width: u32) -> Self {
        match kind {
            ValueKind::Int => Ty::Bits(width),
            ValueKind::C(t) => Ty::C(t),
        }
    }

    fn width(self) -> usize {
        match self {
            Ty::Bits(w) => w as usize,
            Ty::C(t) => t.width() as usize,
        }
    }

    /// Whether this is `float` or `double`.
    fn is_float(self) -> bool {
        matches!(self, Ty::C(CType::Float { .. }))
    }

    /// A scalar's bits from the text of one number.
    fn scalar(self, text: &str) -> Result<Vec<bool>, String> {
        match self {
            Ty::Bits(w) => parse_int(text, w).map_err(|e| e.to_string()),
            Ty::C(t) => t.parse_value(text).map_err(|e| e.message),
        }
        .map_err(|e| clip_in(&e, text))
    }

    fn name(self) -> String {
        match self {
            Ty::Bits(w) => format!("a {w}-bit integer"),
            Ty::C(t) => t.name(),
        }
    }

    /// How many elements or members an array or struct has (`None` for a
    /// scalar).
    fn members(self) -> Option<usize> {
        match self {
            Ty::C(CType::Array(_, n)) => Some(*n as usize),
            Ty::C(CType::Struct(s)) => Some(s.fields.len()),
            _ => None,
        }
    }

    /// The type of element or member `k` of an aggregate (the scalar itself
    /// for a scalar).
    fn member(self, k: usize) -> Self {
        match self {
            Ty::C(CType::Array(e, _)) => Ty::C(e),
            Ty::C(CType::Struct(s)) => Ty::C(&s.fields[k].1),
            _ => self,
        }
    }

    /// The scalars of the value in layout order.
    fn leaves(self, out: &mut Vec<Self>) {
        match self.members() {
            Some(n) => (0..n).for_each(|k| self.member(k).leaves(out)),
            None => out.push(self),
        }
    }
}

/// 1-based line and column of byte `at` of `text`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |k| k + 1) + 1;
    (line, col)
}

/// A C initializer, the whole file.
fn read_initializer(ty: Ty, text: &str, name: &str) -> Result<Vec<bool>> {
    match ty {
        Ty::C(t) => t.parse_value(text).map_err(|e| {
            let (line, col) = line_col(text, (e.col as usize).saturating_sub(1));
            anyhow!("{name}:{line}:{col}: {}", e.message)
        }),
        Ty::Bits(_) => {
            let start = text.len() - text.trim_start().len();
            ty.scalar(text)
                .map_err(|e| anyhow!("{name}:{}: {e}", line_col(text, start).0))
        }
    }
}

/// A JSON value: numbers, nested arrays, objects (or arrays) for structs;
/// for Bristol values a number or a hex/decimal string.
fn read_json(ty: Ty, reader: impl std::io::Read, name: &str) -> Result<Vec<bool>> {
    let mut out = vec![false; ty.width()];
    let mut de = serde_json::Deserializer::from_reader(reader);
    let at = |e: serde_json::Error| {
        let place = format!(" at line {} column {}", e.line(), e.column());
        let text = e.to_string();
        match text.strip_suffix(&place) {
            Some(message) => anyhow!("{name}:{}:{}: {message}", e.line(), e.column()),
            None => anyhow!("{name}: {text}"),
        }
    };
    JsonSeed { ty, out: &mut out }
        .deserialize(&mut de)
        .map_err(at)?;
    de.end().map_err(at)?;
    Ok(out)
}

/// Reads the value of kind `kind` (`width` bits) from a JSON value already
/// parsed, as from a `.json` file (without the file's line and column in
/// errors).
pub fn read_json_value(
    kind: &ValueKind,
    width: u32,
    value: &serde_json::Value,
) -> Result<Vec<bool>> {
    let ty = Ty::of(kind, width);
    let mut out = vec![false; ty.width()];
    JsonSeed { ty, out: &mut out }
        .deserialize(value)
        .map_err(|e| anyhow!("{e}"))?;
    Ok(out)
}

/// Deserializes one JSON value of type `ty` into `out` (its bits).
struct JsonSeed<'a, 'b> {
    ty: Ty<'a>,
    out: &'b mut [bool],
}

impl<'de> DeserializeSeed<'de> for JsonSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        de.deserialize_any(self)
    }
}

impl JsonSeed<'_, '_> {
    fn number<E: de::Error>(self, text: &str) -> Result<(), E> {
        if self.ty.members().is_some() {
            return Err(E::custom(format!(
                "expected an array or object for {}, found {text}",
                self.ty.name()
            )));
        }
        let bits = self.ty.scalar(text).map_err(E::custom)?;
        self.out.copy_from_slice(&bits);
        Ok(())
    }
}

impl<'de> Visitor<'de> for JsonSeed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a value of type {}", self.ty.name())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.number(&v.to_string())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.number(&v.to_string())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        if self.ty.is_float() {
            // A double, as JSON numbers are read (a float is rounded from it).
            return self.number(&format!("{v:?}"));
        }
        // An integral value as JSON writers give it (`1.0`, `1e2`), where a
        // double holds every integer of its size exactly.
        const EXACT: f64 = (1u64 << 53) as f64;
        if v.fract() == 0.0 && v.abs() <= EXACT {
            return self.number(&(v as i64).to_string());
        }
        Err(E::custom(if v.fract() == 0.0 {
            format!(
                "{v:e} is too large to be exact as a JSON number (write it as a string, \"0x…\")"
            )
        } else {
            format!("{v} is not an integer, as {} needs", self.ty.name())
        }))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.number(if v { "1" } else { "0" })
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        match self.ty {
            Ty::Bits(_) => self.number(v),
            Ty::C(_) if self.ty.is_float() && matches!(v, "inf" | "-inf" | "nan" | "-nan") => {
                self.number(v)
            }
            Ty::C(_) => Err(E::custom(format!(
                "expected a number for {}, found the string \"{}\"",
                self.ty.name(),
                clip(v)
            ))),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Some(count) = self.ty.members() else {
            return Err(de::Error::custom(format!(
                "expected a number for {}, found an array",
                self.ty.name()
            )));
        };
        let mut rest = self.out;
        for k in 0..count {
            let ty = self.ty.member(k);
            let (out, tail) = rest.split_at_mut(ty.width());
            rest = tail;
            if seq.next_element_seed(JsonSeed { ty, out })?.is_none() {
                return Err(de::Error::custom(format!(
                    "expected {count} elements for {}, found {k}",
                    self.ty.name()
                )));
            }
        }
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::custom(format!(
                "more than {count} elements for {}",
                self.ty.name()
            )));
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Ty::C(CType::Struct(s)) = self.ty else {
            return Err(de::Error::custom(format!(
                "expected {} for {}, found an object",
                if matches!(self.ty, Ty::C(CType::Array(..))) {
                    "an array"
                } else {
                    "a number"
                },
                self.ty.name()
            )));
        };
        let mut seen = vec![false; s.fields.len()];
        while let Some(key) = map.next_key::<String>()? {
            let k = s
                .fields
                .iter()
                .position(|(n, _)| *n == key)
                .ok_or_else(|| {
                    let names: Vec<&str> = s.fields.iter().map(|(n, _)| n.as_str()).collect();
                    de::Error::custom(format!(
                        "{} has no member `{}` (its members: {})",
                        self.ty.name(),
                        clip(&key),
                        names.join(", ")
                    ))
                })?;
            if seen[k] {
                return Err(de::Error::custom(format!(
                    "member `{key}` of {} is given twice",
                    self.ty.name()
                )));
            }
            let at: usize = s.fields[..k].iter().map(|(_, t)| t.width() as usize).sum();
            let ty = Ty::C(&s.fields[k].1);
            let out = &mut self.out[at..at + ty.width()];
            map.next_value_seed(JsonSeed { ty, out })?;
            seen[k] = true;
        }
        match seen.iter().position(|s| !s) {
            Some(k) => Err(de::Error::custom(format!(
                "missing member `{}` of {}",
                s.fields[k].0,
                self.ty.name()
            ))),
            None => Ok(()),
        }
    }
}

/// CSV: rows are the first index of the value's array (after structs of a
/// single member), columns the scalars of one element; a 1-D array may be
/// one row or one column. Empty lines are skipped.
fn read_csv(ty: Ty, reader: impl BufRead, name: &str) -> Result<Vec<bool>> {
    let mut inner = ty;
    while let Ty::C(CType::Struct(s)) = inner {
        match s.fields.as_slice() {
            [(_, t)] => inner = Ty::C(t),
            _ => break,
        }
    }
    let (mut rows, mut row) = match inner {
        Ty::C(CType::Array(e, n)) => (*n as usize, Ty::C(e)),
        _ => (1, inner),
    };
    let mut leaves = Vec::new();
    row.leaves(&mut leaves);
    let mut out = vec![false; ty.width()];
    let mut done = 0;
    let mut last_line = 0;
    for (k, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("cannot read {name}"))?;
        last_line = k + 1;
        if line.trim().is_empty() {
            continue;
        }
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if done == 0 && leaves.len() == 1 && rows > 1 && cells.len() == rows {
            // A 1-D array written as one row.
            (rows, row) = (1, inner);
            leaves.clear();
            row.leaves(&mut leaves);
        }
        if done == rows {
            bail!("{name}:{last_line}: more than {rows} row(s)");
        }
        if cells.len() != leaves.len() {
            bail!(
                "{name}:{last_line}: expected {} value(s) in a row ({}), found {}",
                leaves.len(),
                row.name(),
                cells.len()
            );
        }
        let mut at = done * row.width();
        for (c, (cell, leaf)) in cells.iter().zip(&leaves).enumerate() {
            let bits = leaf
                .scalar(cell)
                .map_err(|e| anyhow!("{name}:{last_line}: column {}: {e}", c + 1))?;
            out[at..at + bits.len()].copy_from_slice(&bits);
            at += bits.len();
        }
        done += 1;
    }
    if done != rows {
        bail!("{name}:{last_line}: expected {rows} row(s), found {done}");
    }
    Ok(out)
}
