//! `twofold stats FILE`: size and shape of a program.

use std::path::PathBuf;

use anyhow::{Context, Result};
use serde::Serialize;
use twofold_circuit::walk::program_levels;
use twofold_circuit::{Block, CircuitStats, Party, Program};
use twofold_compiler::LoopVerdict;

use super::mixed::{summary_of, MixedSummary};
use super::{PerParty, ProgramArgs, Report};
use crate::choice::{Comparison, Parties};
use crate::load::Loaded;
use twofold_protocol::mixed::network::Network;

/// Groups of blocks a loop's line lists one by one; more are summed up
/// per kind (see `LoopStats::blocks_summed`).
const MAX_BLOCKS_LISTED: usize = 8;

/// Arguments of `stats`.
#[derive(clap::Args, Debug)]
pub struct StatsArgs {
    #[command(flatten)]
    program: ProgramArgs,
    /// Also print the distribution of AND gates per level.
    #[arg(long)]
    levels: bool,
    /// Draw the AND gates of every level as an SVG bar chart.
    #[arg(long, value_name = "SVG")]
    plot: Option<PathBuf>,
    /// One JSON object on stdout.
    #[arg(long)]
    json: bool,
    /// Who runs it: 2 parties, or 3 (the hybrid mode on shares); the
    /// mixed program's estimate is for them.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(2..=3))]
    parties: u8,
}

/// Prints the statistics of a program (and draws its levels with `--plot`);
/// of a mixed program, its partition and estimated cost.
pub fn stats(args: &StatsArgs) -> Result<String> {
    if super::mixed::is_mixed_file(&args.program.file) {
        return super::mixed::stats(&args.program.file, &args.program.network, args.json);
    }
    let parties = match args.parties {
        3 => Parties::three(),
        _ => Parties::Two,
    };
    let protocol = args.program.protocol.unwrap_or_default();
    let loaded = args.program.load_for(protocol, parties.clone())?;
    let Some(program) = &loaded.program else {
        // Only the mixed program compiled within the limits.
        let chosen = loaded.mixed.as_ref().context("no program compiled")?;
        let why = loaded.not_garbled.as_deref().unwrap_or("not compiled");
        return super::mixed::stats_of_compiled(&chosen.compiled, why, &args.program.network)?
            .render(args.json);
    };
    let widths = levels_of(program, args.levels || args.plot.is_some());
    if let (Some(svg), Some(widths)) = (&args.plot, &widths) {
        let title = format!("AND gates per level: {}", args.program.file.display());
        std::fs::write(svg, levels_svg(widths, &title))
            .with_context(|| format!("cannot write {}", svg.display()))?;
    }
    let mut stats =
        ProgramStats::of_loaded((&loaded, program), widths.as_deref(), &args.program.network)?;
    if parties != Parties::Two {
        // The partition's summary weighs two parties' protocols; the
        // estimates that chose (`choice`) are the three parties'.
        stats.mixed = None;
    }
    if args.levels {
        stats.ands_per_level = widths;
    }
    stats.render(args.json)
}

/// Programs executing at most this many gates have their AND levels
/// computed by `stats` (walking every gate); larger ones need `--levels`.
pub const LEVELS_BY_DEFAULT: u64 = 1 << 26;

/// AND gates per level of `program`, if `wanted` or the program is small
/// enough to walk quickly (see [`LEVELS_BY_DEFAULT`]).
pub fn levels_of(program: &Program, wanted: bool) -> Option<Vec<u64>> {
    (wanted || program.counts().gates <= LEVELS_BY_DEFAULT).then(|| program_levels(program))
}

/// The statistics of a program, counting every iteration of every block,
/// with its blocks as a tree.
#[derive(Debug, Serialize)]
pub struct ProgramStats {
    /// Gates executed.
    pub gates: u64,
    /// AND gates executed.
    pub and_gates: u64,
    /// XOR gates executed.
    pub xor_gates: u64,
    /// INV gates executed.
    pub inv_gates: u64,
    /// AND gates over all gates.
    pub and_share: f64,
    /// Wires of the main circuit.
    pub wires: usize,
    /// AND levels (`null` when levels were not computed).
    pub and_depth: Option<usize>,
    /// Median AND gates per level (`null` when not computed).
    pub median_ands_per_level: Option<u64>,
    /// Widest AND level (`null` when not computed).
    pub max_ands_per_level: Option<u64>,
    /// Bit width of each input value.
    pub input_widths: Vec<u32>,
    /// Input bits of each party.
    pub input_bits: PerParty<u64>,
    /// Bit width of each output value.
    pub output_widths: Vec<u32>,
    /// The party of each input value.
    pub input_parties: Vec<String>,
    /// The blocks of the main frame, as a tree.
    pub blocks: Vec<BlockStats>,
    /// The parallel regions of the main frame.
    pub regions: Vec<RegionStats>,
    /// C only: how each loop of the source was lowered.
    pub loops: Vec<LoopStats>,
    /// With `--levels`: AND gates of every level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ands_per_level: Option<Vec<u64>>,
    /// C only: the mixed program `run` would run instead (`--protocol`):
    /// its partition and estimate against pure garbled circuits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mixed: Option<MixedSummary>,
    /// C only, with a mixed program: its inputs that a party computes in
    /// the clear from its own inputs (two parties).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_words: Option<usize>,
    /// C only, with a mixed program: its sums of products that run
    /// arithmetically, and those the estimate gave their Boolean circuits
    /// instead (`--protocol auto`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sums: Option<SumChoice>,
    /// C only: the estimates that chose the mixed program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub choice: Option<Comparison>,
}

/// A block (loop or region) and the blocks nested in its body.
#[derive(Debug, Serialize)]
pub struct BlockStats {
    /// `loop` or `region`.
    pub kind: &'static str,
    /// Iterations (instances of a region).
    pub iterations: u64,
    /// AND gates an iteration executes, nested blocks included.
    pub and_gates_per_iteration: u64,
    /// Gates an iteration executes, nested blocks included.
    pub gates_per_iteration: u64,
    /// Gates of the body circuit.
    pub body_gates: usize,
    /// AND depth of the body circuit.
    pub body_and_depth: usize,
    /// Bits every iteration reads from the enclosing frame.
    pub shared_bits: usize,
    /// Bits one iteration hands the next.
    pub carried_bits: usize,
    /// Bits each iteration reads of its own.
    pub input_bits_per_iteration: usize,
    /// Bits each iteration writes.
    pub output_bits_per_iteration: usize,
    /// Blocks nested in the body.
    pub blocks: Vec<BlockStats>,
}

/// A parallel region of the main frame.
#[derive(Debug, Serialize)]
pub struct RegionStats {
    /// Its index among the main frame's blocks.
    pub block: usize,
    /// Instances.
    pub instances: u64,
    /// AND gates an instance executes.
    pub and_gates_per_instance: u64,
    /// Gates an instance executes.
    pub gates_per_instance: u64,
    /// AND depth of the body circuit.
    pub and_depth_per_instance: usize,
    /// Bits every instance reads from the main frame.
    pub shared_input_bits: usize,
    /// Main AND gates that can run while the region runs.
    pub main_and_gates_during: u64,
}

/// How a loop of the C source was lowered.
#[derive(Debug, Serialize)]
pub struct LoopStats {
    /// The source file.
    pub file: String,
    /// The line of its `for`.
    pub line: u32,
    /// Iterations it runs.
    pub iterations: u64,
    /// Whether it was kept as blocks.
    pub kept: bool,
    /// The blocks it was kept as.
    pub blocks: Vec<KeptBlock>,
    /// Iterations lowered as plain gates.
    pub unrolled: u64,
    /// Iterations that do nothing (a public condition disabled them): no
    /// block has an instance for them.
    pub disabled: u64,
    /// Iterations of its blocks that an earlier block ran already (the
    /// blocks go on from where that one ended).
    pub continued: u64,
    /// Why it was (partly) unrolled.
    pub why: Option<String>,
}

/// A block a loop was kept as.
#[derive(Debug, Serialize)]
pub struct KeptBlock {
    /// Its iterations.
    pub iterations: u64,
    /// Whether it is a parallel region.
    pub parallel: bool,
}

impl ProgramStats {
    /// The statistics of a loaded program (`program`, its garbled
    /// circuits), with the partition of the mixed program chosen for it
    /// (if any) weighed for `network`.
    pub fn of_loaded(
        (loaded, program): (&Loaded, &Program),
        levels: Option<&[u64]>,
        network: &Network,
    ) -> Result<ProgramStats> {
        let mut stats = ProgramStats::of(program, levels, &loaded.loops);
        if let Some(chosen) = &loaded.mixed {
            stats.mixed = Some(summary_of(&chosen.compiled.program, network)?);
            stats.local_words = Some(chosen.compiled.locals.len());
            stats.sums = Some(SumChoice {
                arithmetic: chosen.compiled.arithmetic_sums,
                boolean: chosen.compiled.boolean_sums,
            });
            stats.choice = Some(chosen.estimate.clone());
        }
        if let Some(declined) = &loaded.declined {
            stats.choice = Some(declined.clone());
        }
        Ok(stats)
    }

    /// The statistics of `program`, with AND depth and level widths from
    /// `levels` (see [`levels_of`]) and the verdicts on its loops.
    pub fn of(program: &Program, levels: Option<&[u64]>, loops: &[LoopVerdict]) -> ProgramStats {
        let counts = program.counts();
        let main = CircuitStats::of(&program.main);
        let overlapped = program.main_overlapped();
        let regions = program
            .parallel_blocks()
            .map(|(k, r)| RegionStats {
                block: k,
                instances: r.count,
                and_gates_per_instance: r.body_ands(),
                gates_per_instance: r.frame().counts().gates,
                and_depth_per_instance: CircuitStats::of(&r.body.circuit).and_depth,
                shared_input_bits: r.shared.len(),
                main_and_gates_during: overlapped
                    .region_of(k)
                    .map_or(0, |r| overlapped.during_ands(program, r)),
            })
            .collect();
        let input_bits = |party: Party| -> u64 {
            program
                .main
                .inputs
                .iter()
                .filter(|v| v.party == party)
                .map(|v| v.width as u64)
                .sum()
        };
        ProgramStats {
            gates: counts.gates,
            and_gates: counts.and,
            xor_gates: counts.xor,
            inv_gates: counts.inv,
            and_share: if counts.gates > 0 {
                counts.and as f64 / counts.gates as f64
            } else {
                0.0
            },
            wires: main.wires,
            and_depth: levels.map(<[u64]>::len),
            median_ands_per_level: levels.map(median_of),
            max_ands_per_level: levels.map(|l| l.iter().max().copied().unwrap_or(0)),
            input_widths: main.input_widths,
            input_bits: PerParty {
                a: input_bits(Party::A),
                b: input_bits(Party::B),
            },
            output_widths: main.output_widths,
            input_parties: program
                .main
                .inputs
                .iter()
                .map(|v| v.party.to_string())
                .collect(),
            blocks: blocks_of(&program.blocks),
            regions,
            loops: loops.iter().map(LoopStats::of).collect(),
            ands_per_level: None,
            mixed: None,
            local_words: None,
            sums: None,
            choice: None,
        }
    }
}

impl LoopStats {
    fn of(l: &LoopVerdict) -> LoopStats {
        LoopStats {
            file: l.file.clone(),
            line: l.line,
            iterations: l.iterations,
            kept: l.kept(),
            blocks: l
                .blocks
                .iter()
                .map(|&(iterations, parallel)| KeptBlock {
                    iterations,
                    parallel,
                })
                .collect(),
            unrolled: l.unrolled,
            disabled: l.disabled,
            continued: l.continued,
            why: l.why.clone(),
        }
    }

    /// The blocks of each kind in one phrase ("47 loops of 17 to 63
    /// iterations").
    fn blocks_summed(&self) -> Vec<String> {
        let mut phrases = Vec::new();
        for (parallel, kind) in [(false, "loops"), (true, "regions")] {
            let sizes = || {
                (self.blocks.iter())
                    .filter(|b| b.parallel == parallel)
                    .map(|b| b.iterations)
            };
            let (Some(least), Some(most)) = (sizes().min(), sizes().max()) else {
                continue;
            };
            phrases.push(format!(
                "{} {kind} of {least} to {most} iterations",
                sizes().count()
            ));
        }
        phrases
    }

    /// One line on how the loop was lowered.
    fn text(&self) -> String {
        // Blocks alike in a row are counted once ("3 x region of 8").
        let mut blocks: Vec<(usize, &KeptBlock)> = Vec::new();
        for b in &self.blocks {
            match blocks.last_mut() {
                Some((n, last))
                    if last.iterations == b.iterations && last.parallel == b.parallel =>
                {
                    *n += 1
                }
                _ => blocks.push((1, b)),
            }
        }
        let blocks: Vec<String> = match blocks.len() > MAX_BLOCKS_LISTED {
            true => self.blocks_summed(),
            false => blocks
                .iter()
                .map(|(n, b)| {
                    let kind = if b.parallel { "region" } else { "loop" };
                    let times = if *n > 1 {
                        format!("{n} x ")
                    } else {
                        String::new()
                    };
                    format!("{times}{kind} of {}", b.iterations)
                })
                .collect(),
        };
        let mut text = if blocks.is_empty() {
            "unrolled".to_string()
        } else {
            format!("kept: {}", blocks.join(", "))
        };
        if self.unrolled > 0 && !blocks.is_empty() {
            text += &format!("; {} iterations unrolled", self.unrolled);
        }
        if self.disabled > 0 {
            text += &format!("; {} iterations do nothing", self.disabled);
        }
        if self.continued > 0 {
            text += &format!(
                "; {} iterations an earlier run did (taken from it, not done again)",
                self.continued
            );
        }
        if let Some(why) = &self.why {
            text += &format!(" ({why})");
        }
        text
    }
}

/// The blocks of a frame as a tree.
fn blocks_of(blocks: &[Block]) -> Vec<BlockStats> {
    blocks
        .iter()
        .map(|b| {
            let body = CircuitStats::of(&b.body.circuit);
            BlockStats {
                kind: if b.parallel { "region" } else { "loop" },
                iterations: b.count,
                and_gates_per_iteration: b.body_ands(),
                gates_per_iteration: b.frame().counts().gates,
                body_gates: body.gates,
                body_and_depth: body.and_depth,
                shared_bits: b.shared.len(),
                carried_bits: b.carried.len(),
                input_bits_per_iteration: b.inputs.width(),
                output_bits_per_iteration: b.outputs.width(),
                blocks: blocks_of(&b.body.blocks),
            }
        })
        .collect()
}

/// Median of level widths (0 for none).
fn median_of(widths: &[u64]) -> u64 {
    let mut sorted = widths.to_vec();
    sorted.sort_unstable();
    match sorted.len() {
        0 => 0,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2,
    }
}

impl Report for ProgramStats {
    fn text(&self) -> String {
        let mut out = String::new();
        let line = |out: &mut String, k: &str, v: String| out.push_str(&format!("{k:<30}{v}\n"));
        for (key, v) in [
            ("gates", self.gates),
            ("and gates", self.and_gates),
            ("xor gates", self.xor_gates),
            ("inv gates", self.inv_gates),
            ("wires", self.wires as u64),
        ] {
            line(&mut out, key, v.to_string());
        }
        for (key, v) in [
            ("and depth", self.and_depth.map(|d| d as u64)),
            ("median ands per level", self.median_ands_per_level),
            ("max ands per level", self.max_ands_per_level),
        ] {
            let v = v.map_or_else(
                || "not computed (more than 2^26 gates; use --levels)".to_string(),
                |v| v.to_string(),
            );
            line(&mut out, key, v);
        }
        line(
            &mut out,
            "and share",
            format!("{:.1}%", 100.0 * self.and_share),
        );
        line(
            &mut out,
            "input bits",
            format!("a {}, b {}", self.input_bits.a, self.input_bits.b),
        );
        line(&mut out, "input widths", list(&self.input_widths));
        line(&mut out, "input parties", list(&self.input_parties));
        line(&mut out, "output widths", list(&self.output_widths));
        blocks_text(&mut out, &self.blocks, "", &self.regions);
        for l in &self.loops {
            let at = format!("loop at line {}", l.line);
            out.push_str(&format!("{at:<30}{}\n", l.text()));
        }
        if let Some(widths) = &self.ands_per_level {
            out += &levels_text(widths);
        }
        if let Some(mixed) = &self.mixed {
            out += "runs as a mixed program (--protocol yao: garbled circuits only):\n";
            out += &mixed.text();
        }
        if let Some(s) = &self.sums {
            out += &format!(
                "sums of products: {} arithmetic, {} given their Boolean circuits\n",
                s.arithmetic, s.boolean
            );
        }
        if let Some(n) = self.local_words {
            out += &format!("words a party computes alone, in the clear: {n}\n");
        }
        if let Some(choice) = &self.choice {
            if self.mixed.is_none() && self.sums.is_none() {
                out += "runs as garbled circuits, estimated faster than the best mixed \
                        program weighed:\n";
            }
            out += &choice.text();
            out += "\n";
        }
        out
    }
}

/// Where a mixed program's sums of products run.
#[derive(Clone, Debug, Serialize)]
pub struct SumChoice {
    /// Sums run in the arithmetic sharing.
    pub arithmetic: usize,
    /// Sums given their Boolean circuits (garbled).
    pub boolean: usize,
}

/// A list as JSON (`[32,32]`).
fn list<T: Serialize>(items: &[T]) -> String {
    serde_json::to_string(items).unwrap_or_default()
}

/// One line per block, nested blocks indented under their block.
fn blocks_text(out: &mut String, blocks: &[BlockStats], path: &str, regions: &[RegionStats]) {
    for (k, b) in blocks.iter().enumerate() {
        let name = format!("{} {path}{k}", b.kind);
        let indent = "  ".repeat(path.matches('.').count());
        let unit = if b.kind == "region" {
            "instances"
        } else {
            "iterations"
        };
        let mut text = format!(
            "{} {unit} x {} AND gates (body AND depth {})",
            b.iterations, b.and_gates_per_iteration, b.body_and_depth
        );
        if b.carried_bits > 0 {
            text += &format!("; {} carried bits", b.carried_bits);
        }
        if let Some(r) = regions.iter().find(|r| r.block == k) {
            text += &format!(
                "; {} main AND gates can run during it",
                r.main_and_gates_during
            );
        }
        out.push_str(&format!("{:<30}{text}\n", format!("{indent}{name}")));
        blocks_text(out, &b.blocks, &format!("{path}{k}."), &[]);
    }
}

/// The distribution of AND gates per level: how many levels have a width in
/// each power-of-two bucket, as printed by `stats --levels`.
pub fn levels_text(widths: &[u64]) -> String {
    let mut buckets: Vec<(u64, usize, u64)> = Vec::new();
    for &w in widths {
        let low = if w == 0 { 0 } else { 1 << w.ilog2() };
        match buckets.iter_mut().find(|b| b.0 == low) {
            Some(b) => {
                b.1 += 1;
                b.2 += w;
            }
            None => buckets.push((low, 1, w)),
        }
    }
    buckets.sort();
    let mut out = format!(
        "{} AND levels, median {} and max {} AND gates per level\n{:>20}{:>10}{:>14}\n",
        widths.len(),
        median_of(widths),
        widths.iter().max().copied().unwrap_or(0),
        "ANDs per level",
        "levels",
        "AND gates"
    );
    for (low, levels, ands) in buckets {
        let range = if low == 0 {
            "0".to_string()
        } else {
            format!("{low}..{}", 2 * low - 1)
        };
        out += &format!("{range:>20}{levels:>10}{ands:>14}\n");
    }
    out
}

/// AND gates per level as an SVG bar chart (the ParCC paper's Figure 7).
/// Deep circuits are drawn in at most 400 bars, each the mean over a run of
/// consecutive levels.
pub fn levels_svg(widths: &[u64], title: &str) -> String {
    const MAX_BARS: usize = 400;
    let per_bar = widths.len().div_ceil(MAX_BARS).max(1);
    let bars: Vec<(String, f64)> = widths
        .chunks(per_bar)
        .enumerate()
        .map(|(k, chunk)| {
            let first = k * per_bar + 1;
            let label = if per_bar == 1 {
                first.to_string()
            } else {
                format!("{first}-{}", first + chunk.len() - 1)
            };
            (label, chunk.iter().sum::<u64>() as f64 / chunk.len() as f64)
        })
        .collect();
    let y_label = if per_bar == 1 {
        "AND gates"
    } else {
        "AND gates (mean per level)"
    };
    crate::plot::bar_chart(title, "AND level", y_label, &bars)
}
