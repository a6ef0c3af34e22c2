//! Which protocol runs a C program (issue 29): pure garbled circuits, or a
//! mixed program whose sums of products run in the arithmetic sharing,
//! chosen by the estimated time on the network (`--protocol`,
//! `--network`). Both parties must choose alike: the handshake compares
//! the hashes of the programs they run.

use anyhow::{anyhow, Result};
use serde::{Deserialize, Serialize};
use twofold_circuit::{MixedProgram, Program};
use twofold_compiler::mixed::MixedCompiled;
use twofold_compiler::CompileError;
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
    /// Seconds to compile it flat (every loop unrolled), as
    /// [`FLAT_GATES_PER_SECOND`] counts the gates lowering made; each
    /// party pays them each run.
    pub mixed_compile_seconds: f64,
    /// The garbled circuit's bytes (both ways).
    pub yao_bytes: u64,
    /// Its messages waited for.
    pub yao_messages: u64,
    /// Its seconds on the network.
    pub yao_seconds: f64,
}

/// Gates a flat compilation makes per second, for the estimate of its
/// time: measured on the development machine (a 2-vCPU Xeon VM) compiling
/// mexp and biomatch flat, 2.1 to 2.3 million a second.
pub const FLAT_GATES_PER_SECOND: f64 = 2.5e6;

/// Bytes, messages and seconds of a program run as garbled circuits.
struct YaoCost {
    bytes: u64,
    messages: u64,
    seconds: f64,
}

impl YaoCost {
    /// The cost of `boolean` on `network`, outputs opened to both.
    fn of(boolean: &Program, network: &Network) -> Result<YaoCost> {
        let y = estimate(
            &MixedProgram::of_boolean(boolean.clone()),
            Default::default(),
            Reveal::Both,
        )?;
        Ok(YaoCost {
            bytes: y.mixed.bytes,
            messages: y.mixed.flights,
            seconds: network.seconds(y.mixed.bytes, y.mixed.flights),
        })
    }
}

impl Comparison {
    /// Both estimates of a C program: `mixed` and its Boolean program
    /// `boolean`, outputs opened to both.
    pub fn of(mixed: &MixedCompiled, boolean: &Program, network: &Network) -> Result<Comparison> {
        Comparison::against(mixed, YaoCost::of(boolean, network)?, network)
    }

    fn against(mixed: &MixedCompiled, yao: YaoCost, network: &Network) -> Result<Comparison> {
        let m = estimate(&mixed.program, Default::default(), Reveal::Both)?;
        Ok(Comparison {
            network: network.to_string(),
            mixed_bytes: m.mixed.bytes,
            mixed_messages: m.mixed.flights,
            mixed_rounds: m.rounds,
            mixed_seconds: network.seconds(m.mixed.bytes, m.mixed.flights),
            mixed_compile_seconds: mixed.built_gates as f64 / FLAT_GATES_PER_SECOND,
            yao_bytes: yao.bytes,
            yao_messages: yao.messages,
            yao_seconds: yao.seconds,
        })
    }

    /// Whether the mixed program, compiled and run, is estimated faster.
    pub fn prefers_mixed(&self) -> bool {
        self.mixed_seconds + self.mixed_compile_seconds < self.yao_seconds
    }

    /// One line for people.
    pub fn text(&self) -> String {
        format!(
            "estimate on {}: mixed {} bytes, {} messages, {} rounds, {:.3} s (and {:.3} s compiling); garbled circuits {} bytes, {} messages, {:.3} s",
            self.network,
            self.mixed_bytes,
            self.mixed_messages,
            self.mixed_rounds,
            self.mixed_seconds,
            self.mixed_compile_seconds,
            self.yao_bytes,
            self.yao_messages,
            self.yao_seconds
        )
    }
}

/// The mixed program to run for a C program whose Boolean compilation is
/// `boolean` (with `secret_products` products of secrets), if `protocol`
/// asks for one or (`auto`) the estimate prefers it. `mixed` compiles it,
/// making at most the gates it is given (if any): `auto` stops a flat
/// compilation that would take longer than half the garbled circuit's
/// run. The
/// choice depends on the program and the options only, so both parties
/// make it alike.
pub fn choose(
    protocol: Protocol,
    network: &Network,
    boolean: &Program,
    secret_products: u64,
    mixed: impl FnOnce(Option<u64>) -> Result<MixedCompiled, CompileError>,
) -> Result<Option<Chosen>> {
    match protocol {
        Protocol::Yao => Ok(None),
        Protocol::Auto if secret_products == 0 => Ok(None),
        Protocol::Mixed => {
            let compiled = mixed(None).map_err(|e| anyhow!("{e}"))?;
            let estimate = Comparison::of(&compiled, boolean, network)?;
            Ok(Some(Chosen { compiled, estimate }))
        }
        Protocol::Auto => {
            let yao = YaoCost::of(boolean, network)?;
            // Compiling flat may take at most half the garbled run (the
            // mixed run needs time too): what auto loses at worst.
            let budget = (yao.seconds / 2.0 * FLAT_GATES_PER_SECOND) as u64;
            // A program the partition cannot take, or not within the
            // budget, runs as garbled circuits.
            let Ok(compiled) = mixed(Some(budget)) else {
                return Ok(None);
            };
            let estimate = Comparison::against(&compiled, yao, network)?;
            Ok(estimate
                .prefers_mixed()
                .then_some(Chosen { compiled, estimate }))
        }
    }
}
