//! Plaintext evaluation of mixed programs: what the parties compute
//! together, in the clear (the oracle of the tests).

use super::{mask, Kind, MixedProgram, Step, ValueId};
use crate::CircuitError;

/// A value in the clear.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Plain {
    Word(u64),
    Bits(Vec<bool>),
}

/// The bits of a `w`-bit word, least significant first.
pub fn word_bits(x: u64, width: u32) -> Vec<bool> {
    (0..width).map(|i| (x >> i) & 1 == 1).collect()
}

/// The word of up to 64 bits, least significant first.
pub fn bits_word(bits: &[bool]) -> u64 {
    bits.iter().rev().fold(0, |acc, &b| acc << 1 | b as u64)
}

impl MixedProgram {
    /// Plaintext evaluation: one bit vector per input in (a word's bits,
    /// least significant first), one per output out.
    pub fn eval(&self, inputs: &[Vec<bool>]) -> Result<Vec<Vec<bool>>, CircuitError> {
        let kinds = self.kinds()?;
        if inputs.len() != self.inputs.len() {
            return Err(CircuitError::Inputs(format!(
                "{} inputs given, the program has {}",
                inputs.len(),
                self.inputs.len()
            )));
        }
        let mut values: Vec<Plain> = Vec::with_capacity(kinds.len());
        for (v, bits) in self.inputs.iter().zip(inputs) {
            if bits.len() != v.kind.bits() as usize {
                return Err(CircuitError::Inputs(format!(
                    "input {:?} has {} bits, {} given",
                    v.name,
                    v.kind.bits(),
                    bits.len()
                )));
            }
            values.push(match v.kind {
                Kind::Word(_) => Plain::Word(bits_word(bits)),
                Kind::Bits(_) => Plain::Bits(bits.clone()),
            });
        }
        for step in &self.steps {
            let defined = self.eval_step(step, &values, &kinds)?;
            values.extend(defined);
        }
        Ok(self
            .outputs
            .iter()
            .map(|o| match &values[o.value as usize] {
                Plain::Word(x) => word_bits(*x, kinds[o.value as usize].bits()),
                Plain::Bits(b) => b.clone(),
            })
            .collect())
    }

    fn eval_step(
        &self,
        step: &Step,
        values: &[Plain],
        kinds: &[Kind],
    ) -> Result<Vec<Plain>, CircuitError> {
        let word = |v: ValueId| match values[v as usize] {
            Plain::Word(x) => x,
            Plain::Bits(_) => unreachable!("validated: value {v} is a word"),
        };
        let bits = |v: ValueId| match &values[v as usize] {
            Plain::Bits(b) => b.clone(),
            Plain::Word(_) => unreachable!("validated: value {v} is bits"),
        };
        let m = |v: ValueId| mask(kinds[v as usize].bits());
        let one = |x: Plain| Ok(vec![x]);
        match step {
            Step::Const { value, .. } => one(Plain::Word(*value)),
            Step::Add(x, y) => one(Plain::Word(word(*x).wrapping_add(word(*y)) & m(*x))),
            Step::Sub(x, y) => one(Plain::Word(word(*x).wrapping_sub(word(*y)) & m(*x))),
            Step::Neg(x) => one(Plain::Word(word(*x).wrapping_neg() & m(*x))),
            Step::MulConst(x, c) => one(Plain::Word(word(*x).wrapping_mul(*c) & m(*x))),
            Step::Mul(x, y) => one(Plain::Word(word(*x).wrapping_mul(word(*y)) & m(*x))),
            Step::Dot(x, y) => {
                let sum = x.iter().zip(y).fold(0u64, |acc, (&a, &b)| {
                    acc.wrapping_add(word(a).wrapping_mul(word(b)))
                });
                one(Plain::Word(sum & m(x[0])))
            }
            Step::ToYao(x) => one(Plain::Bits(word_bits(word(*x), kinds[*x as usize].bits()))),
            Step::ToArith(x) => one(Plain::Word(bits_word(&bits(*x)))),
            Step::Inject { bit, .. } => one(Plain::Word(bits(*bit)[0] as u64)),
            Step::Boolean { program, args } => {
                let given: Vec<Vec<bool>> = args.iter().map(|&a| bits(a)).collect();
                let out = self.programs[*program as usize].eval(&given)?;
                Ok(out.into_iter().map(Plain::Bits).collect())
            }
        }
    }
}
