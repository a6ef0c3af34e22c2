//! Kept loops: a `for` loop with a public trip count whose iterations lower
//! to the same body up to wiring becomes a block — its body stored once —
//! without lowering every iteration to find out.
//!
//! Iteration `m` is lowered as a probe (see [`super::probe`]); if the probe
//! of iteration `m + 1` is the same template, the template is applied to
//! the iterations after it *without lowering them*: each iteration's
//! observations are read from the state (their shapes must be the
//! template's; their addresses move by what the two probes showed), and
//! its writes are stored as the template's values over *tokens* (wires
//! named after the iteration and the template's output). Public state the
//! body depends on is part of the shapes, and the loop variable only moves
//! addresses (see [`crate::loops`]), so every iteration so checked lowers
//! to the template. A check that fails ends the run of iterations there;
//! the next one is probed again. Iterations that match no neighbour are
//! inlined from their probe.
//!
//! At the end each run becomes a block — values its iterations read alike
//! are shared inputs, values one iteration hands the next are carried, the
//! rest are wired per iteration — or, when short, is inlined; tokens are
//! then replaced by the block's output wires. A run over iterations that
//! only read the same locations (an accumulator, a chain) is recognised as
//! steady after three iterations, so a loop of a billion iterations costs
//! no more to compile than one of three.

use super::probe::Probe;
use super::*;
use crate::loops::Induction;
use twofold_circuit::{Carried, PendingBlock, Segment, Wire, Wiring};

/// A location: an object and a leaf (signed, for moving it by a step).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Address {
    /// The object.
    pub obj: usize,
    /// The leaf.
    pub leaf: i64,
}

impl Address {
    pub(super) fn of((obj, leaf): (usize, usize)) -> Address {
        Address {
            obj,
            leaf: leaf as i64,
        }
    }
}

/// Tokens (wires standing for values of iterations not yet materialised)
/// are numbered from here; real wires stay below.
const TOKEN_BASE: Wire = 1 << 31;

/// Runs kept as blocks have at least this many gates in all (shorter ones
/// are inlined, where the builder can share their gates with the rest).
const MIN_KEPT_GATES: u64 = 2048;

/// How a loop was lowered, for `twofold stats`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopReport {
    /// Where the loop is (`file:line`).
    pub at: String,
    /// Iterations in all (for a loop lowered several times, e.g. nested in
    /// an unrolled one, the last time).
    pub iterations: u64,
    /// The blocks made from it: iterations each, and whether parallel.
    pub blocks: Vec<(u64, bool)>,
    /// Iterations unrolled.
    pub unrolled: u64,
    /// Why iterations were unrolled (or the loop was not kept at all).
    pub why: Option<String>,
}

/// A kept loop: what became of it, the extras of every iteration kept, and
/// its report.
pub(super) type Kept = (Outcome, Vec<Vec<Slot>>, LoopReport);

/// What became of a kept loop.
pub(super) enum Outcome {
    /// Every iteration is lowered.
    Done,
    /// Iterations from this one on must be unrolled as usual, for the
    /// reason given.
    Unroll(u64, String),
}

/// Where a value one iteration reads comes from, iteration after
/// iteration.
#[derive(Clone, Debug)]
enum Track {
    Empty,
    /// The same in every iteration.
    Fixed(Bit),
    /// Output `q` of the previous iteration (from `init` in the first).
    Carried {
        init: Bit,
        q: u32,
    },
    /// Wires moving by a fixed step.
    Affine {
        start: Wire,
        step: i64,
    },
    /// Anything else, iteration by iteration.
    Table(Vec<Bit>),
}

impl Track {
    /// The value's origin in iteration `j` of the run.
    fn at(&self, j: u64, own: &impl Fn(u64, u32) -> Bit) -> Bit {
        match self {
            Track::Empty => Bit::Const(false),
            Track::Fixed(o) => *o,
            Track::Carried { init, q } => {
                if j == 0 {
                    *init
                } else {
                    own(j - 1, *q)
                }
            }
            Track::Affine { start, step } => Bit::Wire((*start as i64 + j as i64 * step) as Wire),
            Track::Table(v) => v[j as usize],
        }
    }

    /// Adds iteration `j`'s origin `o` (`own(j, q)` names output `q` of
    /// iteration `j` of this run).
    fn push(
        &mut self,
        j: u64,
        o: Bit,
        own: &impl Fn(u64, u32) -> Bit,
        own_q: impl Fn(Bit) -> Option<(u64, u32)>,
    ) {
        let keeps = match self {
            Track::Empty => {
                *self = Track::Fixed(o);
                return;
            }
            Track::Fixed(o0) if *o0 == o => true,
            Track::Fixed(o0) if j == 1 => {
                let o0 = *o0;
                if let Some((0, q)) = own_q(o) {
                    *self = Track::Carried { init: o0, q };
                    return;
                }
                if let (Bit::Wire(a), Bit::Wire(b)) = (o0, o) {
                    if a < TOKEN_BASE && b < TOKEN_BASE {
                        *self = Track::Affine {
                            start: a,
                            step: b as i64 - a as i64,
                        };
                        return;
                    }
                }
                false
            }
            Track::Carried { .. } | Track::Affine { .. } => self.at(j, own) == o,
            Track::Fixed(_) => false,
            Track::Table(v) => {
                v.push(o);
                return;
            }
        };
        if !keeps {
            let mut v: Vec<Bit> = (0..j).map(|i| self.at(i, own)).collect();
            v.push(o);
            *self = Track::Table(v);
        }
    }

    /// Whether the origin is the same or the previous iteration's, so that
    /// every later iteration continues the pattern.
    fn is_steady(&self) -> bool {
        matches!(self, Track::Empty | Track::Fixed(_) | Track::Carried { .. })
    }
}

/// A run of iterations lowered by one template.
struct Run {
    probe: Probe,
    /// The first iteration (of the loop).
    start: u64,
    /// Iterations covered.
    count: u64,
    /// Iterations simulated (the rest of a steady run continue the last).
    simulated: u64,
    obs_delta: Vec<i64>,
    write_delta: Vec<i64>,
    derived_delta: Vec<i128>,
    /// The template's wires that its writes and extras hold: its outputs.
    outputs: Vec<Wire>,
    out_index: HashMap<Wire, u32>,
    in_index: HashMap<Wire, usize>,
    /// Per input of the template, where it comes from.
    tracks: Vec<Track>,
    /// Token of output 0 of each simulated iteration.
    tokens: Vec<Wire>,
    /// The extras of each simulated iteration.
    extras: Vec<Vec<Slot>>,
    /// Observation/write pairs that may meet in some iteration.
    alias_pairs: Vec<(usize, usize)>,
}

impl Run {
    fn new(probe: Probe, start: u64) -> Run {
        let in_index: HashMap<Wire, usize> = probe
            .inputs
            .iter()
            .enumerate()
            .map(|(i, &w)| (w, i))
            .collect();
        let mut outputs = Vec::new();
        let mut out_index = HashMap::new();
        let values = probe.writes.iter().map(|w| &w.value).chain(&probe.extras);
        for v in values {
            v.for_each_bit(&mut |b| {
                if let Bit::Wire(w) = b {
                    if !in_index.contains_key(&w) && !out_index.contains_key(&w) {
                        out_index.insert(w, outputs.len() as u32);
                        outputs.push(w);
                    }
                }
            });
        }
        let n_obs = probe.observations.len();
        let n_writes = probe.writes.len();
        let n_derived = probe.derived.len();
        Run {
            tracks: vec![Track::Empty; probe.inputs.len()],
            probe,
            start,
            count: 0,
            simulated: 0,
            obs_delta: vec![0; n_obs],
            write_delta: vec![0; n_writes],
            derived_delta: vec![0; n_derived],
            outputs,
            out_index,
            in_index,
            tokens: Vec::new(),
            extras: Vec::new(),
            alias_pairs: Vec::new(),
        }
    }

    /// Takes the address steps from the next iteration's probe (which
    /// matches).
    fn set_steps(&mut self, next: &Probe) {
        let p = &self.probe;
        self.obs_delta = p
            .observations
            .iter()
            .zip(&next.observations)
            .map(|(a, b)| b.at.leaf - a.at.leaf)
            .collect();
        self.write_delta = p
            .writes
            .iter()
            .zip(&next.writes)
            .map(|(a, b)| b.at.leaf - a.at.leaf)
            .collect();
        self.derived_delta = p
            .derived
            .iter()
            .zip(&next.derived)
            .map(|(a, b)| b.amount - a.amount)
            .collect();
        // A read after a write to the same object, at another step, may
        // meet it in some iteration.
        for (o, obs) in p.observations.iter().enumerate() {
            for (w, wr) in p.writes.iter().enumerate() {
                if wr.seq < obs.seq
                    && wr.at.obj == obs.at.obj
                    && (self.write_delta[w] != self.obs_delta[o] || wr.at.leaf == obs.at.leaf)
                {
                    self.alias_pairs.push((o, w));
                }
            }
        }
    }

    /// Whether every later iteration repeats the last one (nothing moves,
    /// every input is fixed or carried, nothing is collected).
    fn is_steady(&self) -> bool {
        self.simulated >= 3
            && self.probe.extras.is_empty()
            && self.obs_delta.iter().all(|&d| d == 0)
            && self.write_delta.iter().all(|&d| d == 0)
            && self.derived_delta.iter().all(|&d| d == 0)
            && self.tracks.iter().all(Track::is_steady)
    }

    fn gates(&self) -> u64 {
        self.probe.frame.gates.len() as u64
            + self
                .probe
                .frame
                .blocks
                .iter()
                .map(|b| b.body.frame().counts().gates.saturating_mul(b.count))
                .sum::<u64>()
    }
}

/// Tokens handed out so far: for each simulated iteration, its first token,
/// run and index in the run.
#[derive(Default)]
struct Tokens {
    next: Wire,
    issued: Vec<(Wire, usize, u64)>,
}

impl Tokens {
    fn new() -> Tokens {
        Tokens {
            next: TOKEN_BASE,
            issued: Vec::new(),
        }
    }

    /// `n` tokens for iteration `j` of run `run`; the first.
    fn issue(&mut self, run: usize, j: u64, n: usize) -> Option<Wire> {
        let first = self.next;
        self.next = self.next.checked_add(n as Wire)?;
        self.issued.push((first, run, j));
        Some(first)
    }

    /// The run, iteration and output a token names.
    fn decode(&self, w: Wire) -> Option<(usize, u64, u32)> {
        if w < TOKEN_BASE {
            return None;
        }
        let i = self
            .issued
            .partition_point(|&(first, ..)| first <= w)
            .checked_sub(1)?;
        let (first, run, j) = self.issued[i];
        Some((run, j, w - first))
    }
}

/// What a materialised run's tokens stand for.
enum Made {
    /// Inlined: the bit of each output, iteration after iteration.
    Inline(Vec<Vec<Bit>>),
    /// A block of `count` iterations (`simulated` of them simulated; the
    /// last simulated stands for the last): where outputs of every
    /// iteration and of the last one went.
    Block {
        every: HashMap<u32, (Wire, u32)>,
        last: HashMap<u32, Wire>,
        count: u64,
        simulated: u64,
    },
}

/// The loop's public shape: its variable's location and type, first value
/// and trip count.
struct Counted {
    at: (usize, usize),
    scalar: Scalar,
    first: i128,
    step: i128,
    trips: u64,
}

/// The most iterations a kept loop may have.
const MAX_TRIPS: u64 = 1 << 40;

/// After this many iterations in a row that match no neighbour, the rest of
/// the loop is unrolled as usual (probing them would only cost time).
const MAX_MISMATCHES: u32 = 4;

impl<'p> Lower<'p> {
    /// Lowers the `for` loop whose variable moves as `ind` says, keeping it
    /// as blocks where its iterations allow (see the module docs). `each`
    /// lowers one iteration and returns what it yields (a region's
    /// partials); the loop variable holds the iteration's value. Returns
    /// `None` if the loop cannot be counted (it is then unrolled as usual).
    pub(super) fn keep_loop(
        &mut self,
        ind: &Induction,
        cond: &Expr,
        loc: Loc,
        mut each: impl FnMut(&mut Self) -> DResult<Vec<Slot>>,
    ) -> DResult<Option<Kept>> {
        let Some(counted) = self.count_trips(ind, cond)? else {
            return Ok(None);
        };
        let shifts = Rc::new(ind.shifts.clone());
        let mut report = LoopReport {
            at: format!("line {}", loc.line),
            iterations: counted.trips,
            blocks: Vec::new(),
            unrolled: 0,
            why: None,
        };
        let mut runs: Vec<Run> = Vec::new();
        let mut tokens = Tokens::new();
        let mut touched: HashSet<(usize, usize)> = HashSet::new();
        let mut next: Option<Probe> = None;
        let mut m = 0u64;
        let mut outcome = Outcome::Done;
        let mut mismatch: Option<String> = None;
        let mut misses = 0;
        while m < counted.trips {
            if misses >= MAX_MISMATCHES {
                outcome =
                    Outcome::Unroll(m, "consecutive iterations lower to different gates".into());
                if let Some(p) = next.take() {
                    // Its effects were undone; the iteration is lowered again.
                    drop(p);
                }
                break;
            }
            let probe = match next.take() {
                Some(p) => p,
                None => self.probe_iteration(&counted, m, &shifts, &mut each)?,
            };
            if let Some(why) = &probe.failed {
                outcome = Outcome::Unroll(m, why.clone());
                break;
            }
            let mut run = Run::new(probe, m);
            let r = runs.len();
            if !self.simulate(&mut run, r, m, &mut tokens, &mut touched)? {
                // The template's own iteration: it always fits.
                outcome = Outcome::Unroll(m, "an iteration does not fit its own probe".into());
                break;
            }
            m += 1;
            if m < counted.trips {
                let probe = self.probe_iteration(&counted, m, &shifts, &mut each)?;
                if probe.failed.is_none() && run.probe.matches(&probe) {
                    misses = 0;
                    run.set_steps(&probe);
                    while m < counted.trips {
                        if !self.simulate(&mut run, r, m, &mut tokens, &mut touched)? {
                            mismatch.get_or_insert_with(|| {
                                "an iteration's values differ in shape (constants, widths or ranges)"
                                    .into()
                            });
                            break;
                        }
                        m += 1;
                        if run.is_steady() {
                            run.count += counted.trips - m;
                            m = counted.trips;
                        }
                    }
                } else {
                    misses += 1;
                    if probe.failed.is_none() {
                        mismatch.get_or_insert_with(|| {
                            "consecutive iterations lower to different gates".into()
                        });
                    }
                    next = Some(probe);
                }
            }
            runs.push(run);
        }
        let extras = self.materialise(&mut runs, &tokens, &touched, &mut report)?;
        if let Outcome::Unroll(from, why) = &outcome {
            report.unrolled += counted.trips - from;
            report.why = Some(why.clone());
            self.set_induction(&counted, *from);
        } else {
            if report.unrolled > 0 {
                report.why = mismatch;
            }
            self.set_induction(&counted, counted.trips);
        }
        Ok(Some((outcome, extras, report)))
    }

    /// The loop variable's location, first value and the trip count, if
    /// the loop counts publicly, steps without wrapping, and its condition
    /// holds exactly for the first `trips` values.
    fn count_trips(&mut self, ind: &Induction, cond: &Expr) -> DResult<Option<Counted>> {
        let Some((obj, ty)) = self.lookup(&ind.var) else {
            return Ok(None);
        };
        let Some(scalar) = ty.scalar() else {
            return Ok(None);
        };
        // A global could change in a function the body calls.
        if self.globals.get(&ind.var).map(|g| g.0) == Some(obj) {
            return Ok(None);
        }
        let Slot::Val(Word::Const { v, .. }) = self.slot(obj, 0) else {
            return Ok(None);
        };
        let first = scalar.to_i128(v);
        let (bound, bound_scalar) = match self.eval(&ind.bound)? {
            Val::Int(s, Word::Const { v, .. }) => (s.to_i128(v), s),
            _ => return Ok(None),
        };
        let s = ind.step;
        let span = bound - first;
        let trips: i128 = match (ind.op, s > 0) {
            (BinOp::Lt, true) => (span + s - 1).div_euclid(s).max(0),
            (BinOp::Le, true) => (span + s).div_euclid(s).max(0),
            (BinOp::Gt, false) => (span + s + 1).div_euclid(s).max(0),
            (BinOp::Ge, false) => (span + s).div_euclid(s).max(0),
            (BinOp::Ne, _) if span % s == 0 && span / s >= 0 => span / s,
            _ => return Ok(None),
        };
        if trips as u128 > MAX_TRIPS as u128 {
            return Ok(None);
        }
        let last = first + s * trips;
        let (lo, hi) = (first.min(last), first.max(last));
        let (min, max) = if scalar.signed {
            (
                -(1i128 << (scalar.width - 1)),
                (1i128 << (scalar.width - 1)) - 1,
            )
        } else {
            (0, (1i128 << scalar.width) - 1)
        };
        if lo < min || hi > max {
            return Ok(None);
        }
        // A negative value compared as unsigned is not in order.
        if lo < 0 && !Scalar::common(scalar.promote(), bound_scalar.promote()).signed {
            return Ok(None);
        }
        let counted = Counted {
            at: (obj, 0),
            scalar,
            first,
            step: s,
            trips: trips as u64,
        };
        // The condition, in C's own terms, at the first value, the last
        // one in the loop and the one that ends it.
        let mut checks = vec![(trips as u64, false)];
        if trips > 0 {
            checks.extend([(0, true), (trips as u64 - 1, true)]);
        }
        let mut holds = true;
        for (m, want) in checks {
            self.set_induction(&counted, m);
            holds &= self.cond(cond)? == Bit::Const(want);
        }
        self.set_induction(&counted, 0);
        Ok(holds.then_some(counted))
    }

    fn set_induction(&mut self, c: &Counted, m: u64) {
        let v = c.first + c.step * m as i128;
        let w = Word::konst(v as u64, c.scalar.width);
        self.write_slot(c.at.0, c.at.1, Slot::Val(w));
    }

    /// Iteration `m` lowered as a probe.
    fn probe_iteration(
        &mut self,
        c: &Counted,
        m: u64,
        shifts: &Rc<HashSet<Loc>>,
        each: &mut impl FnMut(&mut Self) -> DResult<Vec<Slot>>,
    ) -> DResult<Probe> {
        self.set_induction(c, m);
        self.begin_probe(c.at, shifts.clone());
        let extras = each(self)?;
        Ok(self.end_probe(extras))
    }

    /// Applies iteration `m` of the loop to the state by `run`'s template,
    /// if its observations have the template's shapes: writes hold tokens.
    /// Returns whether it did.
    fn simulate(
        &mut self,
        run: &mut Run,
        r: usize,
        m: u64,
        tokens: &mut Tokens,
        touched: &mut HashSet<(usize, usize)>,
    ) -> DResult<bool> {
        let j = m - run.start;
        let at = |a: Address, delta: i64| a.leaf + delta * j as i64;
        let p = &run.probe;
        for &(o, w) in &run.alias_pairs {
            if at(p.observations[o].at, run.obs_delta[o]) == at(p.writes[w].at, run.write_delta[w])
            {
                return Ok(false);
            }
        }
        let in_bounds = |me: &Self, obj: usize, leaf: i64| {
            obj < me.objs.len() && leaf >= 0 && (leaf as usize) < me.objs[obj].slots.len()
        };
        if p.writes
            .iter()
            .zip(&run.write_delta)
            .any(|(w, &d)| !in_bounds(self, w.at.obj, at(w.at, d)))
        {
            return Ok(false);
        }
        let mut origin = vec![Bit::Const(false); p.inputs.len()];
        for (o, obs) in p.observations.iter().enumerate() {
            let leaf = at(obs.at, run.obs_delta[o]);
            if !in_bounds(self, obs.at.obj, leaf) {
                return Ok(false);
            }
            let value = self.slot(obs.at.obj, leaf as usize);
            if value.shape() != obs.shape {
                return Ok(false);
            }
            let fresh = &obs.bits;
            let mut k = 0;
            value.for_each_bit(&mut |b| {
                if let Bit::Wire(f) = fresh[k] {
                    origin[run.in_index[&f]] = b;
                }
                k += 1;
            });
        }
        for (d, der) in p.derived.iter().enumerate() {
            let amount = der.amount + run.derived_delta[d] * j as i128;
            for (bit, &f) in der.fresh.iter().enumerate() {
                origin[run.in_index[&f]] = match der.bit(bit, amount) {
                    Bit::Wire(s) => origin[run.in_index[&s]],
                    c => c,
                };
            }
        }
        let Some(first) = tokens.issue(r, j, run.outputs.len().max(1)) else {
            return Ok(false);
        };
        let resolve = |b: Bit| match b {
            Bit::Wire(w) => match (run.in_index.get(&w), run.out_index.get(&w)) {
                (Some(&i), _) => origin[i],
                (None, Some(&q)) => Bit::Wire(first + q),
                (None, None) => unreachable!("a template's values are its inputs and outputs"),
            },
            c => c,
        };
        for (w, write) in p.writes.iter().enumerate() {
            let leaf = at(write.at, run.write_delta[w]) as usize;
            let value = write.value.map_bits(&mut |b| resolve(b));
            self.write_slot(write.at.obj, leaf, value);
            touched.insert((write.at.obj, leaf));
        }
        let extras: Vec<Slot> = p
            .extras
            .iter()
            .map(|e| e.map_bits(&mut |b| resolve(b)))
            .collect();
        run.extras.push(extras);
        run.tokens.push(first);
        let own_tokens = &run.tokens;
        let own = |i: u64, q: u32| Bit::Wire(own_tokens[i as usize] + q);
        let own_q = |b: Bit| match b {
            Bit::Wire(w) => tokens.decode(w).filter(|t| t.0 == r).map(|t| (t.1, t.2)),
            Bit::Const(_) => None,
        };
        for (track, o) in run.tracks.iter_mut().zip(origin) {
            track.push(j, o, &own, own_q);
        }
        run.simulated += 1;
        run.count += 1;
        Ok(true)
    }

    /// Turns the runs into blocks or inlined gates, in order, and replaces
    /// the tokens in the locations the loop wrote; returns the extras of
    /// every iteration.
    fn materialise(
        &mut self,
        runs: &mut [Run],
        tokens: &Tokens,
        touched: &HashSet<(usize, usize)>,
        report: &mut LoopReport,
    ) -> DResult<Vec<Vec<Slot>>> {
        // Which outputs are needed after their own iteration: from every
        // iteration, or only from the last.
        let mut every: Vec<HashSet<u32>> = vec![HashSet::new(); runs.len()];
        let mut last: Vec<HashSet<u32>> = vec![HashSet::new(); runs.len()];
        let lasts: Vec<u64> = runs.iter().map(|run| run.simulated - 1).collect();
        let mark = |b: Bit, every: &mut Vec<HashSet<u32>>, last: &mut Vec<HashSet<u32>>| {
            if let Bit::Wire(w) = b {
                if let Some((r, j, q)) = tokens.decode(w) {
                    if j == lasts[r] {
                        last[r].insert(q);
                    } else {
                        every[r].insert(q);
                    }
                }
            }
        };
        for &(obj, leaf) in touched {
            self.objs[obj].slots[leaf].for_each_bit(&mut |b| mark(b, &mut every, &mut last));
        }
        for run in runs.iter() {
            for row in &run.extras {
                for e in row {
                    e.for_each_bit(&mut |b| mark(b, &mut every, &mut last));
                }
            }
            for t in &run.tracks {
                match t {
                    Track::Fixed(o) => mark(*o, &mut every, &mut last),
                    Track::Carried { init, .. } => mark(*init, &mut every, &mut last),
                    Track::Table(v) => v.iter().for_each(|&o| mark(o, &mut every, &mut last)),
                    Track::Empty | Track::Affine { .. } => {}
                }
            }
        }
        let mut made: Vec<Made> = Vec::with_capacity(runs.len());
        for (r, run) in runs.iter_mut().enumerate() {
            let ands = run.probe.frame.gates.iter().any(|g| g.is_and());
            let keep = run.count >= 2
                && run.probe.frame.gates.len() + run.probe.frame.blocks.len() > 0
                && (run.count.saturating_mul(run.gates()) >= MIN_KEPT_GATES
                    || (ands && self.opts.regions && run.parallel(r, tokens)));
            let m = if keep {
                let (m, parallel) = self.make_block(run, r, &every[r], &last[r], tokens, &made)?;
                report.blocks.push((run.count, parallel));
                m
            } else {
                report.unrolled += run.count;
                self.inline_run(run, r, tokens, &made)?
            };
            made.push(m);
        }
        let resolve = |b: Bit| resolve_token(b, tokens, &made);
        for &(obj, leaf) in touched {
            let v = self.objs[obj].slots[leaf]
                .map_bits(&mut |b| resolve(b))
                .folded();
            self.objs[obj].slots[leaf] = v;
        }
        Ok(runs
            .iter()
            .flat_map(|run| run.extras.iter())
            .map(|row| {
                row.iter()
                    .map(|e| e.map_bits(&mut |b| resolve(b)).folded())
                    .collect()
            })
            .collect())
    }

    /// A wire of the current frame holding `b`.
    fn wire_of(&mut self, b: Bit) -> DResult<Wire> {
        match b {
            Bit::Wire(w) => Ok(w),
            Bit::Const(v) => {
                let any = self.any_wire().ok_or_else(|| {
                    diag(Loc::default(), "internal: no wire to make a constant from")
                })?;
                Ok(self.b.constant_wire(v, any))
            }
        }
    }

    /// Some wire of the current frame (to make constants from): an input
    /// of the innermost probe, or of the program.
    fn any_wire(&self) -> Option<Wire> {
        match self.probes.last() {
            Some(p) => p.first_input(),
            None => self.first_input,
        }
    }

    /// Makes `run` a block; returns what its tokens stand for and whether
    /// the block is parallel.
    #[allow(clippy::too_many_arguments)]
    fn make_block(
        &mut self,
        run: &mut Run,
        r: usize,
        every: &HashSet<u32>,
        last: &HashSet<u32>,
        tokens: &Tokens,
        made: &[Made],
    ) -> DResult<(Made, bool)> {
        let parallel = self.opts.regions && run.parallel(r, tokens);
        let used = run.used_inputs();
        let (mut shared, mut carried, mut iter) = (Vec::new(), Vec::new(), Vec::new());
        for (i, t) in run.tracks.iter().enumerate() {
            match t {
                _ if !used[i] => {}
                Track::Fixed(_) | Track::Empty => shared.push(i),
                Track::Carried { .. } => carried.push(i),
                _ => iter.push(i),
            }
        }
        let carried_q: HashSet<u32> = carried
            .iter()
            .filter_map(|&i| match run.tracks[i] {
                Track::Carried { q, .. } => Some(q),
                _ => None,
            })
            .collect();
        // Outputs: those needed from every iteration, then those needed
        // from the last one only (carried values leave through `last`).
        let mut every_q: Vec<u32> = every.iter().copied().collect();
        every_q.sort_unstable();
        let mut last_q: Vec<u32> = last
            .iter()
            .copied()
            .filter(|q| !every.contains(q) && !carried_q.contains(q))
            .collect();
        last_q.sort_unstable();
        let (count, simulated) = (run.count, run.simulated);
        let width = every_q.len() as u32;
        let unit: Vec<Wire> = (0..count * width as u64)
            .map(|_| self.b.fresh_wire())
            .collect();
        let finals: Vec<Wire> = last_q.iter().map(|_| self.b.fresh_wire()).collect();
        let mut made_every = HashMap::new();
        for (k, &q) in every_q.iter().enumerate() {
            made_every.insert(q, (unit.first().copied().unwrap_or(0) + k as Wire, width));
        }
        let mut made_last: HashMap<u32, Wire> =
            last_q.iter().copied().zip(finals.iter().copied()).collect();
        let mut carried_last = Vec::with_capacity(carried.len());
        for &i in &carried {
            let Track::Carried { q, .. } = run.tracks[i] else {
                unreachable!("carried inputs have carried tracks")
            };
            let needed = last.contains(&q) && !every.contains(&q) && !made_last.contains_key(&q);
            let w = needed.then(|| self.b.fresh_wire());
            if let Some(w) = w {
                made_last.insert(q, w);
            }
            carried_last.push(w);
        }
        let this = Made::Block {
            every: made_every,
            last: made_last,
            count,
            simulated,
        };
        // Origins: this run's own tokens are its outputs; earlier runs'
        // what they were made.
        let resolve = |b: Bit| match b {
            Bit::Wire(w) => match tokens.decode(w) {
                Some((rr, j, q)) if rr == r => resolve_made(&this, j, q),
                _ => resolve_token(b, tokens, made),
            },
            c => c,
        };
        let none = |_: u64, _: u32| Bit::Const(false);
        let mut shared_wires = Vec::with_capacity(shared.len());
        for &i in &shared {
            shared_wires.push(self.wire_of(resolve(run.tracks[i].at(0, &none)))?);
        }
        let own_tokens = run.tokens.clone();
        let own = |j: u64, q: u32| Bit::Wire(own_tokens[j as usize] + q);
        let mut table = Vec::with_capacity(count as usize * iter.len());
        for j in 0..count {
            for &i in &iter {
                table.push(self.wire_of(resolve(run.tracks[i].at(j, &own)))?);
            }
        }
        let inputs_wiring = Wiring::compress(count as usize, iter.len(), &table);
        let mut carried_init = Vec::with_capacity(carried.len());
        let mut next = Vec::with_capacity(carried.len());
        for &i in &carried {
            let Track::Carried { init, q } = run.tracks[i] else {
                unreachable!("carried inputs have carried tracks")
            };
            carried_init.push(self.wire_of(resolve(init))?);
            next.push(run.outputs[q as usize]);
        }
        let inputs: Vec<Wire> = shared
            .iter()
            .chain(&carried)
            .chain(&iter)
            .map(|&i| run.probe.inputs[i])
            .collect();
        let outputs: Vec<Wire> = every_q
            .iter()
            .chain(&last_q)
            .map(|&q| run.outputs[q as usize])
            .collect();
        let frame = std::mem::take(&mut run.probe.frame);
        let (body, next) = frame
            .into_body(&inputs, &outputs, &next)
            .map_err(|e| diag(Loc::default(), format!("internal: a kept loop's body: {e}")))?;
        let mut segments = Vec::new();
        if let Some(&u0) = unit.first() {
            segments.push(Segment::Affine {
                len: width,
                start: u0,
                step: width as i64,
            });
        }
        if let Some(&f0) = finals.first() {
            segments.push(Segment::Affine {
                len: finals.len() as u32,
                start: f0,
                step: 0,
            });
        }
        let parallel = parallel && carried.is_empty();
        self.b.add_block(PendingBlock {
            position: 0,
            count,
            parallel,
            body,
            shared: shared_wires,
            carried: carried_init
                .into_iter()
                .zip(next)
                .zip(carried_last)
                .map(|((init, next), last)| Carried { init, next, last })
                .collect(),
            inputs: inputs_wiring,
            outputs: Wiring { segments },
        });
        Ok((this, parallel))
    }

    /// Lowers `run`'s iterations from its template, gate by gate, into the
    /// current frame.
    fn inline_run(
        &mut self,
        run: &mut Run,
        r: usize,
        tokens: &Tokens,
        made: &[Made],
    ) -> DResult<Made> {
        let mut rows: Vec<Vec<Bit>> = Vec::with_capacity(run.count as usize);
        for j in 0..run.count {
            let mut map: HashMap<Wire, Bit> = HashMap::new();
            for (i, t) in run.tracks.iter().enumerate() {
                let own = |jj: u64, q: u32| rows[jj as usize][q as usize];
                let o = t.at(j, &own);
                let b = match o {
                    Bit::Wire(w) => match tokens.decode(w) {
                        Some((rr, jj, q)) if rr == r => rows[jj as usize][q as usize],
                        _ => resolve_token(o, tokens, made),
                    },
                    c => c,
                };
                map.insert(run.probe.inputs[i], b);
            }
            let frame = &run.probe.frame;
            let mut g = 0;
            for block in &frame.blocks {
                self.inline_gates(&frame.gates[g..block.position], &mut map);
                g = block.position;
                self.inline_block(block, &mut map)?;
            }
            self.inline_gates(&frame.gates[g..], &mut map);
            rows.push(run.outputs.iter().map(|w| map[w]).collect());
        }
        Ok(Made::Inline(rows))
    }

    fn inline_gates(&mut self, gates: &[Gate], map: &mut HashMap<Wire, Bit>) {
        for g in gates {
            let out = match *g {
                Gate::Xor { a, b, .. } => self.b.xor(map[&a], map[&b]),
                Gate::And { a, b, .. } => self.b.and(map[&a], map[&b]),
                Gate::Inv { a, .. } => self.b.not(map[&a]),
            };
            map.insert(g.out(), out);
        }
    }

    /// A block of a template, placed in the current frame with its wiring
    /// through `map`.
    fn inline_block(&mut self, block: &PendingBlock, map: &mut HashMap<Wire, Bit>) -> DResult<()> {
        let wires = |me: &mut Self, ws: &mut dyn Iterator<Item = Wire>| -> DResult<Vec<Wire>> {
            ws.map(|w| me.wire_of(map[&w])).collect()
        };
        let shared = wires(self, &mut block.shared.iter().copied())?;
        let carried_init = wires(self, &mut block.carried.iter().map(|c| c.init))?;
        let width = block.inputs.width();
        let mut table = Vec::with_capacity(block.count as usize * width);
        for k in 0..block.count {
            table.extend(wires(self, &mut block.inputs.wires(k).into_iter())?);
        }
        let inputs = Wiring::compress(block.count as usize, width, &table);
        let out_width = block.outputs.width();
        let mut out_table = Vec::with_capacity(block.count as usize * out_width);
        for k in 0..block.count {
            for w in block.outputs.wires(k) {
                let new = match map.get(&w) {
                    Some(Bit::Wire(n)) => *n,
                    _ => {
                        let n = self.b.fresh_wire();
                        map.insert(w, Bit::Wire(n));
                        n
                    }
                };
                out_table.push(new);
            }
        }
        let outputs = Wiring::compress(block.count as usize, out_width, &out_table);
        let carried = block
            .carried
            .iter()
            .zip(carried_init)
            .map(|(c, init)| Carried {
                init,
                next: c.next,
                last: c.last.map(|w| {
                    let n = self.b.fresh_wire();
                    map.insert(w, Bit::Wire(n));
                    n
                }),
            })
            .collect();
        self.b.add_block(PendingBlock {
            position: 0,
            count: block.count,
            parallel: block.parallel,
            body: block.body.clone(),
            shared,
            carried,
            inputs,
            outputs,
        });
        Ok(())
    }
}

impl Run {
    /// Whether no iteration reads what another of the run wrote.
    fn parallel(&self, r: usize, tokens: &Tokens) -> bool {
        let own =
            |o: &Bit| matches!(o, Bit::Wire(w) if tokens.decode(*w).is_some_and(|t| t.0 == r));
        self.tracks.iter().all(|t| match t {
            Track::Carried { .. } => false,
            Track::Table(v) => !v.iter().any(own),
            Track::Fixed(o) => !own(o),
            Track::Empty | Track::Affine { .. } => true,
        })
    }

    /// Which of the template's inputs something reads.
    fn used_inputs(&self) -> Vec<bool> {
        let mut used = vec![false; self.probe.inputs.len()];
        let mut mark = |w: Wire| {
            if let Some(&i) = self.in_index.get(&w) {
                used[i] = true;
            }
        };
        for g in &self.probe.frame.gates {
            g.inputs().for_each(&mut mark);
        }
        for b in &self.probe.frame.blocks {
            b.shared.iter().for_each(|&w| mark(w));
            b.carried.iter().for_each(|c| mark(c.init));
            b.inputs.for_all(b.count, &mut mark);
        }
        for v in self
            .probe
            .writes
            .iter()
            .map(|w| &w.value)
            .chain(&self.probe.extras)
        {
            v.for_each_bit(&mut |b| {
                if let Bit::Wire(w) = b {
                    mark(w)
                }
            });
        }
        used
    }
}

/// What output `q` of iteration `j` of a materialised run stands for.
fn resolve_made(made: &Made, j: u64, q: u32) -> Bit {
    match made {
        Made::Inline(rows) => rows[j as usize][q as usize],
        Made::Block {
            every,
            last,
            count,
            simulated,
        } => {
            let j = if j + 1 == *simulated { count - 1 } else { j };
            match every.get(&q) {
                Some(&(first, width)) => Bit::Wire(first + j as Wire * width),
                None => Bit::Wire(last[&q]),
            }
        }
    }
}

/// A bit with tokens of materialised runs replaced by what they stand for.
fn resolve_token(b: Bit, tokens: &Tokens, made: &[Made]) -> Bit {
    match b {
        Bit::Wire(w) => match tokens.decode(w) {
            Some((r, j, q)) => resolve_made(&made[r], j, q),
            None => b,
        },
        c => c,
    }
}
