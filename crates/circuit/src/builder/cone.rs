//! What a bit's cone of gates shows. Bits that are constants though no
//! gate folded them: a bit computed from a few wires by a few gates is
//! tried on every value of those wires. Bits computed from given wires
//! alone.
//! (`c ? 1 : (d ? 1 : 1)` written as merges of paths, the way a counter
//! stepped on every path of a loop body comes out, is 1 everywhere.)

use std::collections::{hash_map::Entry, BinaryHeap};

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::{Bit, Builder};
use crate::gate::{Gate, Wire};

/// At most this many gates are tried (the newest of the bits' cone).
const MAX_GATES: usize = 256;

/// At most this many gates are followed back by
/// [`Builder::computed_only_from`].
const MAX_FOLLOWED: usize = 4096;

/// At most this many wires feed them: `2^12` values are tried.
const MAX_LEAVES: usize = 12;

impl Builder {
    /// The value of each of `bits` if every one is the same whatever the
    /// wires they are computed from hold: gates of the current frame are
    /// followed back, at most [`MAX_GATES`] of them, to at most
    /// [`MAX_LEAVES`] wires (inputs, wires of other frames, or wires whose
    /// gates were not followed). `None` where some bit may vary on those,
    /// or more than [`MAX_LEAVES`] of `bits` are wires (a small counter's
    /// are few; a secret sum's are many, and rarely all fixed).
    pub fn fixed_values(&self, bits: &[Bit]) -> Option<Vec<bool>> {
        self.fixed_values_where(bits, Bit::Const(true))
    }

    /// Whether every one of `bits` is a constant, one of `leaves`, or
    /// computed by gates of the current frame from those alone (at most
    /// [`MAX_FOLLOWED`] gates followed back; past them, `false`).
    pub fn computed_only_from(&self, bits: &[Bit], leaves: &HashSet<Wire>) -> bool {
        let mut todo: Vec<Wire> = (bits.iter())
            .filter_map(|b| match *b {
                Bit::Wire(w) if !leaves.contains(&w) => Some(w),
                _ => None,
            })
            .collect();
        let mut seen: HashSet<Wire> = todo.iter().copied().collect();
        let mut followed = 0;
        while let Some(w) = todo.pop() {
            let Some(i) = self.frame.gates.writer(w) else {
                return false;
            };
            followed += 1;
            if followed > MAX_FOLLOWED {
                return false;
            }
            for x in self.frame.gates.get(i).inputs() {
                if !leaves.contains(&x) && seen.insert(x) {
                    todo.push(x);
                }
            }
        }
        true
    }

    /// [`Builder::fixed_values`] where `given` holds: the value of each of
    /// `bits` if every one is the same on all values of the wires that
    /// make `given` 1 (`None` if none does).
    pub fn fixed_values_where(&self, bits: &[Bit], given: Bit) -> Option<Vec<bool>> {
        let wires = bits.iter().filter(|b| matches!(b, Bit::Wire(_))).count();
        if given == Bit::Const(false) || wires > MAX_LEAVES {
            return None;
        }
        // Gates are followed back from the newest wire, at most
        // MAX_GATES; the cut is where the most were followed with at most
        // MAX_LEAVES wires open. Any cut is sound (a leaf is tried at every
        // value, whatever computes it), and one further back shows more.
        let mut followed: Vec<Gate> = Vec::new();
        let mut open: Vec<usize> = Vec::new();
        let mut todo: BinaryHeap<Wire> = BinaryHeap::new();
        let mut seen: HashSet<Wire> = HashSet::default();
        for b in bits.iter().chain([&given]) {
            if let Bit::Wire(w) = *b {
                if seen.insert(w) {
                    todo.push(w);
                }
            }
        }
        let mut now_open = todo.len();
        open.push(now_open);
        while let Some(w) = todo.pop() {
            // Past a few times the leaves, a cut within them is unlikely
            // further back.
            if followed.len() == MAX_GATES || now_open > 4 * MAX_LEAVES {
                break;
            }
            let Some(i) = self.frame.gates.writer(w) else {
                continue;
            };
            let g = self.frame.gates.get(i);
            now_open -= 1;
            for x in g.inputs() {
                if seen.insert(x) {
                    todo.push(x);
                    now_open += 1;
                }
            }
            followed.push(g);
            open.push(now_open);
        }
        let cut = open.iter().rposition(|&n| n <= MAX_LEAVES)?;
        let mut gates = followed;
        gates.truncate(cut);
        // Each leaf, then each gate in order of output (a gate reads only
        // wires made before it), has a row of `words` words: its values.
        gates.sort_unstable_by_key(|g| g.out());
        let mut row: HashMap<Wire, usize> = HashMap::default();
        row.extend(gates.iter().enumerate().map(|(i, g)| (g.out(), i)));
        let wires = bits.iter().chain([&given]).filter_map(|b| match b {
            Bit::Wire(w) => Some(*w),
            Bit::Const(_) => None,
        });
        let mut leaves = 0;
        for w in wires.chain(gates.iter().flat_map(Gate::inputs)) {
            if let Entry::Vacant(e) = row.entry(w) {
                e.insert(gates.len() + leaves);
                leaves += 1;
            }
        }
        let words = 1usize << leaves.saturating_sub(6);
        let mut values = vec![0u64; (gates.len() + leaves) * words];
        for j in 0..leaves {
            leaf_row(j, &mut values[(gates.len() + j) * words..][..words]);
        }
        for (i, g) in gates.iter().enumerate() {
            let (done, rest) = values.split_at_mut(i * words);
            let (out, later) = rest.split_at_mut(words);
            let input = |w: &Wire| -> &[u64] {
                let r = row[w];
                if r < i {
                    &done[r * words..][..words]
                } else {
                    &later[(r - i - 1) * words..][..words]
                }
            };
            match g {
                Gate::Xor { a, b, .. } => zip(out, input(a), input(b), |p, q| p ^ q),
                Gate::And { a, b, .. } => zip(out, input(a), input(b), |p, q| p & q),
                Gate::Inv { a, .. } => zip(out, input(a), input(a), |p, _| !p),
            }
        }
        let values_of = |w: &Wire| &values[row[w] * words..][..words];
        let ones = vec![u64::MAX; words];
        let given = match given {
            Bit::Wire(w) => values_of(&w),
            Bit::Const(_) => &ones[..],
        };
        if given.iter().all(|&p| p == 0) {
            return None;
        }
        bits.iter()
            .map(|b| match b {
                Bit::Const(c) => Some(*c),
                Bit::Wire(w) => {
                    let t = values_of(w);
                    // Every assignment `given` allows has the bit at `v`.
                    let on = |v: u64| t.iter().zip(given).all(|(&p, &g)| p & g == g & v);
                    if on(0) {
                        Some(false)
                    } else if on(u64::MAX) {
                        Some(true)
                    } else {
                        None
                    }
                }
            })
            .collect()
    }
}

/// Writes the values of leaf `j` over every assignment of the leaves:
/// assignment `k` (bit `k % 64` of word `k / 64`) gives leaf `j` bit `j`
/// of `k`.
fn leaf_row(j: usize, row: &mut [u64]) {
    const IN_WORD: [u64; 6] = [
        0xAAAA_AAAA_AAAA_AAAA,
        0xCCCC_CCCC_CCCC_CCCC,
        0xF0F0_F0F0_F0F0_F0F0,
        0xFF00_FF00_FF00_FF00,
        0xFFFF_0000_FFFF_0000,
        0xFFFF_FFFF_0000_0000,
    ];
    for (k, word) in row.iter_mut().enumerate() {
        *word = match IN_WORD.get(j) {
            Some(&p) => p,
            None if k >> (j - 6) & 1 == 1 => u64::MAX,
            None => 0,
        };
    }
}

fn zip(out: &mut [u64], x: &[u64], y: &[u64], f: impl Fn(u64, u64) -> u64) {
    for ((o, &p), &q) in out.iter_mut().zip(x).zip(y) {
        *o = f(p, q);
    }
}

#[cfg(test)]
mod tests {
    use crate::circuit::Party;
    use crate::{Bit, Builder};

    /// A merge of paths that all give 1 is 1, however it was written; a
    /// merge that differs on some path is not fixed.
    #[test]
    fn finds_a_merge_of_equal_paths_constant() {
        let mut b = Builder::new();
        let x = b.input("x", Party::A, 9);
        let (c, d) = (b.and(x[0], x[1]), b.xor(x[2], x[3]));
        // c ? 1 : (d ? 1 : (!c & !d))
        let nc = b.not(c);
        let nd = b.not(d);
        let neither = b.and(nc, nd);
        let inner = b.mux(d, Bit::Const(true), neither);
        let one = b.mux(c, Bit::Const(true), inner);
        assert!(matches!(one, Bit::Wire(_)), "no gate folded it");
        assert_eq!(
            b.fixed_values(&[one, Bit::Const(false)]),
            Some(vec![true, false])
        );
        let varies = b.mux(c, Bit::Const(true), d);
        assert_eq!(b.fixed_values(&[one, varies]), None);
        // Where a condition holds: c ? 1 : d is 1 where c or d is, 0
        // where neither is; nothing is fixed where nothing holds.
        let either = b.or(c, d);
        assert_eq!(b.fixed_values_where(&[varies], either), Some(vec![true]));
        assert_eq!(
            b.fixed_values_where(&[varies, one], neither),
            Some(vec![false, true])
        );
        assert_eq!(b.fixed_values_where(&[varies], d), Some(vec![true]));
        assert_eq!(b.fixed_values_where(&[varies], nc), None);
        let never = b.and(either, neither);
        assert_eq!(b.fixed_values_where(&[varies], never), None);
        // Over more leaves than a word of assignments: a ^ b ^ c with
        // a = x&y, b = x&z, c = x&(y^z), which no gate folds.
        let mut zero = Bit::Const(false);
        for i in 0..x.len() - 2 {
            let (p, q, r) = (x[i], x[i + 1], x[i + 2]);
            let a = b.and(p, q);
            let c = b.and(p, r);
            let qr = b.xor(q, r);
            let d = b.and(p, qr);
            let ac = b.xor(a, c);
            let t = b.xor(ac, d);
            zero = b.xor(zero, t);
        }
        assert!(matches!(zero, Bit::Wire(_)), "no gate folded it");
        assert_eq!(b.fixed_values(&[zero]), Some(vec![false]));
        let mut parity = Bit::Const(false);
        for &w in &x {
            parity = b.xor(parity, w);
        }
        assert_eq!(b.fixed_values(&[parity]), None);
    }
}
