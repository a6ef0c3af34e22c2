//! `twofold bench --artificial`: the ParCC paper's artificial-circuit
//! experiment — random non-linear circuits of a fixed depth and widths from
//! 16 up, garbling-only FGP speed-up on 2 threads with the measured
//! threshold and splitting every level — and its line chart (Figure 6).

use anyhow::Result;
use serde::Serialize;
use twofold_circuit::synthetic::layered;
use twofold_circuit::Program;
use twofold_protocol::engine::FGP_MIN_ANDS;
use twofold_protocol::{evaluate_only, garble_only, Plan, Schedule};

use super::ceiling::Ceiling;
use super::exchange::{exchange, Exchange};
use super::garble_only::{interleaved_rates, Config};
use crate::commands::Report;

/// The speed-ups at each width.
#[derive(Debug, Serialize)]
pub struct Artificial {
    /// Runs per figure.
    pub runs: usize,
    /// The FGP split threshold of the first series.
    pub fgp_min_ands: usize,
    /// One row per width.
    pub artificial: Vec<ArtificialRow>,
    /// What passing a level's labels between the two cores costs here
    /// (levels of [`EXCHANGE_WIDTH`] labels): FGP's bound on these
    /// circuits, whose gates read the level before at random.
    pub exchange: Exchange,
}

/// Labels per level of the exchange measurement: a level of 4,096 gates,
/// whose labels the caches hold.
const EXCHANGE_WIDTH: usize = 4096;

/// The speed-ups of one random circuit (speeds in AND gates per second).
#[derive(Debug, Serialize)]
pub struct ArtificialRow {
    /// AND gates per level.
    pub width: u32,
    /// Levels.
    pub depth: u32,
    /// Sequential, one thread.
    pub garble_1_thread: f64,
    /// FGP, two threads, levels of at least `fgp_min_ands` split.
    pub garble_fgp_2_threads: f64,
    /// FGP, two threads, every level split.
    pub garble_fgp_2_threads_every_level: f64,
    /// FGP over one thread.
    pub speedup: f64,
    /// FGP splitting every level over one thread.
    pub speedup_every_level: f64,
    /// What two one-thread garbling workers at once reach on this circuit.
    pub ceiling: Ceiling,
    /// Evaluation only, sequential, one thread.
    pub evaluate_1_thread: f64,
    /// Evaluation only, FGP, two threads, levels of at least
    /// `fgp_min_ands` split.
    pub evaluate_fgp_2_threads: f64,
    /// Evaluation-only FGP over one thread.
    pub evaluate_speedup: f64,
    /// What two one-thread evaluating workers at once reach.
    pub evaluate_ceiling: Ceiling,
}

/// Measures random circuits of `depth` and widths 16, 32, … up to `max_width`.
pub fn artificial(
    runs: usize,
    depth: u32,
    max_width: u32,
    mut log: impl FnMut(&str),
) -> Result<Artificial> {
    let mut rows = Vec::new();
    let mut width = 16;
    while width <= max_width {
        log(&format!("width {width} ..."));
        let program = Program::from(layered(width, depth, width.min(64), u64::from(width)));
        let every_level = Plan {
            fgp_min_ands: 1,
            ..Plan::new(Schedule::Fgp, 2)
        };
        let configs = [
            Config::Plan(Plan::new(Schedule::Sequential, 1)),
            Config::Plan(Plan::new(Schedule::Fgp, 2)),
            Config::Together(2),
            Config::Plan(every_level),
        ];
        let g = interleaved_rates(&program, &configs, runs, garble_only)?;
        let e = interleaved_rates(&program, &configs[..3], runs, evaluate_only)?;
        rows.push(ArtificialRow {
            width,
            depth,
            garble_1_thread: g[0],
            garble_fgp_2_threads: g[1],
            garble_fgp_2_threads_every_level: g[3],
            speedup: g[1] / g[0],
            speedup_every_level: g[3] / g[0],
            ceiling: Ceiling::new(2, g[0], g[2]),
            evaluate_1_thread: e[0],
            evaluate_fgp_2_threads: e[1],
            evaluate_speedup: e[1] / e[0],
            evaluate_ceiling: Ceiling::new(2, e[0], e[2]),
        });
        width *= 2;
    }
    log("label exchange between the cores ...");
    Ok(Artificial {
        runs,
        fgp_min_ands: FGP_MIN_ANDS,
        artificial: rows,
        exchange: exchange(EXCHANGE_WIDTH, runs),
    })
}

impl Artificial {
    /// The speed-ups as a line chart (the paper's Figure 6).
    pub fn svg(&self) -> String {
        let series_of = |speedup: fn(&ArtificialRow) -> f64| -> Vec<(f64, f64)> {
            self.artificial
                .iter()
                .map(|r| (f64::from(r.width), speedup(r)))
                .collect()
        };
        let series = [
            crate::plot::Series {
                name: format!(
                    "FGP, 2 threads, levels of >= {} ANDs split",
                    self.fgp_min_ands
                ),
                points: series_of(|r| r.speedup),
            },
            crate::plot::Series {
                name: "FGP, 2 threads, every level split".into(),
                points: series_of(|r| r.speedup_every_level),
            },
            crate::plot::Series {
                name: "ceiling: two one-thread workers at once".into(),
                points: series_of(|r| r.ceiling.speedup),
            },
            crate::plot::Series {
                name: "evaluation, FGP, 2 threads".into(),
                points: series_of(|r| r.evaluate_speedup),
            },
            crate::plot::Series {
                name: "evaluation ceiling".into(),
                points: series_of(|r| r.evaluate_ceiling.speedup),
            },
        ];
        let depth = self.artificial.first().map_or(0, |r| r.depth);
        crate::plot::line_chart(
            &format!("Garbling speed-up, random circuits of depth {depth}"),
            "circuit width (AND gates per level)",
            "speed-up (x)",
            &series,
            true,
        )
    }
}

impl Report for Artificial {
    fn text(&self) -> String {
        let mut out = format!(
            "random circuits, median of {} runs (M AND/s); FGP splits levels of >= {} ANDs; ceiling: two one-thread workers at once\n{:>8}{:>10}{:>10}{:>9}{:>12}{:>9}{:>9}{:>9} |{:>10}{:>10}{:>9}{:>9}{:>9}\n",
            self.runs, self.fgp_min_ands, "width", "garble 1", "FGP x2", "speed-up", "every lvl", "speed-up", "ceiling", "/ceil", "eval 1", "FGP x2", "speed-up", "ceiling", "/ceil"
        );
        for r in &self.artificial {
            out += &format!(
                "{:>8}{:>10.1}{:>10.1}{:>8.2}x{:>12.1}{:>8.2}x{:>8.2}x{:>9.2} |{:>10.1}{:>10.1}{:>8.2}x{:>8.2}x{:>9.2}\n",
                r.width,
                r.garble_1_thread / 1e6,
                r.garble_fgp_2_threads / 1e6,
                r.speedup,
                r.garble_fgp_2_threads_every_level / 1e6,
                r.speedup_every_level,
                r.ceiling.speedup,
                r.speedup / r.ceiling.speedup,
                r.evaluate_1_thread / 1e6,
                r.evaluate_fgp_2_threads / 1e6,
                r.evaluate_speedup,
                r.evaluate_ceiling.speedup,
                r.evaluate_speedup / r.evaluate_ceiling.speedup,
            );
        }
        let e = &self.exchange;
        out += &format!(
            "label exchange, levels of {} labels (ns a label: written once, read twice): one thread {:.2}; two threads reading their own half {:.2}, reading both halves at random {:.2}\n",
            e.width, e.one_thread_ns, e.two_threads_own_ns, e.two_threads_random_ns
        );
        out
    }
}
