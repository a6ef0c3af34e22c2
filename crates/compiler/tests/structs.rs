//! Structs, each in a small program compared with gcc on random inputs:
//! declarations before definitions, pointer members followed as lists and
//! trees, `offsetof`, struct values that are not lvalues.

mod common;

use common::agree_with_gcc;
use twofold_compiler::{compile, CompileOptions};

fn agree(name: &str, src: &str) {
    let p = compile(src, &format!("{name}.c"), &CompileOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    agree_with_gcc(src, &[&p], 16, 7, name);
}

/// A struct declared before its definition (`typedef struct Node Node;`,
/// `struct Pair;`) and pointer members to structs defined later or to
/// their own struct, followed as a linked list and a tree. Each was
/// "unknown or incomplete struct".
#[test]
fn structs_declared_before_their_definition() {
    let src = r#"
typedef struct Node Node;
struct Pair;
struct Node { int v; Node *next; struct Tree *unused; };
typedef struct Tree { int key; struct Tree *left, *right; } Tree;
struct Pair { Node a; struct Tree b; };
int sum(const Node *p) { int s = 0; while (p) { s += p->v; p = p->next; } return s; }
int weigh(Tree *t, int d)
{
    if (!t)
        return 0;
    return t->key * d + weigh(t->left, d + 1) + weigh(t->right, d + 1);
}
typedef struct { int s[4]; } Out;
Out mpc_main(int INPUT_A, int INPUT_B)
{
    Out o;
    Node n[4];
    for (int i = 0; i < 4; i++) {
        n[i].v = INPUT_A * i + INPUT_B;
        n[i].next = i < 3 ? &n[i + 1] : 0;
    }
    n[1].next = &n[3];
    Tree t[3] = { { INPUT_A, &t[1], &t[2] }, { INPUT_B, 0, 0 }, { 7, 0, 0 } };
    struct Pair p = { n[2], t[1] };
    o.s[0] = sum(n) + n[0].next->next->v;
    o.s[1] = weigh(&t[0], 1) + t[0].left->key;
    o.s[2] = p.a.v - p.b.key + (p.a.next == &n[3]);
    o.s[3] = sizeof(struct Pair) + sizeof(Node);
    return o;
}
"#;
    agree("forward_structs", src);
}

/// `offsetof` of `<stddef.h>`, with nested members and array indices in
/// its designator, in C's layout with padding. It was not defined.
#[test]
fn offsetof_gives_c_layout() {
    let src = r#"
#include <stddef.h>
struct In { char c; double d[3]; short s; };
typedef struct { char tag; struct In in[2]; long last; } Outer;
typedef struct { long o[6]; } Out;
Out mpc_main(int INPUT_A, int INPUT_B)
{
    Out o;
    o.o[0] = offsetof(struct In, d) + INPUT_A;
    o.o[1] = offsetof(struct In, s) * INPUT_B;
    o.o[2] = offsetof(Outer, in[1].d[2]);
    o.o[3] = offsetof(Outer, in) + offsetof(Outer, last);
    o.o[4] = offsetof(Outer, in[0].s) - offsetof(Outer, tag);
    o.o[5] = sizeof(offsetof(Outer, last)) + (offsetof(Outer, last) > INPUT_A);
    return o;
}
"#;
    agree("offsetof", src);
}

/// An array member of a struct value that is not an lvalue, as a call
/// returns it, indexed at public and secret positions (`make(a).v[i]`).
/// It was "subscripted value is not an array or pointer".
#[test]
fn array_members_of_returned_structs() {
    let src = r#"
typedef struct { int v[4]; char name[3]; } W;
W make(int a)
{
    W w;
    for (int i = 0; i < 4; i++)
        w.v[i] = a * (i + 1);
    w.name[0] = 'w'; w.name[1] = (char)a; w.name[2] = 0;
    return w;
}
typedef struct { int s[4]; } Out;
Out mpc_main(int INPUT_A, int INPUT_B)
{
    Out o;
    o.s[0] = make(INPUT_A).v[2] + make(INPUT_B).v[INPUT_A & 3];
    o.s[1] = make(3).name[1] + (INPUT_A > 0 ? make(INPUT_A) : make(INPUT_B)).v[1];
    o.s[2] = *make(INPUT_B).v + make(INPUT_A).v[INPUT_B & 1 ? 3 : 0];
    o.s[3] = make(INPUT_A).name[INPUT_B & 1];
    return o;
}
"#;
    agree("returned_struct_arrays", src);
}

/// C11 anonymous struct members: their members are the outer struct's,
/// in reads, writes, pointers, `offsetof` and layout (an anonymous member
/// keeps its own alignment). A tagged struct declared inside another
/// declares the tag only. It was "expected an identifier".
#[test]
fn anonymous_struct_members() {
    let src = r#"
#include <stddef.h>
typedef struct {
    char c;
    struct { char d; long e; };
    struct Tag { int unused; };
    struct { int lo, hi; struct { short x; }; };
    int mid;
} Range;
typedef struct { long v[6]; } Out;
Out mpc_main(int INPUT_A, int INPUT_B)
{
    Out o;
    Range r = { 1, { 2, INPUT_A }, { INPUT_B, 4, { 5 } }, 6 };
    Range *p = &r;
    p->hi += r.lo;
    r.x = (short)(INPUT_A * 3);
    struct Tag t = { INPUT_B };
    o.v[0] = r.c + r.d + r.e + r.lo + r.hi + r.x + r.mid + t.unused;
    o.v[1] = sizeof(Range);
    o.v[2] = offsetof(Range, e) + 100 * offsetof(Range, x);
    o.v[3] = offsetof(Range, mid);
    o.v[4] = (INPUT_A > INPUT_B ? r : *p).hi;
    o.v[5] = p->x * p->e;
    return o;
}
"#;
    agree("anonymous_members", src);
}

/// Nested designators (`.a.b = x`, `[2].y = x`, `.v[1] = x`) and
/// designators naming a member of an anonymous member (`.lo = x`): the
/// member is initialized as if its braces were elided from that item on,
/// so the items after it go on inside it (`{ .a.y = 1, 2 }` sets `a.z`),
/// then after it. All were refused ("nested designators are not
/// supported", "no member named"); a designated member filled by brace
/// elision (`{ .a = 1, 2, 3 }`, `{ [1] = 3, 4 }` of a 2-D array) hung
/// the compiler.
#[test]
fn nested_and_anonymous_designators() {
    let src = r#"
typedef struct { int x, y, z; } P;
typedef struct { P a; int v[3]; struct { int lo, hi; }; int w; } S;
typedef struct { S s[2]; P p[3]; int t; } Out;
Out mpc_main(int INPUT_A, int INPUT_B)
{
    S one = { .a.y = INPUT_A, INPUT_B, .v[1] = INPUT_A + 1, 7, .lo = INPUT_B, 9, 10 };
    S two = { .hi = INPUT_A, INPUT_B, .a = { 1, 2 }, .a.z = 3, .v = { 4 }, .v[2] = 5 };
    Out o = { { one, two }, { [2].y = INPUT_B, [0].x = 6, 7, 8, INPUT_A }, .t = 11 };
    S three = { .a = INPUT_A, 6, 7, INPUT_B };
    int grid[2][2] = { [1] = INPUT_B, 4 };
    o.t += three.a.y * three.a.z + three.v[0] + grid[1][0] * grid[1][1];
    return o;
}
"#;
    agree("nested_designators", src);
}

/// Tags are scoped as in C: a struct tag declared in a block (`struct U
/// *p;` before its definition there) is that block's type, not one of the
/// same tag defined in another function, and a list node's `next` points
/// to its own function's `struct Node`. Tags were one namespace for the
/// whole file: `p->x` read `f`'s layout (345 where gcc gives 435), and a
/// tag declared before its definition in a block was "incomplete".
#[test]
fn struct_tags_are_scoped() {
    let src = r#"
struct Node { int v; struct Node *next; };
int f(int a) { struct U { int x; int y; } u = {a, 1}; return u.x + u.y; }
int g(int a)
{
    struct Node { int pad; int v; struct Node *next; } n2 = {5, a, 0}, n1 = {7, 2 * a, &n2};
    int s = 0;
    for (struct Node *q = &n1; q; q = q->next)
        s = s * 3 + q->v + q->pad;
    return s;
}
int mpc_main(int INPUT_A, int INPUT_B)
{
    struct U *p;
    struct U { int y; int x; } v = {INPUT_B, INPUT_A};
    p = &v;
    struct Node b = {INPUT_B, 0}, a = {INPUT_A, &b};
    int s = 0;
    for (struct Node *q = &a; q; q = q->next)
        s = s * 5 + q->v;
    {
        struct U { int z; } w = {3};
        s += w.z;
    }
    return p->x * 10 + f(INPUT_B) + p->y * 100 + g(INPUT_A) + s;
}
"#;
    agree("tag_scopes", src);
}

/// A struct defined twice in one scope is an error, as in C.
#[test]
fn a_struct_defined_twice_in_a_scope_is_an_error() {
    let src = "struct P { int a; }; struct P { int b; };
int mpc_main(int INPUT_A, int INPUT_B) { return INPUT_A + INPUT_B; }";
    let e = compile(src, "twice.c", &CompileOptions::default()).unwrap_err();
    assert!(e.message.contains("redefinition of 'struct P'"), "{e}");
}

/// A pointer declared while its struct is incomplete (at file scope or
/// in a block, `struct V *gp;` before `struct V { ... }`) is a pointer to
/// the definition once it exists: for members, `sizeof(*p)` and pointer
/// arithmetic (its element size was 0: `gp + 1` read the first element).
/// `struct U;` alone in a block declares a new type there, hiding the
/// file's `struct U` (it took the file's layout: 4 where gcc gives 1).
#[test]
fn pointers_declared_before_their_struct_is_defined() {
    let src = r#"
typedef struct { int v[4]; } Arr;
typedef struct { int v[7]; } Out;
struct V *gp;
static int f(struct V *p);
struct V { int y; int a; };
static int f(struct V *p) { return p[1].a + (int)sizeof(*p); }
struct U { int a; int b; };
Out mpc_main(Arr INPUT_A, int INPUT_B)
{
    Out r = {{0}};
    struct V v[3];
    for (int i = 0; i < 3; i++) {
        v[i].y = INPUT_A.v[i];
        v[i].a = INPUT_B + i;
    }
    gp = v;
    r.v[0] = (gp + 1)->y;
    r.v[1] = gp[2].a;
    r.v[2] = (int)sizeof(*gp) + f(v);
    {
        struct U;
        struct U *p;
        struct U { int c; int a; int b; } u;
        u.c = INPUT_B;
        u.a = INPUT_A.v[0];
        u.b = INPUT_A.v[1];
        p = &u;
        r.v[3] = p->a;
        r.v[4] = p->b;
        r.v[5] = sizeof(*p);
        struct U w = *p;
        r.v[6] = w.c + (p + 0)->a;
    }
    return r;
}
"#;
    agree("fwd_pointers", src);
}
