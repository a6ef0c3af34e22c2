//! Which protocol runs a C program (issue 29): pure garbled circuits, or a
//! mixed program whose sums of products run in the arithmetic sharing,
//! chosen by the estimated time on the network (`--protocol`,
//! `--network`). Both parties must choose alike: the handshake compares
//! the hashes of the programs they run.

use anyhow::{anyhow, Result};
use serde::{Deserialize, Serialize};
use twofold_circuit::{MixedProgram, Program};
use twofold_compiler::mixed::MixedCompiled;
use twofold_protocol::mixed::cost::estimate;
use twofold_protocol::mixed::network::Network;
use twofold_protocol::Reveal;

/// `--protocol`: how a C program runs.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// Garbled circuits only.
    Yao,
    /// Sums of products of secrets in the arithmetic sharing, the rest in
    /// garbled circuits.
    Mixed,
    /// Mixed where the estimate for `--network` says it is faster.
    #[default]
    Auto,
}

/// A mixed program chosen for a C program, and the estimates that chose
/// it.
#[derive(Clone, Debug)]
pub struct Chosen {
    /// The mixed program and how its values map to the C program's.
    pub compiled: MixedCompiled,
    /// The estimates, mixed and pure garbled circuits.
    pub estimate: Comparison,
}

/// Estimated bytes, messages and seconds of both protocols.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Comparison {
    /// The network weighed for.
    pub network: String,
    /// The mixed program's bytes (both ways).
    pub mixed_bytes: u64,
    /// Its messages waited for.
    pub mixed_messages: u64,
    /// Its rounds (waves that send).
    pub mixed_rounds: usize,
    /// Its seconds on the network.
    pub mixed_seconds: f64,
    /// The garbled circuit's bytes (both ways).
    pub yao_bytes: u64,
    /// Its messages waited for.
    pub yao_messages: u64,
    /// Its seconds on the network.
    pub yao_seconds: f64,
}

impl Comparison {
    /// Both estimates of a C program: `mixed` and its Boolean program
    /// `boolean`, outputs opened to both.
    pub fn of(mixed: &MixedProgram, boolean: &Program, network: &Network) -> Result<Comparison> {
        let scheme = Default::default();
        let m = estimate(mixed, scheme, Reveal::Both)?;
        let y = estimate(
            &MixedProgram::of_boolean(boolean.clone()),
            scheme,
            Reveal::Both,
        )?;
        Ok(Comparison {
            network: network.to_string(),
            mixed_bytes: m.mixed.bytes,
            mixed_messages: m.mixed.flights,
            mixed_rounds: m.rounds,
            mixed_seconds: network.seconds(m.mixed.bytes, m.mixed.flights),
            yao_bytes: y.mixed.bytes,
            yao_messages: y.mixed.flights,
            yao_seconds: network.seconds(y.mixed.bytes, y.mixed.flights),
        })
    }

    /// One line for people.
    pub fn text(&self) -> String {
        format!(
            "estimate on {}: mixed {} bytes, {} messages, {} rounds, {:.3} s; garbled circuits {} bytes, {} messages, {:.3} s",
            self.network,
            self.mixed_bytes,
            self.mixed_messages,
            self.mixed_rounds,
            self.mixed_seconds,
            self.yao_bytes,
            self.yao_messages,
            self.yao_seconds
        )
    }
}

/// The mixed program to run for a C program whose Boolean compilation is
/// `boolean` (with `secret_products` products of secrets), if `protocol`
/// asks for one or (`auto`) the estimate prefers it; `mixed` compiles it
/// when wanted.
pub fn choose(
    protocol: Protocol,
    network: &Network,
    boolean: &Program,
    secret_products: u64,
    mixed: impl FnOnce() -> Result<MixedCompiled, twofold_compiler::CompileError>,
) -> Result<Option<Chosen>> {
    match protocol {
        Protocol::Yao => Ok(None),
        Protocol::Auto if secret_products == 0 => Ok(None),
        Protocol::Mixed => {
            let compiled = mixed().map_err(|e| anyhow!("{e}"))?;
            let estimate = Comparison::of(&compiled.program, boolean, network)?;
            Ok(Some(Chosen { compiled, estimate }))
        }
        Protocol::Auto => {
            // A program the partition cannot take runs as garbled circuits.
            let Ok(compiled) = mixed() else {
                return Ok(None);
            };
            let estimate = Comparison::of(&compiled.program, boolean, network)?;
            Ok((estimate.mixed_seconds < estimate.yao_seconds)
                .then_some(Chosen { compiled, estimate }))
        }
    }
}
