//! Building the mixed program of a planned partition: per phase, its
//! Boolean program (the live gates of the phase, reading the inputs,
//! earlier phases' exports and converted sums), the Y→A conversions of the
//! bits it gathers, the arithmetic of the sums of the phase, and their A→Y
//! conversions.

use std::collections::BTreeSet;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use twofold_circuit::mixed::mask;
use twofold_circuit::{
    Bit, Builder, FlatParts, Kind, MixedInput, MixedOutput, MixedProgram, Party, Step, ValueId,
    Wire,
};

use super::local::{cone, LocalInput};
use super::partition::{gathered_bits, wire, Operand, OutPart, Partitioned, Plan};
use super::{InputSource, OutBit};

/// What phase `p`'s Boolean program reads from outside it, and gives out.
#[derive(Default)]
struct PhaseIo {
    /// C inputs it reads.
    inputs: BTreeSet<usize>,
    /// Earlier phases whose exports it reads.
    exports: BTreeSet<u32>,
    /// Sums whose converted bits it reads.
    sums: BTreeSet<usize>,
    /// Its wires later phases read, in order.
    export: BTreeSet<Wire>,
    /// Gathered vectors it gives out.
    gathers: Vec<usize>,
    /// Its live gates, in order.
    gates: Vec<usize>,
}

/// The mixed program being built.
struct Out<'p, 'a> {
    plan: &'p Plan<'a>,
    program: MixedProgram,
    next: ValueId,
    /// Per C input, its bits' value.
    input_bits: HashMap<usize, ValueId>,
    /// Word inputs by source and width.
    input_words: HashMap<(InputSource, u32), ValueId>,
    sources: Vec<InputSource>,
    /// Words a party computes alone, by their bits...
    local_words: HashMap<Vec<Bit>, ValueId>,
    /// ...and how, in the order of their inputs.
    locals: Vec<LocalInput>,
    consts: HashMap<(u32, u64), ValueId>,
    /// Per phase, the value of its export vector.
    exports: HashMap<u32, ValueId>,
    gather_value: Vec<Option<ValueId>>,
    /// Gathered vectors made words, by width (converted, or injected).
    gather_word: HashMap<(usize, u32), ValueId>,
    /// Linear combinations computed, by width.
    linear_value: HashMap<(Operand, u32), ValueId>,
    sum_value: Vec<Option<ValueId>>,
    sum_yao: Vec<Option<ValueId>>,
}

impl Out<'_, '_> {
    fn step(&mut self, step: Step) -> ValueId {
        self.program.steps.push(step);
        self.next += 1;
        self.next - 1
    }

    /// Where a wire read in a phase other than its own comes from.
    fn source_phase(&self, x: Wire) -> Option<u32> {
        let p = self.plan;
        (!p.inputs_at.contains(x) && p.cut[x as usize].is_none()).then(|| p.ph.wire[x as usize])
    }

    /// The word value of an operand of a sum of width `w`.
    fn operand(&mut self, x: &Operand, w: u32) -> ValueId {
        match x {
            Operand::Const(v) => match self.consts.get(&(w, *v)) {
                Some(&id) => id,
                None => {
                    let id = self.step(Step::Const {
                        width: w,
                        value: *v,
                    });
                    self.consts.insert((w, *v), id);
                    id
                }
            },
            Operand::Sum(j) => self.sum_value[*j].expect("an earlier sum is made first"),
            Operand::Input(src) => self.input_words[&(*src, w)],
            Operand::Local(e, _) => self.local_words[e],
            Operand::Linear(terms) => {
                if let Some(&id) = self.linear_value.get(&(x.clone(), w)) {
                    return id;
                }
                let id = self.combine(None, terms, w);
                self.linear_value.insert((x.clone(), w), id);
                id
            }
            Operand::Gathered(e) => {
                let (one, gathered) = gathered_bits(e);
                let g = self.plan.gather_of[&gathered];
                let word = match self.gather_word.get(&(g, w)) {
                    Some(&id) => id,
                    None => {
                        let bits = self.gather_value[g].expect("gathered in an earlier phase");
                        let id = self.step(match one {
                            Some(_) => Step::Inject {
                                bit: bits,
                                width: w,
                            },
                            None => Step::ToArith(bits),
                        });
                        self.gather_word.insert((g, w), id);
                        id
                    }
                };
                match one {
                    None => word,
                    Some(one) => {
                        let v = self.times(word, one.times, w);
                        if one.plus == 0 {
                            return v;
                        }
                        let c = self.operand(&Operand::Const(one.plus), w);
                        self.step(Step::Add(v, c))
                    }
                }
            }
        }
    }

    /// `c·v` for `c` modulo `2^w`: `v`, its negation or a `MulConst`.
    fn times(&mut self, v: ValueId, c: u64, w: u32) -> ValueId {
        match c {
            1 => v,
            c if c == mask(w) => self.step(Step::Neg(v)),
            c => self.step(Step::MulConst(v, c)),
        }
    }

    /// `acc + Σ c·x` (`acc` absent: 0): each term added, or subtracted
    /// when its coefficient is nearer `2^w` than 0.
    fn combine(&mut self, mut acc: Option<ValueId>, terms: &[(Operand, u64)], w: u32) -> ValueId {
        for (x, c) in terms {
            if *c == 0 || *x == Operand::Const(0) {
                continue;
            }
            let v = self.operand(x, w);
            acc = Some(match acc {
                None => self.times(v, *c, w),
                Some(a) if *c > mask(w) / 2 => {
                    let v = self.times(v, c.wrapping_neg() & mask(w), w);
                    self.step(Step::Sub(a, v))
                }
                Some(a) => {
                    let v = self.times(v, *c, w);
                    self.step(Step::Add(a, v))
                }
            });
        }
        match acc {
            Some(a) => a,
            None => self.operand(&Operand::Const(0), w),
        }
    }

    /// Sum `k`'s arithmetic: its products (one dot product), then its
    /// words added or subtracted.
    fn sum(&mut self, k: usize) {
        let s = &self.plan.sums[k];
        let w = s.w;
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        for (x, y, c) in &s.pairs {
            let xv = self.operand(x, w);
            xs.push(self.times(xv, *c, w));
            ys.push(self.operand(y, w));
        }
        let products = match xs.len() {
            0 => None,
            1 => Some(self.step(Step::Mul(xs[0], ys[0]))),
            _ => Some(self.step(Step::Dot(xs, ys))),
        };
        self.sum_value[k] = Some(self.combine(products, &s.words, w));
    }
}

/// Builds the planned partition of `flat`.
pub(super) fn build(plan: Plan, flat: &FlatParts) -> Result<Partitioned, String> {
    let gather_phase: Vec<u32> = plan.gathers.iter().map(|e| plan.ph.bits(e)).collect();
    let mut last = 0;
    for (i, g) in flat.gates.iter().enumerate() {
        if plan.live[i] {
            last = last.max(plan.ph.wire[g.out() as usize]);
        }
    }
    last = last.max(gather_phase.iter().copied().max().unwrap_or(0));
    for (k, &needed) in plan.sum_needed.iter().enumerate() {
        if needed {
            last = last.max(plan.ph.sum[k] + 1);
        }
    }
    let mut out = Out {
        plan: &plan,
        program: MixedProgram {
            parties: 2,
            ..MixedProgram::default()
        },
        next: 0,
        input_bits: HashMap::default(),
        input_words: HashMap::default(),
        sources: Vec::new(),
        local_words: HashMap::default(),
        locals: Vec::new(),
        consts: HashMap::default(),
        exports: HashMap::default(),
        gather_value: vec![None; plan.gathers.len()],
        gather_word: HashMap::default(),
        linear_value: HashMap::default(),
        sum_value: vec![None; plan.sums.len()],
        sum_yao: vec![None; plan.sums.len()],
    };
    let mut io: Vec<PhaseIo> = (0..=last).map(|_| PhaseIo::default()).collect();
    let read = |io: &mut Vec<PhaseIo>, out: &Out, h: u32, x: Wire| {
        if let Some((input, _)) = plan.inputs_at.get(x) {
            io[h as usize].inputs.insert(input);
        } else if let Some((k, _)) = plan.cut[x as usize] {
            io[h as usize].sums.insert(k);
        } else if let Some(e) = out.source_phase(x).filter(|&e| e < h) {
            io[h as usize].exports.insert(e);
            io[e as usize].export.insert(x);
        }
    };
    for (i, g) in flat.gates.iter().enumerate() {
        if plan.live[i] {
            let h = plan.ph.wire[g.out() as usize];
            io[h as usize].gates.push(i);
            for x in g.inputs() {
                read(&mut io, &out, h, x);
            }
        }
    }
    for (g, e) in plan.gathers.iter().enumerate() {
        let h = gather_phase[g];
        io[h as usize].gathers.push(g);
        for x in e.iter().filter_map(|&b| wire(b)) {
            read(&mut io, &out, h, x);
        }
    }
    inputs(&mut out, flat, &io);
    let mut map: Vec<Bit> = vec![Bit::Const(false); flat.num_wires as usize];
    for (p, pio) in io.iter().enumerate() {
        if !pio.gates.is_empty() || !pio.gathers.is_empty() {
            boolean_phase(&mut out, flat, p as u32, &io, &mut map)?;
        }
        for k in 0..plan.sums.len() {
            if plan.sum_needed[k] && plan.ph.sum[k] == p as u32 {
                out.sum(k);
                if plan.yao_needed[k] {
                    let v = out.sum_value[k].expect("made just now");
                    out.sum_yao[k] = Some(out.step(Step::ToYao(v)));
                }
            }
        }
    }
    let outputs = outputs(&mut out, flat);
    let sums = plan.sum_needed.iter().filter(|&&n| n).count();
    let mut converted: Vec<u32> = (plan.sums.iter().zip(&plan.sum_needed))
        .filter(|&(s, &needed)| needed && s.reads_converted())
        .flat_map(|(s, _)| s.product_sums.iter().copied())
        .collect();
    converted.sort_unstable();
    out.program
        .validate()
        .map_err(|e| format!("the partition is not a valid mixed program: {e}"))?;
    Ok(Partitioned {
        program: out.program,
        sources: out.sources,
        locals: out.locals,
        outputs,
        sums,
        converted,
    })
}

/// The mixed program's inputs: the bits of each C input a phase reads,
/// the slices of inputs sums read as words, then the words a party
/// computes alone.
fn inputs(out: &mut Out, flat: &FlatParts, io: &[PhaseIo]) {
    let read: BTreeSet<usize> = io.iter().flat_map(|p| p.inputs.iter().copied()).collect();
    for &input in &read {
        let (v, _) = &flat.inputs[input];
        out.program.inputs.push(MixedInput {
            name: v.name.clone(),
            owner: v.party.index(),
            kind: Kind::Bits(v.width),
        });
        out.sources.push(InputSource {
            input,
            offset: 0,
            len: v.width,
            signed: false,
        });
        out.input_bits.insert(input, out.next);
        out.next += 1;
    }
    let plan = out.plan;
    for (k, s) in plan.sums.iter().enumerate() {
        if !plan.sum_needed[k] {
            continue;
        }
        for x in s.operands() {
            let Operand::Input(src) = x else { continue };
            if out.input_words.contains_key(&(*src, s.w)) {
                continue;
            }
            let (v, _) = &flat.inputs[src.input];
            let end = src.offset + src.len;
            out.program.inputs.push(MixedInput {
                name: format!("{}[{}..{end}]", v.name, src.offset),
                owner: v.party.index(),
                kind: Kind::Word(s.w),
            });
            out.sources.push(*src);
            out.input_words.insert((*src, s.w), out.next);
            out.next += 1;
        }
    }
    local_inputs(out, flat);
}

/// The words sums read that a party computes alone: inputs of their
/// owner, made by the gates of `flat` that compute them.
fn local_inputs(out: &mut Out, flat: &FlatParts) {
    let plan = out.plan;
    let mut made_by: Vec<u32> = Vec::new();
    // Per owner, the wires its words made so far.
    let mut made: HashMap<u8, HashSet<Wire>> = HashMap::default();
    for (k, s) in plan.sums.iter().enumerate() {
        if !plan.sum_needed[k] {
            continue;
        }
        for x in s.operands() {
            let Operand::Local(e, holder) = x else {
                continue;
            };
            if out.local_words.contains_key(e) {
                continue;
            }
            if made_by.is_empty() {
                made_by = vec![u32::MAX; flat.num_wires as usize];
                for (i, g) in flat.gates.iter().enumerate() {
                    made_by[g.out() as usize] = i as u32;
                }
            }
            let owner = holder.trailing_zeros() as u8;
            out.program.inputs.push(MixedInput {
                name: format!("local{}", out.locals.len()),
                owner,
                kind: Kind::Word(s.w),
            });
            let flat_gates = (&flat.gates[..], &made_by[..]);
            let made = made.entry(owner).or_default();
            out.locals.push(cone(e, flat_gates, &plan.inputs_at, made));
            out.local_words.insert(e.clone(), out.next);
            out.next += 1;
        }
    }
}

/// Phase `p`'s Boolean program and its step: inputs (C inputs, earlier
/// exports, converted sums), its live gates, then its export and gathered
/// vectors as outputs.
fn boolean_phase(
    out: &mut Out,
    flat: &FlatParts,
    p: u32,
    ios: &[PhaseIo],
    map: &mut [Bit],
) -> Result<(), String> {
    let plan = out.plan;
    let io = &ios[p as usize];
    let mut b = Builder::new();
    let mut args = Vec::new();
    for &input in &io.inputs {
        let (v, wires) = &flat.inputs[input];
        let bits = b.input(v.name.clone(), Party::A, v.width);
        for (&x, bit) in wires.iter().zip(bits) {
            map[x as usize] = bit;
        }
        args.push(out.input_bits[&input]);
    }
    for &e in &io.exports {
        let wires: Vec<Wire> = ios[e as usize].export.iter().copied().collect();
        let bits = b.input(format!("phase {e}"), Party::A, wires.len() as u32);
        for (&x, bit) in wires.iter().zip(bits) {
            map[x as usize] = bit;
        }
        args.push(out.exports[&e]);
    }
    for &k in &io.sums {
        let s = &plan.sums[k];
        let bits = b.input(format!("sum {k}"), Party::A, s.w);
        for (i, bit) in bits.into_iter().enumerate() {
            if let Some(x) = wire(s.bits[i]) {
                if plan.cut[x as usize] == Some((k, i as u32)) {
                    map[x as usize] = bit;
                }
            }
        }
        args.push(out.sum_yao[k].expect("converted in an earlier phase"));
    }
    for g in io.gates.iter().map(|&i| &flat.gates[i]) {
        let bit = |x: Wire| map[x as usize];
        let o = match *g {
            twofold_circuit::Gate::Xor { a, b: c, .. } => b.xor(bit(a), bit(c)),
            twofold_circuit::Gate::And { a, b: c, .. } => b.and(bit(a), bit(c)),
            twofold_circuit::Gate::Inv { a, .. } => b.not(bit(a)),
        };
        map[g.out() as usize] = o;
    }
    let mut outs = Vec::new();
    if !io.export.is_empty() {
        let bits: Vec<Bit> = io.export.iter().map(|&x| map[x as usize]).collect();
        b.output(format!("phase {p}"), &bits);
        outs.push(None);
    }
    for &g in &io.gathers {
        let bits: Vec<Bit> = plan.gathers[g]
            .iter()
            .map(|&x| match x {
                Bit::Wire(x) => map[x as usize],
                c => c,
            })
            .collect();
        b.output(format!("gather {g}"), &bits);
        outs.push(Some(g));
    }
    if outs.is_empty() {
        return Ok(());
    }
    let program = b
        .finish_program()
        .map_err(|e| format!("phase {p}'s Boolean program: {e}"))?;
    let index = out.program.programs.len() as u32;
    out.program.programs.push(program);
    out.step(Step::Boolean {
        program: index,
        args,
    });
    // One value per output, after the step's first.
    let first = out.next - 1;
    out.next += outs.len() as ValueId - 1;
    for (i, o) in outs.into_iter().enumerate() {
        let v = first + i as ValueId;
        match o {
            None => {
                out.exports.insert(p, v);
            }
            Some(g) => out.gather_value[g] = Some(v),
        }
    }
    Ok(())
}

/// The mixed outputs, and each C output's bits from them.
fn outputs(out: &mut Out, flat: &FlatParts) -> Vec<Vec<OutBit>> {
    let mut of_sum: HashMap<usize, usize> = HashMap::default();
    let mut of_gather: HashMap<usize, usize> = HashMap::default();
    let mut c_outputs = Vec::new();
    for ((name, _), parts) in flat.outputs.iter().zip(&out.plan.outputs) {
        let mut bits = Vec::with_capacity(parts.len());
        for part in parts {
            bits.push(match *part {
                OutPart::Const(c) => OutBit::Const(c),
                OutPart::Sum(k, j) => {
                    let n = out.program.outputs.len();
                    let i = *of_sum.entry(k).or_insert(n);
                    if i == n {
                        out.program.outputs.push(MixedOutput {
                            name: format!("{name}: sum {k}"),
                            value: out.sum_value[k].expect("needed sums are made"),
                        });
                    }
                    OutBit::Of(i, j)
                }
                OutPart::Gather(g, j) => {
                    let n = out.program.outputs.len();
                    let i = *of_gather.entry(g).or_insert(n);
                    if i == n {
                        out.program.outputs.push(MixedOutput {
                            name: name.clone(),
                            value: out.gather_value[g].expect("gathered outputs are made"),
                        });
                    }
                    OutBit::Of(i, j)
                }
            });
        }
        c_outputs.push(bits);
    }
    c_outputs
}
