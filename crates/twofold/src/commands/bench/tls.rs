//! `twofold bench --tls`: what the secure channel costs. The full protocol
//! over loopback TCP, both parties in this process, on a streamed synthetic
//! circuit, once on plain TCP and once over TLS 1.3 (AES-128-GCM, pinned
//! keys), alternating so that both see the same machine load; the median
//! speed of each and the slowdown.

use anyhow::Result;
use serde::Serialize;
use twofold_circuit::{Party, Program};
use twofold_net::{ChannelOptions, KeyPair, Security};
use twofold_protocol::{run_local, PartyInputs, Schedule, SessionOptions};

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
    let zeros = |party| -> PartyInputs {
        program
            .main
            .inputs
            .iter()
            .map(|v| (v.party == party).then(|| vec![false; v.width as usize]))
            .collect()
    };
    let (a, b) = (zeros(Party::A), zeros(Party::B));
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
    let runs = runs.max(1);
    for run in 1..=runs {
        log(&format!("run {run} of {runs}: plain, then TLS ..."));
        for (channel, rates) in [(&plain, &mut plain_rates), (&tls, &mut tls_rates)] {
            let (ra, rb) = run_local(program, &a, &b, &opts, channel)?;
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
        cipher_suite: "TLS13_AES_128_GCM_SHA256",
    })
}

impl SecureChannel {
    /// The figures as one line.
    pub fn line(&self) -> String {
        format!(
            "protocol, plain TCP vs TLS 1.3: {:.1} vs {:.1} M AND/s, TLS {:+.1}% time ({} AND gates, {:.2} GB/s plain)\n",
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
            "both parties in this process over loopback TCP, {} x{}, median of {} runs, {}\n{}",
            self.schedule,
            self.threads,
            self.runs,
            self.cipher_suite,
            self.line()
        )
    }
}
