//! `twofold run --local`, two and three parties, as a user runs it: while
//! the process runs, none of its descriptors is a TCP socket (from
//! `/proc/PID/fd` against the kernel's `/proc/PID/net/tcp*`), so there is
//! no listening socket another local user could connect to.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// A synthetic program of about 10^6 AND gates (a second or so to run).
fn program(dir: &Path) -> PathBuf {
    let body = twofold_circuit::synthetic::layered(4096, 64, 64, 3);
    let copies = 1_000_000u64.div_ceil(body.and_count() as u64) as u32;
    let program = twofold_circuit::synthetic::repeated(&body, copies);
    let path = dir.join("big.tfc");
    let mut file = std::fs::File::create(&path).unwrap();
    twofold_circuit::binary::write_program(&program, &mut file).unwrap();
    path
}

/// The TCP sockets among process `pid`'s descriptors (`None` once it is
/// gone).
fn tcp_sockets(pid: u32) -> Option<usize> {
    let inodes: HashSet<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .ok()?
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter_map(|t| {
            let t = t.to_str()?.to_string();
            Some(t.strip_prefix("socket:[")?.strip_suffix(']')?.to_string())
        })
        .collect();
    let mut tcp = 0;
    for table in ["tcp", "tcp6"] {
        let text = std::fs::read_to_string(format!("/proc/{pid}/net/{table}")).ok()?;
        tcp += text
            .lines()
            .skip(1)
            .filter(|l| {
                l.split_whitespace()
                    .nth(9)
                    .is_some_and(|i| inodes.contains(i))
            })
            .count();
    }
    Some(tcp)
}

/// Runs `twofold args`, looking at its sockets every few milliseconds;
/// returns how often it looked and the most TCP sockets it saw.
fn watched(args: &[&str]) -> (usize, usize) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_twofold"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (mut looks, mut most) = (0, 0);
    while child.try_wait().unwrap().is_none() {
        if let Some(tcp) = tcp_sockets(child.id()) {
            looks += 1;
            most = most.max(tcp);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "twofold {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (looks, most)
}

#[test]
fn local_runs_open_no_tcp_socket() {
    let dir = std::env::temp_dir().join(format!("twofold-local-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let program = program(&dir);
    let program = program.to_str().unwrap();
    let two = [
        "run",
        program,
        "--local",
        "-i",
        "a=0",
        "-i",
        "b=0",
        "--threads",
        "2",
    ];
    let (looks, most) = watched(&two);
    assert!(looks >= 3, "looked {looks} times");
    assert_eq!(most, 0, "two parties: a TCP socket");
    let store = dir.join("store");
    let store = store.to_str().unwrap();
    let shared = Command::new(env!("CARGO_BIN_EXE_twofold"))
        .args(["share", program, "-i", "a=0", "-i", "b=0", "--out", store])
        .output()
        .unwrap();
    assert!(
        shared.status.success(),
        "{}",
        String::from_utf8_lossy(&shared.stderr)
    );
    let three = [
        "run",
        program,
        "--parties",
        "3",
        "--local",
        "--store",
        store,
    ];
    let (looks, most) = watched(&[&three[..], &["--threads", "2"]].concat());
    assert!(looks >= 3, "looked {looks} times");
    assert_eq!(most, 0, "three parties: a TCP socket");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn running_out_of_descriptors_is_said_at_once() {
    // 64 threads need more socketpairs than 64 descriptors allow: it was
    // "no peer connected within 10s", after waiting that long.
    let dotproduct = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/dotproduct.c");
    let run = format!(
        "ulimit -n 64 && exec {} run --local {dotproduct} --protocol yao --threads 64 \
         --schedule cgp -i 'INPUT_A={{1}}' -i 'INPUT_B={{2}}'",
        env!("CARGO_BIN_EXE_twofold")
    );
    let started = std::time::Instant::now();
    let out = Command::new("sh").args(["-c", &run]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("too many open files: raise `ulimit -n`"),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(8), "{err}");
}
