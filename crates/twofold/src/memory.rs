//! `--max-memory`: the memory a command may use, so that a program that
//! would not fit ends in a clear error before the work starts (compiling:
//! the compiler's budgets derive from it; running: the session's estimated
//! peak is checked against it before the protocol starts).

use anyhow::{bail, Result};
use twofold_circuit::size::{parse_size, show};
use twofold_circuit::Program;
use twofold_protocol::budget::session_memory;

/// The default limit: three quarters of the physical memory (`MemTotal` of
/// `/proc/meminfo`), or no limit where that cannot be read.
pub fn default_max_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = text
        .lines()
        .find(|l| l.starts_with("MemTotal:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some(kib.saturating_mul(1024) / 4 * 3)
}

/// Parses `--max-memory SIZE` (`512M`, `4G`, `1.5GiB`, bytes).
pub fn parse_max_memory(text: &str) -> Result<u64, String> {
    parse_size(text).map_err(|e| e.to_string())
}

/// Fails if running `program` with `threads` threads a party and `parties`
/// parties in this process would need more than `limit` bytes (by
/// [`session_memory`]'s estimate).
pub fn check_session(program: &Program, threads: u32, parties: u32, limit: u64) -> Result<()> {
    let estimate = session_memory(program, threads, parties);
    if estimate.total() > limit {
        bail!(
            "running the program would need about {} (the program {}, wire labels, plans and buffers of {parties} part{} with {threads} thread{} {}), more than --max-memory {}; raise --max-memory or use fewer threads",
            show(estimate.total()),
            show(estimate.program),
            if parties == 1 { "y" } else { "ies" },
            if threads == 1 { "" } else { "s" },
            show(estimate.session),
            show(limit),
        );
    }
    Ok(())
}
