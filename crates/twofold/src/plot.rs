//! Small SVG charts (bars and lines) for `stats --plot` and `bench --plot`:
//! plain SVG text, no fonts or renderers needed.

use std::fmt::Write;

/// One line of a line chart: a name and its points.
pub struct Series {
    /// Shown in the legend.
    pub name: String,
    /// `(x, y)` points in drawing order.
    pub points: Vec<(f64, f64)>,
}

const W: f64 = 720.0;
const H: f64 = 420.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 80.0;
const COLOURS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
];

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A round step for about `ticks` axis ticks up to `max`.
fn tick_step(max: f64, ticks: f64) -> f64 {
    let raw = (max / ticks).max(f64::MIN_POSITIVE);
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * magnitude)
}

fn frame(out: &mut String, title: &str, x_label: &str, y_label: &str, y_max: f64) {
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>
<text x="{}" y="{}" text-anchor="middle">{}</text>
<text x="16" y="{}" text-anchor="middle" transform="rotate(-90 16 {})">{}</text>
<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{}" stroke="black"/>
<line x1="{LEFT}" y1="{}" x2="{}" y2="{}" stroke="black"/>
"#,
        W / 2.0,
        escape(title),
        (LEFT + W - RIGHT) / 2.0,
        H - 15.0,
        escape(x_label),
        (TOP + H - BOTTOM) / 2.0,
        (TOP + H - BOTTOM) / 2.0,
        escape(y_label),
        H - BOTTOM,
        H - BOTTOM,
        W - RIGHT,
        H - BOTTOM,
    );
    let step = tick_step(y_max, 5.0);
    let mut y = 0.0;
    while y <= y_max * 1.0001 {
        let py = y_pixel(y, y_max);
        let _ = writeln!(
            out,
            r##"<line x1="{}" y1="{py:.1}" x2="{}" y2="{py:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
            LEFT,
            W - RIGHT,
            LEFT - 5.0,
            py + 4.0,
            short(y)
        );
        y += step;
    }
}

fn y_pixel(y: f64, y_max: f64) -> f64 {
    H - BOTTOM - (y / y_max) * (H - BOTTOM - TOP)
}

/// A number in few characters (1.5k, 2M).
fn short(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{}G", trim(v / 1e9))
    } else if a >= 1e6 {
        format!("{}M", trim(v / 1e6))
    } else if a >= 1e3 {
        format!("{}k", trim(v / 1e3))
    } else {
        trim(v)
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A bar chart: one bar per label.
pub fn bar_chart(title: &str, x_label: &str, y_label: &str, bars: &[(String, f64)]) -> String {
    let y_max = bars.iter().map(|b| b.1).fold(0.0, f64::max).max(1e-9) * 1.1;
    let mut out = String::new();
    frame(&mut out, title, x_label, y_label, y_max);
    let n = bars.len().max(1) as f64;
    let slot = (W - LEFT - RIGHT) / n;
    let label_every = (n / 20.0).ceil().max(1.0) as usize;
    for (i, (label, v)) in bars.iter().enumerate() {
        let x = LEFT + slot * i as f64;
        let top = y_pixel(*v, y_max);
        let _ = writeln!(
            out,
            r##"<rect x="{:.2}" y="{top:.2}" width="{:.2}" height="{:.2}" fill="{}"><title>{}: {}</title></rect>"##,
            x + slot * 0.1,
            (slot * 0.8).max(0.5),
            H - BOTTOM - top,
            COLOURS[0],
            escape(label),
            v
        );
        if i % label_every == 0 {
            // Labels wider than their slot are slanted.
            let (cx, cy) = (x + slot / 2.0, H - BOTTOM + 14.0);
            if label.len() as f64 * 6.5 > slot * label_every as f64 {
                let _ = writeln!(
                    out,
                    r#"<text x="{cx:.1}" y="{cy}" text-anchor="end" font-size="10" transform="rotate(-30 {cx:.1} {cy})">{}</text>"#,
                    escape(label)
                );
            } else {
                let _ = writeln!(
                    out,
                    r#"<text x="{cx:.1}" y="{}" text-anchor="middle">{}</text>"#,
                    cy + 2.0,
                    escape(label)
                );
            }
        }
    }
    out.push_str("</svg>\n");
    out
}

/// A line chart with markers, x on a log2 axis when `log2_x` is set.
pub fn line_chart(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    log2_x: bool,
) -> String {
    let tx = |x: f64| if log2_x { x.max(1e-9).log2() } else { x };
    let all: Vec<(f64, f64)> = series
        .iter()
        .flat_map(|s| s.points.iter().copied())
        .collect();
    let (x_min, x_max) = all
        .iter()
        .map(|p| tx(p.0))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
            (lo.min(x), hi.max(x))
        });
    let (x_min, x_max) = if x_min < x_max {
        (x_min, x_max)
    } else {
        (x_min - 1.0, x_min + 1.0)
    };
    let y_max = all.iter().map(|p| p.1).fold(0.0, f64::max).max(1e-9) * 1.15;
    let mut out = String::new();
    frame(&mut out, title, x_label, y_label, y_max);
    let px = |x: f64| LEFT + 10.0 + (tx(x) - x_min) / (x_max - x_min) * (W - LEFT - RIGHT - 20.0);
    let mut ticks: Vec<f64> = all.iter().map(|p| p.0).collect();
    ticks.sort_by(f64::total_cmp);
    ticks.dedup();
    for x in ticks {
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{}" text-anchor="middle">{}</text>"#,
            px(x),
            H - BOTTOM + 16.0,
            short(x)
        );
    }
    for (k, s) in series.iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        let path: Vec<String> = s
            .points
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), y_pixel(y, y_max)))
            .collect();
        let _ = writeln!(
            out,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"/>"#,
            path.join(" ")
        );
        for &(x, y) in &s.points {
            let _ = writeln!(
                out,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3.5" fill="{colour}"><title>{}: {x} → {y:.3}</title></circle>"#,
                px(x),
                y_pixel(y, y_max),
                escape(&s.name)
            );
        }
        let ly = TOP + 8.0 + 18.0 * k as f64;
        let _ = writeln!(
            out,
            r#"<rect x="{}" y="{:.1}" width="14" height="4" fill="{colour}"/><text x="{}" y="{:.1}">{}</text>"#,
            LEFT + 15.0,
            ly,
            LEFT + 34.0,
            ly + 5.0,
            escape(&s.name)
        );
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charts_are_well_formed_svg() {
        let bars = bar_chart("t<1>", "x", "y", &[("1".into(), 3.0), ("2".into(), 5.0)]);
        assert!(bars.starts_with("<svg") && bars.trim_end().ends_with("</svg>"));
        assert_eq!(bars.matches("<rect x=").count(), 2);
        assert!(bars.contains("t&lt;1&gt;"));
        let lines = line_chart(
            "speed-up",
            "width",
            "x",
            &[Series {
                name: "fgp".into(),
                points: vec![(16.0, 1.0), (1024.0, 1.8)],
            }],
            true,
        );
        assert_eq!(lines.matches("<circle").count(), 2);
        assert_eq!(tick_step(10.0, 5.0), 2.0);
        assert_eq!(short(1500.0), "1.5k");
    }
}
