//! The `twofold` binary end to end: published vectors through `eval`, `run
//! --local` and the three-party hybrid mode, two real processes over
//! 127.0.0.1, a killed peer, and clear errors for bad usage.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use twofold_testkit::{bristol_vectors, shared_data};

mod keys;
mod shares;

fn twofold() -> Command {
    Command::new(env!("CARGO_BIN_EXE_twofold"))
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "twofold failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn failure(out: Output) -> String {
    assert!(!out.status.success(), "expected a failure");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    err
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `twofold run` as party a (listening) and party b (connecting) in two
/// processes on 127.0.0.1 with the test keys, each on its program with its
/// own arguments; their outputs, a's then b's.
fn run_two_processes(a: (&Path, &[&str]), b: (&Path, &[&str])) -> (Output, Output) {
    let addr = format!("127.0.0.1:{}", free_port());
    let party = |(program, args): (&Path, &[&str]), name: &str, side: &str| {
        let mut command = twofold();
        command
            .arg("run")
            .arg(program)
            .args(args)
            .args(["--party", name, side, &addr])
            .args(keys::two(name));
        command
    };
    let a = party(a, "a", "--listen")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let b = party(b, "b", "--connect").output().unwrap();
    (a.wait_with_output().unwrap(), b)
}

#[test]
fn every_published_vector_through_eval_run_local_and_shares() {
    let Some(data) = shared_data() else { return };
    for v in bristol_vectors(&data) {
        let file = data.join("bristol").join(&v.circuit);
        let mut args: Vec<String> = Vec::new();
        for x in &v.inputs {
            args.extend(["-i".into(), x.clone()]);
        }
        let plain = ok(twofold()
            .arg("eval")
            .arg(&file)
            .args(&args)
            .output()
            .unwrap());
        assert_eq!(
            plain.lines().collect::<Vec<_>>(),
            v.outputs,
            "eval {} row {}",
            v.circuit,
            v.row
        );
        let run = ok(twofold()
            .arg("run")
            .arg(&file)
            .arg("--local")
            .arg("--json")
            .args(&args)
            .output()
            .unwrap());
        let json: Value = serde_json::from_str(&run).unwrap();
        for (k, want) in v.outputs.iter().enumerate() {
            assert_eq!(
                json["outputs"][k.to_string()],
                *want,
                "run {} row {}",
                v.circuit,
                v.row
            );
        }
        for key in ["and_gates", "bytes_sent", "seconds", "peak_rss_bytes"] {
            assert!(!json[key].is_null(), "--json lacks {key}");
        }
        assert!(json["seconds"]["total"].as_f64().unwrap() > 0.0);
        // A circuit's outputs are named 0, 1, ... as its inputs are.
        let stored: Vec<String> = (0..v.outputs.len())
            .flat_map(|k| ["--out".to_string(), format!("{k}=out{k}")])
            .collect();
        for kind in ["xor", "add"] {
            let got = shares::through_shares(&file, &args, &["--json"], &stored, kind);
            let json: Value = serde_json::from_str(&got).unwrap();
            for (k, want) in v.outputs.iter().enumerate() {
                assert_eq!(
                    json["outputs"][k.to_string()],
                    *want,
                    "{kind} shares {} row {}",
                    v.circuit,
                    v.row
                );
            }
        }
    }
}

#[test]
fn stats_prints_the_gate_counts() {
    let Some(data) = shared_data() else { return };
    let out = ok(twofold()
        .args(["stats", "--json"])
        .arg(data.join("bristol/aes_128.txt"))
        .output()
        .unwrap());
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["and_gates"], 6400);
    assert_eq!(json["xor_gates"], 28176);
    assert_eq!(json["inv_gates"], 2087);
    assert_eq!(json["input_widths"], serde_json::json!([128, 128]));
    let text = ok(twofold()
        .arg("stats")
        .arg(data.join("bristol/adder64.txt"))
        .output()
        .unwrap());
    assert!(text.contains("and gates") && text.contains("63"), "{text}");
}

/// Both parties as separate processes on 127.0.0.1: AES-128 (FIPS-197 C.1),
/// garbled with three-halves.
#[test]
fn two_processes_compute_aes() {
    let Some(data) = shared_data() else { return };
    let aes = data.join("bristol/aes_128.txt");
    let (a, b) = run_two_processes(
        (
            &aes,
            &[
                "--scheme",
                "three-halves",
                "-i",
                "0x000102030405060708090a0b0c0d0e0f",
            ],
        ),
        (
            &aes,
            &[
                "--scheme",
                "three-halves",
                "-i",
                "0x00112233445566778899aabbccddeeff",
                "--json",
            ],
        ),
    );
    let want = "0x69c4e0d86a7b0430d8cdb78070b4c55a";
    assert_eq!(ok(a).trim(), want);
    let json: Value = serde_json::from_str(&ok(b)).unwrap();
    assert_eq!(json["outputs"]["0"], want);
    assert_eq!(json["party"], "b");
    assert_eq!(json["scheme"], "three-halves");
}

/// A program big enough to run for a while: synthetic, about 8 x 10^7 AND gates.
fn long_program() -> PathBuf {
    let path = std::env::temp_dir().join(format!("twofold-cli-long-{}.tfc", std::process::id()));
    let body = twofold_circuit::synthetic::layered(4096, 64, 64, 1);
    let program = twofold_circuit::synthetic::repeated(&body, 300);
    let mut file = std::fs::File::create(&path).unwrap();
    twofold_circuit::binary::write_program(&program, &mut file).unwrap();
    path
}

#[test]
fn killing_one_party_ends_the_other_with_a_clear_error() {
    let program = long_program();
    for victim in ["a", "b"] {
        let addr = format!("127.0.0.1:{}", free_port());
        let spawn = |party: &str, flag: &str, input: &str| {
            twofold()
                .arg("run")
                .arg(&program)
                .args(["--party", party, flag, &addr, "-i", input, "--timeout", "5"])
                .args(keys::two(party))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let a = spawn("a", "--listen", "a=0");
        std::thread::sleep(Duration::from_millis(200));
        let b = spawn("b", "--connect", "b=1");
        std::thread::sleep(Duration::from_millis(700));
        let (mut killed, survivor) = if victim == "a" { (a, b) } else { (b, a) };
        killed.kill().unwrap();
        killed.wait().unwrap();
        let start = Instant::now();
        let out = survivor.wait_with_output().unwrap();
        assert!(
            start.elapsed() < Duration::from_secs(8),
            "took {:?}",
            start.elapsed()
        );
        let err = failure(out);
        assert!(
            err.contains("peer closed the connection")
                || err.contains("timed out")
                || err.contains("network"),
            "victim {victim}: {err}"
        );
    }
    let _ = std::fs::remove_file(program);
}

#[test]
fn a_peer_with_another_program_is_refused() {
    let Some(data) = shared_data() else { return };
    let (adder, sub) = (
        data.join("bristol/adder64.txt"),
        data.join("bristol/sub64.txt"),
    );
    let (a, b) = run_two_processes((&adder, &["-i", "1"]), (&sub, &["-i", "2"]));
    for err in [failure(a), failure(b)] {
        assert!(err.contains("disagree on the program"), "{err}");
    }
}

#[test]
fn bad_usage_gives_clear_errors() {
    let Some(data) = shared_data() else { return };
    let adder = data.join("bristol/adder64.txt");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["eval", "-i", "1"], "missing input value"),
        (
            vec!["eval", "-i", "1", "-i", "2", "-i", "3"],
            "more input values",
        ),
        (vec!["eval", "-i", "0x1g", "-i", "2"], "not a base-16 digit"),
        (
            vec!["eval", "-i", "0x1ffffffffffffffff", "-i", "2"],
            "does not fit in 64 bits",
        ),
        (vec!["run", "--local", "-i", "1"], "missing input value"),
        (
            vec![
                "run",
                "--party",
                "a",
                "--listen",
                "127.0.0.1:0",
                "-i",
                "1=5",
                "--insecure",
            ],
            "belongs to party b",
        ),
        (vec!["run", "-i", "1", "-i", "2"], "--local"),
        (
            vec![
                "run", "--local", "--scheme", "quarters", "-i", "1", "-i", "2",
            ],
            "unknown scheme `quarters`",
        ),
        (
            vec!["eval", "--owner", "7=a", "-i", "1", "-i", "2"],
            "no input `7`",
        ),
        (
            vec![
                "run",
                "--local",
                "--timeout",
                "18446744073709551615",
                "-i",
                "1",
                "-i",
                "2",
            ],
            "--timeout",
        ),
    ];
    for (args, needle) in cases {
        let out = twofold()
            .arg(args[0])
            .arg(&adder)
            .args(&args[1..])
            .output()
            .unwrap();
        let err = failure(out);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    // (Zero runs ran one, a depth of 0 printed NaN speed-ups, and a plot
    // of what is not drawn was ignored, even where it cannot be written.)
    let garble_only = ["--garble-only", adder.to_str().unwrap()];
    for (flag, args) in [
        ("--runs", &["--runs", "0"][..]),
        ("--depth", &["--artificial", "--depth", "0"][..]),
        (
            "--plot",
            &[&["--plot", "/nonexistent/x.svg"][..], &garble_only].concat()[..],
        ),
    ] {
        let err = failure(twofold().arg("bench").args(args).output().unwrap());
        assert!(err.contains(flag), "{err}");
    }
    let err = failure(
        twofold()
            .args(["stats", "/nonexistent/file.txt"])
            .output()
            .unwrap(),
    );
    assert!(err.contains("cannot read"), "{err}");
    let bad = std::env::temp_dir().join(format!("twofold-bad-{}.txt", std::process::id()));
    std::fs::write(&bad, "1 3\n2 1 1\n1 1\n\n2 1 0 1 2 NAND\n").unwrap();
    let err = failure(twofold().arg("stats").arg(&bad).output().unwrap());
    assert!(err.contains(":5: unknown gate `NAND`"), "{err}");
    let _ = std::fs::remove_file(bad);
}

#[test]
fn owner_moves_inputs_between_parties() {
    let Some(data) = shared_data() else { return };
    let adder = data.join("bristol/adder64.txt");
    let out = ok(twofold()
        .arg("run")
        .arg(&adder)
        .args([
            "--local", "--owner", "0=b,1=b", "-i", "5", "-i", "0xa", "--json",
        ])
        .output()
        .unwrap());
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["outputs"]["0"], "0xf");
    let _ = Path::new(&adder);
}

#[test]
fn compiled_binary_programs_run_like_their_source() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let out = std::env::temp_dir().join(format!("twofold-cli-compile-{}.tfc", std::process::id()));
    let said = ok(twofold()
        .arg("compile")
        .arg(examples.join("millionaires.c"))
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap());
    assert!(said.contains("32 AND gates"), "{said}");
    // The file keeps the C program's values (names and C types): it takes
    // and shows them as the source does.
    for (a, b, want) in [("1000000", "999999", "1"), ("5", "999999", "0")] {
        let inputs = ["--local", "-i", a, "-i", &format!("INPUT_B_income={b}")];
        let run = |file: &Path| {
            ok(twofold()
                .arg("run")
                .arg(file)
                .args(inputs)
                .output()
                .unwrap())
        };
        assert_eq!(run(&out).trim(), want);
        assert_eq!(run(&examples.join("millionaires.c")).trim(), want);
    }
    // A compiled Bristol circuit, its file many read buffers long (the
    // gates are parsed as they are read).
    if let Some(data) = shared_data() {
        ok(twofold()
            .arg("compile")
            .arg(data.join("bristol/aes_128.txt"))
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap());
        assert!(std::fs::metadata(&out).unwrap().len() > 1 << 16);
        let run = ok(twofold()
            .arg("run")
            .arg(&out)
            .args(["--local", "-i", "0x000102030405060708090a0b0c0d0e0f"])
            .args(["-i", "0x00112233445566778899aabbccddeeff"])
            .output()
            .unwrap());
        assert_eq!(run.trim(), "0x69c4e0d86a7b0430d8cdb78070b4c55a");
    }
    let _ = std::fs::remove_file(out);
}

/// A program compiled to a file is written ready to run (its narrow loop
/// unrolled, its circuits levelled): a party that runs the file and one
/// that compiles the source agree on the program and compute its result.
#[test]
fn a_compiled_file_and_its_source_meet_as_one_program() {
    // The loop stays a loop (it indexes an array) and its body is narrow
    // enough to be unrolled twice, the iterations left over a third time.
    let source = "
        #include <stdint.h>
        typedef struct { uint32_t x[200]; } A;
        uint32_t mpc_main(A INPUT_A, uint32_t INPUT_B) {
            uint32_t c = INPUT_B;
            for (int t = 0; t < 200; t++)
                c = (c + INPUT_A.x[t]) ^ (c >> 3);
            return c;
        }";
    let xs: Vec<String> = (0..200u32)
        .map(|t| ((t * 37 + 11) % 1000).to_string())
        .collect();
    let input_a = format!("INPUT_A={{{{{}}}}}", xs.join(","));
    let dir = std::env::temp_dir();
    let c_file = dir.join(format!("twofold-cli-meet-{}.c", std::process::id()));
    let tf_file = dir.join(format!("twofold-cli-meet-{}.tf", std::process::id()));
    std::fs::write(&c_file, source).unwrap();
    ok(twofold()
        .arg("compile")
        .arg(&c_file)
        .arg("-o")
        .arg(&tf_file)
        .output()
        .unwrap());
    let want = ok(twofold()
        .arg("eval")
        .arg(&c_file)
        .args(["-i", &input_a, "-i", "INPUT_B=12345"])
        .output()
        .unwrap());
    let (a, b) = run_two_processes(
        (&c_file, &["-i", &input_a]),
        (&tf_file, &["-i", "12345", "--json"]),
    );
    assert_eq!(ok(a), want);
    let json: Value = serde_json::from_str(&ok(b)).unwrap();
    let want: u64 = want.trim().parse().unwrap();
    assert_eq!(json["outputs"]["return"], want);
    let _ = std::fs::remove_file(c_file);
    let _ = std::fs::remove_file(tf_file);
}

/// A parallel loop and a recurrence that needs none of its results: `stats`
/// sees the overlap, and `run --ipp` with and without it agrees with `eval`.
#[test]
fn ipp_runs_main_code_during_regions_from_the_command_line() {
    let source = "
        #include <stdint.h>
        typedef struct { uint16_t x[6]; uint16_t k; } A;
        typedef struct { uint16_t y[6]; uint16_t s; } B;
        typedef struct { uint16_t dist[6]; uint16_t chain; } Out;
        Out mpc_main(A INPUT_A, B INPUT_B) {
            Out o;
            for (int i = 0; i < 6; i++) {
                uint16_t d = INPUT_A.x[i] - INPUT_B.y[i];
                o.dist[i] = d * d;
            }
            uint16_t c = INPUT_B.s;
            for (int t = 0; t < 8; t++)
                c = c * INPUT_A.k + 3;
            o.chain = c;
            return o;
        }";
    let file = std::env::temp_dir().join(format!("twofold-cli-overlap-{}.c", std::process::id()));
    std::fs::write(&file, source).unwrap();
    let stats = ok(twofold().arg("stats").arg(&file).output().unwrap());
    let line = stats.lines().find(|l| l.starts_with("region 0")).unwrap();
    assert!(line.contains("6 instances"), "{line}");
    assert!(!line.contains("; 0 main AND gates"), "{line}");
    let inputs = [
        "-i",
        "INPUT_A={{1,2,300,4,5,60000},7}",
        "-i",
        "INPUT_B={{9,8,7,6,5,4},11}",
    ];
    let want = ok(twofold()
        .arg("eval")
        .arg(&file)
        .args(inputs)
        .output()
        .unwrap());
    for flags in [&["--ipp"][..], &["--ipp", "--ipp-no-overlap"][..], &[][..]] {
        let got = ok(twofold()
            .arg("run")
            .arg(&file)
            .arg("--local")
            .args(flags)
            .args(inputs)
            .output()
            .unwrap());
        assert_eq!(got, want, "{flags:?}");
    }
    let err = failure(
        twofold()
            .arg("run")
            .arg(&file)
            .args(["--local", "--ipp-no-overlap"])
            .args(inputs)
            .output()
            .unwrap(),
    );
    assert!(err.contains("--ipp"), "{err}");
    let _ = std::fs::remove_file(file);
}

/// Runs `cmd` and returns its output, failing if it runs past a minute.
fn output_within_a_minute(cmd: &mut Command) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("{cmd:?} still runs after a minute");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn hostile_files_and_values_end_in_clear_errors() {
    let err = failure(output_within_a_minute(
        twofold().args(["stats", "/dev/zero"]),
    ));
    assert!(err.contains("not a regular file"), "{err}");
    let dir = std::env::temp_dir().join(format!("twofold-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let prog = dir.join("prog.c");
    std::fs::write(
        &prog,
        "typedef struct { int a[2]; int b; } S;\nint mpc_main(S INPUT_A, int INPUT_B) { return INPUT_A.a[0] + INPUT_A.b + INPUT_B; }\n",
    )
    .unwrap();
    // Once spun forever.
    let out = ok(output_within_a_minute(
        twofold()
            .arg("eval")
            .arg(&prog)
            .args(["-i", "{.a = 1}", "-i", "1"]),
    ));
    assert_eq!(out.trim(), "2");
    // Once overflowed the stack.
    let deep = format!("{}1{}", "{".repeat(22_000), "}".repeat(22_000));
    let err = failure(output_within_a_minute(
        twofold()
            .arg("eval")
            .arg(&prog)
            .args(["-i", &deep, "-i", "1"]),
    ));
    assert!(err.contains("braces nested more than"), "{err}");
    std::fs::write(
        &prog,
        "#include \"/dev/zero\"\nint mpc_main(int INPUT_A, int INPUT_B) { return 0; }\n",
    )
    .unwrap();
    let err = failure(output_within_a_minute(twofold().arg("stats").arg(&prog)));
    assert!(err.contains("only paths relative"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn absurd_thread_counts_are_refused_before_anything_is_allocated() {
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/millionaires.c");
    for threads in ["100000", "0"] {
        let err = failure(
            twofold()
                .arg("run")
                .arg(&program)
                .args(["--local", "-i", "1", "-i", "2", "--threads", threads])
                .output()
                .unwrap(),
        );
        assert!(err.contains("not in 1..=256"), "{err}");
    }
}

/// A reader that stops early (`twofold stats F --levels | head`) ends the
/// command quietly, not with a panic about a broken pipe.
#[test]
fn a_reader_that_stops_early_is_no_error() {
    let file = std::env::temp_dir().join(format!("twofold-cli-pipe-{}.c", std::process::id()));
    // 200,000 AND levels: far more output than a pipe holds.
    std::fs::write(
        &file,
        "#include <stdint.h>\n\
         uint8_t mpc_main(uint8_t INPUT_A_x, uint8_t INPUT_B_y) {\n\
             uint8_t acc = INPUT_A_x;\n\
             for (int i = 0; i < 200000; i++) acc = (acc & INPUT_B_y) ^ (uint8_t)(acc >> 1);\n\
             return acc;\n\
         }\n",
    )
    .unwrap();
    let mut child = twofold()
        .arg("stats")
        .arg(&file)
        .args(["--levels", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let _ = std::fs::remove_file(&file);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.is_empty(), "{err}");
}
