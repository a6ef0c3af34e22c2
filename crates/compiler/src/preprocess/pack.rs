//! `#pragma pack` (or `_Pragma("pack(...)")`): the most alignment a struct
//! member takes from its type in the structs defined after it, as gcc has
//! it (`pack(n)`, `pack()`, `pack(push[, label][, n])`, `pack(pop[, label])`).
//! Other pragmas change nothing twofold computes.
//!
//! Where the value in effect changes, the preprocessor puts
//! [`PACK_MARKER`] and the new value (0: none) into its output, for the
//! parser to take out and follow (see `crate::parser::parse`).

use crate::error::{DResult, Loc};
use crate::lexer::{lex, Tok, Token};

/// The identifier that, followed by an integer constant, says where
/// `#pragma pack` changes the value in effect.
pub const PACK_MARKER: &str = "__twofold_pragma_pack";

/// The state of `#pragma pack`: the value in effect (0: none) and those
/// pushed, each with its label.
#[derive(Default)]
pub(super) struct Packing {
    current: u64,
    pushed: Vec<(Option<String>, u64)>,
}

impl Packing {
    /// Follows `#pragma pack` with `args`, the tokens after `pack` (at
    /// `loc`): the marker tokens of the value in effect after it. A
    /// malformed one (`pack(3)`, `pack` alone) changes nothing, as gcc
    /// warns and reads over it.
    pub(super) fn pragma(&mut self, args: &[Token], loc: Loc) -> Vec<Token> {
        let ignored = Vec::new;
        let [first, items @ .., last] = args else {
            return ignored();
        };
        if !first.is("(") || !last.is(")") {
            return ignored();
        }
        let mut words = Vec::new();
        for (k, t) in items.iter().enumerate() {
            match (k % 2, &t.tok) {
                (1, _) if t.is(",") => {}
                (0, Tok::Ident(w)) => words.push(Err(w.as_str())),
                (0, Tok::Int(n, ..)) if matches!(n, 0 | 1 | 2 | 4 | 8 | 16) => words.push(Ok(*n)),
                _ => return ignored(),
            }
        }
        match words.as_slice() {
            [] => self.current = 0,
            [Ok(n)] => self.current = *n,
            [Err("show")] => {}
            [Err("push"), rest @ ..] => {
                let (label, n) = match rest {
                    [] => (None, None),
                    [Ok(n)] => (None, Some(*n)),
                    [Err(l)] => (Some(l.to_string()), None),
                    [Err(l), Ok(n)] => (Some(l.to_string()), Some(*n)),
                    _ => return ignored(),
                };
                self.pushed.push((label, self.current));
                self.current = n.unwrap_or(self.current);
            }
            [Err("pop"), rest @ ..] => {
                let label = match rest {
                    [] => None,
                    [Err(l)] => Some(*l),
                    _ => return ignored(),
                };
                // As gcc: a label not pushed pops nothing; nothing pushed
                // leaves the value as it is.
                let at = match label {
                    None => self.pushed.len().checked_sub(1),
                    Some(l) => self
                        .pushed
                        .iter()
                        .rposition(|(p, _)| p.as_deref() == Some(l)),
                };
                if let Some(at) = at {
                    self.current = self.pushed[at].1;
                    self.pushed.truncate(at);
                }
            }
            _ => return ignored(),
        }
        let token = |tok| Token {
            tok,
            loc,
            line_start: false,
            space_before: true,
            text: None,
        };
        vec![
            token(Tok::Ident(PACK_MARKER.to_string())),
            token(Tok::Int(self.current, false, 0, true)),
        ]
    }

    /// Takes the operators `_Pragma ( "..." )` out of `toks`, following
    /// those of `pack` (in their place, the marker tokens).
    pub(super) fn pragma_operators(&mut self, toks: &mut Vec<Token>) -> DResult<()> {
        let pragma = |w: &[Token]| {
            w[0].ident() == Some("_Pragma")
                && w[1].is("(")
                && matches!(w[2].tok, Tok::Str(..))
                && w[3].is(")")
        };
        if !toks.windows(4).any(pragma) {
            return Ok(());
        }
        let mut kept = Vec::with_capacity(toks.len());
        let mut k = 0;
        while k < toks.len() {
            if toks.len() - k < 4 || !pragma(&toks[k..k + 4]) {
                kept.push(toks[k].clone());
                k += 1;
                continue;
            }
            if let Tok::Str(text, _) = &toks[k + 2].tok {
                let loc = toks[k].loc;
                let words = lex(text, loc.file)?;
                if words.first().is_some_and(|t| t.ident() == Some("pack")) {
                    kept.extend(self.pragma(&words[1..], loc));
                }
            }
            k += 4;
        }
        *toks = kept;
        Ok(())
    }
}
