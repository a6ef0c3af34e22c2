//! `twofold bench` with no benchmark named: garbling-only and
//! evaluation-only speed on one core, the full protocol over loopback on
//! AES-128 repeated, and a streamed synthetic circuit as two processes
//! (bytes per AND gate and each party's peak memory).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;
use twofold_circuit::bristol::read_bristol_file;
use twofold_circuit::synthetic::{layered, repeated};
use twofold_circuit::{binary, Party, Program};
use twofold_crypto::{core_speed, Scheme};
use twofold_protocol::Schedule;

use super::parties::{run_two, zero_inputs, Placement};
use super::{median, mib, protocol_runs, secure_channel, SecureChannel};
use crate::commands::{PerParty, Report};

/// What to measure.
pub struct OverviewOptions {
    /// AND gates for the in-memory garbling and evaluation runs.
    pub core_and_gates: u64,
    /// AND gates for the full protocol on AES-128 repeated.
    pub aes_and_gates: u64,
    /// AND gates for the streamed synthetic run (two processes).
    pub streamed_and_gates: u64,
    /// `aes_128.txt` (Bristol Fashion); the AES case is skipped if absent.
    pub aes_path: PathBuf,
    /// Runs per figure (the median is reported).
    pub runs: usize,
}

/// The figures of the overview.
#[derive(Debug, Serialize)]
pub struct Overview {
    /// Runs per figure.
    pub runs: usize,
    /// Cores of this machine.
    pub cores: usize,
    /// Garbling and evaluation on one core, under each garbling scheme (the
    /// default first).
    pub core: Vec<CoreFigures>,
    /// The full protocol on AES-128 repeated (`null` without the circuit).
    pub protocol_aes128: Option<ProtocolFigures>,
    /// The streamed synthetic run.
    pub protocol_streamed: StreamedFigures,
    /// The protocol with and without the secure channel (in this process,
    /// synthetic circuit of the core size).
    pub secure_channel: SecureChannel,
}

/// In-memory garbling and evaluation on one core under one scheme.
#[derive(Debug, Serialize)]
pub struct CoreFigures {
    /// The garbling scheme.
    pub scheme: &'static str,
    /// AND gates per run.
    pub and_gates: u64,
    /// The AES backend.
    pub backend: &'static str,
    /// Median garbling speed.
    pub garble_and_gates_per_second: f64,
    /// Median evaluation speed.
    pub evaluate_and_gates_per_second: f64,
    /// Bytes of garbled table per AND gate.
    pub table_bytes_per_and_gate: f64,
}

/// The full protocol, both parties in this process over loopback.
#[derive(Debug, Serialize)]
pub struct ProtocolFigures {
    /// AND gates per run.
    pub and_gates: u64,
    /// Median speed.
    pub and_gates_per_second: f64,
    /// Bytes both parties sent over AND gates.
    pub bytes_per_and_gate: f64,
}

/// The full protocol as two processes on a streamed synthetic circuit.
#[derive(Debug, Serialize)]
pub struct StreamedFigures {
    /// AND gates per run.
    pub and_gates: u64,
    /// Median speed (party A's session).
    pub and_gates_per_second: f64,
    /// Bytes both parties sent over AND gates.
    pub bytes_per_and_gate: Option<f64>,
    /// Each party's peak memory (last run).
    pub peak_rss_bytes: PerParty<u64>,
}

/// A synthetic program of at least `and_gates` AND gates: a layered body of
/// width 4096 and depth 64, repeated as a SIMD region.
pub(super) fn synthetic(and_gates: u64) -> Program {
    let body = layered(4096, 64, 64, 0x5eed);
    let per = body.and_count() as u64;
    repeated(&body, and_gates.div_ceil(per).max(1) as u32)
}

/// The full protocol on `program` over loopback, one thread.
fn protocol(program: &Program, runs: usize) -> Result<ProtocolFigures> {
    let (rate, bytes) = protocol_runs(program, Schedule::Sequential, 1, runs)?;
    Ok(ProtocolFigures {
        and_gates: program.and_count(),
        and_gates_per_second: rate,
        bytes_per_and_gate: bytes as f64 / program.and_count() as f64,
    })
}

/// The streamed synthetic run as two processes, so that each party's peak
/// memory is its own.
fn streamed(and_gates: u64, runs: usize) -> Result<StreamedFigures> {
    let program = synthetic(and_gates);
    // In a private directory of a random name: nothing planted in the
    // shared temporary directory can redirect the write.
    let dir = crate::files::private_temp_dir("twofold-bench")?;
    let path = dir.join("streamed.tfc");
    let written = std::fs::File::create(&path)
        .map_err(anyhow::Error::from)
        .and_then(|file| {
            let mut out = std::io::BufWriter::new(file);
            binary::write_program(&program, &mut out)?;
            std::io::Write::flush(&mut out)?;
            Ok(())
        })
        .with_context(|| format!("cannot write {}", path.display()));
    let measured = written.and_then(|()| {
        let inputs = PerParty {
            a: zero_inputs(&program.main.inputs, Party::A, "0"),
            b: zero_inputs(&program.main.inputs, Party::B, "0"),
        };
        (0..runs)
            .map(|_| run_two(&path, &[], &inputs, Placement::LOOPBACK))
            .collect::<Result<Vec<_>>>()
    });
    let _ = std::fs::remove_dir_all(&dir);
    let results = measured?;
    let last = &results.last().context("at least one run")?.reports;
    Ok(StreamedFigures {
        and_gates: last.a.and_gates,
        and_gates_per_second: median(
            results
                .iter()
                .map(|r| r.reports.a.and_gates_per_second)
                .collect(),
        ),
        bytes_per_and_gate: last.a.bytes_per_and_gate,
        peak_rss_bytes: PerParty {
            a: last.a.peak_rss_bytes,
            b: last.b.peak_rss_bytes,
        },
    })
}

/// Runs the overview.
pub fn overview(opts: &OverviewOptions, mut log: impl FnMut(&str)) -> Result<Overview> {
    let runs = opts.runs.max(1);
    log(&format!(
        "garbling and evaluation on one core, {} AND gates ...",
        opts.core_and_gates
    ));
    let core = Scheme::ALL
        .into_iter()
        .map(|scheme| {
            let speed = core_speed(scheme, opts.core_and_gates, runs)?;
            Ok(CoreFigures {
                scheme: scheme.name(),
                and_gates: speed.and_gates,
                backend: speed.backend.name(),
                garble_and_gates_per_second: median(speed.garble_rates),
                evaluate_and_gates_per_second: median(speed.evaluate_rates),
                table_bytes_per_and_gate: speed.bytes_per_and,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let aes = if Path::new(&opts.aes_path).is_file() {
        let body = read_bristol_file(&opts.aes_path)?;
        let instances = opts.aes_and_gates.div_ceil(body.and_count() as u64) as u32;
        log(&format!(
            "full protocol over loopback, AES-128 x {instances} ..."
        ));
        Some(protocol(&repeated(&body, instances), runs)?)
    } else {
        log(&format!(
            "skipping AES-128: {} not found (use --aes)",
            opts.aes_path.display()
        ));
        None
    };
    log(&format!(
        "full protocol over loopback with and without TLS, synthetic {} AND gates ...",
        opts.core_and_gates
    ));
    let tls = secure_channel(
        &synthetic(opts.core_and_gates),
        Schedule::Sequential,
        1,
        runs,
        |_| {},
    )?;
    log(&format!(
        "full protocol over loopback, streamed synthetic {} AND gates ...",
        opts.streamed_and_gates
    ));
    Ok(Overview {
        secure_channel: tls,
        runs,
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        core,
        protocol_aes128: aes,
        protocol_streamed: streamed(opts.streamed_and_gates, runs)?,
    })
}

impl Report for Overview {
    fn text(&self) -> String {
        let m = |x: f64| format!("{:.1} M AND/s", x / 1e6);
        let mut out = format!("median of {} runs\n", self.runs);
        for c in &self.core {
            out += &format!(
                "{}, one core ({}): garbling {}, evaluation {}, {:.2} table bytes/AND\n",
                c.scheme,
                c.backend,
                m(c.garble_and_gates_per_second),
                m(c.evaluate_and_gates_per_second),
                c.table_bytes_per_and_gate,
            );
        }
        if let Some(p) = &self.protocol_aes128 {
            out += &format!(
                "protocol, AES-128 repeated:     {}  ({} AND gates, {:.2} bytes/AND)\n",
                m(p.and_gates_per_second),
                p.and_gates,
                p.bytes_per_and_gate
            );
        }
        let s = &self.protocol_streamed;
        out += &format!(
            "protocol, streamed synthetic:   {}  ({} AND gates, {:.2} bytes/AND, peak memory A {:.1} MiB, B {:.1} MiB)\n",
            m(s.and_gates_per_second),
            s.and_gates,
            s.bytes_per_and_gate.unwrap_or(0.0),
            mib(s.peak_rss_bytes.a),
            mib(s.peak_rss_bytes.b),
        );
        out += &self.secure_channel.line();
        out
    }
}
