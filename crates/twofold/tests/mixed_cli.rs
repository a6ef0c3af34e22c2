//! `twofold mixed FILE`: the estimate of a mixed program for a network,
//! a local run, and clear errors.

use std::process::Command;

use serde_json::Value;
use twofold_circuit::mixed::format::write_mixed;
use twofold_testkit::mixed_matmul;

mod common;
use common::{spawn, twofold_ok};

/// A 2×2 product of 16-bit matrices, written to a temporary file.
fn matmul_file(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("matmul.tfm");
    let mut bytes = Vec::new();
    write_mixed(&mixed_matmul(2, 16), &mut bytes).unwrap();
    std::fs::write(&path, bytes).unwrap();
    path
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("twofold-mixed-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_mixed_program_is_estimated_and_run() {
    let dir = scratch("run");
    let file = matmul_file(&dir);
    let file = file.to_str().unwrap();
    let text = twofold_ok(&["mixed", file, "--network", "wan"]);
    assert!(
        text.contains("8 cross products, 0 shared products"),
        "{text}"
    );
    assert!(text.contains("100 Mbit/s, 20 ms round trip"), "{text}");
    assert!(text.contains("pure garbled circuits"), "{text}");
    // `stats` shows the same partition.
    assert_eq!(twofold_ok(&["stats", file, "--network", "wan"]), text);
    // [[1, 2], [3, 4]] times [[5, 6], [7, -1]] modulo 2^16.
    let mut args = vec!["mixed", file, "--local", "--json"];
    let values = [
        "x0=1", "x1=2", "x2=3", "x3=4", "y0=5", "y1=6", "y2=7", "y3=-1",
    ];
    for v in &values {
        args.extend(["-i", v]);
    }
    let json: Value = serde_json::from_str(&twofold_ok(&args)).unwrap();
    let outputs: Vec<(String, String)> =
        serde_json::from_value(json["run"]["outputs"].clone()).unwrap();
    let got: Vec<&str> = outputs.iter().map(|(_, v)| v.as_str()).collect();
    assert_eq!(got, ["19", "4", "43", "14"]);
    assert_eq!(json["rounds"], 1);
    assert!(json["yao_bytes"].as_u64() > json["mixed_bytes"].as_u64());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_networks_inputs_and_files_are_clear_errors() {
    let dir = scratch("errors");
    let file = matmul_file(&dir);
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_twofold"))
            .arg("mixed")
            .args(args)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?} succeeded");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(!err.contains("panicked"), "{err}");
        err
    };
    let file = file.to_str().unwrap();
    assert!(run(&[file, "--network", "100mbit"]).contains("no comma"));
    assert!(run(&[file, "--local", "-i", "x0=1"]).contains("is missing"));
    assert!(run(&[file, "--local", "-i", "x0=70000"]).contains("does not fit in 16 bits"));
    assert!(run(&[file, "-i", "x0=1"]).contains("add --local"));
    let two = [
        file,
        "--party",
        "a",
        "--connect",
        "127.0.0.1:9",
        "--insecure",
    ];
    assert!(run(&[&two[..], &["-i", "y0=1"]].concat()).contains("is the other party's"));
    assert!(run(&[file, "--party", "a", "--connect", "127.0.0.1:9"]).contains("secure channel"));
    let bad = dir.join("bad.tfm");
    std::fs::write(&bad, b"TWOFOLDM\x01\0\0\0\x07").unwrap();
    assert!(run(&[bad.to_str().unwrap()]).contains("not a valid mixed program"));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn two_processes_run_a_mixed_program_over_the_secure_channel() {
    let dir = scratch("remote");
    let file = matmul_file(&dir);
    let psk = dir.join("pair");
    twofold_ok(&["keygen", "--psk", "-o", psk.to_str().unwrap()]);
    let psk = dir.join("pair.psk");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let party = |name: &str, place: &str, inputs: [&str; 4]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_twofold"));
        cmd.arg("mixed")
            .arg(&file)
            .args(["--party", name, place, &addr, "--psk-file"])
            .arg(&psk)
            .args(["--timeout", "20", "--json"]);
        for v in inputs {
            cmd.args(["-i", v]);
        }
        spawn(&mut cmd)
    };
    let a = party("a", "--listen", ["x0=1", "x1=2", "x2=3", "x3=4"]);
    let b = party("b", "--connect", ["y0=5", "y1=6", "y2=7", "y3=65535"]);
    for out in [a.join().unwrap(), b.join().unwrap()] {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        let outputs: Vec<(String, String)> =
            serde_json::from_value(json["run"]["outputs"].clone()).unwrap();
        let got: Vec<&str> = outputs.iter().map(|(_, v)| v.as_str()).collect();
        assert_eq!(got, ["19", "4", "43", "14"]);
    }
    std::fs::remove_dir_all(dir).unwrap();
}
