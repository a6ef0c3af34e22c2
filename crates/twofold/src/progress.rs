//! A progress bar on a terminal for runs longer than a second; nothing
//! otherwise.

use std::io::IsTerminal;
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use twofold_protocol::Progress;

/// A bar over `total` AND gates, shown on stderr only if it is a terminal and
/// once the run has lasted a second.
pub fn and_gate_bar(total: u64, quiet: bool) -> (Option<Progress>, Option<ProgressBar>) {
    if quiet || !std::io::stderr().is_terminal() || total == 0 {
        return (None, None);
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {percent}% {human_pos}/{human_len} AND gates ({eta} left)",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    let start = Instant::now();
    let shown = bar.clone();
    let progress: Progress = Arc::new(move |done: u64| {
        if shown.is_hidden() && start.elapsed() > Duration::from_secs(1) {
            shown.set_draw_target(ProgressDrawTarget::stderr());
        }
        shown.inc(done);
    });
    (Some(progress), Some(bar))
}
