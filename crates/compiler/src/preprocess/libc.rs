//! The C library functions twofold defines in C, in the headers that
//! declare them: `<string.h>`'s comparisons and copies of strings,
//! `<stdlib.h>`'s `div` and `atoi` and `<ctype.h>`'s classes. A program that defines a function of the same
//! name uses its own (see [`crate::library`]).
//!
//! A string function cannot stop at the terminating zero, which is a
//! secret: it goes over every byte up to the end of the object its
//! argument points into (`__twofold_elements_left(p)`, known while
//! compiling, in bytes for a `void *`; `__twofold_elements_left(p, n)` is
//! at most `n` where `n` is known), and what it returns or writes is selected by where the first
//! zero is. `memcmp` compares the bytes of any values (through `memcpy`).
//! Each returns what glibc's does (the comparisons the difference of the
//! first bytes that differ, as `unsigned char`). Names are reserved ones
//! (`__s`), so that a program's macros do not reach into the bodies, and
//! the functions call each other through `__twofold_` copies, so that a
//! program's own `strlen` does not change what `strcat` does.

use crate::lexer::{Tok, Token};

/// `<string.h>`'s functions.
pub(super) const STRING_FUNCTIONS: &str = "#ifndef __TWOFOLD_STRING
#define __TWOFOLD_STRING
static size_t __twofold_strlen(const char *__s)
{
    size_t __len = __twofold_elements_left(__s);
    for (size_t __i = __len; __i > 0; __i--)
        if (__s[__i - 1] == 0)
            __len = __i - 1;
    return __len;
}
static int __twofold_strncmp(const char *__a, const char *__b, size_t __n)
{
    const unsigned char *__p = (const unsigned char *)__a, *__q = (const unsigned char *)__b;
    size_t __la = __twofold_elements_left(__a), __lb = __twofold_elements_left(__b);
    int __r = 0;
    for (size_t __i = __la < __lb ? __la : __lb; __i > 0; __i--)
        if (__i <= __n && (__p[__i - 1] != __q[__i - 1] || __p[__i - 1] == 0))
            __r = __p[__i - 1] - __q[__i - 1];
    return __r;
}
static char *__twofold_strncat(char *__d, const char *__s, size_t __n)
{
    size_t __start = __twofold_strlen(__d), __ld = __twofold_elements_left(__d);
    size_t __ls = __twofold_elements_left(__s);
    _Bool __ended = 0;
    for (size_t __i = 0; __i <= __ls; __i++) {
        if (__i <= __n) {
            char __c = __i < __n && __i < __ls ? __s[__i] : 0;
            if (!__ended && __start + __i < __ld)
                __d[__start + __i] = __c;
            if (__c == 0)
                __ended = 1;
        }
    }
    return __d;
}
size_t strlen(const char *__s)
{
    return __twofold_strlen(__s);
}
size_t strnlen(const char *__s, size_t __n)
{
    size_t __len = __twofold_strlen(__s);
    return __len < __n ? __len : __n;
}
int memcmp(const void *__a, const void *__b, size_t __n)
{
    size_t __la = __twofold_elements_left(__a, __n), __lb = __twofold_elements_left(__b, __n);
    size_t __m = __la < __lb ? __la : __lb;
    unsigned char __p[__m + 1], __q[__m + 1];
    memcpy(__p, __a, __m);
    memcpy(__q, __b, __m);
    int __r = 0;
    for (size_t __i = __m; __i > 0; __i--)
        if (__i <= __n && __p[__i - 1] != __q[__i - 1])
            __r = __p[__i - 1] - __q[__i - 1];
    return __r;
}
int strncmp(const char *__a, const char *__b, size_t __n)
{
    return __twofold_strncmp(__a, __b, __n);
}
int strcmp(const char *__a, const char *__b)
{
    return __twofold_strncmp(__a, __b, __twofold_elements_left(__a));
}
char *strncpy(char *__d, const char *__s, size_t __n)
{
    size_t __ld = __twofold_elements_left(__d), __ls = __twofold_elements_left(__s);
    _Bool __ended = 0;
    for (size_t __i = 0; __i < __ld; __i++) {
        if (__i < __n) {
            char __c = __i < __ls ? __s[__i] : 0;
            __d[__i] = __ended ? 0 : __c;
            if (__c == 0)
                __ended = 1;
        }
    }
    return __d;
}
char *strcpy(char *__d, const char *__s)
{
    size_t __ld = __twofold_elements_left(__d), __ls = __twofold_elements_left(__s);
    _Bool __ended = 0;
    for (size_t __i = 0; __i < (__ld < __ls ? __ld : __ls); __i++) {
        char __c = __s[__i];
        if (!__ended)
            __d[__i] = __c;
        if (__c == 0)
            __ended = 1;
    }
    return __d;
}
char *strncat(char *__d, const char *__s, size_t __n)
{
    return __twofold_strncat(__d, __s, __n);
}
char *strcat(char *__d, const char *__s)
{
    return __twofold_strncat(__d, __s, __twofold_elements_left(__s));
}
#endif
";

/// `<stdlib.h>`'s `div` and its kin, and `atoi` and its kin (which read
/// the whole object, as the string functions do: leading white space, a
/// sign, then digits up to the first other character; wrapping as
/// glibc's `strtol` result converted does, short of its clamping).
pub(super) const STDLIB_FUNCTIONS: &str = "#ifndef __TWOFOLD_STDLIB_FUNCTIONS
#define __TWOFOLD_STDLIB_FUNCTIONS
static long long __twofold_atoll(const char *__s)
{
    size_t __n = __twofold_elements_left(__s);
    unsigned long long __v = 0;
    _Bool __neg = 0;
    int __state = 0;
    for (size_t __i = 0; __i < __n; __i++) {
        unsigned char __c = __s[__i];
        _Bool __digit = __c >= '0' && __c <= '9';
        if (__state == 0 && (__c == ' ' || (__c >= 9 && __c <= 13)))
            continue;
        if (__state == 0 && (__c == '-' || __c == '+')) {
            __neg = __c == '-';
            __state = 1;
        } else if (__state < 2 && __digit) {
            __v = __v * 10 + (__c - '0');
            __state = 1;
        } else {
            __state = 2;
        }
    }
    return (long long)(__neg ? 0 - __v : __v);
}
int atoi(const char *__s)
{
    return (int)__twofold_atoll(__s);
}
long atol(const char *__s)
{
    return __twofold_atoll(__s);
}
long long atoll(const char *__s)
{
    return __twofold_atoll(__s);
}
typedef struct { int quot; int rem; } div_t;
typedef struct { long quot; long rem; } ldiv_t;
typedef struct { long long quot; long long rem; } lldiv_t;
div_t div(int __n, int __d)
{
    div_t __r = { __n / __d, __n % __d };
    return __r;
}
ldiv_t ldiv(long __n, long __d)
{
    ldiv_t __r = { __n / __d, __n % __d };
    return __r;
}
lldiv_t lldiv(long long __n, long long __d)
{
    lldiv_t __r = { __n / __d, __n % __d };
    return __r;
}
#endif
";

/// `<ctype.h>`'s functions in the "C" locale, each returning what glibc's
/// macro does under gcc: a class's bit of glibc's table (`isdigit('7')` is
/// 2048), not 1.
pub(super) const CTYPE_FUNCTIONS: &str = "#ifndef __TWOFOLD_CTYPE
#define __TWOFOLD_CTYPE
int isupper(int __c) { return __c >= 'A' && __c <= 'Z' ? 256 : 0; }
int islower(int __c) { return __c >= 'a' && __c <= 'z' ? 512 : 0; }
int isalpha(int __c) { return (__c | 32) >= 'a' && (__c | 32) <= 'z' ? 1024 : 0; }
int isdigit(int __c) { return __c >= '0' && __c <= '9' ? 2048 : 0; }
int isxdigit(int __c)
{
    return (__c >= '0' && __c <= '9') || ((__c | 32) >= 'a' && (__c | 32) <= 'f') ? 4096 : 0;
}
int isspace(int __c) { return __c == ' ' || (__c >= 9 && __c <= 13) ? 8192 : 0; }
int isprint(int __c) { return __c >= 32 && __c <= 126 ? 16384 : 0; }
int isgraph(int __c) { return __c >= 33 && __c <= 126 ? 32768 : 0; }
int isblank(int __c) { return __c == ' ' || __c == 9 ? 1 : 0; }
int iscntrl(int __c) { return (__c >= 0 && __c <= 31) || __c == 127 ? 2 : 0; }
int ispunct(int __c)
{
    return __c >= 33 && __c <= 126 && !((__c | 32) >= 'a' && (__c | 32) <= 'z')
        && !(__c >= '0' && __c <= '9') ? 4 : 0;
}
int isalnum(int __c)
{
    return ((__c | 32) >= 'a' && (__c | 32) <= 'z') || (__c >= '0' && __c <= '9') ? 8 : 0;
}
int isascii(int __c) { return (__c & ~0x7f) == 0; }
int toascii(int __c) { return __c & 0x7f; }
int tolower(int __c) { return __c >= 'A' && __c <= 'Z' ? __c + 32 : __c; }
int toupper(int __c) { return __c >= 'a' && __c <= 'z' ? __c - 32 : __c; }
#endif
";

/// The functions of [`STRING_FUNCTIONS`] and [`STDLIB_FUNCTIONS`] a
/// program may call, with their headers. (Not [`CTYPE_FUNCTIONS`]: called
/// without `<ctype.h>`, gcc's built-in `isdigit` gives 1, not glibc's 2048.)
const CALLABLE: &[(&str, &str)] = &[
    ("strlen", "string.h"),
    ("strnlen", "string.h"),
    ("strcmp", "string.h"),
    ("strncmp", "string.h"),
    ("strcpy", "string.h"),
    ("strncpy", "string.h"),
    ("strcat", "string.h"),
    ("strncat", "string.h"),
    ("memcmp", "string.h"),
    ("div", "stdlib.h"),
    ("ldiv", "stdlib.h"),
    ("lldiv", "stdlib.h"),
    ("atoi", "stdlib.h"),
    ("atol", "stdlib.h"),
    ("atoll", "stdlib.h"),
];

/// The headers of this C library whose functions the program calls (also
/// as GCC's `__builtin_strlen`…) without including them: C lets a program
/// declare a library function itself, and GCC's built-ins need no header.
pub fn headers_called(toks: &[Token], files: &[String]) -> Vec<&'static str> {
    let mut wanted = Vec::new();
    for (t, next) in toks.iter().zip(toks.iter().skip(1)) {
        let (Tok::Ident(name), true) = (&t.tok, next.tok == Tok::Punct("(")) else {
            continue;
        };
        let name = name.strip_prefix("__builtin_").unwrap_or(name);
        let Some(&(_, header)) = CALLABLE.iter().find(|(f, _)| *f == name) else {
            continue;
        };
        let included = files.iter().any(|f| f.trim_matches(['<', '>']) == header);
        if !included && !wanted.contains(&header) {
            wanted.push(header);
        }
    }
    wanted
}
