//! A frame without blocks made a circuit in single assignment, the form
//! levelling works on (see [`Circuit::levelize_ssa`]): its inputs at wires
//! `0..n` in order, then the gates whose value reaches an output, in the
//! order made, gate `k` writing wire `n + k`. Levelling then compacts the
//! wires once; assembling them into reused slots first (as a frame with
//! blocks is) only to renumber them again took a second of a 40 M-gate
//! frame.

use super::{WireMap, NONE};
use crate::bits::Bits;
use crate::circuit::{Circuit, InputValue, OutputValue};
use crate::gate::{Gate, Wire};
use crate::CircuitError;

/// The wires `lo..hi` with the outputs' marked read: where the pass
/// backwards over a frame's gates that finds the values read starts.
pub(crate) fn outputs_read(lo: Wire, hi: Wire, outputs: &[(String, Vec<Wire>)]) -> Bits {
    let mut read = Bits::new((hi - lo) as usize);
    for (_, wires) in outputs {
        wires
            .iter()
            .for_each(|&w| _ = read.insert((w - lo) as usize));
    }
    read
}

/// The circuit in single assignment (see the module docs) of the `gates`
/// of a frame without blocks (in single assignment over builder-wide wire
/// numbers `lo..hi`, in the order made), with `inputs` and `outputs` given
/// by their wires, and `read` flagging the wires read (indexed from `lo`;
/// the gates writing others are left out). Every wire read must be an
/// input's or a gate's.
pub(crate) fn single_assignment(
    mut gates: Vec<Gate>,
    read: &Bits,
    lo: Wire,
    hi: Wire,
    inputs: Vec<(InputValue, Vec<Wire>)>,
    outputs: Vec<(String, Vec<Wire>)>,
) -> Result<Circuit, CircuitError> {
    let mut at = WireMap::new(lo, hi);
    let mut next: Wire = 0;
    for (_, wires) in &inputs {
        for &w in wires {
            if !at.set_if_none(w, next) {
                return Err(CircuitError::Invalid(format!("wire {w} is two inputs")));
            }
            next += 1;
        }
    }
    let unwritten = |w: Wire| CircuitError::Invalid(format!("wire {w} is read but never written"));
    let mut kept = 0;
    for i in 0..gates.len() {
        let g = gates[i];
        if !read.get((g.out() - lo) as usize) {
            continue;
        }
        if let Some(w) = g.inputs().find(|&w| at.get(w).is_none()) {
            return Err(unwritten(w));
        }
        gates[kept] = g.rewire(|w| at.get(w).unwrap_or(NONE), next);
        at.set(g.out(), next);
        next += 1;
        kept += 1;
    }
    gates.truncate(kept);
    let outputs = outputs
        .into_iter()
        .map(|(name, wires)| {
            let wires = wires.iter().map(|&w| at.get(w).ok_or_else(|| unwritten(w)));
            Ok(OutputValue {
                name,
                wires: wires.collect::<Result<_, _>>()?,
            })
        })
        .collect::<Result<Vec<_>, CircuitError>>()?;
    Ok(Circuit {
        num_wires: next,
        inputs: inputs.into_iter().map(|(v, _)| v).collect(),
        outputs,
        gates,
    })
}

/// The circuit of `gates` already in single assignment (gate `k` writes
/// wire `n + k`, the inputs' wires are `0..n` in order, every gate reads
/// only wires before its own), gates nothing reads included.
pub(crate) fn in_single_assignment(
    gates: Vec<Gate>,
    inputs: Vec<(InputValue, Vec<Wire>)>,
    outputs: Vec<(String, Vec<Wire>)>,
) -> Circuit {
    let input_bits: usize = inputs.iter().map(|(_, w)| w.len()).sum();
    let num_wires = (input_bits + gates.len()) as Wire;
    debug_assert!((gates.iter().enumerate())
        .all(|(k, g)| g.out() as usize == input_bits + k && g.inputs().all(|w| w < g.out())));
    let outputs = outputs
        .into_iter()
        .map(|(name, wires)| {
            assert!(
                wires.iter().all(|&w| w < num_wires),
                "outputs are wires made"
            );
            OutputValue { name, wires }
        })
        .collect();
    Circuit {
        num_wires,
        inputs: inputs.into_iter().map(|(v, _)| v).collect(),
        outputs,
        gates,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::circuit::Party;

    /// [`single_assignment`] of gates over the wires they mention, the
    /// values read found by a pass backwards.
    fn single_assignment(
        gates: Vec<Gate>,
        inputs: Vec<(InputValue, Vec<Wire>)>,
        outputs: Vec<(String, Vec<Wire>)>,
    ) -> Result<Circuit, CircuitError> {
        let (lo, hi) = span(&gates, &inputs, &outputs);
        let mut read = outputs_read(lo, hi, &outputs);
        for g in gates.iter().rev() {
            if read.get((g.out() - lo) as usize) {
                g.inputs().for_each(|w| _ = read.insert((w - lo) as usize));
            }
        }
        super::single_assignment(gates, &read, lo, hi, inputs, outputs)
    }

    /// The range `lo..hi` of the wire numbers the frame mentions.
    fn span(
        gates: &[Gate],
        inputs: &[(InputValue, Vec<Wire>)],
        outputs: &[(String, Vec<Wire>)],
    ) -> (Wire, Wire) {
        let values = inputs
            .iter()
            .map(|(_, w)| w)
            .chain(outputs.iter().map(|(_, w)| w));
        let named = values.flatten().copied();
        let gate_wires = gates.iter().flat_map(|g| g.inputs().chain([g.out()]));
        let (lo, hi) = named
            .chain(gate_wires)
            .fold((Wire::MAX, 0), |(lo, hi), w| (lo.min(w), hi.max(w + 1)));
        (lo.min(hi), hi)
    }

    fn input(name: &str, wires: Vec<Wire>) -> (InputValue, Vec<Wire>) {
        let value = InputValue {
            name: name.into(),
            party: Party::A,
            width: wires.len() as u32,
        };
        (value, wires)
    }

    /// Inputs become wires `0..n` in their order, whatever wires the
    /// builder gave them; gates read are renumbered after them in order,
    /// across gaps in the numbering; a gate whose value is not read goes.
    #[test]
    fn renumbers_inputs_then_the_gates_read() {
        let gates = vec![
            Gate::And {
                a: 7,
                b: 3,
                out: 10,
            },
            Gate::Xor {
                a: 3,
                b: 7,
                out: 11,
            },
            Gate::Inv { a: 10, out: 20 },
            Gate::Xor {
                a: 20,
                b: 5,
                out: 21,
            },
        ];
        let inputs = vec![input("x", vec![7, 3]), input("y", vec![5])];
        let c = single_assignment(gates, inputs, vec![("z".into(), vec![21, 7])]).unwrap();
        assert_eq!(
            c.gates,
            vec![
                Gate::And { a: 0, b: 1, out: 3 },
                Gate::Inv { a: 3, out: 4 },
                Gate::Xor { a: 4, b: 2, out: 5 },
            ]
        );
        assert_eq!(c.num_wires, 6);
        assert_eq!(c.outputs[0].wires, vec![5, 0]);
        c.validate().unwrap();
    }

    /// A wire read that nothing writes, and a wire that is two inputs, are
    /// errors.
    #[test]
    fn refuses_unwritten_and_doubled_wires() {
        let read = vec![Gate::And {
            a: 1,
            b: 9,
            out: 10,
        }];
        let e = single_assignment(
            read,
            vec![input("x", vec![1])],
            vec![("z".into(), vec![10])],
        );
        assert!(e
            .unwrap_err()
            .to_string()
            .contains("wire 9 is read but never written"));
        let e = single_assignment(
            Vec::new(),
            vec![input("x", vec![1])],
            vec![("z".into(), vec![4])],
        );
        assert!(e
            .unwrap_err()
            .to_string()
            .contains("wire 4 is read but never written"));
        let twice = vec![input("x", vec![1, 2]), input("y", vec![2])];
        let e = single_assignment(Vec::new(), twice, vec![("z".into(), vec![1])]);
        assert!(e.unwrap_err().to_string().contains("wire 2 is two inputs"));
    }
}
