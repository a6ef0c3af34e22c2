//! Tokens spelled back as text: for `#`, `##` and `<header>` names, and
//! for what an `#error` says.

use crate::lexer::{Tok, Token};

/// The spelling of a token (for `#`, `##` and `<header>` names).
pub(super) fn spell(t: &Token) -> String {
    if let Some(text) = &t.text {
        return text.to_string();
    }
    match &t.tok {
        Tok::Ident(s) => s.clone(),
        Tok::Int(v, u, l, true) => format!(
            "{v}{}{}",
            if *u { "u" } else { "" },
            "l".repeat(*l as usize)
        ),
        Tok::Int(v, u, l, false) => format!(
            "{v:#x}{}{}",
            if *u { "u" } else { "" },
            "l".repeat(*l as usize)
        ),
        Tok::Char(c, _) => format!("{c}"),
        Tok::Str(s, _) => format!("{s:?}"),
        Tok::WideStr(v, bits, signed) => crate::lexer::spell_wide(v, *bits, *signed),
        Tok::Float(v, single) => {
            let bits = if *single { 32 } else { 64 };
            let f = if *single { "f" } else { "" };
            format!("{}{f}", crate::floats::format(*v, bits))
        }
        Tok::Punct(p) => p.to_string(),
        Tok::PpNumber(t) | Tok::Stray(t, _) => t.clone(),
    }
}

/// The string literal `#` makes of an argument's tokens, as gcc spells
/// it: a space where the argument had whitespace between tokens, and `\`
/// and `"` escaped inside string literals and character constants.
pub(super) fn stringify(toks: &[&Token]) -> String {
    let mut s = String::new();
    for (k, t) in toks.iter().enumerate() {
        if k > 0 && t.space_before {
            s.push(' ');
        }
        let text = spell(t);
        match t.tok {
            Tok::Str(..) | Tok::WideStr(..) | Tok::Char(..) => {
                for c in text.chars() {
                    if matches!(c, '\\' | '"') {
                        s.push('\\');
                    }
                    s.push(c);
                }
            }
            _ => s.push_str(&text),
        }
    }
    s
}

/// The text of an `#error` (its tokens as spelled, a space where one was),
/// shortened past [`MAX_MESSAGE`] characters.
pub(super) fn message(toks: &[Token]) -> String {
    let mut text = String::new();
    for t in toks {
        if t.space_before || text.is_empty() {
            text.push(' ');
        }
        text.push_str(&spell(t));
        if text.chars().count() > MAX_MESSAGE {
            let cut: String = text.chars().take(MAX_MESSAGE).collect();
            return format!("{cut}...");
        }
    }
    text
}

/// The most characters of an `#error`'s text an error shows.
const MAX_MESSAGE: usize = 200;
