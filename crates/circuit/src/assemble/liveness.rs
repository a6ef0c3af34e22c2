//! What of a frame reaches its outputs, found backwards from them: which
//! values are read, the gates and blocks kept, and where each value is
//! read for the last time (there its slot is freed). A bit a wire and two
//! a gate hold it, where the step of each wire's last read (32 bits a
//! wire) and a flag byte a gate took 200 MB for a flat frame of 40 M
//! gates: now 15.

use super::{prune, PendingBlock, RawFrame, Step, Steps};
use crate::bits::Bits;
use crate::gate::Wire;
use crate::CircuitError;

/// A set of the wires of a frame (numbers in `lo..hi`).
pub(super) struct Live {
    lo: Wire,
    bits: Bits,
}

impl Live {
    fn new((lo, hi): (Wire, Wire)) -> Live {
        Live {
            lo,
            bits: Bits::new((hi - lo) as usize),
        }
    }

    /// Whether `w` is in the set.
    pub(super) fn contains(&self, w: Wire) -> bool {
        w.checked_sub(self.lo)
            .is_some_and(|i| (i as usize) < self.bits.len() && self.bits.get(i as usize))
    }

    /// Adds `w` (in range); whether it was not in the set.
    fn insert(&mut self, w: Wire) -> bool {
        self.bits.insert((w - self.lo) as usize)
    }

    /// Whether any of wires `first..first + len` (in range) is in the set.
    fn any_in(&self, first: Wire, len: usize) -> bool {
        let start = (first - self.lo) as usize;
        self.bits.any_in_range(start, start + len)
    }

    /// Adds wires `first..first + len` (in range); calls `f(first, len)` on
    /// each run of them that was not in the set, in order.
    fn insert_run(&mut self, first: Wire, len: usize, mut f: impl FnMut(Wire, Wire)) {
        let (lo, start) = (self.lo, (first - self.lo) as usize);
        (self.bits).insert_range(start, start + len, |i, n| f(lo + i as Wire, n as Wire));
    }
}

/// What of a frame reaches its outputs (see the module docs).
pub(super) struct Liveness {
    /// The values read (or roots): gates writing others are dropped.
    pub(super) read: Live,
    /// Bit `2 * i + k`: input `k` of gate `i` is read last there.
    dies: Bits,
    /// Blocks kept.
    pub(super) keep_block: Vec<bool>,
    /// For each block, the wires it reads last, as runs (first, length).
    pub(super) last_read: Vec<Vec<(Wire, Wire)>>,
}

impl Liveness {
    /// Backwards over `frame`'s steps, from `roots` (its wires in `span`);
    /// blocks are cut to what is read of them on the way (see
    /// [`keep_live_part`]).
    pub(super) fn of(
        frame: &mut RawFrame,
        span: (Wire, Wire),
        roots: &[Wire],
    ) -> Result<Liveness, CircuitError> {
        let mut live = Live::new(span);
        for &w in roots {
            live.insert(w);
        }
        let mut dies = Bits::new(2 * frame.gates.len());
        let mut keep_block = vec![false; frame.blocks.len()];
        let mut last_read = vec![Vec::new(); frame.blocks.len()];
        for step in Steps::of(frame).rev() {
            match step {
                Step::Gate(i) => {
                    let g = frame.gates[i];
                    if live.contains(g.out()) {
                        for (k, w) in g.inputs().enumerate() {
                            if live.insert(w) {
                                dies.insert(2 * i + k);
                            }
                        }
                    }
                }
                Step::Block(b) => {
                    let block = &mut frame.blocks[b];
                    if keep_live_part(block, &live)? {
                        keep_block[b] = true;
                        let runs = &mut last_read[b];
                        block.reads(|first, len| {
                            live.insert_run(first, len, |f, n| super::push_to_runs(runs, f, n));
                        });
                    }
                }
            }
        }
        Ok(Liveness {
            read: live,
            dies,
            keep_block,
            last_read,
        })
    }

    /// Whether input `k` of gate `i` (kept) is read last there.
    pub(super) fn dies(&self, i: usize, k: usize) -> bool {
        self.dies.get(2 * i + k)
    }
}

impl PendingBlock {
    /// The iterations from the first to the last one writing a wire in
    /// `live` (as `first..end`), if any does.
    fn live_iterations(&self, live: &Live) -> Option<(u64, u64)> {
        let writes_live = |k: u64| {
            let mut any = false;
            self.outputs
                .for_each_run(k, |_, first, len| any |= live.any_in(first, len));
            any
        };
        let first = (0..self.count).find(|&k| writes_live(k))?;
        let last = (first..self.count).rev().find(|&k| writes_live(k))?;
        Some((first, last + 1))
    }
}

/// Cuts `block` to what is read of it (the wires in `live`): a block none
/// of whose values is read is dropped whole (returns false); one of
/// independent iterations loses those at either end whose values are not
/// read; what is left that nothing reads is dropped from the body (see
/// `crate::prune`).
fn keep_live_part(block: &mut PendingBlock, live: &Live) -> Result<bool, CircuitError> {
    if block.carried.is_empty() {
        let Some((first, end)) = block.live_iterations(live) else {
            return Ok(false);
        };
        if (first, end) != (0, block.count) {
            block.trim(first, end);
        }
    } else {
        let mut any = false;
        block.writes(|first, len| any |= live.any_in(first, len));
        if !any {
            return Ok(false);
        }
    }
    let mut live_out = vec![false; block.outputs.width()];
    // (Once every output is read somewhere, later iterations change
    // nothing.)
    let mut unread = live_out.len();
    for k in 0..block.count {
        if unread == 0 {
            break;
        }
        block.outputs.for_each_run(k, |j, first, len| {
            for (out, w) in live_out[j..j + len].iter_mut().zip(first..) {
                if !*out && live.contains(w) {
                    *out = true;
                    unread -= 1;
                }
            }
        });
    }
    let live_last: Vec<bool> = block
        .carried
        .iter()
        .map(|c| c.last.is_some_and(|w| live.contains(w)))
        .collect();
    if live_out.iter().chain(&live_last).any(|&l| !l) {
        if let Some(pruned) = prune::prune(block, &live_out, &live_last)? {
            *block = pruned;
        }
    }
    Ok(true)
}
