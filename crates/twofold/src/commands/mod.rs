//! The subcommands of `twofold`: one module each, holding its command-line
//! arguments, the work, and its result as a typed [`Report`].

pub mod bench;
pub mod compile;
pub mod completions;
pub mod eval;
pub mod keygen;
pub mod mixed;
pub mod reconstruct;
pub mod run;
pub mod run3;
pub mod run_mixed;
pub mod secure;
pub mod share;
pub mod stats;

use std::path::PathBuf;

use anyhow::Result;
use serde::Serialize;
use twofold_net::{ChannelOptions, Security};

use twofold_protocol::mixed::network::Network;

use crate::choice::{Parties, Protocol};
use crate::load::{load, parse_owners, LoadOptions, Loaded};

/// The program a command works on.
#[derive(clap::Args, Debug)]
pub struct ProgramArgs {
    /// C source (.c), Bristol Fashion / old Bristol circuit, or binary program.
    pub file: PathBuf,
    /// Assign input values to parties: `0=a,1=b` or `INPUT_C=b` (both parties must agree).
    #[arg(long)]
    pub owner: Vec<String>,
    /// C only: unroll loops whose exit depends on a secret at most N times.
    #[arg(long, value_name = "N")]
    pub unwind: Option<u32>,
    /// C only: keep independent loops inline instead of making them parallel regions.
    #[arg(long)]
    pub no_regions: bool,
    /// C only: unroll every loop (the program as one flat circuit).
    #[arg(long)]
    pub no_loops: bool,
    /// Most memory to use (e.g. 512M, 4G, 1.5GiB): compiling C stops with
    /// an error past it, and `run` refuses a program whose estimated peak
    /// exceeds it before starting (default: 3/4 of the physical memory).
    #[arg(long, value_name = "SIZE", value_parser = crate::memory::parse_max_memory)]
    pub max_memory: Option<u64>,
    /// C only: garbled circuits (yao), sums of products in arithmetic
    /// sharing beside them (mixed), or whichever the estimate for
    /// --network says is faster (auto; the default of run and stats,
    /// compile's is yao); both parties must agree.
    #[arg(long, value_enum)]
    pub protocol: Option<Protocol>,
    /// The network estimates are weighed for: lan, wan or BANDWIDTH,RTT
    /// (e.g. 100mbit,20ms).
    #[arg(long, default_value = "lan", value_parser = mixed::parse_network)]
    pub network: Network,
}

impl ProgramArgs {
    /// Reads (for C, compiles) the program, with the mixed program to run
    /// instead if `--protocol` (by default `auto`) chooses one.
    pub fn load(&self) -> Result<Loaded> {
        self.load_as(self.protocol.unwrap_or_default())
    }

    /// Reads (for C, compiles) the program to run as garbled circuits.
    pub fn load_boolean(&self) -> Result<Loaded> {
        self.load_as(Protocol::Yao)
    }

    /// Reads (for C, compiles) the program as `run --parties 3` does, for
    /// its values: those of its mixed program if its garbled circuits
    /// exceed the compile limits.
    pub fn load_three(&self) -> Result<Loaded> {
        self.load_for(self.protocol.unwrap_or_default(), Parties::three())
    }

    /// Reads (for C, compiles) the program for `protocol`.
    pub fn load_as(&self, protocol: Protocol) -> Result<Loaded> {
        self.load_for(protocol, Parties::Two)
    }

    /// Reads (for C, compiles) the program for `protocol`, run by
    /// `parties`.
    pub fn load_for(&self, protocol: Protocol, parties: Parties) -> Result<Loaded> {
        let opts = LoadOptions {
            owners: parse_owners(&self.owner)?,
            unwind: self.unwind,
            no_regions: self.no_regions,
            no_loops: self.no_loops,
            max_memory: self.max_memory(),
            protocol,
            network: self.network,
            parties,
        };
        load(&self.file, &opts)
    }

    /// `--max-memory`, or its default (`None`: no limit).
    pub fn max_memory(&self) -> Option<u64> {
        self.max_memory.or_else(crate::memory::default_max_memory)
    }
}

/// Where `run` and `eval` put what they print.
#[derive(clap::Args, Debug)]
pub struct OutputArgs {
    /// Write what would be printed (text, or JSON with --json) to FILE
    /// instead of stdout (atomically: a temporary file renamed over FILE).
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

impl OutputArgs {
    /// What to print: `text` itself, or nothing once written to `--output`.
    pub fn deliver(&self, text: String) -> Result<String> {
        match &self.output {
            Some(path) => {
                crate::files::write_atomically(path, text.as_bytes())?;
                Ok(String::new())
            }
            None => Ok(text),
        }
    }
}

/// A command's result: JSON (`--json`) for scripts, text for people.
pub trait Report: Serialize {
    /// The result as text, each line ending in a newline.
    fn text(&self) -> String;

    /// What to print: one JSON object and a newline, or [`Report::text`].
    fn render(&self, json: bool) -> Result<String> {
        Ok(if json {
            serde_json::to_string(self)? + "\n"
        } else {
            self.text()
        })
    }
}

/// The values `--timeout` takes: seconds, at most a year (a deadline
/// further off overflows the clock).
pub fn timeout_seconds() -> clap::builder::RangedU64ValueParser {
    clap::value_parser!(u64).range(..=365 * 24 * 3600)
}

/// The options of every connection of a run: `security`, and `timeout` to
/// read and to write (the other settings the defaults).
pub fn channel_options(timeout: std::time::Duration, security: Security) -> ChannelOptions {
    ChannelOptions {
        read_timeout: timeout,
        write_timeout: timeout,
        security,
        ..ChannelOptions::default()
    }
}

/// A figure for each party.
#[derive(Clone, Copy, Debug, Default, Serialize, serde::Deserialize, PartialEq)]
pub struct PerParty<T> {
    /// Party A's (the garbler's).
    pub a: T,
    /// Party B's (the evaluator's).
    pub b: T,
}
