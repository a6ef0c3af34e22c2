//! The C library functions twofold defines in C, in the headers that
//! declare them: `<string.h>`'s comparisons and copies of strings and
//! `<stdlib.h>`'s `div`. A program that defines a function of the same
//! name uses its own (see [`crate::library`]).
//!
//! A string function cannot stop at the terminating zero, which is a
//! secret: it goes over every byte up to the end of the object its
//! argument points into (`__twofold_elements_left(p)`, known while
//! compiling, in bytes for a `void *`; `__twofold_elements_left(p, n)` is
//! at most `n` where `n` is known), and what it returns or writes is selected by where the first
//! zero is. `memcmp` compares the bytes of any values (through `memcpy`).
//! Each returns what glibc's does (the comparisons the difference of the
//! first bytes that differ, as `unsigned char`).

/// `<string.h>`'s functions.
pub(super) const STRING_FUNCTIONS: &str = "#ifndef __TWOFOLD_STRING
#define __TWOFOLD_STRING
size_t strlen(const char *s)
{
    size_t len = __twofold_elements_left(s);
    for (size_t i = len; i > 0; i--)
        if (s[i - 1] == 0)
            len = i - 1;
    return len;
}
size_t strnlen(const char *s, size_t n)
{
    size_t len = strlen(s);
    return len < n ? len : n;
}
int memcmp(const void *a, const void *b, size_t n)
{
    size_t la = __twofold_elements_left(a, n), lb = __twofold_elements_left(b, n);
    size_t m = la < lb ? la : lb;
    unsigned char p[m + 1], q[m + 1];
    memcpy(p, a, m);
    memcpy(q, b, m);
    int r = 0;
    for (size_t i = m; i > 0; i--)
        if (i <= n && p[i - 1] != q[i - 1])
            r = p[i - 1] - q[i - 1];
    return r;
}
int strncmp(const char *a, const char *b, size_t n)
{
    const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
    size_t la = __twofold_elements_left(a), lb = __twofold_elements_left(b);
    int r = 0;
    for (size_t i = la < lb ? la : lb; i > 0; i--)
        if (i <= n && (p[i - 1] != q[i - 1] || p[i - 1] == 0))
            r = p[i - 1] - q[i - 1];
    return r;
}
int strcmp(const char *a, const char *b)
{
    return strncmp(a, b, __twofold_elements_left(a));
}
char *strncpy(char *d, const char *s, size_t n)
{
    size_t ld = __twofold_elements_left(d), ls = __twofold_elements_left(s);
    _Bool ended = 0;
    for (size_t i = 0; i < ld; i++) {
        if (i < n) {
            char c = i < ls ? s[i] : 0;
            d[i] = ended ? 0 : c;
            if (c == 0)
                ended = 1;
        }
    }
    return d;
}
char *strcpy(char *d, const char *s)
{
    size_t ld = __twofold_elements_left(d), ls = __twofold_elements_left(s);
    _Bool ended = 0;
    for (size_t i = 0; i < (ld < ls ? ld : ls); i++) {
        char c = s[i];
        if (!ended)
            d[i] = c;
        if (c == 0)
            ended = 1;
    }
    return d;
}
char *strncat(char *d, const char *s, size_t n)
{
    size_t start = strlen(d), ld = __twofold_elements_left(d);
    size_t ls = __twofold_elements_left(s);
    _Bool ended = 0;
    for (size_t i = 0; i <= ls; i++) {
        if (i <= n) {
            char c = i < n && i < ls ? s[i] : 0;
            if (!ended && start + i < ld)
                d[start + i] = c;
            if (c == 0)
                ended = 1;
        }
    }
    return d;
}
char *strcat(char *d, const char *s)
{
    return strncat(d, s, __twofold_elements_left(s));
}
#endif
";

/// `<stdlib.h>`'s `div` and its kin.
pub(super) const STDLIB_FUNCTIONS: &str = "#ifndef __TWOFOLD_STDLIB_FUNCTIONS
#define __TWOFOLD_STDLIB_FUNCTIONS
typedef struct { int quot; int rem; } div_t;
typedef struct { long quot; long rem; } ldiv_t;
typedef struct { long long quot; long long rem; } lldiv_t;
div_t div(int n, int d)
{
    div_t r = { n / d, n % d };
    return r;
}
ldiv_t ldiv(long n, long d)
{
    ldiv_t r = { n / d, n % d };
    return r;
}
lldiv_t lldiv(long long n, long long d)
{
    lldiv_t r = { n / d, n % d };
    return r;
}
#endif
";
