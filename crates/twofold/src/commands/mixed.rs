//! `twofold mixed FILE`: a mixed program (arithmetic sharing beside
//! garbled circuits, `docs/mixed.md`): its partition and estimated cost
//! for a network against pure garbled circuits, and a run: both parties
//! in this process (`--local`), or one with the peer in another process
//! over the secure channel (`--party`, `--listen`/`--connect`).

use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use serde::Serialize;
use twofold_circuit::mixed::eval::word_bits;
use twofold_circuit::mixed::format::is_mixed;
use twofold_circuit::MixedProgram;
use twofold_circuit::Party;
use twofold_compiler::mixed::file::{read_compiled, MixedFile};
use twofold_compiler::mixed::MixedCompiled;
use twofold_compiler::CType;
use twofold_net::{Channel, ChannelOptions, Listener, Security};
use twofold_protocol::mixed::cost::{estimate, Estimate};
use twofold_protocol::mixed::network::Network;
use twofold_protocol::mixed::{run_mixed, run_mixed_local, MixedOptions, MixedReport};
use twofold_protocol::{PartyInputs, Reveal};

use super::secure::SecureArgs;
use super::{channel_options, Report};
use crate::inputs::parse_value;
use crate::load::ValueKind;

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
    #[arg(long, conflicts_with_all = ["party", "listen", "connect"])]
    local: bool,
    /// Run this party (a or b) with the peer in another process, over the
    /// secure channel (--key/--peer-key or --psk-file).
    #[arg(long, value_parser = parse_party, requires = "peer_addr")]
    party: Option<Party>,
    /// With --party: wait for the peer on ADDR.
    #[arg(long, value_name = "ADDR", group = "peer_addr")]
    listen: Option<String>,
    /// With --party: connect to the peer at ADDR.
    #[arg(
        long,
        value_name = "ADDR",
        group = "peer_addr",
        conflicts_with = "listen"
    )]
    connect: Option<String>,
    #[command(flatten)]
    secure: SecureArgs,
    /// Seconds to wait for the peer, and for each message (at most a year).
    #[arg(long, default_value_t = 60, value_parser = super::timeout_seconds())]
    timeout: u64,
    /// With a run: an input value, `NAME=VALUE` (an integer, decimal or
    /// 0x…; negative values in two's complement; for a program compiled
    /// from C, a C input's value as `run` takes it); between processes,
    /// each party gives its own.
    #[arg(short = 'i', long = "input", allow_hyphen_values = true)]
    inputs: Vec<String>,
    /// With a run: only this party learns the outputs (a or b); both
    /// parties must say the same.
    #[arg(long, value_parser = parse_reveal)]
    reveal_to: Option<Reveal>,
    /// With a run: threads that compute the products (default: the number
    /// of cores; each party chooses its own).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=twofold_protocol::options::MAX_THREADS as i64))]
    threads: Option<u32>,
    /// One JSON object on stdout.
    #[arg(long)]
    json: bool,
}

/// `--network`: lan, wan or BANDWIDTH,RTT.
pub fn parse_network(s: &str) -> Result<Network, String> {
    s.parse()
        .map_err(|e: twofold_protocol::mixed::network::NetworkError| e.to_string())
}

fn parse_party(s: &str) -> Result<Party, String> {
    crate::load::parse_party(s).map_err(|e| e.to_string())
}

fn parse_reveal(s: &str) -> Result<Reveal, String> {
    match s {
        "a" => Ok(Reveal::A),
        "b" => Ok(Reveal::B),
        _ => Err(format!("{s:?}: a or b")),
    }
}

/// The estimate, and a local run's figures.
#[derive(Debug, Serialize)]
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
    /// C only: why the program's garbled circuits did not compile (the
    /// compile limit they exceeded), if they did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    not_garbled: Option<String>,
    #[serde(skip)]
    text: String,
}

/// What a local run measured.
#[derive(Debug, Serialize)]
struct RunFigures {
    /// Outputs by name (unsigned integers), as A saw them (B's if only B
    /// learns them); none for a party that does not learn them.
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

/// Reads the mixed program in `path`, with its C interface if it has one.
fn read_file(path: &Path) -> Result<MixedFile> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    read_compiled(&mut BufReader::new(file))
        .with_context(|| format!("{} is not a valid mixed program", path.display()))
}

/// Whether the file at `path` is a mixed program (by its magic).
pub fn is_mixed_file(path: &Path) -> bool {
    let mut magic = [0u8; 8];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
        .is_ok_and(|()| is_mixed(&magic))
}

/// `stats` of a mixed program: its partition and estimate for `network`.
pub fn stats(path: &Path, network: &Network, json: bool) -> Result<String> {
    let file = read_file(path)?;
    let program = file.program();
    let est = estimate(program, Default::default(), Reveal::Both)?;
    summary((program, file.compiled()), &est, network, None).render(json)
}

/// `stats` of a C program whose garbled circuits exceeded the compile
/// limits (`why`, the Boolean compilation's error): the partition and
/// estimate of its mixed program, `compiled`.
pub fn stats_of_compiled(
    compiled: &MixedCompiled,
    why: &str,
    network: &Network,
) -> Result<MixedSummary> {
    let program = &compiled.program;
    let est = estimate(program, Default::default(), Reveal::Both)?;
    let mut summary = summary((program, Some(compiled)), &est, network, None);
    summary.text = format!(
        "garbled circuits: beyond the compile limits ({why}); the mixed program runs\n{}",
        summary.text
    );
    summary.not_garbled = Some(why.to_string());
    Ok(summary)
}

/// A mixed program's partition and estimate for `network`.
pub fn summary_of(program: &MixedProgram, network: &Network) -> Result<MixedSummary> {
    let est = estimate(program, Default::default(), Reveal::Both)?;
    Ok(summary((program, None), &est, network, None))
}

/// Reads the program, estimates it and, with `--local`, runs it.
pub fn mixed(args: &MixedArgs) -> Result<String> {
    let file = read_file(&args.file)?;
    let program = file.program();
    let reveal = args.reveal_to.unwrap_or_default();
    let opts = MixedOptions {
        reveal,
        threads: args.threads.unwrap_or_else(super::run::cores) as usize,
        ..MixedOptions::default()
    };
    let est = estimate(program, opts.scheme, reveal)?;
    let run = match (args.local, args.party) {
        (true, _) => {
            args.secure.refuse_for_local()?;
            let values = given_inputs(&file, &args.inputs, None)?;
            Some(run_local(&file, &values, &opts)?)
        }
        (false, Some(party)) => {
            let security = args.secure.two_parties(party)?;
            let values = given_inputs(&file, &args.inputs, Some(party))?;
            Some(run_remote(args, party, security, &file, &values, &opts)?)
        }
        (false, None) if !args.inputs.is_empty() => {
            bail!("inputs are for a run: add --local, or --party with --listen or --connect")
        }
        (false, None) => None,
    };
    summary((program, file.compiled()), &est, &args.network, run).render(args.json)
}

/// The `-i` values as bits, by input of the mixed program: all inputs
/// (`who` `None`), or only party `who`'s (the others `None`). A program
/// compiled from C takes its C inputs' values, written as for the C
/// source (`{1, 2}`, `@FILE`).
fn given_inputs(
    file: &MixedFile,
    given: &[String],
    who: Option<Party>,
) -> Result<Vec<Option<Vec<bool>>>> {
    match file {
        MixedFile::Program(p) => {
            let slots = p.inputs.iter().map(|v| Slot {
                name: &v.name,
                owner: v.owner,
                parse: Box::new(move |text| integer_bits(text, v.kind.bits())),
            });
            assign_values(&slots.collect::<Vec<_>>(), given, who)
        }
        MixedFile::Compiled(c) => {
            let inputs = c.inputs.iter().zip(&c.input_parties);
            let slots = inputs.map(|((name, ty), party)| Slot {
                name,
                owner: party.index(),
                parse: Box::new(move |text| {
                    parse_value(&ValueKind::C(ty.clone()), text, ty.width())
                }),
            });
            let values = assign_values(&slots.collect::<Vec<_>>(), given, who)?;
            Ok(c.mixed_inputs(&values))
        }
    }
}

/// How a value's text becomes an input's bits.
type Parse<'a> = Box<dyn Fn(&str) -> Result<Vec<bool>> + 'a>;

/// An input that `-i` gives a value for: its name, its owner (0 A, 1 B)
/// and how the value's text becomes its bits.
struct Slot<'a> {
    name: &'a str,
    owner: u8,
    parse: Parse<'a>,
}

/// The `-i` values (`NAME=VALUE`) as bits, by slot: each named slot's,
/// all of them given (`who` `None`) or only party `who`'s (the others
/// `None`).
fn assign_values(
    slots: &[Slot],
    given: &[String],
    who: Option<Party>,
) -> Result<Vec<Option<Vec<bool>>>> {
    let mut values: Vec<Option<Vec<bool>>> = vec![None; slots.len()];
    for arg in given {
        let (name, text) = arg
            .split_once('=')
            .with_context(|| format!("input {arg:?}: give NAME=VALUE"))?;
        let name = name.trim();
        let at = slots.iter().position(|s| s.name == name).with_context(|| {
            let names: Vec<&str> = slots.iter().map(|s| s.name).collect();
            format!(
                "no input named {name:?}; the program's: {}",
                names.join(", ")
            )
        })?;
        if who.is_some_and(|p| p.index() != slots[at].owner) {
            bail!("input {name} is the other party's");
        }
        if values[at].is_some() {
            bail!("input {name} is given twice");
        }
        values[at] = Some((slots[at].parse)(text).with_context(|| format!("input {name}"))?);
    }
    for (s, value) in slots.iter().zip(&values) {
        if value.is_none() && who.is_none_or(|p| p.index() == s.owner) {
            bail!("input {:?} is missing", s.name);
        }
    }
    Ok(values)
}

/// Both parties in this process.
fn run_local(
    file: &MixedFile,
    values: &[Option<Vec<bool>>],
    opts: &MixedOptions,
) -> Result<RunFigures> {
    let program = file.program();
    let side = |owner: u8| -> Vec<Option<Vec<bool>>> {
        program
            .inputs
            .iter()
            .zip(values)
            .map(|(v, bits)| bits.clone().filter(|_| v.owner == owner))
            .collect()
    };
    let (a, b) = run_mixed_local(
        program,
        (&side(0), &side(1)),
        opts,
        &ChannelOptions::default(),
    )?;
    let seen = if a.outputs.is_some() { &a } else { &b };
    Ok(figures(file, seen, &a))
}

/// This party with the peer in another process.
fn run_remote(
    args: &MixedArgs,
    party: Party,
    security: Security,
    file: &MixedFile,
    values: &PartyInputs,
    opts: &MixedOptions,
) -> Result<RunFigures> {
    let wait = Duration::from_secs(args.timeout.max(1));
    let channel = channel_options(wait, security);
    let chan = match (&args.listen, &args.connect) {
        (Some(addr), _) => Listener::bind(addr.as_str())
            .with_context(|| format!("cannot listen on {addr}"))?
            .with_options(channel)?
            .accept(wait)?,
        (None, Some(addr)) => Channel::connect(addr.as_str(), wait, channel)?,
        (None, None) => bail!("--party needs --listen or --connect"),
    };
    let report = run_mixed(chan, party, file.program(), values, opts)?;
    Ok(figures(file, &report, &report))
}

/// A run's figures: the outputs `seen` has, the traffic of `mine`.
fn figures(file: &MixedFile, seen: &MixedReport, mine: &MixedReport) -> RunFigures {
    RunFigures {
        outputs: seen
            .outputs
            .as_ref()
            .map(|bits| output_texts(file, bits))
            .unwrap_or_default(),
        setup_bytes: mine.traffic.setup,
        arith_bytes: mine.traffic.arith,
        convert_bytes: mine.traffic.convert,
        yao_bytes: mine.traffic.yao,
        messages: mine.flights,
        seconds: mine.total.as_secs_f64(),
    }
}

/// Each output's name and value: a compiled program's C outputs as the C
/// source's run shows them, else each mixed output as an unsigned integer.
fn output_texts(file: &MixedFile, bits: &[Vec<bool>]) -> Vec<(String, String)> {
    match file {
        MixedFile::Compiled(c) => (c.outputs.iter())
            .zip(c.c_outputs(bits))
            .map(|((name, ty), bits)| (name.clone(), ty.format_value(&bits)))
            .collect(),
        MixedFile::Program(p) => (p.outputs.iter())
            .zip(bits)
            .map(|(o, bits)| (o.name.clone(), unsigned(bits)))
            .collect(),
    }
}

/// Lines naming the C values a run of `c` takes and shows (party, type
/// and bits of each).
fn c_values(c: &MixedCompiled) -> String {
    let typed = |(_, ty): &(String, CType)| format!("{}, {} bits", ty.name(), ty.width());
    let inputs = c.inputs.iter().zip(&c.input_parties);
    let inputs: Vec<String> = inputs
        .map(|(v, party)| format!("{} (party {party}, {})", v.0, typed(v)))
        .collect();
    let outputs: Vec<String> = (c.outputs.iter())
        .map(|v| format!("{} ({})", v.0, typed(v)))
        .collect();
    format!(
        "compiled from C: inputs {}\noutputs {}\n",
        inputs.join(", "),
        outputs.join(", ")
    )
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

/// The summary of `program` (compiled from C, with the C interface `c`).
fn summary(
    (program, c): (&MixedProgram, Option<&MixedCompiled>),
    est: &Estimate,
    net: &Network,
    run: Option<RunFigures>,
) -> MixedSummary {
    let (mixed_seconds, yao_seconds) = est.seconds(net);
    let mut text = format!(
        "{} inputs, {} steps, {} Boolean programs, {} outputs\n{}{}\n",
        program.inputs.len(),
        program.steps.len(),
        program.programs.len(),
        program.outputs.len(),
        c.map(c_values).unwrap_or_default(),
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
        not_garbled: None,
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
