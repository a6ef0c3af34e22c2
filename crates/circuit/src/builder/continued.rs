//! Blocks that repeat an earlier block's iterations: a loop run again from
//! the same start over the same wires and a few more (a running maximum
//! over the first `i` values, for every `i`), kept as a block each time,
//! would compute every earlier block's iterations again. Unrolled, hashing
//! shares them; kept, the later block starts where the earlier one ended.

use super::Builder;
use crate::assemble::PendingBlock;

/// Recent blocks of a frame that a new block may continue.
const LOOK_BACK: usize = 4;

/// A block as it was placed (all its iterations, from its own start), and
/// the block of the frame that ends its iterations (itself, or, if it was
/// made to continue an earlier one, its remaining iterations).
#[derive(Debug)]
pub(super) struct Chain {
    whole: PendingBlock,
    ends: usize,
}

impl Builder {
    /// If a recent block of the current frame ran the first iterations of
    /// `block` (the same body, shared wires and carried start, the same
    /// wires read iteration by iteration) and `block` writes nothing per
    /// iteration, `block` is made to run only the iterations after those,
    /// from the values the earlier block carried out. Returns how many
    /// iterations it skips.
    pub(super) fn continue_earlier(&mut self, block: &mut PendingBlock) -> u64 {
        if block.parallel || block.carried.is_empty() || block.outputs.width() != 0 {
            return 0;
        }
        let whole = block.clone();
        let found = (self.frame.chains.iter().rev())
            .find(|c| repeats(&c.whole, block))
            .map(|c| (c.whole.count, c.ends));
        let skipped = match found {
            Some((skipped, ends)) => {
                for k in 0..block.carried.len() {
                    let last = match self.frame.blocks[ends].carried[k].last {
                        Some(w) => w,
                        None => {
                            // (The earlier block hands the value out now.)
                            let w = self.fresh();
                            self.frame.blocks[ends].carried[k].last = Some(w);
                            w
                        }
                    };
                    block.carried[k].init = last;
                }
                block.count -= skipped;
                block.inputs = block.inputs.slice(skipped, block.count);
                skipped
            }
            None => 0,
        };
        let chains = &mut self.frame.chains;
        if chains.len() == LOOK_BACK {
            chains.remove(0);
        }
        chains.push(Chain {
            whole,
            ends: self.frame.blocks.len(),
        });
        skipped
    }
}

/// Whether `later`'s first iterations are exactly `earlier`'s (and it has
/// more).
fn repeats(earlier: &PendingBlock, later: &PendingBlock) -> bool {
    earlier.count < later.count
        && earlier.shared == later.shared
        && earlier.carried.len() == later.carried.len()
        && (earlier.carried.iter().zip(&later.carried))
            .all(|(a, b)| a.init == b.init && a.next == b.next)
        && earlier.inputs.width() == later.inputs.width()
        && earlier.body == later.body
        && {
            // (Compressed alike, the same wires read alike.)
            let n = earlier.count as usize;
            later.inputs.slice(0, earlier.count).compressed(n) == earlier.inputs.compressed(n)
        }
}

#[cfg(test)]
mod tests {
    use crate::assemble::PendingBlock;
    use crate::builder::{Bit, Builder};
    use crate::circuit::Party;
    use crate::gate::Wire;
    use crate::program::Carried;
    use crate::wiring::Wiring;

    /// Places a block of `xs.len()` iterations of `c = c & x` from `init`
    /// over `xs`; its skipped iterations and the wire of its last `c`.
    fn running_and(b: &mut Builder, init: Wire, xs: &[Wire]) -> (u64, Wire) {
        let mark = b.begin_frame();
        let (c, x) = (b.fresh_wire(), b.fresh_wire());
        let Bit::Wire(next) = b.and(Bit::Wire(c), Bit::Wire(x)) else {
            unreachable!("an AND of two wires")
        };
        let (body, next) = (b.end_frame(mark))
            .into_body(&[c, x], &[], &[next])
            .expect("a body");
        let last = b.fresh_wire();
        let skipped = b.add_block(PendingBlock {
            position: 0,
            count: xs.len() as u64,
            parallel: false,
            body,
            shared: Vec::new(),
            carried: vec![Carried {
                init,
                next: next[0],
                last: Some(last),
            }],
            inputs: Wiring::compress(xs.len(), 1, xs),
            outputs: Wiring::empty(),
        });
        (skipped, last)
    }

    /// Two running ANDs over bits 1..=3 and 1..=5 of one input from bit
    /// 0, and (if `third`) one over bits 1, 2, 4, 3, 5: the second runs
    /// on from the first, the third (another order) computes all its own.
    fn program(third: bool) -> (crate::Program, Vec<u64>) {
        let mut b = Builder::new();
        let bits = b.input("a", Party::A, 6);
        let w: Vec<Wire> = (bits.iter())
            .map(|&x| match x {
                Bit::Wire(w) => w,
                Bit::Const(_) => unreachable!("inputs are wires"),
            })
            .collect();
        let (s1, first) = running_and(&mut b, w[0], &w[1..4]);
        let (s2, second) = running_and(&mut b, w[0], &w[1..6]);
        let mut skipped = vec![s1, s2];
        b.output("first", &[Bit::Wire(first)]);
        b.output("second", &[Bit::Wire(second)]);
        if third {
            let (s3, other) = running_and(&mut b, w[0], &[w[1], w[2], w[4], w[3], w[5]]);
            skipped.push(s3);
            b.output("third", &[Bit::Wire(other)]);
        }
        (b.finish_program().expect("a program"), skipped)
    }

    #[test]
    fn a_block_over_more_of_the_same_wires_runs_on_from_the_earlier_one() {
        let (p, skipped) = program(false);
        assert_eq!(skipped, [0, 3]);
        let counts: Vec<u64> = p.blocks.iter().map(|b| b.count).collect();
        assert_eq!(counts, [3, 2]);
        for v in 0..64u32 {
            let bits: Vec<bool> = (0..6).map(|k| v >> k & 1 == 1).collect();
            let out = p.eval(std::slice::from_ref(&bits)).expect("evaluates");
            let all = |n: usize| bits[..=n].iter().all(|&x| x);
            assert_eq!(out, [vec![all(3)], vec![all(5)]], "inputs {v:06b}");
        }
    }

    #[test]
    fn a_block_over_other_wires_computes_its_own() {
        let (p, skipped) = program(true);
        assert_eq!(skipped, [0, 3, 0]);
        let out = p.eval(&[vec![true; 6]]).expect("evaluates");
        assert_eq!(out, [vec![true], vec![true], vec![true]]);
        let out = p.eval(&[vec![true, true, true, true, false, true]]);
        assert_eq!(
            out.expect("evaluates"),
            [vec![true], vec![false], vec![false]]
        );
    }
}
