//! Bits that are constants though no gate folded them: a bit computed
//! from a few wires by a few gates is tried on every value of those wires.
//! (`c ? 1 : (d ? 1 : 1)` written as merges of paths, the way a counter
//! stepped on every path of a loop body comes out, is 1 everywhere.)

use std::collections::BinaryHeap;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::{Bit, Builder};
use crate::gate::{Gate, Wire};

/// At most this many gates are tried (the newest of the bits' cone).
const MAX_GATES: usize = 256;

/// At most this many wires feed them: `2^12` values are tried.
const MAX_LEAVES: usize = 12;

/// The values of one wire over every assignment of the leaves, 64 a word.
type Table = Vec<u64>;

impl Builder {
    /// The value of each of `bits` if every one is the same whatever the
    /// wires they are computed from hold: gates of the current frame are
    /// followed back, at most [`MAX_GATES`] of them, to at most
    /// [`MAX_LEAVES`] wires (inputs, wires of other frames, or wires whose
    /// gates were not followed). `None` where some bit may vary on those.
    pub fn fixed_values(&self, bits: &[Bit]) -> Option<Vec<bool>> {
        // Gates are followed back from the newest wire, at most
        // MAX_GATES; the cut is where the most were followed with at most
        // MAX_LEAVES wires open. Any cut is sound (a leaf is tried at every
        // value, whatever computes it), and one further back shows more.
        let mut followed: Vec<Gate> = Vec::new();
        let mut open: Vec<usize> = Vec::new();
        let mut todo: BinaryHeap<Wire> = BinaryHeap::new();
        let mut seen: HashSet<Wire> = HashSet::default();
        for b in bits {
            if let Bit::Wire(w) = *b {
                if seen.insert(w) {
                    todo.push(w);
                }
            }
        }
        let mut now_open = todo.len();
        open.push(now_open);
        while let Some(w) = todo.pop() {
            if followed.len() == MAX_GATES {
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
        let made: HashSet<Wire> = gates.iter().map(Gate::out).collect();
        let mut leaves: Vec<Wire> = Vec::new();
        let wires = bits.iter().filter_map(|b| match b {
            Bit::Wire(w) => Some(*w),
            Bit::Const(_) => None,
        });
        for w in wires.chain(gates.iter().flat_map(Gate::inputs)) {
            if !made.contains(&w) && !leaves.contains(&w) {
                leaves.push(w);
            }
        }
        // A gate reads only wires made before it: in order of output.
        gates.sort_unstable_by_key(|g| g.out());
        let words = 1usize << leaves.len().saturating_sub(6);
        let mut tables: HashMap<Wire, Table> = HashMap::default();
        for (j, &w) in leaves.iter().enumerate() {
            tables.insert(w, leaf_table(j, words));
        }
        for g in &gates {
            let t: Table = match *g {
                Gate::Xor { a, b, .. } => zip(&tables[&a], &tables[&b], |p, q| p ^ q),
                Gate::And { a, b, .. } => zip(&tables[&a], &tables[&b], |p, q| p & q),
                Gate::Inv { a, .. } => tables[&a].iter().map(|p| !p).collect(),
            };
            tables.insert(g.out(), t);
        }
        bits.iter()
            .map(|b| match b {
                Bit::Const(c) => Some(*c),
                Bit::Wire(w) => {
                    let t = &tables[w];
                    if t.iter().all(|&p| p == 0) {
                        Some(false)
                    } else if t.iter().all(|&p| p == u64::MAX) {
                        Some(true)
                    } else {
                        None
                    }
                }
            })
            .collect()
    }
}

/// The values of leaf `j` over every assignment of the leaves, `words`
/// words: assignment `k` (bit `k % 64` of word `k / 64`) gives leaf `j`
/// bit `j` of `k`.
fn leaf_table(j: usize, words: usize) -> Table {
    const IN_WORD: [u64; 6] = [
        0xAAAA_AAAA_AAAA_AAAA,
        0xCCCC_CCCC_CCCC_CCCC,
        0xF0F0_F0F0_F0F0_F0F0,
        0xFF00_FF00_FF00_FF00,
        0xFFFF_0000_FFFF_0000,
        0xFFFF_FFFF_0000_0000,
    ];
    (0..words)
        .map(|k| match IN_WORD.get(j) {
            Some(&p) => p,
            None if k >> (j - 6) & 1 == 1 => u64::MAX,
            None => 0,
        })
        .collect()
}

fn zip(x: &[u64], y: &[u64], f: impl Fn(u64, u64) -> u64) -> Table {
    x.iter().zip(y).map(|(&p, &q)| f(p, q)).collect()
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
