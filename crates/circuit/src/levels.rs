//! AND-depth analysis, level ordering and circuit statistics.

use crate::circuit::Circuit;
use crate::gate::Gate;

/// The level of every gate: `level(AND) = 1 + max(level(inputs))`,
/// `level(XOR/INV) = max(level(inputs))`, inputs are level 0.
pub fn gate_levels(circuit: &Circuit) -> Vec<u32> {
    let mut wire_level = vec![0u32; circuit.num_wires as usize];
    circuit
        .gates
        .iter()
        .map(|g| {
            let input_level = g
                .inputs()
                .map(|w| wire_level[w as usize])
                .max()
                .unwrap_or(0);
            let level = input_level + g.is_and() as u32;
            wire_level[g.out() as usize] = level;
            level
        })
        .collect()
}

impl Circuit {
    /// The same function with gates reordered by (level, AND first): every
    /// maximal run of consecutive AND gates is then a set of independent gates
    /// (one AND level), which is what the garbling engine batches. Wires are
    /// compacted afterwards; a circuit already in level order is returned as
    /// it is.
    pub fn levelize(&self) -> Circuit {
        // Already in level order (e.g. generated that way): nothing to do,
        // and no copies of a large circuit to hold.
        let levels = gate_levels(self);
        if self.in_order(&levels) {
            return self.clone();
        }
        // Single assignment keeps the levels: a gate's level does not depend
        // on which slots hold its inputs.
        let mut ssa = self.ssa();
        let mut order: Vec<u32> = (0..ssa.gates.len() as u32).collect();
        order.sort_by_key(|&i| (levels[i as usize], !ssa.gates[i as usize].is_and()));
        drop(levels);
        let gates = order.iter().map(|&i| ssa.gates[i as usize]).collect();
        drop(order);
        ssa.gates = gates;
        ssa.compact_ssa()
    }
}

impl Circuit {
    /// Whether the gates are sorted by (level, AND first), as
    /// [`Circuit::levelize`] sorts them.
    pub fn is_level_ordered(&self) -> bool {
        self.in_order(&gate_levels(self))
    }

    fn in_order(&self, levels: &[u32]) -> bool {
        let key = |i: usize| (levels[i], !self.gates[i].is_and());
        (1..self.gates.len()).all(|i| key(i - 1) <= key(i))
    }
}

/// Size and shape of a circuit, as printed by `twofold stats`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CircuitStats {
    /// All gates.
    pub gates: usize,
    /// AND gates (the ones that cost).
    pub and_gates: usize,
    /// XOR gates.
    pub xor_gates: usize,
    /// INV gates.
    pub inv_gates: usize,
    /// Wire slots.
    pub wires: usize,
    /// AND depth (number of AND levels).
    pub and_depth: usize,
    /// AND gates on each level, level 1 first.
    pub ands_per_level: Vec<usize>,
    /// Input value widths.
    pub input_widths: Vec<u32>,
    /// Output value widths.
    pub output_widths: Vec<u32>,
}

impl CircuitStats {
    /// Computes the statistics of `circuit`.
    pub fn of(circuit: &Circuit) -> CircuitStats {
        let levels = gate_levels(circuit);
        let and_depth = levels.iter().copied().max().unwrap_or(0) as usize;
        let mut ands_per_level = vec![0usize; and_depth];
        let (mut and_gates, mut xor_gates, mut inv_gates) = (0, 0, 0);
        for (g, &l) in circuit.gates.iter().zip(&levels) {
            match g {
                Gate::And { .. } => {
                    and_gates += 1;
                    ands_per_level[l as usize - 1] += 1;
                }
                Gate::Xor { .. } => xor_gates += 1,
                Gate::Inv { .. } => inv_gates += 1,
            }
        }
        CircuitStats {
            gates: circuit.gates.len(),
            and_gates,
            xor_gates,
            inv_gates,
            wires: circuit.num_wires as usize,
            and_depth,
            ands_per_level,
            input_widths: circuit.inputs.iter().map(|v| v.width).collect(),
            output_widths: circuit
                .outputs
                .iter()
                .map(|v| v.wires.len() as u32)
                .collect(),
        }
    }

    /// Median number of AND gates per level (0 for a circuit without ANDs).
    pub fn median_ands_per_level(&self) -> usize {
        let mut sorted = self.ands_per_level.clone();
        sorted.sort_unstable();
        match sorted.len() {
            0 => 0,
            n if n % 2 == 1 => sorted[n / 2],
            n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2,
        }
    }

    /// Largest number of AND gates on one level.
    pub fn max_ands_per_level(&self) -> usize {
        self.ands_per_level.iter().copied().max().unwrap_or(0)
    }
}
