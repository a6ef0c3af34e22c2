//! Loops that multiply their counter by a secret (issue 28's counter loop,
//! `t += i * x + (y ^ i)`). A long one (131,072 iterations or more left when its runs are found short): the
//! product becomes a variable that follows it (strength reduction), the
//! sums carried on are reduced each iteration, and the loop is kept. A
//! shorter one is unrolled, where its sum collects like terms. Each body
//! here turns on one rule — the step's sign and size, signed products, two
//! products, and the cases left unreduced — and must agree with gcc and
//! with the unrolled program.

mod common;

use common::agree_with_gcc;
use twofold_compiler::{compile, CompileOptions};

/// Loop heads and bodies over `x`, `y` (A's and B's `uint32_t`), `s`
/// (A's struct of an `int8_t m`) and an accumulator `t` of type `T`,
/// with whether the loop must be kept.
const CASES: &[(&str, &str, &str, bool)] = &[
    (
        "uint32_t",
        "for (uint32_t i = 0; i < 140000; i++)",
        "t += i * x + (y ^ i);",
        true,
    ),
    (
        "uint32_t",
        "for (uint32_t i = 7; i < 420007; i += 3)",
        "t += x * i + (y ^ i);",
        true,
    ),
    // Shorter: unrolled, its sum collecting like terms.
    (
        "uint32_t",
        "for (uint32_t i = 7; i < 907; i += 3)",
        "t += x * i + (y ^ i);",
        false,
    ),
    // Counting down, or a signed product beside a key: runs stay short
    // (not kept yet), and the loop is unrolled as written.
    (
        "uint32_t",
        "for (int i = 901; i > 0; i -= 2)",
        "t += x * i + (y ^ i);",
        false,
    ),
    (
        "int",
        "for (int i = 901; i > 0; i -= 2)",
        "t += z * i - (int)(y ^ (uint32_t)i);",
        false,
    ),
    (
        "uint32_t",
        "for (uint32_t i = 0; i < 140000; i++)",
        "t += i * x - y * i + (y ^ i);",
        true,
    ),
    // The counter only in the product: not reduced (no other key keeps
    // the loop probed each), unrolled as before.
    (
        "int",
        "for (int i = 1000; i > 0; i -= 3)",
        "t += z * i;",
        false,
    ),
    // A narrow factor (its product's rows are few): not reduced.
    (
        "int",
        "for (short i = 0; i < 300; i++)",
        "t += s.m * i + i;",
        false,
    ),
    // A `continue` would skip the update: not reduced.
    (
        "uint32_t",
        "for (int i = 0; i < 300; i++)",
        "{ if (i % 3 == 0) continue; t += i * x + (y ^ i); }",
        false,
    ),
];

fn program(ty: &str, head: &str, body: &str) -> String {
    format!(
        "#include <stdint.h>\n\
         typedef struct {{ uint32_t x; int8_t m; }} In;\n\
         {ty} mpc_main(In INPUT_A, uint32_t INPUT_B) {{\n\
         \x20   uint32_t x = INPUT_A.x, y = INPUT_B;\n\
         \x20   int z = (int)INPUT_A.x;\n\
         \x20   In s = INPUT_A;\n\
         \x20   {ty} t = 1;\n\
         \x20   {head}\n\
         \x20       {body}\n\
         \x20   return t;\n\
         }}\n"
    )
}

#[test]
fn products_of_the_counter_agree_with_gcc_and_keep_the_loop() {
    for (n, &(ty, head, body, kept)) in CASES.iter().enumerate() {
        let src = program(ty, head, body);
        let p = compile(&src, "strength.c", &CompileOptions::default())
            .unwrap_or_else(|e| panic!("{e}\n{src}"));
        let flat_opts = CompileOptions {
            loops: false,
            ..CompileOptions::default()
        };
        let flat = compile(&src, "strength.c", &flat_opts).unwrap_or_else(|e| panic!("{e}"));
        let l = p.loops.iter().find(|l| l.line == 8).expect("the loop");
        assert_eq!(!l.blocks.is_empty(), kept, "{body}: {l:?}");
        let (a, b) = (p.program.and_count(), flat.program.and_count());
        if kept {
            // A reduced product costs an addition an iteration, and the
            // sum's reduction a full-width adder for each row added
            // (measured: 92 AND gates an iteration for the first; a
            // counter that does not start at 0 adds the product's first
            // value as one more row, 123; two products, 154).
            assert!(a <= 160 * l.iterations, "{body}: {a} AND gates kept");
        } else {
            // Unrolled after the first iterations were probed: about what
            // unrolling costs.
            assert!(
                a * 100 <= b * 140,
                "{body}: {a} AND gates against {b} unrolled"
            );
        }
        agree_with_gcc(
            &src,
            &[&p, &flat],
            3,
            900 + n as u64,
            &format!("strength{n}"),
        );
    }
}

#[test]
fn a_factor_changed_through_a_pointer_is_not_reduced() {
    // `p[0] += 1` changes `x` behind its name: a running sum of `x` would
    // miss it.
    let src = "#include <stdint.h>\n\
               uint32_t mpc_main(uint32_t INPUT_A, uint32_t INPUT_B) {\n\
               \x20   uint32_t x = INPUT_A, y = INPUT_B, t = 0;\n\
               \x20   uint32_t *p = &x;\n\
               \x20   for (uint32_t i = 0; i < 300; i++) {\n\
               \x20       t += i * x + (y ^ i);\n\
               \x20       p[0] += 1;\n\
               \x20   }\n\
               \x20   return t;\n\
               }\n";
    let p = compile(src, "alias.c", &CompileOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    agree_with_gcc(src, &[&p], 3, 950, "strength-alias");
}

/// A loop whose keys cost AND gates as fresh inputs (`(x + i) * y`: the
/// constant `i` folds into the adder) is unrolled, unless unrolled it
/// would hold more than a quarter of the gates a compile may hold: then
/// it is kept, at more AND gates, rather than compiled for long or not at
/// all (200,000 iterations ran out of memory after 40 s). Both agree with
/// gcc.
#[test]
fn a_loop_too_long_to_unroll_reads_its_keys_as_inputs() {
    let src = "#include <stdint.h>\n\
               uint32_t mpc_main(uint32_t INPUT_A, uint32_t INPUT_B) {\n\
               \x20   uint32_t r = 0;\n\
               \x20   for (uint32_t i = 0; i < 300; i++)\n\
               \x20       r += (INPUT_A + i) * INPUT_B;\n\
               \x20   return r;\n\
               }\n";
    let small = CompileOptions {
        limits: twofold_compiler::Limits {
            max_gates: 400_000,
            ..twofold_compiler::Limits::default()
        },
        ..CompileOptions::default()
    };
    let mut ands = Vec::new();
    for (n, opts) in [CompileOptions::default(), small].iter().enumerate() {
        let p = compile(src, "long.c", opts).unwrap_or_else(|e| panic!("{e}"));
        let l = p.loops.iter().find(|l| l.line == 4).expect("the loop");
        assert_eq!(l.blocks.is_empty(), n == 0, "{l:?}");
        ands.push(p.program.and_count());
        agree_with_gcc(src, &[&p], 3, 960 + n as u64, &format!("long{n}"));
    }
    assert!(ands[0] < ands[1], "{ands:?}");
}

/// A loop whose counter is used only in products with secrets, or whose
/// product's factor is cast (`(int64_t)z * i`), is unrolled without
/// probing its iterations first: probed, no two lowered alike, and each
/// probe held its copies (100,000 iterations of `s += (long long)y * i`
/// took 5.9 s and 407 MB, unrolled at once 2.2 s and 25 MB, the same AND
/// gates).
#[test]
fn loops_whose_iterations_differ_only_in_products_are_unrolled_at_once() {
    let flat_opts = CompileOptions {
        loops: false,
        ..CompileOptions::default()
    };
    for (n, body) in [
        "t += (int64_t)z * i;",
        "t += (int64_t)z * i + (x & i);",
        "t += z * i;",
    ]
    .iter()
    .enumerate()
    {
        let src = program("int64_t", "for (int i = 0; i < 3000; i++)", body);
        let p = compile(&src, "unrolled.c", &CompileOptions::default())
            .unwrap_or_else(|e| panic!("{e}\n{src}"));
        let flat = compile(&src, "unrolled.c", &flat_opts).unwrap_or_else(|e| panic!("{e}"));
        let l = p.loops.iter().find(|l| l.line == 8).expect("the loop");
        assert!(l.blocks.is_empty(), "{body}: {l:?}");
        assert_eq!(p.program.and_count(), flat.program.and_count(), "{body}");
        assert!(
            p.work <= flat.work * 2,
            "{body}: work {} against {} unrolled",
            p.work,
            flat.work
        );
        agree_with_gcc(&src, &[&p], 3, 970 + n as u64, &format!("unrolled{n}"));
    }
}
