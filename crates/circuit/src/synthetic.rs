//! Synthetic circuits for benchmarks: layered random circuits of a given
//! width and depth, and programs that repeat a body as a SIMD region so that
//! billions of gates run from a few megabytes of circuit.

use crate::circuit::{Circuit, InputValue, OutputValue, Party};
use crate::gate::{Gate, Wire};
use crate::program::{Block, Body, Program};
use crate::wiring::{Segment, Wiring};

/// A small deterministic generator (SplitMix64): synthetic circuits must be
/// the same on both parties, so they come from a public seed.
pub(crate) struct SplitMix(pub(crate) u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(crate) fn below(&mut self, n: u32) -> u32 {
        (((self.next() >> 32) * n as u64) >> 32) as u32
    }
}

/// The inputs of the synthetic circuits: `io` bits, A's value `a` of
/// `io / 2` of them and B's value `b` of the rest.
fn two_inputs(io: u32) -> Vec<InputValue> {
    vec![
        InputValue {
            name: "a".into(),
            party: Party::A,
            width: io / 2,
        },
        InputValue {
            name: "b".into(),
            party: Party::B,
            width: io - io / 2,
        },
    ]
}

/// The circuit of `gates` over `num_wires` single-assignment wires with
/// `inputs` and one output `out` of `wires`, compacted (slots reused,
/// dead gates dropped).
fn single_output(
    num_wires: Wire,
    inputs: Vec<InputValue>,
    gates: Vec<Gate>,
    wires: Vec<Wire>,
) -> Circuit {
    let circuit = Circuit {
        num_wires,
        inputs,
        outputs: vec![OutputValue {
            name: "out".into(),
            wires,
        }],
        gates,
    };
    circuit.compact()
}

/// A layered random circuit: `depth` layers of `width` AND gates (each AND
/// reads two random wires of the previous layer), each followed by `width`
/// XORs mixing the new layer with the previous one so the function does not
/// collapse. Inputs: two values of `io / 2` bits (A's `a`, B's `b`); output:
/// the first `io` wires of the last layer.
pub fn layered(width: u32, depth: u32, io: u32, seed: u64) -> Circuit {
    let width = width.max(2);
    let io = io.clamp(2, width);
    let mut rng = SplitMix(seed);
    let inputs = two_inputs(io);
    // Single assignment: the input layer is wires 0..io, each AND layer and
    // each XOR layer a fresh band; `compact` then reuses slots.
    let mut gates = Vec::with_capacity(2 * (width as usize) * depth as usize);
    let (mut layer, mut layer_width): (Wire, Wire) = (0, io);
    let mut next = io;
    for _ in 0..depth {
        let ands = next;
        for k in 0..width {
            let a = layer + rng.below(layer_width);
            let b = layer + rng.below(layer_width);
            gates.push(Gate::And {
                a,
                b,
                out: ands + k,
            });
        }
        let out = ands + width;
        for k in 0..width {
            gates.push(Gate::Xor {
                a: ands + k,
                b: layer + k % layer_width,
                out: out + k,
            });
        }
        (layer, layer_width) = (out, width);
        next = out + width;
    }
    single_output(next, inputs, gates, (layer..layer + io).collect())
}

/// One AND level of `width` gates, each reading two random bits of the
/// `io` input bits (A's `a`, B's `b`), folded by XOR chains into `io`
/// output bits (output `k` is the XOR of the ANDs `k`, `k + io`, …): every
/// AND is live, so the level stays whole however few the inputs and
/// outputs (a level wider than a frame of tables, say).
pub fn wide_level(width: u32, io: u32, seed: u64) -> Circuit {
    folded_levels(&[width], io, seed)
}

/// AND levels of `widths` gates, each AND reading two random bits of the
/// level before (the first level, of the `io` input bits), each level
/// folded right after it by XOR chains into `io` output bits as
/// [`wide_level`] folds its one (the ANDs numbered across levels): every
/// AND is live, whatever the widths (a narrow level between wide ones
/// stays narrow), and the XORs part the levels' AND runs.
pub fn folded_levels(widths: &[u32], io: u32, seed: u64) -> Circuit {
    let io = io.max(2);
    let mut rng = SplitMix(seed);
    let inputs = two_inputs(io);
    let total: u32 = widths.iter().sum();
    let mut gates = Vec::with_capacity(2 * total as usize);
    // The level read from: its first wire and width.
    let (mut from, mut from_width) = (0, io);
    let mut next = io;
    // acc[k] holds the XOR so far of output k's ANDs; `ands` counts them.
    let mut acc: Vec<Option<Wire>> = vec![None; io as usize];
    let mut ands = 0;
    for &width in widths {
        let level = next;
        next += width;
        for k in 0..width {
            gates.push(Gate::And {
                a: from + rng.below(from_width),
                b: from + rng.below(from_width),
                out: level + k,
            });
        }
        for k in 0..width {
            let o = &mut acc[(ands % io) as usize];
            ands += 1;
            *o = Some(match *o {
                None => level + k,
                Some(sum) => {
                    gates.push(Gate::Xor {
                        a: sum,
                        b: level + k,
                        out: next,
                    });
                    next += 1;
                    next - 1
                }
            });
        }
        if width > 0 {
            (from, from_width) = (level, width);
        }
    }
    // Outputs with no AND of their own (fewer ANDs than outputs) repeat
    // the last.
    let last = (next - 1).max(io);
    let outputs = acc.into_iter().map(|o| o.unwrap_or(last)).collect();
    single_output(next, inputs, gates, outputs)
}

/// `n` independent chains of `len` gates each, built step by step across
/// the chains (AND with a bit of B's `b`, then XOR with another, by
/// turns), from A's `a` (`n` bits each party): many ANDs and none in a
/// long run once `n` is below the split threshold — what an unrolled loop
/// of independent iterations, levelled in windows, looks like to FGP.
/// Output: the chains' ends.
pub fn chains(n: u32, len: u32) -> Circuit {
    let n = n.max(1);
    let inputs = two_inputs(2 * n);
    let mut gates = Vec::with_capacity((n * len) as usize);
    let mut ends: Vec<Wire> = (0..n).collect();
    let mut next = 2 * n;
    for i in 0..len {
        for (c, end) in ends.iter_mut().enumerate() {
            let c = c as u32;
            let gate = if i % 2 == 0 {
                Gate::And {
                    a: *end,
                    b: n + c,
                    out: next,
                }
            } else {
                Gate::Xor {
                    a: *end,
                    b: n + (c + i) % n,
                    out: next,
                }
            };
            gates.push(gate);
            *end = next;
            next += 1;
        }
    }
    single_output(next, inputs, gates, ends)
}

/// A program that runs `body` `instances` times as a SIMD region: every
/// instance has its own inputs (its own bits of the main inputs `a` and `b`)
/// and its outputs are XORed together into the program's output. Memory does
/// not grow with the number of instances beyond their input and output wires.
pub fn repeated(body: &Circuit, instances: u32) -> Program {
    let in_bits: Vec<u32> = body.inputs.iter().map(|v| v.width).collect();
    let body_in = body.input_bits() as u32;
    let body_out = body.output_bits() as u32;
    let main_inputs: Vec<InputValue> = body
        .inputs
        .iter()
        .map(|v| InputValue {
            name: v.name.clone(),
            party: v.party,
            width: v.width * instances,
        })
        .collect();
    let total_in = body_in * instances;
    // Main wires: inputs, then each instance's outputs, then the XOR chain.
    let outputs_at = total_in;
    let mut num_wires = outputs_at + body_out * instances;
    // Instance i takes bits [i*w, (i+1)*w) of each input value.
    let mut segments = Vec::with_capacity(in_bits.len());
    let mut value_start = 0;
    for &w in &in_bits {
        segments.push(Segment::Affine {
            len: w,
            start: value_start,
            step: w as i64,
        });
        value_start += w * instances;
    }
    let mut gates = Vec::new();
    let mut acc: Vec<Wire> = (outputs_at..outputs_at + body_out).collect();
    for i in 1..instances {
        for (k, slot) in acc.iter_mut().enumerate() {
            let out = num_wires;
            num_wires += 1;
            gates.push(Gate::Xor {
                a: *slot,
                b: outputs_at + i * body_out + k as u32,
                out,
            });
            *slot = out;
        }
    }
    Program {
        main: Circuit {
            num_wires,
            inputs: main_inputs,
            outputs: vec![OutputValue {
                name: "out".into(),
                wires: acc,
            }],
            gates,
        },
        blocks: vec![Block {
            position: 0,
            count: instances as u64,
            parallel: true,
            body: Body::from(body.clone()),
            shared: Vec::new(),
            carried: Vec::new(),
            inputs: Wiring { segments },
            outputs: Wiring {
                segments: vec![Segment::Affine {
                    len: body_out,
                    start: outputs_at,
                    step: body_out as i64,
                }],
            },
        }],
    }
}
