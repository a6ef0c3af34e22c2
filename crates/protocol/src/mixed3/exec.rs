//! One computing party's run of a three-party mixed program after the
//! meeting: the inputs from its shares, the waves of the plan (products,
//! conversions, local steps) and the output shares.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use twofold_circuit::mixed::eval::{bits_word, word_bits};
use twofold_circuit::mixed::mask;
use twofold_circuit::{Kind, Step, ValueId};

use super::arith::{dot, pass_back, Zeros};
use super::fused::fused_terms;
use super::garbled::Garbled;
use super::{OutputBit, SharedMixed, Slice};
use crate::error::ProtocolError;
use crate::hybrid::circuits::{join_circuit, mask_circuit, JoinPart, Joined, MaskPart, Src};
use crate::hybrid::held::{self, Holding};
use crate::hybrid::meet::Links;
use crate::hybrid::shares::combine_two;
use crate::hybrid::HybridPhase;
use crate::messages::Bits;
use crate::mixed::plan::{factor_pairs, Plan, Term};
use crate::options::{Role, ShareKind};
use crate::schedule::Plan as ThreadPlan;

mod widen;

use widen::Widened;

/// What a party holds of a value.
#[derive(Clone, Debug)]
enum Held<L> {
    /// Not computed yet.
    Pending,
    /// Its share of a word, and the next party's if it has it (the
    /// replicated pair).
    Word { share: u64, next: Option<u64> },
    /// Its labels of garbled bits (CP3: placeholders).
    Bits(Vec<L>),
}

/// How each input and output value is shared.
pub(crate) struct Sharings<'a> {
    /// Per input value: its kind and lane.
    pub inputs: &'a [(ShareKind, u32)],
    /// Per output value: its kind and lane.
    pub outputs: &'a [(ShareKind, u32)],
}

/// One party's executor state.
pub(crate) struct Exec<'a, G: Garbled> {
    role: Role,
    links: &'a mut Links,
    garbled: G,
    zeros: Zeros,
    program: &'a SharedMixed,
    plan: &'a Plan,
    threads: ThreadPlan,
    values: Vec<Held<G::Label>>,
    /// Per fused product term (step, term): this party's share of what
    /// the product of the lanes' sums exceeds it by (`mixed3::fused`).
    corrections: HashMap<(usize, usize), u64>,
    /// Time per phase (input, arithmetic, garbled gates, reshare).
    pub phases: Vec<(HybridPhase, Duration)>,
}

impl<'a, G: Garbled> Exec<'a, G> {
    /// An executor after the meeting.
    pub fn new(
        role: Role,
        links: &'a mut Links,
        garbled: G,
        program: &'a SharedMixed,
        plan: &'a Plan,
        threads: ThreadPlan,
    ) -> Result<Self, ProtocolError> {
        let zeros = Zeros::offer(role, links)?;
        Ok(Exec {
            role,
            links,
            garbled,
            zeros,
            program,
            plan,
            threads,
            values: vec![Held::Pending; plan.kinds.len()],
            corrections: HashMap::new(),
            phases: Vec::new(),
        })
    }

    /// AND gates garbled or evaluated.
    pub fn and_gates(&self) -> u64 {
        self.garbled.and_gates()
    }

    /// Runs `f`, adding its time to `phase`.
    fn timed<T>(
        &mut self,
        phase: HybridPhase,
        f: impl FnOnce(&mut Self) -> Result<T, ProtocolError>,
    ) -> Result<T, ProtocolError> {
        let start = Instant::now();
        let out = f(self)?;
        let took = start.elapsed();
        match self.phases.iter_mut().find(|(p, _)| *p == phase) {
            Some((_, d)) => *d += took,
            None => self.phases.push((phase, took)),
        }
        Ok(out)
    }

    fn word(&self, v: ValueId) -> (u64, Option<u64>) {
        match self.values[v as usize] {
            Held::Word { share, next } => (share, next),
            _ => unreachable!("planned: value {v} is a word computed before"),
        }
    }

    fn labels(&self, v: ValueId) -> &[G::Label] {
        match &self.values[v as usize] {
            Held::Bits(l) => l,
            _ => unreachable!("planned: value {v} is bits computed before"),
        }
    }

    fn width(&self, v: ValueId) -> u32 {
        self.plan.kinds[v as usize].bits()
    }

    /// Sets what this party holds of `v`; a word's share (and pair) is
    /// recorded if this thread records (`hybrid::held`).
    fn hold(&mut self, v: ValueId, what: Held<G::Label>) {
        if let Held::Word { share, next } = what {
            held::hold(|| Holding::Word {
                value: v,
                width: self.width(v),
                share,
                next,
            });
        }
        self.values[v as usize] = what;
    }

    /// The program's inputs from this party's shares of the input values.
    pub fn inputs(&mut self, shares: &[Vec<bool>], kinds: &Sharings) -> Result<(), ProtocolError> {
        self.timed(HybridPhase::Input, |e| e.inputs_from(shares, kinds))
    }

    fn inputs_from(&mut self, shares: &[Vec<bool>], kinds: &Sharings) -> Result<(), ProtocolError> {
        let program = self.program;
        // Words that are a lane's low bits of additive shares are shares
        // already; words that widen a lane are its shares less 2^lane
        // times its wrap count (below); every other input joins its value
        // in the garbled sharing.
        let mut joined_values = vec![false; program.input_values.len()];
        let mut widened = Vec::new();
        let mut zero_extended = false;
        for (k, v, src) in program.sliced_inputs() {
            let (kind, lane) = kinds.inputs[src.value];
            match v.kind {
                Kind::Word(w) if kind == ShareKind::Add && program.is_lane_word(k, lane) => {
                    let at = src.offset as usize;
                    let share = bits_word(&shares[src.value][at..at + w as usize]);
                    self.hold(k as ValueId, Held::Word { share, next: None });
                }
                Kind::Word(_) if kind == ShareKind::Add && program.widens_lane(k, lane) => {
                    widened.push((k as ValueId, *src));
                }
                kind => {
                    joined_values[src.value] = true;
                    zero_extended |= !src.signed && kind.bits() > src.len;
                }
            }
        }
        let needed: Vec<usize> = (0..joined_values.len())
            .filter(|&v| joined_values[v])
            .collect();
        let lane_of = |src: &Slice| &shares[src.value][src.offset as usize..][..src.len as usize];
        // CP2 sends CP3 its shares of the values to join and of the lanes
        // to widen (as in the hybrid mode's input phase); CP3 combines them
        // with its own (a lane's sum modulo 2^lane, and the carry out of it).
        let bits_of = |v: &usize| shares[*v].iter().copied();
        let nothing = needed.is_empty() && widened.is_empty();
        // Products of two widened lanes that nothing else reads are fused
        // with the widening (`mixed3::fused`).
        let widened_lane = |k: usize| {
            let (kind, lane) = kinds.inputs[program.sources[k].value];
            (kind == ShareKind::Add && program.widens_lane(k, lane)).then_some(lane)
        };
        let fused = fused_terms(program, self.plan, widened_lane);
        let is_fused = |v: ValueId| fused.iter().any(|f| f.has(v));
        if self.role == Role::Cp2 && !nothing {
            let lanes = widened.iter().flat_map(|(_, src)| lane_of(src));
            let to_cp3 = &mut self.links.to(Role::Cp3)[0];
            Bits::send(
                to_cp3,
                needed.iter().flat_map(bits_of).chain(lanes.copied()),
            )?;
        }
        // The zero-sharing keys come before anything else a party receives
        // from the party that drew them, and after CP2's first message.
        self.zeros.accept(self.role, self.links)?;
        if nothing {
            return Ok(());
        }
        let mut sums = Vec::new();
        let cp3_bits = match self.role {
            Role::Cp3 => {
                let n = needed.iter().map(|&v| shares[v].len()).sum::<usize>()
                    + widened.iter().map(|(_, s)| s.len as usize).sum::<usize>();
                let theirs = Bits::recv(&mut self.links.to(Role::Cp2)[0], n, "CP2's shares")?;
                let mut at = 0;
                let mut combined = Vec::with_capacity(n);
                for &v in &needed {
                    let (kind, lane) = kinds.inputs[v];
                    let width = shares[v].len();
                    combined.extend(combine_two(kind, lane, &theirs[at..at + width], &shares[v]));
                    at += width;
                }
                for (_, src) in &widened {
                    let len = src.len as usize;
                    let sum = bits_word(&theirs[at..at + len]) + bits_word(lane_of(src));
                    combined.extend(word_bits(sum & mask(src.len), src.len));
                    sums.push(sum);
                    at += len;
                }
                held::hold(|| Holding::Joined(combined.clone()));
                combined
            }
            Role::Cp1 | Role::Cp2 => Vec::new(),
        };
        let mut parts: Vec<JoinPart> = needed
            .iter()
            .map(|&v| JoinPart::value(kinds.inputs[v].0, kinds.inputs[v].1, shares[v].len() as u32))
            .collect();
        let mut cp1_bits: Vec<bool> = match self.role {
            Role::Cp1 => needed.iter().flat_map(bits_of).collect(),
            _ => Vec::new(),
        };
        let mut cp3_bits = cp3_bits;
        if zero_extended {
            // A wire of public 0 (its bit 0 from CP1 and from CP3), after
            // the values joined and before the lanes to widen (CP3 has
            // combined those already: the bit goes between).
            parts.push(JoinPart::value(ShareKind::Xor, 1, 1));
            let at = needed.iter().map(|&v| shares[v].len()).sum::<usize>();
            match self.role {
                Role::Cp1 => cp1_bits.push(false),
                Role::Cp3 => cp3_bits.insert(at, false),
                Role::Cp2 => {}
            }
        }
        for (k, src) in &widened {
            parts.push(JoinPart {
                out: Joined::Wraps {
                    signed: src.signed,
                    sum: is_fused(*k),
                },
                ..JoinPart::value(ShareKind::Add, src.len, src.len)
            });
            if self.role == Role::Cp1 {
                cp1_bits.extend(lane_of(src));
            }
        }
        let mut joined = self.join(&parts, &cp1_bits, &cp3_bits)?;
        let wraps = joined.split_off(joined.len() - widened.len());
        let zero = zero_extended.then(|| joined.pop().expect("the zero wire")[0]);
        let mut value_labels: Vec<Option<Vec<G::Label>>> = vec![None; joined_values.len()];
        for (&v, labels) in needed.iter().zip(joined) {
            value_labels[v] = Some(labels);
        }
        // Bits inputs take their slice; the other words joined come back
        // by Y→A.
        let mut to_words = Vec::new();
        let mut joined_input = vec![true; program.program.inputs.len()];
        for (k, _) in &widened {
            joined_input[*k as usize] = false;
        }
        for (k, v, src) in program.sliced_inputs() {
            if !matches!(self.values[k], Held::Pending) || !joined_input[k] {
                continue;
            }
            let Some(labels) = &value_labels[src.value] else {
                unreachable!("joined above");
            };
            let slice = &labels[src.offset as usize..(src.offset + src.len) as usize];
            let last = *slice.last().expect("a slice of at least one bit");
            let fill = if src.signed {
                last
            } else {
                zero.unwrap_or(last)
            };
            let mut bits = slice.to_vec();
            bits.resize(v.kind.bits() as usize, fill);
            match v.kind {
                Kind::Bits(_) => self.hold(k as ValueId, Held::Bits(bits)),
                Kind::Word(w) => to_words.push((k as ValueId, MaskPart::word(w, bits))),
            }
        }
        for (v, share) in self.words_of(to_words)? {
            self.hold(v, Held::Word { share, next: None });
        }
        let sums = sums.into_iter().chain(std::iter::repeat(0));
        let lanes = widened.iter().zip(wraps).zip(sums);
        let lanes = lanes.map(|((&(value, src), wraps), sum)| Widened {
            value,
            lane: src.len,
            signed: src.signed,
            own: bits_word(lane_of(&src)),
            sum,
            wraps,
        });
        self.widen(lanes.collect(), &fused)?;
        Ok(())
    }

    /// Y→A of garbled values into the words they define (value, and the
    /// value's garbled bits as a part to mask), in one batch: this party's
    /// share of each.
    fn words_of(
        &mut self,
        words: Vec<(ValueId, MaskPart<G::Label>)>,
    ) -> Result<Vec<(ValueId, u64)>, ProtocolError> {
        if words.is_empty() {
            return Ok(Vec::new());
        }
        let (ids, parts): (Vec<ValueId>, Vec<MaskPart<G::Label>>) = words.into_iter().unzip();
        let shares = self.masked_shares(&parts, false)?;
        Ok(ids
            .into_iter()
            .zip(shares.iter().map(|s| bits_word(s)))
            .collect())
    }

    /// Joins values whose CP1 bits and CP3 bits (XOR or sums per lane of
    /// the two) are given, in the garbled sharing: returns each part's
    /// labels.
    fn join(
        &mut self,
        parts: &[JoinPart],
        cp1_bits: &[bool],
        cp3_bits: &[bool],
    ) -> Result<Vec<Vec<G::Label>>, ProtocolError> {
        let n: usize = parts.iter().map(|p| p.width as usize).sum();
        let outputs: usize = parts.iter().map(|p| p.out_width() as usize).sum();
        let from_cp1 = self.garbled.cp1_bits(self.links, cp1_bits, n)?;
        let from_cp3 = self.garbled.cp3_bits(self.links, cp3_bits, n)?;
        let (mut a, mut b) = (from_cp1.into_iter(), from_cp3.into_iter());
        let mut inputs = Vec::with_capacity(2 * n);
        for p in parts {
            inputs.extend(a.by_ref().take(p.width as usize));
            inputs.extend(b.by_ref().take(p.width as usize));
        }
        let out = self
            .garbled
            .circuit(self.links, || join_circuit(parts), &inputs, outputs)?;
        let mut out = out.into_iter();
        Ok(parts
            .iter()
            .map(|p| out.by_ref().take(p.out_width() as usize).collect())
            .collect())
    }

    /// Shares of garbled values: CP1 draws a mask `m1` (and, if
    /// `cp3_masks`, CP3 one `m3`), the circuit computes `z = x ⊕ m1 ⊕ m3`
    /// (or `x − m1 − m3` per lane) and opens it to CP2. Returns this
    /// party's share bits of each part (`m1`, `z` or `m3`; without
    /// `cp3_masks` CP3's are 0 — Y→A, whose words are rerandomized before
    /// any of their shares is sent or stored).
    fn masked_shares(
        &mut self,
        parts: &[MaskPart<G::Label>],
        cp3_masks: bool,
    ) -> Result<Vec<Vec<bool>>, ProtocolError> {
        let n: usize = parts.iter().map(|p| p.bits.len()).sum();
        let mut prg = twofold_crypto::Prg::try_from_os()?;
        let masks: Vec<bool> = match self.role {
            Role::Cp1 => (0..n).map(|_| prg.random_bool()).collect(),
            Role::Cp3 if cp3_masks => (0..n).map(|_| prg.random_bool()).collect(),
            Role::Cp3 => vec![false; n],
            Role::Cp2 => Vec::new(),
        };
        self.masked_with(parts, cp3_masks, masks)
    }

    /// [`Exec::masked_shares`] with this party's masks given (CP1's, CP3's
    /// if `cp3_masks`, else zeros; none on CP2).
    fn masked_with(
        &mut self,
        parts: &[MaskPart<G::Label>],
        cp3_masks: bool,
        masks: Vec<bool>,
    ) -> Result<Vec<Vec<bool>>, ProtocolError> {
        let n: usize = parts.iter().map(|p| p.bits.len()).sum();
        let m1 = self.garbled.cp1_bits(self.links, &masks, n)?;
        let m3 = if cp3_masks {
            self.garbled.cp3_bits(self.links, &masks, n)?
        } else {
            Vec::new()
        };
        let mut inputs: Vec<G::Label> = parts
            .iter()
            .flat_map(|p| p.bits.iter().filter_map(|s| s.wire()))
            .collect();
        inputs.extend(m1);
        inputs.extend(m3);
        let build = || mask_circuit(parts, cp3_masks);
        let z = self.garbled.circuit(self.links, build, &inputs, n)?;
        let opened = self.garbled.open_to_cp2(self.links, &z)?;
        if let Some(bits) = &opened {
            held::hold(|| Holding::Opened(bits.clone()));
        }
        let mine = opened.unwrap_or(masks);
        let mut mine = mine.into_iter();
        Ok(parts
            .iter()
            .map(|p| mine.by_ref().take(p.bits.len()).collect())
            .collect())
    }

    /// Runs every wave.
    pub fn waves(&mut self) -> Result<(), ProtocolError> {
        let plan = self.plan;
        for wave in &plan.waves {
            self.timed(HybridPhase::Arithmetic, |e| e.products(&wave.sending))?;
            self.timed(HybridPhase::Gates, |e| e.conversions(&wave.sending))?;
            for &i in &wave.local {
                let phase = match self.program.program.steps[i] {
                    Step::Boolean { .. } => HybridPhase::Gates,
                    _ => HybridPhase::Arithmetic,
                };
                self.timed(phase, |e| e.local(i))?;
            }
        }
        Ok(())
    }

    /// The products among `steps`: one replication exchange for every
    /// factor that lacks its next share, then each product locally.
    fn products(&mut self, steps: &[usize]) -> Result<(), ProtocolError> {
        let program = &self.program.program;
        let products: Vec<usize> = steps
            .iter()
            .copied()
            .filter(|&i| matches!(program.steps[i], Step::Mul(..) | Step::Dot(..)))
            .collect();
        let mut replicate: Vec<ValueId> = Vec::new();
        for &i in &products {
            for ((x, y), term) in factor_pairs(&program.steps[i])
                .into_iter()
                .zip(&self.plan.terms[i])
            {
                if *term == Term::Beaver {
                    replicate.extend([x, y]);
                }
            }
        }
        replicate.retain(|&v| self.word(v).1.is_none());
        replicate.sort_unstable();
        replicate.dedup();
        if !replicate.is_empty() {
            let mut words = Vec::with_capacity(replicate.len());
            for &v in &replicate {
                let w = self.width(v);
                let share = self.word(v).0.wrapping_add(self.zeros.zero(w)) & mask(w);
                words.push((share, w));
            }
            let theirs = pass_back(self.role, self.links, &words)?;
            for ((&v, (share, _)), next) in replicate.iter().zip(words).zip(theirs) {
                let next = Some(next);
                self.hold(v, Held::Word { share, next });
            }
        }
        for i in products {
            self.local(i)?;
        }
        Ok(())
    }

    /// The conversions among `steps`: A→Y in one batch, then Y→A and bit
    /// injection in another.
    fn conversions(&mut self, steps: &[usize]) -> Result<(), ProtocolError> {
        let program = &self.program.program;
        let first = program.first_values();
        let to_yao: Vec<(ValueId, ValueId)> = steps
            .iter()
            .filter_map(|&i| match program.steps[i] {
                Step::ToYao(x) => Some((first[i], x)),
                _ => None,
            })
            .collect();
        if !to_yao.is_empty() {
            let words: Vec<ValueId> = to_yao.iter().map(|&(_, x)| x).collect();
            let labels = self.words_to_yao(&words)?;
            for ((v, _), l) in to_yao.into_iter().zip(labels) {
                self.hold(v, Held::Bits(l));
            }
        }
        let mut to_arith = Vec::new();
        for &i in steps {
            let part = match program.steps[i] {
                Step::ToArith(x) => MaskPart::word(self.width(x), self.labels(x).to_vec()),
                Step::Inject { bit, width } => MaskPart::word(width, self.labels(bit).to_vec()),
                _ => continue,
            };
            to_arith.push((first[i], part));
        }
        for (v, share) in self.words_of(to_arith)? {
            self.hold(v, Held::Word { share, next: None });
        }
        Ok(())
    }

    /// A→Y of words: fresh shares (a zero sharing added), CP2 sends CP3
    /// its share, CP3 adds its own, and a garbled adder joins CP1's share
    /// and that sum.
    fn words_to_yao(&mut self, words: &[ValueId]) -> Result<Vec<Vec<G::Label>>, ProtocolError> {
        let mut fresh = Vec::with_capacity(words.len());
        for &v in words {
            let w = self.width(v);
            let share = self.word(v).0.wrapping_add(self.zeros.zero(w)) & mask(w);
            // The pair is stale once the share is rerandomized.
            self.hold(v, Held::Word { share, next: None });
            fresh.push((share, w));
        }
        let (cp1_bits, cp3_bits) = match self.role {
            Role::Cp1 => (words_bits(&fresh), Vec::new()),
            Role::Cp2 => {
                let to_cp3 = &mut self.links.to(Role::Cp3)[0];
                Bits::send(to_cp3, words_bits(&fresh).into_iter())?;
                (Vec::new(), Vec::new())
            }
            Role::Cp3 => {
                let n = fresh.iter().map(|&(_, w)| w as usize).sum();
                let theirs = Bits::recv(&mut self.links.to(Role::Cp2)[0], n, "CP2's shares")?;
                let mut at = 0;
                let mut sums = Vec::with_capacity(fresh.len());
                for &(share, w) in &fresh {
                    let theirs = bits_word(&theirs[at..at + w as usize]);
                    sums.push((share.wrapping_add(theirs) & mask(w), w));
                    at += w as usize;
                }
                let sums = words_bits(&sums);
                held::hold(|| Holding::Joined(sums.clone()));
                (Vec::new(), sums)
            }
        };
        let parts: Vec<JoinPart> = fresh
            .iter()
            .map(|&(_, w)| JoinPart::value(ShareKind::Add, w, w))
            .collect();
        self.join(&parts, &cp1_bits, &cp3_bits)
    }

    /// A step with no message: linear steps, products from replicated
    /// pairs (or with a public factor), Boolean programs.
    fn local(&mut self, i: usize) -> Result<(), ProtocolError> {
        let program = &self.program.program;
        let v = self.plan.first_values[i] as usize;
        let w = self.plan.kinds[v].bits();
        let m = mask(w);
        let cp1 = |r: Role| r == Role::Cp1;
        let held = match &program.steps[i] {
            Step::Const { value, .. } => Held::Word {
                share: if cp1(self.role) { *value } else { 0 },
                next: Some(if cp1(super::arith::next(self.role)) {
                    *value
                } else {
                    0
                }),
            },
            Step::Add(x, y) => self.linear(*x, *y, |a, b| a.wrapping_add(b) & m),
            Step::Sub(x, y) => self.linear(*x, *y, |a, b| a.wrapping_sub(b) & m),
            Step::Neg(x) => self.linear(*x, *x, |a, _| a.wrapping_neg() & m),
            Step::MulConst(x, c) => self.linear(*x, *x, |a, _| a.wrapping_mul(*c) & m),
            step @ (Step::Mul(..) | Step::Dot(..)) => {
                let mut sum = 0u64;
                let pairs = factor_pairs(step);
                for (t, ((x, y), term)) in pairs.into_iter().zip(&self.plan.terms[i]).enumerate() {
                    let term = match term {
                        Term::Beaver => {
                            let pair = |v| match self.word(v) {
                                (s, Some(n)) => (s, n),
                                _ => unreachable!("replicated before the product"),
                            };
                            let correction = self.corrections.get(&(i, t)).copied();
                            dot(std::iter::once((pair(x), pair(y))), w)
                                .wrapping_sub(correction.unwrap_or(0))
                        }
                        _ => self.public_term(x, y),
                    };
                    sum = sum.wrapping_add(term);
                }
                let share = sum.wrapping_add(self.zeros.zero(w)) & m;
                Held::Word { share, next: None }
            }
            Step::Boolean { program: p, args } => {
                let prog = &program.programs[*p as usize];
                let inputs: Vec<G::Label> =
                    args.iter().flat_map(|&a| self.labels(a).to_vec()).collect();
                let out = self
                    .garbled
                    .program(self.links, prog, &inputs, self.threads)?;
                let mut out = out.into_iter();
                for (k, o) in prog.main.outputs.iter().enumerate() {
                    let labels = out.by_ref().take(o.wires.len()).collect();
                    self.hold((v + k) as ValueId, Held::Bits(labels));
                }
                return Ok(());
            }
            Step::ToYao(_) | Step::ToArith(_) | Step::Inject { .. } => {
                unreachable!("planned: conversions send")
            }
        };
        self.hold(v as ValueId, held);
        Ok(())
    }

    /// `f` of two words' shares, and of their next shares if both are
    /// known.
    fn linear(&self, x: ValueId, y: ValueId, f: impl Fn(u64, u64) -> u64) -> Held<G::Label> {
        let ((a, an), (b, bn)) = (self.word(x), self.word(y));
        Held::Word {
            share: f(a, b),
            next: an.zip(bn).map(|(p, q)| f(p, q)),
        }
    }

    /// This party's share of `x·y` where one factor is public (CP1's share
    /// of a public value is the value, the others' 0).
    fn public_term(&self, x: ValueId, y: ValueId) -> u64 {
        let public = |v: ValueId| self.plan.holders[v as usize].public;
        match (public(x), public(y)) {
            (Some(p), _) => p.wrapping_mul(self.word(y).0),
            (_, Some(q)) => self.word(x).0.wrapping_mul(q),
            _ => unreachable!("planned: a local term has a public factor"),
        }
    }

    /// This party's shares of the output values: words shared as the
    /// output's lanes are, with a zero sharing added; every other output
    /// through the garbled sharing, masked by CP1 and CP3 and opened to
    /// CP2.
    pub fn outputs(&mut self, kinds: &Sharings) -> Result<Vec<Vec<bool>>, ProtocolError> {
        self.timed(HybridPhase::Reshare, |e| e.outputs_as(kinds))
    }

    fn outputs_as(&mut self, kinds: &Sharings) -> Result<Vec<Vec<bool>>, ProtocolError> {
        let program = self.program;
        let outs = &program.program.outputs;
        let output_bits: Vec<&Vec<OutputBit>> =
            program.output_values.iter().map(|(_, bits)| bits).collect();
        let direct: Vec<bool> = (0..output_bits.len())
            .map(|j| {
                let (kind, lane) = kinds.outputs[j];
                kind == ShareKind::Add && program.lanes_are_words(&self.plan.kinds, j, lane)
            })
            .collect();
        // Outputs whose lanes are words take those words' shares first: a
        // word another output reads bit by bit goes to the garbled
        // sharing below, and is held as bits from then on.
        let mut shares: Vec<Vec<bool>> = vec![Vec::new(); direct.len()];
        for (j, bits) in output_bits.iter().enumerate().filter(|&(j, _)| direct[j]) {
            let (_, lane) = kinds.outputs[j];
            for chunk in bits.chunks(lane as usize) {
                let OutputBit::Of(o, _) = chunk[0] else {
                    unreachable!("checked: a lane is a word");
                };
                let share = self
                    .word(outs[o].value)
                    .0
                    .wrapping_add(self.zeros.zero(lane));
                shares[j].extend(word_bits(share & mask(lane), lane));
            }
        }
        // Words read bit by bit go to the garbled sharing.
        let mut words: Vec<ValueId> = Vec::new();
        for (bits, _) in output_bits.iter().zip(&direct).filter(|(_, d)| !**d) {
            for bit in bits.iter() {
                if let OutputBit::Of(o, _) = *bit {
                    let v = outs[o].value;
                    if matches!(self.plan.kinds[v as usize], Kind::Word(_)) {
                        words.push(v);
                    }
                }
            }
        }
        words.sort_unstable();
        words.dedup();
        if !words.is_empty() {
            let labels = self.words_to_yao(&words)?;
            for (&v, l) in words.iter().zip(labels) {
                self.hold(v, Held::Bits(l));
            }
        }
        let mut masked = Vec::new();
        for (j, bits) in output_bits.iter().enumerate().filter(|&(j, _)| !direct[j]) {
            let (kind, lane) = kinds.outputs[j];
            let srcs = bits
                .iter()
                .map(|b| match *b {
                    OutputBit::Const(c) => Src::Const(c),
                    OutputBit::Of(o, i) => Src::Wire(self.labels(outs[o].value)[i as usize]),
                })
                .collect();
            masked.push((
                j,
                MaskPart {
                    kind,
                    lane,
                    bits: srcs,
                },
            ));
        }
        if !masked.is_empty() {
            let (ids, parts): (Vec<usize>, Vec<MaskPart<G::Label>>) = masked.into_iter().unzip();
            for (j, share) in ids.into_iter().zip(self.masked_shares(&parts, true)?) {
                shares[j] = share;
            }
        }
        Ok(shares)
    }
}

/// The bits of words, each of its width, least significant first.
fn words_bits(words: &[(u64, u32)]) -> Vec<bool> {
    words.iter().flat_map(|&(x, w)| word_bits(x, w)).collect()
}
