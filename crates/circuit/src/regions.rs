//! Turning proposed parallel loops into SIMD regions, after checking them on
//! the circuit graph: the source proposes, the graph decides.
//!
//! A proposal is the gate range of every iteration of a loop, in a circuit in
//! single assignment. It is accepted when
//! 1. every iteration reads only wires made before the loop or inside itself
//!    (so no instance depends on another), and
//! 2. every iteration is the same circuit up to which outer wires it reads
//!    (so the body can be stored once).
//!
//! The body's inputs are the outer wires every instance reads alike (shared)
//! followed by the rest (dedicated, one set per instance); its outputs are the
//! wires of an iteration read after the loop or as program outputs.

use std::collections::HashMap;
use std::ops::Range;

use crate::circuit::{Circuit, InputValue, OutputValue, Party};
use crate::gate::{Gate, Wire};
use crate::program::{Block, Program};

/// What became of a proposed parallel loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegionVerdict {
    /// It is a region.
    Accepted {
        /// Iterations, run as instances.
        instances: usize,
        /// AND gates of the body.
        and_gates_per_instance: usize,
    },
    /// It stays in the main circuit, for this reason.
    Rejected(String),
}

/// One iteration in canonical form: its gates over local wire names (outer
/// inputs `0..k` by first use, then its own gates' outputs), and which outer
/// wires the inputs are.
struct Iteration {
    gates: Vec<Gate>,
    inputs: Vec<Wire>,
}

/// One instance of an accepted loop: the wires it reads (its dedicated
/// inputs) and the wires its outputs go to.
#[derive(Clone)]
struct RegionInstance {
    inputs: Vec<Wire>,
    outputs: Vec<Wire>,
}

/// An accepted loop, before it is placed in the main circuit.
#[derive(Clone)]
struct Region {
    body: Circuit,
    shared: Vec<Wire>,
    instances: Vec<RegionInstance>,
}

impl Region {
    /// The block this region becomes at `position` of the main circuit.
    fn into_block(self, position: usize) -> Block {
        let instances: Vec<(Vec<Wire>, Vec<Wire>)> = self
            .instances
            .into_iter()
            .map(|i| (i.inputs, i.outputs))
            .collect();
        Block::parallel(position, self.body, self.shared, &instances)
    }
}

/// An accepted proposal.
struct Accepted {
    range: Range<usize>,
    region: Region,
}

/// Splits the proposals of `circuit` (single assignment, inputs at `0..n`)
/// into regions and a main circuit; returns the program and a verdict per
/// proposal.
pub(crate) fn extract_regions(
    circuit: Circuit,
    proposals: &[Vec<Range<usize>>],
) -> (Program, Vec<RegionVerdict>) {
    let mut def = vec![usize::MAX; circuit.num_wires as usize];
    for (i, g) in circuit.gates.iter().enumerate() {
        def[g.out() as usize] = i;
    }
    // Gate index of the last reader of each wire (outputs read at the end).
    let mut last_read = vec![0usize; circuit.num_wires as usize];
    for (i, g) in circuit.gates.iter().enumerate() {
        for w in g.inputs() {
            last_read[w as usize] = i;
        }
    }
    for w in circuit.output_wires() {
        last_read[w as usize] = usize::MAX;
    }
    let mut verdicts = Vec::new();
    let mut accepted: Vec<Accepted> = Vec::new();
    for iterations in proposals {
        match check(&circuit, &def, &last_read, iterations) {
            Ok(region) => {
                verdicts.push(RegionVerdict::Accepted {
                    instances: region.instances.len(),
                    and_gates_per_instance: region.body.and_count(),
                });
                let range = iterations[0].start..iterations[iterations.len() - 1].end;
                accepted.push(Accepted { range, region });
            }
            Err(why) => verdicts.push(RegionVerdict::Rejected(why)),
        }
    }
    if accepted.is_empty() {
        return (Program::from(circuit.compact()), verdicts);
    }
    (assemble(circuit, accepted), verdicts)
}

/// Checks one proposal; the region it gives (instance wires in `circuit`'s
/// numbering).
fn check(
    circuit: &Circuit,
    def: &[usize],
    last_read: &[usize],
    iterations: &[Range<usize>],
) -> Result<Region, String> {
    if iterations.len() < 2 {
        return Err("fewer than two iterations".into());
    }
    let loop_start = iterations[0].start;
    let loop_end = iterations[iterations.len() - 1].end;
    let mut canonical = Vec::with_capacity(iterations.len());
    for (k, range) in iterations.iter().enumerate() {
        let mut local: HashMap<Wire, Wire> = HashMap::new();
        let mut inputs = Vec::new();
        let mut gates = Vec::with_capacity(range.len());
        for (j, g) in circuit.gates[range.clone()].iter().enumerate() {
            let mut name = |w: Wire| -> Result<Wire, String> {
                if let Some(&l) = local.get(&w) {
                    return Ok(l);
                }
                let d = def[w as usize];
                if d != usize::MAX && d >= loop_start {
                    return Err(format!("iteration {k} reads a wire of another iteration"));
                }
                inputs.push(w);
                let l = (inputs.len() - 1) as Wire;
                local.insert(w, l);
                Ok(l)
            };
            let renamed = match *g {
                Gate::Xor { a, b, .. } => Gate::Xor {
                    a: name(a)?,
                    b: name(b)?,
                    out: 0,
                },
                Gate::And { a, b, .. } => Gate::And {
                    a: name(a)?,
                    b: name(b)?,
                    out: 0,
                },
                Gate::Inv { a, .. } => Gate::Inv {
                    a: name(a)?,
                    out: 0,
                },
            };
            // Outputs are named after the gate: inputs get small numbers,
            // gates `OUT + j` (resolved when the input count is known).
            local.insert(g.out(), OUT + j as Wire);
            gates.push(renamed.rewire(|w| w, OUT + j as Wire));
        }
        canonical.push(Iteration { gates, inputs });
    }
    let first = &canonical[0];
    if canonical
        .iter()
        .any(|it| it.gates != first.gates || it.inputs.len() != first.inputs.len())
    {
        return Err("the iterations do not give the same circuit".into());
    }
    // Outputs: gate positions whose wire is read after the loop in any
    // iteration.
    let n_gates = first.gates.len();
    let outputs: Vec<usize> = (0..n_gates)
        .filter(|&j| {
            iterations.iter().any(|r| {
                let w = circuit.gates[r.start + j].out() as usize;
                last_read[w] >= loop_end
            })
        })
        .collect();
    if outputs.is_empty() {
        return Err("the iterations compute nothing used after the loop".into());
    }
    // Shared inputs: positions where every instance reads the same wire.
    let k = first.inputs.len();
    let shared_pos: Vec<usize> = (0..k)
        .filter(|&p| canonical.iter().all(|it| it.inputs[p] == first.inputs[p]))
        .collect();
    let dedicated_pos: Vec<usize> = (0..k).filter(|p| !shared_pos.contains(p)).collect();
    // Body wires: inputs in (shared, dedicated) order, then one per gate.
    let mut slot = vec![0 as Wire; k];
    for (i, &p) in shared_pos.iter().chain(&dedicated_pos).enumerate() {
        slot[p] = i as Wire;
    }
    let body_wire = |w: Wire| {
        if w >= OUT {
            k as Wire + (w - OUT)
        } else {
            slot[w as usize]
        }
    };
    let body = Circuit {
        num_wires: (k + n_gates) as Wire,
        inputs: vec![
            InputValue {
                name: "shared".into(),
                party: Party::A,
                width: shared_pos.len() as u32,
            },
            InputValue {
                name: "dedicated".into(),
                party: Party::A,
                width: dedicated_pos.len() as u32,
            },
        ],
        outputs: vec![OutputValue {
            name: "out".into(),
            wires: outputs.iter().map(|&j| (k + j) as Wire).collect(),
        }],
        gates: first
            .gates
            .iter()
            .map(|g| g.rewire(body_wire, body_wire(g.out())))
            .collect(),
    };
    let instances = canonical
        .iter()
        .zip(iterations)
        .map(|(it, r)| RegionInstance {
            inputs: dedicated_pos.iter().map(|&p| it.inputs[p]).collect(),
            outputs: outputs
                .iter()
                .map(|&j| circuit.gates[r.start + j].out())
                .collect(),
        })
        .collect();
    Ok(Region {
        body: body.compact(),
        shared: shared_pos.iter().map(|&p| first.inputs[p]).collect(),
        instances,
    })
}

/// Local names of an iteration's own wires start here (inputs are below).
const OUT: Wire = 1 << 31;

/// The main circuit without the accepted loops' gates, its wires renumbered
/// densely (inputs first) and dead gates removed, with the regions in place.
fn assemble(circuit: Circuit, mut accepted: Vec<Accepted>) -> Program {
    accepted.sort_by_key(|a| a.range.start);
    let in_region = |i: usize| accepted.iter().any(|a| a.range.contains(&i));
    // Liveness backwards over main gates and regions.
    let mut needed = vec![false; circuit.num_wires as usize];
    for w in circuit.output_wires() {
        needed[w as usize] = true;
    }
    let mut keep = vec![false; circuit.gates.len()];
    let mut next_region = accepted.len();
    for i in (0..circuit.gates.len()).rev() {
        while next_region > 0 && accepted[next_region - 1].range.start > i {
            next_region -= 1;
            mark_region(&accepted[next_region].region, &mut needed);
        }
        if in_region(i) {
            continue;
        }
        let g = circuit.gates[i];
        if needed[g.out() as usize] {
            keep[i] = true;
            for w in g.inputs() {
                needed[w as usize] = true;
            }
        }
    }
    while next_region > 0 {
        next_region -= 1;
        mark_region(&accepted[next_region].region, &mut needed);
    }
    // Dense renumbering: inputs, then main gate outputs and region outputs in
    // order of definition.
    let input_bits = circuit.input_bits() as Wire;
    let mut map = vec![Wire::MAX; circuit.num_wires as usize];
    for w in 0..input_bits {
        map[w as usize] = w;
    }
    let mut next = input_bits;
    let mut gates = Vec::new();
    let mut regions = Vec::new();
    let mut r = 0;
    let mut i = 0;
    while i < circuit.gates.len() {
        if r < accepted.len() && accepted[r].range.start == i {
            let mut region = accepted[r].region.clone();
            for w in region.shared.iter_mut() {
                *w = map[*w as usize];
            }
            for inst in region.instances.iter_mut() {
                for w in inst.inputs.iter_mut() {
                    *w = map[*w as usize];
                }
                for w in inst.outputs.iter_mut() {
                    map[*w as usize] = next;
                    *w = next;
                    next += 1;
                }
            }
            regions.push(region.into_block(gates.len()));
            i = accepted[r].range.end;
            r += 1;
            continue;
        }
        if keep[i] {
            let g = circuit.gates[i];
            map[g.out() as usize] = next;
            gates.push(g.rewire(|w| map[w as usize], next));
            next += 1;
        }
        i += 1;
    }
    let outputs = circuit
        .outputs
        .iter()
        .map(|v| OutputValue {
            name: v.name.clone(),
            wires: v.wires.iter().map(|&w| map[w as usize]).collect(),
        })
        .collect();
    Program {
        main: Circuit {
            num_wires: next,
            inputs: circuit.inputs,
            outputs,
            gates,
        },
        blocks: regions,
    }
}

/// Marks the wires a region reads as needed.
fn mark_region(region: &Region, needed: &mut [bool]) {
    for &w in region
        .shared
        .iter()
        .chain(region.instances.iter().flat_map(|i| i.inputs.iter()))
    {
        needed[w as usize] = true;
    }
}
