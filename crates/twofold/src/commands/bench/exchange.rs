//! What passing labels between two cores costs on this machine: the bound
//! on fine-grained parallelism for circuits whose levels read each other's
//! labels at random, as the ParCC artificial circuits do.
//!
//! An array of labels stands for one level's outputs. Level after level,
//! each of two threads rewrites its half, waits for the other, then reads
//! two labels for each of its own, as a level of AND gates reads the
//! level before. Read from its own half, a label comes from the thread's
//! own cache; read from anywhere, half the labels come from the other
//! core's. One thread doing all of it is the reference.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed, Ordering::SeqCst};
use std::time::Instant;

use serde::Serialize;

use super::median;

/// Labels written and read per measurement (so a few hundred milliseconds
/// in all).
const WORK: usize = 1 << 25;

/// The cost of one label of a level (written once, read twice), in
/// nanoseconds of wall-clock time, one thread against two (medians).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Exchange {
    /// Labels per level.
    pub width: usize,
    /// One thread writes and reads every label.
    pub one_thread_ns: f64,
    /// Two threads, each reading labels of its own half only.
    pub two_threads_own_ns: f64,
    /// Two threads, each reading labels of both halves at random.
    pub two_threads_random_ns: f64,
}

/// A spin barrier for two threads.
struct Barrier(AtomicUsize);

impl Barrier {
    /// Waits until both threads have arrived `*round + 1` times.
    fn wait(&self, round: &mut usize) {
        *round += 1;
        self.0.fetch_add(1, SeqCst);
        while self.0.load(SeqCst) < 2 * *round {
            std::hint::spin_loop();
        }
    }
}

/// Measures the exchange for levels of `width` labels, `runs` times.
pub fn exchange(width: usize, runs: usize) -> Exchange {
    let all: Vec<Exchange> = (0..runs.max(1)).map(|_| exchange_once(width)).collect();
    let median_of = |f: fn(&Exchange) -> f64| median(all.iter().map(f).collect());
    Exchange {
        width: all[0].width,
        one_thread_ns: median_of(|e| e.one_thread_ns),
        two_threads_own_ns: median_of(|e| e.two_threads_own_ns),
        two_threads_random_ns: median_of(|e| e.two_threads_random_ns),
    }
}

/// One measurement of [`exchange`].
fn exchange_once(width: usize) -> Exchange {
    let width = width.max(2);
    // Two words a label (16 bytes); the reads' indices, two per label.
    let labels: Vec<AtomicU64> = (0..2 * width).map(|_| AtomicU64::new(0)).collect();
    let (anywhere, own) = read_indices(width);
    let half = width / 2;
    let levels = (WORK / width).max(1);
    let per_label = |seconds: f64| seconds * 1e9 / (levels * width) as f64;
    let start = Instant::now();
    for level in 0..levels {
        std::hint::black_box(level_part(&labels, &anywhere, 0..width, level as u64));
    }
    let one_thread_ns = per_label(start.elapsed().as_secs_f64());
    let two = |reads: &[usize]| {
        let barrier = Barrier(AtomicUsize::new(0));
        let start = Instant::now();
        std::thread::scope(|s| {
            for part in [0..half, half..width] {
                let (labels, barrier) = (&labels, &barrier);
                s.spawn(move || {
                    let mut round = 0;
                    for level in 0..levels {
                        write_part(labels, part.clone(), level as u64);
                        barrier.wait(&mut round);
                        std::hint::black_box(read_part(labels, reads, part.clone()));
                        barrier.wait(&mut round);
                    }
                });
            }
        });
        per_label(start.elapsed().as_secs_f64())
    };
    Exchange {
        width,
        one_thread_ns,
        two_threads_own_ns: two(&own),
        two_threads_random_ns: two(&anywhere),
    }
}

/// The labels each label's reads take, two per label: from anywhere in the
/// level, and from the reading label's own half.
fn read_indices(width: usize) -> (Vec<usize>, Vec<usize>) {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let anywhere: Vec<usize> = (0..2 * width)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % width as u64) as usize
        })
        .collect();
    let half = width / 2;
    let own = anywhere
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            if i / 2 < half {
                x % half
            } else {
                half + x % (width - half)
            }
        })
        .collect();
    (anywhere, own)
}

/// A level's labels `part` rewritten (the level's gates writing their
/// outputs).
fn write_part(labels: &[AtomicU64], part: std::ops::Range<usize>, level: u64) {
    for i in part {
        labels[2 * i].store(level ^ i as u64, Relaxed);
        labels[2 * i + 1].store(level, Relaxed);
    }
}

/// Two labels read for each label of `part` (the next level's gates
/// reading their inputs), folded into one word.
fn read_part(labels: &[AtomicU64], reads: &[usize], part: std::ops::Range<usize>) -> u64 {
    let mut acc = 0;
    for i in part {
        for &r in &reads[2 * i..2 * i + 2] {
            acc ^= labels[2 * r].load(Relaxed) ^ labels[2 * r + 1].load(Relaxed);
        }
    }
    acc
}

/// One thread's level: write `part`, then read for it.
fn level_part(
    labels: &[AtomicU64],
    reads: &[usize],
    part: std::ops::Range<usize>,
    level: u64,
) -> u64 {
    write_part(labels, part.clone(), level);
    read_part(labels, reads, part)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_half_reads_stay_in_their_half() {
        let (anywhere, own) = read_indices(100);
        assert!(anywhere.iter().all(|&r| r < 100));
        assert!(anywhere.iter().any(|&r| r < 50) && anywhere.iter().any(|&r| r >= 50));
        for (i, &r) in own.iter().enumerate() {
            assert_eq!(i / 2 < 50, r < 50, "read {i}");
        }
    }

    #[test]
    fn every_figure_is_measured() {
        let e = exchange(64, 1);
        assert_eq!(e.width, 64);
        for ns in [
            e.one_thread_ns,
            e.two_threads_own_ns,
            e.two_threads_random_ns,
        ] {
            assert!(ns.is_finite() && ns > 0.0);
        }
    }
}
