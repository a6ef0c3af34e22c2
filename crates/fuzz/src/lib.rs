//! Fuzzing twofold's readers of untrusted input on stable Rust.
//!
//! [`targets`] has one target per reader (Bristol text, binary programs, C
//! source, `-i` values, share stores, key files, mixed programs, and what a
//! peer sends: hellos, [`peer`] messages, [`packed`] words). [`Fuzzer`] is a small mutation-based driver: it
//! starts from the target's corpus (the files under `corpus/<target>/`,
//! among them `regressions/`, every input that once crashed a target),
//! stacks random edits ([`mutate`]) on its entries, runs the target under
//! `catch_unwind`, and keeps accepted mutants as new entries. There is no
//! coverage feedback; `docs/fuzzing.md` says how to run the same targets
//! under libFuzzer where a nightly toolchain is available.
//!
//! `cargo test` replays the corpus and runs each target briefly; the `fuzz`
//! binary runs them as long as asked, in a child process it restarts after a
//! crash, and files every crashing input under `regressions/`.

pub mod mutate;
pub mod packed;
pub mod peer;
pub mod targets;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Once;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

pub use targets::Target;

/// Most entries the in-memory corpus grows to.
const MAX_CORPUS: usize = 512;

/// Longest accepted input kept as a corpus entry (mutants of long entries
/// are slow to run, and repeated runs make long inputs anyway).
const MAX_KEPT_LEN: usize = 8 << 10;

/// Every input under `dir` (recursively), sorted by path.
pub fn read_corpus(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if let Ok(bytes) = std::fs::read(&path) {
                files.push((path, bytes));
            }
        }
    }
    files.sort();
    files
}

/// The file name an input is kept under: `crash-` and a hash of its bytes
/// (FNV-1a, 64 bits), so the same crash is kept once.
pub fn crash_name(data: &[u8]) -> String {
    format!("crash-{:016x}", fnv1a(data))
}

/// The FNV-1a hash (64 bits) of `data`.
pub(crate) fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// What a run of the fuzzer did.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Inputs run.
    pub execs: u64,
    /// Inputs the target accepted.
    pub accepted: u64,
    /// Inputs that made the target panic, with the panic message: the
    /// shortest input found for each place the target panicked.
    pub crashes: Vec<(Vec<u8>, String)>,
    /// The slowest input and how long it took.
    pub slowest: Option<(Vec<u8>, Duration)>,
}

/// A mutation-based fuzzer of one target.
pub struct Fuzzer {
    target: Target,
    corpus: Vec<Vec<u8>>,
    rng: StdRng,
}

impl Fuzzer {
    /// A fuzzer of `target` starting from its corpus folder, its random
    /// choices drawn from `seed`.
    pub fn new(target: Target, seed: u64) -> Fuzzer {
        let mut corpus: Vec<Vec<u8>> = read_corpus(&target.corpus_dir())
            .into_iter()
            .map(|(_, bytes)| bytes)
            .chain(target.builtin_seeds())
            .collect();
        if corpus.is_empty() {
            corpus.push(Vec::new());
        }
        Fuzzer {
            target,
            corpus,
            rng: StdRng::seed_from_u64(seed),
        }
    }

    /// The next input: a mutant of a random corpus entry.
    pub fn next_input(&mut self) -> Vec<u8> {
        let base = &self.corpus[self.rng.gen_range(0..self.corpus.len())];
        let other = &self.corpus[self.rng.gen_range(0..self.corpus.len())];
        mutate::mutate(&mut self.rng, base, other)
    }

    /// Runs `execs` mutants; `before` is called with each input before it
    /// runs (the `fuzz` binary records it there, to keep it if the process
    /// dies).
    pub fn run(&mut self, execs: u64, mut before: impl FnMut(&[u8])) -> Report {
        let mut report = Report::default();
        let mut crashes: BTreeMap<String, (Vec<u8>, String)> = BTreeMap::new();
        for _ in 0..execs {
            let input = self.next_input();
            before(&input);
            let start = Instant::now();
            let outcome = run_caught(self.target, &input);
            let took = start.elapsed();
            report.execs += 1;
            if report.slowest.as_ref().is_none_or(|(_, t)| took > *t) {
                report.slowest = Some((input.clone(), took));
            }
            match outcome {
                Ok(true) => {
                    report.accepted += 1;
                    self.keep(input);
                }
                Ok(false) => {}
                Err(message) => {
                    let shortest = crashes
                        .get(site(&message))
                        .map_or(usize::MAX, |c| c.0.len());
                    if input.len() < shortest {
                        crashes.insert(site(&message).to_string(), (input, message));
                    }
                }
            }
        }
        report.crashes = crashes.into_values().collect();
        report
    }

    /// Adds an accepted input to the corpus (replacing a random entry once
    /// the corpus is full), so later mutants start from valid inputs.
    fn keep(&mut self, input: Vec<u8>) {
        if input.len() > MAX_KEPT_LEN {
            return;
        }
        if self.corpus.len() < MAX_CORPUS {
            self.corpus.push(input);
        } else {
            let k = self.rng.gen_range(0..MAX_CORPUS);
            self.corpus[k] = input;
        }
    }
}

thread_local! {
    /// Set while [`run_caught`] runs a target on this thread: the panic
    /// hook then records the panic here instead of printing it.
    static CAUGHT: RefCell<Option<Option<String>>> = const { RefCell::new(None) };
}

/// Runs `target` on `data`, turning a panic into `file:line:col: message`
/// (where it panicked and why).
pub fn run_caught(target: Target, data: &[u8]) -> Result<bool, String> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let recorded = CAUGHT.with(|c| match c.borrow_mut().as_mut() {
                Some(slot) => {
                    let at = info
                        .location()
                        .map_or_else(String::new, |l| format!("{l}: "));
                    let why = info
                        .payload()
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_else(|| "panic".into());
                    *slot = Some(format!("{at}{why}"));
                    true
                }
                None => false,
            });
            if !recorded {
                default(info);
            }
        }));
    });
    CAUGHT.with(|c| *c.borrow_mut() = Some(None));
    let result = catch_unwind(AssertUnwindSafe(|| target.run(data)));
    let message = CAUGHT.with(|c| c.borrow_mut().take()).flatten();
    result.map_err(|_| message.unwrap_or_else(|| "panic".into()))
}

/// Where a panic message says the panic happened (`file:line:col`).
fn site(message: &str) -> &str {
    message.split(": ").next().unwrap_or(message)
}
