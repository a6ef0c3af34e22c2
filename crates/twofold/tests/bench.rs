//! `twofold bench`: every benchmark runs on a small case and reports
//! figures consistent with the program measured (the figures themselves are
//! the machine's, so only their sense is checked).

use std::process::Command;

use serde_json::Value;

/// Runs `twofold ARGS --json` in the workspace root (where `examples/` is)
/// and returns the JSON it printed.
fn bench_json(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_twofold"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "twofold {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// AND gates of a program, as `stats` counts them.
fn and_gates(file: &str) -> u64 {
    bench_json(&["stats", file])["and_gates"].as_u64().unwrap()
}

fn positive(v: &Value) -> bool {
    v.as_f64().is_some_and(|x| x > 0.0 && x.is_finite())
}

#[test]
fn e2e_reports_both_parties_of_each_program() {
    let files = ["examples/millionaires.c", "examples/mvmul.c"];
    let v = bench_json(&["bench", "--runs", "1", "--e2e", files[0], files[1]]);
    let rows = v["e2e"].as_array().unwrap();
    // The matrix-vector product has products of secrets: it runs as
    // garbled circuits, as a mixed program, and as auto chooses for the
    // LAN (the mixed program).
    let expected = [
        (files[0], "yao"),
        (files[1], "yao"),
        (files[1], "mixed"),
        (files[1], "auto/mixed"),
    ];
    assert_eq!(rows.len(), expected.len());
    for (row, (file, protocol)) in rows.iter().zip(expected) {
        assert!(row["program"].as_str().unwrap().ends_with(file), "{row}");
        assert_eq!(row["protocol"], protocol, "{row}");
        assert!(positive(&row["wall_seconds"]), "{row}");
        assert!(positive(&row["peak_rss_bytes"]["a"]), "{row}");
        assert!(positive(&row["peak_rss_bytes"]["b"]), "{row}");
        assert!(positive(&row["seconds_a"]["compile"]), "{row}");
        if protocol == "yao" {
            assert_eq!(row["and_gates"].as_u64().unwrap(), and_gates(file));
            // At least the two half-gates blocks of every AND gate cross.
            assert!(row["bytes_per_and_gate"].as_f64().unwrap() >= 32.0, "{row}");
        }
    }
    let bytes = |row: &Value| row["bytes"].as_u64().unwrap();
    assert!(bytes(&rows[2]) * 20 < bytes(&rows[1]), "{rows:?}");
    assert_eq!(bytes(&rows[3]), bytes(&rows[2]), "{rows:?}");
}

/// A program file compiled from C takes its inputs as C values, struct
/// inputs as initializers (`{0}`), as its source does (it was given `0`,
/// which a struct refuses).
#[test]
fn e2e_runs_a_program_file_compiled_from_c() {
    let source = "examples/smith_waterman.c";
    let file = std::env::temp_dir().join(format!("twofold-e2e-{}.tfp", std::process::id()));
    let file = file.to_str().unwrap();
    let compiled = Command::new(env!("CARGO_BIN_EXE_twofold"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(["compile", source, "-o", file])
        .status()
        .unwrap();
    assert!(compiled.success());
    let v = bench_json(&["bench", "--runs", "1", "--e2e", file]);
    _ = std::fs::remove_file(file);
    let rows = v["e2e"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["and_gates"].as_u64().unwrap(), and_gates(source));
}

#[test]
fn garble_only_and_speedups_measure_the_program_given() {
    let file = "examples/mvmul.c";
    let ands = and_gates(file);
    for (flag, half) in [
        ("--garble-only", "garbling"),
        ("--evaluate-only", "evaluation"),
    ] {
        let v = bench_json(&[
            "bench",
            "--runs",
            "1",
            flag,
            file,
            "--threads",
            "2",
            "--schedule",
            "fgp",
        ]);
        assert_eq!(v["and_gates"].as_u64().unwrap(), ands);
        assert_eq!(v["schedule"], "fgp");
        assert_eq!(v["half"], half);
        assert!(positive(&v["and_gates_per_second"]), "{v}");
    }

    let svg = std::env::temp_dir().join(format!("twofold-speedup-{}.svg", std::process::id()));
    let v = bench_json(&[
        "bench",
        "--runs",
        "1",
        "--speedup",
        file,
        "--plot",
        svg.to_str().unwrap(),
    ]);
    let row = &v["speedups"][0];
    assert_eq!(row["program"], "mvmul");
    assert_eq!(row["and_gates"].as_u64().unwrap(), ands);
    assert!(positive(&row["protocol_speedup"]), "{row}");
    for half in ["garbling", "evaluation"] {
        for key in ["fgp_speedup", "cgp_speedup"] {
            assert!(positive(&row[half][key]), "{half} {key}: {row}");
        }
        assert_eq!(row[half]["ceiling"]["workers"], 2);
        assert!(positive(&row[half]["ceiling"]["speedup"]), "{row}");
    }
    let drawn = std::fs::read_to_string(&svg).unwrap();
    std::fs::remove_file(&svg).unwrap();
    assert!(
        drawn.starts_with("<svg") && drawn.contains("mvmul FGP"),
        "{drawn}"
    );
}

#[test]
fn artificial_measures_each_width() {
    let v = bench_json(&[
        "bench",
        "--runs",
        "1",
        "--artificial",
        "--depth",
        "8",
        "--max-width",
        "64",
    ]);
    let widths: Vec<u64> = v["artificial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["width"].as_u64().unwrap())
        .collect();
    assert_eq!(widths, [16, 32, 64]);
    for r in v["artificial"].as_array().unwrap() {
        assert_eq!(r["depth"], 8);
        assert!(
            positive(&r["speedup"]) && positive(&r["speedup_every_level"]),
            "{r}"
        );
        assert!(positive(&r["ceiling"]["together"]), "{r}");
        assert!(positive(&r["evaluate_speedup"]), "{r}");
        assert!(positive(&r["evaluate_ceiling"]["together"]), "{r}");
    }
    let e = &v["exchange"];
    assert_eq!(e["width"], 4096);
    for figure in [
        "one_thread_ns",
        "two_threads_own_ns",
        "two_threads_random_ns",
    ] {
        assert!(positive(&e[figure]), "{e}");
    }
}

#[test]
fn ipp_compares_the_three_modes() {
    let file = "examples/dotproduct.c";
    let v = bench_json(&["bench", "--runs", "1", "--ipp", file]);
    let row = &v["ipp"][0];
    assert_eq!(row["and_gates"].as_u64().unwrap(), and_gates(file));
    assert!(row["regions"].as_u64().unwrap() > 0, "{row}");
    for mode in ["without_ipp", "with_ipp", "with_ipp_no_overlap"] {
        assert!(positive(&row[mode]["seconds"]), "{mode}: {row}");
        assert!(positive(&row[mode]["bytes_a_to_b"]), "{mode}: {row}");
    }
    // With IPP party B garbles too, so it sends tables A does not.
    assert!(
        row["with_ipp"]["bytes_b_to_a"].as_u64() > row["without_ipp"]["bytes_b_to_a"].as_u64(),
        "{row}"
    );
}

#[test]
fn hybrid_reports_each_computing_party() {
    let file = "examples/millionaires4.c";
    let v = bench_json(&["bench", "--runs", "1", "--hybrid", file]);
    let row = &v["hybrid"][0];
    assert_eq!(row["and_gates"].as_u64().unwrap(), and_gates(file));
    let parties = row["parties"].as_array().unwrap();
    let names: Vec<&str> = parties
        .iter()
        .map(|p| p["party"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["cp1", "cp2", "cp3"]);
    // CP1 garbles and CP2 evaluates the program and its wrapping; CP3 none.
    let gates: Vec<u64> = parties
        .iter()
        .map(|p| p["and_gates"].as_u64().unwrap())
        .collect();
    assert!(
        gates[0] >= and_gates(file) && gates[0] == gates[1] && gates[2] == 0,
        "{row}"
    );
    assert!(
        row["protocol_seconds"].as_f64() <= row["session_seconds"].as_f64(),
        "{row}"
    );
    assert!(positive(&row["wall_seconds"]), "{row}");
}

#[test]
fn tls_reports_the_protocol_with_and_without_encryption() {
    let v = bench_json(&["bench", "--tls", "--quick", "--runs", "1"]);
    assert!(v["and_gates"].as_u64().unwrap() >= 5_000_000, "{v}");
    assert!(positive(&v["plain_and_gates_per_second"]), "{v}");
    assert!(positive(&v["tls_and_gates_per_second"]), "{v}");
    assert!(v["slowdown_percent"].as_f64().unwrap().is_finite(), "{v}");
    assert_eq!(v["cipher_suite"], "TLS13_AES_128_GCM_SHA256");
}
