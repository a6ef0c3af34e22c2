//! The standard headers the compiler provides (`stdint.h`, `limits.h`, ...),
//! so that compiling needs no system C library.

use super::libc::{CTYPE_FUNCTIONS, STDLIB_FUNCTIONS, STRING_FUNCTIONS};

/// The standard headers the compiler provides itself, so that compiling
/// needs no system C library.
pub(super) fn builtin_header(name: &str) -> Option<String> {
    Some(match name {
        "string.h" => return Some(format!("{STDDEF}{STRING_FUNCTIONS}")),
        "stdlib.h" => return Some(format!("{STDLIB}{STDLIB_FUNCTIONS}")),
        "ctype.h" => CTYPE_FUNCTIONS,
        "float.h" => FLOAT,
        "iso646.h" => ISO646,
        "stdint.h" | "inttypes.h" => STDINT,
        "stdbool.h" => "#ifndef __TWOFOLD_STDBOOL\n#define __TWOFOLD_STDBOOL\n#define bool _Bool\n#define true 1\n#define false 0\n#define __bool_true_false_are_defined 1\n#endif\n",
        "stddef.h" => STDDEF,
        "limits.h" => LIMITS,
        "math.h" => MATH,
        "stdalign.h" => "#ifndef __TWOFOLD_STDALIGN\n#define __TWOFOLD_STDALIGN\n#define alignas _Alignas\n#define alignof _Alignof\n#define __alignas_is_defined 1\n#define __alignof_is_defined 1\n#endif\n",
        "uchar.h" => "#ifndef __TWOFOLD_UCHAR\n#define __TWOFOLD_UCHAR\n#include <stddef.h>\ntypedef unsigned short char16_t;\ntypedef unsigned int char32_t;\n#endif\n",
        // Included again, it follows `NDEBUG` anew, as C asks.
        "assert.h" => "#undef assert\n#ifdef NDEBUG\n#define assert(e) ((void)0)\n#else\n#define assert(e) __twofold_assert(e)\n#endif\n#ifndef static_assert\n#define static_assert _Static_assert\n#endif\n",
        "stdio.h" | "stdnoreturn.h" => "",
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
void qsort(void *__base, size_t __n, size_t __size, int (*__compare)(const void *, const void *));
#endif
";

/// `<math.h>`: the constants (glibc's `M_PI` and kin too, as gcc's
/// default GNU mode has them) and the classification macros, as glibc's:
/// gcc's built-ins (see `super::predefined`); its functions (`sqrt`,
/// `fabs`, `floor`, ...) are built into the lowering.
const MATH: &str = "#ifndef __TWOFOLD_MATH
#define __TWOFOLD_MATH
#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(\"\"))
#define HUGE_VALF (__builtin_inff())
#define HUGE_VAL (__builtin_huge_val())
#define MAXFLOAT 3.40282347e+38F
#define FP_NAN 0
#define FP_INFINITE 1
#define FP_ZERO 2
#define FP_SUBNORMAL 3
#define FP_NORMAL 4
#define isnan(x) __builtin_isnan(x)
#define isinf(x) __builtin_isinf_sign(x)
#define isfinite(x) __builtin_isfinite(x)
#define isnormal(x) __builtin_isnormal(x)
#define fpclassify(x) __builtin_fpclassify(FP_NAN, FP_INFINITE, FP_NORMAL, FP_SUBNORMAL, FP_ZERO, x)
#define signbit(x) __builtin_signbit(x)
#define isgreater(x, y) __builtin_isgreater(x, y)
#define isgreaterequal(x, y) __builtin_isgreaterequal(x, y)
#define isless(x, y) __builtin_isless(x, y)
#define islessequal(x, y) __builtin_islessequal(x, y)
#define islessgreater(x, y) __builtin_islessgreater(x, y)
#define isunordered(x, y) __builtin_isunordered(x, y)
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#endif
";

/// `<float.h>`, as gcc's on x86-64 (`long double`'s limits are `long
/// double` constants, which twofold refuses where they are used).
const FLOAT: &str = "#ifndef __TWOFOLD_FLOAT
#define __TWOFOLD_FLOAT
#define FLT_RADIX 2
#define FLT_ROUNDS 1
#define FLT_EVAL_METHOD 0
#define DECIMAL_DIG 21
#define FLT_MANT_DIG 24
#define DBL_MANT_DIG 53
#define LDBL_MANT_DIG 64
#define FLT_DIG 6
#define DBL_DIG 15
#define LDBL_DIG 18
#define FLT_DECIMAL_DIG 9
#define DBL_DECIMAL_DIG 17
#define LDBL_DECIMAL_DIG 21
#define FLT_MIN_EXP (-125)
#define DBL_MIN_EXP (-1021)
#define LDBL_MIN_EXP (-16381)
#define FLT_MIN_10_EXP (-37)
#define DBL_MIN_10_EXP (-307)
#define LDBL_MIN_10_EXP (-4931)
#define FLT_MAX_EXP 128
#define DBL_MAX_EXP 1024
#define LDBL_MAX_EXP 16384
#define FLT_MAX_10_EXP 38
#define DBL_MAX_10_EXP 308
#define LDBL_MAX_10_EXP 4932
#define FLT_HAS_SUBNORM 1
#define DBL_HAS_SUBNORM 1
#define LDBL_HAS_SUBNORM 1
#define FLT_MAX 3.40282346638528859811704183484516925e+38F
#define DBL_MAX ((double)1.79769313486231570814527423731704357e+308)
#define LDBL_MAX 1.18973149535723176502126385303097021e+4932L
#define FLT_MIN 1.17549435082228750796873653722224568e-38F
#define DBL_MIN ((double)2.22507385850720138309023271733240406e-308)
#define LDBL_MIN 3.36210314311209350626267781732175260e-4932L
#define FLT_EPSILON 1.19209289550781250000000000000000000e-7F
#define DBL_EPSILON ((double)2.22044604925031308084726333618164062e-16)
#define LDBL_EPSILON 1.08420217248550443400745280086994171e-19L
#define FLT_TRUE_MIN 1.40129846432481707092372958328991613e-45F
#define DBL_TRUE_MIN ((double)4.94065645841246544176568792868221372e-324)
#define LDBL_TRUE_MIN 3.64519953188247460252840593361941982e-4951L
#endif
";

/// `<iso646.h>`: the operators' alternative spellings.
const ISO646: &str = "#ifndef __TWOFOLD_ISO646
#define __TWOFOLD_ISO646
#define and &&
#define and_eq &=
#define bitand &
#define bitor |
#define compl ~
#define not !
#define not_eq !=
#define or ||
#define or_eq |=
#define xor ^
#define xor_eq ^=
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
