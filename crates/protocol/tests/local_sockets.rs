//! Runs with every party in this process (`--local`) open no TCP socket at
//! all, and in particular no listening one another user of the machine
//! could connect to: checked while the parties run, from the kernel's
//! tables (`/proc/self/net/tcp*`) against this process's descriptors.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use twofold_circuit::synthetic::{layered, repeated};
use twofold_circuit::{Party, Program};
use twofold_crypto::Prg;
use twofold_net::ChannelOptions;
use twofold_protocol::hybrid::shares::split;
use twofold_protocol::{
    run_hybrid_local, run_local, HybridOptions, Progress, Schedule, SessionOptions, ShareKind,
};

/// The socket inodes among this process's file descriptors.
fn my_socket_inodes() -> HashSet<u64> {
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter_map(|target| {
            let text = target.to_str()?.to_string();
            text.strip_prefix("socket:[")?
                .strip_suffix(']')?
                .parse()
                .ok()
        })
        .collect()
}

/// This process's TCP sockets and, of them, the listening ones.
fn my_tcp_sockets() -> (usize, usize) {
    let mine = my_socket_inodes();
    let (mut tcp, mut listening) = (0, 0);
    for table in ["/proc/self/net/tcp", "/proc/self/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let inode: u64 = fields[9].parse().unwrap();
            if mine.contains(&inode) {
                tcp += 1;
                listening += usize::from(fields[3] == "0A");
            }
        }
    }
    (tcp, listening)
}

/// A progress callback that looks at this process's sockets each time it
/// is called; the counters hold how often it was called and the most TCP
/// and listening sockets it saw.
fn watcher() -> (Progress, Arc<[AtomicUsize; 3]>) {
    let seen = Arc::new([
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    ]);
    let counters = seen.clone();
    let progress: Progress = Arc::new(move |_| {
        let (tcp, listening) = my_tcp_sockets();
        counters[0].fetch_add(1, Ordering::Relaxed);
        counters[1].fetch_max(tcp, Ordering::Relaxed);
        counters[2].fetch_max(listening, Ordering::Relaxed);
    });
    (progress, seen)
}

fn program() -> Program {
    repeated(&layered(512, 16, 16, 3), 4)
}

#[test]
fn two_local_parties_open_no_tcp_socket() {
    let program = program();
    let inputs = |party: Party| -> Vec<Option<Vec<bool>>> {
        program
            .main
            .inputs
            .iter()
            .map(|v| (v.party == party).then(|| vec![false; v.width as usize]))
            .collect()
    };
    for schedule in [Schedule::Sequential, Schedule::Cgp] {
        let (progress, seen) = watcher();
        let opts = SessionOptions {
            schedule,
            threads: 2,
            progress: Some(progress),
            ..SessionOptions::default()
        };
        let channel = ChannelOptions::default();
        run_local(
            &program,
            &inputs(Party::A),
            &inputs(Party::B),
            &opts,
            &channel,
        )
        .unwrap();
        assert!(seen[0].load(Ordering::Relaxed) > 0, "never looked");
        assert_eq!(
            seen[1].load(Ordering::Relaxed),
            0,
            "TCP sockets while running"
        );
        assert_eq!(seen[2].load(Ordering::Relaxed), 0, "a listening socket");
    }
}

#[test]
fn three_local_parties_open_no_tcp_socket() {
    let program = program();
    let mut prg = Prg::from_os();
    let kinds = vec![ShareKind::Xor; program.main.inputs.len()];
    let mut shares: [Vec<Vec<bool>>; 3] = Default::default();
    for v in &program.main.inputs {
        let parts = split(
            ShareKind::Xor,
            v.width,
            &vec![false; v.width as usize],
            &mut prg,
        );
        for (p, part) in parts.into_iter().enumerate() {
            shares[p].push(part);
        }
    }
    let (progress, seen) = watcher();
    let opts = HybridOptions {
        input_kinds: kinds,
        threads: 2,
        progress: Some(progress),
        ..HybridOptions::default()
    };
    run_hybrid_local(&program, &shares, &opts, &ChannelOptions::default()).unwrap();
    assert!(seen[0].load(Ordering::Relaxed) > 0, "never looked");
    assert_eq!(
        seen[1].load(Ordering::Relaxed),
        0,
        "TCP sockets while running"
    );
    assert_eq!(seen[2].load(Ordering::Relaxed), 0, "a listening socket");
}
