//! The partition into a mixed program (issue 29) computes what the
//! Boolean program computes: examples and generated programs on random
//! inputs, and the sums it makes arithmetic.

use rand::{Rng, SeedableRng};
use twofold_circuit::Step;
use twofold_compiler::mixed::MixedCompiled;
use twofold_compiler::{compile, compile_mixed, CompileOptions, CompiledProgram};

/// Both compilations of `src`.
fn both(src: &str, name: &str, opts: &CompileOptions) -> (CompiledProgram, MixedCompiled) {
    let boolean = compile(src, name, opts).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mixed = compile_mixed(src, name, opts).unwrap_or_else(|e| panic!("{name} mixed: {e}"));
    (boolean, mixed)
}

/// The mixed program gives the Boolean program's outputs on `runs`
/// random inputs.
fn agree(src: &str, name: &str, runs: usize, seed: u64) -> MixedCompiled {
    agree_as(src, name, (runs, seed), &CompileOptions::default())
}

/// [`agree`], compiled with `opts`.
fn agree_as(
    src: &str,
    name: &str,
    (runs, seed): (usize, u64),
    opts: &CompileOptions,
) -> MixedCompiled {
    let (boolean, mixed) = both(src, name, opts);
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    for _ in 0..runs {
        let inputs: Vec<Vec<bool>> = boolean
            .program
            .main
            .inputs
            .iter()
            .map(|v| (0..v.width).map(|_| rng.gen()).collect())
            .collect();
        let want = boolean
            .program
            .eval(&inputs)
            .expect("the Boolean program runs");
        let given: Vec<Option<Vec<bool>>> = inputs.iter().cloned().map(Some).collect();
        let mixed_inputs: Vec<Vec<bool>> = mixed
            .mixed_inputs(&given)
            .into_iter()
            .map(|v| v.expect("every input given"))
            .collect();
        let got = mixed
            .program
            .eval(&mixed_inputs)
            .expect("the mixed program runs");
        assert_eq!(mixed.c_outputs(&got), want, "{name}");
    }
    mixed
}

#[test]
fn the_matrix_product_runs_as_dot_products() {
    let src = twofold_testkit::matmul_c(4);
    let m = agree(&src, "matmul4.c", 20, 1);
    assert_eq!(m.arithmetic_sums, 16);
    assert!(
        m.program.programs.is_empty(),
        "no garbled part: {:?}",
        m.program.steps.len()
    );
}

/// Every example with products of secrets, the MLP's ReLU and arg max
/// among them: the mixed program agrees with the Boolean one.
#[test]
fn examples_with_products_agree() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut checked = 0;
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("the examples")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    names.sort();
    for path in names {
        let src = std::fs::read_to_string(&path).expect("readable");
        let name = path.display().to_string();
        let boolean = compile(&src, &name, &CompileOptions::default()).expect("compiles");
        if boolean.secret_products == 0 {
            continue;
        }
        let m = agree(&src, &name, 3, checked);
        eprintln!(
            "{name}: {} sums, {} steps, {} Boolean programs, {} AND gates (Boolean program {})",
            m.arithmetic_sums,
            m.program.steps.len(),
            m.program.programs.len(),
            m.program
                .programs
                .iter()
                .map(|p| p.and_count())
                .sum::<u64>(),
            boolean.program.and_count()
        );
        checked += 1;
    }
    assert!(checked >= 8, "{checked} examples with products");
}

/// Products of linear combinations of word inputs (biometric matching's
/// `t = a - b; dist += t * t`, and combinations with constants, negations
/// and casts, a difference of `int`s widened to 64 bits where it cannot
/// wrap) read the combinations as the parties' shares: no Y→A
/// conversion, and no Boolean gates for the subtractions — only the
/// comparisons of the running minimum remain garbled.
#[test]
fn products_of_linear_combinations_convert_nothing() {
    let src = r#"
#include <stdint.h>
#define N 6
#define D 3
typedef struct { uint64_t db[N][D]; int32_t w[D]; int16_t h[D]; } Db;
typedef struct { uint64_t sample[D]; int16_t v[D]; } Sample;
typedef struct { uint64_t best; int64_t lin; int64_t wide; } Out;
Out mpc_main(Db INPUT_A, Sample INPUT_B)
{
    Out out;
    out.best = UINT64_MAX;
    for (int i = 0; i < N; i++) {
        uint64_t dist = 0;
        for (int j = 0; j < D; j++) {
            uint64_t t = INPUT_A.db[i][j] - INPUT_B.sample[j];
            dist += t * t;
        }
        if (dist < out.best)
            out.best = dist;
    }
    out.lin = 0;
    for (int j = 0; j < D; j++)
        out.lin += (3 * (int64_t)INPUT_A.w[j] - INPUT_B.v[j] + 7)
            * (-(int64_t)INPUT_B.v[j] + INPUT_A.w[j]);
    out.wide = 0;
    for (int j = 0; j < D; j++) {
        int d = INPUT_A.h[j] - INPUT_B.v[j];
        out.wide += (int64_t)d * d;
    }
    return out;
}
"#;
    let m = agree(src, "distances.c", 30, 7);
    assert_eq!(to_arith_steps(&m), 0, "{:?}", m.program.steps);
    assert_eq!(m.arithmetic_sums, 8);
    // The minimum of 6 distances: a comparison and a selection of 64 bits
    // each (767 gates; the 18 subtractors would be 63 more each).
    let and_gates: u64 = m.program.programs.iter().map(|p| p.and_count()).sum();
    assert!(and_gates <= 6 * 2 * 64, "{and_gates} AND gates");
}

/// Long combinations (each party's 40 words of its own, two parties, then
/// multiplied) are read as shares too: a program's combinations may hold
/// 2^18 terms before longer ones are converted (converting every one of
/// more than 64 terms cost this program 162,486 bytes instead of 8,466).
#[test]
fn long_combinations_convert_nothing() {
    let src = r#"
#include <stdint.h>
typedef struct { uint32_t a[16]; } InA;
typedef struct { uint32_t b[16]; } InB;
uint32_t mpc_main(InA INPUT_A, InB INPUT_B)
{
    uint32_t s = 0, u = 0;
    for (int i = 0; i < 40; i++)
        s += INPUT_A.a[i % 16] ^ (uint32_t)i;
    for (int i = 0; i < 40; i++)
        u += INPUT_B.b[i % 16] ^ (uint32_t)i;
    return (s + u) * (s - u);
}
"#;
    let two = CompileOptions {
        local_values: true,
        ..CompileOptions::default()
    };
    let m = agree_as(src, "long_sums.c", (10, 11), &two);
    assert_eq!(to_arith_steps(&m), 0, "{:?}", m.program.steps);
}

/// A combination of `int`s that may wrap (`a·2^16 − b·2^16` for `int16_t`
/// `a`, `b`): cast to 64 bits it is not the combination at 64 bits, and its
/// bits are converted.
#[test]
fn a_combination_that_may_wrap_is_converted_when_widened() {
    let src = "#include <stdint.h>\n\
               typedef struct { int16_t x; } In;\n\
               int64_t mpc_main(In INPUT_A, In INPUT_B)\n{\n\
               \x20   int64_t d = (int64_t)(INPUT_A.x * 65536 - INPUT_B.x * 65536);\n\
               \x20   return d * d;\n}\n";
    let m = agree(src, "wrap.c", 40, 3);
    assert_eq!(to_arith_steps(&m), 1, "{:?}", m.program.steps);
}

/// Factors whose secret bits are all one garbled bit — a comparison
/// widened (`(x > y) * z`), negated (`-(x == y)`, every bit that bit),
/// shifted (`(x < 7) << 3`), or plus a constant — are that bit injected
/// (B→A) and computed locally from it, not converted bit by bit (Y→A); a
/// factor of several garbled bits (`x ^ y`) is still converted, and one
/// computed from one party's input alone (`(x & 1) + 5`, `k & 3`) is that
/// party's share.
#[test]
fn factors_of_one_garbled_bit_are_injected() {
    let src = "#include <stdint.h>\n\
               #define N 6\n\
               typedef struct { int32_t v[N]; uint8_t k[N]; } In;\n\
               int32_t mpc_main(In INPUT_A, In INPUT_B)\n{\n\
               \x20   int32_t s = 0;\n\
               \x20   for (int i = 0; i < N; i++) {\n\
               \x20       int32_t x = INPUT_A.v[i], y = INPUT_B.v[i];\n\
               \x20       s += (x > y) * y;\n\
               \x20       s -= -(INPUT_A.k[i] == INPUT_B.k[i]) * x;\n\
               \x20       s += ((INPUT_B.k[i] < 7) << 3) * (x ^ y);\n\
               \x20       s += ((x & 1) + 5) * y;\n\
               \x20   }\n\
               \x20   return s + ((INPUT_A.k[0] & 3) * INPUT_B.v[1]);\n}\n";
    let m = agree(src, "injected.c", 40, 4);
    assert_eq!(injected_steps(&m), 3 * 6, "{:?}", m.program.steps);
    assert_eq!(to_arith_steps(&m), 6, "{:?}", m.program.steps);
}

/// For two parties, a factor that depends on one party's inputs alone
/// (`x > 100` of A's `x`, `(k & 6) ^ 5` of B's `k`) is that party's word,
/// computed in the clear: a conditional sum of B's values on A's threshold
/// garbles nothing; a factor of both parties' inputs (`x > y`) is still
/// garbled (and injected). Three computing parties (the default options)
/// compute no such words.
#[test]
fn words_of_one_partys_inputs_are_its_own() {
    let src = "#include <stdint.h>\n\
               #define N 6\n\
               typedef struct { int32_t v[N]; uint8_t k[N]; } In;\n\
               int32_t mpc_main(In INPUT_A, In INPUT_B)\n{\n\
               \x20   int32_t s = 0, t = 0;\n\
               \x20   for (int i = 0; i < N; i++) {\n\
               \x20       s += (INPUT_A.v[i] > 100) * INPUT_B.v[i];\n\
               \x20       s += ((INPUT_B.k[i] & 6) ^ 5) * INPUT_A.v[i];\n\
               \x20       t += (INPUT_A.v[i] > INPUT_B.v[i]) * INPUT_B.v[i];\n\
               \x20   }\n\
               \x20   return s + 3 * t;\n}\n";
    let two = CompileOptions {
        local_values: true,
        ..CompileOptions::default()
    };
    let mixed = agree_as(src, "local.c", (40, 5), &two);
    // Each party computes its own words: given only A's inputs, A's are
    // there and B's are not.
    let a_inputs = Some(vec![true; mixed.inputs[0].1.width() as usize]);
    let mine = mixed.mixed_inputs(&[a_inputs, None]);
    let owners = mixed.program.inputs.iter().map(|v| v.owner);
    assert!(owners.zip(&mine).all(|(o, v)| v.is_some() == (o == 0)));
    assert_eq!(mixed.locals.len(), 2 * 6, "{:?}", mixed.program.inputs);
    assert_eq!(injected_steps(&mixed), 6);
    assert_eq!(to_arith_steps(&mixed), 0);
    // Three parties garble those words: 12 more conversions.
    let (_, shared) = both(src, "local.c", &CompileOptions::default());
    assert!(shared.locals.is_empty());
    let conversions = |m: &MixedCompiled| injected_steps(m) + to_arith_steps(m);
    assert_eq!(conversions(&shared), conversions(&mixed) + 2 * 6);
}

/// The bit injections (B→A) of a mixed compilation.
fn injected_steps(m: &MixedCompiled) -> usize {
    let steps = m.program.steps.iter();
    steps
        .filter(|s| matches!(s, twofold_circuit::Step::Inject { .. }))
        .count()
}

/// The Y→A conversions of a mixed compilation.
fn to_arith_steps(m: &MixedCompiled) -> usize {
    let steps = m.program.steps.iter();
    steps
        .filter(|s| matches!(s, twofold_circuit::Step::ToArith(_)))
        .count()
}

/// A product between two garbled steps (a walk whose factor comes from a
/// comparison and whose product is compared) reads a converted word:
/// named in `converted_sums`, and given its Boolean circuit when asked,
/// it needs no conversion to the arithmetic sharing, while the matrix
/// product beside it stays arithmetic; both programs agree with the
/// Boolean one.
#[test]
fn sums_between_garbled_steps_may_get_their_boolean_circuits() {
    let src = "#include <stdint.h>
typedef struct { int32_t m[3][3]; } M;
int16_t mpc_main(M INPUT_A, M INPUT_B) {
    int32_t c[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            c[i][j] = 0;
            for (int k = 0; k < 3; k++)
                c[i][j] += INPUT_A.m[i][k] * INPUT_B.m[k][j];
        }
    int16_t s = 1;
    for (int i = 0; i < 6; i++) {
        int16_t t = (int16_t)(s * (int16_t)c[i % 3][(i + 1) % 3]);
        s = t > 100 ? (int16_t)(t - 100) : (int16_t)(t + 7);
    }
    return s;
}";
    let to_arith = |m: &MixedCompiled| {
        let steps = m.program.steps.iter();
        steps.filter(|s| matches!(s, Step::ToArith(_))).count()
    };
    let all = agree(src, "walk.c", 30, 9);
    assert_eq!(all.converted_sums.len(), 5, "{:?}", all.converted_sums);
    assert_eq!(all.boolean_sums, 0);
    assert_eq!(to_arith(&all), 5);
    let opts = CompileOptions {
        boolean_sums: Some(all.converted_sums.iter().copied().collect()),
        ..CompileOptions::default()
    };
    let some = agree_as(src, "walk.c", (30, 10), &opts);
    assert_eq!(some.boolean_sums, 5);
    assert_eq!(some.arithmetic_sums, all.arithmetic_sums - 5);
    assert_eq!(to_arith(&some), 0);
    assert!(some.converted_sums.is_empty());
}

/// A product of a party's own sums (`s * s`, `s = Σ a[i]` of A's values)
/// is one product of A's word, not the pairs of their terms multiplied
/// out: squaring 3,000 terms made 4.5 million local products (1.2 GB and
/// 7 s to compile; with fewer terms, as many products at the same cost).
#[test]
fn a_partys_own_sum_squared_is_one_product() {
    for n in [40, 100] {
        let src = format!(
            "#include <stdint.h>\n\
             int32_t mpc_main(int32_t INPUT_A_a[{n}], int32_t INPUT_B_x)\n{{\n\
             \x20   int32_t s = 0, t = 0;\n\
             \x20   for (int i = 0; i < {n}; i++) {{ s += INPUT_A_a[i]; t += i * INPUT_A_a[i]; }}\n\
             \x20   return s * s + t * s + INPUT_B_x * s;\n}}\n"
        );
        let two = CompileOptions {
            local_values: true,
            ..CompileOptions::default()
        };
        let mixed = agree_as(&src, "square.c", (8, 7), &two);
        let steps = mixed.program.steps.len();
        assert!(steps <= 3 * n, "{n} terms: {steps} steps");
    }
}

/// Words a party computes alone from a running value (the maximum of A's
/// values so far, each multiplied by B's value) share the gates of the
/// chain that makes them: each word's gates are its own step of it, not
/// the whole chain again (quadratic before: 2.3 GB at 1,000 values).
#[test]
fn words_of_a_running_value_share_its_gates() {
    let src = "#include <stdint.h>\n\
               #define N 200\n\
               int32_t mpc_main(int32_t INPUT_A_a[N], int32_t INPUT_B_b[N])\n{\n\
               \x20   int32_t m = INPUT_A_a[0], r = 0;\n\
               \x20   for (int i = 0; i < N; i++) {\n\
               \x20       if (INPUT_A_a[i] > m) m = INPUT_A_a[i];\n\
               \x20       r += m * INPUT_B_b[i];\n\
               \x20   }\n\
               \x20   return r;\n}\n";
    let two = CompileOptions {
        local_values: true,
        ..CompileOptions::default()
    };
    let mixed = agree_as(src, "running.c", (8, 9), &two);
    assert!(mixed.locals.len() >= 100, "{} words", mixed.locals.len());
    let gates: usize = mixed.locals.iter().map(|l| l.gates.len()).sum();
    assert!(gates <= 400 * 200, "{gates} gates in the words");
}

/// A sum of products written again (a macro's expansion) is one
/// arithmetic sum, as it is one circuit in the Boolean program: each copy
/// was its own sum, with its own products and conversion. Asked for its
/// Boolean circuit, it is asked for every copy's.
#[test]
fn a_sum_written_twice_runs_once() {
    let src = "#include <stdint.h>
#define DOT(x, y) ((x)[0] * (y)[0] + (x)[1] * (y)[1] + (x)[2] * (y)[2])
int32_t mpc_main(int32_t INPUT_A_x[3], int32_t INPUT_B_y[3]) {
    int32_t a = DOT(INPUT_A_x, INPUT_B_y) == 7 ? 1 : 2;
    int32_t b = DOT(INPUT_A_x, INPUT_B_y) > 100 ? 3 : 5;
    return a * 10 + b + (DOT(INPUT_A_x, INPUT_B_y) ^ 5);
}";
    let once = agree(src, "twice.c", 30, 11);
    assert_eq!(once.arithmetic_sums, 1);
    assert_eq!(to_arith_steps(&once), 0);
    // The same sum over a word converted from garbled bits.
    let converted = src.replace("(x)[2] * (y)[2]", "((x)[2] > 0 ? (x)[2] : 9) * (y)[2]");
    let all = agree(&converted, "twice.c", 30, 12);
    assert_eq!(all.arithmetic_sums, 1);
    assert_eq!(all.converted_sums.len(), 3, "{:?}", all.converted_sums);
    let opts = CompileOptions {
        boolean_sums: Some(all.converted_sums.iter().copied().collect()),
        ..CompileOptions::default()
    };
    let boolean = agree_as(&converted, "twice.c", (30, 13), &opts);
    assert_eq!(boolean.boolean_sums, 3);
    assert_eq!(boolean.arithmetic_sums, 0);
}
