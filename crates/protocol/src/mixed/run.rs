//! One party's run of a mixed program after the handshake: the waves of
//! the [`Plan`], each its sending steps batched, then its local steps.

use std::collections::BTreeMap;

use twofold_circuit::mixed::eval::{bits_word, word_bits};
use twofold_circuit::{Kind, MixedProgram, Party, Step, ValueId};
use twofold_net::Channel;
use twofold_ot::Extension;

use super::cost::garbled_inputs;
use super::plan::{factor_pairs, CrossLayer, Group, Plan, Term, YaoEntry};
use super::yao::YaoSide;
use super::{Sharing, Traffic};
use crate::arith::{Arith, Cross, Triples, Width};
use crate::error::ProtocolError;
use crate::messages::Bits;
use crate::options::Reveal;

/// Where a product term is: its number among the terms of the steps of
/// one layer (see `Exec::products`).
type TermAt = usize;

/// A term's factors and where it is.
type Pair = ((ValueId, ValueId), TermAt);

/// What a party holds of a value.
#[derive(Clone, Debug)]
enum Held<L> {
    /// Not computed yet.
    Pending,
    /// Its share of a word.
    Word(u64),
    /// Its labels of garbled bits.
    Bits(Vec<L>),
}

/// One party's executor state.
pub(crate) struct Exec<'a, Y: YaoSide> {
    party: Party,
    chan: &'a mut Channel,
    /// The arithmetic party (its flights are the report's).
    pub arith: Arith,
    /// The garbled sharing, if the program has one.
    pub yao: Option<Y>,
    /// Beaver triples, by width.
    triples: BTreeMap<u32, Triples>,
    plan: &'a Plan,
    program: &'a MixedProgram,
    /// Bytes per sharing so far.
    pub traffic: Traffic,
    /// Messages of conversions and garbled steps waited for (the
    /// arithmetic ones are [`Arith::flights`]).
    pub yao_flights: u64,
    values: Vec<Held<Y::Label>>,
}

fn width(kind: Kind) -> Result<Width, ProtocolError> {
    Width::new(kind.bits())
}

impl<Y: YaoSide> Exec<'_, Y> {
    /// Bytes this party sent so far, setup included.
    pub fn bytes_sent(&self) -> u64 {
        self.chan.bytes_sent()
    }
}

impl<'a, Y: YaoSide> Exec<'a, Y> {
    /// An executor over a set-up arithmetic party and garbled side.
    pub fn new(
        party: Party,
        chan: &'a mut Channel,
        (arith, yao, triples): (Arith, Option<Y>, BTreeMap<u32, Triples>),
        plan: &'a Plan,
        program: &'a MixedProgram,
        traffic: Traffic,
    ) -> Self {
        Exec {
            party,
            chan,
            arith,
            yao,
            triples,
            plan,
            program,
            traffic,
            yao_flights: 0,
            values: vec![Held::Pending; plan.kinds.len()],
        }
    }

    /// Counts the bytes `f` moves as `sharing`'s.
    fn counted<T>(
        &mut self,
        sharing: Sharing,
        f: impl FnOnce(&mut Self) -> Result<T, ProtocolError>,
    ) -> Result<T, ProtocolError> {
        let before = self.chan.bytes_sent() + self.chan.bytes_received();
        let out = f(self)?;
        let after = self.chan.bytes_sent() + self.chan.bytes_received();
        self.traffic.add(sharing, after - before);
        Ok(out)
    }

    /// Runs `f` on the garbled side and the channel, its bytes counted as
    /// `sharing`'s.
    fn garbled<T>(
        &mut self,
        sharing: Sharing,
        f: impl FnOnce(&mut Y, &mut Channel) -> Result<T, ProtocolError>,
    ) -> Result<T, ProtocolError> {
        self.counted(sharing, |e| {
            let yao = e
                .yao
                .as_mut()
                .ok_or_else(|| ProtocolError::Internal("a garbled step without garbling".into()))?;
            f(yao, e.chan)
        })
    }

    fn share(&self, v: ValueId) -> u64 {
        match self.values[v as usize] {
            Held::Word(s) => s,
            _ => unreachable!("planned: value {v} is a word computed before"),
        }
    }

    fn labels(&self, v: ValueId) -> &[Y::Label] {
        match &self.values[v as usize] {
            Held::Bits(l) => l,
            _ => unreachable!("planned: value {v} is bits computed before"),
        }
    }

    /// The inputs: words are this party's shares (its own value, 0 for
    /// the peer's); garbled bits by the garbled input phase.
    pub fn inputs(&mut self, mine: &[Option<Vec<bool>>]) -> Result<(), ProtocolError> {
        let (mut own, mut peer) = (Vec::new(), 0usize);
        for (k, (v, given)) in self.program.inputs.iter().zip(mine).enumerate() {
            match (v.kind, given) {
                (Kind::Word(_), Some(bits)) => self.values[k] = Held::Word(bits_word(bits)),
                (Kind::Word(_), None) => self.values[k] = Held::Word(0),
                (Kind::Bits(_), Some(bits)) => own.extend_from_slice(bits),
                (Kind::Bits(n), None) => peer += n as usize,
            }
        }
        if own.is_empty() && peer == 0 {
            return Ok(());
        }
        let (a, b) = self.garbled(Sharing::Yao, |y, chan| y.inputs(chan, &own, peer))?;
        let (a_bits, b_bits) = match self.party {
            Party::A => (own.len(), peer),
            Party::B => (peer, own.len()),
        };
        // (Messages only: the same for every extension.)
        let cost = garbled_inputs(a_bits as u64, b_bits as u64, Extension::DEFAULT);
        self.yao_flights += cost.flights;
        let (mut a, mut b) = (a.into_iter(), b.into_iter());
        for (k, v) in self.program.inputs.iter().enumerate() {
            if let Kind::Bits(n) = v.kind {
                let from = if v.owner == 0 { &mut a } else { &mut b };
                self.values[k] = Held::Bits(from.by_ref().take(n as usize).collect());
            }
        }
        Ok(())
    }

    /// Runs every wave.
    pub fn waves(&mut self) -> Result<(), ProtocolError> {
        for wave in &self.plan.waves {
            self.products(&wave.sending)?;
            self.conversions(&wave.sending)?;
            for &i in &wave.local {
                self.local(i)?;
            }
        }
        Ok(())
    }

    /// The products among `steps`, a layer of cross products and one of
    /// Beaver products per width.
    fn products(&mut self, steps: &[usize]) -> Result<(), ProtocolError> {
        let program = self.program;
        let mut by_width: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for &i in steps {
            if matches!(program.steps[i], Step::Mul(..) | Step::Dot(..)) {
                let w = self.plan.kinds[self.plan.first_values[i] as usize].bits();
                by_width.entry(w).or_default().push(i);
            }
        }
        for (w, steps) in by_width {
            let width = Width::new(w)?;
            // The steps' terms numbered in turn: step `steps[j]`'s term `k`
            // is `firsts[j] + k` (a table of every term's share: a large
            // matrix product has millions).
            let (mut cross, mut beaver) = (Vec::new(), Vec::new());
            let mut firsts = Vec::with_capacity(steps.len());
            let mut terms = 0;
            for &i in &steps {
                firsts.push(terms);
                let pairs = factor_pairs(&program.steps[i]);
                for (k, (term, pair)) in self.plan.terms[i].iter().zip(pairs).enumerate() {
                    match *term {
                        Term::Cross { a, b } => cross.push(((a, b), terms + k)),
                        Term::Beaver => beaver.push((pair, terms + k)),
                        Term::Local => {}
                    }
                }
                terms += self.plan.terms[i].len();
            }
            // Each term's share from a layer (0 for a term of none).
            let mut extra = vec![0; terms];
            self.counted(Sharing::Arith, |e| e.cross_layer(width, &cross, &mut extra))?;
            let multiplied = self.counted(Sharing::Arith, |e| e.beaver_layer(width, &beaver))?;
            for (at, share) in multiplied {
                extra[at] = share;
            }
            for (&i, &first) in steps.iter().zip(&firsts) {
                let share = self.product_share(i, width, |k| extra[first + k]);
                self.values[self.plan.first_values[i] as usize] = Held::Word(share);
            }
        }
        Ok(())
    }

    /// This party's share of product step `i`: its terms, each local
    /// (public factors by value), plus `extra(k)` of term `k` (a cross
    /// product's share, or a Beaver product's whole share; 0 for others).
    fn product_share(&self, i: usize, width: Width, extra: impl Fn(usize) -> u64) -> u64 {
        let pairs = factor_pairs(&self.program.steps[i]);
        let mut sum = 0;
        for (k, (&(x, y), term)) in pairs.iter().zip(&self.plan.terms[i]).enumerate() {
            let public = |v: ValueId| self.plan.holders[v as usize].public;
            let local = match (term, public(x), public(y)) {
                (Term::Beaver, ..) => 0,
                (_, Some(c), _) => width.mul(c, self.share(y)),
                (_, None, Some(c)) => width.mul(self.share(x), c),
                _ => width.mul(self.share(x), self.share(y)),
            };
            sum = width.add(sum, width.add(local, extra(k)));
        }
        sum
    }

    /// One [`Arith::cross`] layer of `pairs` (A's share of `a` times B's
    /// share of `b`), grouped by [`CrossLayer`]: each pair's share goes to
    /// `shares` at the pair's term.
    fn cross_layer(
        &mut self,
        width: Width,
        pairs: &[Pair],
        shares: &mut [u64],
    ) -> Result<(), ProtocolError> {
        // No pairs: an empty layer, which sends nothing.
        let layer = CrossLayer::of(pairs.iter().map(|p| p.0));
        let (vector_groups, scalar_groups) = match self.party {
            Party::A => (&layer.b_scalars, &layer.a_scalars),
            Party::B => (&layer.a_scalars, &layer.b_scalars),
        };
        let vectors: Vec<Vec<u64>> = vector_groups
            .iter()
            .map(|g| g.words.iter().map(|&(v, _)| self.share(v)).collect())
            .collect();
        let scalars: Vec<u64> = scalar_groups.iter().map(|g| self.share(g.scalar)).collect();
        let lens: Vec<usize> = scalar_groups.iter().map(|g| g.words.len()).collect();
        let got = self.arith.cross(
            self.chan,
            width,
            Cross {
                vectors: &vectors,
                scalars: &scalars,
                peer_lens: &lens,
            },
        )?;
        drop(vectors);
        let mut place = |groups: &[Group], got: &[Vec<u64>]| {
            for (g, s) in groups.iter().zip(got) {
                for (&(_, k), &share) in g.words.iter().zip(s) {
                    shares[pairs[k].1] = share;
                }
            }
        };
        place(vector_groups, &got.vectors);
        place(scalar_groups, &got.scalars);
        Ok(())
    }

    /// One [`Arith::mul`] layer of shared products.
    fn beaver_layer(
        &mut self,
        width: Width,
        pairs: &[Pair],
    ) -> Result<Vec<(TermAt, u64)>, ProtocolError> {
        if pairs.is_empty() {
            return Ok(Vec::new());
        }
        let x: Vec<u64> = pairs.iter().map(|p| self.share(p.0 .0)).collect();
        let y: Vec<u64> = pairs.iter().map(|p| self.share(p.0 .1)).collect();
        let triples = self
            .triples
            .get_mut(&width.bits())
            .ok_or_else(|| ProtocolError::Internal(format!("no triples of {width}")))?;
        let z = self.arith.mul(self.chan, width, &x, &y, triples)?;
        Ok(pairs.iter().map(|p| p.1).zip(z).collect())
    }

    /// The conversions among `steps`: A→Y, then Y→A, then bit injection,
    /// each one batch per width (A→Y: per width and [`YaoEntry`]).
    fn conversions(&mut self, steps: &[usize]) -> Result<(), ProtocolError> {
        let program = self.program;
        let plan = self.plan;
        let bits_of = |v: ValueId| plan.kinds[v as usize].bits();
        let mut to_yao: BTreeMap<(u32, u8), Vec<(usize, ValueId)>> = BTreeMap::new();
        let mut to_arith: BTreeMap<u32, Vec<(usize, ValueId)>> = BTreeMap::new();
        let mut inject: BTreeMap<u32, Vec<(usize, ValueId)>> = BTreeMap::new();
        for &i in steps {
            match program.steps[i] {
                Step::ToYao(x) => {
                    let entry = match YaoEntry::of(plan, x) {
                        YaoEntry::Adder => 0,
                        YaoEntry::InputOf(Party::A) => 1,
                        YaoEntry::InputOf(Party::B) => 2,
                    };
                    to_yao.entry((bits_of(x), entry)).or_default().push((i, x));
                }
                Step::ToArith(x) => to_arith.entry(bits_of(x)).or_default().push((i, x)),
                Step::Inject { bit, width } => inject.entry(width).or_default().push((i, bit)),
                _ => {}
            }
        }
        for ((w, entry), batch) in to_yao {
            let width = Width::new(w)?;
            let shares: Vec<u64> = batch.iter().map(|&(_, v)| self.share(v)).collect();
            let labels = match entry {
                0 => {
                    self.yao_flights += 2;
                    self.garbled(Sharing::Convert, |y, chan| {
                        y.to_garbled(chan, width, &shares)
                    })?
                }
                _ => {
                    let holder = if entry == 1 { Party::A } else { Party::B };
                    let n = shares.len() * w as usize;
                    let own: Vec<bool> = match self.party == holder {
                        true => shares.iter().flat_map(|&x| word_bits(x, w)).collect(),
                        false => Vec::new(),
                    };
                    let peer = n - own.len();
                    self.yao_flights += 1;
                    let (a, b) =
                        self.garbled(Sharing::Convert, |y, chan| y.inputs(chan, &own, peer))?;
                    let wires = if holder == Party::A { a } else { b };
                    wires.chunks(w as usize).map(<[_]>::to_vec).collect()
                }
            };
            self.define(&batch, labels.into_iter().map(Held::Bits));
        }
        for (w, batch) in to_arith {
            let width = Width::new(w)?;
            let values: Vec<Vec<Y::Label>> = batch
                .iter()
                .map(|&(_, v)| self.labels(v).to_vec())
                .collect();
            let shares = self.garbled(Sharing::Convert, |y, chan| {
                y.to_shares(chan, width, &values)
            })?;
            self.yao_flights += 1;
            self.define(&batch, shares.into_iter().map(Held::Word));
        }
        for (w, batch) in inject {
            let width = Width::new(w)?;
            let bits: Vec<bool> = batch
                .iter()
                .flat_map(|&(_, v)| Y::xor_shares(self.labels(v)))
                .collect();
            let shares = self.counted(Sharing::Convert, |e| {
                e.arith.inject_bits(e.chan, width, &bits)
            })?;
            self.define(&batch, shares.into_iter().map(Held::Word));
        }
        Ok(())
    }

    /// Stores the values the steps of `batch` define.
    fn define(&mut self, batch: &[(usize, ValueId)], held: impl Iterator<Item = Held<Y::Label>>) {
        for (&(i, _), h) in batch.iter().zip(held) {
            self.values[self.plan.first_values[i] as usize] = h;
        }
    }

    /// Step `i`, which sends nothing.
    fn local(&mut self, i: usize) -> Result<(), ProtocolError> {
        let at = self.plan.first_values[i] as usize;
        let w = || width(self.plan.kinds[at]);
        let held = match &self.program.steps[i] {
            Step::Const { value, .. } => Held::Word(match self.party {
                Party::A => *value,
                Party::B => 0,
            }),
            Step::Add(x, y) => Held::Word(w()?.add(self.share(*x), self.share(*y))),
            Step::Sub(x, y) => Held::Word(w()?.sub(self.share(*x), self.share(*y))),
            Step::Neg(x) => Held::Word(w()?.neg(self.share(*x))),
            Step::MulConst(x, c) => Held::Word(w()?.mul(self.share(*x), *c)),
            Step::Mul(..) | Step::Dot(..) => Held::Word(self.product_share(i, w()?, |_| 0)),
            Step::Boolean { program, args } => {
                let inputs: Vec<Y::Label> =
                    args.iter().flat_map(|&v| self.labels(v).to_vec()).collect();
                let p = &self.program.programs[*program as usize];
                let out = self.garbled(Sharing::Yao, |y, chan| y.run_program(chan, p, &inputs))?;
                self.yao_flights += 1;
                let mut rest = out.as_slice();
                for (k, o) in p.main.outputs.iter().enumerate() {
                    let (value, tail) = rest.split_at(o.wires.len());
                    self.values[at + k] = Held::Bits(value.to_vec());
                    rest = tail;
                }
                return Ok(());
            }
            Step::ToYao(_) | Step::ToArith(_) | Step::Inject { .. } => {
                return Err(ProtocolError::Internal(format!(
                    "step {i} sends, planned as local"
                )))
            }
        };
        self.values[at] = held;
        Ok(())
    }

    /// Opens the outputs to the parties `reveal` names: words by their
    /// additive shares (one opening per width), bits by the XOR shares of
    /// their labels. Returns them to a party that learns them.
    pub fn outputs(&mut self, reveal: Reveal) -> Result<Option<Vec<Vec<bool>>>, ProtocolError> {
        let program = self.program;
        let learns = reveal.reveals_to(self.party);
        let mut opened: Vec<Vec<bool>> = vec![Vec::new(); program.outputs.len()];
        let mut words: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        let mut bits: Vec<usize> = Vec::new();
        for (k, o) in program.outputs.iter().enumerate() {
            match self.plan.kinds[o.value as usize] {
                Kind::Word(w) => words.entry(w).or_default().push(k),
                Kind::Bits(_) => bits.push(k),
            }
        }
        for (w, outs) in words {
            let width = Width::new(w)?;
            let shares: Vec<u64> = outs
                .iter()
                .map(|&k| self.share(program.outputs[k].value))
                .collect();
            let values = self.counted(Sharing::Arith, |e| match reveal {
                Reveal::Both => e.arith.open(e.chan, width, &shares).map(Some),
                Reveal::A => e.arith.open_to(e.chan, width, &shares, Party::A),
                Reveal::B => e.arith.open_to(e.chan, width, &shares, Party::B),
            })?;
            for (&k, x) in outs.iter().zip(values.into_iter().flatten()) {
                opened[k] = word_bits(x, w);
            }
        }
        if !bits.is_empty() {
            let mine: Vec<bool> = bits
                .iter()
                .flat_map(|&k| Y::xor_shares(self.labels(program.outputs[k].value)))
                .collect();
            let all = self.counted(Sharing::Yao, |e| e.open_bits(&mine, reveal))?;
            let mut rest = all.as_deref().unwrap_or(&[]);
            for &k in &bits {
                let n = self.plan.kinds[program.outputs[k].value as usize].bits() as usize;
                if let Some((value, tail)) = (rest.len() >= n).then(|| rest.split_at(n)) {
                    opened[k] = value.to_vec();
                    rest = tail;
                }
            }
        }
        Ok(learns.then_some(opened))
    }

    /// Opens XOR shares of bits to the parties `reveal` names (A sends
    /// first); returns the bits to a party that learns them.
    fn open_bits(
        &mut self,
        mine: &[bool],
        reveal: Reveal,
    ) -> Result<Option<Vec<bool>>, ProtocolError> {
        let n = mine.len();
        let send = |chan: &mut Channel| Bits::send(chan, mine.iter().copied());
        let recv = |chan: &mut Channel| -> Result<Vec<bool>, ProtocolError> {
            let theirs = Bits::recv(chan, n, "the peer's output shares")?;
            Ok(mine.iter().zip(theirs).map(|(a, b)| a ^ b).collect())
        };
        let (a_sends, b_sends) = (reveal.reveals_to(Party::B), reveal.reveals_to(Party::A));
        let mut got = None;
        match self.party {
            Party::A => {
                if a_sends {
                    send(self.chan)?;
                }
                if b_sends {
                    got = Some(recv(self.chan)?);
                }
            }
            Party::B => {
                if a_sends {
                    got = Some(recv(self.chan)?);
                }
                if b_sends {
                    send(self.chan)?;
                }
            }
        }
        self.yao_flights += a_sends as u64 + b_sends as u64;
        Ok(got)
    }
}
