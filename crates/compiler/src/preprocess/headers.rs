//! The standard headers the compiler provides (`stdint.h`, `limits.h`, ...),
//! so that compiling needs no system C library.

use super::libc::{STDLIB_FUNCTIONS, STRING_FUNCTIONS};

/// The standard headers the compiler provides itself, so that compiling
/// needs no system C library.
pub(super) fn builtin_header(name: &str) -> Option<String> {
    Some(match name {
        "string.h" => return Some(format!("{STDDEF}{STRING_FUNCTIONS}")),
        "stdlib.h" => return Some(format!("{STDLIB}{STDLIB_FUNCTIONS}")),
        "stdint.h" | "inttypes.h" => STDINT,
        "stdbool.h" => "#ifndef __TWOFOLD_STDBOOL\n#define __TWOFOLD_STDBOOL\n#define bool _Bool\n#define true 1\n#define false 0\n#define __bool_true_false_are_defined 1\n#endif\n",
        "stddef.h" => STDDEF,
        "limits.h" => LIMITS,
        "math.h" => MATH,
        "stdalign.h" => "#ifndef __TWOFOLD_STDALIGN\n#define __TWOFOLD_STDALIGN\n#define alignas _Alignas\n#define alignof _Alignof\n#define __alignas_is_defined 1\n#define __alignof_is_defined 1\n#endif\n",
        "uchar.h" => "#ifndef __TWOFOLD_UCHAR\n#define __TWOFOLD_UCHAR\n#include <stddef.h>\ntypedef unsigned short char16_t;\ntypedef unsigned int char32_t;\n#endif\n",
        // Included again, it follows `NDEBUG` anew, as C asks.
        "assert.h" => "#undef assert\n#ifdef NDEBUG\n#define assert(e) ((void)0)\n#else\n#define assert(e) __twofold_assert(e)\n#endif\n#ifndef static_assert\n#define static_assert _Static_assert\n#endif\n",
        "stdio.h" => "",
        _ => return None,
    }
    .to_string())
}

const STDINT: &str = "#ifndef __TWOFOLD_STDINT
#define __TWOFOLD_STDINT
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef signed char int_least8_t;
typedef short int_least16_t;
typedef int int_least32_t;
typedef long long int_least64_t;
typedef unsigned char uint_least8_t;
typedef unsigned short uint_least16_t;
typedef unsigned int uint_least32_t;
typedef unsigned long long uint_least64_t;
typedef signed char int_fast8_t;
typedef long int_fast16_t;
typedef long int_fast32_t;
typedef long long int_fast64_t;
typedef unsigned char uint_fast8_t;
typedef unsigned long uint_fast16_t;
typedef unsigned long uint_fast32_t;
typedef unsigned long long uint_fast64_t;
typedef long intptr_t;
typedef unsigned long uintptr_t;
typedef long long intmax_t;
typedef unsigned long long uintmax_t;
#define INT8_MIN (-128)
#define INT16_MIN (-32767-1)
#define INT32_MIN (-2147483647-1)
#define INT64_MIN (-9223372036854775807LL-1)
#define INT8_MAX 127
#define INT16_MAX 32767
#define INT32_MAX 2147483647
#define INT64_MAX 9223372036854775807LL
#define UINT8_MAX 255
#define UINT16_MAX 65535
#define UINT32_MAX 4294967295U
#define UINT64_MAX 18446744073709551615ULL
#define INT8_C(x) x
#define INT16_C(x) x
#define INT32_C(x) x
#define INT64_C(x) x ## LL
#define UINT8_C(x) x
#define UINT16_C(x) x
#define UINT32_C(x) x ## U
#define UINT64_C(x) x ## ULL
#define SIZE_MAX 18446744073709551615UL
#define INT_LEAST8_MIN INT8_MIN
#define INT_LEAST16_MIN INT16_MIN
#define INT_LEAST32_MIN INT32_MIN
#define INT_LEAST64_MIN INT64_MIN
#define INT_LEAST8_MAX INT8_MAX
#define INT_LEAST16_MAX INT16_MAX
#define INT_LEAST32_MAX INT32_MAX
#define INT_LEAST64_MAX INT64_MAX
#define UINT_LEAST8_MAX UINT8_MAX
#define UINT_LEAST16_MAX UINT16_MAX
#define UINT_LEAST32_MAX UINT32_MAX
#define UINT_LEAST64_MAX UINT64_MAX
#define INT_FAST8_MIN INT8_MIN
#define INT_FAST16_MIN (-9223372036854775807L-1)
#define INT_FAST32_MIN (-9223372036854775807L-1)
#define INT_FAST64_MIN INT64_MIN
#define INT_FAST8_MAX INT8_MAX
#define INT_FAST16_MAX 9223372036854775807L
#define INT_FAST32_MAX 9223372036854775807L
#define INT_FAST64_MAX INT64_MAX
#define UINT_FAST8_MAX UINT8_MAX
#define UINT_FAST16_MAX 18446744073709551615UL
#define UINT_FAST32_MAX 18446744073709551615UL
#define UINT_FAST64_MAX UINT64_MAX
#define INTPTR_MIN (-9223372036854775807L-1)
#define INTPTR_MAX 9223372036854775807L
#define UINTPTR_MAX 18446744073709551615UL
#define INTMAX_MIN INT64_MIN
#define INTMAX_MAX INT64_MAX
#define UINTMAX_MAX UINT64_MAX
#define INTMAX_C(x) x ## LL
#define UINTMAX_C(x) x ## ULL
#define PTRDIFF_MIN (-9223372036854775807L-1)
#define PTRDIFF_MAX 9223372036854775807L
#define SIG_ATOMIC_MIN INT32_MIN
#define SIG_ATOMIC_MAX INT32_MAX
#define WCHAR_MIN INT32_MIN
#define WCHAR_MAX INT32_MAX
#define WINT_MIN 0U
#define WINT_MAX UINT32_MAX
#endif
";

/// `<stddef.h>` (and `<string.h>`'s types; its functions are in [`super::libc`]),
/// as gcc's on x86-64.
const STDDEF: &str = "#ifndef __TWOFOLD_STDDEF
#define __TWOFOLD_STDDEF
typedef unsigned long size_t;
typedef long ptrdiff_t;
typedef int wchar_t;
#define NULL ((void*)0)
#define offsetof(type, member) __builtin_offsetof(type, member)
#endif
";

/// `<stdlib.h>`: `<stddef.h>`'s types and the constants.
const STDLIB: &str = "#include <stddef.h>
#ifndef __TWOFOLD_STDLIB
#define __TWOFOLD_STDLIB
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#define RAND_MAX 2147483647
#endif
";

/// `<math.h>`: the constants; its functions (`sqrt`, `fabs`, `floor`, ...)
/// are built into the lowering.
const MATH: &str = "#ifndef __TWOFOLD_MATH
#define __TWOFOLD_MATH
#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(\"\"))
#define HUGE_VALF (__builtin_inff())
#define HUGE_VAL (__builtin_huge_val())
#endif
";

const LIMITS: &str = "#ifndef __TWOFOLD_LIMITS
#define __TWOFOLD_LIMITS
#define CHAR_BIT 8
#define SCHAR_MIN (-128)
#define SCHAR_MAX 127
#define UCHAR_MAX 255
#define CHAR_MIN (-128)
#define CHAR_MAX 127
#define SHRT_MIN (-32768)
#define SHRT_MAX 32767
#define USHRT_MAX 65535
#define INT_MIN (-2147483647-1)
#define INT_MAX 2147483647
#define UINT_MAX 4294967295U
#define LONG_MIN (-9223372036854775807L-1)
#define LONG_MAX 9223372036854775807L
#define ULONG_MAX 18446744073709551615UL
#define LLONG_MIN (-9223372036854775807LL-1)
#define LLONG_MAX 9223372036854775807LL
#define ULLONG_MAX 18446744073709551615ULL
#define MB_LEN_MAX 16
#endif
";
