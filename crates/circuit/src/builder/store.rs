//! A frame's gates as the builder holds them: 8 bytes a gate, where a
//! [`Gate`] takes 16. The builder makes XOR and AND gates with their inputs
//! in increasing order and never with two equal inputs, so the order of
//! the two stored wires tells the kind: `(a, b)` with `a < b` is `a ^ b`,
//! `(b, a)` is `a & b`, and `(a, a)` is `!a`. The one exception, the
//! frame's constant zero `w ^ w` (made once, bypassing the hashing), is
//! recorded by its position. Outputs are not stored: each gate writes a
//! fresh wire, numbered after all wires made before it, so a frame's
//! outputs are a few runs of consecutive wires (the wires of nested frames
//! and of block inputs come between).
//!
//! A 40 M-gate frame's gates thus take 326 MB instead of 652, while it is
//! built, and are handed on as [`Gate`]s from the back, the stored pairs
//! given back as they are read, so that the two forms are not held whole
//! at once.

use crate::bits::Bits;
use crate::gate::{Gate, Wire};

/// Gates converted between giving the pairs' memory back.
const GIVE_BACK: usize = 1 << 20;

/// A gate's kind and inputs, as stored (see the module docs).
pub(super) type Pair = [Wire; 2];

/// The gates of a frame (see the module docs).
#[derive(Default)]
pub(super) struct Gates {
    pairs: Vec<Pair>,
    /// Runs of gates writing consecutive wires: the first gate of each and
    /// its output, in order.
    runs: Vec<(u32, Wire)>,
    /// The gate `w ^ w`, if made.
    zero: Option<u32>,
}

/// The pair `gate` is stored as: a gate made by [`crate::Builder`] (XOR and
/// AND with inputs in increasing order and unequal).
pub(super) fn pair(gate: &Gate) -> Pair {
    match *gate {
        Gate::Xor { a, b, .. } => {
            debug_assert!(a < b, "XOR inputs in increasing order");
            [a, b]
        }
        Gate::And { a, b, .. } => {
            debug_assert!(a < b, "AND inputs in increasing order");
            [b, a]
        }
        Gate::Inv { a, .. } => [a, a],
    }
}

impl Gates {
    /// Number of gates.
    pub(super) fn len(&self) -> usize {
        self.pairs.len()
    }

    /// The stored pairs, by position.
    pub(super) fn pairs(&self) -> &[Pair] {
        &self.pairs
    }

    /// Appends `gate`, made by [`crate::Builder`]: its output is a wire
    /// made after every output before it.
    pub(super) fn push(&mut self, gate: Gate) {
        self.push_pair(pair(&gate), gate.out());
    }

    /// Appends the frame's constant zero, `w ^ w` writing `out`.
    pub(super) fn push_zero(&mut self, w: Wire, out: Wire) {
        debug_assert!(self.zero.is_none(), "one constant zero a frame");
        self.zero = Some(self.pairs.len() as u32);
        self.push_pair([w, w], out);
    }

    fn push_pair(&mut self, pair: Pair, out: Wire) {
        let i = u32::try_from(self.pairs.len()).expect("a frame holds fewer than 2^32 gates");
        let follows = self.runs.last().is_some_and(|&(first, o)| {
            debug_assert!(out > o + (i - first - 1), "outputs increase");
            o + (i - first) == out
        });
        if !follows {
            self.runs.push((i, out));
        }
        self.pairs.push(pair);
    }

    /// Gate `i`.
    pub(super) fn get(&self, i: usize) -> Gate {
        // Most gates asked for are of the latest run (once probes have
        // taken wires between runs, a search of them cost a tenth of
        // compiling a loop's secret-index reads).
        let (first, out) = match self.runs.last() {
            Some(&(first, out)) if first as usize <= i => (first, out),
            _ => self.runs[self.runs.partition_point(|&(first, _)| first as usize <= i) - 1],
        };
        self.decode(i, out + (i as u32 - first))
    }

    /// The gate writing wire `w`, if one of these does.
    pub(super) fn writer(&self, w: Wire) -> Option<usize> {
        let run = self
            .runs
            .partition_point(|&(_, out)| out <= w)
            .checked_sub(1)?;
        let (first, out) = self.runs[run];
        let end = self
            .runs
            .get(run + 1)
            .map_or(self.pairs.len(), |&(next, _)| next as usize);
        let i = first as usize + (w - out) as usize;
        (i < end).then_some(i)
    }

    /// The input of the INV gate writing wire `w`, if one of these does
    /// (the constant zero `v ^ v` is not one).
    pub(super) fn inverted(&self, w: Wire) -> Option<Wire> {
        let i = self.writer(w)?;
        let [x, y] = self.pairs[i];
        (x == y && self.zero != Some(i as u32)).then_some(x)
    }

    /// Gate `i`, writing `out`.
    fn decode(&self, i: usize, out: Wire) -> Gate {
        let [x, y] = self.pairs[i];
        if x < y {
            Gate::Xor { a: x, b: y, out }
        } else if x > y {
            Gate::And { a: y, b: x, out }
        } else if self.zero == Some(i as u32) {
            Gate::Xor { a: x, b: x, out }
        } else {
            Gate::Inv { a: x, out }
        }
    }

    /// Whether gate `i` writes wire `first + i`, for every gate.
    pub(super) fn writes_in_turn_from(&self, first: Wire) -> bool {
        match self.runs[..] {
            [] => true,
            [(0, out)] => out == first,
            _ => false,
        }
    }

    /// Number of AND gates.
    pub(super) fn and_count(&self) -> usize {
        self.pairs.iter().filter(|[x, y]| x > y).count()
    }

    /// The gates in order, as [`Gate`]s. They are made from the last, and
    /// the pairs read are given back every [`GIVE_BACK`] gates: the two
    /// forms together take little more than the gates.
    pub(super) fn into_gates(self) -> Vec<Gate> {
        self.into_gates_where(|_| true)
    }

    /// The gates whose values are read, in order, as [`Gate`]s, found in
    /// the same pass backwards from the last gate: `read` flags the wires
    /// read (indexed by wire; the outputs' set beforehand), and the inputs
    /// of every gate kept are added to it.
    /// With `unread` the gates whose values are not read are kept too
    /// (still not marking their inputs read).
    pub(super) fn into_read_gates(self, read: &mut Bits, unread: bool) -> Vec<Gate> {
        self.into_gates_where(|g| {
            let kept = read.get(g.out() as usize);
            if kept {
                g.inputs().for_each(|w| _ = read.insert(w as usize));
            }
            kept || unread
        })
    }

    /// The gates for which `keep` (called from the last gate to the first)
    /// holds, in order, as [`Gate`]s (see [`Gates::into_gates`]).
    fn into_gates_where(mut self, mut keep: impl FnMut(&Gate) -> bool) -> Vec<Gate> {
        let mut gates = Vec::with_capacity(self.pairs.len());
        // The run of the gates being made: `runs[..run]` holds it last.
        let mut run = self.runs.len();
        while !self.pairs.is_empty() {
            let end = self.pairs.len();
            let start = end.saturating_sub(GIVE_BACK);
            for i in (start..end).rev() {
                while self.runs[run - 1].0 as usize > i {
                    run -= 1;
                }
                let (first, out) = self.runs[run - 1];
                let g = self.decode(i, out + (i as u32 - first));
                if keep(&g) {
                    gates.push(g);
                }
            }
            self.pairs.truncate(start);
            self.pairs.shrink_to_fit();
        }
        gates.reverse();
        gates
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind of gate comes back as it was pushed, with its output,
    /// across runs of outputs and past the batches of conversion; INV gates
    /// are found by their outputs.
    #[test]
    fn gives_back_the_gates_pushed() {
        let mut gates = Gates::default();
        let mut want = Vec::new();
        let mut out = 10;
        for i in 0..(GIVE_BACK as u32 * 2 + 77) {
            if i % 100_000 == 0 {
                out += 1 + i % 7; // a gap: wires of a nested frame
            }
            let g = match i % 3 {
                0 => Gate::Xor {
                    a: i,
                    b: i + 1,
                    out,
                },
                1 => Gate::And {
                    a: i,
                    b: i + 5,
                    out,
                },
                _ => Gate::Inv { a: i, out },
            };
            if i == 1000 {
                gates.push_zero(4, out);
                want.push(Gate::Xor { a: 4, b: 4, out });
            } else {
                gates.push(g);
                want.push(g);
            }
            out += 1;
        }
        assert_eq!(gates.len(), want.len());
        for i in [0, 1, 2, 1000, 99_999, 100_000, want.len() - 1] {
            assert_eq!(gates.get(i), want[i]);
        }
        // The INV gates' inputs are found from their outputs; not those of
        // other gates, of the constant zero, or of wires between runs.
        for g in &want {
            let inv = match *g {
                Gate::Inv { a, .. } => Some(a),
                _ => None,
            };
            assert_eq!(gates.inverted(g.out()), inv);
        }
        assert_eq!(gates.inverted(9), None);
        assert_eq!(gates.inverted(want[100_000].out() - 1), None);
        let ands = want.iter().filter(|g| g.is_and()).count();
        assert_eq!(gates.and_count(), ands);
        assert_eq!(gates.into_gates(), want);
        assert!(Gates::default().into_gates().is_empty());
    }
}
