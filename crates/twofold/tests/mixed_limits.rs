//! A C program whose garbled circuits exceed the compile limits while its
//! mixed program compiles (HyCC's cryptonets and MNIST networks: the
//! Boolean compilation stops at its step budget, the mixed one takes under
//! a second) runs as the mixed program, with `--protocol auto` or `mixed`,
//! as two parties and as three; `--protocol yao` keeps the compile error,
//! and `stats` says why garbled circuits are out of reach.

use std::process::Command;

use serde_json::Value;

mod common;
use common::{path, twofold_ok, workspace};

const N: i64 = 3000;

/// A dot product of 3,000 `int32_t` products: flat (`--no-loops`), its
/// garbled circuits need far more than 32 MiB to compile, its mixed
/// program (one dot product) far less.
const DOT: &str = "#include <stdint.h>
#define N 3000
typedef struct { int32_t v[N]; } Vec;
int32_t mpc_main(Vec INPUT_A, Vec INPUT_B)
{
    int32_t s = 0;
    for (int i = 0; i < N; i++)
        s += INPUT_A.v[i] * INPUT_B.v[i];
    return s;
}
";

fn values(f: impl Fn(i64) -> i64) -> Vec<i64> {
    (0..N).map(f).collect()
}

fn initializer(v: &[i64]) -> String {
    let items: Vec<String> = v.iter().map(i64::to_string).collect();
    format!("{{{{{}}}}}", items.join(", "))
}

/// The workspace with the program and both inputs, and the product's
/// value as gcc computes it (`int32_t`, wrapping).
fn setup(tag: &str) -> (std::path::PathBuf, i64) {
    let a = values(|i| i * 7 - 1000);
    let b = values(|i| 100_000 - i * 13);
    let dot = a.iter().zip(&b).fold(0i32, |s, (x, y)| {
        s.wrapping_add((*x as i32).wrapping_mul(*y as i32))
    });
    let dir = workspace(
        tag,
        &[
            ("dot.c", DOT),
            ("a.txt", &initializer(&a)),
            ("b.txt", &initializer(&b)),
        ],
    );
    (dir, dot.into())
}

/// The options that put the garbled circuits beyond the limits.
const LIMITED: [&str; 3] = ["--no-loops", "--max-memory", "64M"];

fn inputs(dir: &std::path::Path) -> Vec<String> {
    vec![
        "-i".into(),
        format!("INPUT_A=@{}", path(dir, "a.txt")),
        "-i".into(),
        format!("INPUT_B=@{}", path(dir, "b.txt")),
    ]
}

#[test]
fn two_parties_run_the_mixed_program_of_a_program_beyond_the_limits() {
    let (dir, dot) = setup("limits2");
    let program = path(&dir, "dot.c");
    for protocol in ["auto", "mixed"] {
        let mut args = vec!["run".to_string(), program.clone(), "--local".into()];
        args.extend(["--json".into(), "--protocol".into(), protocol.into()]);
        args.extend(LIMITED.map(String::from));
        args.extend(inputs(&dir));
        let report: Value = serde_json::from_str(&twofold_ok(&args)).unwrap();
        assert_eq!(report["outputs"]["return"], dot, "{protocol}: {report}");
        let estimate = &report["mixed"]["estimate"];
        assert!(estimate["yao_bytes"].is_null(), "{estimate}");
        assert!(estimate["mixed_bytes"].as_u64().unwrap() > 0);
    }
    // Garbled circuits alone: the compile error, as before.
    let mut args = vec!["run".to_string(), program.clone(), "--local".into()];
    args.extend(["--protocol".into(), "yao".into()]);
    args.extend(LIMITED.map(String::from));
    args.extend(inputs(&dir));
    let out = Command::new(env!("CARGO_BIN_EXE_twofold"))
        .args(&args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("error: compiling the program would need more than --max-memory"),
        "{stderr}"
    );
    // `eval --protocol auto` evaluates the mixed program in the clear.
    let mut args = vec!["eval".to_string(), program.clone(), "--json".into()];
    args.extend(["--protocol".into(), "auto".into()]);
    args.extend(LIMITED.map(String::from));
    args.extend(inputs(&dir));
    let report: Value = serde_json::from_str(&twofold_ok(&args)).unwrap();
    assert_eq!(report["outputs"]["return"], dot, "{report}");
    // `stats` says why the mixed program runs.
    let mut args = vec!["stats".to_string(), program.clone()];
    args.extend(LIMITED.map(String::from));
    let text = twofold_ok(&args);
    assert!(
        text.contains("garbled circuits: beyond the compile limits"),
        "{text}"
    );
    // Stopped at memory, they name the limit given, not the half of it
    // they had beside the mixed compilation.
    if text.contains("--max-memory") {
        assert!(
            text.contains("the 32 MiB of --max-memory (64 MiB)"),
            "{text}"
        );
    }
    args.push("--json".into());
    let json: Value = serde_json::from_str(&twofold_ok(&args)).unwrap();
    // (The memory limit, or the mixed compilation outrunning the Boolean
    // one, whichever comes first.)
    assert!(json["not_garbled"].as_str().is_some(), "{json}");
    // Within the limits, the same program runs as before: its garbled
    // circuits are compiled and weighed.
    let json: Value = serde_json::from_str(&twofold_ok(&["stats", &program, "--json"])).unwrap();
    assert!(json["and_gates"].as_u64().unwrap() > 0, "{json}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn three_parties_share_run_and_reconstruct_it_too() {
    let (dir, dot) = setup("limits3");
    let program = path(&dir, "dot.c");
    let store = path(&dir, "store");
    let with_limits = |mut args: Vec<String>| {
        args.extend(LIMITED.map(String::from));
        twofold_ok(&args)
    };
    let mut share = vec!["share".to_string(), program.clone()];
    share.extend(["--kind", "add", "--out", &store].map(String::from));
    share.extend(inputs(&dir));
    with_limits(share);
    let run = [
        "run",
        &program,
        "--parties",
        "3",
        "--local",
        "--store",
        &store,
    ];
    with_limits(run.map(String::from).to_vec());
    let reconstruct = ["reconstruct", &program, "--store", &store, "--json"];
    let out: Value = serde_json::from_str(&with_limits(reconstruct.map(String::from).to_vec()))
        .expect("reconstructed outputs");
    assert_eq!(out["outputs"]["return"], dot, "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
