//! How much of each round part 0 of a split stretch takes
//! ([`Split::lead_weight`](twofold_circuit::exchange::Split::lead_weight)),
//! learnt from where each part's time went.
//!
//! Part 0 of a parallel stretch also moves the tables: the evaluator's
//! takes each round's tables from the stream before the parts read them,
//! the garbler's sends the parts' tables on. The other parts have no such
//! work, so with rounds cut evenly they wait for part 0 at every barrier
//! (evaluating random levels of 16,384 ANDs, part 1 waited a third of the
//! stretch). Under a scheme whose tables are whole per gate, where a call
//! begins and ends changes nothing in the tables, so each party may give
//! its part 0 a smaller piece of every round, and nothing the peer sees
//! changes.
//!
//! A stretch's times say how fast each part ran its pieces of rounds and
//! what else it did; the weight that would have made the parts finish
//! together follows. One stretch's estimate is noisy (on the development
//! VM part 0's other work read 1.5–7 ms from stretch to stretch), and a
//! new weight costs a new exchange plan for every batch that meets it
//! (about one thread's run of the batch), so the weight is set from the
//! median of a window of stretches, and after every change the windows
//! until the next may change it double: a run of `n` stretches changes
//! it at most about `log2(n / WINDOW)` times.

use std::time::Duration;

use twofold_circuit::exchange::EVEN_WEIGHT;

/// Where one part's time went in the rounds of a parallel stretch (the
/// units whose cut the weight sets), barrier waits aside: other units are
/// cut their own way, and while part 0 runs one alone the others wait
/// whatever the weight.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PartTimes {
    /// Running its pieces of rounds.
    pub rounds: Duration,
    /// The rest of its time in rounds: its sends, the others' sends
    /// taken in, and (part 0) the tables moved.
    pub other: Duration,
}

/// The lightest and heaviest weights part 0 is given.
const WEIGHTS: std::ops::RangeInclusive<usize> = EVEN_WEIGHT / 8..=2 * EVEN_WEIGHT;

/// Weights are multiples of this (1/16 of an even part).
const STEP: usize = EVEN_WEIGHT / 16;

/// A window's median must be this far from the weight in use for the
/// weight to change (a step and a half).
const MOVE: f64 = STEP as f64 * 1.5;

/// Parallel stretches (with rounds) a window's median is taken over.
const WINDOW: usize = 8;

/// What a splitter has learnt of part 0's best weight.
#[derive(Clone, Debug)]
pub(crate) struct Balance {
    /// The weights the stretches of the current window asked for.
    window: Vec<f64>,
    /// Windows left before the weight may change again.
    resting: u32,
    /// Windows the weight rests after its next change.
    rest: u32,
}

impl Balance {
    /// Nothing learnt yet.
    pub(crate) fn new() -> Balance {
        Balance {
            window: Vec::with_capacity(WINDOW),
            resting: 0,
            rest: 1,
        }
    }

    /// After a parallel stretch whose rounds were cut at part 0's weight
    /// `cut` and whose parts' times were `times`: the weight to cut with
    /// from now on, `weight` so far (plans made before the last change
    /// still cut at theirs).
    pub(crate) fn next_weight(&mut self, weight: usize, cut: usize, times: &[PartTimes]) -> usize {
        let Some(wanted) = balanced_weight(cut, times) else {
            return weight;
        };
        self.window.push(wanted);
        if self.window.len() < WINDOW {
            return weight;
        }
        self.window.sort_by(f64::total_cmp);
        let median = self.window[WINDOW / 2];
        self.window.clear();
        if self.resting > 0 {
            self.resting -= 1;
            return weight;
        }
        if (median - weight as f64).abs() < MOVE {
            return weight;
        }
        self.resting = self.rest;
        self.rest = self.rest.saturating_mul(2);
        let stepped = (median / STEP as f64).round() as usize * STEP;
        stepped.clamp(*WEIGHTS.start(), *WEIGHTS.end())
    }
}

/// The weight of part 0 that would have made the parts of a stretch cut
/// with `weight`, taking `times`, finish together (within [`WEIGHTS`]);
/// none if some part ran no rounds.
///
/// Part `p` ran its share `s_p` of the rounds in `rounds_p`, so all of
/// them would take it `r_p = rounds_p / s_p`. With `o_p` its other work,
/// `r̄`, `ō` the other parts' means and `k` parts, part 0's share `s`
/// balances `s·r_0 + o_0 = (1 - s)/(k - 1)·r̄ + ō`.
fn balanced_weight(weight: usize, times: &[PartTimes]) -> Option<f64> {
    let k = times.len();
    if k < 2 || times.iter().any(|t| t.rounds.is_zero()) {
        return None;
    }
    let total = (weight + EVEN_WEIGHT * (k - 1)) as f64;
    let share = |p: usize| match p {
        0 => weight as f64 / total,
        _ => EVEN_WEIGHT as f64 / total,
    };
    let whole = |p: usize| times[p].rounds.as_secs_f64() / share(p);
    let others = (k - 1) as f64;
    let r_others = (1..k).map(whole).sum::<f64>() / others / others;
    let o_others = times[1..]
        .iter()
        .map(|t| t.other.as_secs_f64())
        .sum::<f64>()
        / others;
    let s = (r_others + o_others - times[0].other.as_secs_f64()) / (whole(0) + r_others);
    let (lightest, heaviest) = (*WEIGHTS.start() as f64, *WEIGHTS.end() as f64);
    let s = s.clamp(0.0, 1.0 - f64::EPSILON);
    Some((EVEN_WEIGHT as f64 * others * s / (1.0 - s)).clamp(lightest, heaviest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn times(rounds: f64, other: f64) -> PartTimes {
        PartTimes {
            rounds: Duration::from_secs_f64(rounds / 1e3),
            other: Duration::from_secs_f64(other / 1e3),
        }
    }

    #[test]
    fn even_parts_with_even_work_keep_an_even_weight() {
        let w = balanced_weight(EVEN_WEIGHT, &[times(10.0, 1.0), times(10.0, 1.0)]).unwrap();
        assert!((w - EVEN_WEIGHT as f64).abs() < 1e-9, "{w}");
    }

    #[test]
    fn a_lead_with_more_other_work_gets_less_of_the_rounds() {
        // Rounds take 20 ms in all at either part's speed; part 0 also
        // moves tables for 8 ms: it should take (20 - 8) / 2 = 6 ms of
        // rounds, 30%, against 14 ms, 70%: weight 256 · 0.3 / 0.7.
        let w = balanced_weight(EVEN_WEIGHT, &[times(10.0, 8.0), times(10.0, 0.0)]).unwrap();
        assert!((w - 256.0 * 0.3 / 0.7).abs() < 1e-6, "{w}");
        // Measured at another weight, the same machine asks the same.
        let at = 128;
        let s0 = at as f64 / (at + 256) as f64;
        let again = balanced_weight(at, &[times(20.0 * s0, 8.0), times(20.0 * (1.0 - s0), 0.0)]);
        assert!((again.unwrap() - w).abs() < 1e-3);
        // Three parts: part 0's share s balances 20 s + 8 = 20 (1 - s) / 2.
        let s3 = 1.0 / 3.0;
        let three = [
            times(20.0 * s3, 8.0),
            times(20.0 * s3, 0.0),
            times(20.0 * s3, 0.0),
        ];
        let w3 = balanced_weight(EVEN_WEIGHT, &three).unwrap();
        let s = (10.0 - 8.0) / 30.0;
        assert!((w3 - 512.0 * s / (1.0 - s)).abs() < 1e-3, "{w3}");
    }

    #[test]
    fn no_rounds_no_estimate_and_extremes_are_bounded() {
        assert!(balanced_weight(EVEN_WEIGHT, &[times(0.0, 5.0), times(3.0, 0.0)]).is_none());
        assert!(balanced_weight(EVEN_WEIGHT, &[times(3.0, 5.0)]).is_none());
        let starved = balanced_weight(EVEN_WEIGHT, &[times(1.0, 50.0), times(1.0, 0.0)]);
        assert_eq!(starved, Some(*WEIGHTS.start() as f64));
    }

    #[test]
    fn stretches_of_an_older_cut_are_read_at_their_own_weight() {
        let mut b = Balance::new();
        // Part 0 moves tables for 8 ms: 112 is the weight to cut with. A
        // batch planned before the change still cuts at 256; its times say
        // the same, so the weight stays (read at the splitter's weight,
        // they would have pushed it on and on).
        let at_even = [times(10.0, 8.0), times(10.0, 0.0)];
        for _ in 0..10 * WINDOW {
            assert_eq!(b.next_weight(112, EVEN_WEIGHT, &at_even), 112);
        }
    }

    #[test]
    fn the_weight_follows_a_window_s_median_ever_more_slowly() {
        let mut b = Balance::new();
        let mut weight = EVEN_WEIGHT;
        // Part 0 moves tables for 8 ms a stretch, one stretch in four
        // disturbed (part 0's other work five times as long); from stretch
        // 200 on, it moves none.
        let stretch = |weight: usize, n: usize| {
            let s0 = weight as f64 / (weight + 256) as f64;
            let other = match n {
                200.. => 0.0,
                _ if n % 4 == 3 => 40.0,
                _ => 8.0,
            };
            [times(20.0 * s0, other), times(20.0 * (1.0 - s0), 0.0)]
        };
        let mut changes = Vec::new();
        for n in 0..400 {
            let next = b.next_weight(weight, weight, &stretch(weight, n));
            if next != weight {
                changes.push((n, next));
                weight = next;
            }
        }
        // The first window's median is the undisturbed estimate, 256 · 0.3
        // / 0.7 ≈ 110, to the step; later windows confirm it. When the
        // lead's other work goes, the first window after that (past a
        // rest of one window) turns back to an even cut.
        assert_eq!(changes, [(WINDOW - 1, 112), (207, EVEN_WEIGHT)]);
        // Long settled: a change takes one window; the one after it then
        // rests four windows first.
        let lopsided = [times(1.0, 50.0), times(1.0, 0.0)];
        let mut change = |weight: usize, times: &[PartTimes]| {
            (0..1000).find_map(|n| {
                let next = b.next_weight(weight, weight, times);
                (next != weight).then_some((n, next))
            })
        };
        let (n, weight) = change(weight, &lopsided).unwrap();
        assert_eq!((n, weight), (WINDOW - 1, *WEIGHTS.start()));
        // Parts that run rounds alike and do nothing else.
        let s0 = weight as f64 / (weight + 256) as f64;
        let alike = [times(20.0 * s0, 0.0), times(20.0 * (1.0 - s0), 0.0)];
        assert_eq!(change(weight, &alike), Some((5 * WINDOW - 1, EVEN_WEIGHT)));
    }
}
