//! Comparisons and selections of sums that share rows (`x + 1 < y + 1`,
//! the lesser of `x + 1` and `y + 1`): leaving the common rows out must
//! give gcc's answers at the edges of every integer type, where a side may
//! wrap and the rows must stay, and must save the adders where it may.

mod common;

use common::{agree_with_gcc, agree_with_gcc_on};
use rand::{Rng, SeedableRng};
use twofold_compiler::{compile, CompileOptions};

/// Every integer type, with its width and signedness.
const TYPES: [(&str, u32, bool); 8] = [
    ("uint8_t", 8, false),
    ("int8_t", 8, true),
    ("uint16_t", 16, false),
    ("int16_t", 16, true),
    ("uint32_t", 32, false),
    ("int32_t", 32, true),
    ("uint64_t", 64, false),
    ("int64_t", 64, true),
];

/// Comparisons and extremes of sums with rows in common, on values of
/// type `t`: the full range (`x`, `y`; halved where signed, so that no
/// signed sum overflows) and narrow values (`n`, `m`, `c`), whose sums
/// fit the type.
fn program(t: &str, signed: bool) -> String {
    let full = if signed { " >> 2" } else { "" };
    format!(
        r#"#include <stdint.h>
typedef struct {{ int lt, le, gt, ge, eq, ne, nlt; {t} lo, hi, wide, twice; }} Out;
Out mpc_main({t} INPUT_A, {t} INPUT_B)
{{
    {t} x = INPUT_A{full}, y = INPUT_B{full};
    {t} n = INPUT_A & 0x3fff, m = INPUT_B & 0x3fff;
    {t} c = (INPUT_A ^ INPUT_B) & 0xff;
    Out o;
    o.lt = x + 1 < y + 1;
    o.le = n + c <= m + c;
    o.gt = c + n - 3 > m - 3 + c;
    o.ge = x + c >= c + y;
    o.eq = x + 5 == y + 5;
    o.ne = n * 2 + c != m + c;
    o.nlt = n + 1 < m + 1;
    {t} d = n + 1, e = m + 1;
    o.lo = d < e ? d : e;
    o.hi = x + 2 > y + 2 ? x + 2 : y + 2;
    o.wide = n + 1 > m + 1 ? n + 1 : m + 1;
    o.twice = (d > e ? d : e) + d;
    return o;
}}
"#
    )
}

/// Values at the edges of a `w`-bit type (and of the narrow values'
/// masks), and some at random, as C initializers.
fn edge_values(w: u32, signed: bool, rng: &mut impl Rng) -> Vec<String> {
    let (lo, hi) = if signed {
        (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
    } else {
        (0, (1i128 << w) - 1)
    };
    let mut values = vec![lo, lo + 1, -2, -1, 0, 1, 2, 254, 255, 256, 0x3fff, 0x4000];
    values.extend([hi - 1, hi]);
    values.extend((0..4).map(|_| rng.gen_range(lo..=hi)));
    values.retain(|v| (lo..=hi).contains(v));
    values.iter().map(|v| v.to_string()).collect()
}

#[test]
fn comparisons_and_extremes_of_sums_with_common_rows_agree_with_gcc() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(2811);
    for (k, &(t, w, signed)) in TYPES.iter().enumerate() {
        let src = program(t, signed);
        let name = format!("sums_{t}.c");
        let p = compile(&src, &name, &CompileOptions::default())
            .unwrap_or_else(|e| panic!("{e}\n{src}"));
        let values = edge_values(w, signed, &mut rng);
        let sets: Vec<Vec<String>> = values
            .iter()
            .flat_map(|a| values.iter().map(move |b| vec![a.clone(), b.clone()]))
            .filter(|_| rng.gen_bool(0.3))
            .collect();
        assert!(sets.len() > 20, "{t}: {} input sets", sets.len());
        agree_with_gcc_on(&src, &[&p], &sets, &format!("sums{k}"));
    }
}

/// The AND gates of the program returning `expr` of two bytes widened to
/// `int` (`a`, `b`).
fn and_gates(expr: &str) -> u64 {
    let src = format!(
        "#include <stdint.h>\n\
         int mpc_main(uint8_t INPUT_A, uint8_t INPUT_B) {{\n\
         \x20   int a = INPUT_A, b = INPUT_B;\n\
         \x20   int del = a + 1, ins = b + 1;\n\
         \x20   return {expr};\n\
         }}\n"
    );
    let p = compile(&src, "extreme.c", &CompileOptions::default())
        .unwrap_or_else(|e| panic!("{e}\n{src}"));
    p.program.and_count()
}

/// The lesser of `a + 1` and `b + 1` (a DP cell's `min(del, ins)`) costs
/// what the lesser of `a` and `b`, plus 1, does: neither sum is reduced to
/// compare or select them, only the result where it is read.
#[test]
fn the_lesser_of_two_sums_with_a_common_row_reduces_only_the_result() {
    let lesser_of_sums = and_gates("del < ins ? del : ins");
    let lesser_plus_one = and_gates("(a < b ? a : b) + 1");
    assert_eq!(lesser_of_sums, lesser_plus_one);
    assert_eq!(and_gates("del < ins"), and_gates("a < b"));
}

/// How the sum `t` of [`two_readers`] is written.
#[derive(Clone, Copy)]
enum Written {
    /// Stored in a variable at once.
    Stored,
    /// Stored, then added to (`t += ...`).
    AddedTo,
    /// Written out in each reader.
    Inlined,
}

/// A program in which the sum `t` (four words) goes into two later sums.
fn two_readers(written: Written) -> String {
    let (t, decl) = match written {
        Written::Stored => ("t", "    uint32_t t = a + b + p + q;\n"),
        Written::AddedTo => ("t", "    uint32_t t = a + b;\n    t += p + q;\n"),
        Written::Inlined => ("(a + b + p + q)", ""),
    };
    format!(
        "#include <stdint.h>\n\
         typedef struct {{ uint32_t x, y; }} Out;\n\
         Out mpc_main(uint32_t INPUT_A, uint32_t INPUT_B)\n\
         {{\n\
         \x20   uint32_t a = INPUT_A, b = INPUT_B;\n\
         \x20   uint32_t p = a ^ b;\n\
         \x20   uint32_t q = a & b;\n\
         {decl}\
         \x20   Out o;\n\
         \x20   o.x = (a | b) + {t};\n\
         \x20   o.y = {t} - (a >> 3);\n\
         \x20   return o;\n\
         }}\n"
    )
}

/// A sum stored in a variable that two later sums read is reduced once,
/// where it is stored (or last added to): each reader then adds one word,
/// not its four (the inlined form reduces five words twice). All agree
/// with gcc.
#[test]
fn a_sum_that_two_sums_read_is_reduced_once_where_it_is_stored() {
    let compiled = |written| {
        let src = two_readers(written);
        let p = compile(&src, "two_readers.c", &CompileOptions::default())
            .unwrap_or_else(|e| panic!("{e}\n{src}"));
        (src, p)
    };
    let (src, shared) = compiled(Written::Stored);
    let (added_src, added) = compiled(Written::AddedTo);
    let (_, inlined) = compiled(Written::Inlined);
    let (s, i) = (shared.program.and_count(), inlined.program.and_count());
    // `t = a + b; t += p + q;`: reduced once, where it is added to (the
    // first store is read once, by the `+=`).
    assert_eq!(added.program.and_count(), s);
    // Both: `a & b` and `a | b`, 32 AND gates each. Shared: t's two
    // carry-save rows and carry chain, then one carry chain per reader;
    // inlined (as reducing t at its second reader was): two sums of five
    // words, or two rows of 32 bits more.
    assert!(s <= 64 + 5 * 32, "shared: {s} AND gates");
    assert!(i >= s + 2 * 32, "shared {s} AND gates, inlined {i}");
    agree_with_gcc(&src, &[&shared], 40, 77, "two_readers");
    agree_with_gcc(&added_src, &[&added], 40, 78, "two_readers_added");
}

/// A running total stored every step, `s += x[i]; out[i] = s;`, over `n`
/// values of type `t` (narrowed by a mask where `masked`), with the total's
/// outputs read in the order given.
fn running_total(n: usize, t: &str, masked: bool, reversed: bool) -> String {
    let x = if masked {
        "(INPUT_A.v[i] ^ INPUT_B.v[i]) & 0x7ff"
    } else {
        "INPUT_A.v[i] ^ INPUT_B.v[i]"
    };
    let order = if reversed { "n - 1 - i" } else { "i" };
    format!(
        "#include <stdint.h>\n\
         #define N {n}\n\
         typedef struct {{ {t} v[N]; }} Arr;\n\
         Arr mpc_main(Arr INPUT_A, Arr INPUT_B)\n\
         {{\n\
         \x20   Arr sums, out;\n\
         \x20   {t} s = 0;\n\
         \x20   int n = N;\n\
         \x20   for (int i = 0; i < N; i++) {{ s += {x}; sums.v[i] = s; }}\n\
         \x20   for (int i = 0; i < N; i++) out.v[i] = sums.v[{order}] - (s >> 3);\n\
         \x20   return out;\n\
         }}\n"
    )
}

/// A running total stored every step costs one adder a step, whatever
/// order its stored values are read in and however many steps there are
/// (past the rows a lazy sum collects before it is reduced): each stored
/// sum adds its row to the one before, not all rows so far (a 4,096-step
/// total of `uint32_t` took 4.7 M AND gates). All agree with gcc.
#[test]
fn a_running_total_stored_every_step_costs_one_adder_a_step() {
    for (n, t, w, masked, reversed, seed) in [
        (600, "uint32_t", 32, false, false, 1),
        (600, "uint32_t", 32, false, true, 2),
        (300, "int16_t", 16, true, false, 3),
        (40, "uint64_t", 64, false, true, 4),
    ] {
        let src = running_total(n, t, masked, reversed);
        let p = compile(&src, "running_total.c", &CompileOptions::default())
            .unwrap_or_else(|e| panic!("{e}\n{src}"));
        // One adder of `w` bits a step, and each output's subtraction
        // (at `int`'s width at least).
        let out = w.max(32) as u64;
        let most = (n as u64) * (w as u64 + out) + 2 * out;
        let ands = p.program.and_count();
        assert!(ands <= most, "{n} x {t}: {ands} AND gates, at most {most}");
        agree_with_gcc(&src, &[&p], 6, seed, "running_total");
    }
}

/// Recurrences whose values are stored every step and read by later
/// steps and by the outputs: `s[i] = x[i] + s[i-1] + s[i-2]` and an
/// integral image, `s[i][j] = x + s[i-1][j] + s[i][j-1] - s[i-1][j-1]`.
fn recurrence(integral: bool) -> String {
    let (shape, body) = if integral {
        (
            "[N][N]",
            "for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) {\n\
             \x20       uint32_t v = INPUT_A.v[i][j] ^ INPUT_B.v[i][j];\n\
             \x20       if (i > 0) v += s.v[i - 1][j];\n\
             \x20       if (j > 0) v += s.v[i][j - 1];\n\
             \x20       if (i > 0 && j > 0) v -= s.v[i - 1][j - 1];\n\
             \x20       s.v[i][j] = v;\n\
             \x20   }",
        )
    } else {
        (
            "[N]",
            "for (int i = 0; i < N; i++) {\n\
             \x20       uint32_t v = INPUT_A.v[i] ^ INPUT_B.v[i];\n\
             \x20       if (i > 0) v += s.v[i - 1];\n\
             \x20       if (i > 1) v += s.v[i - 2];\n\
             \x20       s.v[i] = v;\n\
             \x20   }",
        )
    };
    let n = if integral { 16 } else { 200 };
    format!(
        "#include <stdint.h>\n\
         #define N {n}\n\
         typedef struct {{ uint16_t v{shape}; }} In;\n\
         typedef struct {{ uint32_t v{shape}; }} Out;\n\
         Out mpc_main(In INPUT_A, In INPUT_B)\n\
         {{\n\
         \x20   Out s;\n\
         \x20   {body}\n\
         \x20   return s;\n\
         }}\n"
    )
}

/// A stored value that a later step adds and the outputs read is reduced
/// once: the later step adds its bits, not again every row it was made of
/// (each step cost the sum of all rows before it: 206,672 AND gates for
/// the 200-step recurrence, 37,543 for the 16 x 16 integral image). All
/// agree with gcc.
#[test]
fn stored_steps_of_a_recurrence_are_added_as_their_bits() {
    for (integral, steps, adders, seed) in [(false, 200, 3, 5), (true, 256, 4, 6)] {
        let src = recurrence(integral);
        let p = compile(&src, "recurrence.c", &CompileOptions::default())
            .unwrap_or_else(|e| panic!("{e}\n{src}"));
        let (ands, most) = (p.program.and_count(), steps * adders * 32);
        assert!(ands <= most, "{ands} AND gates, at most {most}\n{src}");
        agree_with_gcc(&src, &[&p], 6, seed, "recurrence");
    }
}

/// `v + k` (or `v - k`) and a comparison of it, where `v` is one of two
/// constants chosen by a secret, for constants of the type's edges: a
/// choice whose constants read in different windows (`0xFFFFFFFF` is -1
/// to the range, `0x80000000` is `2^31`) kept only the greater's value
/// once the sum met its digits' range, and lost the top bit. Signed sums
/// that would overflow are left out.
#[test]
fn sums_of_a_choice_of_two_constants_agree_with_gcc() {
    for &(t, w, signed) in &TYPES {
        let (lo, hi) = if signed {
            (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
        } else {
            (0, (1i128 << w) - 1)
        };
        let top = 1i128 << (w - 1);
        let edges = [
            lo,
            lo + 1,
            -2,
            -1,
            0,
            1,
            top - 1,
            top,
            hi - 1,
            hi,
            0x5a5a5a5a,
        ];
        let mut constants: Vec<i128> = edges
            .iter()
            .map(|&v| {
                if signed || v >= 0 {
                    v
                } else {
                    v + (1i128 << w)
                }
            })
            .filter(|v| (lo..=hi).contains(v))
            .collect();
        constants.dedup();
        let literal = |v: i128| format!("({t})({v}{})", if signed { "LL" } else { "ULL" });
        let mut body = String::new();
        let mut n = 0;
        for (i, &a) in constants.iter().enumerate() {
            for &b in &constants[i + 1..] {
                for k in [0, 1, hi, top] {
                    let fits = |v: i128| (lo..=hi).contains(&(v - k));
                    if signed && !(fits(a) && fits(b)) {
                        continue;
                    }
                    body += &format!(
                        "    {{ {t} v = INPUT_B ? {} : {}; o.r[{n}] = v - {}; o.c[{n}] = ({t})(v - {}) > {}; }}\n",
                        literal(a),
                        literal(b),
                        literal(k),
                        literal(k),
                        literal(top - 1),
                    );
                    n += 1;
                }
            }
        }
        let src = format!(
            "#include <stdint.h>\n\
             typedef struct {{ {t} r[{n}]; int c[{n}]; }} Out;\n\
             Out mpc_main(int INPUT_A, int INPUT_B)\n{{\n    Out o;\n{body}    return o;\n}}\n"
        );
        let name = format!("choice_{t}.c");
        let p = compile(&src, &name, &CompileOptions::default())
            .unwrap_or_else(|e| panic!("{e}\n{src}"));
        let sets: Vec<Vec<String>> = [0, 1, 7]
            .iter()
            .map(|b| vec!["0".to_string(), b.to_string()])
            .collect();
        agree_with_gcc_on(&src, &[&p], &sets, &format!("choice_{t}"));
    }
}
