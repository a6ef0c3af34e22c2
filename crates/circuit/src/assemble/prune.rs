//! Dropping what a block computes that nothing reads: output positions no
//! iteration's value of is read, and carried values that neither the last
//! iteration's readers nor any live value of a later iteration needs (a
//! 64-bit chain of which only bit 0 is read after the loop keeps only what
//! bit 0 depends on). Unrolled, dead-gate removal finds the same.

use super::{PendingBlock, RawFrame};
use crate::gate::{Gate, Wire};
use crate::program::{Block, Body, Carried};
use crate::wiring::Wiring;
use crate::CircuitError;

/// `block` without the output positions `live_out` marks dead and the
/// carried values not needed when only those of `live_last` are read after
/// it; `None` if everything is needed.
pub fn prune(
    block: &PendingBlock,
    live_out: &[bool],
    live_last: &[bool],
) -> Result<Option<PendingBlock>, CircuitError> {
    let next_slots: Vec<Wire> = block.carried.iter().map(|c| c.next).collect();
    let ssa = Ssa::of(&block.body, &next_slots);
    let (shared, carried) = (block.shared.len(), block.carried.len());
    // Carried values needed: read after the loop, or by a live value of a
    // later iteration (to a fixed point).
    let mut needed: Vec<bool> = live_last.to_vec();
    loop {
        let mut roots = kept(&ssa.outputs, live_out);
        roots.extend(kept(&ssa.next, &needed));
        let live = ssa.frame.live_from(&roots);
        let mut grew = false;
        for (n, w) in needed.iter_mut().zip(&ssa.inputs[shared..shared + carried]) {
            if !*n && live.contains(w) {
                *n = true;
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    if needed.iter().all(|&n| n) && live_out.iter().all(|&l| l) {
        return Ok(None);
    }
    let inputs: Vec<Wire> = ssa
        .inputs
        .iter()
        .enumerate()
        .filter(|&(i, _)| i < shared || i >= shared + carried || needed[i - shared])
        .map(|(_, &w)| w)
        .collect();
    let (outputs, next) = (kept(&ssa.outputs, live_out), kept(&ssa.next, &needed));
    let (body, next) = ssa.frame.into_body(&inputs, &outputs, &next)?;
    let carried_values = block
        .carried
        .iter()
        .zip(&needed)
        .filter(|(_, &n)| n)
        .zip(next)
        .map(|((c, _), next)| Carried {
            init: c.init,
            next,
            last: c.last,
        })
        .collect();
    let width = block.outputs.width();
    let kept = live_out.iter().filter(|&&l| l).count();
    let mut table = Vec::with_capacity(block.count as usize * kept);
    for k in 0..block.count {
        block.outputs.for_each(k, |j, w| {
            if live_out[j] {
                table.push(w);
            }
        });
    }
    debug_assert_eq!(live_out.len(), width);
    Ok(Some(PendingBlock {
        position: block.position,
        count: block.count,
        parallel: block.parallel,
        body,
        shared: block.shared.clone(),
        carried: carried_values,
        inputs: block.inputs.clone(),
        outputs: Wiring::compress(block.count as usize, kept, &table),
    }))
}

/// The items of `all` that `keep` marks.
fn kept<T: Copy>(all: &[T], keep: &[bool]) -> Vec<T> {
    all.iter()
        .zip(keep)
        .filter(|(_, &k)| k)
        .map(|(&x, _)| x)
        .collect()
}

/// A body in single assignment: every value a wire of its own.
struct Ssa {
    frame: RawFrame,
    /// The wires of the body's inputs, in order.
    inputs: Vec<Wire>,
    /// The wires of its outputs, in order.
    outputs: Vec<Wire>,
    /// The wires of its carried values' `next`, in order.
    next: Vec<Wire>,
}

impl Ssa {
    /// `body` with every value given a wire of its own; `next` are the
    /// body wires its block's carried values leave.
    fn of(body: &Body, next: &[Wire]) -> Ssa {
        let circuit = &body.circuit;
        let mut fresh: Wire = 0;
        let mut new = || {
            fresh += 1;
            fresh - 1
        };
        let mut at: Vec<Wire> = vec![Wire::MAX; circuit.num_wires as usize];
        let inputs: Vec<Wire> = (0..circuit.input_bits())
            .map(|i| {
                let w = new();
                at[i] = w;
                w
            })
            .collect();
        let mut gates = Vec::with_capacity(circuit.gates.len());
        let mut blocks = Vec::with_capacity(body.blocks.len());
        let mut g = 0;
        let place =
            |block: &Block, gates_len: usize, at: &mut Vec<Wire>, new: &mut dyn FnMut() -> Wire| {
                let read = |w: Wire, at: &Vec<Wire>| at[w as usize];
                let mut inputs = Vec::with_capacity(block.count as usize * block.inputs.width());
                for k in 0..block.count {
                    block.inputs.for_each(k, |_, w| inputs.push(read(w, at)));
                }
                let width = block.outputs.width();
                let mut outputs = Vec::with_capacity(block.count as usize * width);
                for k in 0..block.count {
                    block.outputs.for_each(k, |_, w| {
                        let n = new();
                        at[w as usize] = n;
                        outputs.push(n);
                    });
                }
                let carried = block
                    .carried
                    .iter()
                    .map(|c| Carried {
                        init: read(c.init, at),
                        next: c.next,
                        last: c.last.map(|w| {
                            let n = new();
                            at[w as usize] = n;
                            n
                        }),
                    })
                    .collect();
                PendingBlock {
                    position: gates_len,
                    count: block.count,
                    parallel: block.parallel,
                    body: block.body.clone(),
                    shared: block.shared.iter().map(|&w| read(w, at)).collect(),
                    carried,
                    inputs: Wiring::compress(block.count as usize, block.inputs.width(), &inputs),
                    outputs: Wiring::compress(block.count as usize, width, &outputs),
                }
            };
        for block in &body.blocks {
            while g < block.position {
                gates.push(rename(circuit.gates[g], &mut at, &mut new));
                g += 1;
            }
            blocks.push(place(block, gates.len(), &mut at, &mut new));
        }
        while g < circuit.gates.len() {
            gates.push(rename(circuit.gates[g], &mut at, &mut new));
            g += 1;
        }
        let outputs = circuit
            .outputs
            .iter()
            .flat_map(|v| v.wires.iter().map(|&w| at[w as usize]))
            .collect();
        let next = next.iter().map(|&w| at[w as usize]).collect();
        Ssa {
            frame: RawFrame { gates, blocks },
            inputs,
            outputs,
            next,
        }
    }
}

/// `g` reading the current wires of its inputs, writing a wire of its own.
fn rename(g: Gate, at: &mut [Wire], new: &mut impl FnMut() -> Wire) -> Gate {
    let out = new();
    let renamed = g.rewire(|w| at[w as usize], out);
    at[g.out() as usize] = out;
    renamed
}
