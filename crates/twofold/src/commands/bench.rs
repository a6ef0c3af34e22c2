//! `twofold bench`: garbling-only and evaluation-only speed on one core, the
//! full protocol over loopback on AES-128 repeated and on a streamed
//! synthetic circuit, bytes per AND gate and peak memory.
//!
//! Every figure is the median of `runs` runs.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use twofold_circuit::bristol::read_bristol_file;
use twofold_circuit::synthetic::{layered, repeated};
use twofold_circuit::{binary, Program};
use twofold_crypto::{core_speed, Scheme};
use twofold_net::ChannelOptions;
use twofold_protocol::{
    garble_only, run_local, IppMode, PartyInputs, Plan, Schedule, SessionOptions,
};

/// What to measure.
pub struct BenchOptions {
    /// AND gates for the in-memory garbling and evaluation runs.
    pub core_and_gates: u64,
    /// AND gates for the full protocol on AES-128 repeated.
    pub aes_and_gates: u64,
    /// AND gates for the streamed synthetic run (in a child process).
    pub streamed_and_gates: u64,
    /// `aes_128.txt` (Bristol Fashion); the AES case is skipped if absent.
    pub aes_path: PathBuf,
    /// Runs per figure (the median is reported).
    pub runs: usize,
}

/// The median of `xs` (the upper of the middle two for an even count).
pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// A synthetic program of at least `and_gates` AND gates: a layered body of
/// width 4096 and depth 64, repeated as a SIMD region.
fn synthetic(and_gates: u64) -> Program {
    let body = layered(4096, 64, 64, 0x5eed);
    let per = body.and_count() as u64;
    repeated(&body, and_gates.div_ceil(per).max(1) as u32)
}

/// Garbling-only and evaluation-only AND gates per second on one core and
/// bytes of table per AND gate, under each scheme (see [`core_speed`]);
/// the first is the default scheme's.
fn core(and_gates: u64, runs: usize) -> Result<Value> {
    let mut schemes = Vec::new();
    for scheme in Scheme::ALL {
        let speed = core_speed(scheme, and_gates, runs)?;
        schemes.push(json!({
            "scheme": scheme.name(),
            "and_gates": speed.and_gates,
            "backend": speed.backend.name(),
            "garble_and_gates_per_second": median(speed.garble_rates),
            "evaluate_and_gates_per_second": median(speed.evaluate_rates),
            "table_bytes_per_and_gate": speed.bytes_per_and,
        }));
    }
    Ok(json!(schemes))
}

/// The full protocol, both parties in this process over loopback.
fn protocol_speed(program: &Program, runs: usize) -> Result<Value> {
    let (rate, bytes) = protocol_runs(program, Schedule::Sequential, 1, runs)?;
    Ok(json!({
        "and_gates": program.and_count(),
        "and_gates_per_second": rate,
        "bytes_per_and_gate": bytes as f64 / program.and_count() as f64,
    }))
}

/// The streamed synthetic run as two child processes (`twofold run --party
/// a --listen` and `--party b --connect` on 127.0.0.1), so that each party's
/// peak memory is its own.
fn streamed(and_gates: u64, runs: usize) -> Result<Value> {
    let program = synthetic(and_gates);
    let path = std::env::temp_dir().join(format!("twofold-bench-{}.tfc", std::process::id()));
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path)?);
    binary::write_program(&program, &mut file)?;
    drop(file);
    let result = (|| -> Result<Value> {
        let exe = std::env::current_exe()?;
        let file = path.to_str().context("temp path is UTF-8")?;
        let mut rates = Vec::new();
        let (mut a, mut b) = (Value::Null, Value::Null);
        for _ in 0..runs {
            let port = std::net::TcpListener::bind("127.0.0.1:0")?
                .local_addr()?
                .port();
            let addr = format!("127.0.0.1:{port}");
            let party = |p: &str, flag: &str, input: &str| {
                Command::new(&exe)
                    .args([
                        "run", file, "--json", "--party", p, flag, &addr, "-i", input,
                    ])
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
            };
            let child_a = party("a", "--listen", "a=0")?;
            let child_b = party("b", "--connect", "b=0")?;
            let (out_a, out_b) = (child_a.wait_with_output()?, child_b.wait_with_output()?);
            for out in [&out_a, &out_b] {
                if !out.status.success() {
                    bail!(
                        "streamed run failed: {}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                }
            }
            a = serde_json::from_slice(&out_a.stdout)?;
            b = serde_json::from_slice(&out_b.stdout)?;
            rates.push(a["and_gates_per_second"].as_f64().unwrap_or(0.0));
        }
        Ok(json!({
            "and_gates": a["and_gates"],
            "and_gates_per_second": median(rates),
            "bytes_per_and_gate": a["bytes_per_and_gate"],
            "peak_rss_bytes": { "a": a["peak_rss_bytes"], "b": b["peak_rss_bytes"] },
        }))
    })();
    let _ = std::fs::remove_file(&path);
    result
}

/// Runs the benchmark; returns the JSON results.
pub fn bench(opts: &BenchOptions, mut log: impl FnMut(&str)) -> Result<Value> {
    let runs = opts.runs.max(1);
    log(&format!(
        "garbling and evaluation on one core, {} AND gates ...",
        opts.core_and_gates
    ));
    let core = core(opts.core_and_gates, runs)?;
    let aes = if Path::new(&opts.aes_path).is_file() {
        let body = read_bristol_file(&opts.aes_path)?;
        let instances = opts.aes_and_gates.div_ceil(body.and_count() as u64) as u32;
        log(&format!(
            "full protocol over loopback, AES-128 x {instances} ..."
        ));
        protocol_speed(&repeated(&body, instances), runs)?
    } else {
        log(&format!(
            "skipping AES-128: {} not found (use --aes)",
            opts.aes_path.display()
        ));
        Value::Null
    };
    log(&format!(
        "full protocol over loopback, streamed synthetic {} AND gates ...",
        opts.streamed_and_gates
    ));
    let streamed = streamed(opts.streamed_and_gates, runs)?;
    Ok(json!({
        "runs": runs,
        "cores": std::thread::available_parallelism().map_or(1, |n| n.get()),
        "core": core,
        "protocol_aes128": aes,
        "protocol_streamed": streamed,
    }))
}

/// The results as a table.
pub fn bench_text(v: &Value) -> String {
    let m = |x: &Value| format!("{:.1} M AND/s", x.as_f64().unwrap_or(0.0) / 1e6);
    let mut out = format!("median of {} runs\n", v["runs"]);
    for c in v["core"].as_array().into_iter().flatten() {
        out += &format!(
            "{}, one core ({}): garbling {}, evaluation {}, {:.2} table bytes/AND\n",
            c["scheme"].as_str().unwrap_or("?"),
            c["backend"].as_str().unwrap_or("?"),
            m(&c["garble_and_gates_per_second"]),
            m(&c["evaluate_and_gates_per_second"]),
            c["table_bytes_per_and_gate"].as_f64().unwrap_or(0.0),
        );
    }
    if !v["protocol_aes128"].is_null() {
        let p = &v["protocol_aes128"];
        out += &format!(
            "protocol, AES-128 repeated:     {}  ({} AND gates, {:.2} bytes/AND)\n",
            m(&p["and_gates_per_second"]),
            p["and_gates"],
            p["bytes_per_and_gate"].as_f64().unwrap_or(0.0)
        );
    }
    let s = &v["protocol_streamed"];
    out += &format!(
        "protocol, streamed synthetic:   {}  ({} AND gates, {:.2} bytes/AND, peak memory A {:.1} MiB, B {:.1} MiB)\n",
        m(&s["and_gates_per_second"]),
        s["and_gates"],
        s["bytes_per_and_gate"].as_f64().unwrap_or(0.0),
        s["peak_rss_bytes"]["a"].as_f64().unwrap_or(0.0) / (1 << 20) as f64,
        s["peak_rss_bytes"]["b"].as_f64().unwrap_or(0.0) / (1 << 20) as f64,
    );
    out
}

/// Garbling-only AND gates per second of `program` (median of `runs`).
pub fn garble_only_rate(program: &Program, plan: Plan, runs: usize) -> Result<f64> {
    // One untimed run first: page faults and cold caches are not garbling.
    garble_only(program, plan)?;
    let mut rates = Vec::new();
    for _ in 0..runs.max(1) {
        let r = garble_only(program, plan)?;
        rates.push(r.and_gates as f64 / r.seconds.as_secs_f64());
    }
    Ok(median(rates))
}

/// Full protocol over loopback with all inputs zero: AND gates per second
/// (median of `runs`) and the bytes both parties sent.
fn protocol_runs(
    program: &Program,
    schedule: Schedule,
    threads: u32,
    runs: usize,
) -> Result<(f64, u64)> {
    let zeros = |party| -> PartyInputs {
        program
            .main
            .inputs
            .iter()
            .map(|v| (v.party == party).then(|| vec![false; v.width as usize]))
            .collect()
    };
    let (a, b) = (
        zeros(twofold_circuit::Party::A),
        zeros(twofold_circuit::Party::B),
    );
    let opts = SessionOptions {
        schedule,
        threads,
        ..SessionOptions::default()
    };
    let mut rates = Vec::new();
    let mut bytes = 0;
    for _ in 0..runs.max(1) {
        let (ra, rb) = run_local(program, &a, &b, &opts, &ChannelOptions::default())?;
        rates.push(ra.and_gates as f64 / ra.total.as_secs_f64());
        bytes = ra.bytes_sent + rb.bytes_sent;
    }
    Ok((median(rates), bytes))
}

/// The ParCC paper's speed-up measurements for each program: garbling only
/// with 1 thread (sequential) against FGP and CGP with 2 threads, and the
/// full protocol over loopback with 1 and 2 threads.
pub fn speedups(
    programs: &[(String, Program)],
    runs: usize,
    mut log: impl FnMut(&str),
) -> Result<Value> {
    let mut rows = Vec::new();
    for (name, program) in programs {
        log(&format!("{name}: {} AND gates ...", program.and_count()));
        let seq = garble_only_rate(program, Plan::new(Schedule::Sequential, 1), runs)?;
        let fgp = garble_only_rate(program, Plan::new(Schedule::Fgp, 2), runs)?;
        let cgp = garble_only_rate(program, Plan::new(Schedule::Cgp, 2), runs)?;
        let (p1, _) = protocol_runs(program, Schedule::Sequential, 1, runs)?;
        let (p2, _) = protocol_runs(program, Schedule::Auto, 2, runs)?;
        rows.push(json!({
            "program": name,
            "and_gates": program.and_count(),
            "regions": program.parallel_blocks().count(),
            "garble_1_thread": seq,
            "garble_fgp_2_threads": fgp,
            "garble_cgp_2_threads": cgp,
            "fgp_speedup": fgp / seq,
            "cgp_speedup": cgp / seq,
            "protocol_1_thread": p1,
            "protocol_2_threads": p2,
            "protocol_speedup": p2 / p1,
        }));
    }
    Ok(json!({ "runs": runs, "speedups": rows }))
}

/// The results of [`speedups`] as a table.
pub fn speedups_text(v: &Value) -> String {
    let mut out = format!(
        "median of {} runs; garbling only unless noted (M AND/s)\n{:<16}{:>12}{:>10}{:>10}{:>10}{:>10}{:>10}{:>12}\n",
        v["runs"], "program", "AND gates", "1 thread", "FGP x2", "speed-up", "CGP x2", "speed-up", "protocol x2"
    );
    for r in v["speedups"].as_array().into_iter().flatten() {
        let f = |k: &str| r[k].as_f64().unwrap_or(0.0);
        out += &format!(
            "{:<16}{:>12}{:>10.1}{:>10.1}{:>9.2}x{:>10.1}{:>9.2}x{:>11.2}x\n",
            r["program"].as_str().unwrap_or("?"),
            r["and_gates"],
            f("garble_1_thread") / 1e6,
            f("garble_fgp_2_threads") / 1e6,
            f("fgp_speedup"),
            f("garble_cgp_2_threads") / 1e6,
            f("cgp_speedup"),
            f("protocol_speedup"),
        );
    }
    out
}

/// The paper's artificial-circuit experiment: random non-linear circuits of
/// depth 1000 and widths 16..1024 (up to `max_width`); garbling-only FGP
/// speed-up on 2 threads, with the measured threshold and splitting every level.
pub fn artificial(
    runs: usize,
    depth: u32,
    max_width: u32,
    mut log: impl FnMut(&str),
) -> Result<Value> {
    let mut rows = Vec::new();
    let mut width = 16;
    while width <= max_width {
        log(&format!("width {width} ..."));
        let program = Program::from(layered(width, depth, width.min(64), u64::from(width)));
        let seq = garble_only_rate(&program, Plan::new(Schedule::Sequential, 1), runs)?;
        let fgp = garble_only_rate(&program, Plan::new(Schedule::Fgp, 2), runs)?;
        let every_level = Plan {
            fgp_min_ands: 1,
            ..Plan::new(Schedule::Fgp, 2)
        };
        let forced = garble_only_rate(&program, every_level, runs)?;
        rows.push(json!({
            "width": width,
            "depth": depth,
            "garble_1_thread": seq,
            "garble_fgp_2_threads": fgp,
            "garble_fgp_2_threads_every_level": forced,
            "speedup": fgp / seq,
            "speedup_every_level": forced / seq,
        }));
        width *= 2;
    }
    Ok(
        json!({ "runs": runs, "fgp_min_ands": twofold_protocol::engine::FGP_MIN_ANDS, "artificial": rows }),
    )
}

/// The results of [`artificial`] as a table.
pub fn artificial_text(v: &Value) -> String {
    let mut out = format!(
        "random circuits, garbling only, median of {} runs (M AND/s); FGP splits levels of >= {} ANDs\n{:>8}{:>12}{:>12}{:>10}{:>22}{:>10}\n",
        v["runs"], v["fgp_min_ands"], "width", "1 thread", "FGP x2", "speed-up", "FGP x2, every level", "speed-up"
    );
    for r in v["artificial"].as_array().into_iter().flatten() {
        let f = |k: &str| r[k].as_f64().unwrap_or(0.0);
        out += &format!(
            "{:>8}{:>12.1}{:>12.1}{:>9.2}x{:>22.1}{:>9.2}x\n",
            r["width"],
            f("garble_1_thread") / 1e6,
            f("garble_fgp_2_threads") / 1e6,
            f("speedup"),
            f("garble_fgp_2_threads_every_level") / 1e6,
            f("speedup_every_level"),
        );
    }
    out
}

/// The speed-ups as a bar chart (the paper's Figure 8).
pub fn speedups_svg(v: &Value) -> String {
    let mut bars = Vec::new();
    for r in v["speedups"].as_array().into_iter().flatten() {
        let name = r["program"].as_str().unwrap_or("?");
        for (label, key) in [
            ("FGP", "fgp_speedup"),
            ("CGP", "cgp_speedup"),
            ("protocol", "protocol_speedup"),
        ] {
            bars.push((format!("{name} {label}"), r[key].as_f64().unwrap_or(0.0)));
        }
    }
    crate::plot::bar_chart(
        "Speed-up on 2 threads",
        "program and schedule",
        "speed-up (x)",
        &bars,
    )
}

/// The artificial-circuit speed-ups as a line chart (the paper's Figure 6).
pub fn artificial_svg(v: &Value) -> String {
    let series_of = |key: &str| -> Vec<(f64, f64)> {
        v["artificial"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| {
                (
                    r["width"].as_f64().unwrap_or(0.0),
                    r[key].as_f64().unwrap_or(0.0),
                )
            })
            .collect()
    };
    let series = [
        crate::plot::Series {
            name: format!(
                "FGP, 2 threads, levels of >= {} ANDs split",
                v["fgp_min_ands"]
            ),
            points: series_of("speedup"),
        },
        crate::plot::Series {
            name: "FGP, 2 threads, every level split".into(),
            points: series_of("speedup_every_level"),
        },
    ];
    let depth = v["artificial"][0]["depth"].as_u64().unwrap_or(0);
    crate::plot::line_chart(
        &format!("Garbling speed-up, random circuits of depth {depth}"),
        "circuit width (AND gates per level)",
        "speed-up (x)",
        &series,
        true,
    )
}

/// Where `bench --ipp` runs the two parties.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// Both on 127.0.0.1.
    Loopback,
    /// In the namespaces of `scripts/netns.sh` (shaped link).
    Netns,
}

/// Zero for every input value of `party`, as `-i NAME=0` arguments (for a
/// binary program, whose values are integers).
fn zero_inputs(program: &Program, party: twofold_circuit::Party) -> Vec<String> {
    program
        .main
        .inputs
        .iter()
        .filter(|v| v.party == party)
        .flat_map(|v| ["-i".to_string(), format!("{}=0", v.name)])
        .collect()
}

/// One run as two processes, party A on core 0 and party B on core 1 (with
/// `taskset` when present); returns both parties' `--json` reports.
fn two_processes(
    file: &Path,
    program: &Program,
    ipp: IppMode,
    link: Link,
) -> Result<(Value, Value)> {
    let exe = std::env::current_exe()?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let (listen, connect) = match link {
        Link::Loopback => (format!("127.0.0.1:{port}"), format!("127.0.0.1:{port}")),
        Link::Netns => (format!("10.77.0.1:{port}"), format!("10.77.0.1:{port}")),
    };
    let taskset = Path::new("/usr/bin/taskset").exists();
    let party = |p: twofold_circuit::Party, flag: &str, addr: &str, core: &str, ns: &str| {
        let mut cmd = if link == Link::Netns {
            let mut c = Command::new("ip");
            c.args(["netns", "exec", ns]);
            c
        } else {
            Command::new(if taskset {
                "taskset"
            } else {
                exe.to_str().unwrap_or("twofold")
            })
        };
        if link == Link::Netns && taskset {
            cmd.arg("taskset");
        }
        if taskset {
            cmd.args(["-c", core]);
        }
        if link == Link::Netns || taskset {
            cmd.arg(&exe);
        }
        cmd.arg("run")
            .arg(file)
            .args([
                "--party",
                &p.to_string(),
                flag,
                addr,
                "--threads",
                "1",
                "--schedule",
                "seq",
                "--json",
            ])
            .args(zero_inputs(program, p))
            .args(match ipp {
                IppMode::Off => &[][..],
                IppMode::On => &["--ipp"][..],
                IppMode::NoOverlap => &["--ipp", "--ipp-no-overlap"][..],
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
    };
    let a = party(
        twofold_circuit::Party::A,
        "--listen",
        &listen,
        "0",
        "twofold-a",
    )?;
    let b = party(
        twofold_circuit::Party::B,
        "--connect",
        &connect,
        "1",
        "twofold-b",
    )?;
    reports(a, b)
}

/// Waits for both parties' processes; returns their `--json` reports, or
/// the error of one that failed.
pub fn reports(a: std::process::Child, b: std::process::Child) -> Result<(Value, Value)> {
    let (a, b) = (a.wait_with_output()?, b.wait_with_output()?);
    for out in [&a, &b] {
        if !out.status.success() {
            bail!("party failed: {}", String::from_utf8_lossy(&out.stderr));
        }
    }
    Ok((
        serde_json::from_slice(&a.stdout)?,
        serde_json::from_slice(&b.stdout)?,
    ))
}

/// `bench --ipp`: for each program, the full protocol without inter-party
/// parallelism, with it, and with it but without the overlap of main gates
/// and regions; each party a process on its own core.
pub fn ipp(files: &[PathBuf], runs: usize, link: Link, mut log: impl FnMut(&str)) -> Result<Value> {
    let mut rows = Vec::new();
    for file in files {
        let loaded = crate::load::load(file, &crate::load::LoadOptions::default())?;
        log(&format!(
            "{}: {} AND gates ...",
            file.display(),
            loaded.program.and_count()
        ));
        // Compiled and prepared once, here; the parties load the result.
        let program = twofold_circuit::prepare::prepare(&loaded.program);
        let tfc = std::env::temp_dir().join(format!("twofold-ipp-{}.tfc", std::process::id()));
        binary::write_program(
            &program,
            &mut std::io::BufWriter::new(std::fs::File::create(&tfc)?),
        )?;
        // The modes take turns in every round, so drifting machine load
        // touches them alike.
        let modes = [IppMode::Off, IppMode::On, IppMode::NoOverlap];
        let mut times = vec![Vec::new(); modes.len()];
        let mut last = vec![Value::Null; modes.len()];
        let measured = (0..runs.max(1)).try_for_each(|_| {
            for (k, &mode) in modes.iter().enumerate() {
                let (a, _) = two_processes(&tfc, &program, mode, link)?;
                times[k].push(a["seconds"]["total"].as_f64().unwrap_or(0.0));
                last[k] = a;
            }
            Ok::<(), anyhow::Error>(())
        });
        let _ = std::fs::remove_file(&tfc);
        measured?;
        let [without, with, no_overlap] = [0, 1, 2].map(|k| {
            let a = &last[k];
            json!({
                "seconds": median(std::mem::take(&mut times[k])),
                "bytes_a_to_b": a["bytes_sent"]["a"],
                "bytes_b_to_a": a["bytes_sent"]["b"],
                "role_transfer_seconds": a["seconds"]["role_transfer"],
            })
        });
        let secs = |v: &Value| v["seconds"].as_f64().unwrap_or(f64::NAN);
        let order = program.main_overlapped();
        let during: u64 = (0..order.regions.len())
            .map(|r| order.during_ands(&program, r))
            .sum();
        rows.push(json!({
            "program": file.display().to_string(),
            "and_gates": loaded.program.and_count(),
            "regions": loaded.program.parallel_blocks().count(),
            "main_and_gates_during_regions": during,
            "speedup": secs(&without) / secs(&with),
            "overlap_speedup": secs(&no_overlap) / secs(&with),
            "without_ipp": without,
            "with_ipp": with,
            "with_ipp_no_overlap": no_overlap,
        }));
    }
    Ok(json!({ "runs": runs, "link": format!("{link:?}"), "ipp": rows }))
}

/// The results of [`ipp`] as a table.
pub fn ipp_text(v: &Value) -> String {
    let mut out = format!(
        "each party one process on its own core, link {}, median of {} runs\n{:<28}{:>10}{:>10}{:>9}{:>14}{:>9}{:>13}{:>13}{:>12}\n",
        v["link"].as_str().unwrap_or("?"),
        v["runs"],
        "program",
        "no IPP s",
        "IPP s",
        "speed-up",
        "no overlap s",
        "overlap",
        "IPP A->B MB",
        "IPP B->A MB",
        "transfer s"
    );
    for r in v["ipp"].as_array().into_iter().flatten() {
        let with = &r["with_ipp"];
        let mb = |x: &Value| x.as_f64().unwrap_or(0.0) / 1e6;
        out += &format!(
            "{:<28}{:>10.3}{:>10.3}{:>8.2}x{:>14.3}{:>8.2}x{:>13.1}{:>13.1}{:>12.4}\n",
            r["program"].as_str().unwrap_or("?"),
            r["without_ipp"]["seconds"].as_f64().unwrap_or(0.0),
            with["seconds"].as_f64().unwrap_or(0.0),
            r["speedup"].as_f64().unwrap_or(0.0),
            r["with_ipp_no_overlap"]["seconds"].as_f64().unwrap_or(0.0),
            r["overlap_speedup"].as_f64().unwrap_or(0.0),
            mb(&with["bytes_a_to_b"]),
            mb(&with["bytes_b_to_a"]),
            with["role_transfer_seconds"].as_f64().unwrap_or(0.0),
        );
    }
    out
}
