//! `#line` directives and line markers: the lines that follow renumbered.

use crate::error::{err, DResult, Loc};
use crate::lexer::{Tok, Token};

/// `#line N` (or a line marker `# N "file"`) at `at`: the line after it is
/// line `N`, so the tokens that follow (`rest`) are renumbered; with a
/// file name, they are that file's (a new entry of `files`), for
/// `__FILE__` and messages, as gcc has them.
pub(super) fn renumber(
    rest: &mut [Token],
    number: &[Token],
    at: Loc,
    files: &mut Vec<String>,
) -> DResult<()> {
    let n = match number.first().map(|t| &t.tok) {
        Some(Tok::Int(n, false, 0, _)) if (1..=2147483647).contains(n) => *n as i64,
        _ => return err(at, "#line needs a line number from 1 to 2147483647"),
    };
    let delta = n - (i64::from(at.line) + 1);
    let file = match number.get(1).map(|t| &t.tok) {
        Some(Tok::Str(name, _)) => {
            files.push(name.clone());
            files.len() as u32 - 1
        }
        _ => at.file,
    };
    for t in rest.iter_mut().filter(|t| t.loc.file == at.file) {
        t.loc.line = (i64::from(t.loc.line) + delta).clamp(1, u32::MAX as i64) as u32;
        t.loc.file = file;
    }
    Ok(())
}
