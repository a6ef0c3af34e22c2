//! `fuzz TARGET|all [EXECS] [SEED]`: runs the fuzz targets for as long as
//! asked (EXECS per target, default `$TWOFOLD_FUZZ_EXECS` or 1,000,000).
//!
//! The work runs in a child process (`fuzz --worker ...`) that records each
//! input before running it. A panic is caught there; an abort (allocation
//! over the cap, a stack overflow, an input that runs longer than the
//! timeout) ends the child, and the parent keeps the recorded input. Either
//! way the input is filed as `corpus/<target>/regressions/crash-<hash>`,
//! where `cargo test` replays it from then on, and the run goes on with a
//! new child.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use cap::Cap;
use twofold_fuzz::{crash_name, Fuzzer, Target};

#[global_allocator]
static ALLOCATOR: Cap<std::alloc::System> = Cap::new(std::alloc::System, usize::MAX);

/// Most memory a worker may hold: an input that needs more is a crash.
const MEMORY_CAP: usize = 4 << 30;

/// Longest one input may run before the worker aborts.
const TIMEOUT: Duration = Duration::from_secs(20);

/// Stack of the thread running the targets (that of a command-line run's
/// main thread).
const STACK: usize = 8 << 20;

/// Most times a target's worker may die before the run gives up.
const MAX_RESTARTS: u64 = 20;

/// How often a worker reports its progress (execs).
const PROGRESS_EVERY: u64 = 10_000;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("--worker") => worker(&args[1..]),
        Some(_) => supervise(&args),
        None => Err(format!(
            "usage: fuzz TARGET|all [EXECS] [SEED]  (targets: {})",
            Target::ALL.map(Target::name).join(", ")
        )),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fuzz: {e}");
            ExitCode::FAILURE
        }
    }
}

fn number(arg: Option<&String>, what: &str) -> Result<Option<u64>, String> {
    arg.map(|a| a.parse().map_err(|_| format!("bad {what} `{a}`")))
        .transpose()
}

fn supervise(args: &[String]) -> Result<(), String> {
    let targets = match args[0].as_str() {
        "all" => Target::ALL.to_vec(),
        name => vec![Target::by_name(name).ok_or(format!("no target `{name}`"))?],
    };
    let execs = match number(args.get(1), "exec count")? {
        Some(n) => n,
        None => number(
            std::env::var("TWOFOLD_FUZZ_EXECS").ok().as_ref(),
            "TWOFOLD_FUZZ_EXECS",
        )?
        .unwrap_or(1_000_000),
    };
    let seed = match number(args.get(2), "seed")? {
        Some(s) => s,
        None => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64),
    };
    for target in targets {
        fuzz_target(target, execs, seed)?;
    }
    Ok(())
}

/// Runs `execs` inputs on `target` in workers, restarting one after a crash.
fn fuzz_target(target: Target, execs: u64, seed: u64) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let current = std::env::temp_dir().join(format!(
        "twofold-fuzz-{}-{}.current",
        target.name(),
        std::process::id()
    ));
    let start = std::time::Instant::now();
    let (mut done, mut accepted, mut crashes, mut restarts) = (0u64, 0u64, 0u64, 0u64);
    while done < execs {
        let mut child = Command::new(&exe)
            .arg("--worker")
            .arg(target.name())
            .arg((execs - done).to_string())
            .arg(seed.wrapping_add(restarts).to_string())
            .arg(&current)
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| e.to_string())?;
        let stdout = child.stdout.take().expect("piped");
        let (mut ran, mut kept) = (0, 0);
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let fields: Vec<u64> = line.split(' ').filter_map(|f| f.parse().ok()).collect();
            match line.split(' ').next() {
                Some("progress") if fields.len() == 2 => (ran, kept) = (fields[0], fields[1]),
                Some("crash") => {
                    crashes += 1;
                    println!("{}: {}", target.name(), &line[6..]);
                }
                _ => println!("{line}"),
            }
        }
        let status = child.wait().map_err(|e| e.to_string())?;
        done += ran;
        accepted += kept;
        if !status.success() {
            if restarts == MAX_RESTARTS {
                return Err(format!(
                    "{}: the worker died {MAX_RESTARTS} times; fix those crashes first",
                    target.name()
                ));
            }
            let input = std::fs::read(&current).map_err(|e| e.to_string())?;
            let path = keep(target, &input)?;
            crashes += 1;
            restarts += 1;
            done += 1;
            println!(
                "{}: the worker died ({status}) on an input, kept as {}",
                target.name(),
                path.display()
            );
        }
    }
    let _ = std::fs::remove_file(&current);
    println!(
        "{}: {done} execs in {:.0?}, {accepted} accepted, {crashes} crashes",
        target.name(),
        start.elapsed()
    );
    Ok(())
}

/// Files `input` as a regression of `target`.
fn keep(target: Target, input: &[u8]) -> Result<PathBuf, String> {
    let dir = target.corpus_dir().join("regressions");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let path = dir.join(crash_name(input));
    std::fs::write(&path, input).map_err(|e| e.to_string())?;
    Ok(path)
}

/// `--worker TARGET EXECS SEED CURRENT`: runs the inputs, recording each in
/// CURRENT before it runs; prints `progress EXECS ACCEPTED` lines and a
/// `crash` line for each panic.
fn worker(args: &[String]) -> Result<(), String> {
    let [name, execs, seed, current] = args else {
        return Err("usage: fuzz --worker TARGET EXECS SEED CURRENT".into());
    };
    let target = Target::by_name(name).ok_or(format!("no target `{name}`"))?;
    let execs: u64 = execs.parse().map_err(|_| "bad exec count")?;
    let seed: u64 = seed.parse().map_err(|_| "bad seed")?;
    let current = File::create(current).map_err(|e| e.to_string())?;
    ALLOCATOR
        .set_limit(MEMORY_CAP)
        .map_err(|_| "cannot set the memory cap")?;
    let ticks = Arc::new(AtomicU64::new(0));
    watchdog(Arc::clone(&ticks));
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || run_worker(target, execs, seed, &current, &ticks))
        .map_err(|e| e.to_string())?
        .join()
        .map_err(|_| "the worker thread panicked".to_string())?
}

fn run_worker(
    target: Target,
    execs: u64,
    seed: u64,
    current: &File,
    ticks: &AtomicU64,
) -> Result<(), String> {
    let mut fuzzer = Fuzzer::new(target, seed);
    let (mut done, mut accepted) = (0, 0);
    let mut seen = std::collections::HashSet::new();
    while done < execs {
        let batch = PROGRESS_EVERY.min(execs - done);
        let report = fuzzer.run(batch, |input| {
            ticks.fetch_add(1, Ordering::Relaxed);
            // Best effort: losing the record only loses a crash's input.
            let _ = current.set_len(0);
            let _ = current.write_all_at(input, 0);
        });
        for (input, message) in &report.crashes {
            // One input for each place a target panics.
            let site = message.split(": ").next().unwrap_or(message);
            if seen.insert(site.to_string()) {
                let path = keep(target, input)?;
                println!("crash {message} (kept as {})", path.display());
            }
        }
        done += report.execs;
        accepted += report.accepted;
        println!("progress {done} {accepted}");
    }
    Ok(())
}

/// Aborts the process when no input has started for [`TIMEOUT`].
fn watchdog(ticks: Arc<AtomicU64>) {
    std::thread::spawn(move || {
        let mut last = u64::MAX;
        loop {
            std::thread::sleep(TIMEOUT);
            let now = ticks.load(Ordering::Relaxed);
            if now == last {
                eprintln!("an input ran longer than {TIMEOUT:?}");
                std::process::abort();
            }
            last = now;
        }
    });
}
