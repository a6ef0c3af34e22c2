//! Compile errors with source positions.

use std::fmt;

/// A position in a source file: file index (into the compiler's file table),
/// 1-based line and column.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    /// Index into the table of source files.
    pub file: u32,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

/// An error found while compiling: where, and what.
///
/// Displays as `file:line:col: error: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    /// The file name as given (or as included).
    pub file: String,
    /// 1-based line (0 when the error has no position).
    pub line: u32,
    /// 1-based column (0 when the error has no position).
    pub col: u32,
    /// What is wrong.
    pub message: String,
    /// The bound of [`crate::Limits`] the program went past, if that is
    /// what is wrong.
    pub exceeded: Option<Exceeded>,
}

/// A bound on the work or the memory of a compilation (see
/// [`crate::Limits`]) that a program went past.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Exceeded {
    /// More than [`crate::Limits::max_steps`] steps of compile-time work.
    #[error("the program needs more than {max} steps of compile-time work (statements and expressions lowered, loop iterations checked, gates made while probing loops); its loops run too often at compile time")]
    Steps {
        /// The limit.
        max: u64,
    },
    /// More than [`crate::Limits::max_memory`] bytes held while compiling.
    #[error("compiling the program would need more than --max-memory ({}) of memory (about {} held while lowering by gates, inputs, objects, kept loops' records and range tapes); make the loops keepable or the program smaller", twofold_circuit::size::show(*max), twofold_circuit::size::show(*held))]
    Memory {
        /// The limit, in bytes.
        max: u64,
        /// The bytes the compiler estimated it held when it stopped.
        held: u64,
    },
    /// More than [`crate::Limits::max_gates`] gates held while compiling.
    #[error("the program needs more than {max} gates while compiling; make the loops keepable or the program smaller")]
    Gates {
        /// The limit.
        max: u64,
    },
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: error: {}",
            self.file, self.line, self.col, self.message
        )
    }
}

impl std::error::Error for CompileError {}

/// An error before it is given its file name: a position and a message.
#[derive(Clone, Debug)]
pub struct Diag {
    /// Where.
    pub loc: Loc,
    /// What.
    pub message: String,
    /// The limit gone past, if that is the error.
    pub exceeded: Option<Exceeded>,
}

/// Result of the internal passes.
pub type DResult<T> = Result<T, Diag>;

/// Builds an internal error at `loc`.
pub fn err<T>(loc: Loc, message: impl Into<String>) -> DResult<T> {
    Err(diag(loc, message))
}

/// Builds the error of a limit gone past at `loc`.
pub fn exceeded<T>(loc: Loc, what: Exceeded) -> DResult<T> {
    Err(Diag {
        loc,
        message: what.to_string(),
        exceeded: Some(what),
    })
}

/// The message of a `_Static_assert` whose condition is zero.
pub(crate) fn static_assertion_failed(message: &str) -> String {
    match message {
        "" => "static assertion failed".to_string(),
        m => format!("static assertion failed: {m}"),
    }
}

/// Builds an internal error value at `loc`.
pub fn diag(loc: Loc, message: impl Into<String>) -> Diag {
    Diag {
        loc,
        message: message.into(),
        exceeded: None,
    }
}

impl Diag {
    /// Attaches the file name from `files`.
    pub fn into_error(self, files: &[String]) -> CompileError {
        CompileError {
            file: files
                .get(self.loc.file as usize)
                .cloned()
                .unwrap_or_else(|| "<input>".to_string()),
            line: self.loc.line,
            col: self.loc.col,
            message: shown(&self.message),
            exceeded: self.exceeded,
        }
    }
}

/// Longest word (a run of characters but blanks) a message shows whole.
const LONG_WORD: usize = 100;

/// Bytes of a longer word that a message shows (at most).
const WORD_START: usize = 60;

/// `message` as shown: each word longer than [`LONG_WORD`] bytes (a long
/// identifier or literal quoted whole) cut to its start and its length in
/// bytes, and control characters (a NUL in a literal) as `U+0000`.
fn shown(message: &str) -> String {
    use fmt::Write;
    let quote = |c: char| matches!(c, '\'' | '`' | '"');
    let after = |c: char| c.is_whitespace() || (c.is_ascii_punctuation() && c != '_');
    let mut out = String::new();
    for word in message.split_inclusive(char::is_whitespace) {
        let body = word.trim_start_matches(quote);
        let head = &word[..word.len() - body.len()];
        let body = body.trim_end_matches(after);
        let tail = &word[head.len() + body.len()..];
        let text = if body.len() > LONG_WORD {
            let end = (0..=WORD_START)
                .rev()
                .find(|&k| body.is_char_boundary(k))
                .unwrap_or(0);
            format!("{head}{}… ({} bytes){tail}", &body[..end], body.len())
        } else {
            word.to_string()
        };
        for c in text.chars() {
            if c.is_control() && c != '\n' {
                let _ = write!(out, "U+{:04X}", u32::from(c));
            } else {
                out.push(c);
            }
        }
    }
    out
}
