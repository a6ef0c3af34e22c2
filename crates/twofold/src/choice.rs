//! Which protocol runs a C program (issue 29): pure garbled circuits, or a
//! mixed program whose sums of products run in the arithmetic sharing,
//! chosen by the estimated time on the network (`--protocol`,
//! `--network`). Both parties must choose alike: the handshake compares
//! the hashes of the programs they run.

use std::sync::Arc;

use anyhow::{anyhow, Result};
use serde::{Deserialize, Serialize};
use twofold_circuit::{InputValue, MixedProgram, Program};
use twofold_compiler::mixed::{MixedCompiled, OutBit};
use twofold_compiler::CompileError;
use twofold_protocol::mixed::cost::estimate;
use twofold_protocol::mixed::network::Network;
use twofold_protocol::mixed3::cost as cost3;
use twofold_protocol::mixed3::{OutputBit, SharedMixed, Slice};
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

/// Who computes: two parties with their own inputs, or the hybrid mode's
/// three computing parties on values held as shares (additive, in these
/// lanes, as the estimates assume).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Parties {
    /// Two parties.
    #[default]
    Two,
    /// Three computing parties.
    Three {
        /// The lane of each input value.
        input_lanes: Vec<u32>,
        /// The lane of each output value.
        output_lanes: Vec<u32>,
    },
}

impl Parties {
    /// Three computing parties, the lanes to be filled in from the
    /// program's C types when it is compiled.
    pub fn three() -> Parties {
        Parties::Three {
            input_lanes: Vec::new(),
            output_lanes: Vec::new(),
        }
    }
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
    /// Seconds the Boolean compilation took, as [`WORK_PER_SECOND`] counts
    /// its work, where `auto` compiled the mixed program beside it: that
    /// much of the mixed compilation delays no run (0 elsewhere).
    #[serde(default)]
    pub beside_seconds: f64,
    /// The garbled circuit's bytes (both ways); `None` (as its messages
    /// and seconds) if its compilation exceeded the compile limits.
    pub yao_bytes: Option<u64>,
    /// Its messages waited for.
    pub yao_messages: Option<u64>,
    /// Its seconds on the network.
    pub yao_seconds: Option<f64>,
}

/// Gates a flat compilation makes per second, for the estimate of its
/// time: measured on the development machine (a 2-vCPU Xeon VM) compiling
/// mexp and biomatch flat, 2.1 to 2.3 million a second.
pub const FLAT_GATES_PER_SECOND: f64 = 2.5e6;

/// Bytes, messages and seconds of a program run as garbled circuits.
#[derive(Clone, Copy)]
struct YaoCost {
    bytes: u64,
    messages: u64,
    seconds: f64,
}

impl YaoCost {
    /// The cost of `boolean` on `network` (two parties: outputs opened to
    /// both; three: shares in and out).
    fn of(boolean: &Program, network: &Network, parties: &Parties) -> Result<YaoCost> {
        let (bytes, messages) = match parties {
            // (The garbled protocol alone: not the mixed run of the
            // Boolean program, whose setup adds the arithmetic base OTs.)
            Parties::Two => {
                let program = MixedProgram::of_boolean(boolean.clone());
                let y = estimate(&program, Default::default(), Reveal::Both)?;
                (y.yao.bytes, y.yao.flights)
            }
            Parties::Three {
                input_lanes,
                output_lanes,
            } => {
                let c =
                    cost3::garbled_whole(boolean, input_lanes, output_lanes, Default::default());
                (c.bytes, c.flights)
            }
        };
        Ok(YaoCost {
            bytes,
            messages,
            seconds: network.seconds(bytes, messages),
        })
    }
}

/// The three-party form of a C program's mixed program: its inputs are
/// slices of the values held as shares (`boolean`'s inputs), its outputs
/// the C outputs.
pub fn shared_mixed(
    compiled: &MixedCompiled,
    (inputs, outputs): (&[InputValue], &[(String, u32)]),
) -> SharedMixed {
    let mut program = compiled.program.clone();
    program.parties = 3;
    for v in &mut program.inputs {
        v.owner = 0;
    }
    SharedMixed {
        program,
        input_values: inputs.iter().map(|v| (v.name.clone(), v.width)).collect(),
        sources: compiled
            .sources
            .iter()
            .map(|s| Slice {
                value: s.input,
                offset: s.offset,
                len: s.len,
                signed: s.signed,
            })
            .collect(),
        output_values: outputs
            .iter()
            .zip(&compiled.output_bits)
            .map(|((name, _), bits)| {
                let bits = bits.iter().map(|b| match *b {
                    OutBit::Const(c) => OutputBit::Const(c),
                    OutBit::Of(o, i) => OutputBit::Of(o, i),
                });
                (name.clone(), bits.collect())
            })
            .collect(),
    }
}

impl Comparison {
    /// Both estimates of a C program: `mixed` and its Boolean program
    /// `boolean`, outputs opened to both.
    pub fn of(
        mixed: &MixedCompiled,
        boolean: &Program,
        network: &Network,
        parties: &Parties,
    ) -> Result<Comparison> {
        let yao = YaoCost::of(boolean, network, parties)?;
        Comparison::against(mixed, boolean, yao, network, parties)
    }

    fn against(
        mixed: &MixedCompiled,
        boolean: &Program,
        yao: YaoCost,
        network: &Network,
        parties: &Parties,
    ) -> Result<Comparison> {
        let outputs = crate::load::output_shapes(boolean);
        let values = (boolean.main.inputs.as_slice(), outputs.as_slice());
        Ok(Comparison {
            yao_bytes: Some(yao.bytes),
            yao_messages: Some(yao.messages),
            yao_seconds: Some(yao.seconds),
            ..Comparison::mixed_only(mixed, values, network, parties)?
        })
    }

    /// The estimate of `mixed` alone, whose garbled circuits exceeded the
    /// compile limits (`values`: the C program's inputs and outputs).
    pub fn mixed_only(
        mixed: &MixedCompiled,
        values: (&[InputValue], &[(String, u32)]),
        network: &Network,
        parties: &Parties,
    ) -> Result<Comparison> {
        let (m, rounds) = match parties {
            Parties::Two => {
                let m = estimate(&mixed.program, Default::default(), Reveal::Both)?;
                (m.mixed, m.rounds)
            }
            Parties::Three {
                input_lanes,
                output_lanes,
            } => {
                let shared = shared_mixed(mixed, values);
                let scheme = Default::default();
                cost3::mixed(&shared, input_lanes, output_lanes, scheme)?
            }
        };
        Ok(Comparison {
            network: network.to_string(),
            mixed_bytes: m.bytes,
            mixed_messages: m.flights,
            mixed_rounds: rounds,
            mixed_seconds: network.seconds(m.bytes, m.flights),
            mixed_compile_seconds: mixed.built_gates as f64 / FLAT_GATES_PER_SECOND,
            beside_seconds: 0.0,
            yao_bytes: None,
            yao_messages: None,
            yao_seconds: None,
        })
    }

    /// Whether the mixed program, compiled and run, is estimated faster
    /// (or the only one compiled).
    pub fn prefers_mixed(&self) -> bool {
        self.yao_seconds.is_none_or(|yao| self.mixed_total() < yao)
    }

    /// The mixed program's estimated seconds, compiled (beyond the
    /// Boolean compilation beside it) and run.
    fn mixed_total(&self) -> f64 {
        self.mixed_seconds + (self.mixed_compile_seconds - self.beside_seconds).max(0.0)
    }

    /// Seconds the mixed run waits for messages on the network.
    fn mixed_waiting(&self, network: &Network) -> f64 {
        network.seconds(0, self.mixed_messages)
    }

    /// One line for people.
    pub fn text(&self) -> String {
        let yao = match (self.yao_bytes, self.yao_messages, self.yao_seconds) {
            (Some(bytes), Some(messages), Some(seconds)) => {
                format!("{bytes} bytes, {messages} messages, {seconds:.3} s")
            }
            _ => "beyond the compile limits".to_string(),
        };
        format!(
            "estimate on {}: mixed {} bytes, {} messages, {} rounds, {:.3} s (and {:.3} s compiling{}); garbled circuits {yao}",
            self.network,
            self.mixed_bytes,
            self.mixed_messages,
            self.mixed_rounds,
            self.mixed_seconds,
            self.mixed_compile_seconds,
            if self.beside_seconds > 0.0 {
                format!(", beside {:.3} s of compiling garbled circuits", self.beside_seconds)
            } else {
                String::new()
            },
        )
    }
}

/// Compiles a C program's mixed program: making at most the gates it is
/// given (if any), with the sums of products it names (sorted, if any)
/// given their Boolean circuits ([`twofold_compiler::CompileOptions::boolean_sums`]).
pub trait CompileMixed: FnMut(Option<u64>, Option<Arc<[u32]>>) -> CompileResult {}

impl<F: FnMut(Option<u64>, Option<Arc<[u32]>>) -> CompileResult> CompileMixed for F {}

/// What compiling a mixed program gives.
pub type CompileResult = Result<MixedCompiled, CompileError>;

/// What [`choose`] decided.
#[derive(Debug, Default)]
pub struct Choice {
    /// The mixed program to run instead of the Boolean one, if chosen.
    pub chosen: Option<Chosen>,
    /// `auto`: the estimates of the mixed program it weighed and declined
    /// (garbled circuits estimated faster), if it compiled one.
    pub declined: Option<Comparison>,
}

/// Mixed programs `auto` compiles at most beside the first, each with
/// more sums of products given their Boolean circuits.
const BOOLEAN_TRIES: usize = 3;

/// Compile-time work (as the compiler counts it: [`CompiledProgram::work`])
/// a Boolean compilation does per second, taken high (a flat compile of
/// a network did 5 million a second, the kept loops of k-means 18 million
/// on the development machine, a 2-vCPU Xeon VM), so that its time is not
/// overestimated.
///
/// [`CompiledProgram::work`]: twofold_compiler::CompiledProgram::work
pub const WORK_PER_SECOND: f64 = 20e6;

/// Compile-time effort every Boolean compilation may spend, whatever the
/// mixed program's estimate (a second's worth): a program that compiles
/// to garbled circuits in less keeps them, to be weighed and shown.
pub const OUTRUN_FLOOR: u64 = WORK_PER_SECOND as u64;

/// The compile-time effort past which a Boolean compilation has taken
/// longer than `mixed`'s estimate, compiled and run (and at least
/// [`OUTRUN_FLOOR`]): the mixed program is then faster, whatever the
/// garbled circuits would cost.
pub fn work_outrunning(mixed: &Comparison) -> u64 {
    ((mixed.mixed_total() * WORK_PER_SECOND) as u64).max(OUTRUN_FLOOR)
}

/// The mixed program to run for a C program whose Boolean compilation is
/// `boolean` (with `secret_products` products of secrets, and `work` its
/// compile-time work), if `protocol`
/// asks for one or (`auto`) the estimate prefers it. `mixed` compiles it,
/// making at most the gates it is given (if any; the first compilation may
/// have started before the bound was known, and is then judged by the
/// gates it made): `auto` stops a flat compilation that would take longer
/// than half the garbled circuit's run. `--protocol mixed` runs every sum
/// of products arithmetically; `auto` also weighs giving the sums that
/// read converted words their Boolean circuits (see
/// [`with_boolean_sums`]). A Boolean compilation whose work outran the
/// all-arithmetic mixed program (see [`work_outrunning`]) chooses that
/// program at once: a party whose Boolean compilation is still going when
/// its mixed one ends stops it there and runs the same program
/// (`load::compile_auto`). The choice depends on the program and the
/// options only, so both parties make it alike.
pub fn choose(
    protocol: Protocol,
    (network, parties): (&Network, &Parties),
    (boolean, work): (&Program, u64),
    secret_products: u64,
    mut mixed: impl CompileMixed,
) -> Result<Choice> {
    match protocol {
        Protocol::Yao => Ok(Choice::default()),
        Protocol::Auto if secret_products == 0 => Ok(Choice::default()),
        Protocol::Mixed => {
            let compiled = mixed(None, None).map_err(|e| anyhow!("{e}"))?;
            let estimate = Comparison::of(&compiled, boolean, network, parties)?;
            Ok(Choice {
                chosen: Some(Chosen { compiled, estimate }),
                declined: None,
            })
        }
        Protocol::Auto => {
            let yao = YaoCost::of(boolean, network, parties)?;
            // Compiling flat may take at most half the garbled run (the
            // mixed run needs time too): what auto loses at worst.
            let budget = (yao.seconds / 2.0 * FLAT_GATES_PER_SECOND) as u64;
            // (A mixed program that the Boolean compilation's work may have
            // outrun compiles in fewer gates than this.)
            let outrun = match work > OUTRUN_FLOOR {
                true => (work as f64 / WORK_PER_SECOND * FLAT_GATES_PER_SECOND) as u64,
                false => 0,
            };
            // A program the partition cannot take, or not within the
            // budget, runs as garbled circuits.
            // The mixed compilation ran beside the Boolean one (see
            // `load::compile_auto`): as long as that took, it delays no run.
            let beside_seconds = work as f64 / WORK_PER_SECOND;
            let beside = (beside_seconds * FLAT_GATES_PER_SECOND) as u64;
            let budget = budget.max(beside);
            let Ok(compiled) = mixed(Some(budget.max(outrun)), None) else {
                return Ok(Choice::default());
            };
            let estimate = Comparison {
                beside_seconds,
                ..Comparison::against(&compiled, boolean, yao, network, parties)?
            };
            if work > work_outrunning(&estimate) {
                return Ok(Choice {
                    chosen: Some(Chosen { compiled, estimate }),
                    declined: None,
                });
            }
            // A mixed compilation that ran beside the Boolean one learnt
            // its bound late: what it made decides (lowering flat only
            // adds gates, so one bounded from the start stopped exactly
            // when it made more), and both parties choose alike.
            if compiled.built_gates > budget {
                return Ok(Choice::default());
            }
            let first = Chosen { compiled, estimate };
            let weigh = |c: &MixedCompiled| Comparison::against(c, boolean, yao, network, parties);
            let best = with_boolean_sums(first, network, budget, &mut mixed, weigh)?;
            Ok(match best.estimate.prefers_mixed() {
                true => Choice {
                    chosen: Some(best),
                    declined: None,
                },
                false => Choice {
                    chosen: None,
                    declined: Some(best.estimate),
                },
            })
        }
    }
}

/// The choice per sum of products: `first` (every sum arithmetic), or a
/// mixed program in which the sums that read a word converted from
/// garbled bits (Y→A) get their Boolean circuits instead — then those
/// reading these, and so on ([`BOOLEAN_TRIES`] programs at most) —
/// whichever `weigh` estimates fastest. A sum between two garbled steps
/// pays two conversions and their rounds: on a slow link, or for narrow
/// words, its Boolean circuit may cost less. Tried only where `first`
/// waits longer for messages on `network` than one more compilation
/// takes (each within `budget` gates).
fn with_boolean_sums(
    first: Chosen,
    network: &Network,
    budget: u64,
    compile: &mut impl CompileMixed,
    weigh: impl Fn(&MixedCompiled) -> Result<Comparison>,
) -> Result<Chosen> {
    if first.estimate.mixed_waiting(network) <= first.estimate.mixed_compile_seconds {
        return Ok(first);
    }
    let mut best = first;
    let mut last: Vec<u32> = Vec::new();
    let mut converted = best.compiled.converted_sums.clone();
    for _ in 0..BOOLEAN_TRIES {
        if converted.is_empty() {
            break;
        }
        let mut sums: Vec<u32> = last.iter().chain(&converted).copied().collect();
        sums.sort_unstable();
        sums.dedup();
        let Ok(compiled) = compile(Some(budget), Some(sums.iter().copied().collect())) else {
            break;
        };
        if compiled.built_gates > budget {
            break;
        }
        let estimate = weigh(&compiled)?;
        converted = compiled.converted_sums.clone();
        if estimate.mixed_total() < best.estimate.mixed_total() {
            best = Chosen { compiled, estimate };
        }
        last = sums;
    }
    Ok(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mixed compile time that ran beside the Boolean compilation
    /// counts for nothing; only what goes past it delays the run.
    #[test]
    fn the_mixed_compile_beside_the_boolean_one_is_not_counted() {
        let estimate = |beside_seconds| Comparison {
            network: "lan".into(),
            mixed_bytes: 10_091_918,
            mixed_messages: 41,
            mixed_rounds: 11,
            mixed_seconds: 0.085,
            mixed_compile_seconds: 0.280,
            beside_seconds,
            yao_bytes: Some(31_409_714),
            yao_messages: Some(13),
            yao_seconds: Some(0.253),
        };
        assert!(!estimate(0.0).prefers_mixed());
        assert!(!estimate(0.1).prefers_mixed());
        assert!(estimate(0.2).prefers_mixed());
        assert!(estimate(0.966).prefers_mixed());
        assert!(estimate(0.966).text().contains("beside 0.966 s"));
        assert!(!estimate(0.0).text().contains("beside"));
    }
}
