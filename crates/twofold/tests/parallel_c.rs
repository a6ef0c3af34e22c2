//! Random C programs with parallel loops (independent iterations and a
//! reduction): the compiler makes a region of the loop, and the protocol
//! gives the plaintext result under every schedule, 1..4 threads, with and
//! without inter-party parallelism.

mod common;

use common::agrees_under_every_schedule;
use rand::{Rng, SeedableRng};
use twofold_circuit::Party;
use twofold_compiler::{compile, CompileOptions};
use twofold_net::ChannelOptions;
use twofold_protocol::{run_local, IppMode, Reveal, Schedule, SessionOptions};
use twofold_testkit::{party_inputs, random_inputs};

/// A random expression over `x` (A's element), `y` (B's element) and `i`.
fn expr(rng: &mut impl Rng, depth: u32) -> String {
    if depth == 0 || rng.gen_ratio(1, 3) {
        // No `i`: iterations must give the same circuit to make a region.
        return match rng.gen_range(0..3) {
            0 => "x".into(),
            1 => "y".into(),
            _ => rng.gen_range(-20..20).to_string(),
        };
    }
    let op = ["+", "-", "*", "^", "&", "|"][rng.gen_range(0..6)];
    format!("({} {op} {})", expr(rng, depth - 1), expr(rng, depth - 1))
}

/// A program: `n` independent iterations, each computing `t` from its own
/// elements, written to its own output element and folded into a reduction.
fn program(rng: &mut impl Rng) -> String {
    let n = rng.gen_range(2..7);
    let ty = ["int", "short", "unsigned char", "unsigned int"][rng.gen_range(0..4)];
    let fold = match rng.gen_range(0..5) {
        0 => "acc += t;".to_string(),
        1 => "acc ^= t;".to_string(),
        2 => "acc |= t;".to_string(),
        3 => "acc -= t;".to_string(),
        _ => "if (t < acc) acc = t;".to_string(),
    };
    // Secret at the top, so the iterations compute something.
    let op = ["+", "-", "^", "|"][rng.gen_range(0..4)];
    let t = format!("(x * y) {op} {}", expr(rng, 2));
    format!(
        "typedef struct {{ {ty} v[{n}]; }} Vec;\n\
         typedef struct {{ {ty} out[{n}]; {ty} acc; }} Result;\n\
         Result mpc_main(Vec INPUT_A, Vec INPUT_B) {{\n\
           Result r;\n\
           {ty} acc = 7;\n\
           for (int i = 0; i < {n}; i++) {{\n\
             {ty} x = INPUT_A.v[i];\n\
             {ty} y = INPUT_B.v[i];\n\
             {ty} t = {t};\n\
             r.out[i] = t;\n\
             {fold}\n\
           }}\n\
           r.acc = acc;\n\
           return r;\n\
         }}\n"
    )
}

#[test]
fn random_parallel_loops_agree_under_every_schedule() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(404);
    let mut regions = 0;
    for round in 0..12 {
        let source = program(&mut rng);
        let compiled = compile(&source, "random.c", &CompileOptions::default())
            .unwrap_or_else(|e| panic!("{e}\n{source}"));
        let program = compiled.program;
        if compiled.loops.iter().any(|v| v.is_region()) {
            regions += 1;
            assert!(program.parallel_blocks().count() >= 1, "{source}");
        }
        let inputs = random_inputs(&mut rng, &program.main);
        let want = program.eval(&inputs).unwrap();
        let (a, b) = (
            party_inputs(&program.main, &inputs, Party::A),
            party_inputs(&program.main, &inputs, Party::B),
        );
        let label = format!("round {round}\n{source}");
        agrees_under_every_schedule(&program, (&a, &b), &want, 1..=4, &label);
    }
    // Most of these loops must become regions (some expressions make every
    // iteration the same constant, which makes no region).
    assert!(regions >= 10, "only {regions} of 12 programs had a region");
}

/// Every example program in `examples/`: the protocol with inter-party
/// parallelism (with and without the overlap, on 1 and 2 threads) gives
/// the plaintext outputs on random inputs.
#[test]
fn every_example_agrees_with_ipp() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut sources: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    sources.sort();
    assert!(sources.len() >= 10, "{sources:?}");
    let mut rng = rand::rngs::StdRng::seed_from_u64(12);
    let mut with_regions = 0;
    for path in sources {
        let compiled = twofold_compiler::compile_file(&path, &CompileOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let program = compiled.program;
        with_regions += !program.blocks.is_empty() as usize;
        let inputs = random_inputs(&mut rng, &program.main);
        let want = program.eval(&inputs).unwrap();
        let (a, b) = (
            party_inputs(&program.main, &inputs, Party::A),
            party_inputs(&program.main, &inputs, Party::B),
        );
        for (ipp, schedule, threads) in [
            (IppMode::On, Schedule::Sequential, 1),
            (IppMode::NoOverlap, Schedule::Sequential, 1),
            (IppMode::On, Schedule::Auto, 2),
        ] {
            let opts = SessionOptions {
                schedule,
                threads,
                ipp,
                reveal: Reveal::Both,
                ..SessionOptions::default()
            };
            let (ra, rb) = run_local(&program, &a, &b, &opts, &ChannelOptions::default()).unwrap();
            let label = format!("{} {} x{threads}", path.display(), ipp.name());
            assert_eq!(ra.outputs.unwrap(), want, "{label}");
            assert_eq!(rb.outputs.unwrap(), want, "{label}");
        }
    }
    assert!(with_regions >= 6, "{with_regions} examples with regions");
}
