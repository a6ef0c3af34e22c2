//! Helpers shared by the integration tests.
#![allow(dead_code)]

use twofold_circuit::Program;
use twofold_crypto::Scheme;
use twofold_net::ChannelOptions;
use twofold_protocol::{run_local, IppMode, PartyInputs, Reveal, Schedule, SessionOptions};

/// Runs `program` on party inputs `a` and `b` under every garbling scheme
/// and every schedule, on each of `threads`, with and without inter-party
/// parallelism, and checks that both parties get `want` (`label` names the
/// case in failures).
pub fn agrees_under_every_schedule(
    program: &Program,
    (a, b): (&PartyInputs, &PartyInputs),
    want: &[Vec<bool>],
    threads: std::ops::RangeInclusive<u32>,
    label: &str,
) {
    for scheme in Scheme::ALL {
        for schedule in Schedule::ALL {
            for threads in threads.clone() {
                for ipp in [IppMode::Off, IppMode::On] {
                    let opts = SessionOptions {
                        schedule,
                        threads,
                        ipp,
                        scheme,
                        reveal: Reveal::Both,
                        // Split even narrow levels, so FGP really runs.
                        fgp_min_ands: Some(1),
                        ..SessionOptions::default()
                    };
                    let (ra, rb) =
                        run_local(program, a, b, &opts, &ChannelOptions::default()).unwrap();
                    let label = format!(
                        "{label}, {scheme}, {} x{threads}, {}",
                        schedule.name(),
                        ipp.name()
                    );
                    assert_eq!(ra.outputs.unwrap(), want, "{label}");
                    assert_eq!(rb.outputs.unwrap(), want, "{label}");
                }
            }
        }
    }
}

/// Runs the `twofold` binary with `args`; returns its standard output, or
/// fails the test with its standard error.
pub fn twofold_ok<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_twofold"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "twofold {:?}: {}",
        args.iter().map(|a| a.as_ref()).collect::<Vec<_>>(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A fresh directory `twofold-{tag}-{pid}` under the temporary directory,
/// with `files` (name, contents) written into it.
pub fn workspace(tag: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("twofold-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    dir
}

/// The path of `name` in `dir`, as a string (for command-line arguments).
pub fn path(dir: &std::path::Path, name: &str) -> String {
    dir.join(name).to_str().unwrap().to_string()
}

/// A TCP port on 127.0.0.1 that was free a moment ago.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts `cmd` with its output piped; its output, collected on a thread.
pub fn spawn(cmd: &mut std::process::Command) -> std::thread::JoinHandle<std::process::Output> {
    let child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::spawn(move || child.wait_with_output().unwrap())
}
