//! Tests of loading C programs: the compilations `--protocol` runs.

use super::*;
use crate::choice::{Comparison, FLAT_GATES_PER_SECOND};

#[test]
fn arrays_of_one_integer_type_have_the_integers_lane_and_the_rest_one() {
    let int = |bits| CType::Int { bits, signed: true };
    let array = |t: CType, n| CType::Array(std::sync::Arc::new(t), n);
    let c = |t: CType| {
        let width = t.width();
        lane_of(&ValueKind::C(t), width)
    };
    assert_eq!(c(int(32)), 32);
    assert_eq!(c(array(array(int(32), 16), 16)), 32);
    assert_eq!(c(array(int(8), 4)), 8);
    assert_eq!(c(array(CType::Bool, 8)), 1);
    assert_eq!(c(CType::Bool), 1);
    assert_eq!(c(array(CType::Float { bits: 32 }, 4)), 128);
    assert_eq!(c(CType::Float { bits: 64 }), 64);
    let point = CType::Struct(std::sync::Arc::new(twofold_compiler::types::StructDef {
        name: Some("point".into()),
        fields: vec![("x".into(), int(32)), ("y".into(), int(32))],
        ..Default::default()
    }));
    // A struct whose members all have one element width: that width.
    assert_eq!(c(array(point, 3)), 32);
    let mixed = CType::Struct(std::sync::Arc::new(twofold_compiler::types::StructDef {
        name: None,
        fields: vec![("a".into(), int(32)), ("b".into(), int(8))],
        ..Default::default()
    }));
    assert_eq!(c(mixed), 40);
    assert_eq!(lane_of(&ValueKind::Int, 8192), 8192);
    assert_eq!(lane_of(&ValueKind::Int, 0), 1);
}

/// `--protocol mixed` compiles both programs at once in half of the
/// memory limit each; a program whose compile needs more than half
/// still compiles within the whole limit (one after the other), to
/// the same mixed program.
#[test]
fn mixed_compiles_fall_back_to_one_at_a_time_past_half_the_memory() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/matmul16.c");
    let source = std::fs::read_to_string(path).expect("the example");
    let limit = 512 << 10;
    let half = CompileOptions {
        limits: Limits::for_memory(limit / 2),
        ..CompileOptions::default()
    };
    // (The mixed compile needs more than half.)
    let Err(e) = compile_mixed(&source, "matmul16.c", &half) else {
        panic!("the mixed compile fits in half of the limit");
    };
    assert!(matches!(e.exceeded, Some(Exceeded::Memory { .. })), "{e}");
    let opts = |max_memory| LoadOptions {
        protocol: Protocol::Mixed,
        max_memory,
        ..LoadOptions::default()
    };
    let within = load_source(&source, "matmul16.c", &opts(Some(limit))).expect("fits");
    let free = load_source(&source, "matmul16.c", &opts(None)).expect("fits");
    let sums = |l: &Loaded| l.mixed.as_ref().map(|m| m.compiled.arithmetic_sums);
    assert_eq!(sums(&within), Some(256));
    assert_eq!(sums(&within), sums(&free));
}

/// A Boolean compilation whose kept loops take more compile-time work
/// than the limit (iterations probed) compiles again unrolled, which
/// takes less: smith_waterman's kept loops about 2 M steps, unrolled
/// about 0.4 M (k-means's 42 M against 0.1 M at one iteration).
#[test]
fn kept_loops_past_the_work_limit_compile_unrolled() {
    let source = example("smith_waterman.c");
    let c = CompileOptions {
        limits: Limits {
            max_steps: 1_000_000,
            ..Limits::default()
        },
        ..CompileOptions::default()
    };
    let boolean = |c: &CompileOptions| compile(&source, "smith_waterman.c", c);
    let e = boolean(&c).expect_err("kept, past the limit");
    assert!(matches!(e.exceeded, Some(Exceeded::Steps { .. })), "{e}");
    let flat = unrolled_if_kept_too_long(&c, &boolean, e).expect("unrolled, within it");
    assert!(flat.loops.iter().all(|l| !l.kept()));
    let unrolled = CompileOptions {
        loops: false,
        ..c.clone()
    };
    let want = boolean(&unrolled).expect("unrolled");
    assert_eq!(flat.program, want.program);
}

fn example(name: &str) -> String {
    let path = format!("{}/../../examples/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).expect("the example")
}

/// `--protocol auto` compiles the mixed program beside the Boolean one
/// (from the first product of secrets on): the same mixed program as
/// compiled on its own, whether both fit in half of the memory limit
/// or the mixed one compiles again in all of it.
#[test]
fn auto_compiles_the_mixed_program_beside_the_boolean_one() {
    let source = example("matmul16.c");
    let opts = |protocol, max_memory| LoadOptions {
        protocol,
        max_memory,
        ..LoadOptions::default()
    };
    let alone = compile_mixed(&source, "matmul16.c", &CompileOptions::default()).unwrap();
    for max_memory in [None, Some(512 << 10)] {
        let auto = load_source(&source, "matmul16.c", &opts(Protocol::Auto, max_memory));
        let chosen = auto.expect("compiles").mixed.expect("mixed is cheaper");
        assert_eq!(chosen.compiled.program, alone.program, "{max_memory:?}");
        assert_eq!(chosen.compiled.built_gates, alone.built_gates);
    }
}

/// A mixed compilation past the bound `auto` sets when the Boolean one
/// ends (half the garbled run's estimated time) is stopped, and the
/// program runs as garbled circuits: mexp's flat compile makes more
/// gates than its bound, the matrix product's fewer.
#[test]
fn auto_stops_a_mixed_compile_past_its_bound() {
    let opts = LoadOptions::default();
    let mexp = load_source(&example("mexp.c"), "mexp.c", &opts).expect("compiles");
    assert!(mexp.secret_products > 0);
    assert!(mexp.mixed.is_none());
    let matmul = load_source(&example("matmul16.c"), "matmul16.c", &opts).expect("compiles");
    assert!(matmul.mixed.is_some());
}

/// A mixed compilation that ends before its bound is known is judged
/// by the gates it made, as one bounded from the start would have
/// been, so that both parties choose alike: one product, then 3,000
/// rounds of shifts and XORs, free in garbled circuits but some
/// 185,000 gates to compile flat, runs as garbled circuits; and the
/// matrix product's mixed program (no gates, far cheaper to run), said
/// to have made one gate more than its bound, is not chosen.
#[test]
fn auto_judges_an_early_mixed_compile_by_its_gates() {
    let source = "#include <stdint.h>
uint32_t mpc_main(uint32_t INPUT_A, uint32_t INPUT_B)
{
uint32_t x = INPUT_A * INPUT_B;
for (uint32_t i = 0; i < 3000; i++)
    x ^= (x << 3) ^ (x >> 5) ^ i;
return x;
}";
    let opts = LoadOptions::default();
    let auto = load_source(source, "xor.c", &opts).expect("compiles");
    assert!(auto.secret_products > 0);
    assert!(auto.mixed.is_none());
    let source = example("matmul16.c");
    let boolean = compile(&source, "matmul16.c", &CompileOptions::default()).unwrap();
    let mixed = compile_mixed(&source, "matmul16.c", &CompileOptions::default()).unwrap();
    let network = (&opts.network, &Parties::Two);
    let yao = Comparison::of(&mixed, &boolean.program, network.0, network.1).unwrap();
    let bound = (yao.yao_seconds.unwrap() / 2.0 * FLAT_GATES_PER_SECOND) as u64;
    let choose_with = |built_gates| {
        let compiled = MixedCompiled {
            built_gates,
            ..mixed.clone()
        };
        let products = boolean.secret_products;
        let mut compiled = Some(compiled);
        choose(
            Protocol::Auto,
            network,
            (&boolean.program, boolean.work),
            products,
            |_, _| Ok(compiled.take().expect("a LAN tries no more programs")),
        )
        .expect("estimates")
    };
    assert!(choose_with(bound).chosen.is_some());
    assert!(choose_with(bound + 1).chosen.is_none());
}
