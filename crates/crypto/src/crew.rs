//! A crew of helper threads that stays alive between the parallel steps of
//! a walk: splitting an AND run between threads (fine-grained parallelism)
//! then costs a counter increment the helpers are spinning on, not a thread
//! pool's wake-up per level. A step's items are claimed by whoever comes
//! first, the calling thread included: it never waits for a helper that
//! has not started (one descheduled on a busy machine), it does that
//! helper's share itself.
//!
//! Helpers spin after a step, then yield, then (after [`HOT`]) sleep on a
//! condition variable, so a crew idle between walks costs nothing.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

/// Spins (with the pause hint) before a waiting thread starts yielding.
const SPINS: u32 = 1 << 12;
/// How long a helper waits for the next step, spinning then yielding,
/// before it goes to sleep. Long, because waking a sleeping thread can
/// take longer than a step (an idle virtual CPU must be scheduled again),
/// and the steps of a walk come every few hundred microseconds; short
/// enough that a crew idle between walks soon costs nothing.
const HOT: std::time::Duration = std::time::Duration::from_millis(2);

/// The job of the current step, its lifetime erased: only dereferenced
/// between the step's posting and its completion, while [`Crew::run`]
/// keeps the borrow alive.
#[derive(Clone, Copy)]
struct Job(*const (dyn Fn(usize) + Sync + 'static));

// SAFETY: the pointee is `Sync` and outlives every use (see `Crew::run`).
unsafe impl Send for Job {}

struct Shared {
    job: Mutex<Option<Job>>,
    /// Steps posted so far; helpers wait for it to move.
    posted: AtomicU64,
    /// The current step (high 32 bits) and its next unclaimed item (low 32
    /// bits): a claim is a compare-and-swap that fails once the step is
    /// over, so a late helper never runs an old step's job.
    claim: AtomicU64,
    /// Items of the current step finished.
    finished: AtomicUsize,
    /// Items of the current step.
    items: AtomicUsize,
    /// A helper's share of the current step panicked.
    panicked: AtomicBool,
    quit: AtomicBool,
    sleepers: AtomicUsize,
    sleep: Mutex<()>,
    wake: Condvar,
}

/// `threads - 1` persistent helper threads and the calling thread: runs one
/// function on every thread index at once, step after step.
pub struct Crew {
    shared: Arc<Shared>,
    helpers: Vec<JoinHandle<()>>,
}

impl std::fmt::Debug for Crew {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Crew")
            .field("threads", &self.threads())
            .finish()
    }
}

impl Crew {
    /// A crew of `threads` threads (at least 1): the caller and
    /// `threads - 1` helpers.
    pub fn new(threads: usize) -> Crew {
        let shared = Arc::new(Shared {
            job: Mutex::new(None),
            posted: AtomicU64::new(0),
            claim: AtomicU64::new(0),
            finished: AtomicUsize::new(0),
            items: AtomicUsize::new(0),
            panicked: AtomicBool::new(false),
            quit: AtomicBool::new(false),
            sleepers: AtomicUsize::new(0),
            sleep: Mutex::new(()),
            wake: Condvar::new(),
        });
        let helpers = (1..threads.max(1))
            .map(|index| {
                let shared = Arc::clone(&shared);
                std::thread::Builder::new()
                    .name(format!("twofold-crew-{index}"))
                    .spawn(move || helper(&shared))
                    .expect("a crew thread starts")
            })
            .collect();
        Crew { shared, helpers }
    }

    /// Threads, the caller included.
    pub fn threads(&self) -> usize {
        self.helpers.len() + 1
    }

    /// Calls `work(item, index)` on every item of `items` at once, each on
    /// whichever thread claims it first (the caller claims too). Returns
    /// when all are done; a panic on any thread is resumed on the caller.
    pub fn for_each_mut<T: Send>(&mut self, items: &mut [T], work: impl Fn(&mut T, usize) + Sync) {
        let base = items.as_mut_ptr() as usize;
        let n = items.len();
        self.run(n, &|i| {
            // SAFETY: `i < n` and every index is claimed by exactly one
            // thread, so the `&mut` are disjoint; `items` is borrowed
            // mutably for the whole call.
            let item = unsafe { &mut *(base as *mut T).add(i) };
            work(item, i)
        });
    }

    /// Runs `work(i)` for every `i < n`, the items claimed by the caller
    /// and the helpers, and returns when all are done.
    fn run(&mut self, n: usize, work: &(dyn Fn(usize) + Sync)) {
        let s = &*self.shared;
        if self.helpers.is_empty() || n < 2 {
            return (0..n).for_each(work);
        }
        // SAFETY: only the lifetime is erased; a thread dereferences the
        // job only for an item it claimed in this step, and this function
        // does not return before every item is finished (even if the
        // caller's share panics), so the borrow outlives every use.
        let job: *const (dyn Fn(usize) + Sync + 'static) = unsafe { std::mem::transmute(work) };
        *s.job.lock().expect("crew lock") = Some(Job(job));
        let step = s.posted.load(SeqCst) + 1;
        s.finished.store(0, SeqCst);
        s.items.store(n, SeqCst);
        s.claim.store(step << 32, SeqCst);
        s.posted.store(step, SeqCst);
        if s.sleepers.load(SeqCst) > 0 {
            let _guard = s.sleep.lock().expect("crew lock");
            s.wake.notify_all();
        }
        let mine = catch_unwind(AssertUnwindSafe(|| claim_and_run(s, step, n, work)));
        let mut spins = 0u32;
        while s.finished.load(SeqCst) < n {
            pause(&mut spins);
        }
        // The step is over: no claim can succeed any more.
        s.claim.store(u64::MAX, SeqCst);
        *s.job.lock().expect("crew lock") = None;
        let panicked = s.panicked.swap(false, SeqCst);
        if let Err(panic) = mine {
            resume_unwind(panic);
        }
        if panicked {
            panic!("a crew thread panicked");
        }
    }
}

/// Claims items of step `step` (of `n` items) one at a time and runs them
/// until none is left; a panicking item still counts as finished.
fn claim_and_run(s: &Shared, step: u64, n: usize, work: &(dyn Fn(usize) + Sync)) {
    let mut panic = None;
    loop {
        let c = s.claim.load(SeqCst);
        let i = (c & 0xFFFF_FFFF) as usize;
        if c >> 32 != step || i >= n {
            break;
        }
        if s.claim.compare_exchange(c, c + 1, SeqCst, SeqCst).is_err() {
            continue;
        }
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| work(i))) {
            // Before the item counts as finished: the caller may return
            // as soon as it does, and must see the panic.
            s.panicked.store(true, SeqCst);
            panic.get_or_insert(p);
        }
        s.finished.fetch_add(1, SeqCst);
    }
    if let Some(p) = panic {
        resume_unwind(p);
    }
}

impl Drop for Crew {
    fn drop(&mut self) {
        let s = &*self.shared;
        s.quit.store(true, SeqCst);
        s.posted.fetch_add(1, SeqCst);
        {
            let _guard = s.sleep.lock().expect("crew lock");
            s.wake.notify_all();
        }
        for h in self.helpers.drain(..) {
            // A helper's panics are caught; joining cannot fail otherwise.
            let _ = h.join();
        }
    }
}

/// A barrier for the `parties` threads of one crew step that work in
/// phases (each on its own data, meeting between phases), which any of
/// them can call off: a thread that fails or panics calls it off (see
/// [`Barrier::guard`]), so the others stop waiting instead of hanging.
#[derive(Debug)]
pub struct Barrier {
    parties: usize,
    arrived: AtomicUsize,
    off: AtomicBool,
}

/// The barrier was called off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CalledOff;

impl Barrier {
    /// A barrier for `parties` threads.
    pub fn new(parties: usize) -> Barrier {
        Barrier {
            parties: parties.max(1),
            arrived: AtomicUsize::new(0),
            off: AtomicBool::new(false),
        }
    }

    /// Waits until every party has arrived as often as this one
    /// (`passed` counts this thread's passages), spinning then yielding;
    /// fails once the barrier is called off.
    pub fn wait(&self, passed: &mut usize) -> Result<(), CalledOff> {
        *passed += 1;
        let target = *passed * self.parties;
        self.arrived.fetch_add(1, SeqCst);
        let mut spins = 0u32;
        while self.arrived.load(SeqCst) < target {
            if self.off.load(SeqCst) {
                return Err(CalledOff);
            }
            pause(&mut spins);
        }
        Ok(())
    }

    /// Calls the barrier off: every wait, now and later, fails.
    pub fn call_off(&self) {
        self.off.store(true, SeqCst);
    }

    /// Whether the barrier was called off.
    pub fn is_off(&self) -> bool {
        self.off.load(SeqCst)
    }

    /// A guard that calls the barrier off when dropped, unless
    /// [`BarrierGuard::disarm`]ed first: a thread that leaves its work
    /// early (an error, a panic) releases the others.
    pub fn guard(&self) -> BarrierGuard<'_> {
        BarrierGuard {
            barrier: self,
            armed: true,
        }
    }
}

/// Calls its barrier off when dropped armed (see [`Barrier::guard`]).
#[derive(Debug)]
pub struct BarrierGuard<'a> {
    barrier: &'a Barrier,
    armed: bool,
}

impl BarrierGuard<'_> {
    /// The work ended well: dropping the guard leaves the barrier be.
    pub fn disarm(mut self) {
        self.armed = false;
    }
}

impl Drop for BarrierGuard<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.barrier.call_off();
        }
    }
}

/// Spins, then yields.
fn pause(spins: &mut u32) {
    if *spins < SPINS {
        std::hint::spin_loop();
    } else {
        std::thread::yield_now();
    }
    *spins = spins.saturating_add(1);
}

/// A helper's loop: wait for a step, claim and run its items while any is
/// left.
fn helper(s: &Shared) {
    let mut seen = 0u64;
    loop {
        let mut spins = 0u32;
        let since = std::time::Instant::now();
        while s.posted.load(SeqCst) == seen {
            if spins < SPINS || since.elapsed() < HOT {
                pause(&mut spins);
                continue;
            }
            let mut guard = s.sleep.lock().expect("crew lock");
            s.sleepers.fetch_add(1, SeqCst);
            while s.posted.load(SeqCst) == seen {
                guard = s.wake.wait(guard).expect("crew lock");
            }
            s.sleepers.fetch_sub(1, SeqCst);
        }
        seen = s.posted.load(SeqCst);
        if s.quit.load(SeqCst) {
            return;
        }
        let job = *s.job.lock().expect("crew lock");
        if let Some(Job(job)) = job {
            // SAFETY: see `Crew::run`: items of step `seen` are claimed
            // only while the job is alive.
            let work = unsafe { &*job };
            // The number of items is not known here: claim up to the
            // step's count, which the claim word bounds (see `run`).
            let n = s.items.load(SeqCst);
            // A panicking item is flagged for the caller in
            // `claim_and_run`, before it counts as finished.
            let _ = catch_unwind(AssertUnwindSafe(|| claim_and_run(s, seen, n, work)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_barrier_orders_phases_and_a_dropped_guard_releases_the_others() {
        let mut crew = Crew::new(3);
        let barrier = Barrier::new(3);
        let seen = [
            AtomicUsize::new(0),
            AtomicUsize::new(0),
            AtomicUsize::new(0),
        ];
        let mut results = vec![Ok(()); 3];
        crew.for_each_mut(&mut results, |r, p| {
            let mut passed = 0;
            for phase in 1..=50 {
                seen[p].store(phase, SeqCst);
                *r = barrier.wait(&mut passed);
                // Every party finished the phase before any goes on.
                assert!(seen.iter().all(|s| s.load(SeqCst) >= phase));
            }
        });
        assert!(results.iter().all(Result::is_ok));
        let barrier = Barrier::new(2);
        let mut results = vec![Ok(()); 2];
        crew.for_each_mut(&mut results, |r, p| {
            let guard = barrier.guard();
            let mut passed = 0;
            if p == 1 {
                return; // leaves early: the guard calls the barrier off
            }
            *r = barrier.wait(&mut passed);
            guard.disarm();
        });
        assert_eq!(results[0], Err(CalledOff));
    }

    #[test]
    fn every_item_runs_once_each_step() {
        for threads in 1..=4 {
            let mut crew = Crew::new(threads);
            for n in [0, 1, threads, 3 * threads + 1] {
                let mut items = vec![0u64; n];
                for step in 1..=200u64 {
                    crew.for_each_mut(&mut items, |x, i| *x += step * (i as u64 + 1));
                }
                let sum: u64 = (1..=200).sum();
                let want: Vec<u64> = (1..=n as u64).map(|i| sum * i).collect();
                assert_eq!(items, want, "{threads} threads, {n} items");
            }
        }
    }

    #[test]
    fn a_helper_panic_reaches_the_caller_and_the_crew_goes_on() {
        let mut crew = Crew::new(2);
        let mut items = [0, 0];
        let r = catch_unwind(AssertUnwindSafe(|| {
            crew.for_each_mut(&mut items, |_, i| assert_ne!(i, 1, "helper fails"))
        }));
        assert!(r.is_err());
        crew.for_each_mut(&mut items, |x, i| *x = i + 1);
        assert_eq!(items, [1, 2]);
    }

    #[test]
    fn sleeping_helpers_wake_up() {
        let mut crew = Crew::new(3);
        let mut items = [0, 0, 0];
        for _ in 0..3 {
            std::thread::sleep(std::time::Duration::from_millis(20));
            crew.for_each_mut(&mut items, |x, _| *x += 1);
        }
        assert_eq!(items, [3, 3, 3]);
    }
}
