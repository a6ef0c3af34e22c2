//! Following a compilation from another thread, so that two compilations of
//! one source can run at once: `--protocol auto` starts the mixed
//! compilation once the Boolean one has lowered a product of two secret
//! words, and bounds its gates once the Boolean program's estimate is known
//! (or stops it, if the Boolean compilation ends without such a product).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

/// A handle on a compilation shared with other threads (clones are the same
/// handle). A compilation given one in [`crate::CompileOptions::watch`]
/// reports its first product of two secret words, and makes at most
/// [`Watch::max_gates`] gates in at most [`Watch::max_memory`] bytes
/// (checked as it goes, as [`crate::Limits`] are).
#[derive(Clone, Debug)]
pub struct Watch(Arc<Shared>);

#[derive(Debug)]
struct Shared {
    /// The most gates the compilation may hold (lowered at any time).
    max_gates: AtomicU64,
    /// The most bytes it may hold, as lowering estimates them (lowered
    /// at any time).
    max_memory: AtomicU64,
    /// The most compile-time work it may do (lowered at any time).
    max_work: AtomicU64,
    /// What happened: a product of secrets seen, the compilation ended.
    state: Mutex<Seen>,
    /// Signalled when `state` changes.
    changed: Condvar,
}

#[derive(Clone, Copy, Debug, Default)]
struct Seen {
    product: bool,
    ended: bool,
}

impl Default for Watch {
    fn default() -> Watch {
        Watch(Arc::new(Shared {
            max_gates: AtomicU64::new(u64::MAX),
            max_memory: AtomicU64::new(u64::MAX),
            max_work: AtomicU64::new(u64::MAX),
            state: Mutex::new(Seen::default()),
            changed: Condvar::new(),
        }))
    }
}

impl Watch {
    /// A handle on a compilation not yet started: no bound on its gates.
    pub fn new() -> Watch {
        Watch::default()
    }

    /// Bounds the gates the compilation may hold from now on; past them it
    /// fails with [`crate::error::Exceeded::Gates`].
    pub fn set_max_gates(&self, max: u64) {
        self.0.max_gates.store(max, Ordering::Relaxed);
    }

    /// The most gates the compilation may hold.
    pub fn max_gates(&self) -> u64 {
        self.0.max_gates.load(Ordering::Relaxed)
    }

    /// Bounds the bytes the compilation may hold from now on (as
    /// [`crate::Limits::max_memory`] does, which still applies); past them
    /// it fails with [`crate::error::Exceeded::Memory`].
    pub fn set_max_memory(&self, max: u64) {
        self.0.max_memory.store(max, Ordering::Relaxed);
    }

    /// The most bytes the compilation may hold.
    pub fn max_memory(&self) -> u64 {
        self.0.max_memory.load(Ordering::Relaxed)
    }

    /// Bounds the compile-time effort (see [`crate::CompiledProgram::work`];
    /// [`crate::Limits::max_steps`] still applies to the work) from now
    /// on; past it the compilation fails with
    /// [`crate::error::Exceeded::Steps`].
    pub fn set_max_work(&self, max: u64) {
        self.0.max_work.store(max, Ordering::Relaxed);
    }

    /// The most compile-time work the compilation may do.
    pub fn max_work(&self) -> u64 {
        self.0.max_work.load(Ordering::Relaxed)
    }

    /// Marks the compilation ended (its caller does, whether it succeeded,
    /// failed or panicked), waking [`Watch::wait_for_product`].
    pub fn end(&self) {
        self.update(|s| s.ended = true);
    }

    /// Waits until the compilation lowers a product of two secret words
    /// (`true`) or ends without one (`false`).
    pub fn wait_for_product(&self) -> bool {
        let guard = self.0.state.lock().unwrap_or_else(PoisonError::into_inner);
        let seen = self
            .0
            .changed
            .wait_while(guard, |s| !s.product && !s.ended)
            .unwrap_or_else(PoisonError::into_inner);
        seen.product
    }

    /// Notes a product of two secret words (the compilation does).
    pub(crate) fn note_product(&self) {
        self.update(|s| s.product = true);
    }

    fn update(&self, f: impl FnOnce(&mut Seen)) {
        let mut seen = self.0.state.lock().unwrap_or_else(PoisonError::into_inner);
        f(&mut seen);
        self.0.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiting_ends_with_a_product_or_with_the_compilation() {
        let w = Watch::new();
        let waiter = {
            let w = w.clone();
            std::thread::spawn(move || w.wait_for_product())
        };
        w.note_product();
        assert!(waiter.join().unwrap());
        let w = Watch::new();
        let waiter = {
            let w = w.clone();
            std::thread::spawn(move || w.wait_for_product())
        };
        w.end();
        assert!(!waiter.join().unwrap());
        assert_eq!(w.max_gates(), u64::MAX);
        w.set_max_gates(7);
        assert_eq!(w.max_gates(), 7);
        w.set_max_memory(9);
        assert_eq!(w.max_memory(), 9);
    }
}
