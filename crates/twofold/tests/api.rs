//! The embedding API against the command line: a program embedding twofold
//! (`twofold::api`, party B over a socket it opened) and `twofold run`
//! (party A, listening) compute together.

mod common;
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

use twofold::api::{Party, SecureProgram};

const SOURCE: &str =
    "unsigned mpc_main(unsigned INPUT_A, unsigned INPUT_B) { return INPUT_A * INPUT_B + 1; }";

#[test]
fn an_embedded_party_meets_the_command_line() {
    let dir = std::env::temp_dir().join(format!("twofold-api-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("product.c");
    std::fs::write(&file, SOURCE).unwrap();
    let addr = format!("127.0.0.1:{}", common::free_port());
    let garbler = Command::new(env!("CARGO_BIN_EXE_twofold"))
        .arg("run")
        .arg(&file)
        // The embedding API's caller brings its own TcpStream: plain.
        .args([
            "--party",
            "a",
            "--listen",
            &addr,
            "--timeout",
            "20",
            "--insecure",
        ])
        .args([
            "--threads",
            "1",
            "--schedule",
            "seq",
            "-i",
            "INPUT_A=100000",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let stream = loop {
        match TcpStream::connect(&addr) {
            Ok(s) => break s,
            Err(e) if start.elapsed() > Duration::from_secs(20) => panic!("{e}"),
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    let program = SecureProgram::compile(SOURCE).unwrap();
    let inputs = program
        .inputs_of(Party::B, &[("INPUT_B", "70000")])
        .unwrap();
    let outputs = program.run_party(stream, Party::B, &inputs).unwrap();
    let want = 100_000u32.wrapping_mul(70_000).wrapping_add(1);
    assert_eq!(outputs.int("return"), Some(i128::from(want)));
    let a = garbler.wait_with_output().unwrap();
    assert!(a.status.success());
    assert_eq!(
        String::from_utf8(a.stdout).unwrap().trim(),
        want.to_string()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
