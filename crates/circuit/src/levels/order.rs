//! Putting a circuit's gates in level order in place (see
//! [`Circuit::into_levelized`](crate::Circuit::into_levelized)): the gates
//! are moved among themselves, bucket by bucket, rather than gathered into
//! a copy of them by a list of indices. Gathering read the gates at random
//! (fast, but two copies of a large circuit's gates), following the
//! permutation's cycles read them one miss after another (slow). A radix
//! sort moves each gate to where its bucket is being filled, a few bits of
//! its key at a time: 256 buckets, whose places the caches and the TLB
//! hold, where one bucket per level (thousands) missed both on every move.
//! Gates of one key read none of each other (their chain places tell XOR
//! gates of one level apart), so they need no order among them: putting
//! every key's gates back in their order before took a fifth of compiling
//! a 40 M-gate sort.

use super::{counting_sort, Levels};
use crate::gate::{Gate, Wire};

/// Key bits a pass of the radix sort sorts by.
const DIGIT_BITS: u32 = 8;

/// Runs of at most this many gates are sorted by comparing.
const SMALL: usize = 64;

/// Circuits of at least this many gates are sorted on two threads (see
/// `Rows::sort_split`).
const SPLIT_ROWS: usize = 1 << 16;

/// Gates of one key are put back in order by radix on their outputs, this
/// many bits at a time, if they are more than 2^`LEAF_DIGIT_BITS` (fewer
/// are compared: the radix's counts would outnumber them) and at most
/// [`LEAF_RADIX`] (more are compared too: no copy of them then).
const LEAF_DIGIT_BITS: u32 = 12;

/// See [`LEAF_DIGIT_BITS`].
const LEAF_RADIX: usize = 1 << 20;

/// The sort key of every gate: (window, level, AND first, chain place)
/// packed in one integer, of 32 bits where they fit (4 bytes a gate to
/// hold and to move with it), else 64; and which keys' gates may read
/// each other.
pub(super) struct SortKeys {
    keys: Keys,
    chained: Chained,
}

/// The keys, and their bits.
enum Keys {
    Narrow(Vec<u32>, u32),
    Wide(Vec<u64>, u32),
}

/// Which keys' gates may read each other: the XOR and INV gates whose
/// chain place saturated (see `Levels`). Gates of any other key are
/// independent, so they are left in the order the radix sort leaves them.
#[derive(Clone, Copy)]
struct Chained {
    /// Bits of the place, at the bottom of a key.
    place_bits: u32,
    /// The saturated place, if gates reached it.
    saturated: Option<u64>,
}

impl Chained {
    /// Whether gates of `key` may read each other: they are then put back
    /// in their order before (by output wire).
    fn may_read_each_other(&self, key: u64) -> bool {
        let mask = (1u64 << self.place_bits) - 1;
        let not_and = key >> self.place_bits & 1 == 1;
        not_and && self.saturated == Some(key & mask)
    }
}

impl SortKeys {
    /// The keys of `gates` of the given `windows`, each gate's packed
    /// level (see `levels`) in its output field, as `gate_windows` leaves
    /// them: the outputs are put back (gate `i` writes `input_bits + i`),
    /// and the windows' array made the keys, if they fit.
    pub(super) fn pack(
        windows: Vec<u32>,
        levels: &Levels,
        gates: &mut [Gate],
        input_bits: Wire,
    ) -> SortKeys {
        let bits = |max: u32| u32::BITS - max.leading_zeros();
        let place_bits = bits(levels.max_place);
        let low_bits = bits(levels.depth) + 1 + place_bits;
        let key_bits = bits(windows.iter().copied().max().unwrap_or(0)) + low_bits;
        let key = |window: u32, (i, g): (usize, &mut Gate)| {
            let (level, place) = levels.unpack(g.out());
            *g = g.rewire(|w| w, input_bits + i as Wire);
            let not_and = u64::from(!g.is_and()) << place_bits;
            let level = u64::from(level) << (place_bits + 1);
            u64::from(window) << low_bits | level | not_and | u64::from(place)
        };
        let chained = Chained {
            place_bits,
            saturated: levels.saturated.then_some(u64::from(levels.max_place)),
        };
        let keys = if key_bits <= u32::BITS {
            let mut keys = windows;
            for (k, g) in keys.iter_mut().zip(gates.iter_mut().enumerate()) {
                *k = key(*k, g) as u32;
            }
            Keys::Narrow(keys, key_bits)
        } else {
            let keys = (windows.iter().zip(gates.iter_mut().enumerate()))
                .map(|(&w, g)| key(w, g))
                .collect();
            Keys::Wide(keys, key_bits)
        };
        SortKeys { keys, chained }
    }

    /// Sorts `gates` (those the keys are of, in single assignment: their
    /// outputs increase in their order) by key: by radix, then, among
    /// gates of one key that may read each other, by output wire (their
    /// order before). Gates end in a topological order.
    pub(super) fn sort(self, gates: &mut [Gate]) {
        let chained = self.chained;
        match self.keys {
            Keys::Narrow(mut keys, bits) => Rows {
                gates,
                keys: &mut keys,
                chained,
            }
            .sort_split(bits),
            Keys::Wide(mut keys, bits) => Rows {
                gates,
                keys: &mut keys,
                chained,
            }
            .sort_split(bits),
        }
    }
}

/// Sorts `gates` by output wire: nothing to do if they are in order (not
/// moved), else by radix on the outputs' offsets from the least (counting
/// sorts of the gates' positions, then one gather), or by comparing if
/// they are few or very many (see [`LEAF_DIGIT_BITS`]). Comparing took
/// most of the time of sorting a circuit whose levels have thousands of
/// AND gates; counting, that of one whose levels have tens.
fn sort_by_output(gates: &mut [Gate]) {
    if gates.windows(2).all(|w| w[0].out() < w[1].out()) {
        return;
    }
    if gates.len() <= 1 << LEAF_DIGIT_BITS || gates.len() > LEAF_RADIX {
        gates.sort_unstable_by_key(Gate::out);
        return;
    }
    let lo = gates.iter().map(Gate::out).min().unwrap_or(0);
    let span = gates.iter().map(|g| g.out() - lo).max().unwrap_or(0);
    let mask = (1 << LEAF_DIGIT_BITS) - 1;
    let mut order: Vec<u32> = (0..gates.len() as u32).collect();
    let mut shift = 0;
    while shift < u32::BITS && span >> shift > 0 {
        let digit = |i: u32| ((gates[i as usize].out() - lo) >> shift & mask) as usize;
        order = counting_sort(&order, digit);
        shift += LEAF_DIGIT_BITS;
    }
    let sorted: Vec<Gate> = order.iter().map(|&i| gates[i as usize]).collect();
    gates.copy_from_slice(&sorted);
}

/// Where each bucket of a digit starts, and the end after the last.
type Starts = [usize; (1 << DIGIT_BITS) + 1];

/// Gates with their keys, sorted together.
struct Rows<'a, K> {
    gates: &'a mut [Gate],
    keys: &'a mut [K],
    chained: Chained,
}

impl<K: Copy + Into<u64>> Rows<'_, K> {
    fn key(&self, i: usize) -> u64 {
        self.keys[i].into()
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.gates.swap(i, j);
        self.keys.swap(i, j);
    }

    /// The rows from `at` on (`len` of them).
    fn tail(&mut self, at: usize, len: usize) -> Rows<'_, K> {
        Rows {
            gates: &mut self.gates[at..at + len],
            keys: &mut self.keys[at..at + len],
            chained: self.chained,
        }
    }

    /// Sorts the rows, whose keys agree above their low `bits`, by key
    /// (then output wire where gates of a key may read each other): the
    /// top [`DIGIT_BITS`] of those bits at a time (an American flag sort,
    /// bucket after bucket), comparing once runs are short. Only the gates
    /// are in order afterwards.
    fn sort(&mut self, bits: u32) {
        if let Some((starts, buckets, shift)) = self.partition(bits) {
            self.sort_buckets(&starts[..=buckets], shift);
        }
    }

    /// [`Rows::sort`], the buckets of the first digit shared between two
    /// threads (in halves of about as many rows) where there are many
    /// rows and two cores.
    fn sort_split(&mut self, bits: u32)
    where
        K: Send,
    {
        let two_cores = std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2);
        if self.gates.len() < SPLIT_ROWS || !two_cores {
            return self.sort(bits);
        }
        let Some((starts, buckets, shift)) = self.partition(bits) else {
            return;
        };
        let starts = &starts[..=buckets];
        let half = self.gates.len() / 2;
        let d = starts.partition_point(|&at| at < half);
        let (gates_lo, gates_hi) = self.gates.split_at_mut(starts[d]);
        let (keys_lo, keys_hi) = self.keys.split_at_mut(starts[d]);
        let mut lo = Rows {
            gates: gates_lo,
            keys: keys_lo,
            chained: self.chained,
        };
        let mut hi = Rows {
            gates: gates_hi,
            keys: keys_hi,
            chained: self.chained,
        };
        let starts_hi: Vec<usize> = starts[d..].iter().map(|&at| at - starts[d]).collect();
        std::thread::scope(|scope| {
            scope.spawn(|| hi.sort_buckets(&starts_hi, shift));
            lo.sort_buckets(&starts[..=d], shift);
        });
    }

    /// Moves every row to the bucket of the top [`DIGIT_BITS`] of its low
    /// `bits` (or sorts the rows outright, if they are few or `bits` is
    /// 0): returns where each bucket starts (and, after the last, the
    /// end), how many buckets there are and the bits left below the
    /// digit, if buckets remain to sort.
    fn partition(&mut self, bits: u32) -> Option<(Starts, usize, u32)> {
        let n = self.gates.len();
        if bits == 0 {
            if n > 0 && self.chained.may_read_each_other(self.key(0)) {
                sort_by_output(self.gates);
            }
            return None;
        }
        if n <= SMALL {
            let mut keyed: Vec<(u64, Wire, Gate)> = (0..n)
                .map(|i| (self.key(i), self.gates[i].out(), self.gates[i]))
                .collect();
            keyed.sort_unstable_by_key(|&(key, out, _)| (key, out));
            for (g, (_, _, k)) in self.gates.iter_mut().zip(keyed) {
                *g = k;
            }
            return None;
        }
        let width = bits.min(DIGIT_BITS);
        let shift = bits - width;
        let mask = (1u64 << width) - 1;
        let digit = |rows: &Self, i: usize| ((rows.key(i) >> shift) & mask) as usize;
        let mut starts: Starts = [0; (1 << DIGIT_BITS) + 1];
        for i in 0..n {
            starts[digit(self, i) + 1] += 1;
        }
        for d in 1..starts.len() {
            starts[d] += starts[d - 1];
        }
        // next[d]: the first row of digit d's place not known to hold one.
        let mut next = starts;
        for d in 0..1 << width {
            while next[d] < starts[d + 1] {
                let i = next[d];
                let e = digit(self, i);
                if e == d {
                    next[d] += 1;
                } else {
                    self.swap(i, next[e]);
                    next[e] += 1;
                }
            }
        }
        Some((starts, 1 << width, shift))
    }

    /// Sorts each bucket of rows (`starts`: where each starts, and the
    /// end, as [`Rows::partition`] made them) by the `shift` bits below.
    fn sort_buckets(&mut self, starts: &[usize], shift: u32) {
        for b in starts.windows(2) {
            let (at, end) = (b[0], b[1]);
            if end - at > 1 {
                self.tail(at, end - at).sort(shift);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};

    use super::*;

    /// Gates are put in order of their outputs, whether in order already,
    /// shuffled, few or many (several digits of output), or with outputs
    /// far apart.
    #[test]
    fn sorts_by_output() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(6);
        for (n, step) in [
            (0u32, 1u32),
            (1, 1),
            (2, 5),
            (5000, 1),
            (5000, 1 << 18),
            (100, 40_000_000),
        ] {
            let mut gates: Vec<Gate> = (0..n)
                .map(|i| Gate::Xor {
                    a: 0,
                    b: 1,
                    out: 7 + i * step,
                })
                .collect();
            let want = gates.clone();
            sort_by_output(&mut gates);
            assert_eq!(gates, want);
            for i in (1..gates.len()).rev() {
                gates.swap(i, rng.gen_range(0..=i));
            }
            sort_by_output(&mut gates);
            assert_eq!(gates, want);
        }
    }

    /// Gates end up in the order of their keys, whatever the keys' sizes:
    /// runs sorted by comparing, by passes of several digits, keys all
    /// equal, rows sorted on two threads. Gates of one key keep their
    /// order before where they may read each other (every INV gate's key,
    /// here, where places saturated); they are the same gates.
    #[test]
    fn sorts_by_key_then_output() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for (n, max_window, max_level) in [
            (0, 1, 1),
            (1, 1, 1),
            (50, 3, 9),
            (5000, 1, 1),
            (5000, 1, 2000),
            (20_000, 300, 70_000),
            // Enough rows to split between two threads.
            (150_000, 40, 3000),
            (3000, 0, 0),
            (3000, u32::MAX, 20),
        ] {
            let made: Vec<Gate> = (0..n as u32)
                .map(|out| match rng.gen_range(0..2) {
                    0 => Gate::Inv { a: 0, out },
                    _ => Gate::And { a: 0, b: 1, out },
                })
                .collect();
            let windows: Vec<u32> = (0..n).map(|_| rng.gen_range(0..=max_window)).collect();
            let levels: Vec<u32> = (0..n).map(|_| rng.gen_range(0..=max_level)).collect();
            let key_of = |g: &Gate| {
                let i = g.out() as usize;
                (windows[i], levels[i], !g.is_and())
            };
            let mut want = made.clone();
            want.sort_by_key(key_of);
            for chained in [true, false] {
                // Levels in the outputs' fields, as `gate_windows` leaves
                // them without places (inputs at none: gate `i` writes
                // wire `i`).
                let mut gates = made.clone();
                for (g, &level) in gates.iter_mut().zip(&levels) {
                    *g = g.rewire(|w| w, level);
                }
                let found = Levels {
                    depth: max_level,
                    shift: 0,
                    max_place: 0,
                    saturated: chained,
                };
                let keys = SortKeys::pack(windows.clone(), &found, &mut gates, 0);
                assert_eq!(matches!(keys.keys, Keys::Wide(..)), max_window == u32::MAX);
                keys.sort(&mut gates);
                assert!(gates.windows(2).all(|p| key_of(&p[0]) <= key_of(&p[1])));
                if chained {
                    let one_key_inv = |p: &[Gate]| key_of(&p[0]) == key_of(&p[1]) && !p[0].is_and();
                    assert!((gates.windows(2))
                        .filter(|p| one_key_inv(p))
                        .all(|p| p[0].out() < p[1].out()));
                }
                gates.sort_by_key(|g| (key_of(g), g.out()));
                assert_eq!(gates, want);
            }
        }
    }
}
