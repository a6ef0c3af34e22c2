//! Random programs that mix products of secret words with everything else
//! ([`twofold_testkit::random_mixed_c_program`]): each agrees with gcc (as
//! compiled, and with every loop unrolled, the lowering the partition
//! starts from), and its mixed program (sums of products arithmetic, the
//! rest Boolean) gives exactly the Boolean program's outputs, on random
//! inputs and on inputs whose words are at their edges (0, ±1, the least
//! and greatest values).

mod common;

use common::{agree_with_gcc_on, gcc_available};
use rand::{rngs::StdRng, Rng, SeedableRng};
use twofold_compiler::mixed::MixedCompiled;
use twofold_compiler::{compile, compile_mixed, CType, CompileOptions, CompiledProgram};
use twofold_testkit::random_mixed_c_program;

/// Number of random programs.
const PROGRAMS: u64 = 60;

/// Input sets each program runs on.
const RUNS: usize = 8;

/// The widths of the scalars of `ty`, in the order of its bits.
fn scalar_widths(ty: &CType, out: &mut Vec<u32>) {
    match ty {
        CType::Array(e, n) => {
            for _ in 0..*n {
                scalar_widths(e, out);
            }
        }
        CType::Struct(s) => {
            for (_, t) in &s.fields {
                scalar_widths(t, out);
            }
        }
        t => out.push(t.width()),
    }
}

/// A random word of `w` bits, now and then at an edge: 0, 1, -1, the
/// least or greatest signed value, a small value of either sign.
fn word(rng: &mut impl Rng, w: u32) -> Vec<bool> {
    let value: u64 = match rng.gen_range(0..12) {
        0 => 0,
        1 => 1,
        2 => u64::MAX,
        3 => 1 << (w - 1),
        4 => (1 << (w - 1)) - 1,
        5 => rng.gen_range(0..16),
        6 => rng.gen_range(0..16u64).wrapping_neg(),
        _ => rng.gen(),
    };
    (0..w).map(|i| value >> i & 1 == 1).collect()
}

/// Input bits for every C input of `p`: all zeros in run 0, all ones in
/// run 1, else words drawn by [`word`].
fn input_bits(rng: &mut impl Rng, p: &CompiledProgram, run: usize) -> Vec<Vec<bool>> {
    p.inputs
        .iter()
        .map(|(_, ty)| match run {
            0 | 1 => vec![run == 1; ty.width() as usize],
            _ => {
                let mut widths = Vec::new();
                scalar_widths(ty, &mut widths);
                widths.into_iter().flat_map(|w| word(rng, w)).collect()
            }
        })
        .collect()
}

/// Whether the mixed program `m` gives the Boolean program `p`'s outputs
/// on `inputs`; panics with the source, the inputs and the outputs (those
/// of `flat`, the program unrolled as `m` was, too) if not.
fn check(
    src: &str,
    p: &CompiledProgram,
    flat: &CompiledProgram,
    m: &MixedCompiled,
    inputs: &[Vec<bool>],
) {
    let want = p.program.eval(inputs).expect("the Boolean program runs");
    let given: Vec<Option<Vec<bool>>> = inputs.iter().cloned().map(Some).collect();
    let mixed_inputs: Vec<Vec<bool>> = m
        .mixed_inputs(&given)
        .into_iter()
        .map(|v| v.expect("every input given"))
        .collect();
    let got = m
        .program
        .eval(&mixed_inputs)
        .unwrap_or_else(|e| panic!("the mixed program fails: {e:?}\n{src}"));
    let got = m.c_outputs(&got);
    if got != want {
        let show = |outs: &[Vec<bool>], types: &[(String, CType)]| -> Vec<String> {
            types
                .iter()
                .zip(outs)
                .map(|((n, t), b)| format!("{n} = {}", t.format_value(b)))
                .collect()
        };
        let values: Vec<String> = p
            .inputs
            .iter()
            .zip(inputs)
            .map(|((n, t), b)| format!("{n} = {}", t.format_value(b)))
            .collect();
        let unrolled = flat
            .program
            .eval(inputs)
            .expect("the unrolled program runs");
        panic!(
            "the mixed program differs from the Boolean one\ninputs: {values:#?}\nBoolean: {:#?}\nmixed: {:#?}\nBoolean, unrolled: {:#?}\n{src}",
            show(&want, &p.outputs),
            show(&got, &m.outputs),
            show(&unrolled, &flat.outputs),
        );
    }
}

#[test]
fn random_mixed_programs_agree_with_gcc_and_with_their_boolean_form() {
    let gcc = gcc_available();
    if !gcc {
        eprintln!("skipping the gcc comparisons: gcc is absent");
    }
    let opts = CompileOptions::default();
    let (mut arithmetic, mut with_boolean, mut sums, mut products) = (0, 0, 0, 0);
    // Two parties' compilations: words one party computes alone are its own.
    let two = CompileOptions {
        local_values: true,
        ..opts.clone()
    };
    let (mut with_locals, mut with_boolean_sums) = (0, 0);
    for seed in 0..PROGRAMS {
        let mut rng = StdRng::seed_from_u64(seed);
        let src = random_mixed_c_program(&mut rng);
        let name = format!("mixed_random{seed}.c");
        let p = compile(&src, &name, &opts).unwrap_or_else(|e| panic!("{e}\n{src}"));
        let unrolled = CompileOptions {
            loops: false,
            regions: false,
            ..opts.clone()
        };
        let flat = compile(&src, &name, &unrolled).unwrap_or_else(|e| panic!("{e}\n{src}"));
        let m = compile_mixed(&src, &name, &opts).unwrap_or_else(|e| panic!("mixed: {e}\n{src}"));
        let m2 = compile_mixed(&src, &name, &two).unwrap_or_else(|e| panic!("mixed: {e}\n{src}"));
        // The sums that read converted words given their Boolean circuits
        // (as `--protocol auto` may choose).
        let m3 = (!m2.converted_sums.is_empty()).then(|| {
            let opts = CompileOptions {
                boolean_sums: Some(m2.converted_sums.iter().copied().collect()),
                ..two.clone()
            };
            let m3 = compile_mixed(&src, &name, &opts).unwrap_or_else(|e| panic!("{e}\n{src}"));
            assert_eq!(m3.boolean_sums, m2.converted_sums.len(), "{src}");
            m3
        });
        with_boolean_sums += usize::from(m3.is_some());
        let sets: Vec<Vec<Vec<bool>>> = (0..RUNS).map(|r| input_bits(&mut rng, &p, r)).collect();
        if gcc {
            let text: Vec<Vec<String>> = sets
                .iter()
                .map(|set| {
                    p.inputs
                        .iter()
                        .zip(set)
                        .map(|((_, t), b)| t.format_value(b))
                        .collect()
                })
                .collect();
            agree_with_gcc_on(&src, &[&p, &flat], &text, &format!("mixed_random{seed}"));
        }
        for set in &sets {
            check(&src, &p, &flat, &m, set);
            check(&src, &p, &flat, &m2, set);
            if let Some(m3) = &m3 {
                check(&src, &p, &flat, m3, set);
            }
        }
        assert!(m.locals.is_empty());
        with_locals += usize::from(!m2.locals.is_empty());
        arithmetic += usize::from(m.arithmetic_sums > 0);
        with_boolean += usize::from(!m.program.programs.is_empty());
        sums += m.arithmetic_sums;
        products += p.secret_products;
    }
    println!(
        "{PROGRAMS} random mixed programs on {RUNS} inputs each: {arithmetic} with arithmetic sums \
         ({sums} in all, {products} products of secrets), {with_boolean} with Boolean programs, \
         {with_locals} with words a party computes alone, {with_boolean_sums} run again with sums \
         of products given their Boolean circuits"
    );
    // Not vacuous: most programs run sums arithmetically, and most keep
    // Boolean parts beside them.
    assert!(
        arithmetic as u64 >= PROGRAMS * 2 / 3,
        "{arithmetic} programs with arithmetic sums"
    );
    assert!(
        with_locals as u64 >= PROGRAMS / 4,
        "{with_locals} programs with words a party computes alone"
    );
    assert!(
        with_boolean_sums as u64 >= PROGRAMS / 8,
        "{with_boolean_sums} programs with sums of products that read converted words"
    );
    assert!(
        with_boolean as u64 >= PROGRAMS / 2,
        "{with_boolean} programs with Boolean parts"
    );
}
