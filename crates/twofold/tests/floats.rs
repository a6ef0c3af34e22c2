//! `float` and `double` programs from the command line: two parties in one
//! process, with inter-party parallelism over a region, three parties on
//! XOR and additive shares, inputs from JSON and CSV files, and outputs as
//! text and JSON. Expected values are the host's IEEE arithmetic.

use std::hint::black_box;
use std::path::PathBuf;

mod common;
mod keys;
use common::{free_port, path, twofold_ok};

fn workspace(test: &str, files: &[(&str, &str)]) -> PathBuf {
    common::workspace(&format!("floats-{test}"), files)
}

const MIXED: &str =
    "double mpc_main(double INPUT_A, float INPUT_B) { return INPUT_A / INPUT_B + 0.5; }\n";

fn mixed(a: f64, b: f32) -> f64 {
    black_box(a) / black_box(b) as f64 + 0.5
}

#[test]
fn two_parties_and_json_outputs() {
    let dir = workspace("two", &[("mixed.c", MIXED)]);
    let file = path(&dir, "mixed.c");
    for (a, b, text, json) in [
        ("1.25", "-0.1", format!("{:?}", mixed(1.25, -0.1)), None),
        (
            "0x1p-1074",
            "4",
            format!("{:?}", mixed(f64::from_bits(1), 4.0)),
            None,
        ),
        ("inf", "-0.0", "-inf".to_string(), Some("\"-inf\"")),
        ("-1", "0", "-inf".to_string(), Some("\"-inf\"")),
        ("nan", "1", "nan".to_string(), Some("\"nan\"")),
        // (SSE's default NaN is negative, and prints so, as in C.)
        ("inf", "inf", "-nan".to_string(), Some("\"-nan\"")),
        ("1e308", "1e-30", "inf".to_string(), Some("\"inf\"")),
        ("3", "1.5", "2.5".to_string(), Some("2.5")),
    ] {
        let ia = format!("INPUT_A={a}");
        let ib = format!("INPUT_B={b}");
        let out = twofold_ok(&["run", &file, "--local", "-i", &ia, "-i", &ib]);
        assert_eq!(out.trim(), text, "{a} / {b}");
        if let Some(json) = json {
            let out = twofold_ok(&["run", &file, "--local", "-i", &ia, "-i", &ib, "--json"]);
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(v["outputs"]["return"].to_string(), json, "{out}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn inputs_from_json_and_csv_files() {
    let src = "typedef struct { float w; double v; } R;\ndouble mpc_main(R INPUT_A[3], float INPUT_B[3])\n{\n    double s = 0;\n    for (int i = 0; i < 3; i++) s += INPUT_A[i].v * INPUT_A[i].w + INPUT_B[i];\n    return s;\n}\n";
    let dir = workspace(
        "files",
        &[
            ("s.c", src),
            (
                "a.json",
                "[{\"w\": 1.5, \"v\": 2}, {\"w\": \"-inf\", \"v\": -0.25}, [0.1, 1e-3]]",
            ),
            ("b.csv", "1.5\n-2\n0x1p-3\n"),
        ],
    );
    let ia = format!("INPUT_A=@{}", path(&dir, "a.json"));
    let ib = format!("INPUT_B=@{}", path(&dir, "b.csv"));
    let out = twofold_ok(&["run", &path(&dir, "s.c"), "--local", "-i", &ia, "-i", &ib]);
    let w = [1.5f32, f32::NEG_INFINITY, 0.1];
    let v = [2.0f64, -0.25, 1e-3];
    let b = [1.5f32, -2.0, 0.125];
    let mut s = 0.0f64;
    for i in 0..3 {
        s += black_box(v[i]) * black_box(w[i]) as f64 + black_box(b[i]) as f64;
    }
    assert_eq!(out.trim(), format!("{s:?}"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A negative NaN read from a JSON file, as the output prints it.
#[test]
fn a_negative_nan_from_a_json_file() {
    let src = "double mpc_main(double INPUT_A[2], double INPUT_B) { return INPUT_A[0] + INPUT_A[1] * INPUT_B; }\n";
    let dir = workspace("nan", &[("n.c", src), ("a.json", "[\"-nan\", 1]")]);
    let ia = format!("INPUT_A=@{}", path(&dir, "a.json"));
    let out = twofold_ok(&[
        "run",
        &path(&dir, "n.c"),
        "--local",
        "-i",
        &ia,
        "-i",
        "INPUT_B=2",
    ]);
    assert_eq!(out.trim(), "-nan");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A region of independent float iterations, with both parties garbling.
#[test]
fn a_region_with_inter_party_parallelism() {
    let src = "#define N 8\nvoid mpc_main(void)\n{\n    double INPUT_A_x[N];\n    float INPUT_B_w[N];\n    double OUTPUT_y[N];\n    for (int i = 0; i < N; i++) OUTPUT_y[i] = INPUT_A_x[i] * INPUT_B_w[i] - 1.0;\n}\n";
    let dir = workspace("ipp", &[("r.c", src)]);
    let file = path(&dir, "r.c");
    let stats = twofold_ok(&["stats", &file]);
    assert!(stats.contains("kept: region of 8"), "{stats}");
    let x = [0.5, -3.0, 1e300, 7.25, -0.0, 2.0, 1e-310, 3.0];
    let w = [2.0f32, 0.1, 1e10, -1.0, 5.0, f32::INFINITY, 0.5, 1.0 / 3.0];
    let text = |v: &[String]| format!("{{{}}}", v.join(", "));
    let ia = format!("INPUT_A_x={}", text(&x.map(|v| format!("{v:?}"))));
    let ib = format!("INPUT_B_w={}", text(&w.map(|v| format!("{v:?}"))));
    let want: Vec<String> = (0..8)
        .map(|i| format!("{:?}", black_box(x[i]) * black_box(w[i]) as f64 - 1.0))
        .collect();
    for extra in [&[][..], &["--ipp"][..], &["--ipp", "--threads", "2"][..]] {
        let mut args = vec!["run", &file, "--local", "-i", &ia, "-i", &ib];
        args.extend_from_slice(extra);
        let out = twofold_ok(&args);
        assert_eq!(out.trim(), text(&want), "{extra:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Three computing parties on XOR and on additive shares of the bits.
#[test]
fn three_parties_on_shares() {
    let dir = workspace("three", &[("mixed.c", MIXED)]);
    let file = path(&dir, "mixed.c");
    for (kind, a, b) in [("xor", 1.25, -0.1f32), ("add", -7.5, 3.0e-3)] {
        let store = path(&dir, &format!("store-{kind}"));
        let ia = format!("INPUT_A={a:?}");
        let ib = format!("INPUT_B={b:?}");
        twofold_ok(&[
            "share", &file, "--kind", kind, "-i", &ia, "-i", &ib, "--out", &store,
        ]);
        twofold_ok(&[
            "run",
            &file,
            "--parties",
            "3",
            "--local",
            "--store",
            &store,
            "--kind",
            kind,
        ]);
        let out = twofold_ok(&["reconstruct", &file, "--store", &store]);
        assert_eq!(out.trim(), format!("{:?}", mixed(a, b)), "{kind}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Party A and party B as two processes over TCP (the linear model
/// example), each printing the output.
#[test]
fn two_processes() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/linear_model.c");
    let addr = format!("127.0.0.1:{}", free_port());
    let party = |name: &str, side: &str, input: &str| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_twofold"));
        c.args(["run", file, "--party", name, side, &addr, "-i", input])
            .args(keys::two(name))
            .stdout(std::process::Stdio::piped());
        c
    };
    let model = "INPUT_A={{0.5, -1.25, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.125}, -0.5}";
    let features = "INPUT_B={1, 2, 0.25, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 8}";
    let a = party("a", "--listen", model).spawn().unwrap();
    let b = party("b", "--connect", features).output().unwrap();
    let a = a.wait_with_output().unwrap();
    for out in [a, b] {
        assert!(out.status.success());
        assert_eq!(String::from_utf8(out.stdout).unwrap().trim(), "{-1.0, 0}");
    }
}

/// The library facade: a `double` output read as a number.
#[test]
fn the_api_reads_floating_outputs() {
    use twofold::api::{Party, SecureProgram};
    let program = SecureProgram::compile(MIXED).unwrap();
    let a = program.inputs_of(Party::A, &[("INPUT_A", "-2.5")]).unwrap();
    let b = program
        .inputs_of(Party::B, &[("INPUT_B", "0x1p-3")])
        .unwrap();
    let outputs = program.run_local(&a, &b).unwrap();
    assert_eq!(outputs.float("return"), Some(mixed(-2.5, 0.125)));
    assert_eq!(outputs.int("return"), None);
    assert_eq!(outputs.text("return").as_deref(), Some("-19.5"));
}
