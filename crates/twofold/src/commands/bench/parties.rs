//! Both parties as `twofold run` processes over a real socket, as a user
//! runs them: what the end-to-end, streamed and IPP benchmarks measure.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use twofold_circuit::{InputValue, Party};

use crate::commands::run::RunReport;
use crate::commands::PerParty;

/// Where the two processes talk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// Both on 127.0.0.1.
    Loopback,
    /// In the namespaces of `scripts/netns.sh` (shaped link), A at 10.77.0.1.
    Netns,
}

/// Where the two processes run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The link between them.
    pub link: Link,
    /// Party A on core 0 and party B on core 1 (with `taskset`, when present).
    pub pinned: bool,
}

impl Placement {
    /// Both on loopback, wherever the OS puts them.
    pub const LOOPBACK: Placement = Placement {
        link: Link::Loopback,
        pinned: false,
    };
}

/// One run of both parties.
pub struct TwoParties {
    /// Each party's `run --json` report.
    pub reports: PerParty<RunReport>,
    /// From starting the first process until both have ended.
    pub wall: Duration,
}

/// Zero for every input value of `party`, as `-i NAME=ZERO` arguments.
pub fn zero_inputs(inputs: &[InputValue], party: Party, zero: &str) -> Vec<String> {
    inputs
        .iter()
        .filter(|v| v.party == party)
        .flat_map(|v| ["-i".to_string(), format!("{}={zero}", v.name)])
        .collect()
}

/// Runs `twofold run FILE --json ARGS` as party A (listening) and party B
/// (connecting), each with its own `inputs`, over the secure channel (fresh
/// keys for each run); returns both reports, or the error of a party that
/// failed.
pub fn run_two(
    file: &Path,
    args: &[String],
    inputs: &PerParty<Vec<String>>,
    placement: Placement,
) -> Result<TwoParties> {
    retrying_port_clashes(|| run_two_once(file, args, inputs, placement))
}

/// Runs `attempt`, which picks free ports afresh each time, up to three
/// times while it fails only because another program took a port it picked
/// (tests and benchmarks running at once).
pub(super) fn retrying_port_clashes<T>(mut attempt: impl FnMut() -> Result<T>) -> Result<T> {
    let mut tries = 1;
    loop {
        match attempt() {
            Err(e) if tries < 3 && format!("{e:#}").contains("Address already in use") => {
                tries += 1
            }
            done => return done,
        }
    }
}

/// One try of [`run_two`].
fn run_two_once(
    file: &Path,
    args: &[String],
    inputs: &PerParty<Vec<String>>,
    placement: Placement,
) -> Result<TwoParties> {
    let exe = std::env::current_exe()?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let addr = match placement.link {
        Link::Loopback => format!("127.0.0.1:{port}"),
        Link::Netns => format!("10.77.0.1:{port}"),
    };
    let keys = super::keys::BenchKeys::new(&["a", "b"])?;
    let taskset = placement.pinned && Path::new("/usr/bin/taskset").exists();
    let party = |party: Party, flag: &str, core: &str, namespace: &str, inputs: &[String]| {
        let mut prefix: Vec<&str> = Vec::new();
        if placement.link == Link::Netns {
            prefix.extend(["ip", "netns", "exec", namespace]);
        }
        if taskset {
            prefix.extend(["taskset", "-c", core]);
        }
        let mut cmd = match prefix.split_first() {
            Some((program, rest)) => {
                let mut cmd = Command::new(program);
                cmd.args(rest).arg(&exe);
                cmd
            }
            None => Command::new(&exe),
        };
        cmd.arg("run")
            .arg(file)
            .args(["--json", "--party", &party.to_string(), flag, &addr])
            .args(match party {
                Party::A => keys.two("a", "b"),
                Party::B => keys.two("b", "a"),
            })
            .args(args)
            .args(inputs)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
    };
    let start = Instant::now();
    let a = party(Party::A, "--listen", "0", "twofold-a", &inputs.a)?;
    let b = party(Party::B, "--connect", "1", "twofold-b", &inputs.b)?;
    let reports = reports(a, b)?;
    Ok(TwoParties {
        reports,
        wall: start.elapsed(),
    })
}

/// Waits for both parties' processes; returns their `--json` reports, or
/// the error of one that failed.
fn reports(a: Child, b: Child) -> Result<PerParty<RunReport>> {
    let (a, b) = (a.wait_with_output()?, b.wait_with_output()?);
    for out in [&a, &b] {
        if !out.status.success() {
            bail!("party failed: {}", String::from_utf8_lossy(&out.stderr));
        }
    }
    Ok(PerParty {
        a: serde_json::from_slice(&a.stdout)?,
        b: serde_json::from_slice(&b.stdout)?,
    })
}
