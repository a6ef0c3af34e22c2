//! Values one party computes alone (two parties): a word a sum reads whose
//! bits depend on one party's inputs only (`x > 100` of A's `x`) is that
//! party's share, computed in the clear from its own input bits, where it
//! would otherwise be garbled and converted. Three computing parties hold
//! every input as shares, so none can; their compilations make no such
//! inputs (see [`crate::CompileOptions::local_values`]).

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use twofold_circuit::{Bit, Gate, Wire};

use super::linear::{Holders, SHARED};
use super::partition::InputWires;

/// A word input of the mixed program that its owner computes from its own
/// C inputs: the gates of the flat program that make its bits, but for
/// those an earlier word of the same owner made (its gates may read their
/// wires: a running maximum's words share their chain of comparisons).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalInput {
    /// The input wires the gates read: C input, bit of it, and the wire.
    pub reads: Vec<(usize, u32, Wire)>,
    /// The gates, in the order the flat program made them.
    pub gates: Vec<Gate>,
    /// The word's bits (least significant first).
    pub bits: Vec<Bit>,
}

impl LocalInput {
    /// The word's bits from the C inputs' bits, if those it reads are given
    /// (its owner's are), and from `made`: the wires the owner's earlier
    /// words made (this one's are added).
    pub fn eval(
        &self,
        c_inputs: &[Option<Vec<bool>>],
        made: &mut HashMap<Wire, bool>,
    ) -> Option<Vec<bool>> {
        for &(input, bit, w) in &self.reads {
            let bits = c_inputs.get(input)?.as_ref()?;
            made.insert(w, *bits.get(bit as usize)?);
        }
        for g in &self.gates {
            let v = match *g {
                Gate::And { a, b, .. } => made.get(&a)? & made.get(&b)?,
                Gate::Xor { a, b, .. } => made.get(&a)? ^ made.get(&b)?,
                Gate::Inv { a, .. } => !made.get(&a)?,
            };
            made.insert(g.out(), v);
        }
        let bit = |b: &Bit| match *b {
            Bit::Const(c) => Some(c),
            Bit::Wire(w) => made.get(&w).copied(),
        };
        self.bits.iter().map(bit).collect()
    }
}

/// Which parties' inputs each wire of a flat program depends on (bit 0 A,
/// bit 1 B), given its inputs' wires with their holders. A wire no gate
/// writes and no input is (a sum's bits, made arithmetically) depends on
/// both.
pub(super) fn dependences(
    num_wires: Wire,
    inputs: impl Iterator<Item = (Wire, Holders)>,
    gates: &[Gate],
) -> Vec<Holders> {
    let mut on = vec![SHARED; num_wires as usize];
    for (w, h) in inputs {
        on[w as usize] = h;
    }
    for g in gates {
        on[g.out() as usize] = g.inputs().fold(0, |h, x| h | on[x as usize]);
    }
    on
}

/// The one party whose inputs alone the secret bits of `e` depend on, if
/// there is one.
pub(super) fn sole_holder(e: &[Bit], on: &[Holders]) -> Option<Holders> {
    let mut holders = e.iter().filter_map(|b| match *b {
        Bit::Wire(w) => Some(on[w as usize]),
        Bit::Const(_) => None,
    });
    let first = holders.next()?;
    (matches!(first, 1 | 2) && holders.all(|h| h == first)).then_some(first)
}

/// The gates of `gates` (a flat program's, each writing a wire of its own;
/// `made_by` maps a wire to the gate that writes it) that make `bits`,
/// reading the input wires `inputs_at` places, but for the wires in
/// `made` (by the owner's earlier words), to which the cone's are added.
pub(super) fn cone(
    bits: &[Bit],
    (gates, made_by): (&[Gate], &[u32]),
    inputs_at: &InputWires,
    made: &mut HashSet<Wire>,
) -> LocalInput {
    let mut todo: Vec<Wire> = bits
        .iter()
        .filter_map(|b| match *b {
            Bit::Wire(w) => Some(w),
            Bit::Const(_) => None,
        })
        .collect();
    let (mut taken, mut reads) = (Vec::new(), Vec::new());
    while let Some(w) = todo.pop() {
        if !made.insert(w) {
            continue;
        }
        if let Some((input, bit)) = inputs_at.get(w) {
            reads.push((input, bit, w));
            continue;
        }
        let g = made_by[w as usize];
        taken.push(g);
        todo.extend(gates[g as usize].inputs());
    }
    taken.sort_unstable();
    reads.sort_unstable();
    LocalInput {
        reads,
        gates: taken.iter().map(|&g| gates[g as usize]).collect(),
        bits: bits.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cone_computes_its_bits_from_its_owners_inputs() {
        // Wires 0, 1: A's input bits; 2: B's; 3 = 0 & 1; 4 = !3; 5 = 4 ^ 2;
        // 6: a sum's bit (no gate writes it); 7 = 6 & 0.
        let gates = [
            Gate::And { a: 0, b: 1, out: 3 },
            Gate::Inv { a: 3, out: 4 },
            Gate::Xor { a: 4, b: 2, out: 5 },
            Gate::And { a: 6, b: 0, out: 7 },
        ];
        let on = dependences(8, [(0, 1), (1, 1), (2, 2)].into_iter(), &gates);
        assert_eq!(on, vec![1, 1, 2, 1, 1, 3, 3, 3]);
        let word = [Bit::Wire(4), Bit::Const(true), Bit::Wire(3)];
        assert_eq!(sole_holder(&word, &on), Some(1));
        assert_eq!(sole_holder(&[Bit::Wire(5)], &on), None);
        assert_eq!(sole_holder(&[Bit::Const(false)], &on), None);
        let made_by = [u32::MAX, u32::MAX, u32::MAX, 0, 1, 2, u32::MAX, 3];
        let inputs_at: InputWires = [(0, (0, 0)), (1, (0, 1)), (2, (1, 0))]
            .into_iter()
            .collect();
        let local = cone(
            &word,
            (&gates, &made_by),
            &inputs_at,
            &mut HashSet::default(),
        );
        assert_eq!(local.gates, gates[..2].to_vec());
        let a = Some(vec![true, true]);
        let eval = |c: &[Option<Vec<bool>>]| local.eval(c, &mut HashMap::default());
        assert_eq!(eval(&[a, None]), Some(vec![false, true, true]));
        assert_eq!(eval(&[None, Some(vec![true])]), None);
    }

    /// A word made from an earlier word's wires takes only its own gates,
    /// and is computed after it.
    #[test]
    fn a_later_cone_reads_what_an_earlier_one_made() {
        // Wires 0, 1: A's input bits; 2 = 0 & 1; 3 = !2; 4 = 3 ^ 0.
        let gates = [
            Gate::And { a: 0, b: 1, out: 2 },
            Gate::Inv { a: 2, out: 3 },
            Gate::Xor { a: 3, b: 0, out: 4 },
        ];
        let made_by = [u32::MAX, u32::MAX, 0, 1, 2];
        let inputs_at: InputWires = [(0, (0, 0)), (1, (0, 1))].into_iter().collect();
        let mut made = HashSet::default();
        let first = cone(&[Bit::Wire(3)], (&gates, &made_by), &inputs_at, &mut made);
        let second = cone(&[Bit::Wire(4)], (&gates, &made_by), &inputs_at, &mut made);
        assert_eq!(first.gates, gates[..2].to_vec());
        assert_eq!(second.gates, gates[2..].to_vec());
        assert!(second.reads.is_empty());
        let c = [Some(vec![true, false])];
        let mut values = HashMap::default();
        assert_eq!(first.eval(&c, &mut values), Some(vec![true]));
        assert_eq!(second.eval(&c, &mut values), Some(vec![false]));
        assert_eq!(second.eval(&c, &mut HashMap::default()), None);
    }
}
