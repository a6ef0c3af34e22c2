//! Products of two widened lanes, fused with the widening (mult32's
//! `(uint64_t)a * b`): no widened word is made, so the product waits for
//! no share CP2 learns from the garbled part.
//!
//! A lane `x = x1 + x2 + x3 mod 2^ℓ` is, with CP3's `t = x2 + x3 mod
//! 2^ℓ`, the integer `X − 2^ℓ·G` where `X = x1 + t` and `G` is the wrap
//! count of `x1 + t` (its carry, plus the sum's top bit if `x` extends by
//! its sign), garbled. For a product of two such lanes widened to `w ≤
//! ℓx + ℓy` bits, modulo 2^w:
//!
//! `x·y = X·Y − 2^ℓx·(G_x·y mod 2^(w−ℓx)) − 2^ℓy·(G_y·x mod 2^(w−ℓy))`
//!
//! (the term `2^(ℓx+ℓy)·G_x·G_y` vanishes). `X·Y` is a replicated product
//! of the sharing `(x1, 0, t)`, which CP2 holds no share of, so CP2 sends
//! nothing for it (`arith::pass_apart`); `G_x·y` needs only `y`'s low
//! lane bits, which the join gives with the wrap bits (XOR gates), so it
//! is `Σ_k 2^k·(g ∧ y_k)` over the wrap bits `g`: AND gates whose outputs
//! are injected by CP1's rows, like the wrap counts of other widened lanes.

use twofold_circuit::ValueId;

use super::SharedMixed;
use crate::mixed::plan::{factor_pairs, Plan, Term};

/// An AND gate of a correction: its two input wires and the shift of its
/// output's weight.
pub(crate) type Gate<L> = (L, L, u32);

/// A product term `x·y` whose factors are program inputs that widen one
/// whole lane each, which no other step or output reads, and whose lanes
/// sum to at least the product's width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fused {
    /// The product step.
    pub step: usize,
    /// The term's index in the step (a `Dot` has one a pair).
    pub term: usize,
    /// The factors, each with its lane's width.
    pub x: (ValueId, u32),
    /// See `x`.
    pub y: (ValueId, u32),
    /// The product's width.
    pub width: u32,
}

/// The fused terms of `m` under `plan`; `widened(k)` is the lane of
/// program input `k` if it widens one whole lane of additive shares.
pub(crate) fn fused_terms(
    m: &SharedMixed,
    plan: &Plan,
    widened: impl Fn(usize) -> Option<u32>,
) -> Vec<Fused> {
    let program = &m.program;
    let mut reads = vec![0usize; plan.kinds.len()];
    let operands = program.steps.iter().flat_map(|s| s.operands());
    for v in operands.chain(program.outputs.iter().map(|o| o.value)) {
        reads[v as usize] += 1;
    }
    let lane = |v: ValueId| {
        let k = v as usize;
        (k < program.inputs.len()).then(|| widened(k)).flatten()
    };
    let mut fused = Vec::new();
    for (step, s) in program.steps.iter().enumerate() {
        let pairs = factor_pairs(s).into_iter().zip(&plan.terms[step]);
        for (term, ((x, y), how)) in pairs.enumerate() {
            let (Some(lx), Some(ly)) = (lane(x), lane(y)) else {
                continue;
            };
            let width = plan.kinds[x as usize].bits();
            let alone = |v: ValueId| reads[v as usize] == 1 + (x == y) as usize;
            if *how == Term::Beaver && lx + ly >= width && alone(x) && alone(y) {
                fused.push(Fused {
                    step,
                    term,
                    x: (x, lx),
                    y: (y, ly),
                    width,
                });
            }
        }
    }
    fused
}

impl Fused {
    /// Whether `v` is one of its factors.
    pub fn has(&self, v: ValueId) -> bool {
        self.x.0 == v || self.y.0 == v
    }

    /// The AND gates of the term's correction, from each factor's wrap
    /// bits and lane bits (`(wraps, lane)`, garbled): for each wrap bit
    /// `g` of one factor and each bit `k < w − ℓ` of the other's lane,
    /// `g ∧ bit` and its weight's shift `ℓ + k` (its share is injected
    /// modulo 2^(w − ℓ − k)). A square (`x` is `y`) has its two halves
    /// equal: one, at twice the weight (shifts `ℓ + k + 1 < w`).
    pub fn ands<L: Copy>(&self, x: (&[L], &[L]), y: (&[L], &[L])) -> Vec<Gate<L>> {
        let square = self.x.0 == self.y.0;
        let halves = [(x, y, self.x.1), (y, x, self.y.1)];
        let mut ands = Vec::new();
        for ((wraps, _), (_, other), lane) in halves.into_iter().take(2 - square as usize) {
            let first = lane + square as u32;
            for &g in wraps {
                let bits = other.iter().take(self.width.saturating_sub(first) as usize);
                ands.extend(bits.enumerate().map(|(k, &b)| (g, b, first + k as u32)));
            }
        }
        ands
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_correction_is_what_the_product_of_the_sums_exceeds_the_product_by() {
        // Lanes of 4 bits widened to 8: x1 + t wraps, so G·y matters.
        for (x, y) in [((9u64, 12u64), (15u64, 3u64)), ((9, 12), (9, 12))] {
            let square = x == y;
            let f = Fused {
                step: 0,
                term: 0,
                x: (0, 4),
                y: (!square as u32, 4),
                width: 8,
            };
            let wraps = |(a, t): (u64, u64)| vec![(a + t) >> 4 == 1];
            let lane = |(a, t): (u64, u64)| (0..4).map(|k| ((a + t) >> k) & 1 == 1).collect();
            let (gx, lx): (Vec<bool>, Vec<bool>) = (wraps(x), lane(x));
            let (gy, ly): (Vec<bool>, Vec<bool>) = (wraps(y), lane(y));
            let correction = f
                .ands((&gx, &lx), (&gy, &ly))
                .into_iter()
                .fold(0u64, |acc, (g, b, shift)| acc + (((g & b) as u64) << shift));
            let (sx, sy) = (x.0 + x.1, y.0 + y.1);
            let product = ((sx & 15) * (sy & 15)) & 255;
            assert_eq!((sx * sy).wrapping_sub(correction) & 255, product);
            assert_eq!(
                f.ands((&gx, &lx), (&gy, &ly)).len(),
                if square { 3 } else { 8 }
            );
        }
    }
}
