//! Blocks that repeat an earlier block's iterations: a loop run again from
//! the same start over the same wires and a few more (a running maximum
//! over the first `i` values, for every `i`), kept as a block each time,
//! would compute every earlier block's iterations again. Unrolled, hashing
//! shares them; kept, the later block starts where the earlier one ended.
//! A block whose iterations carry nothing (a region) that repeats an
//! earlier such block's first iterations takes them from it the same way.

use super::Builder;
use crate::assemble::PendingBlock;
use crate::gate::{Gate, Wire};
use crate::wiring::Segment;

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
    /// `block` as it is placed: if a recent block of the current frame ran
    /// its first iterations (the same body, shared wires and carried start,
    /// the same wires read iteration by iteration), only the iterations
    /// after those, from the values that block carried out — or no block
    /// at all if that block ran them all, or more (its iterations are then
    /// split where this block's end, to hand out what they carried
    /// there). What those iterations would have written is copied from
    /// the earlier block's wires (XOR gates with zero, free to garble).
    /// Returns the block to place, if any, and how many iterations it
    /// skips.
    pub(super) fn continue_earlier(
        &mut self,
        mut block: PendingBlock,
    ) -> (Option<PendingBlock>, u64) {
        if block.carried.is_empty() {
            return self.repeat_earlier(block);
        }
        if block.parallel {
            return (Some(block), 0);
        }
        let found = (self.frame.chains.iter().rev())
            .find(|c| shares_start(&c.whole, &block) && self.carried_at(c, block.count))
            .map(|c| (c.whole.clone(), c.ends));
        let Some((earlier, ends)) = found else {
            self.note_chain(&block, self.frame.blocks.len());
            return (Some(block), 0);
        };
        let skipped = earlier.count.min(block.count);
        self.copy_outputs(&earlier, &block, skipped);
        let carried_out = match block.count < earlier.count {
            true => self.carried_within(&earlier, ends, block.count),
            false => self.carried_out_of(ends),
        };
        if skipped == block.count {
            for (c, from) in block.carried.iter().zip(carried_out) {
                if let Some(to) = c.last {
                    self.copy(from, to);
                }
            }
            return (None, skipped);
        }
        let whole = block.clone();
        for (c, from) in block.carried.iter_mut().zip(carried_out) {
            c.init = from;
        }
        skip_first(&mut block, skipped);
        self.note_chain(&whole, self.frame.blocks.len());
        (Some(block), skipped)
    }

    /// Whether what `chain`'s iterations carried after the first `k` can
    /// be handed out: after all of them, or within the block of the frame
    /// that ends them (earlier blocks of the chain are not recorded).
    fn carried_at(&self, chain: &Chain, k: u64) -> bool {
        let ends = &self.frame.blocks[chain.ends];
        k >= chain.whole.count || k >= chain.whole.count - ends.count
    }

    /// The wires block `ends` of the frame carries out of its last
    /// iteration (made now where nothing needed them yet).
    fn carried_out_of(&mut self, ends: usize) -> Vec<Wire> {
        let count = self.frame.blocks[ends].carried.len();
        (0..count)
            .map(|k| match self.frame.blocks[ends].carried[k].last {
                Some(w) => w,
                None => {
                    // (The earlier block hands the value out now.)
                    let w = self.fresh();
                    self.frame.blocks[ends].carried[k].last = Some(w);
                    w
                }
            })
            .collect()
    }

    /// The wires holding what the chain of `whole`, which block `ends` of
    /// the frame ends, carried after its first `k` iterations (within that
    /// block: see [`Builder::carried_at`]). A block that runs past them
    /// is split there in two; the chain's first `k` iterations are then
    /// noted as a chain of their own, ending with the first half.
    fn carried_within(&mut self, whole: &PendingBlock, ends: usize, k: u64) -> Vec<Wire> {
        let block = self.frame.blocks[ends].clone();
        let at = k - (whole.count - block.count);
        if at == 0 {
            return block.carried.iter().map(|c| c.init).collect();
        }
        let (mut first, mut rest) = (block.clone(), block.clone());
        let handed: Vec<Wire> = (0..block.carried.len()).map(|_| self.fresh()).collect();
        for ((f, r), &w) in first.carried.iter_mut().zip(&mut rest.carried).zip(&handed) {
            f.last = Some(w);
            r.init = w;
        }
        first.count = at;
        first.inputs = block.inputs.slice(0, at);
        first.outputs = block.outputs.slice(0, at);
        rest.count -= at;
        rest.inputs = block.inputs.slice(at, rest.count);
        rest.outputs = block.outputs.slice(at, rest.count);
        // (The second half runs right after the first, before the gates
        // that came after the block.)
        self.frame.blocks[ends] = first;
        self.frame.blocks.insert(ends + 1, rest);
        for c in &mut self.frame.chains {
            if c.ends >= ends {
                c.ends += 1;
            }
        }
        let prefix = PendingBlock {
            count: k,
            inputs: whole.inputs.slice(0, k),
            outputs: whole.outputs.slice(0, k),
            ..whole.clone()
        };
        self.note_chain(&prefix, ends);
        handed
    }

    /// Notes `whole` (a block as it was given) as one a later block may
    /// continue, its iterations ending with block `ends` of the frame.
    fn note_chain(&mut self, whole: &PendingBlock, ends: usize) {
        let chains = &mut self.frame.chains;
        if chains.len() == LOOK_BACK {
            chains.remove(0);
        }
        chains.push(Chain {
            whole: whole.clone(),
            ends,
        });
    }

    /// `block`, whose iterations carry nothing, as it is placed: the
    /// iterations a recent such block of the current frame ran already
    /// (the same body and shared wires, the same wires read iteration by
    /// iteration, from the first) are copied from that block's outputs,
    /// and only the rest are placed — none if it ran them all. Two regions
    /// over the same values (a loop nest written twice, or a sum that
    /// does not depend on the loop around it, `s = 0; for j: s += k *
    /// x[j];` in every iteration of an unrolled loop) then compute once,
    /// as unrolled hashing makes them. Returns the block to place, if any,
    /// and how many iterations it skips.
    fn repeat_earlier(&mut self, mut block: PendingBlock) -> (Option<PendingBlock>, u64) {
        if !outputs_apart(&block) {
            // (Outputs its last iteration writes, the same wires in every
            // iteration's wiring, are not another block's to copy.)
            return (Some(block), 0);
        }
        let found = (self.frame.independent.iter().rev()).find(|e| shares_start(e, &block));
        let Some(earlier) = found.cloned() else {
            self.note_independent(&block);
            return (Some(block), 0);
        };
        let skipped = earlier.count.min(block.count);
        self.copy_outputs(&earlier, &block, skipped);
        if skipped == block.count {
            return (None, skipped);
        }
        let whole = block.clone();
        skip_first(&mut block, skipped);
        self.note_independent(&whole);
        (Some(block), skipped)
    }

    /// Notes `whole` (a block of independent iterations as it was given)
    /// as one a later block may repeat.
    fn note_independent(&mut self, whole: &PendingBlock) {
        let recent = &mut self.frame.independent;
        if recent.len() == LOOK_BACK {
            recent.remove(0);
        }
        recent.push(whole.clone());
    }

    /// What `block`'s first `k` iterations write, copied from what
    /// `earlier`'s (which ran them) wrote.
    fn copy_outputs(&mut self, earlier: &PendingBlock, block: &PendingBlock, k: u64) {
        for j in 0..k {
            let pairs = earlier
                .outputs
                .wires(j)
                .into_iter()
                .zip(block.outputs.wires(j));
            for (from, to) in pairs {
                self.copy(from, to);
            }
        }
    }

    /// Wire `to` (written by nothing yet) made to hold `from`'s value.
    fn copy(&mut self, from: Wire, to: Wire) {
        let zero = self.constant_wire(false, from);
        self.frame.gates.push(Gate::Xor {
            a: from.min(zero),
            b: from.max(zero),
            out: to,
        });
    }
}

/// `block` without its first `n` iterations.
fn skip_first(block: &mut PendingBlock, n: u64) {
    block.count -= n;
    block.inputs = block.inputs.slice(n, block.count);
    block.outputs = block.outputs.slice(n, block.count);
}

/// Whether every iteration of `block` writes wires of its own: each
/// output segment moves by at least its length from one iteration to the
/// next.
fn outputs_apart(block: &PendingBlock) -> bool {
    (block.outputs.segments.iter()).all(|s| match s {
        Segment::Affine { len, step, .. } => step.unsigned_abs() >= u64::from(*len),
        Segment::Ranges { .. } | Segment::Table { .. } => false,
    })
}

/// Whether `earlier` and `later` run the same first iterations (all of
/// the shorter one's).
fn shares_start(earlier: &PendingBlock, later: &PendingBlock) -> bool {
    earlier.shared == later.shared
        && earlier.carried.len() == later.carried.len()
        && (earlier.carried.iter().zip(&later.carried))
            .all(|(a, b)| a.init == b.init && a.next == b.next)
        && earlier.inputs.width() == later.inputs.width()
        && earlier.outputs.width() == later.outputs.width()
        && earlier.body == later.body
        && {
            // (Compressed alike, the same wires read alike.)
            let n = earlier.count.min(later.count);
            (later.inputs.slice(0, n).compressed(n as usize))
                == earlier.inputs.slice(0, n).compressed(n as usize)
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
        let (skipped, last, _) = running_and_each(b, init, xs, false);
        (skipped, last)
    }

    /// [`running_and`], also writing each iteration's `c` if `every`: with
    /// those wires.
    fn running_and_each(
        b: &mut Builder,
        init: Wire,
        xs: &[Wire],
        every: bool,
    ) -> (u64, Wire, Vec<Wire>) {
        let mark = b.begin_frame();
        let (c, x) = (b.fresh_wire(), b.fresh_wire());
        let Bit::Wire(next) = b.and(Bit::Wire(c), Bit::Wire(x)) else {
            unreachable!("an AND of two wires")
        };
        let outs = if every { vec![next] } else { Vec::new() };
        let (body, next) = (b.end_frame(mark))
            .into_body(&[c, x], &outs, &[next])
            .expect("a body");
        let each: Vec<Wire> = (0..xs.len() * outs.len()).map(|_| b.fresh_wire()).collect();
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
            outputs: Wiring::compress(xs.len(), outs.len(), &each),
        });
        (skipped, last, each)
    }

    /// Wires as bits, for outputs.
    fn wires(ws: &[Wire]) -> Vec<Bit> {
        ws.iter().map(|&w| Bit::Wire(w)).collect()
    }

    /// How many iterations each block of `p` runs.
    fn block_counts(p: &crate::Program) -> Vec<u64> {
        p.blocks.iter().map(|b| b.count).collect()
    }

    /// A builder with an input of 6 bits, and their wires.
    fn six_input_wires() -> (Builder, Vec<Wire>) {
        let mut b = Builder::new();
        let bits = b.input("a", Party::A, 6);
        let wires = (bits.iter())
            .map(|&x| match x {
                Bit::Wire(w) => w,
                Bit::Const(_) => unreachable!("inputs are wires"),
            })
            .collect();
        (b, wires)
    }

    /// Two running ANDs over bits 1..=3 and 1..=5 of one input from bit
    /// 0, then one over bits 1, 2, 4, 3, 5 (`other`) or one over bits
    /// 1..=3 again: the second runs on from the first, the third computes
    /// all its own if in another order, else none.
    fn program(other: bool) -> (crate::Program, Vec<u64>) {
        let (mut b, w) = six_input_wires();
        let (s1, first) = running_and(&mut b, w[0], &w[1..4]);
        let (s2, second) = running_and(&mut b, w[0], &w[1..6]);
        let mut skipped = vec![s1, s2];
        b.output("first", &[Bit::Wire(first)]);
        b.output("second", &[Bit::Wire(second)]);
        let xs = match other {
            true => vec![w[1], w[2], w[4], w[3], w[5]],
            false => w[1..4].to_vec(),
        };
        let (s3, third) = running_and(&mut b, w[0], &xs);
        skipped.push(s3);
        b.output("third", &[Bit::Wire(third)]);
        (b.finish_program().expect("a program"), skipped)
    }

    #[test]
    fn a_block_over_the_same_wires_runs_on_from_the_earlier_one_or_not_at_all() {
        let (p, skipped) = program(false);
        assert_eq!(skipped, [0, 3, 3]);
        let counts: Vec<u64> = p.blocks.iter().map(|b| b.count).collect();
        assert_eq!(counts, [3, 2]);
        for v in 0..64u32 {
            let bits: Vec<bool> = (0..6).map(|k| v >> k & 1 == 1).collect();
            let out = p.eval(std::slice::from_ref(&bits)).expect("evaluates");
            let all = |n: usize| vec![bits[..=n].iter().all(|&x| x)];
            assert_eq!(out, [all(3), all(5), all(3)], "inputs {v:06b}");
        }
    }

    /// Prefix ANDs written every iteration: those of the iterations an
    /// earlier block ran are copied from its outputs.
    #[test]
    fn what_repeated_iterations_write_is_the_earlier_blocks() {
        let (mut b, w) = six_input_wires();
        let (_, _, first) = running_and_each(&mut b, w[0], &w[1..4], true);
        let (skipped, _, second) = running_and_each(&mut b, w[0], &w[1..6], true);
        assert_eq!(skipped, 3);
        b.output("first", &wires(&first));
        b.output("second", &wires(&second));
        let p = b.finish_program().expect("a program");
        assert_eq!(block_counts(&p), [3, 2]);
        for v in 0..64u32 {
            let bits: Vec<bool> = (0..6).map(|k| v >> k & 1 == 1).collect();
            let prefix = |n: usize| -> Vec<bool> {
                (1..=n).map(|k| bits[..=k].iter().all(|&x| x)).collect()
            };
            let out = p.eval(std::slice::from_ref(&bits)).expect("evaluates");
            assert_eq!(out, [prefix(3), prefix(5)], "inputs {v:06b}");
        }
    }

    /// A block that repeats an earlier one whole is copied from its
    /// result after the frame's constant zero was made (older than that
    /// result): the copy's inputs in order, or it reads as an AND gate.
    #[test]
    fn a_repeated_block_is_copied_after_an_older_constant_zero() {
        let (mut b, w) = six_input_wires();
        b.constant_wire(false, w[0]);
        let (_, first) = running_and(&mut b, w[0], &w[1..4]);
        let (skipped, again) = running_and(&mut b, w[0], &w[1..4]);
        assert_eq!(skipped, 3);
        b.output("first", &[Bit::Wire(first)]);
        b.output("again", &[Bit::Wire(again)]);
        let p = b.finish_program().expect("a program");
        for v in 0..64u32 {
            let bits: Vec<bool> = (0..6).map(|k| v >> k & 1 == 1).collect();
            let out = p.eval(std::slice::from_ref(&bits)).expect("evaluates");
            let all = vec![bits[..=3].iter().all(|&x| x)];
            assert_eq!(out, [all.clone(), all], "inputs {v:06b}");
        }
    }

    /// Running ANDs over bits 1..=5, then 1..=3, then 1..=2, each writing
    /// every iteration's value: the later ones are the first one's first
    /// iterations, which is split where each ends.
    #[test]
    fn a_block_that_ends_sooner_is_taken_from_the_earlier_ones_first_iterations() {
        let (mut b, w) = six_input_wires();
        let runs: Vec<_> = [6, 4, 3]
            .iter()
            .map(|&end| running_and_each(&mut b, w[0], &w[1..end], true))
            .collect();
        assert_eq!(runs.iter().map(|r| r.0).collect::<Vec<_>>(), [0, 3, 2]);
        for (k, (_, last, each)) in runs.iter().enumerate() {
            b.output(format!("last{k}"), &[Bit::Wire(*last)]);
            b.output(format!("each{k}"), &wires(each));
        }
        let p = b.finish_program().expect("a program");
        assert_eq!(block_counts(&p), [2, 1, 2]);
        for v in 0..64u32 {
            let bits: Vec<bool> = (0..6).map(|k| v >> k & 1 == 1).collect();
            let all = |n: usize| bits[..=n].iter().all(|&x| x);
            let out = p.eval(std::slice::from_ref(&bits)).expect("evaluates");
            let expected: Vec<Vec<bool>> = [5, 3, 2]
                .iter()
                .flat_map(|&n| [vec![all(n)], (1..=n).map(all).collect()])
                .collect();
            assert_eq!(out, expected, "inputs {v:06b}");
        }
    }

    #[test]
    fn a_block_over_other_wires_computes_its_own() {
        let (p, skipped) = program(true);
        assert_eq!(skipped, [0, 3, 0]);
        assert_eq!(p.blocks.len(), 3);
        let out = p.eval(&[vec![true; 6]]).expect("evaluates");
        assert_eq!(out, [vec![true], vec![true], vec![true]]);
        let out = p.eval(&[vec![true, true, true, true, false, true]]);
        assert_eq!(
            out.expect("evaluates"),
            [vec![true], vec![false], vec![false]]
        );
    }

    /// Places a block of independent iterations `o = x & y` over the
    /// pairs of `xs` (wires `xs[2k]`, `xs[2k + 1]`); its skipped
    /// iterations and its outputs.
    fn pairwise_and(b: &mut Builder, xs: &[Wire]) -> (u64, Vec<Wire>) {
        let mark = b.begin_frame();
        let (x, y) = (b.fresh_wire(), b.fresh_wire());
        let Bit::Wire(o) = b.and(Bit::Wire(x), Bit::Wire(y)) else {
            unreachable!("an AND of two wires")
        };
        let (body, _) = (b.end_frame(mark))
            .into_body(&[x, y], &[o], &[])
            .expect("a body");
        let n = xs.len() / 2;
        let outs: Vec<Wire> = (0..n).map(|_| b.fresh_wire()).collect();
        let skipped = b.add_block(PendingBlock {
            position: 0,
            count: n as u64,
            parallel: true,
            body,
            shared: Vec::new(),
            carried: Vec::new(),
            inputs: Wiring::compress(n, 2, xs),
            outputs: Wiring::compress(n, 1, &outs),
        });
        (skipped, outs)
    }

    /// Independent iterations an earlier block ran over the same wires
    /// are copied from its outputs (all of them, or the first ones); over
    /// other wires, a block computes its own.
    #[test]
    fn a_block_of_independent_iterations_repeats_an_earlier_one() {
        let (mut b, w) = six_input_wires();
        let (s1, first) = pairwise_and(&mut b, &w[..4]);
        let (s2, again) = pairwise_and(&mut b, &w[..4]);
        let (s3, longer) = pairwise_and(&mut b, &w[..6]);
        let (s4, other) = pairwise_and(&mut b, &[w[1], w[0], w[3], w[2]]);
        assert_eq!([s1, s2, s3, s4], [0, 2, 2, 0]);
        for (name, ws) in [("a", &first), ("b", &again), ("c", &longer), ("d", &other)] {
            b.output(name, &wires(ws));
        }
        let p = b.finish_program().expect("a program");
        assert_eq!(block_counts(&p), [2, 1, 2]);
        for v in 0..64u32 {
            let bits: Vec<bool> = (0..6).map(|k| v >> k & 1 == 1).collect();
            let and = |k: usize| bits[2 * k] && bits[2 * k + 1];
            let out = p.eval(std::slice::from_ref(&bits)).expect("evaluates");
            let two = vec![and(0), and(1)];
            assert_eq!(
                out,
                [two.clone(), two.clone(), vec![and(0), and(1), and(2)], two]
            );
        }
    }
}
