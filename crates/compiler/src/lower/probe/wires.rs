//! The wires a probe's template reads and writes: where its blocks write,
//! and the safety net that no wire from outside the probe reaches it.

use rustc_hash::FxHashSet as HashSet;
use twofold_circuit::{Bit, RawFrame, Wire};

use super::Write;
use crate::value::Slot;

/// A wire the template reads that is neither one of its inputs nor made by
/// one of its gates or blocks, if any (a safety net: the lowering must not
/// let a value from outside the probe reach it unobserved).
pub(super) fn outside_wire(
    frame: &RawFrame,
    inputs: &[Wire],
    writes: &[Write],
    extras: &[Slot],
) -> Option<Wire> {
    let mut known: HashSet<Wire> = inputs.iter().copied().collect();
    let mut bad = None;
    let mut check = |w: Wire, known: &HashSet<Wire>| {
        if !known.contains(&w) {
            bad.get_or_insert(w);
        }
    };
    let mut b = 0;
    for (i, g) in frame.gates.iter().enumerate() {
        while b < frame.blocks.len() && frame.blocks[b].position == i {
            let block = &frame.blocks[b];
            block.shared.iter().for_each(|&w| check(w, &known));
            block.carried.iter().for_each(|c| check(c.init, &known));
            block_writes(block, &mut |w| {
                known.insert(w);
            });
            b += 1;
        }
        g.inputs().for_each(|w| check(w, &known));
        known.insert(g.out());
    }
    for block in &frame.blocks[b..] {
        block.shared.iter().for_each(|&w| check(w, &known));
        block_writes(block, &mut |w| {
            known.insert(w);
        });
    }
    for v in writes.iter().map(|w| &w.value).chain(extras) {
        v.for_each_bit(&mut |bit| {
            if let Bit::Wire(w) = bit {
                check(w, &known);
            }
        });
    }
    bad
}

/// Calls `add` on the frame wires a block writes.
pub(super) fn block_writes(block: &twofold_circuit::PendingBlock, add: &mut impl FnMut(Wire)) {
    block.outputs.for_all(block.count, &mut *add);
    block.carried.iter().filter_map(|c| c.last).for_each(add);
}
