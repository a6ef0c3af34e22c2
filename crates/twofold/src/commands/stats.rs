//! `twofold stats FILE`: size and shape of a program.

use serde_json::json;
use twofold_circuit::{CircuitStats, Program};

/// The statistics of a program: its main circuit, and totals counting every
/// region instance.
pub fn stats_json(program: &Program) -> serde_json::Value {
    let main = CircuitStats::of(&program.main);
    let region_gates: u64 = program
        .regions
        .iter()
        .map(|r| r.body.gates.len() as u64 * r.instances.len() as u64)
        .sum();
    let regions: Vec<_> = program
        .regions
        .iter()
        .map(|r| {
            json!({
                "instances": r.instances.len(),
                "and_gates_per_instance": r.body.and_count(),
                "gates_per_instance": r.body.gates.len(),
            })
        })
        .collect();
    let region_ands = program.and_count() - main.and_gates as u64;
    let region_xor_inv: u64 = region_gates - region_ands;
    json!({
        "gates": main.gates as u64 + region_gates,
        "and_gates": program.and_count(),
        "xor_gates": main.xor_gates,
        "inv_gates": main.inv_gates,
        "region_free_gates": region_xor_inv,
        "wires": main.wires,
        "and_depth": main.and_depth,
        "median_ands_per_level": main.median_ands_per_level(),
        "max_ands_per_level": main.max_ands_per_level(),
        "input_widths": main.input_widths,
        "output_widths": main.output_widths,
        "input_parties": program.main.inputs.iter().map(|v| v.party.to_string()).collect::<Vec<_>>(),
        "regions": regions,
    })
}

/// Human-readable form of [`stats_json`].
pub fn stats_text(program: &Program) -> String {
    let s = stats_json(program);
    let mut out = String::new();
    let line = |out: &mut String, k: &str, v: String| out.push_str(&format!("{k:<24}{v}\n"));
    for key in [
        "gates",
        "and_gates",
        "xor_gates",
        "inv_gates",
        "wires",
        "and_depth",
        "median_ands_per_level",
        "max_ands_per_level",
    ] {
        line(&mut out, &key.replace('_', " "), s[key].to_string());
    }
    line(&mut out, "input widths", s["input_widths"].to_string());
    line(&mut out, "input parties", s["input_parties"].to_string());
    line(&mut out, "output widths", s["output_widths"].to_string());
    for (k, r) in s["regions"].as_array().into_iter().flatten().enumerate() {
        line(
            &mut out,
            &format!("region {k}"),
            format!(
                "{} instances x {} AND gates",
                r["instances"], r["and_gates_per_instance"]
            ),
        );
    }
    out
}

/// The distribution of AND gates per level: how many levels have a width in
/// each power-of-two bucket, as printed by `stats --levels`.
pub fn levels_text(program: &Program) -> String {
    let stats = CircuitStats::of(&program.main);
    let mut buckets: Vec<(usize, usize, u64)> = Vec::new();
    for &w in &stats.ands_per_level {
        let low = if w == 0 { 0 } else { 1 << w.ilog2() };
        match buckets.iter_mut().find(|b| b.0 == low) {
            Some(b) => {
                b.1 += 1;
                b.2 += w as u64;
            }
            None => buckets.push((low, 1, w as u64)),
        }
    }
    buckets.sort();
    let mut out = format!(
        "{} AND levels, median {} and max {} AND gates per level\n{:>20}{:>10}{:>14}\n",
        stats.and_depth,
        stats.median_ands_per_level(),
        stats.max_ands_per_level(),
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
pub fn levels_svg(program: &Program, title: &str) -> String {
    let stats = CircuitStats::of(&program.main);
    let bars: Vec<(String, f64)> = stats
        .ands_per_level
        .iter()
        .enumerate()
        .map(|(l, &w)| ((l + 1).to_string(), w as f64))
        .collect();
    crate::plot::bar_chart(title, "AND level", "AND gates", &bars)
}
