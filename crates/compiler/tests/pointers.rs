//! Pointers at secret positions, each in a small program compared with
//! gcc on random inputs: offsets added, subtracted and added again, read
//! and written further on, walked down and up.

mod common;

use common::agree_with_gcc;
use twofold_compiler::{compile, CompileOptions};

fn agree(name: &str, src: &str, opts: &CompileOptions) {
    let p = compile(src, &format!("{name}.c"), opts).unwrap_or_else(|e| panic!("{e}"));
    agree_with_gcc(src, &[&p], 16, 7, name);
}

/// [`agree`] with loops kept and with every loop unrolled.
fn agree_kept_and_unrolled(name: &str, src: &str) {
    for loops in [true, false] {
        let opts = CompileOptions {
            loops,
            ..CompileOptions::default()
        };
        agree(name, src, &opts);
    }
}

/// A pointer moved by a secret offset, then read and written a constant
/// further on (`p = a + (x & 1); p[1]`): the positions tried for offsets
/// the index cannot take, past the array, are no error (they were
/// "access outside the object").
#[test]
fn pointers_at_secret_offsets_read_further_on() {
    let src = r#"
typedef struct { int s[5]; } Out;
Out mpc_main(int INPUT_A, int INPUT_B)
{
    Out o;
    int a[8] = { 1, 2, 3, INPUT_B, 5, 6, 7, 8 };
    int m[3][4] = { { 1, 2, 3, 4 }, { 5, 6, 7, 8 }, { 9, 10, 11, INPUT_A } };
    int *p = a + (INPUT_A & 1);
    int k = INPUT_B & 3;
    int *q = &a[k];
    if (k < 3)
        q[1] += INPUT_A;
    int *r = &m[INPUT_A & 1][INPUT_B & 3];
    r[4] = -r[4];
    o.s[0] = p[1] + *(p + 2);
    o.s[1] = a[0] + 10 * a[1] + 100 * a[2] + 1000 * a[3];
    o.s[2] = m[1][0] + m[1][1] + m[1][2] + m[1][3] + m[2][0] + m[2][1] + m[2][2] + m[2][3];
    p += 3;
    o.s[3] = p[-1] * p[3];
    o.s[4] = r[0] + r[1];
    return o;
}
"#;
    agree("secret_offsets", src, &CompileOptions::default());
}

/// A secret offset subtracted, a negative secret subscript, a second
/// secret offset on a pointer that has one, a record parser stepping by
/// secret lengths, and a pointer walked down below its public part: the
/// first three gave wrong values (an offset taken as non-negative, a
/// second one dropped), the last "pointer arithmetic leaves the object".
#[test]
fn secret_offsets_combine() {
    let src = r#"
typedef struct { int s[6]; } Out;
typedef struct { short a; short b[2]; } Rec;
Out mpc_main(int INPUT_A[8], int INPUT_B)
{
    Out o;
    int a[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    int x = INPUT_A[0], y = INPUT_B;
    int *q = a + 4 - (y & 3);
    o.s[0] = *q + (a + 4)[(y & 7) - 4] * 10;
    o.s[1] = *(a + (x & 3) + (y & 3)) + 100 * (a + (x & 1))[y & 3];
    const int *p = INPUT_A;
    int s = 0;
    for (int k = 0; k < 3; k++) {
        int len = p[0] & 1;
        s = s * 10 + (p[1 + len] & 7);
        p += 1 + len;
    }
    o.s[2] = s;
    int *r = a + 4 + (y & 3);
    while (r > a && *r > (x & 7))
        r--;
    o.s[3] = (int)(r - a);
    Rec recs[4] = { { 1, { 2, 3 } }, { 4, { 5, 6 } }, { 7, { 8, 9 } }, { 10, { 11, 12 } } };
    Rec *rp = recs + 3 - (x & 1);
    rp -= y & 1;
    rp->b[(x >> 1) & 1] += 100;
    o.s[4] = rp->a + recs[1].b[0] + recs[1].b[1] + recs[2].b[1];
    short *sp = &recs[0].b[0] + (y & 3) * 3;
    o.s[5] = sp[1] - *(sp - 1);
    return o;
}
"#;
    agree(
        "secret_offsets_combine",
        src,
        &CompileOptions {
            unwind: Some(8),
            ..CompileOptions::default()
        },
    );
}

/// `&a[n]`, the address one past the end (of an array, a row, or what a
/// pointer parameter points into), as loops' end pointers: it was "array
/// index is out of bounds" or "dereference outside the object".
#[test]
fn addresses_one_past_the_end() {
    let src = r#"
int total(const int *from, const int *to)
{
    int s = 0;
    for (const int *it = from; it != to; it++)
        s += *it;
    return s;
}
int mpc_main(int INPUT_A[4], int INPUT_B)
{
    int m[2][2] = { { 1, 2 }, { 3, INPUT_B } };
    int *end = &m[1][2];
    int s = 0;
    for (int *it = INPUT_A; it != &INPUT_A[4]; it++)
        s += *it;
    return s + (int)(end - &m[0][0]) * total(&m[0][0], end) + total(INPUT_A + 1, &INPUT_A[3]);
}
"#;
    agree("one_past_the_end", src, &CompileOptions::default());
}

/// Writes through a pointer under a secret loop bound (`p[t]` for `t <
/// k`, `k` secret, and a merge helper taking `int *a`): the iterations
/// past the array run on a path that may never run, as `a[t]` does; they
/// were "pointer dereference outside the object".
#[test]
fn pointer_writes_under_a_secret_bound() {
    let opts = CompileOptions {
        unwind: Some(12),
        ..CompileOptions::default()
    };
    agree(
        "bounded_writes",
        "int mpc_main(int INPUT_A, int INPUT_B)
{
    int a[4] = {0};
    int *p = a;
    int k = INPUT_A & 7;
    if (k > 4)
        k = 4;
    for (int t = 0; t < k; t++)
        p[t] = t + 1 + INPUT_B;
    return a[0] + a[1] * 10 + a[2] * 100 + a[3] * 1000;
}",
        &opts,
    );
    agree(
        "merge_helper",
        "static void merge(int *a, int lo, int mid, int hi)
{
    int tmp[8];
    int i = lo, j = mid, k = 0;
    while (i < mid && j < hi) {
        if (a[i] <= a[j]) tmp[k++] = a[i++];
        else tmp[k++] = a[j++];
    }
    while (i < mid) tmp[k++] = a[i++];
    while (j < hi) tmp[k++] = a[j++];
    for (int t = 0; t < k; t++) a[lo + t] = tmp[t];
}
int mpc_main(int INPUT_A, int INPUT_B)
{
    int a[8];
    for (int i = 0; i < 4; i++) {
        a[i] = (INPUT_A >> (8 * i) & 0x7f) + 128 * i;
        a[i + 4] = (INPUT_B >> (8 * i) & 0x7f) + 128 * i;
    }
    merge(a, 0, 4, 8);
    int h = 0;
    for (int i = 0; i < 8; i++) h = h * 3 + a[i];
    return h;
}",
        &opts,
    );
}

/// Pointers cast to `char *` may be passed on (`memcpy`), and arithmetic
/// on them over memory of another layout counts bytes, as gcc's does
/// (`(char *)&a[3] - (char *)&a[0]` is 12: it was refused, as leaves
/// would have counted 3).
#[test]
fn byte_pointers_are_passed_on_and_moved() {
    agree(
        "char_memcpy",
        "#include <string.h>
int mpc_main(int INPUT_A, int INPUT_B)
{
    int a[2] = {INPUT_A, INPUT_B}, b[2];
    memcpy((char *)b, (char *)a, sizeof b);
    unsigned char *view = (unsigned char *)b;
    return b[1] - b[0] + (view == (unsigned char *)b);
}",
        &CompileOptions::default(),
    );
    for (k, body) in [
        "return (char *)&a[3] - (char *)&a[0] + INPUT_A;",
        "char *p = (char *)a; p += 4; return *(int *)p;",
        "char *p = (char *)a + 4; return INPUT_A + (p != 0);",
    ]
    .into_iter()
    .enumerate()
    {
        let src = format!("int mpc_main(int INPUT_A, int INPUT_B)\n{{\n    int a[4] = {{0}};\n    a[1] = INPUT_A;\n    {body}\n}}\n");
        agree(&format!("char_moved_{k}"), &src, &CompileOptions::default());
    }
}

/// A pointer moved by a secret offset into an array member of a struct
/// (or into an array of structs), then read and written a constant
/// further on: the positions tried for offsets the index cannot take lie
/// past the array, in the members after it, of other types. Selecting
/// among words of two widths cut the value read to the narrower (a
/// `short` read as the `char` after its array: 2000 came back as -48),
/// and a write there cut the `int` after the array to 16 bits, though no
/// offset the program can take reaches it. Both kept and unrolled.
#[test]
fn secret_offsets_past_an_array_member_leave_the_members_after_it_alone() {
    let src = r#"
typedef struct { short m[4]; char c; int x; } S;
typedef struct { int v; char t; } R;
typedef struct { int s[8]; } Out;
Out mpc_main(S INPUT_A, unsigned INPUT_B)
{
    Out o;
    S a = INPUT_A;
    int k = INPUT_B % 3;
    short *w = a.m + k;
    o.s[0] = w[1];
    o.s[1] = *(w + 1) + w[0];
    w[1] = (short)(INPUT_B >> 8);
    o.s[2] = a.x;
    o.s[3] = a.c + a.m[0] + 3 * a.m[1] + 5 * a.m[2] + 7 * a.m[3];
    R r[4];
    for (int i = 0; i < 4; i++) {
        r[i].v = a.x * (i + 1);
        r[i].t = (char)(a.c + i);
    }
    R *p = r + k;
    o.s[4] = p[1].v;
    p[1].v = -p[1].v;
    o.s[5] = r[0].t + r[1].t + r[2].t + r[3].t;
    o.s[6] = r[1].v + r[2].v + r[3].v;
    o.s[7] = (p + 1)->t;
    return o;
}
"#;
    agree_kept_and_unrolled("past_a_member", src);
}

/// A pointer moved by a secret offset into an array member, then read and
/// written behind it (`r[-1]`) only where the offset allows: the position
/// the offset 0 would give lies in the member before the array, of
/// another type, and was refused ("a secret position in memory of another
/// layout ... cannot be viewed as bytes") though no run reaches it.
#[test]
fn secret_offsets_behind_an_array_member_are_read_where_they_allow() {
    let src = r#"
typedef struct { int x; short m[4]; char c; } S;
typedef struct { int s[5]; } Out;
Out mpc_main(S INPUT_A, unsigned INPUT_B)
{
    Out o = { { 0, 0, 0, 0, 0 } };
    S a = INPUT_A;
    int t = INPUT_B % 4;
    short *r = a.m + t;
    if (t > 0)
        o.s[0] = r[-1];
    if (t >= 2) {
        o.s[1] = r[-2] + *(r - 1);
        r[-2] = (short)(INPUT_B >> 4);
    }
    o.s[2] = a.x;
    o.s[3] = a.m[0] + 3 * a.m[1] + 5 * a.m[2] + 7 * a.m[3];
    o.s[4] = a.c;
    return o;
}
"#;
    agree_kept_and_unrolled("behind_a_member", src);
}
