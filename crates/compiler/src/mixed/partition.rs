//! The partition of a flat program: sums of products that lowering noted
//! run in the arithmetic sharing, everything else in garbled circuits, cut
//! into Boolean *phases* by how many conversions lie before a gate.
//!
//! A noted sum `out = Σ ±terms mod 2^w` runs arithmetically and takes its
//! operands as words: public constants, its owner's slice of an input (no
//! message), an earlier sum, a linear combination of those (a noted linear
//! sum, `super::linear`), or else bits gathered from a Boolean phase and
//! converted (Y→A). Its bits are wires no gate writes (lowering made
//! no circuit for it): they are *cut*, and gates that read them read the
//! sum converted back (A→Y), one phase later. Each gate's phase is the
//! latest of its inputs'; a sum's arithmetic runs after the phase of its
//! latest gathered operand. Gates no output needs are left out. Each phase
//! becomes one Boolean program of the mixed program.

use std::cell::{Cell, RefCell};

use rustc_hash::FxHashMap as HashMap;

use twofold_circuit::{Bit, FlatParts, Gate, InputValue, MixedProgram, Party, Wire};

use super::linear::{self, Holders, SHARED};
use super::local::{dependences, sole_holder, LocalInput};
use super::notes::{secret, SumNote, Term};
use super::{InputSource, OutBit};

/// The partitioned program and how to feed and read it.
pub(super) struct Partitioned {
    pub program: MixedProgram,
    pub sources: Vec<InputSource>,
    pub locals: Vec<LocalInput>,
    pub outputs: Vec<Vec<OutBit>>,
    pub sums: usize,
    /// The numbers of the sums of products that read a word converted
    /// from garbled bits (Y→A), in order.
    pub converted: Vec<u32>,
}

/// A word a noted sum reads.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Operand {
    /// A public constant.
    Const(u64),
    /// An earlier noted sum (its number), run arithmetically.
    Sum(usize),
    /// A slice of an input, which its owner extends to the word.
    Input(InputSource),
    /// `Σ c·x mod 2^w` of operands of the kinds above (not constants),
    /// each at most once: a linear sum's bits, computed locally.
    Linear(Vec<(Operand, u64)>),
    /// Bits that depend on the inputs of one party (its holder bit) alone,
    /// which it computes in the clear as its share (see `super::local`).
    Local(Vec<Bit>, Holders),
    /// Bits of a Boolean phase, converted (Y→A).
    Gathered(Vec<Bit>),
}

/// A noted sum that runs arithmetically.
pub(super) struct Sum {
    pub w: u32,
    /// Secret products: factors and coefficient (modulo `2^w`).
    pub pairs: Vec<(Operand, Operand, u64)>,
    /// Words (and products with a public factor, as the other factor
    /// times the constant), each with its coefficient (modulo `2^w`).
    pub words: Vec<(Operand, u64)>,
    /// Its bits extended to `w`.
    pub bits: Vec<Bit>,
    /// Its number among the sums of products, and its twins' (see
    /// `SumNote`).
    pub product_sums: Vec<u32>,
}

impl Sum {
    /// The words it reads: its factors' and words' leaves.
    pub fn operands(&self) -> impl Iterator<Item = &Operand> {
        self.pairs
            .iter()
            .flat_map(|(x, y, _)| [x, y])
            .chain(self.words.iter().map(|(x, _)| x))
            .flat_map(Operand::leaves)
    }

    /// Whether it reads a word converted from garbled bits whole (Y→A; a
    /// word of one secret bit is injected, far cheaper).
    pub fn reads_converted(&self) -> bool {
        self.operands()
            .any(|x| matches!(x, Operand::Gathered(e) if one_bit(e).is_none()))
    }
}

/// `x` read modulo `2^w`: cut to `w` bits or extended by its last bit.
fn extend(x: &[Bit], w: u32) -> Vec<Bit> {
    let w = w as usize;
    let mut e: Vec<Bit> = x.iter().take(w).copied().collect();
    let last = x.last().copied().unwrap_or(Bit::Const(false));
    e.resize(w, last);
    e
}

/// The value of constant bits, if they all are.
fn constant(e: &[Bit]) -> Option<u64> {
    e.iter().enumerate().try_fold(0u64, |v, (i, b)| match b {
        Bit::Const(c) => Some(v | (*c as u64) << i),
        Bit::Wire(_) => None,
    })
}

/// A gathered word whose secret bits are all one bit `bit`: its value is
/// `plus + times·bit` modulo `2^w` (a comparison widened, its negation, a
/// shift of it), which a bit injection (B→A) makes from that one bit, far
/// cheaper than a conversion of every bit (Y→A: a garbled subtraction).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct OneBit {
    pub bit: Bit,
    pub times: u64,
    pub plus: u64,
}

/// `e` as [`OneBit`], if its secret bits are all one bit.
pub(super) fn one_bit(e: &[Bit]) -> Option<OneBit> {
    let bit = e.iter().copied().find(|b| wire(*b).is_some())?;
    let (mut times, mut plus) = (0u64, 0u64);
    for (i, &b) in e.iter().enumerate() {
        match b {
            Bit::Const(c) => plus |= (c as u64) << i,
            b if b == bit => times |= 1 << i,
            Bit::Wire(_) => return None,
        }
    }
    Some(OneBit { bit, times, plus })
}

/// A gathered operand's [`one_bit`] form, and the bits it takes from its
/// Boolean phase: that one secret bit, or all of them.
pub(super) fn gathered_bits(e: &[Bit]) -> (Option<OneBit>, Vec<Bit>) {
    let one = one_bit(e);
    let bits = match &one {
        Some(one) => vec![one.bit],
        None => e.to_vec(),
    };
    (one, bits)
}

/// Where input wires are: `(input, bit)`, in a table as long as the
/// highest input wire (inputs are a circuit's first wires): a hash map's
/// lookups missed the caches on most operands of a large program.
#[derive(Default)]
pub(super) struct InputWires {
    at: Vec<(u32, u32)>,
}

/// [`InputWires`]' entry for a wire that is no input's.
const NO_INPUT: (u32, u32) = (u32::MAX, u32::MAX);

impl InputWires {
    /// The input and bit that wire `w` carries, if it is an input's.
    pub(super) fn get(&self, w: Wire) -> Option<(usize, u32)> {
        match self.at.get(w as usize) {
            Some(&(input, bit)) if (input, bit) != NO_INPUT => Some((input as usize, bit)),
            _ => None,
        }
    }

    /// Whether wire `w` is an input's.
    pub(super) fn contains(&self, w: Wire) -> bool {
        self.get(w).is_some()
    }
}

impl FromIterator<(Wire, (usize, u32))> for InputWires {
    fn from_iter<I: IntoIterator<Item = (Wire, (usize, u32))>>(wires: I) -> InputWires {
        let mut at = Vec::new();
        for (w, (input, bit)) in wires {
            let w = w as usize;
            if w >= at.len() {
                at.resize(w + 1, NO_INPUT);
            }
            at[w] = (input as u32, bit);
        }
        InputWires { at }
    }
}

/// Partitions `flat` given the sums lowering noted; with `local_values`,
/// words that depend on one party's inputs alone are that party's (two
/// parties).
pub(super) fn partition(
    flat: FlatParts,
    notes: &[SumNote],
    local_values: bool,
) -> Result<Partitioned, String> {
    let inputs_at: InputWires = (flat.inputs.iter().enumerate())
        .flat_map(|(k, (_, wires))| (0..).zip(wires).map(move |(i, &w)| (w, (k, i))))
        .collect();
    let owners: Vec<Holders> = flat
        .inputs
        .iter()
        .map(|(v, _)| match v.party {
            Party::A => 1,
            Party::B => 2,
        })
        .collect();
    let on = local_values.then(|| {
        let wires = flat.inputs.iter().zip(&owners);
        let inputs = wires.flat_map(|((_, ws), &h)| ws.iter().map(move |&w| (w, h)));
        dependences(flat.num_wires, inputs, &flat.gates)
    });
    let sums = arith_sums(notes, (&inputs_at, &flat.inputs), &owners, on.as_deref());
    // Cut wires: a sum's bits, each at its first place (the bits above it
    // copy its sign).
    let mut cut: Vec<Option<(usize, u32)>> = vec![None; flat.num_wires as usize];
    for (k, s) in sums.iter().enumerate() {
        for (i, b) in s.bits.iter().enumerate() {
            if let Bit::Wire(x) = *b {
                cut[x as usize].get_or_insert((k, i as u32));
            }
        }
    }
    let phases = Phases::of(&flat, &sums, &cut);
    let mut p = Plan::new(&flat, &sums, &cut, phases, inputs_at);
    p.outputs(&flat.outputs);
    p.live(&flat.gates);
    super::build::build(p, &flat)
}

/// The noted sums that run arithmetically, with their operands; noted
/// linear sums are operands of later ones.
fn arith_sums(
    notes: &[SumNote],
    (inputs_at, inputs): (&InputWires, &[(InputValue, Vec<Wire>)]),
    owners: &[Holders],
    on: Option<&[Holders]>,
) -> Vec<Sum> {
    let mut sums: Vec<Sum> = Vec::new();
    let mut sum_holders: Vec<Holders> = Vec::new();
    let mut r = Reader {
        notes,
        inputs_at,
        inputs,
        on,
        by_bits: HashMap::default(),
        wide: HashMap::default(),
        widths: Vec::new(),
        widened: RefCell::default(),
        terms_left: Cell::new(linear::COMBINATION_BUDGET),
        notes_hold_inputs: (notes.iter().flat_map(|n| &n.out))
            .any(|&b| wire(b).is_some_and(|w| inputs_at.contains(w))),
    };
    for (i, note) in notes.iter().enumerate() {
        let w = note.w;
        let bits = extend(&note.out, w);
        let mask = u64::MAX >> (64 - w);
        let (pairs, mut words) = r.terms(i, w);
        if pairs.is_empty() {
            if let Some(x) = linear::combination(&words, mask, &r.terms_left) {
                r.by_bits.entry(bits.clone()).or_insert(x);
            }
            if note.bounds.is_some() {
                r.wide.entry(bits).or_insert(i);
                if !r.widths.contains(&w) {
                    r.widths.push(w);
                }
            }
            continue;
        }
        let holders = |x: &Operand| match x {
            Operand::Const(_) => 0,
            Operand::Input(src) => owners[src.input],
            Operand::Sum(k) => sum_holders[*k],
            Operand::Local(_, h) => *h,
            Operand::Gathered(_) | Operand::Linear(_) => SHARED,
        };
        let pairs = linear::expand(pairs, &mut words, mask, holders);
        let s = Sum {
            w,
            words: linear::flatten(&words, mask),
            pairs,
            bits: bits.clone(),
            product_sums: (note.product_sum.iter().chain(&note.twins))
                .copied()
                .collect(),
        };
        // As the executor's plan: one local product keeps its holder.
        sum_holders.push(match s.pairs.as_slice() {
            [(x, y, _)] => s
                .words
                .iter()
                .map(|(z, _)| holders(z))
                .fold(holders(x) | holders(y), |h, z| h | z),
            _ => SHARED,
        });
        r.by_bits.insert(bits, Operand::Sum(sums.len()));
        sums.push(s);
    }
    sums
}

/// The wire of a bit, if it has one.
pub(super) fn wire(b: Bit) -> Option<Wire> {
    match b {
        Bit::Wire(w) => Some(w),
        Bit::Const(_) => None,
    }
}

/// Secret products and words of a sum, read as operands.
type Terms = (Vec<(Operand, Operand, u64)>, Vec<(Operand, u64)>);

/// What words are to the arithmetic sharing, given the notes so far.
struct Reader<'a> {
    notes: &'a [SumNote],
    inputs_at: &'a InputWires,
    /// The inputs and their wires, bit 0 first.
    inputs: &'a [(InputValue, Vec<Wire>)],
    /// Whose inputs each wire depends on, where one party's words are its
    /// own (see `super::local`).
    on: Option<&'a [Holders]>,
    /// Sums' and linear sums' bits, as the operands they are.
    by_bits: HashMap<Vec<Bit>, Operand>,
    /// Linear notes with bounds, by their bits (to read them extended).
    wide: HashMap<Vec<Bit>, usize>,
    /// The widths of those.
    widths: Vec<u32>,
    /// Linear notes read wider: what they are at each width (kept, so that
    /// a chain of them, each a term of the next, is read once each).
    widened: RefCell<HashMap<(usize, u32), Option<Operand>>>,
    /// Terms the combinations held may still add (see
    /// [`linear::COMBINATION_BUDGET`]).
    terms_left: Cell<usize>,
    /// Whether some note's bits are wires of an input (a sum folded to
    /// one of its terms): else an input's slice is no note's bits, and is
    /// found as the input's without looking it up among theirs (hashing
    /// every operand of a large matrix product took a third of its
    /// partition).
    notes_hold_inputs: bool,
}

impl Reader<'_> {
    /// Note `i`'s terms read modulo `2^w` (`w` at least its width): secret
    /// products with their coefficients, and words (products with a public
    /// factor as the other factor times the constant) with theirs.
    fn terms(&self, i: usize, w: u32) -> Terms {
        let note = &self.notes[i];
        let mask = u64::MAX >> (64 - w);
        let operand = |x: &[Bit]| self.operand(x, w, i);
        let (mut pairs, mut words) = (Vec::new(), Vec::new());
        for (term, neg) in &note.terms {
            let sign = if *neg { mask } else { 1 };
            match term {
                Term::Word(x) => words.push((operand(x), sign)),
                Term::Product(x, y) if secret(x) && secret(y) => {
                    pairs.push((operand(x), operand(y), sign))
                }
                Term::Product(x, y) => {
                    let (c, other) = if secret(x) { (y, x) } else { (x, y) };
                    let c = constant(&extend(c, w)).expect("a factor without wires is constant");
                    words.push((operand(other), c.wrapping_mul(sign) & mask));
                }
            }
        }
        (pairs, words)
    }

    /// What word `x`, read modulo `2^w`, is to note `before` (as an
    /// extended linear sum, one noted before it: a sum whose bits are one
    /// of its terms' is no term of itself).
    fn operand(&self, x: &[Bit], w: u32, before: usize) -> Operand {
        let e = extend(x, w);
        if let Some(v) = constant(&e) {
            return Operand::Const(v);
        }
        if !self.notes_hold_inputs {
            if let Some(src) = input_slice(&e, self.inputs_at, self.inputs) {
                return Operand::Input(src);
            }
        }
        if let Some(x) = self.by_bits.get(&e) {
            return x.clone();
        }
        if let Some(x) = self.widened(&e, w, before) {
            return x;
        }
        if let Some(src) = input_slice(&e, self.inputs_at, self.inputs) {
            return Operand::Input(src);
        }
        if let Some(h) = self.on.and_then(|on| sole_holder(&e, on)) {
            return Operand::Local(e, h);
        }
        Operand::Gathered(e)
    }

    /// `e` as a narrower linear sum extended by zeros or by its last bit (a
    /// C cast), where the sum's bounds say the extension is its value: its
    /// terms read at `w`.
    fn widened(&self, e: &[Bit], w: u32, before: usize) -> Option<Operand> {
        for &n in self.widths.iter().filter(|&&n| n < w) {
            let Some(&i) = self.wide.get(&e[..n as usize]).filter(|&&i| i < before) else {
                continue;
            };
            let note = &self.notes[i];
            let (lo, hi) = note.bounds?;
            let rest = &e[n as usize..];
            let zeros = rest.iter().all(|&b| b == Bit::Const(false));
            let copies = rest.iter().all(|&b| b == e[n as usize - 1]);
            let half = 1i128 << (n - 1);
            if (zeros && 0 <= lo && hi < 2 * half) || (copies && -half <= lo && hi < half) {
                if let Some(x) = self.widened.borrow().get(&(i, w)) {
                    return x.clone();
                }
                let (_, words) = self.terms(i, w);
                let x = linear::combination(&words, u64::MAX >> (64 - w), &self.terms_left);
                self.widened.borrow_mut().insert((i, w), x.clone());
                return x;
            }
        }
        None
    }
}

/// `e` as consecutive bits of one input, extended by zeros or by copies of
/// the last, if it is. (Its first wire is looked up; the others are
/// compared with the input's wires, which are read in order: a lookup a
/// bit missed the caches on every bit of a large program's operands.)
fn input_slice(
    e: &[Bit],
    inputs_at: &InputWires,
    inputs: &[(InputValue, Vec<Wire>)],
) -> Option<InputSource> {
    let (input, offset) = inputs_at.get(wire(e[0])?)?;
    let wires = &inputs[input].1[offset as usize..];
    let len = e
        .iter()
        .zip(wires)
        .take_while(|&(&b, &w)| b == Bit::Wire(w))
        .count();
    let rest = &e[len..];
    let signed = if rest.iter().all(|&b| b == Bit::Const(false)) {
        false
    } else if rest.iter().all(|&b| b == e[len - 1]) {
        true
    } else {
        return None;
    };
    Some(InputSource {
        input,
        offset,
        len: len as u32,
        signed,
    })
}

/// Each wire's phase and each sum's: the phase after whose Boolean program
/// its arithmetic runs.
pub(super) struct Phases {
    pub wire: Vec<u32>,
    pub sum: Vec<u32>,
}

impl Phases {
    fn of(flat: &FlatParts, sums: &[Sum], cut: &[Option<(usize, u32)>]) -> Phases {
        let mut ph = Phases {
            wire: vec![0; flat.num_wires as usize],
            sum: vec![u32::MAX; sums.len()],
        };
        // Gates write increasing wires; a cut wire (no gate writes it)
        // takes its phase before the gates that read it.
        let mut unwritten = cut
            .iter()
            .enumerate()
            .filter_map(|(x, c)| c.map(|(k, _)| (x, k)))
            .peekable();
        for g in &flat.gates {
            let o = g.out() as usize;
            while let Some((x, k)) = unwritten.next_if(|&(x, _)| x < o) {
                ph.wire[x] = ph.of_sum(sums, k) + 1;
            }
            ph.wire[o] = g.inputs().map(|x| ph.wire[x as usize]).max().unwrap_or(0);
        }
        for (x, k) in unwritten {
            ph.wire[x] = ph.of_sum(sums, k) + 1;
        }
        for k in 0..sums.len() {
            ph.of_sum(sums, k);
        }
        ph
    }

    /// Sum `k`'s phase (its operands' wires have theirs).
    fn of_sum(&mut self, sums: &[Sum], k: usize) -> u32 {
        if self.sum[k] != u32::MAX {
            return self.sum[k];
        }
        let mut p = 0;
        for x in sums[k].operands() {
            p = p.max(match x {
                Operand::Const(_) | Operand::Input(_) | Operand::Local(..) => 0,
                Operand::Linear(_) => 0,
                Operand::Sum(j) => self.of_sum(sums, *j),
                Operand::Gathered(e) => self.bits(e),
            });
        }
        self.sum[k] = p;
        p
    }

    /// The phase at which bits are all known.
    pub fn bits(&self, e: &[Bit]) -> u32 {
        e.iter()
            .filter_map(|&b| wire(b))
            .map(|x| self.wire[x as usize])
            .max()
            .unwrap_or(0)
    }
}

/// The partition being planned (then built, `super::build`).
pub(super) struct Plan<'a> {
    pub sums: &'a [Sum],
    pub cut: &'a [Option<(usize, u32)>],
    pub ph: Phases,
    pub inputs_at: InputWires,
    wire_needed: Vec<bool>,
    pub sum_needed: Vec<bool>,
    /// Sums whose bits gates read (A→Y).
    pub yao_needed: Vec<bool>,
    /// Gates an output needs.
    pub live: Vec<bool>,
    /// Bit vectors the Boolean phases give out: converted to words, or
    /// read by outputs.
    pub gathers: Vec<Vec<Bit>>,
    pub gather_of: HashMap<Vec<Bit>, usize>,
    /// Per C output, where its bits come from.
    pub outputs: Vec<Vec<OutPart>>,
}

/// Where a C output's bit comes from.
#[derive(Clone, Copy)]
pub(super) enum OutPart {
    Const(bool),
    /// Bit of a sum's word.
    Sum(usize, u32),
    /// Bit of a gathered vector.
    Gather(usize, u32),
}

impl<'a> Plan<'a> {
    fn new(
        flat: &FlatParts,
        sums: &'a [Sum],
        cut: &'a [Option<(usize, u32)>],
        ph: Phases,
        inputs_at: InputWires,
    ) -> Plan<'a> {
        let n = flat.num_wires as usize;
        Plan {
            sums,
            cut,
            ph,
            inputs_at,
            wire_needed: vec![false; n],
            sum_needed: vec![false; sums.len()],
            yao_needed: vec![false; sums.len()],
            live: vec![false; flat.gates.len()],
            gathers: Vec::new(),
            gather_of: HashMap::default(),
            outputs: Vec::new(),
        }
    }

    /// Bits converted from (or read out of) a Boolean phase: their wires
    /// are needed.
    fn gather(&mut self, bits: Vec<Bit>) -> usize {
        if let Some(&g) = self.gather_of.get(&bits) {
            return g;
        }
        for x in bits.iter().filter_map(|&b| wire(b)) {
            self.need_wire(x);
        }
        self.gather_of.insert(bits.clone(), self.gathers.len());
        self.gathers.push(bits);
        self.gathers.len() - 1
    }

    /// Sum `k` is needed, and what it reads (sums of sums as a work list:
    /// a chain of products may be as long as a loop).
    fn need_sum(&mut self, k: usize) {
        let mut todo = vec![k];
        while let Some(k) = todo.pop() {
            if self.sum_needed[k] {
                continue;
            }
            self.sum_needed[k] = true;
            let operands: Vec<Operand> = self.sums[k].operands().cloned().collect();
            for x in operands {
                match x {
                    Operand::Sum(j) => todo.push(j),
                    Operand::Gathered(e) => {
                        self.gather(gathered_bits(&e).1);
                    }
                    Operand::Const(_) | Operand::Input(_) | Operand::Local(..) => {}
                    Operand::Linear(_) => {}
                }
            }
        }
    }

    /// The C outputs: runs of bits that are a sum's word are opened as
    /// that word; the rest of each output is gathered from the Boolean
    /// phases.
    fn outputs(&mut self, outputs: &[(String, Vec<Bit>)]) {
        let mut by_bits: HashMap<&[Bit], usize> = HashMap::default();
        for (k, s) in self.sums.iter().enumerate() {
            by_bits.entry(&s.bits).or_insert(k);
        }
        let widths: Vec<u32> = {
            let mut w: Vec<u32> = self.sums.iter().map(|s| s.w).collect();
            w.sort_unstable();
            w.dedup();
            w.reverse();
            w
        };
        for (_, bits) in outputs {
            let mut parts = Vec::with_capacity(bits.len());
            let mut rest = Vec::new();
            let mut i = 0;
            while i < bits.len() {
                let found = widths.iter().find_map(|&w| {
                    let end = i + w as usize;
                    let k = *by_bits.get(bits.get(i..end)?)?;
                    (self.sums[k].w == w && secret(&bits[i..end])).then_some((k, w))
                });
                match found {
                    Some((k, w)) => {
                        self.need_sum(k);
                        parts.extend((0..w).map(|j| OutPart::Sum(k, j)));
                        i += w as usize;
                    }
                    None => {
                        match bits[i] {
                            Bit::Const(c) => parts.push(OutPart::Const(c)),
                            b => {
                                parts.push(OutPart::Gather(usize::MAX, rest.len() as u32));
                                rest.push(b);
                            }
                        }
                        i += 1;
                    }
                }
            }
            if !rest.is_empty() {
                let g = self.gather(rest);
                for p in &mut parts {
                    if let OutPart::Gather(x, _) = p {
                        *x = g;
                    }
                }
            }
            self.outputs.push(parts);
        }
    }

    /// Wire `x` is needed: its gate, or (a cut wire) its sum converted.
    fn need_wire(&mut self, x: Wire) {
        match self.cut[x as usize] {
            Some((k, _)) => {
                self.yao_needed[k] = true;
                self.need_sum(k);
            }
            None => self.wire_needed[x as usize] = true,
        }
    }

    /// Marks the gates the needed wires need, latest first (a gate reads
    /// only earlier wires, and a sum only wires before its bits).
    fn live(&mut self, gates: &[Gate]) {
        for (i, g) in gates.iter().enumerate().rev() {
            if !self.wire_needed[g.out() as usize] {
                continue;
            }
            self.live[i] = true;
            for x in g.inputs() {
                self.need_wire(x);
            }
        }
    }
}
