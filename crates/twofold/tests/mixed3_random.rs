//! Random C programs that mix products of secrets with everything else
//! (`twofold_testkit::random_mixed_c_program`), run by the three computing
//! parties as mixed programs on shares (issue 30): for XOR and for
//! additive input and output shares, the combined output shares equal the
//! Boolean program's plaintext evaluation, on edge and random inputs.

use rand::{rngs::StdRng, Rng, SeedableRng};
use twofold::choice::shared_mixed;
use twofold::load::{lane_of, output_shapes, ValueKind};
use twofold_compiler::{compile, compile_mixed, CompileOptions};
use twofold_crypto::Prg;
use twofold_net::ChannelOptions;
use twofold_protocol::hybrid::shares::{combine, split};
use twofold_protocol::{run_mixed3_local, HybridOptions, ShareKind};
use twofold_testkit::random_mixed_c_program;

/// Number of random programs.
const PROGRAMS: u64 = 40;

#[test]
fn random_mixed_programs_on_shares_equal_plaintext() {
    let mut ran = 0;
    for seed in 0..PROGRAMS {
        let mut rng = StdRng::seed_from_u64(seed);
        let src = random_mixed_c_program(&mut rng);
        let opts = CompileOptions::default();
        let p = compile(&src, "random.c", &opts).unwrap_or_else(|e| panic!("{e}\n{src}"));
        let m = compile_mixed(&src, "random.c", &opts).unwrap_or_else(|e| panic!("{e}\n{src}"));
        let outputs = output_shapes(&p.program);
        let shared = shared_mixed(&m, (&p.program.main.inputs, &outputs));
        let main = &p.program.main;
        let lanes = |types: &[(String, twofold_compiler::CType)], widths: Vec<u32>| -> Vec<u32> {
            let kinds = types.iter().map(|(_, t)| ValueKind::C(t.clone()));
            kinds.zip(widths).map(|(k, w)| lane_of(&k, w)).collect()
        };
        let input_lanes = lanes(&p.inputs, main.inputs.iter().map(|v| v.width).collect());
        let output_lanes = lanes(
            &p.outputs,
            main.outputs.iter().map(|v| v.wires.len() as u32).collect(),
        );
        for run in 0..3 {
            let inputs: Vec<Vec<bool>> = main
                .inputs
                .iter()
                .map(|v| {
                    (0..v.width)
                        .map(|_| run == 1 || (run > 1 && rng.gen()))
                        .collect()
                })
                .collect();
            let want = p.program.eval(&inputs).unwrap();
            for kind in ShareKind::ALL {
                let mut prg = Prg::from_os();
                let mut shares: [Vec<Vec<bool>>; 3] = Default::default();
                for (value, &lane) in inputs.iter().zip(&input_lanes) {
                    for (k, s) in split(kind, lane, value, &mut prg).into_iter().enumerate() {
                        shares[k].push(s);
                    }
                }
                let opts = HybridOptions {
                    input_kinds: vec![kind; inputs.len()],
                    input_lanes: input_lanes.clone(),
                    output_kind: kind,
                    output_lanes: output_lanes.clone(),
                    threads: 1,
                    ..HybridOptions::default()
                };
                let reports = run_mixed3_local(&shared, &shares, &opts, &ChannelOptions::default())
                    .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{src}"));
                for (j, want) in want.iter().enumerate() {
                    let s: [&[bool]; 3] =
                        std::array::from_fn(|k| reports[k].output_shares[j].as_slice());
                    assert_eq!(
                        &combine(kind, output_lanes[j], s),
                        want,
                        "seed {seed}, run {run}, {kind} shares, output {j}\n{src}"
                    );
                }
            }
            ran += 1;
        }
    }
    assert_eq!(ran, 3 * PROGRAMS);
}
