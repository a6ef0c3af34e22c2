//! `twofold stats FILE`: size and shape of a program.

use serde_json::{json, Value};
use twofold_circuit::levels::program_levels;
use twofold_circuit::{Block, CircuitStats, Party, Program};
use twofold_compiler::LoopVerdict;

/// Programs executing at most this many gates have their AND levels
/// computed by `stats` (walking every gate); larger ones need `--levels`.
pub const LEVELS_BY_DEFAULT: u64 = 1 << 26;

/// AND gates per level of `program`, if `wanted` or the program is small
/// enough to walk quickly (see [`LEVELS_BY_DEFAULT`]).
pub fn levels_of(program: &Program, wanted: bool) -> Option<Vec<u64>> {
    (wanted || program.counts().gates <= LEVELS_BY_DEFAULT).then(|| program_levels(program))
}

/// The statistics of a program, counting every iteration of every block,
/// with its blocks as a tree; AND depth and level widths from `levels` (see
/// [`levels_of`]), `null` without.
pub fn stats_json(
    program: &Program,
    levels: Option<&[u64]>,
    loops: &[LoopVerdict],
) -> serde_json::Value {
    let counts = program.counts();
    let main = CircuitStats::of(&program.main);
    let overlapped = program.main_overlapped();
    let regions: Vec<_> = program
        .parallel_blocks()
        .map(|(k, r)| {
            let body = CircuitStats::of(&r.body.circuit);
            json!({
                "block": k,
                "instances": r.count,
                "and_gates_per_instance": r.body_ands(),
                "gates_per_instance": r.frame().counts().gates,
                "and_depth_per_instance": body.and_depth,
                "shared_input_bits": r.shared.len(),
                "main_and_gates_during": overlapped
                    .region_of(k)
                    .map_or(0, |r| overlapped.during_ands(program, r)),
            })
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
    let (depth, median, max) = match levels {
        Some(l) => (
            json!(l.len()),
            json!(median_of(l)),
            json!(l.iter().max().copied().unwrap_or(0)),
        ),
        None => (Value::Null, Value::Null, Value::Null),
    };
    json!({
        "gates": counts.gates,
        "and_gates": counts.and,
        "xor_gates": counts.xor,
        "inv_gates": counts.inv,
        "and_share": if counts.gates > 0 { counts.and as f64 / counts.gates as f64 } else { 0.0 },
        "wires": main.wires,
        "and_depth": depth,
        "median_ands_per_level": median,
        "max_ands_per_level": max,
        "input_widths": main.input_widths,
        "input_bits": { "a": input_bits(Party::A), "b": input_bits(Party::B) },
        "output_widths": main.output_widths,
        "input_parties": program.main.inputs.iter().map(|v| v.party.to_string()).collect::<Vec<_>>(),
        "blocks": blocks_json(&program.blocks),
        "regions": regions,
        "loops": loops.iter().map(|l| json!({
            "file": l.file,
            "line": l.line,
            "iterations": l.iterations,
            "kept": l.kept(),
            "blocks": l.blocks.iter().map(|&(n, parallel)| json!({
                "iterations": n,
                "parallel": parallel,
            })).collect::<Vec<_>>(),
            "unrolled": l.unrolled,
            "why": l.why,
        })).collect::<Vec<_>>(),
    })
}

/// One line on how a loop of the source was lowered.
fn loop_text(l: &Value) -> String {
    let blocks: Vec<String> = l["blocks"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|b| {
            let kind = if b["parallel"] == true {
                "region"
            } else {
                "loop"
            };
            format!("{kind} of {}", b["iterations"])
        })
        .collect();
    let mut text = if blocks.is_empty() {
        "unrolled".to_string()
    } else {
        format!("kept: {}", blocks.join(", "))
    };
    if l["unrolled"].as_u64().unwrap_or(0) > 0 && !blocks.is_empty() {
        text += &format!("; {} iterations unrolled", l["unrolled"]);
    }
    if let Some(why) = l["why"].as_str() {
        text += &format!(" ({why})");
    }
    text
}

/// The blocks of a frame as a JSON tree.
fn blocks_json(blocks: &[Block]) -> Value {
    blocks
        .iter()
        .map(|b| {
            let body = CircuitStats::of(&b.body.circuit);
            json!({
                "kind": if b.parallel { "region" } else { "loop" },
                "iterations": b.count,
                "and_gates_per_iteration": b.body_ands(),
                "gates_per_iteration": b.frame().counts().gates,
                "body_gates": body.gates,
                "body_and_depth": body.and_depth,
                "shared_bits": b.shared.len(),
                "carried_bits": b.carried.len(),
                "input_bits_per_iteration": b.inputs.width(),
                "output_bits_per_iteration": b.outputs.width(),
                "blocks": blocks_json(&b.body.blocks),
            })
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

/// Human-readable form of [`stats_json`].
pub fn stats_text(program: &Program, levels: Option<&[u64]>, loops: &[LoopVerdict]) -> String {
    let s = stats_json(program, levels, loops);
    let mut out = String::new();
    let line = |out: &mut String, k: &str, v: String| out.push_str(&format!("{k:<30}{v}\n"));
    for key in ["gates", "and_gates", "xor_gates", "inv_gates", "wires"] {
        line(&mut out, &key.replace('_', " "), s[key].to_string());
    }
    for key in ["and_depth", "median_ands_per_level", "max_ands_per_level"] {
        let v = match &s[key] {
            Value::Null => "not computed (more than 2^26 gates; use --levels)".to_string(),
            v => v.to_string(),
        };
        line(&mut out, &key.replace('_', " "), v);
    }
    line(
        &mut out,
        "and share",
        format!("{:.1}%", 100.0 * s["and_share"].as_f64().unwrap_or(0.0)),
    );
    line(
        &mut out,
        "input bits",
        format!("a {}, b {}", s["input_bits"]["a"], s["input_bits"]["b"]),
    );
    line(&mut out, "input widths", s["input_widths"].to_string());
    line(&mut out, "input parties", s["input_parties"].to_string());
    line(&mut out, "output widths", s["output_widths"].to_string());
    let during: Vec<&Value> = s["regions"].as_array().into_iter().flatten().collect();
    blocks_text(&mut out, &s["blocks"], "", &during);
    for l in s["loops"].as_array().into_iter().flatten() {
        let at = format!("for at line {}", l["line"]);
        out.push_str(&format!("{at:<30}{}\n", loop_text(l)));
    }
    out
}

/// One line per block, nested blocks indented under their block.
fn blocks_text(out: &mut String, blocks: &Value, path: &str, regions: &[&Value]) {
    for (k, b) in blocks.as_array().into_iter().flatten().enumerate() {
        let name = format!("{} {path}{k}", b["kind"].as_str().unwrap_or("block"));
        let indent = "  ".repeat(path.matches('.').count());
        let unit = if b["kind"] == "region" {
            "instances"
        } else {
            "iterations"
        };
        let mut text = format!(
            "{} {unit} x {} AND gates (body AND depth {})",
            b["iterations"], b["and_gates_per_iteration"], b["body_and_depth"]
        );
        if b["carried_bits"].as_u64().unwrap_or(0) > 0 {
            text += &format!("; {} carried bits", b["carried_bits"]);
        }
        if path.is_empty() {
            if let Some(r) = regions.iter().find(|r| r["block"] == k) {
                text += &format!(
                    "; {} main AND gates can run during it",
                    r["main_and_gates_during"]
                );
            }
        }
        out.push_str(&format!("{:<30}{text}\n", format!("{indent}{name}")));
        blocks_text(out, &b["blocks"], &format!("{path}{k}."), &[]);
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
