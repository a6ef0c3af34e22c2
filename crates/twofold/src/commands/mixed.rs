//! `twofold mixed FILE`: a mixed program (arithmetic sharing beside
//! garbled circuits, `docs/mixed.md`): its partition and estimated cost
//! for a network against pure garbled circuits, and with `--local` a run
//! of both parties in this process.

use std::io::BufReader;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use serde::Serialize;
use twofold_circuit::mixed::eval::word_bits;
use twofold_circuit::mixed::format::read_mixed;
use twofold_circuit::MixedProgram;
use twofold_net::ChannelOptions;
use twofold_protocol::mixed::cost::{estimate, Estimate};
use twofold_protocol::mixed::network::Network;
use twofold_protocol::mixed::{run_mixed_local, MixedOptions, MixedReport};
use twofold_protocol::Reveal;

use super::Report;

/// Arguments of `mixed`.
#[derive(clap::Args, Debug)]
pub struct MixedArgs {
    /// A mixed program in the binary format (`TWOFOLDM`).
    file: PathBuf,
    /// The network the estimate is weighed for: lan, wan or
    /// BANDWIDTH,RTT (e.g. 100mbit,20ms).
    #[arg(long, default_value = "lan", value_parser = parse_network)]
    network: Network,
    /// Run both parties in this process over a socketpair.
    #[arg(long)]
    local: bool,
    /// With --local: an input value, `NAME=VALUE` (an integer, decimal or
    /// 0x…; negative values in two's complement).
    #[arg(short = 'i', long = "input", allow_hyphen_values = true)]
    inputs: Vec<String>,
    /// With --local: only this party learns the outputs (a or b).
    #[arg(long, value_parser = parse_reveal)]
    reveal_to: Option<Reveal>,
    /// One JSON object on stdout.
    #[arg(long)]
    json: bool,
}

fn parse_network(s: &str) -> Result<Network, String> {
    s.parse()
        .map_err(|e: twofold_protocol::mixed::network::NetworkError| e.to_string())
}

fn parse_reveal(s: &str) -> Result<Reveal, String> {
    match s {
        "a" => Ok(Reveal::A),
        "b" => Ok(Reveal::B),
        _ => Err(format!("{s:?}: a or b")),
    }
}

/// The estimate, and a local run's figures.
#[derive(Serialize)]
pub struct MixedSummary {
    /// The network weighed for.
    network: String,
    /// Operations by sharing and conversions.
    ops: serde_json::Value,
    /// Rounds (waves that send).
    rounds: usize,
    /// Estimated bytes and messages of the mixed run.
    mixed_bytes: u64,
    /// Estimated messages waited for.
    mixed_messages: u64,
    /// Estimated seconds of the mixed run on the network.
    mixed_seconds: f64,
    /// Estimated bytes of pure garbled circuits.
    yao_bytes: u64,
    /// Estimated seconds of pure garbled circuits on the network.
    yao_seconds: f64,
    /// A local run, if asked for.
    run: Option<RunFigures>,
    #[serde(skip)]
    text: String,
}

/// What a local run measured.
#[derive(Serialize)]
struct RunFigures {
    /// Outputs by name (unsigned integers), as A saw them (B's if only B
    /// learns them).
    outputs: Vec<(String, String)>,
    /// Bytes both ways, per sharing.
    setup_bytes: u64,
    arith_bytes: u64,
    convert_bytes: u64,
    yao_bytes: u64,
    /// Messages waited for.
    messages: u64,
    /// Wall-clock seconds of party A.
    seconds: f64,
}

impl Report for MixedSummary {
    fn text(&self) -> String {
        self.text.clone()
    }
}

/// Reads the program, estimates it and, with `--local`, runs it.
pub fn mixed(args: &MixedArgs) -> Result<String> {
    let file = std::fs::File::open(&args.file)
        .with_context(|| format!("cannot open {}", args.file.display()))?;
    let program = read_mixed(&mut BufReader::new(file))
        .with_context(|| format!("{} is not a valid mixed program", args.file.display()))?;
    let reveal = args.reveal_to.unwrap_or_default();
    let opts = MixedOptions {
        reveal,
        ..MixedOptions::default()
    };
    let est = estimate(&program, opts.scheme, reveal)?;
    let run = if args.local {
        Some(run_local(&program, &args.inputs, &opts)?)
    } else if !args.inputs.is_empty() {
        bail!("inputs are for a run: add --local");
    } else {
        None
    };
    summary(&program, &est, &args.network, run).render(args.json)
}

/// Both parties in this process on `-i` values.
fn run_local(program: &MixedProgram, given: &[String], opts: &MixedOptions) -> Result<RunFigures> {
    let mut values: Vec<Option<Vec<bool>>> = vec![None; program.inputs.len()];
    for arg in given {
        let (name, value) = arg
            .split_once('=')
            .with_context(|| format!("input {arg:?}: give NAME=VALUE"))?;
        let at = program
            .inputs
            .iter()
            .position(|v| v.name == name)
            .with_context(|| format!("no input named {name:?}"))?;
        let bits = program.inputs[at].kind.bits();
        values[at] = Some(integer_bits(value, bits).with_context(|| format!("input {name}"))?);
    }
    let mut sides = [Vec::new(), Vec::new()];
    for (v, value) in program.inputs.iter().zip(values) {
        let bits = value.with_context(|| format!("input {:?} is missing", v.name))?;
        for (owner, side) in sides.iter_mut().enumerate() {
            side.push((usize::from(v.owner) == owner).then(|| bits.clone()));
        }
    }
    let (a, b) = run_mixed_local(
        program,
        (&sides[0], &sides[1]),
        opts,
        &ChannelOptions::default(),
    )?;
    let seen: &MixedReport = if a.outputs.is_some() { &a } else { &b };
    let outputs = program
        .outputs
        .iter()
        .zip(seen.outputs.iter().flatten())
        .map(|(o, bits)| (o.name.clone(), unsigned(bits)))
        .collect();
    Ok(RunFigures {
        outputs,
        setup_bytes: a.traffic.setup,
        arith_bytes: a.traffic.arith,
        convert_bytes: a.traffic.convert,
        yao_bytes: a.traffic.yao,
        messages: a.flights,
        seconds: a.total.as_secs_f64(),
    })
}

/// The `bits`-bit two's-complement encoding of an integer (decimal or
/// 0x…, at most 128 bits).
fn integer_bits(value: &str, bits: u32) -> Result<Vec<bool>> {
    let v = value.trim();
    let (negative, digits) = match v.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, v),
    };
    let magnitude = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => u128::from_str_radix(hex, 16),
        None => digits.parse::<u128>(),
    }
    .with_context(|| format!("{value:?} is not an integer"))?;
    if bits > 128 {
        bail!("a value of {bits} bits; the command line takes at most 128");
    }
    let x = if negative {
        magnitude.wrapping_neg()
    } else {
        magnitude
    };
    let fits = bits == 128
        || if negative {
            magnitude <= 1u128 << (bits - 1)
        } else {
            magnitude >> bits == 0
        };
    if !fits {
        bail!("{value} does not fit in {bits} bits");
    }
    let low = word_bits(x as u64, bits.min(64));
    let high = word_bits((x >> 64) as u64, bits.saturating_sub(64));
    Ok(low.into_iter().chain(high).collect())
}

/// Bits (least significant first) as an unsigned decimal, or hex past
/// 128 bits.
fn unsigned(bits: &[bool]) -> String {
    if bits.len() <= 128 {
        bits.iter()
            .rev()
            .fold(0u128, |acc, &b| acc << 1 | b as u128)
            .to_string()
    } else {
        let nibbles: String = bits
            .chunks(4)
            .rev()
            .map(|c| {
                let n = c.iter().rev().fold(0u32, |acc, &b| acc << 1 | b as u32);
                char::from_digit(n, 16).expect("a nibble")
            })
            .collect();
        format!("0x{nibbles}")
    }
}

fn summary(
    program: &MixedProgram,
    est: &Estimate,
    net: &Network,
    run: Option<RunFigures>,
) -> MixedSummary {
    let (mixed_seconds, yao_seconds) = est.seconds(net);
    let mut text = format!(
        "{} inputs, {} steps, {} Boolean programs, {} outputs\n{}\n",
        program.inputs.len(),
        program.steps.len(),
        program.programs.len(),
        program.outputs.len(),
        est.summary(net)
    );
    if let Some(r) = &run {
        for (name, value) in &r.outputs {
            text += &format!("{name} = {value}\n");
        }
        text += &format!(
            "run: {} bytes (setup {}, arithmetic {}, conversions {}, garbled {}), {} messages, {:.3} s\n",
            r.setup_bytes + r.arith_bytes + r.convert_bytes + r.yao_bytes,
            r.setup_bytes,
            r.arith_bytes,
            r.convert_bytes,
            r.yao_bytes,
            r.messages,
            r.seconds
        );
    }
    let o = &est.ops;
    MixedSummary {
        network: net.to_string(),
        ops: serde_json::json!({
            "local": o.local, "cross": o.cross, "shared": o.beaver,
            "to_yao": o.to_yao, "to_arith": o.to_arith, "inject": o.inject,
            "and_gates": o.and_gates,
        }),
        rounds: est.rounds,
        mixed_bytes: est.mixed.bytes,
        mixed_messages: est.mixed.flights,
        mixed_seconds,
        yao_bytes: est.yao.bytes,
        yao_seconds,
        run,
        text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_become_bits_or_say_why_not() {
        assert_eq!(integer_bits("5", 4).unwrap(), [true, false, true, false]);
        assert_eq!(integer_bits("-1", 3).unwrap(), [true; 3]);
        assert!(integer_bits("0x80", 8).unwrap()[7]);
        assert!(integer_bits("16", 4).is_err());
        assert!(integer_bits("-9", 4).is_err());
        assert!(integer_bits("x", 4).is_err());
        assert_eq!(unsigned(&[true, true]), "3");
    }
}
