//! `--max-memory` (issue 12): compiling stops with a clear error past it,
//! `run` refuses before the protocol starts a program whose estimated peak
//! exceeds it, the default lets every example run, and sizes parse as
//! people write them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use twofold::load::{load, LoadOptions};
use twofold::memory::{check_session, default_max_memory};

fn twofold() -> Command {
    Command::new(env!("CARGO_BIN_EXE_twofold"))
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name)
}

fn failure(out: Output) -> String {
    assert!(!out.status.success(), "expected a failure");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn compiling_past_max_memory_is_a_clear_error() {
    let out = std::env::temp_dir().join(format!("twofold-maxmem-{}.tfc", std::process::id()));
    let err = failure(
        twofold()
            .arg("compile")
            .arg(example("aes128.c"))
            .args(["--max-memory", "1M", "-o"])
            .arg(&out)
            .output()
            .unwrap(),
    );
    assert!(
        err.contains("aes128.c:") && err.contains("would need more than --max-memory (1 MiB)"),
        "{err}"
    );
    assert!(!out.exists(), "nothing is written");
}

#[test]
fn run_refuses_a_program_over_max_memory_before_starting() {
    // Compiled without a limit, the program loads at once; the session
    // (two parties here, 16-byte labels) is what does not fit.
    let bin = std::env::temp_dir().join(format!("twofold-maxmem-{}.bin", std::process::id()));
    let out = twofold()
        .arg("compile")
        .arg(example("aes128.c"))
        .arg("-o")
        .arg(&bin)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = failure(
        twofold()
            .args(["run", "--local", "--threads", "2", "--max-memory", "4M"])
            .arg(&bin)
            .args(["-i", "0", "-i", "0"])
            .output()
            .unwrap(),
    );
    std::fs::remove_file(&bin).unwrap();
    assert!(
        err.contains("running the program would need about")
            && err.contains("2 parties with 2 threads")
            && err.contains("more than --max-memory 4 MiB"),
        "{err}"
    );
    // The same run fits in a generous limit.
    let out = twofold()
        .args(["run", "--local", "--max-memory", "1G"])
        .arg(example("millionaires.c"))
        .args(["-i", "5", "-i", "7"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn bad_sizes_are_refused_by_the_command_line() {
    for bad in ["4Q", "0", "-1G", "lots"] {
        let err = failure(
            twofold()
                .arg("compile")
                .arg(format!("--max-memory={bad}"))
                .args(["-o", "/dev/null"])
                .arg(example("millionaires.c"))
                .output()
                .unwrap(),
        );
        assert!(err.contains("invalid size"), "{bad}: {err}");
    }
}

#[test]
fn the_default_lets_every_example_compile_and_run() {
    let Some(limit) = default_max_memory() else {
        return;
    };
    let dir = example("");
    let mut sources: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    sources.sort();
    assert!(sources.len() >= 10, "{sources:?}");
    let opts = LoadOptions {
        max_memory: Some(limit),
        ..LoadOptions::default()
    };
    for path in sources {
        let loaded = load(&path, &opts).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for threads in [1, 16] {
            check_session(loaded.garbled().unwrap(), threads, 2, limit)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
    }
}
