//! More C front-end details found by comparing twofold with gcc on small
//! programs: attributes and `#pragma pack`, ...

mod common;

use common::{agree_with_gcc, compiled, error_of};

/// `packed` and `aligned(n)` on a struct (after `struct` or after its
/// members), `aligned` on a member, `#pragma pack` (`push`, `pop`, `()`)
/// lay structs out as gcc does: sizes, offsets, and the bytes a union
/// sees, bit-fields of a packed struct crossing their units included.
#[test]
fn packed_and_aligned_layouts() {
    let src = r#"
#include <stddef.h>
typedef struct { char c; int x; } T1 __attribute__((packed));
typedef struct __attribute__((packed)) { char c; int x; } T2;
struct __attribute__((packed, aligned(4))) S4 { char c; int x; };
struct S5 { char c; int x; } __attribute__((aligned(16)));
struct S6 { char c; int x __attribute__((aligned)); };
__attribute__((packed)) struct S7 { char c; int x; };
struct S8 { char c; struct S5 in; };
struct __attribute__((__packed__)) S9 { char c; struct S5 in; long long y; };
struct __attribute__((packed)) B { unsigned a : 3; unsigned b : 30; char c; unsigned d : 7; };
struct S11 { char c; int x; } __attribute__((packed)) v11;
#pragma pack(push, 1)
struct S12 { char c; int x; short y; };
#pragma pack(pop)
#pragma pack(2)
struct S13 { char c; int x; };
struct B2 { char c; unsigned a : 15; unsigned b : 20; };
#pragma pack()
struct S14 { char c; int x; };
union U { struct B b; unsigned char bytes[7]; };
int mpc_main(int INPUT_A, int INPUT_B)
{
    int r = sizeof(T1) + 3 * sizeof(T2) + 7 * sizeof(struct S4) + 11 * _Alignof(struct S4)
        + 13 * sizeof(struct S5) + 17 * sizeof(struct S6) + 19 * sizeof(struct S7)
        + 23 * sizeof(struct S8) + 29 * offsetof(struct S8, in) + 31 * sizeof(struct S9)
        + 37 * offsetof(struct S9, y) + 41 * sizeof(struct B) + 43 * sizeof(v11)
        + 47 * sizeof(struct S12) + 53 * sizeof(struct S13) + 59 * sizeof(struct S14)
        + 61 * sizeof(struct B2) + 67 * _Alignof(struct B2);
    union U u = {0};
    u.b.a = INPUT_A;
    u.b.b = INPUT_B;
    u.b.c = INPUT_A >> 3;
    u.b.d = INPUT_B >> 5;
    for (int i = 0; i < 7; i++)
        r = r * 3 + u.bytes[i];
    u.bytes[INPUT_A & 3] ^= 0xA5;
    return r + u.b.a * 5 + u.b.b + u.b.d * 7 + u.b.c;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 8, 1, "packed_and_aligned_layouts");
}

/// A `packed` enumeration has the narrowest type that holds its values.
#[test]
fn packed_enumerations() {
    let src = r#"
enum __attribute__((packed)) E1 { A1, B1, C1 };
enum E2 { A2 = -1, B2 = 100 } __attribute__((packed));
enum __attribute__((__packed__)) E3 { A3 = 300 };
enum E4 { A4 = -40000 } __attribute__((packed));
struct S { char c; enum E1 e; enum E3 f; };
int mpc_main(int INPUT_A, int INPUT_B)
{
    enum E1 e = INPUT_A;
    enum E2 f = INPUT_B;
    enum E3 g = INPUT_A * 100;
    return sizeof(enum E1) + 10 * sizeof(enum E2) + 100 * sizeof(enum E3)
        + 1000 * sizeof(enum E4) + 10000 * sizeof(struct S) + e * 3 + f * 5 + g + (e < 0) * 7;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 8, 2, "packed_enumerations");
}

/// Attributes that change nothing twofold computes are read wherever gcc
/// takes them: after a function's parameters, as a statement
/// (`fallthrough`), C23's `[[...]]`; those that would change a type in
/// ways twofold cannot follow are refused, not read over.
#[test]
fn attributes_where_gcc_takes_them() {
    let src = r#"
static int sq(int x) __attribute__((const)), cube(int x);
[[nodiscard]] static int sq(int x) { return x * x; }
static int cube(int x) { return x * x * x; }
void __attribute__((noreturn)) never(void);
int g __attribute__((unused)) = 3;
int mpc_main(int INPUT_A, int INPUT_B)
{
    int f(int) __attribute__((pure));
    [[maybe_unused]] int z = 0;
    __attribute__((unused)) int w = 1;
    int r = sq(INPUT_A) + cube(INPUT_B & 7) + g + w;
    switch (INPUT_A & 3) {
    case 0:
        r++;
        __attribute__((fallthrough));
    case 1:
        r += 2;
        [[fallthrough]];
    case 2:
        r *= 3;
        break;
    default:
        r -= 4;
    }
    return r;
}
"#;
    let p = compiled(src);
    agree_with_gcc(src, &[&p], 8, 3, "attributes_where_gcc_takes_them");
    for (attribute, src) in [
        ("aligned", "typedef int I16 __attribute__((aligned(16)));"),
        (
            "vector_size",
            "typedef int v4 __attribute__((vector_size(16)));",
        ),
        (
            "packed",
            "struct S { char c; int x __attribute__((packed)); };",
        ),
    ] {
        let e = error_of(&format!(
            "{src}\nint mpc_main(int INPUT_A, int INPUT_B) {{ return INPUT_A; }}\n"
        ));
        assert!(e.contains(&format!("the attribute '{attribute}'")), "{e}");
    }
}
