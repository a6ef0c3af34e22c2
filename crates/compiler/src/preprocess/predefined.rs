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
__SIZEOF_INT128__ 16
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

/// GCC's floating-point classification built-ins, as macros (each
/// evaluates its operand once): what gcc gives on x86-64, where
/// `__builtin_isinf_sign` is -1 for -inf and `__builtin_signbit` of a
/// `float` its sign bit in place. (`__TWOFOLD_` names are helpers.)
const CLASSIFICATION: &str = "\
__TWOFOLD_ONCE(x, e) ({ __typeof__(x) __twofold_x = (x); e; })
__TWOFOLD_ABS_X (__twofold_x < 0 ? -__twofold_x : __twofold_x)
__TWOFOLD_MIN_X (sizeof __twofold_x == sizeof(float) ? 1.17549435082228750797e-38F : 2.22507385850720138309e-308)
__TWOFOLD_FINITE_X (__twofold_x - __twofold_x == 0)
__builtin_isnan(x) __TWOFOLD_ONCE(x, __twofold_x != __twofold_x)
__builtin_isinf(x) __TWOFOLD_ONCE(x, !__TWOFOLD_FINITE_X && __twofold_x == __twofold_x)
__builtin_isinf_sign(x) __TWOFOLD_ONCE(x, __twofold_x == __builtin_inff() ? 1 : __twofold_x == -__builtin_inff() ? -1 : 0)
__builtin_isfinite(x) __TWOFOLD_ONCE(x, __TWOFOLD_FINITE_X)
__builtin_isnormal(x) __TWOFOLD_ONCE(x, __TWOFOLD_FINITE_X && __TWOFOLD_ABS_X >= __TWOFOLD_MIN_X)
__builtin_fpclassify(nan, inf, normal, subnormal, zero, x) __TWOFOLD_ONCE(x, __twofold_x != __twofold_x ? (nan) : !__TWOFOLD_FINITE_X ? (inf) : __twofold_x == 0 ? (zero) : __TWOFOLD_ABS_X < __TWOFOLD_MIN_X ? (subnormal) : (normal))
__builtin_signbit(x) __TWOFOLD_ONCE(x, ({ union { float __f; double __d; unsigned int __w[2]; } __twofold_s; if (sizeof __twofold_x == sizeof(float)) __twofold_s.__f = __twofold_x; else __twofold_s.__d = __twofold_x; sizeof __twofold_x == sizeof(float) ? (int)(__twofold_s.__w[0] & 0x80000000u) : (int)(__twofold_s.__w[1] >> 31); }))
__builtin_isgreater(x, y) ((x) > (y))
__builtin_isgreaterequal(x, y) ((x) >= (y))
__builtin_isless(x, y) ((x) < (y))
__builtin_islessequal(x, y) ((x) <= (y))
__builtin_islessgreater(x, y) ((x) < (y) || (x) > (y))
__builtin_isunordered(x, y) (__builtin_isnan(x) || __builtin_isnan(y))
__builtin_assume_aligned(p, ...) ((void *)(p))
";

/// The predefined macros' `#define` lines, as tokens (of file `file`).
pub(super) fn definitions(file: u32) -> Vec<Vec<Token>> {
    let toks = lex(&format!("{DEFINITIONS}{CLASSIFICATION}"), file)
        .expect("the predefined macros are tokens");
    let mut lines: Vec<Vec<Token>> = Vec::new();
    for t in toks {
        match lines.last_mut() {
            Some(line) if !t.line_start => line.push(t),
            _ => lines.push(vec![t]),
        }
    }
    lines
}
