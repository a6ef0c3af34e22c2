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
}

/// Result of the internal passes.
pub type DResult<T> = Result<T, Diag>;

/// Builds an internal error at `loc`.
pub fn err<T>(loc: Loc, message: impl Into<String>) -> DResult<T> {
    Err(Diag {
        loc,
        message: message.into(),
    })
}

/// Builds an internal error value at `loc`.
pub fn diag(loc: Loc, message: impl Into<String>) -> Diag {
    Diag {
        loc,
        message: message.into(),
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
            message: self.message,
        }
    }
}
