//! Reading a source file: a bounded regular file, of UTF-8 text.

use std::path::Path;

use crate::error::{err, DResult, Loc};

/// Largest source file read, the main file or an included one (bytes).
pub const MAX_SOURCE_BYTES: u64 = 16 << 20;

/// Reads a source file: a regular file (not a device, a pipe or a
/// directory) of at most [`MAX_SOURCE_BYTES`]. The error says why not,
/// without quoting the file. [`utf8`] checks that the bytes are text.
pub fn read_source(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let regular = |m: std::fs::Metadata| {
        if !m.is_file() {
            Err("not a regular file".to_string())
        } else if m.len() > MAX_SOURCE_BYTES {
            Err(format!("larger than {MAX_SOURCE_BYTES} bytes"))
        } else {
            Ok(())
        }
    };
    // Checked before opening (opening a pipe blocks) and again on the open
    // file (the path may have changed in between).
    regular(std::fs::metadata(path).map_err(|e| e.to_string())?)?;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    regular(file.metadata().map_err(|e| e.to_string())?)?;
    let mut bytes = Vec::new();
    file.take(MAX_SOURCE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_SOURCE_BYTES {
        return Err(format!("larger than {MAX_SOURCE_BYTES} bytes"));
    }
    Ok(bytes)
}

/// `bytes` of source file `file` as text, or an error at the first byte
/// that is not UTF-8 (gcc reads such a file, but its strings would not
/// hold the bytes written).
pub fn utf8(bytes: Vec<u8>, file: u32) -> DResult<String> {
    String::from_utf8(bytes).or_else(|e| {
        let bad = e.utf8_error().valid_up_to();
        let before = &e.as_bytes()[..bad];
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |k| k + 1);
        let loc = Loc {
            file,
            line: before.iter().filter(|&&b| b == b'\n').count() as u32 + 1,
            col: (bad - line_start) as u32 + 1,
        };
        err(
            loc,
            format!(
                "the file is not UTF-8 text (byte 0x{:02x}); save it as UTF-8",
                e.as_bytes()[bad]
            ),
        )
    })
}
