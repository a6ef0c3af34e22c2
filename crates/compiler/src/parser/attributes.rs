//! Attributes: GNU `__attribute__((...))` and C23 `[[...]]`.
//!
//! Most change nothing twofold computes (`unused`, `noinline`, `const`,
//! `fallthrough`, `nodiscard`, ...) and are read over. Those that change
//! a struct's layout are followed: `packed` and `aligned(n)` (see
//! [`Attributes`]). Those that change a type or what a program does in a
//! way twofold does not model (`vector_size`, `mode`, `cleanup`, ...) are
//! refused, rather than read over to a wrong result. `#pragma pack` is
//! followed here too.

use super::expr::const_eval;
use super::Parser;
use crate::error::{err, DResult};

/// The attributes a declaration has that twofold follows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Attributes {
    /// `packed`: a struct's members take no alignment from their types.
    pub(super) packed: bool,
    /// `aligned(n)`, in bytes (`aligned` alone: 16, the most any type
    /// needs on x86-64); 0: none.
    pub(super) aligned: u64,
}

impl Attributes {
    /// These and `other` together.
    pub(super) fn with(self, other: Attributes) -> Attributes {
        Attributes {
            packed: self.packed || other.packed,
            aligned: self.aligned.max(other.aligned),
        }
    }
}

/// Attributes that change a type or a program's meaning in ways twofold
/// does not model.
const REFUSED: &[&str] = &[
    "vector_size",
    "mode",
    "cleanup",
    "transparent_union",
    "scalar_storage_order",
    "ms_struct",
];

/// Whether twofold follows, or reads over, the attribute `name` (for
/// `__has_attribute`): all but those it refuses.
pub fn supported_attribute(name: &str) -> bool {
    let name = name
        .strip_prefix("__")
        .and_then(|n| n.strip_suffix("__"))
        .unwrap_or(name);
    !REFUSED.contains(&name)
}

/// The largest alignment x86-64 gcc gives `aligned` without an argument.
const BIGGEST_ALIGNMENT: u64 = 16;

impl<'a> Parser<'a> {
    /// The value `#pragma pack` has here (0: none).
    pub(super) fn pack_in_effect(&self) -> u64 {
        let set = self.packs.partition_point(|(from, _)| *from <= self.pos);
        set.checked_sub(1).map_or(0, |k| self.packs[k].1)
    }

    /// Whether an attribute starts here.
    pub(super) fn at_attribute(&self) -> bool {
        matches!(
            self.peek().and_then(|t| t.ident()),
            Some("__attribute__" | "__attribute")
        ) || (self.is("[") && self.peek_at(1).is_some_and(|t| t.is("[")))
    }

    /// The attributes (any number, of either kind) from here on.
    pub(super) fn attributes(&mut self) -> DResult<Attributes> {
        let mut found = Attributes::default();
        while self.at_attribute() {
            let gnu = !self.is("[");
            let (open, close) = match gnu {
                true => ("(", ")"),
                false => ("[", "]"),
            };
            self.pos += usize::from(gnu);
            self.expect(open)?;
            self.expect(open)?;
            while !self.eat(close) {
                if !self.eat(",") {
                    found = found.with(self.attribute()?);
                }
            }
            self.expect(close)?;
        }
        Ok(found)
    }

    /// One attribute of a list: `packed`, `__aligned__(8)`, `gnu::packed`,
    /// `format(printf, 1, 2)`, ...
    fn attribute(&mut self) -> DResult<Attributes> {
        let loc = self.loc();
        let mut name = self.attribute_name()?;
        if self.eat("::") || (self.is(":") && self.peek_at(1).is_some_and(|t| t.is(":"))) {
            // A C23 attribute's prefix (`gnu::`).
            self.pos += usize::from(self.is(":")) * 2;
            name = self.attribute_name()?;
        }
        let name = name
            .strip_prefix("__")
            .and_then(|n| n.strip_suffix("__"))
            .unwrap_or(name);
        if !supported_attribute(name) {
            return err(loc, format!("the attribute '{name}' is not supported"));
        }
        let mut found = Attributes::default();
        match name {
            "packed" => found.packed = true,
            "aligned" if self.eat("(") => {
                let e = self.cond_expr()?;
                match const_eval(&e) {
                    Some(v) if v > 0 && v <= 1 << 28 && v.count_ones() == 1 => {
                        found.aligned = v as u64
                    }
                    _ => {
                        return err(
                            e.loc,
                            "the alignment of 'aligned' is not a constant power of 2",
                        )
                    }
                }
                self.expect(")")?;
                return Ok(found);
            }
            "aligned" => found.aligned = BIGGEST_ALIGNMENT,
            _ => {}
        }
        if self.eat("(") {
            self.skip_balanced()?;
        }
        Ok(found)
    }

    /// The name of an attribute (keywords too: `const`).
    fn attribute_name(&mut self) -> DResult<&'a str> {
        let Some(name) = self.peek().and_then(|t| t.ident()) else {
            let found = self.describe();
            return err(
                self.loc(),
                format!("expected an attribute but found {found}"),
            );
        };
        self.pos += 1;
        Ok(name)
    }

    /// Reads over tokens up to the `)` matching one just read.
    fn skip_balanced(&mut self) -> DResult<()> {
        let mut depth = 1;
        while depth > 0 {
            let Some(t) = self.peek() else {
                return err(self.loc(), "unterminated attribute");
            };
            if t.is("(") {
                depth += 1;
            } else if t.is(")") {
                depth -= 1;
            }
            self.pos += 1;
        }
        Ok(())
    }
}
