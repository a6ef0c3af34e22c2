//! C programs run as mixed programs (issue 29): `run` chooses arithmetic
//! sharing for sums of products where the estimate says so, with the
//! outputs of garbled circuits and a small part of their bytes; between
//! processes over the secure channel; `stats` shows the partition,
//! `compile --protocol mixed` writes it; parties that disagree stop.

use std::process::Command;

use serde_json::Value;

mod common;
use common::{spawn, twofold_ok};

fn example(name: &str) -> String {
    format!("{}/../../examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// `run --local --json` of an example with its data files.
fn run_local(file: &str, inputs: [&str; 2], protocol: &str) -> Value {
    run_local_on(file, inputs, protocol, "lan")
}

/// [`run_local`], the protocol chosen for `network`.
fn run_local_on(file: &str, inputs: [&str; 2], protocol: &str, network: &str) -> Value {
    let out = twofold_ok(&[
        "run".to_string(),
        example(file),
        "--local".into(),
        "--json".into(),
        "--protocol".into(),
        protocol.into(),
        "--network".into(),
        network.into(),
        "-i".into(),
        format!("INPUT_A=@{}", example(inputs[0])),
        "-i".into(),
        format!("INPUT_B=@{}", example(inputs[1])),
    ]);
    serde_json::from_str(&out).unwrap()
}

/// The walk of `score_walk.c` multiplies a word comparisons made: `auto`
/// on a slow link gives those products their garbled circuits and keeps
/// the matrix product arithmetic, estimated (and run) faster than both
/// all-arithmetic and pure garbled circuits, with their outputs (gcc's:
/// score 14,723).
#[test]
fn auto_gives_products_between_comparisons_their_garbled_circuits() {
    let inputs = ["data/score_walk_a.txt", "data/score_walk_b.txt"];
    let yao = run_local_on("score_walk.c", inputs, "yao", "wan");
    let all = run_local_on("score_walk.c", inputs, "mixed", "wan");
    let auto = run_local_on("score_walk.c", inputs, "auto", "wan");
    assert_eq!(yao["outputs"]["return"][1], 14723);
    assert_eq!(auto["outputs"], yao["outputs"]);
    assert_eq!(all["outputs"], yao["outputs"]);
    let (m_all, m_auto) = (&all["mixed"], &auto["mixed"]);
    assert_eq!(m_all["boolean_sums"], 0, "{m_all}");
    assert!(m_auto["boolean_sums"].as_u64().unwrap() >= 23, "{m_auto}");
    assert!(
        m_auto["arithmetic_sums"].as_u64().unwrap() >= 64,
        "{m_auto}"
    );
    assert_eq!(m_auto["estimate"]["mixed_bytes"], auto["bytes"], "{m_auto}");
    let seconds = |m: &Value| m["estimate"]["mixed_seconds"].as_f64().unwrap();
    let yao_seconds = m_auto["estimate"]["yao_seconds"].as_f64().unwrap();
    assert!(seconds(m_auto) * 4.0 < seconds(m_all), "{m_auto} {m_all}");
    assert!(seconds(m_auto) * 4.0 < yao_seconds, "{m_auto}");
    assert!(m_auto["rounds"].as_u64().unwrap() * 10 < m_all["rounds"].as_u64().unwrap());
}

#[test]
fn products_run_in_arithmetic_sharing_with_the_outputs_of_garbled_circuits() {
    for (file, inputs, ratio) in [
        (
            "matmul16.c",
            ["data/matmul16_a.txt", "data/matmul16_b.txt"],
            20,
        ),
        ("mlp.c", ["data/mlp_model.txt", "data/mlp_features.txt"], 5),
    ] {
        let yao = run_local(file, inputs, "yao");
        let auto = run_local(file, inputs, "auto");
        assert_eq!(yao["protocol"], "yao");
        assert_eq!(auto["protocol"], "mixed", "{file}: {auto}");
        assert_eq!(auto["outputs"], yao["outputs"], "{file}");
        let bytes = |v: &Value| v["bytes"].as_u64().unwrap();
        assert!(bytes(&auto) * ratio <= bytes(&yao), "{file}: {auto} {yao}");
        let sent = &auto["bytes_sent"];
        assert_eq!(
            sent["a"].as_u64().unwrap() + sent["b"].as_u64().unwrap(),
            bytes(&auto)
        );
        let mixed = &auto["mixed"];
        assert!(mixed["arithmetic_sums"].as_u64().unwrap() > 0, "{mixed}");
        assert_eq!(mixed["estimate"]["mixed_bytes"], bytes(&auto), "{mixed}");
    }
    let mlp = run_local(
        "mlp.c",
        ["data/mlp_model.txt", "data/mlp_features.txt"],
        "mixed",
    );
    assert_eq!(mlp["outputs"]["return"], 8);
}

/// Programs that mostly compare have no products of secrets: `auto` runs
/// them as garbled circuits, with the same bytes as `yao`.
#[test]
fn programs_without_products_stay_in_garbled_circuits() {
    for (file, inputs) in [
        ("psi.c", ["data/psi_a.txt", "data/psi_b.txt"]),
        ("sha256.c", ["data/sha256_a.txt", "data/sha256_b.txt"]),
    ] {
        let yao = run_local(file, inputs, "yao");
        let auto = run_local(file, inputs, "auto");
        assert_eq!(auto["protocol"], "yao", "{file}");
        assert_eq!(auto["bytes"], yao["bytes"], "{file}");
        assert_eq!(auto["outputs"], yao["outputs"], "{file}");
    }
}

#[test]
fn two_processes_run_a_c_program_as_a_mixed_program_over_the_secure_channel() {
    let dir = std::env::temp_dir().join(format!("twofold-mixed-c-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let psk = dir.join("pair");
    twofold_ok(&["keygen", "--psk", "-o", psk.to_str().unwrap()]);
    let psk = dir.join("pair.psk");
    // Party `name` of a run of the MLP at `addr`, with `args`.
    let party = |addr: &str, name: &str, place: &str, args: [&str; 4]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_twofold"));
        cmd.arg("run")
            .arg(example("mlp.c"))
            .args(["--party", name, place, addr, "--psk-file"])
            .arg(&psk)
            .args(["--timeout", "20", "--json"])
            .args(args);
        spawn(&mut cmd)
    };
    let model = format!("INPUT_A=@{}", example("data/mlp_model.txt"));
    let features = format!("INPUT_B=@{}", example("data/mlp_features.txt"));
    let addr = format!("127.0.0.1:{}", common::free_port());
    let a = party(&addr, "a", "--listen", ["--protocol", "auto", "-i", &model]);
    let b = party(
        &addr,
        "b",
        "--connect",
        ["--protocol", "auto", "-i", &features],
    );
    for out in [a.join().unwrap(), b.join().unwrap()] {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(json["protocol"], "mixed");
        assert_eq!(json["outputs"]["return"], 8);
    }
    // A party running the compiled file (`twofold mixed FILE.tfm`, its C
    // interface taking the C values) and one running the C source agree
    // on the program.
    let tfm = dir.join("mlp.tfm");
    let mlp = example("mlp.c");
    let tfm_arg = tfm.display().to_string();
    twofold_ok(&["compile", &mlp, "--protocol", "mixed", "-o", &tfm_arg]);
    let addr = format!("127.0.0.1:{}", common::free_port());
    let a = party(
        &addr,
        "a",
        "--listen",
        ["--protocol", "mixed", "-i", &model],
    );
    let mut from_file = Command::new(env!("CARGO_BIN_EXE_twofold"));
    from_file
        .args([
            "mixed",
            &tfm_arg,
            "--party",
            "b",
            "--connect",
            &addr,
            "--psk-file",
        ])
        .arg(&psk)
        .args(["--timeout", "20", "--json", "-i", &features]);
    let b = spawn(&mut from_file);
    let (a, b) = (a.join().unwrap(), b.join().unwrap());
    for out in [&a, &b] {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let a: Value = serde_json::from_slice(&a.stdout).unwrap();
    let b: Value = serde_json::from_slice(&b.stdout).unwrap();
    assert_eq!(a["outputs"]["return"], 8);
    assert_eq!(b["run"]["outputs"], serde_json::json!([["return", "8"]]));
    // Parties that run different protocols stop with an error, not a
    // wrong result.
    let addr = format!("127.0.0.1:{}", common::free_port());
    let a = party(&addr, "a", "--listen", ["--protocol", "yao", "-i", &model]);
    let b = party(
        &addr,
        "b",
        "--connect",
        ["--protocol", "mixed", "-i", &features],
    );
    for out in [a.join().unwrap(), b.join().unwrap()] {
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("disagree on the program"), "{err}");
        assert!(err.contains("--protocol"), "{err}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn stats_shows_the_partition_and_compile_writes_it() {
    let stats = twofold_ok(&["stats".to_string(), example("matmul16.c")]);
    assert!(stats.contains("runs as a mixed program"), "{stats}");
    assert!(stats.contains("4096 cross products"), "{stats}");
    assert!(stats.contains("estimate on 1000 Mbit/s"), "{stats}");
    // Biometric matching: each difference is A's word and B's negated,
    // its square two local squares and one cross product; no Y→A.
    let bio = twofold_ok(&["stats".to_string(), example("biomatch.c")]);
    assert!(
        bio.contains("2048 cross products, 0 shared products"),
        "{bio}"
    );
    assert!(bio.contains(" 0 Y→A"), "{bio}");
    assert!(
        bio.contains("words a party computes alone, in the clear: 0"),
        "{bio}"
    );
    // A's threshold on its own values is A's word: no garbled gates.
    let dir = std::env::temp_dir().join(format!("twofold-local-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("threshold.c");
    std::fs::write(
        &file,
        "#include <stdint.h>\n\
         typedef struct { int32_t v[8]; } V;\n\
         int32_t mpc_main(V INPUT_A, V INPUT_B)\n{\n\
         \x20   int32_t s = 0;\n\
         \x20   for (int i = 0; i < 8; i++)\n\
         \x20       s += (INPUT_A.v[i] > 100) * INPUT_B.v[i];\n\
         \x20   return s;\n}\n",
    )
    .unwrap();
    let path = file.to_string_lossy().to_string();
    let args = ["stats", &path, "--protocol", "mixed"].map(String::from);
    let local = twofold_ok(&args);
    assert!(
        local.contains("words a party computes alone, in the clear: 8"),
        "{local}"
    );
    assert!(local.contains("garbled: 0 AND gates"), "{local}");
    std::fs::remove_dir_all(&dir).ok();
    let yao = twofold_ok(&[
        "stats".to_string(),
        example("matmul16.c"),
        "--protocol".into(),
        "yao".into(),
    ]);
    assert!(!yao.contains("mixed"), "{yao}");
    let json: Value = serde_json::from_str(&twofold_ok(&[
        "stats".to_string(),
        example("mlp.c"),
        "--json".into(),
    ]))
    .unwrap();
    assert!(
        json["choice"]["mixed_bytes"].as_u64().unwrap() > 0,
        "{json}"
    );
    assert!(json["mixed"]["rounds"].as_u64().unwrap() > 0, "{json}");

    let dir = std::env::temp_dir().join(format!("twofold-mixed-c-tfm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tfm = dir.join("matmul16.tfm");
    let line = twofold_ok(&[
        "compile".to_string(),
        example("matmul16.c"),
        "--protocol".into(),
        "mixed".into(),
        "-o".into(),
        tfm.display().to_string(),
    ]);
    assert!(line.contains("256 sums of products"), "{line}");
    let estimate = twofold_ok(&["mixed".to_string(), tfm.display().to_string()]);
    assert!(estimate.contains("4096 cross products"), "{estimate}");
    // A circuit has no sums to partition: asking for it is an error.
    let circuit = dir.join("and.txt");
    std::fs::write(&circuit, "1 3\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_twofold"))
        .args(["stats", "--protocol", "mixed"])
        .arg(&circuit)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("partitions C programs"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// `compile --protocol mixed` writes the mixed program with its C
/// interface: `twofold mixed FILE.tfm` takes the C inputs' values as the C
/// source's run does (initializers, input files), computes the words a
/// party computes alone, and shows the C outputs; `run FILE.tfm` says to
/// use `mixed`.
#[test]
fn a_compiled_mixed_program_runs_on_the_c_programs_values() {
    let dir = std::env::temp_dir().join(format!("twofold-mixed-c-iface-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("threshold.c");
    std::fs::write(
        &source,
        "#include <stdint.h>\n\
         typedef struct { int16_t v[6]; } V;\n\
         typedef struct { int32_t sum; _Bool big; } Out;\n\
         Out mpc_main(V INPUT_A, V INPUT_B)\n{\n\
         \x20   Out o = {0, 0};\n\
         \x20   for (int i = 0; i < 6; i++)\n\
         \x20       o.sum += (INPUT_A.v[i] > 100) * INPUT_B.v[i] * INPUT_A.v[i];\n\
         \x20   o.big = o.sum > 1000;\n\
         \x20   return o;\n}\n",
    )
    .unwrap();
    let source = source.display().to_string();
    let tfm = dir.join("threshold.tfm").display().to_string();
    twofold_ok(&["compile", &source, "--protocol", "mixed", "-o", &tfm]);
    let a = "INPUT_A={200, -3, 101, 100, 7, 300}";
    let b = "INPUT_B={1, 2, -3, 4, 5, 6}";
    let want = twofold_ok(&[
        "run",
        &source,
        "--local",
        "--protocol",
        "mixed",
        "-i",
        a,
        "-i",
        b,
    ]);
    assert_eq!(want, "{1697, 1}\n");
    let json: Value = serde_json::from_str(&twofold_ok(&[
        "mixed", &tfm, "--local", "--json", "-i", a, "-i", b,
    ]))
    .unwrap();
    assert_eq!(
        json["run"]["outputs"],
        serde_json::json!([["return", want.trim_end()]])
    );
    assert!(json["ops"]["and_gates"].as_u64().unwrap() > 0);
    // The estimate names the C values.
    let estimate = twofold_ok(&["mixed", &tfm]);
    assert!(
        estimate.contains("inputs INPUT_A (party a, struct <anonymous>, 96 bits)"),
        "{estimate}"
    );
    // From a file, as `run` reads it.
    let values = dir.join("b.txt");
    std::fs::write(&values, "{1, 2, -3, 4, 5, 6}\n").unwrap();
    let from_file = format!("INPUT_B=@{}", values.display());
    let text = twofold_ok(&["mixed", &tfm, "--local", "-i", a, "-i", &from_file]);
    assert!(text.contains(&format!("return = {want}")), "{text}");
    let fails = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_twofold"))
            .args(args)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?} succeeded");
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let err = fails(&["mixed", &tfm, "--local", "-i", a, "-i", "INPUT_C=1"]);
    assert!(err.contains("INPUT_A, INPUT_B"), "{err}");
    assert!(fails(&["mixed", &tfm, "--local", "-i", a]).contains("\"INPUT_B\" is missing"));
    assert!(fails(&["mixed", &tfm, "--local", "-i", a, "-i", a, "-i", b]).contains("given twice"));
    assert!(fails(&[
        "mixed",
        &tfm,
        "--local",
        "-i",
        a,
        "-i",
        "INPUT_B={1, 2, 3, 4, 5, 6, 7}"
    ])
    .contains("INPUT_B"));
    assert!(fails(&["run", &tfm, "--local"]).contains("twofold mixed"));
    std::fs::remove_dir_all(dir).unwrap();
}

/// A chain of products and comparisons on a slow, far link: `auto` weighs
/// the mixed programs and keeps garbled circuits, and `stats` says so
/// with the estimates it weighed (it said nothing before).
#[test]
fn stats_shows_the_estimates_auto_declined() {
    let src = "#include <stdint.h>
int32_t mpc_main(int32_t INPUT_A_x[4], int32_t INPUT_B_y[4]) {
    int32_t s = INPUT_A_x[0] * INPUT_B_y[0];
    for (int i = 1; i < 4; i++) { s = s * INPUT_A_x[i] + INPUT_B_y[i]; if (s > 1000) s -= 1000; }
    return s;
}
";
    let dir = common::workspace("declined", &[("chain.c", src)]);
    let file = common::path(&dir, "chain.c");
    let stats = |json: bool| {
        let mut args = vec!["stats", &file, "--network", "10mbit,100ms"];
        if json {
            args.push("--json");
        }
        twofold_ok(&args)
    };
    let v: Value = serde_json::from_str(&stats(true)).unwrap();
    assert!(v.get("mixed").is_none(), "{v}");
    let choice = &v["choice"];
    let mixed = choice["mixed_seconds"].as_f64().unwrap();
    let yao = choice["yao_seconds"].as_f64().unwrap();
    assert!(yao < mixed, "{choice}");
    let text = stats(false);
    assert!(
        text.contains("runs as garbled circuits, estimated faster"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The garbled circuits' estimate `auto` weighs is the garbled run's
/// bytes: it was the mixed run of the Boolean program, whose setup adds
/// the arithmetic base OTs (8 KB too many), and small programs ran mixed
/// for nothing — one whose products of secrets all fold away, so that
/// its mixed program has no arithmetic, with twice the bytes.
#[test]
fn auto_weighs_the_garbled_runs_bytes_and_no_mixed_program_without_arithmetic() {
    let compared = "#include <stdint.h>
int32_t mpc_main(int32_t INPUT_A, int32_t INPUT_B) { return (INPUT_A > 10) * (INPUT_B > 20); }
";
    let folded = "#include <stdint.h>
int32_t mpc_main(int32_t INPUT_A, int32_t INPUT_B) {
    int32_t z = 0;
    z *= INPUT_A * INPUT_B;
    return z + (INPUT_A < INPUT_B);
}
";
    let dir = common::workspace(
        "auto_bytes",
        &[("compared.c", compared), ("folded.c", folded)],
    );
    let run = |file: &str, protocol: &str, network: &str| -> Value {
        let file = common::path(&dir, file);
        let args = ["run", &file, "--local", "--json", "--protocol", protocol];
        let values = ["--network", network, "-i", "INPUT_A=30", "-i", "INPUT_B=7"];
        serde_json::from_str(&twofold_ok(&[&args[..], &values[..]].concat())).unwrap()
    };
    let bytes = |v: &Value| v["bytes"].as_u64().unwrap();
    for network in ["lan", "wan"] {
        let yao = run("folded.c", "yao", network);
        let auto = run("folded.c", "auto", network);
        assert_eq!(auto["protocol"], "yao", "{network}: {auto}");
        assert_eq!(bytes(&auto), bytes(&yao), "{network}");
        assert_eq!(auto["outputs"], yao["outputs"]);
        assert_eq!(yao["outputs"]["return"], 0);
    }
    let yao = run("compared.c", "yao", "lan");
    let mixed = run("compared.c", "mixed", "lan");
    assert_eq!(mixed["outputs"], yao["outputs"]);
    let estimated = mixed["mixed"]["estimate"]["yao_bytes"].as_u64().unwrap();
    let real = bytes(&yao);
    assert!(
        estimated.abs_diff(real) * 10 <= real,
        "estimated {estimated}, ran {real}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
