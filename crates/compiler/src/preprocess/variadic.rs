//! The variable arguments in a variadic macro's body: C23's
//! `__VA_OPT__(...)` and GNU's `, ## __VA_ARGS__`.

use crate::error::{err, DResult, Loc};
use crate::lexer::Token;

/// Whether `t` is `__VA_OPT__`.
pub(super) fn is_va_opt(t: &Token) -> bool {
    t.ident() == Some("__VA_OPT__")
}

/// The tokens inside the parentheses of the `__VA_OPT__` at `body[k]`,
/// and the index after its `)` (`loc`: the macro's call).
pub(super) fn va_opt_group(body: &[Token], k: usize, loc: Loc) -> DResult<(&[Token], usize)> {
    if !body.get(k + 1).is_some_and(|t| t.is("(")) {
        return err(loc, "'__VA_OPT__' must be followed by '('");
    }
    let mut depth = 0;
    for (j, t) in body.iter().enumerate().skip(k + 1) {
        if t.is("(") {
            depth += 1;
        } else if t.is(")") {
            depth -= 1;
            if depth == 0 {
                return Ok((&body[k + 2..j], j + 1));
            }
        }
    }
    err(loc, "unterminated '__VA_OPT__'")
}

/// `body` without the `, ##` before each `__VA_ARGS__`: a call that
/// omits the variable arguments drops that comma, as GNU C does
/// (`f(fmt, ## __VA_ARGS__)`; a call with empty ones keeps it).
pub(super) fn without_comma_pastes(body: &[Token]) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::with_capacity(body.len());
    for t in body {
        let n = out.len();
        if t.ident() == Some("__VA_ARGS__") && n >= 2 && out[n - 1].is("##") && out[n - 2].is(",") {
            out.truncate(n - 2);
        }
        out.push(t.clone());
    }
    out
}
