//! `twofold bench --tls`: what the secure channel costs. The full protocol
//! over socketpairs, both parties in this process, on a streamed synthetic
//! circuit, once on plain TCP and once over TLS 1.3 (AES-128-GCM, pinned
//! keys), alternating so that both see the same machine load; the median
//! speed of each and the slowdown, and the CPU time both parties used (on
//! a machine shared with other work, the CPU time says what TLS costs even
//! when the wall-clock time is noisy).

use anyhow::Result;
use serde::Serialize;
use twofold_circuit::Program;
use twofold_net::{ChannelOptions, KeyPair, Security};
use twofold_protocol::{run_local, Schedule, SessionOptions};

use super::median;
use crate::commands::Report;

/// The protocol with and without the secure channel.
#[derive(Debug, Serialize)]
pub struct SecureChannel {
    /// Runs of each.
    pub runs: usize,
    /// AND gates per run.
    pub and_gates: u64,
    /// Threads per party.
    pub threads: u32,
    /// The schedule.
    pub schedule: &'static str,
    /// Median speed on plain TCP.
    pub plain_and_gates_per_second: f64,
    /// Median speed over TLS.
    pub tls_and_gates_per_second: f64,
    /// How much slower TLS is, in percent of the plain time.
    pub slowdown_percent: f64,
    /// Bytes both parties sent per second over plain TCP (median run).
    pub plain_bytes_per_second: f64,
    /// Median CPU seconds (user and system, both parties) of a plain run
    /// (`null` where /proc is missing).
    pub plain_cpu_seconds: Option<f64>,
    /// Median CPU seconds of a TLS run.
    pub tls_cpu_seconds: Option<f64>,
    /// The TLS cipher suite preferred.
    pub cipher_suite: &'static str,
}

/// Measures `program` on `threads` threads per party, `runs` times each way.
pub fn secure_channel(
    program: &Program,
    schedule: Schedule,
    threads: u32,
    runs: usize,
    mut log: impl FnMut(&str),
) -> Result<SecureChannel> {
    let (a, b) = super::zero_inputs(program);
    let opts = SessionOptions {
        schedule,
        threads,
        ..SessionOptions::default()
    };
    // Both parties in one process share one key pair, each pinning it.
    let pair = KeyPair::generate()?;
    let tls = ChannelOptions {
        security: Security::tls(&pair, &[pair.public()])?,
        ..ChannelOptions::default()
    };
    let plain = ChannelOptions::default();
    let (mut plain_rates, mut tls_rates, mut bytes_rates) = (Vec::new(), Vec::new(), Vec::new());
    let (mut plain_cpu, mut tls_cpu) = (Vec::new(), Vec::new());
    let runs = runs.max(1);
    for run in 1..=runs {
        log(&format!("run {run} of {runs}: plain, then TLS ..."));
        for (channel, rates, cpu) in [
            (&plain, &mut plain_rates, &mut plain_cpu),
            (&tls, &mut tls_rates, &mut tls_cpu),
        ] {
            let before = cpu_seconds();
            let (ra, rb) = run_local(program, &a, &b, &opts, channel)?;
            if let (Some(before), Some(after)) = (before, cpu_seconds()) {
                cpu.push(after - before);
            }
            let seconds = ra.total.as_secs_f64();
            rates.push(ra.and_gates as f64 / seconds);
            if channel.security == Security::Plain {
                bytes_rates.push((ra.bytes_sent + rb.bytes_sent) as f64 / seconds);
            }
        }
    }
    let (plain, tls) = (median(plain_rates), median(tls_rates));
    Ok(SecureChannel {
        runs,
        and_gates: program.and_count(),
        threads,
        schedule: schedule.name(),
        plain_and_gates_per_second: plain,
        tls_and_gates_per_second: tls,
        slowdown_percent: (plain / tls - 1.0) * 100.0,
        plain_bytes_per_second: median(bytes_rates),
        plain_cpu_seconds: (!plain_cpu.is_empty()).then(|| median(plain_cpu)),
        tls_cpu_seconds: (!tls_cpu.is_empty()).then(|| median(tls_cpu)),
        cipher_suite: "TLS13_AES_128_GCM_SHA256",
    })
}

/// User and system CPU seconds of this process so far (Linux: from
/// /proc/self/stat, in clock ticks of 1/100 s).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces): state is the
    // 3rd field of the line, utime the 14th and stime the 15th.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i)?.parse::<f64>().ok();
    Some((ticks(11)? + ticks(12)?) / 100.0)
}

impl SecureChannel {
    /// The figures as one line.
    pub fn line(&self) -> String {
        let cpu = match (self.plain_cpu_seconds, self.tls_cpu_seconds) {
            (Some(p), Some(t)) => {
                format!(", CPU {p:.2} vs {t:.2} s ({:+.1}%)", (t / p - 1.0) * 100.0)
            }
            _ => String::new(),
        };
        format!(
            "protocol, plain TCP vs TLS 1.3: {:.1} vs {:.1} M AND/s, TLS {:+.1}% time{cpu} ({} AND gates, {:.2} GB/s plain)\n",
            self.plain_and_gates_per_second / 1e6,
            self.tls_and_gates_per_second / 1e6,
            self.slowdown_percent,
            self.and_gates,
            self.plain_bytes_per_second / 1e9,
        )
    }
}

impl Report for SecureChannel {
    fn text(&self) -> String {
        format!(
            "both parties in this process over socketpairs, {} x{}, median of {} runs, {}\n{}",
            self.schedule,
            self.threads,
            self.runs,
            self.cipher_suite,
            self.line()
        )
    }
}
