//! The two-party schedule of a mixed program, computed alike by both
//! parties from the program alone: whose shares of each word may be
//! nonzero, how each product is made, and the rounds.
//!
//! A word is held by party A alone (A's inputs, public constants and what
//! A computes from them locally), by B alone, or shared. A product of
//! words needs a message only when its factors' shares cross parties:
//! `x·y = x_A·y_A + x_B·y_B + x_A·y_B + x_B·y_A`, the first two local,
//! the others each a Gilboa product by correlated OT — or, when both are
//! needed (shared × shared), one Beaver triple.
//!
//! Rounds: inputs are round 0; a step that sends (a product with a cross
//! term, a conversion) runs one round after its latest operand; a local
//! step (linear steps, local products, Boolean programs — the garbler's
//! tables flow one way) in the round of its latest operand. Each round
//! runs its sending steps batched — one layer of products per width,
//! one call per kind of conversion — then its local steps in program
//! order, so the messages follow the depth, not the number of steps.

use std::collections::BTreeMap;

use twofold_circuit::{Kind, MixedInput, MixedProgram, Party, Step, ValueId};

use crate::error::ProtocolError;

/// Whose shares of a word may be nonzero, and its value if public.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Holders {
    /// Party A's share may be nonzero.
    pub a: bool,
    /// Party B's share may be nonzero.
    pub b: bool,
    /// The value, if both parties know it (a public constant: A's share
    /// is the value, B's is 0).
    pub public: Option<u64>,
}

impl Holders {
    /// Both shares may be nonzero, nothing public.
    const SHARED: Holders = Holders {
        a: true,
        b: true,
        public: None,
    };

    fn union(self, o: Holders) -> Holders {
        Holders {
            a: self.a || o.a,
            b: self.b || o.b,
            public: None,
        }
    }
}

/// How one product term `x·y` is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    /// Each party multiplies its own shares (both factors held by one
    /// party, or one factor public: then by its value).
    Local,
    /// The local products plus one cross product: A's share of `a` times
    /// B's share of `b`.
    Cross {
        /// The factor whose A share enters.
        a: ValueId,
        /// The factor whose B share enters.
        b: ValueId,
    },
    /// A Beaver triple (both factors shared).
    Beaver,
}

/// How a word enters the garbled sharing (A→Y).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum YaoEntry {
    /// Both shares may be nonzero: a garbled adder over them.
    Adder,
    /// Only this party's share may be nonzero (it knows the word): its
    /// garbled input, no adder.
    InputOf(Party),
}

impl YaoEntry {
    /// How word `v` enters.
    pub fn of(plan: &Plan, v: ValueId) -> YaoEntry {
        match plan.holders[v as usize] {
            Holders { b: false, .. } => YaoEntry::InputOf(Party::A),
            Holders { a: false, .. } => YaoEntry::InputOf(Party::B),
            _ => YaoEntry::Adder,
        }
    }
}

/// The steps of one round.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Wave {
    /// Steps that send, batched.
    pub sending: Vec<usize>,
    /// Steps that do not, in program order, after them.
    pub local: Vec<usize>,
}

/// The schedule of a two-party mixed program.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The kind of every value.
    pub kinds: Vec<Kind>,
    /// Every word's holders (bit values: the default).
    pub holders: Vec<Holders>,
    /// The first value each step defines.
    pub first_values: Vec<ValueId>,
    /// The terms of each product step (`Mul`: one, `Dot`: one per pair;
    /// other steps: none).
    pub terms: Vec<Vec<Term>>,
    /// The rounds, from 0.
    pub waves: Vec<Wave>,
    /// Beaver triples needed, by width.
    pub triples: BTreeMap<u32, u64>,
}

/// The term of `x·y`, from the factors' holders.
fn term(x: ValueId, y: ValueId, holders: &[Holders]) -> Term {
    let (hx, hy) = (holders[x as usize], holders[y as usize]);
    if hx.public.is_some() || hy.public.is_some() {
        return Term::Local;
    }
    match (hx.a && hy.b, hx.b && hy.a) {
        (true, true) => Term::Beaver,
        (true, false) => Term::Cross { a: x, b: y },
        (false, true) => Term::Cross { a: y, b: x },
        (false, false) => Term::Local,
    }
}

/// The pairs of a step: `Mul`'s one, `Dot`'s all.
pub fn factor_pairs(step: &Step) -> Vec<(ValueId, ValueId)> {
    match step {
        Step::Mul(x, y) => vec![(*x, *y)],
        Step::Dot(x, y) => x.iter().copied().zip(y.iter().copied()).collect(),
        _ => Vec::new(),
    }
}

impl Plan {
    /// The schedule of `program`, which must be a valid two-party program.
    pub fn of(program: &MixedProgram) -> Result<Plan, ProtocolError> {
        let kinds = program
            .kinds()
            .map_err(|e| ProtocolError::Inputs(e.to_string()))?;
        if program.parties != 2 {
            return Err(ProtocolError::Inputs(format!(
                "the two-party executor runs programs of 2 parties, not {}",
                program.parties
            )));
        }
        let owned = |v: &MixedInput| Holders {
            a: v.owner == 0,
            b: v.owner == 1,
            public: None,
        };
        Plan::with_inputs(program, kinds, owned)
    }

    /// The schedule of a valid three-party `program`, whose inputs are all
    /// shared: a product of two words that are not public is
    /// [`Term::Beaver`] (both factors shared), whose triples the
    /// three-party executor does not use (it multiplies replicated shares).
    pub fn of_shared(program: &MixedProgram) -> Result<Plan, ProtocolError> {
        let kinds = program
            .kinds()
            .map_err(|e| ProtocolError::Inputs(e.to_string()))?;
        if program.parties != 3 {
            return Err(ProtocolError::Inputs(format!(
                "the three-party executor runs programs of 3 parties, not {}",
                program.parties
            )));
        }
        Plan::with_inputs(program, kinds, |_| Holders::SHARED)
    }

    /// The schedule of `program` (of value kinds `kinds`) whose inputs'
    /// holders `input` gives.
    fn with_inputs(
        program: &MixedProgram,
        kinds: Vec<Kind>,
        input: impl Fn(&MixedInput) -> Holders,
    ) -> Result<Plan, ProtocolError> {
        let first_values = program.first_values();
        let mut holders: Vec<Holders> = program.inputs.iter().map(input).collect();
        let mut round: Vec<u32> = vec![0; program.inputs.len()];
        let mut terms = Vec::with_capacity(program.steps.len());
        let mut waves: Vec<Wave> = vec![Wave::default()];
        let mut triples = BTreeMap::new();
        for (i, step) in program.steps.iter().enumerate() {
            let step_terms: Vec<Term> = factor_pairs(step)
                .into_iter()
                .map(|(x, y)| term(x, y, &holders))
                .collect();
            let beavers = step_terms.iter().filter(|t| **t == Term::Beaver).count() as u64;
            if beavers > 0 {
                *triples
                    .entry(kinds[first_values[i] as usize].bits())
                    .or_insert(0) += beavers;
            }
            let sends = match step {
                Step::Mul(..) | Step::Dot(..) => step_terms.iter().any(|t| *t != Term::Local),
                Step::ToYao(_) | Step::ToArith(_) | Step::Inject { .. } => true,
                _ => false,
            };
            let latest = step
                .operands()
                .iter()
                .map(|&v| round[v as usize])
                .max()
                .unwrap_or(0);
            let r = latest + sends as u32;
            if waves.len() <= r as usize {
                waves.push(Wave::default());
            }
            let wave = &mut waves[r as usize];
            if sends {
                wave.sending.push(i);
            } else {
                wave.local.push(i);
            }
            let defined = match step {
                Step::Boolean { program: p, .. } => {
                    program.programs[*p as usize].main.outputs.len()
                }
                _ => 1,
            };
            for _ in 0..defined {
                holders.push(step_holders(step, &holders, &step_terms, &kinds));
                round.push(r);
            }
            terms.push(step_terms);
        }
        Ok(Plan {
            kinds,
            holders,
            first_values,
            terms,
            waves,
            triples,
        })
    }

    /// Rounds of messages (the waves after the local round 0).
    pub fn rounds(&self) -> usize {
        self.waves.len() - 1
    }
}

/// The holders of the word a step defines (bit values: the default).
fn step_holders(step: &Step, holders: &[Holders], terms: &[Term], kinds: &[Kind]) -> Holders {
    let h = |v: &ValueId| holders[*v as usize];
    let width = |v: &ValueId| kinds[*v as usize].bits();
    let fold = |f: fn(u64, u64) -> u64, x: &ValueId, y: &ValueId| {
        let public = match (h(x).public, h(y).public) {
            (Some(p), Some(q)) => Some(f(p, q) & twofold_circuit::mixed::mask(width(x))),
            _ => None,
        };
        Holders {
            public,
            ..h(x).union(h(y))
        }
    };
    match step {
        Step::Const { value, .. } => Holders {
            a: true,
            b: false,
            public: Some(*value),
        },
        Step::Add(x, y) => fold(u64::wrapping_add, x, y),
        Step::Sub(x, y) => fold(u64::wrapping_sub, x, y),
        Step::Neg(x) => Holders {
            public: h(x)
                .public
                .map(|p| p.wrapping_neg() & twofold_circuit::mixed::mask(width(x))),
            ..h(x)
        },
        Step::MulConst(x, c) => Holders {
            public: h(x)
                .public
                .map(|p| p.wrapping_mul(*c) & twofold_circuit::mixed::mask(width(x))),
            ..h(x)
        },
        Step::Mul(x, y) => match (h(x).public, h(y).public) {
            (Some(_), Some(_)) => fold(u64::wrapping_mul, x, y),
            (Some(_), None) => h(y),
            (None, Some(_)) => h(x),
            _ if terms[0] == Term::Local => Holders {
                a: h(x).a && h(y).a,
                b: h(x).b && h(y).b,
                public: None,
            },
            _ => Holders::SHARED,
        },
        Step::ToArith(_) | Step::Inject { .. } | Step::Dot(..) => Holders::SHARED,
        Step::ToYao(_) | Step::Boolean { .. } => Holders::default(),
    }
}

/// A layer of cross products of one width: the pairs `(a, b)` (A's share
/// of `a` times B's share of `b`), grouped under common scalars so that
/// a scalar's OTs are paid once however many words it multiplies (a
/// matrix product pays them once per element of one factor).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrossLayer {
    /// Groups whose scalar is A's share of a value: the scalar, then B's
    /// words and the pair each product belongs to.
    pub a_scalars: Vec<Group>,
    /// Groups whose scalar is B's share of a value.
    pub b_scalars: Vec<Group>,
}

/// Products under one scalar.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Group {
    /// The value whose share is the scalar.
    pub scalar: ValueId,
    /// The values whose other party's shares form the vector, each with
    /// the index of its pair.
    pub words: Vec<(ValueId, usize)>,
}

impl CrossLayer {
    /// Groups `pairs`: the factor that recurs more often in the layer is
    /// the scalar (ties: B's).
    pub fn of<P>(pairs: P) -> CrossLayer
    where
        P: IntoIterator<Item = (ValueId, ValueId)>,
        P::IntoIter: Clone,
    {
        let pairs = pairs.into_iter();
        // Per side (A's factors, then B's): the layer's distinct values,
        // sorted, and per value how often it occurs, then its group
        // (tables over the layer's own values, not maps and not tables
        // over the program's: a large matrix product has millions of
        // pairs, and a long chain of products millions of one-pair layers).
        let distinct = |side: fn(&(ValueId, ValueId)) -> ValueId| {
            let mut values: Vec<ValueId> = pairs.clone().map(|p| side(&p)).collect();
            values.sort_unstable();
            values.dedup();
            values
        };
        let values = [distinct(|p| p.0), distinct(|p| p.1)];
        let slot = |side: usize, v: ValueId| {
            values[side]
                .binary_search(&v)
                .expect("a layer's value is among its distinct values")
        };
        let mut seen = [vec![0u32; values[0].len()], vec![0u32; values[1].len()]];
        for (a, b) in pairs.clone() {
            seen[0][slot(0, a)] += 1;
            seen[1][slot(1, b)] += 1;
        }
        let mut layer = CrossLayer::default();
        const NONE: u32 = u32::MAX;
        let mut index = [vec![NONE; values[0].len()], vec![NONE; values[1].len()]];
        for (k, (a, b)) in pairs.enumerate() {
            let (sa, sb) = (slot(0, a), slot(1, b));
            let a_is_scalar = seen[0][sa] > seen[1][sb];
            let (groups, g, scalar, word) = if a_is_scalar {
                (&mut layer.a_scalars, &mut index[0][sa], a, b)
            } else {
                (&mut layer.b_scalars, &mut index[1][sb], b, a)
            };
            if *g == NONE {
                groups.push(Group {
                    scalar,
                    words: Vec::new(),
                });
                *g = groups.len() as u32 - 1;
            }
            groups[*g as usize].words.push((word, k));
        }
        layer
    }

    /// `(groups, words)` of the products whose vectors A holds, and of
    /// those whose vectors B holds (for the cost formulas).
    pub fn shape(&self) -> ((u64, u64), (u64, u64)) {
        let count = |g: &[Group]| (g.len() as u64, g.iter().map(|g| g.words.len() as u64).sum());
        (count(&self.b_scalars), count(&self.a_scalars))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_factor_that_recurs_more_is_the_scalar_and_groups_keep_their_order() {
        // A's 1 twice, B's 10 twice (a tie in the first pair: B's).
        let layer = CrossLayer::of([(1, 10), (1, 11), (2, 10), (3, 12)]);
        let group = |scalar, words: &[(ValueId, usize)]| Group {
            scalar,
            words: words.to_vec(),
        };
        assert_eq!(layer.a_scalars, vec![group(1, &[(11, 1)])]);
        assert_eq!(
            layer.b_scalars,
            vec![group(10, &[(1, 0), (2, 2)]), group(12, &[(3, 3)])]
        );
        assert_eq!(layer.shape(), ((2, 3), (1, 1)));
        assert_eq!(CrossLayer::of([]), CrossLayer::default());
    }

    #[test]
    fn groups_keep_the_order_of_their_first_pair_whatever_the_values() {
        // Sparse, descending values: the groups follow the pairs.
        let far = 3_000_000_000;
        let layer = CrossLayer::of([(far, 7), (5, 7), (far, 2), (far, 1)]);
        let group = |scalar, words: &[(ValueId, usize)]| Group {
            scalar,
            words: words.to_vec(),
        };
        let words = [(7, 0), (2, 2), (1, 3)];
        assert_eq!(layer.a_scalars, vec![group(far, &words)]);
        assert_eq!(layer.b_scalars, vec![group(7, &[(5, 1)])]);
    }
}
