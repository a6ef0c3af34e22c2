//! Every fuzz target replays its corpus (seeds and the regressions of crashes
//! once found) and then runs a short fuzzing session from a fixed seed:
//! `TWOFOLD_FUZZ_EXECS` sets its length (inputs per target), and
//! `TWOFOLD_FUZZ_SEED` its seed.

use cap::Cap;
use twofold_fuzz::{read_corpus, run_caught, Fuzzer, Target};

#[global_allocator]
static ALLOCATOR: Cap<std::alloc::System> = Cap::new(std::alloc::System, usize::MAX);

/// Most memory the tests may hold (all targets at once): an input that needs
/// more aborts the run.
const MEMORY_CAP: usize = 3 << 30;

/// Stack of the thread running a target (a command-line run's main thread).
const STACK: usize = 8 << 20;

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| {
        v.parse()
            .unwrap_or_else(|_| panic!("{name} must be a number, not `{v}`"))
    })
}

/// Replays `target`'s corpus and fuzzes it for `execs` inputs (or
/// `TWOFOLD_FUZZ_EXECS`); fails listing every input that panicked.
fn fuzz(target: Target, execs: u64) {
    ALLOCATOR
        .set_limit(MEMORY_CAP)
        .expect("below the cap so far");
    let execs = env_number("TWOFOLD_FUZZ_EXECS").unwrap_or(execs);
    let seed = env_number("TWOFOLD_FUZZ_SEED").unwrap_or(0);
    let failures = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || {
            let mut failures = Vec::new();
            let corpus = read_corpus(&target.corpus_dir());
            assert!(!corpus.is_empty(), "{} has no corpus", target.name());
            for (path, data) in &corpus {
                if let Err(message) = run_caught(target, data) {
                    failures.push(format!("{}: {message}", path.display()));
                }
            }
            let report = Fuzzer::new(target, seed).run(execs, |_| {});
            for (input, message) in &report.crashes {
                failures.push(format!(
                    "{message} on {:?} (keep it with `cargo run --release -p twofold-fuzz -- {} {execs} {seed}`)",
                    String::from_utf8_lossy(&input[..input.len().min(200)]),
                    target.name(),
                ));
            }
            failures
        })
        .expect("thread starts")
        .join()
        .expect("targets catch their panics");
    assert!(
        failures.is_empty(),
        "{} failures (the first 20):\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}

#[test]
fn bristol_reader() {
    fuzz(Target::Bristol, 50_000);
}

#[test]
fn binary_loader() {
    fuzz(Target::Binary, 50_000);
}

#[test]
fn c_front_end() {
    fuzz(Target::C, 1_500);
}

#[test]
fn input_values() {
    fuzz(Target::Value, 50_000);
}

#[test]
fn share_store_reader() {
    fuzz(Target::Store, 50_000);
}

#[test]
fn peer_hellos() {
    fuzz(Target::Hello, 50_000);
}

#[test]
fn peer_messages() {
    fuzz(Target::Peer, 1_000);
}

#[test]
fn key_files() {
    fuzz(Target::Keys, 50_000);
}

#[test]
fn mixed_loader() {
    fuzz(Target::Mixed, 20_000);
}

#[test]
fn packed_words() {
    fuzz(Target::Packed, 50_000);
}

/// `target`'s built-in seeds are files it accepts, one holding `marker`
/// among them, so that mutants start from valid files.
fn seeds_are_accepted(target: Target, marker: &[u8]) {
    let seeds = target.builtin_seeds();
    assert!(seeds
        .iter()
        .any(|s| s.windows(marker.len()).any(|w| w == marker)));
    for seed in &seeds {
        assert_eq!(run_caught(target, seed), Ok(true));
    }
}

/// The mixed loader's seeds include one compiled from C, with its C
/// interface.
#[test]
fn mixed_seeds_are_accepted() {
    seeds_are_accepted(Target::Mixed, b"TWOFOLDC");
}

/// The binary loader's seeds include one compiled from C, with its C
/// values.
#[test]
fn binary_seeds_are_accepted() {
    seeds_are_accepted(Target::Binary, b"TWOFOLDS");
}
