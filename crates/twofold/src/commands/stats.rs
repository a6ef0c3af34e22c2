//! `twofold stats FILE`: size and shape of a program.

use serde_json::json;
use twofold_circuit::{CircuitStats, Party, Program};

/// The statistics of a program: its main circuit, and totals counting every
/// region instance.
pub fn stats_json(program: &Program) -> serde_json::Value {
    let main = CircuitStats::of(&program.main);
    // Totals count every region instance.
    let (mut gates, mut xor, mut inv) = (
        main.gates as u64,
        main.xor_gates as u64,
        main.inv_gates as u64,
    );
    let mut regions = Vec::new();
    let overlapped = program.main_overlapped();
    for (k, r) in program.regions.iter().enumerate() {
        let body = CircuitStats::of(&r.body);
        let n = r.instances.len() as u64;
        gates += body.gates as u64 * n;
        xor += body.xor_gates as u64 * n;
        inv += body.inv_gates as u64 * n;
        regions.push(json!({
            "instances": n,
            "and_gates_per_instance": body.and_gates,
            "gates_per_instance": body.gates,
            "and_depth_per_instance": body.and_depth,
            "shared_input_bits": r.shared.len(),
            "main_and_gates_during": overlapped.during_ands(k),
        }));
    }
    let ands = program.and_count();
    let input_bits = |party: Party| -> u64 {
        program
            .main
            .inputs
            .iter()
            .filter(|v| v.party == party)
            .map(|v| v.width as u64)
            .sum()
    };
    json!({
        "gates": gates,
        "and_gates": ands,
        "xor_gates": xor,
        "inv_gates": inv,
        "and_share": if gates > 0 { ands as f64 / gates as f64 } else { 0.0 },
        "wires": main.wires,
        "and_depth": main.and_depth,
        "median_ands_per_level": main.median_ands_per_level(),
        "max_ands_per_level": main.max_ands_per_level(),
        "input_widths": main.input_widths,
        "input_bits": { "a": input_bits(Party::A), "b": input_bits(Party::B) },
        "output_widths": main.output_widths,
        "input_parties": program.main.inputs.iter().map(|v| v.party.to_string()).collect::<Vec<_>>(),
        "regions": regions,
    })
}

/// Human-readable form of [`stats_json`].
pub fn stats_text(program: &Program) -> String {
    let s = stats_json(program);
    let mut out = String::new();
    let line = |out: &mut String, k: &str, v: String| out.push_str(&format!("{k:<30}{v}\n"));
    for key in ["gates", "and_gates", "xor_gates", "inv_gates", "wires"] {
        line(&mut out, &key.replace('_', " "), s[key].to_string());
    }
    let main_key = |k: &str| format!("{} (main)", k.replace('_', " "));
    if s["regions"].as_array().is_some_and(|r| !r.is_empty()) {
        for key in ["and_depth", "median_ands_per_level", "max_ands_per_level"] {
            line(&mut out, &main_key(key), s[key].to_string());
        }
    } else {
        for key in ["and_depth", "median_ands_per_level", "max_ands_per_level"] {
            line(&mut out, &key.replace('_', " "), s[key].to_string());
        }
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
    for (k, r) in s["regions"].as_array().into_iter().flatten().enumerate() {
        line(
            &mut out,
            &format!("region {k}"),
            format!(
                "{} instances x {} AND gates (AND depth {}); {} main AND gates can run during it",
                r["instances"],
                r["and_gates_per_instance"],
                r["and_depth_per_instance"],
                r["main_and_gates_during"]
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
/// Deep circuits are drawn in at most 400 bars, each the mean over a run of
/// consecutive levels.
pub fn levels_svg(program: &Program, title: &str) -> String {
    const MAX_BARS: usize = 400;
    let widths = CircuitStats::of(&program.main).ands_per_level;
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
            (
                label,
                chunk.iter().sum::<usize>() as f64 / chunk.len() as f64,
            )
        })
        .collect();
    let y_label = if per_bar == 1 {
        "AND gates"
    } else {
        "AND gates (mean per level)"
    };
    crate::plot::bar_chart(title, "AND level", y_label, &bars)
}
