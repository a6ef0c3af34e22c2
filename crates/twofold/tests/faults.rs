//! Fault injection: two real `twofold run` processes with a relay between
//! them that flips, drops, duplicates, truncates or delays the bytes of one
//! direction of one connection at a random offset. Every trial must end with
//! both parties gone within the timeout plus 5 s, each with either the right
//! output or a clear error and no output: never a wrong output, a panic or
//! a hang.
//!
//! A handful of trials run with the normal tests; `TWOFOLD_FAULT_TRIALS=N`
//! runs N (the long mode: 100 or more), `TWOFOLD_FAULT_SEED` picks the
//! random offsets.

use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use twofold_testkit::relay::{Direction, Fault, Relay};

/// Each party's timeout (`--timeout`), in seconds.
const TIMEOUT_SECS: u64 = 5;

fn twofold() -> Command {
    Command::new(env!("CARGO_BIN_EXE_twofold"))
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// What every trial shares: the program, the parties' inputs and keys, and
/// the output both must print if they print one.
struct Setup {
    dir: PathBuf,
    program: PathBuf,
    want: String,
}

impl Setup {
    /// A synthetic program of about 260 k AND gates (8 MB of tables from A
    /// to B) as parallel regions, so a two-thread session opens a second
    /// connection; keys for both parties.
    fn new() -> Setup {
        let dir = std::env::temp_dir().join(format!("twofold-faults-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let program = dir.join("program.tfc");
        let body = twofold_circuit::synthetic::layered(1024, 32, 64, 7);
        let repeated = twofold_circuit::synthetic::repeated(&body, 8);
        let mut file = std::fs::File::create(&program).unwrap();
        twofold_circuit::binary::write_program(&repeated, &mut file).unwrap();
        let want =
            run_ok(
                twofold()
                    .arg("eval")
                    .arg(&program)
                    .args(["-i", &input(1), "-i", &input(2)]),
            );
        for name in ["a", "b"] {
            run_ok(twofold().args(["keygen", "-o"]).arg(dir.join(name)));
        }
        Setup { dir, program, want }
    }

    /// Starts `party` of a session with these options.
    fn spawn(&self, party: &str, peer: &[&str], value: &str) -> Child {
        let other = if party == "a" { "b" } else { "a" };
        twofold()
            .arg("run")
            .arg(&self.program)
            .args(["--party", party, "--threads", "2", "-i", value])
            .args(["--timeout", &TIMEOUT_SECS.to_string()])
            .args(peer)
            .arg("--key")
            .arg(self.key_file(party, "key"))
            .arg("--peer-key")
            .arg(self.key_file(other, "pub"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    fn key_file(&self, party: &str, ext: &str) -> PathBuf {
        self.dir.join(format!("{party}.{ext}"))
    }
}

impl Drop for Setup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Input `seed` for a 256-bit party input, in hex.
fn input(seed: u8) -> String {
    let bytes: String = (0..32u8)
        .map(|i| format!("{:02x}", i.wrapping_mul(37) ^ seed))
        .collect();
    format!("0x{bytes}")
}

fn run_ok(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Waits for `child` until `deadline`; kills it and fails the test after.
fn wait_until(mut child: Child, deadline: Instant, what: &str) -> Output {
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "{what} hung past the timeout + 5 s: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// How one party ended.
#[derive(Debug, PartialEq, Eq)]
enum Ending {
    RightOutput,
    Error(String),
}

/// Checks that a party ended with the right output or a clear error and no
/// output.
fn ending(out: Output, want: &str, what: &str) -> Ending {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{what} panicked: {stderr}");
    if out.status.success() {
        assert_eq!(stdout, want, "{what} printed a wrong output");
        Ending::RightOutput
    } else {
        assert!(stdout.is_empty(), "{what} failed but printed {stdout:?}");
        assert!(!stderr.trim().is_empty(), "{what} failed without a word");
        Ending::Error(stderr)
    }
}

/// Runs one session through a relay with `fault`; returns how A and B
/// ended and whether the fault struck.
fn trial(setup: &Setup, fault: Fault, direction: Direction, connection: usize) -> [Ending; 2] {
    let what = format!("{fault:?} {direction:?} on connection {connection}");
    let listen = format!("127.0.0.1:{}", free_port());
    let a = setup.spawn("a", &["--listen", &listen], &input(1));
    let relay = Relay::start(listen.parse().unwrap(), fault, direction, connection).unwrap();
    let connect = relay.addr().to_string();
    let b = setup.spawn("b", &["--connect", &connect], &input(2));
    let start = Instant::now();
    let deadline = start + Duration::from_secs(TIMEOUT_SECS + 5);
    let (a, b) = (
        wait_until(a, deadline, &format!("A, {what}")),
        wait_until(b, deadline, &format!("B, {what}")),
    );
    let endings = [
        ending(a, &setup.want, &format!("A, {what}")),
        ending(b, &setup.want, &format!("B, {what}")),
    ];
    eprintln!(
        "{what}: struck {}, {endings:?} after {:?}",
        relay.applied(),
        start.elapsed()
    );
    endings
}

/// A random fault somewhere in the first `span` bytes.
fn random_fault(rng: &mut impl Rng, kind: usize, span: u64) -> Fault {
    let offset = rng.gen_range(0..span);
    match kind % 5 {
        0 => Fault::Flip {
            offset,
            mask: 1 << rng.gen_range(0..8),
        },
        1 => Fault::Drop {
            offset,
            len: rng.gen_range(1..64),
        },
        2 => Fault::Duplicate {
            offset,
            len: rng.gen_range(1..64),
        },
        3 => Fault::Truncate { offset },
        _ => Fault::Delay {
            offset,
            millis: rng.gen_range(10..1000),
        },
    }
}

#[test]
fn faults_between_two_processes_end_in_the_right_output_or_a_clear_error() {
    let setup = Setup::new();
    let trials: usize = std::env::var("TWOFOLD_FAULT_TRIALS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(5);
    let seed: u64 = std::env::var("TWOFOLD_FAULT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| rand::thread_rng().gen());
    eprintln!("{trials} trials, TWOFOLD_FAULT_SEED={seed}");
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut errors = 0;
    for kind in 0..trials {
        // Mostly the table stream (A to B, megabytes), sometimes B's OT
        // messages back (tens of kilobytes).
        let (direction, span) = if rng.gen_bool(0.75) {
            (Direction::ToConnector, 4 << 20)
        } else {
            (Direction::ToListener, 32 << 10)
        };
        let fault = random_fault(&mut rng, kind, span);
        let endings = trial(&setup, fault, direction, rng.gen_range(0..2));
        errors += endings
            .iter()
            .filter(|e| matches!(e, Ending::Error(_)))
            .count();
    }
    eprintln!("{errors} party endings were errors");
}
