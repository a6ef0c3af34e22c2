//! twofold: secure two-party computation with Yao's garbled circuits.
//!
//! This crate is the command line (`twofold`) and the facade over the
//! workspace: [`api`] is the way to embed twofold in a Rust program (compile
//! C, run both parties locally or one over a `TcpStream` you opened, typed
//! outputs; its docs have runnable examples), [`load`] reads a program from
//! a Bristol, binary or C file, [`inputs`] turns command-line values into
//! input bits and output bits back into text ([`infile`] reads them from
//! JSON, CSV or C-initializer files), and the subcommands live in
//! [`commands`].

pub mod api;
pub mod choice;
pub mod commands;
pub mod files;
pub mod infile;
pub mod inputs;
pub mod load;
pub mod memory;
pub mod outrun;
pub mod plot;
pub mod progress;
pub mod store;

pub use twofold_circuit as circuit;
pub use twofold_protocol as protocol;

/// When this process started (as near as the program can tell: the first
/// call of this function, made first thing in `main`).
pub fn started() -> std::time::Instant {
    static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    *STARTED.get_or_init(std::time::Instant::now)
}

/// Peak resident memory of this process so far, in bytes (Linux; 0 elsewhere).
pub fn peak_rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}
