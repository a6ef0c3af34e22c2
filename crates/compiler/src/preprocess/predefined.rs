//! The macros defined before the first line, spelled as gcc spells them
//! for x86-64 Linux with C17, whose data model twofold's types follow
//! (`int` 32 bits, `long` and pointers 64, `char` signed, little-endian).
//! `__GNUC__` is not among them: code that sees it takes GNU paths
//! (inline assembly, GNU headers) twofold does not take.
//! (`__LINE__`, `__FILE__` and `__COUNTER__` are replaced where they are
//! expanded: see [`DYNAMIC`].)

use crate::lexer::{lex, Token};

/// Macros whose value changes from one use to the next: defined, but
/// made where they are expanded.
pub(super) const DYNAMIC: [&str; 3] = ["__LINE__", "__FILE__", "__COUNTER__"];

/// One `name replacement` a line, as `#define` reads it.
const DEFINITIONS: &str = "\
__STDC__ 1
__STDC_VERSION__ 201710L
__STDC_HOSTED__ 1
__CHAR_BIT__ 8
__SIZEOF_SHORT__ 2
__SIZEOF_INT__ 4
__SIZEOF_LONG__ 8
__SIZEOF_LONG_LONG__ 8
__SIZEOF_POINTER__ 8
__SIZEOF_SIZE_T__ 8
__SIZEOF_PTRDIFF_T__ 8
__SIZEOF_FLOAT__ 4
__SIZEOF_DOUBLE__ 8
__LP64__ 1
_LP64 1
__SCHAR_MAX__ 0x7f
__SHRT_MAX__ 0x7fff
__INT_MAX__ 0x7fffffff
__LONG_MAX__ 0x7fffffffffffffffL
__LONG_LONG_MAX__ 0x7fffffffffffffffLL
__SIZE_MAX__ 0xffffffffffffffffUL
__PTRDIFF_MAX__ 0x7fffffffffffffffL
__INTMAX_MAX__ 0x7fffffffffffffffL
__UINTMAX_MAX__ 0xffffffffffffffffUL
__INTPTR_MAX__ 0x7fffffffffffffffL
__UINTPTR_MAX__ 0xffffffffffffffffUL
__SCHAR_WIDTH__ 8
__SHRT_WIDTH__ 16
__INT_WIDTH__ 32
__LONG_WIDTH__ 64
__LONG_LONG_WIDTH__ 64
__PTRDIFF_WIDTH__ 64
__SIZE_WIDTH__ 64
__INTMAX_WIDTH__ 64
__INTPTR_WIDTH__ 64
__INT8_TYPE__ signed char
__INT16_TYPE__ short int
__INT32_TYPE__ int
__INT64_TYPE__ long int
__UINT8_TYPE__ unsigned char
__UINT16_TYPE__ short unsigned int
__UINT32_TYPE__ unsigned int
__UINT64_TYPE__ long unsigned int
__INTMAX_TYPE__ long int
__UINTMAX_TYPE__ long unsigned int
__INTPTR_TYPE__ long int
__UINTPTR_TYPE__ long unsigned int
__SIZE_TYPE__ long unsigned int
__PTRDIFF_TYPE__ long int
__INT8_MAX__ 0x7f
__INT16_MAX__ 0x7fff
__INT32_MAX__ 0x7fffffff
__INT64_MAX__ 0x7fffffffffffffffL
__UINT8_MAX__ 0xff
__UINT16_MAX__ 0xffff
__UINT32_MAX__ 0xffffffffU
__UINT64_MAX__ 0xffffffffffffffffUL
__ORDER_LITTLE_ENDIAN__ 1234
__ORDER_BIG_ENDIAN__ 4321
__ORDER_PDP_ENDIAN__ 3412
__BYTE_ORDER__ __ORDER_LITTLE_ENDIAN__
";

/// The predefined macros' `#define` lines, as tokens (of file `file`).
pub(super) fn definitions(file: u32) -> Vec<Vec<Token>> {
    let toks = lex(DEFINITIONS, file).expect("the predefined macros are tokens");
    let mut lines: Vec<Vec<Token>> = Vec::new();
    for t in toks {
        match lines.last_mut() {
            Some(line) if !t.line_start => line.push(t),
            _ => lines.push(vec![t]),
        }
    }
    lines
}
