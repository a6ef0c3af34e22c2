//! Long work (compiling, runs) on a thread of its own while the calling
//! Python thread waits without the GIL, wakes every few milliseconds to
//! let Python handle signals (Ctrl-C raises `KeyboardInterrupt` at once)
//! and reports progress to a Python callback.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use twofold_protocol::Progress;

/// How often the waiting thread wakes.
const TICK: Duration = Duration::from_millis(50);

/// A Python progress callback, called as `callback(done, total)` with the
/// AND gates done so far and the program's AND gates.
pub struct Reporter {
    callback: Option<Py<PyAny>>,
    done: Arc<AtomicU64>,
    total: u64,
}

impl Reporter {
    /// A reporter over `total` AND gates (it does nothing without a callback).
    pub fn new(callback: Option<Py<PyAny>>, total: u64) -> Reporter {
        Reporter {
            callback,
            done: Arc::new(AtomicU64::new(0)),
            total,
        }
    }

    /// The protocol's progress hook that feeds this reporter.
    pub fn hook(&self) -> Option<Progress> {
        self.callback.as_ref()?;
        let done = Arc::clone(&self.done);
        Some(Arc::new(move |more: u64| {
            done.fetch_add(more, Ordering::Relaxed);
        }))
    }

    /// Calls the callback if the count moved since `last`.
    fn report(&self, py: Python<'_>, last: &mut u64) -> PyResult<()> {
        let Some(callback) = &self.callback else {
            return Ok(());
        };
        let done = self.done.load(Ordering::Relaxed).min(self.total);
        if done != *last {
            *last = done;
            callback.call1(py, (done, self.total))?;
        }
        Ok(())
    }
}

/// Runs `work` on a new thread and waits for it without the GIL. Ctrl-C
/// (any pending signal whose handler raises) or an exception in the
/// progress callback ends the wait with that exception; the work thread is
/// then left to end by itself (a run between processes ends at its
/// timeout or when the peer leaves) and its result is dropped.
pub fn run<T: Send + 'static>(
    py: Python<'_>,
    reporter: &Reporter,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let (tx, mut rx) = channel();
    std::thread::Builder::new()
        .name("twofold-run".into())
        .spawn(move || {
            // The receiver is gone only if the caller stopped waiting.
            let _ = tx.send(work());
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))?;
    let mut last = 0;
    loop {
        let (got, back) = py.detach(move || wait(rx));
        rx = back;
        match got {
            Ok(result) => {
                reporter.report(py, &mut last)?;
                return Ok(result);
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err("twofold's worker thread panicked"))
            }
        }
        py.check_signals()?;
        reporter.report(py, &mut last)?;
    }
}

/// Waits a tick for the result; hands the receiver back (it is not `Sync`,
/// so it moves in and out of the closure that runs without the GIL).
fn wait<T>(rx: Receiver<T>) -> (Result<T, RecvTimeoutError>, Receiver<T>) {
    (rx.recv_timeout(TICK), rx)
}
