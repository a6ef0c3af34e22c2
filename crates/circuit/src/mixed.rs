//! Mixed programs: word-level arithmetic over Z_2^w beside Boolean
//! programs, with explicit conversions between the two (issue 29).
//!
//! A [`MixedProgram`] is a list of [`Step`]s over numbered values, each
//! value defined once before it is read: first the program's inputs, then
//! the results of the steps in order. A value is either a *word* of an
//! arithmetic sharing ([`Kind::Word`]: additive shares modulo 2^w among
//! the computing parties) or a vector of *bits* in the garbled sharing
//! ([`Kind::Bits`]: wire labels). Arithmetic steps act on words (add, sub,
//! neg, multiplication by a public constant, products, dot products);
//! [`Step::Boolean`] runs an ordinary [`Program`] (a block tree, loops
//! kept) on bit values; conversions move values across: A→Y
//! ([`Step::ToYao`]), Y→A ([`Step::ToArith`]) and bit injection B→A
//! ([`Step::Inject`]).
//!
//! The form names no protocol: which party garbles, how products are
//! made and how many parties hold shares ([`MixedProgram::parties`], two
//! or three) are the executor's. A Boolean program's inputs take the bit
//! values the step gives, whoever its inputs' `party` fields name.
//!
//! Mixed programs live beside Boolean ones: their binary encoding has its
//! own magic ([`format`]), and a program with no arithmetic stays an
//! ordinary [`Program`], its file and hash unchanged.

pub mod eval;
pub mod format;

use crate::program::Program;
use crate::CircuitError;

/// The number of a value: the program's inputs first, then the results of
/// its steps, in order.
pub type ValueId = u32;

/// Widest word of an arithmetic sharing.
pub const MAX_WORD: u32 = 64;

/// What a value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A word of `w` bits (1 to 64), additively shared modulo 2^w.
    Word(u32),
    /// `n` bits in the garbled sharing (wire labels), bit 0 first.
    Bits(u32),
}

impl Kind {
    /// Its bits: the word's width or the number of bits.
    pub fn bits(self) -> u32 {
        match self {
            Kind::Word(w) | Kind::Bits(w) => w,
        }
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Kind::Word(w) => write!(f, "a {w}-bit arithmetic word"),
            Kind::Bits(n) => write!(f, "{n} garbled bits"),
        }
    }
}

/// An input of a mixed program: a word enters the arithmetic sharing as
/// its owner's share (the others' are 0), bits enter the garbled sharing.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MixedInput {
    /// Its name.
    pub name: String,
    /// The party that provides it: 0 is A, 1 is B, 2 is C (three parties).
    pub owner: u8,
    /// What it is.
    pub kind: Kind,
}

impl MixedInput {
    /// A word input of `width` bits named `name`, provided by `owner`.
    pub fn word(name: impl Into<String>, owner: u8, width: u32) -> MixedInput {
        MixedInput {
            name: name.into(),
            owner,
            kind: Kind::Word(width),
        }
    }
}

/// An output of a mixed program: a value opened to the parties that learn
/// the outputs, its bits least significant first.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MixedOutput {
    /// Its name.
    pub name: String,
    /// The value.
    pub value: ValueId,
}

/// One step. Arithmetic steps take and give words of one width; each step
/// defines one value, but [`Step::Boolean`] one per output of its program.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// A public constant word (`value` < 2^width).
    Const {
        /// Its width.
        width: u32,
        /// Its value.
        value: u64,
    },
    /// `x + y mod 2^w`.
    Add(ValueId, ValueId),
    /// `x − y mod 2^w`.
    Sub(ValueId, ValueId),
    /// `−x mod 2^w`.
    Neg(ValueId),
    /// `x · c mod 2^w`, `c` a public constant below 2^w.
    MulConst(ValueId, u64),
    /// `x · y mod 2^w`.
    Mul(ValueId, ValueId),
    /// `Σ x[k]·y[k] mod 2^w` over two lists of words of the same length
    /// (at least one).
    Dot(Vec<ValueId>, Vec<ValueId>),
    /// A→Y: a word becomes its `w` bits in the garbled sharing.
    ToYao(ValueId),
    /// Y→A: 1 to 64 garbled bits become an arithmetic word of that width.
    ToArith(ValueId),
    /// B→A (bit injection): one garbled bit becomes a word (0 or 1) of
    /// `width` bits.
    Inject {
        /// The bit (a value of one garbled bit).
        bit: ValueId,
        /// The word's width.
        width: u32,
    },
    /// Runs Boolean program number `program` on bit values, one per input
    /// of its main circuit (of its width); defines one bit value per
    /// output, in order.
    Boolean {
        /// Index into [`MixedProgram::programs`].
        program: u32,
        /// The values its inputs take.
        args: Vec<ValueId>,
    },
}

impl Step {
    /// The values the step reads, in order.
    pub fn operands(&self) -> Vec<ValueId> {
        match self {
            Step::Const { .. } => Vec::new(),
            Step::Neg(x) | Step::MulConst(x, _) | Step::ToYao(x) | Step::ToArith(x) => vec![*x],
            Step::Inject { bit, .. } => vec![*bit],
            Step::Add(x, y) | Step::Sub(x, y) | Step::Mul(x, y) => vec![*x, *y],
            Step::Dot(x, y) => x.iter().chain(y).copied().collect(),
            Step::Boolean { args, .. } => args.clone(),
        }
    }

    /// Whether the step only adds, subtracts, negates or scales by public
    /// constants: every sharing does it without a message.
    pub fn is_linear(&self) -> bool {
        matches!(
            self,
            Step::Const { .. } | Step::Add(..) | Step::Sub(..) | Step::Neg(_) | Step::MulConst(..)
        )
    }
}

/// A mixed program: inputs, the Boolean programs its steps run, the steps
/// and the outputs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct MixedProgram {
    /// How many parties hold shares: 2, or 3 (issue 30).
    pub parties: u8,
    /// The inputs: values `0..inputs.len()`.
    pub inputs: Vec<MixedInput>,
    /// Boolean programs, run by [`Step::Boolean`] (a program may run many
    /// times).
    pub programs: Vec<Program>,
    /// The steps; each defines the values after those before it.
    pub steps: Vec<Step>,
    /// The outputs.
    pub outputs: Vec<MixedOutput>,
}

/// Most values a mixed program may define (inputs and step results).
pub const MAX_VALUES: u64 = 1 << 31;

impl MixedProgram {
    /// The kind of every value (inputs, then step results), checking the
    /// program as it goes (see [`MixedProgram::validate`]).
    pub fn kinds(&self) -> Result<Vec<Kind>, CircuitError> {
        let invalid = |m: String| Err(CircuitError::Invalid(m));
        if !(2..=3).contains(&self.parties) {
            return invalid(format!(
                "a mixed program is for 2 or 3 parties, not {}",
                self.parties
            ));
        }
        let mut kinds = Vec::new();
        for v in &self.inputs {
            if v.owner >= self.parties {
                return invalid(format!(
                    "input {:?} belongs to party {}, of {}",
                    v.name, v.owner, self.parties
                ));
            }
            check_kind(v.kind)
                .map_err(|m| CircuitError::Invalid(format!("input {:?}: {m}", v.name)))?;
            kinds.push(v.kind);
        }
        for (i, step) in self.steps.iter().enumerate() {
            let defined = self
                .step_kinds(step, &kinds)
                .map_err(|m| CircuitError::Invalid(format!("step {i}: {m}")))?;
            kinds.extend(defined);
            if kinds.len() as u64 > MAX_VALUES {
                return invalid(format!("more than {MAX_VALUES} values"));
            }
        }
        for out in &self.outputs {
            if out.value as usize >= kinds.len() {
                return invalid(format!(
                    "output {:?} is value {}, of {}",
                    out.name,
                    out.value,
                    kinds.len()
                ));
            }
        }
        Ok(kinds)
    }

    /// Checks the program: 2 or 3 parties, inputs owned by one of them,
    /// words of 1 to 64 bits, every operand defined before it is read and
    /// of the kind its step takes, constants below 2^w, Boolean programs
    /// valid and given values of their inputs' widths, outputs defined.
    pub fn validate(&self) -> Result<(), CircuitError> {
        for (k, p) in self.programs.iter().enumerate() {
            p.validate().map_err(|e| match e {
                CircuitError::Invalid(m) => CircuitError::Invalid(format!("program {k}: {m}")),
                e => e,
            })?;
        }
        self.kinds().map(drop)
    }

    /// The kinds of the values `step` defines, given those defined before.
    fn step_kinds(&self, step: &Step, kinds: &[Kind]) -> Result<Vec<Kind>, String> {
        let kind = |v: ValueId| {
            kinds
                .get(v as usize)
                .copied()
                .ok_or_else(|| format!("reads value {v} before it is defined"))
        };
        let word = |v: ValueId| match kind(v)? {
            Kind::Word(w) => Ok(w),
            k => Err(format!("value {v} is {k}, not a word")),
        };
        let same = |x: ValueId, y: ValueId| {
            let (a, b) = (word(x)?, word(y)?);
            if a == b {
                Ok(a)
            } else {
                Err(format!("words of {a} and {b} bits"))
            }
        };
        let constant = |width: u32, c: u64| {
            if c > mask(width) {
                Err(format!("constant {c} does not fit in {width} bits"))
            } else {
                Ok(())
            }
        };
        let one = |k: Kind| Ok(vec![k]);
        match step {
            Step::Const { width, value } => {
                check_kind(Kind::Word(*width))?;
                constant(*width, *value)?;
                one(Kind::Word(*width))
            }
            Step::Add(x, y) | Step::Sub(x, y) | Step::Mul(x, y) => one(Kind::Word(same(*x, *y)?)),
            Step::Neg(x) => one(Kind::Word(word(*x)?)),
            Step::MulConst(x, c) => {
                let w = word(*x)?;
                constant(w, *c)?;
                one(Kind::Word(w))
            }
            Step::Dot(x, y) => {
                if x.len() != y.len() || x.is_empty() {
                    return Err(format!(
                        "a dot product of {} and {} words",
                        x.len(),
                        y.len()
                    ));
                }
                let w = same(x[0], y[0])?;
                for (&a, &b) in x.iter().zip(y) {
                    if same(a, b)? != w {
                        return Err("a dot product of words of several widths".into());
                    }
                }
                one(Kind::Word(w))
            }
            Step::ToYao(x) => one(Kind::Bits(word(*x)?)),
            Step::ToArith(x) => match kind(*x)? {
                Kind::Bits(n) if (1..=MAX_WORD).contains(&n) => one(Kind::Word(n)),
                k => Err(format!("Y→A of {k}: it takes 1 to {MAX_WORD} garbled bits")),
            },
            Step::Inject { bit, width } => {
                check_kind(Kind::Word(*width))?;
                match kind(*bit)? {
                    Kind::Bits(1) => one(Kind::Word(*width)),
                    k => Err(format!("bit injection of {k}: it takes one garbled bit")),
                }
            }
            Step::Boolean { program, args } => {
                let p = self
                    .programs
                    .get(*program as usize)
                    .ok_or_else(|| format!("runs program {program}, of {}", self.programs.len()))?;
                if args.len() != p.main.inputs.len() {
                    return Err(format!(
                        "program {program} has {} inputs, {} given",
                        p.main.inputs.len(),
                        args.len()
                    ));
                }
                for (input, &v) in p.main.inputs.iter().zip(args) {
                    if kind(v)? != Kind::Bits(input.width) {
                        return Err(format!(
                            "input {:?} of program {program} takes {}, value {v} is {}",
                            input.name,
                            Kind::Bits(input.width),
                            kind(v)?
                        ));
                    }
                }
                Ok(p.main
                    .outputs
                    .iter()
                    .map(|o| Kind::Bits(o.wires.len() as u32))
                    .collect())
            }
        }
    }

    /// The value each step defines first (a [`Step::Boolean`] defines
    /// several, from there on): step `i`'s results start at entry `i`.
    /// The program must be valid.
    pub fn first_values(&self) -> Vec<ValueId> {
        let mut next = self.inputs.len() as ValueId;
        self.steps
            .iter()
            .map(|s| {
                let first = next;
                next += match s {
                    Step::Boolean { program, .. } => {
                        self.programs[*program as usize].main.outputs.len() as ValueId
                    }
                    _ => 1,
                };
                first
            })
            .collect()
    }
}

/// A word of 1 to 64 bits, bits of at most [`crate::MAX_WIRES`].
fn check_kind(kind: Kind) -> Result<(), String> {
    match kind {
        Kind::Word(w) if !(1..=MAX_WORD).contains(&w) => {
            Err(format!("a word of {w} bits (1 to {MAX_WORD})"))
        }
        Kind::Bits(n) if n > crate::MAX_WIRES => Err(format!("{n} bits (at most 2^30)")),
        _ => Ok(()),
    }
}

/// The low `bits` bits set (`bits` ≤ 64).
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

impl MixedProgram {
    /// The two-party mixed program that runs `program` as its only step,
    /// its inputs entering and its outputs leaving as garbled bits: the
    /// pure garbled-circuit form of the same function.
    pub fn of_boolean(program: Program) -> MixedProgram {
        let inputs: Vec<MixedInput> = program
            .main
            .inputs
            .iter()
            .map(|v| MixedInput {
                name: v.name.clone(),
                owner: v.party.index(),
                kind: Kind::Bits(v.width),
            })
            .collect();
        let n = inputs.len() as ValueId;
        let outputs = program
            .main
            .outputs
            .iter()
            .enumerate()
            .map(|(k, o)| MixedOutput {
                name: o.name.clone(),
                value: n + k as ValueId,
            })
            .collect();
        MixedProgram {
            parties: 2,
            inputs,
            programs: vec![program],
            steps: vec![Step::Boolean {
                program: 0,
                args: (0..n).collect(),
            }],
            outputs,
        }
    }
}
