//! Probes: one iteration of a loop lowered in a frame of its own, as a
//! template for others.
//!
//! While a probe runs, the first read of every location that existed before
//! it (an *observation*) replaces the location's value by one of the same
//! shape — the same constants, widths and ranges — whose wires are fresh
//! inputs of the frame. The gates the iteration makes therefore read only
//! those inputs, and they compute the right values for *any* values of that
//! shape: the probe is a body that can be wired to any iteration whose
//! observations have the shapes it saw. A shift by the loop variable is
//! observed too (its result becomes fresh inputs, wired per iteration to
//! the shifted bits). What the iteration leaves in older locations (its
//! *writes*) is recorded, and everything is undone when the probe ends.
//!
//! Probes nest (a loop inside a probed body is probed in turn); an
//! observation by an inner probe is first an observation of every enclosing
//! one.

use super::*;
use crate::gates::Widening;
use crate::lower::keep::{Address, PublicInputs};
use crate::range::{Range, Tape};

mod canonical;
mod counters;
mod nested;
mod padding;
mod reread;
mod subscripts;
mod wires;

use canonical::CanonicalIds;
pub(super) use counters::Counter;
use nested::{too_big_for_nested, BIG_READ};
pub(in crate::lower) use padding::{padded_form, sentinel, MARKER_BASE};
use padding::{significant, value_bits};
pub(super) use reread::{Reread, Served};
use twofold_circuit::{RawFrame, Wire};
use wires::{block_writes, outside_wire};

/// What a probe records while it runs.
pub(super) struct ProbeState {
    /// Its journal level.
    level: usize,
    /// Objects older than the probe: reads of their locations are
    /// observations.
    outer_objs: usize,
    /// What the loop tells its probes.
    setup: Rc<Setup>,
    /// The frame of the probe's gates.
    mark: FrameMark,
    /// Where the merges' log stood when it began.
    merges: usize,
    /// Order of reads and writes.
    seq: u32,
    observed: HashMap<(usize, usize), usize>,
    written: BTreeMap<(usize, usize), u32>,
    observations: Vec<Observation>,
    derived: Vec<Derived>,
    facts: Vec<i128>,
    inputs: Vec<Wire>,
    counters: Vec<Counter>,
    /// Ranges read so far (the tape's inputs).
    ranges: usize,
    /// Gates asked of the builder before the probe began.
    pub(super) requested: u64,
    /// The fresh input standing for each outer wire observed (the same
    /// wire in two locations is the same input).
    fresh_of: HashMap<Wire, Wire>,
    /// Locations read again, or after a write (see [`Reread`]), with the
    /// observation that served each if it was one not written yet.
    reread: reread::Read,
    /// The inputs standing for public values read as inputs (see
    /// [`Setup::general`]; `subscripts`).
    public_inputs: HashSet<Wire>,
    failed: Option<String>,
}

/// What a kept loop tells the probes of its iterations.
#[derive(Clone)]
pub(super) struct Setup {
    /// The loop variable's location (its reads are not observations).
    pub induction: (usize, usize),
    /// Shifts whose amount uses the loop variable.
    pub shifts: HashSet<Loc>,
    /// How the loop variable's value is stored, where it is.
    pub stored: Stored,
    /// How far observed ranges are widened (further for loops whose
    /// iterations' ranges differ more).
    pub widening: Widening,
    /// Locations whose public values differ between iterations: read as
    /// inputs, each iteration wiring in its own value.
    pub general: HashSet<(usize, usize)>,
    /// Objects whose values' widths differ between iterations: values read
    /// there are padded to this many bits (see [`padded_form`]).
    pub widths: HashMap<usize, usize>,
    /// Whether a sum an iteration leaves where it also read is reduced to
    /// its bits at the end of the iteration (else its rows would grow
    /// from one iteration to the next, and no two would lower alike).
    pub settle_sums: bool,
    /// Whether `settle_sums` may be set where the sums' rows carry on
    /// from one iteration to the next: only in a loop whose products were
    /// strength-reduced (a sum of a counter's many constant multiples, or
    /// of its bits, is cheaper unrolled, where carry-save shares rows
    /// across iterations). Where each iteration reduces the sum the one
    /// before left, any loop probed each settles (see `keep/each.rs`).
    pub may_settle: bool,
    /// Public values read as inputs that differ as a table's entries do.
    pub public_inputs: PublicInputs,
}

/// Where a kept loop stores its variable's value into an array element
/// (`row[0] = i`), and the values it takes.
#[derive(Clone)]
pub(super) struct Stored {
    /// The uses of the variable so stored, by location.
    pub at: HashSet<Loc>,
    /// Those that move it into a local (`at = c ? i : at`): read as wide
    /// as the iteration's own value (see `probe::counters`).
    pub moved: HashSet<Loc>,
    /// Its type.
    pub scalar: Scalar,
    /// The least and greatest value it takes in the loop.
    pub hull: (i128, i128),
}

/// A read of an older location.
#[derive(Clone, Debug)]
pub(super) struct Observation {
    /// Where.
    pub at: Address,
    /// When, among the probe's reads and writes.
    pub seq: u32,
    /// When it was last read (the latest `seq` then): a write the
    /// iteration makes between two reads of the value may meet it in
    /// another iteration, where the second read must see the write.
    pub last_read: u32,
    /// The value the iteration saw, over fresh inputs.
    pub fresh: Slot,
    /// Its shape (see [`Slot::shape`]), when it was read.
    pub shape: Vec<i128>,
    /// Whether that is a word of distinct wires (see
    /// [`crate::value::is_distinct_word`]).
    pub distinct_word: bool,
    /// Its bits, when it was read (a sum reduced later shows its bits).
    pub bits: Vec<Bit>,
    /// Its first range's input on the tape (the others follow in the
    /// order of [`Slot::for_each_range`]).
    pub first_range: usize,
    /// Its shape with ranges widened to all their bits allow.
    pub class_shape: Vec<i128>,
    /// Whether it read a public value.
    pub public: bool,
    /// The width it was padded to, if it was (see [`padded_form`]).
    pub pad: Option<usize>,
    /// How many low bits of the value read carry it, for a value that
    /// may be padded.
    pub significant: Option<usize>,
}

/// A shift by the loop variable: its result is fresh inputs, bit `j` of
/// which is bit `j + amount` (right) or `j - amount` (left) of `source`
/// (the template is the same whichever bits are constants in an
/// iteration).
#[derive(Clone, Debug)]
pub(super) struct Derived {
    /// `>>` (else `<<`).
    pub right: bool,
    /// Whether bits shifted in from the top copy the sign bit.
    pub signed: bool,
    /// The shift amount in this iteration, before masking.
    pub amount: i128,
    /// The shifted word's bits, as the probe sees them.
    pub source: Vec<Bit>,
    /// The result's bits: fresh inputs.
    pub fresh: Vec<Wire>,
}

impl Derived {
    /// The bit that result bit `j` is when the amount is `amount`.
    pub fn bit(&self, j: usize, amount: i128) -> Bit {
        let n = self.source.len();
        let c = (amount as u64 & (n as u64 - 1)) as usize;
        if self.right {
            match self.source.get(j + c) {
                Some(&b) => b,
                None if self.signed => self.source[n - 1],
                None => Bit::Const(false),
            }
        } else if j >= c {
            self.source[j - c]
        } else {
            Bit::Const(false)
        }
    }
}

/// A write of an older location: its value when the iteration ends.
#[derive(Clone, Debug)]
pub(super) struct Write {
    /// Where.
    pub at: Address,
    /// When, among the probe's reads and writes (its first write).
    pub seq: u32,
    /// The value, over the frame's wires.
    pub value: Slot,
}

/// One iteration lowered as a template.
pub(super) struct Probe {
    /// Its gates and blocks.
    pub frame: RawFrame,
    /// Its reads of older locations, in order.
    pub observations: Vec<Observation>,
    /// The observations of locations it wrote back to what it read (not
    /// among its writes: another iteration's write that lands there
    /// between is an alias, see `Run::set_steps`).
    pub restored: Vec<usize>,
    /// Its reads served within the iteration, in order.
    pub rereads: Vec<Reread>,
    /// Its shifts by the loop variable.
    pub derived: Vec<Derived>,
    /// Decisions that depend on where pointers point (must not change).
    pub facts: Vec<i128>,
    /// Its writes of older locations.
    pub writes: Vec<Write>,
    /// Values the loop collects from every iteration (a region's partials).
    pub extras: Vec<Slot>,
    /// Its fresh inputs, in the order they were made.
    pub inputs: Vec<Wire>,
    /// Its reads of the loop variable's value where it is stored.
    pub counters: Vec<Counter>,
    /// How the ranges it computes follow from those it read (of its
    /// observations and counters).
    pub tape: Tape,
    /// Why it cannot serve as a template, if it cannot.
    pub failed: Option<String>,
    /// How far its observed ranges were widened.
    pub widening: Widening,
    /// The widths values of some objects are padded to (see
    /// [`Setup::widths`]).
    pub widths: HashMap<usize, usize>,
    /// Whether it reduced the sums it carries on (see
    /// [`Setup::settle_sums`]).
    pub settled: bool,
    /// Its canonical form, once computed.
    canonical: std::cell::OnceCell<Canonical>,
    /// The memory it holds, in the lowering's estimate.
    _charge: super::budget::Charge,
}

impl ProbeState {
    /// A wire of the probe's frame: its first input, if it has one.
    pub(super) fn first_input(&self) -> Option<Wire> {
        self.inputs.first().copied()
    }

    /// The older locations the iteration has written so far, in order.
    pub(super) fn written(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.written.keys().copied()
    }
}

impl<'p> Lower<'p> {
    /// Starts a probe of one iteration of the loop `setup` describes:
    /// locations of objects up to now are observed, except the loop
    /// variable's.
    pub(super) fn begin_probe(&mut self, setup: Rc<Setup>) {
        self.journal.push(Level {
            start: self.objs.len(),
            saved: BTreeMap::new(),
        });
        let mark = self.b.begin_frame();
        Tape::begin();
        self.probes.push(ProbeState {
            level: self.journal.len() - 1,
            outer_objs: self.objs.len(),
            setup,
            mark,
            merges: self.merges.mark(),
            seq: 0,
            observed: HashMap::default(),
            written: BTreeMap::new(),
            observations: Vec::new(),
            derived: Vec::new(),
            facts: Vec::new(),
            inputs: Vec::new(),
            counters: Vec::new(),
            ranges: 0,
            fresh_of: HashMap::default(),
            reread: reread::Read::default(),
            public_inputs: HashSet::default(),
            failed: None,
            requested: self.b.requested_gates(),
        });
    }

    /// Ends the probe begun last: the iteration's effects are undone and
    /// returned as a template; `extras` are values it yields (they stay
    /// over the frame's wires).
    pub(super) fn end_probe(&mut self, extras: Vec<Slot>) -> Probe {
        let mut st = self.probes.pop().expect("a probe was begun");
        self.end_speculation(st.requested);
        let level = self.journal.pop().expect("the probe's journal level");
        debug_assert_eq!(st.level, self.journal.len());
        let (mut writes, mut restored) = (Vec::new(), Vec::new());
        for (k, old) in level.saved {
            let new = std::mem::replace(&mut self.objs[k.0].slots[k.1], old);
            let seq = match st.written.get(&k) {
                Some(&seq) => seq,
                None => continue,
            };
            if k == st.setup.induction {
                continue;
            }
            if let Some(&o) = st.observed.get(&k) {
                if st.observations[o].fresh == new {
                    restored.push(o);
                    continue;
                }
            }
            writes.push(Write {
                at: Address::of(k),
                seq,
                value: new,
            });
        }
        // A sum the iteration read and reduced (as unrolled lowering would
        // once, for every reader) leaves its bits, so that later readers
        // do not reduce it again.
        let mut seq = st.seq;
        let mut observed: Vec<((usize, usize), usize)> =
            st.observed.iter().map(|(&at, &o)| (at, o)).collect();
        observed.sort_unstable_by_key(|&(_, o)| o);
        for (at, o) in observed {
            if st.written.contains_key(&at) {
                continue;
            }
            if let Slot::Val(w) = &st.observations[o].fresh {
                if let Some(bits) = w.reduced() {
                    seq += 1;
                    writes.push(Write {
                        at: Address::of(at),
                        seq,
                        value: Slot::Val(bits),
                    });
                }
            }
        }
        let settled = st.setup.settle_sums && self.settle_sums(&st, &mut writes);
        let reread = std::mem::take(&mut st.reread);
        let rereads = reread::resolve(reread, &st.observed, &st.observations, &writes);
        let frame = self.b.end_frame(st.mark);
        let tape = Tape::end();
        self.forget_probe(st.outer_objs, st.inputs.first().copied(), st.merges);
        let mut failed = st.failed;
        if let Some(w) = outside_wire(&frame, &st.inputs, &writes, &extras) {
            failed.get_or_insert_with(|| {
                format!("internal: the iteration reads wire {w} made outside it")
            });
        }
        let charge = super::budget::Charge::probe(frame.gates.len() as u64, &tape);
        Probe {
            _charge: charge,
            frame,
            observations: st.observations,
            derived: st.derived,
            facts: st.facts,
            writes,
            extras,
            inputs: st.inputs,
            counters: st.counters,
            tape,
            failed,
            widening: st.setup.widening,
            widths: st.setup.widths.clone(),
            settled,
            restored,
            rereads,
            canonical: std::cell::OnceCell::new(),
        }
    }

    /// Reduces the sums an iteration leaves where it read (carried
    /// accumulators), so that the next iteration reads bits, not more rows
    /// (see [`Setup::settle_sums`]). Returns whether there were any.
    fn settle_sums(&mut self, st: &ProbeState, writes: &mut [Write]) -> bool {
        let mut any = false;
        for w in writes.iter_mut() {
            let at = (w.at.obj, w.at.leaf as usize);
            if let (Slot::Val(v), true) = (&w.value, st.observed.contains_key(&at)) {
                if let Some(bits) = v.settled(&mut self.b) {
                    w.value = Slot::Val(bits);
                    any = true;
                }
            }
        }
        any
    }

    /// Drops what the lowering learnt inside a probe: its objects and the
    /// merges and implications over its wires (from `first_wire` on).
    fn forget_probe(&mut self, outer_objs: usize, first_wire: Option<Wire>, mark: usize) {
        self.truncate_objects(outer_objs);
        self.merges.forget(mark, outer_objs, first_wire);
        if self.probes.is_empty() {
            self.merges.settle();
        }
    }

    /// Before location `(obj, leaf)` is read: makes the read an
    /// observation of every probe for which the location still holds the
    /// value it had when the probe began (outermost first).
    pub(super) fn observe(&mut self, obj: usize, leaf: usize) {
        for p in 0..self.probes.len() {
            let st = &self.probes[p];
            let key = (obj, leaf);
            // Written since the probe began (by a write not undone since)?
            let changed = || {
                self.journal[st.level..]
                    .iter()
                    .any(|l| l.saved.contains_key(&key))
            };
            if obj >= st.outer_objs || key == st.setup.induction {
                continue;
            }
            // (Rereads of the innermost probe's own body only.)
            let innermost = p + 1 == self.probes.len();
            if let Some(&o) = st.observed.get(&key) {
                // Read again, as observed unless the iteration wrote it.
                let unwritten = !st.written.contains_key(&key);
                let st = &mut self.probes[p];
                if unwritten {
                    st.observations[o].last_read = st.seq;
                }
                if innermost {
                    st.reread.note(key, unwritten.then_some(o));
                }
                continue;
            }
            if changed() {
                if innermost {
                    self.probes[p].reread.note(key, None);
                }
                continue;
            }
            if self.probes.len() > 1 && too_big_for_nested(&self.objs[obj].slots[leaf]) {
                self.probes[p]
                    .failed
                    .get_or_insert_with(|| BIG_READ.to_string());
            }
            let original = self.objs[obj].slots[leaf].clone();
            let setup = self.probes[p].setup.clone();
            let public = matches!(original, Slot::Val(Word::Const { .. }));
            // A value read in a form that serves the values of other
            // iterations too (see `Setup::general` and `Setup::widths`).
            let significant = value_bits(&original).map(|b| significant(&b));
            let pad = match setup.widths.get(&obj) {
                // A public value far wider than the values read padded
                // there, the same in every iteration (a sentinel such as
                // `best[v] = 10000` in a DP), stays the template's
                // constant: read padded, every iteration would compute
                // with it as an input, and make a comparison with it that
                // ranges decide.
                Some(&k) if public && sentinel(significant, k, setup.general.contains(&key)) => {
                    None
                }
                Some(&k) => Some(k),
                None if public && setup.general.contains(&key) => Some(0),
                None => None,
            };
            let form = pad.and_then(|k| padded_form(&original, k));
            let pad = pad.filter(|_| form.is_some());
            let read = form.as_ref().map_or(&original, |(f, _)| f);
            let class_shape = read.relaxed(Widening::Bits).shape();
            let mut fresh_of = std::mem::take(&mut self.probes[p].fresh_of);
            let mut made = Vec::new();
            let mut local: HashMap<Wire, Wire> = HashMap::default();
            // The template holds for every value with these bits, so that
            // iterations whose ranges differ within them match; the ranges
            // it computes from them are recorded (see `crate::range`).
            let fresh = read
                .relaxed(setup.widening)
                .map_bits(&mut |b| match b {
                    Bit::Wire(w) => {
                        let map = if w >= MARKER_BASE {
                            &mut local
                        } else {
                            &mut fresh_of
                        };
                        Bit::Wire(*map.entry(w).or_insert_with(|| {
                            let f = self.b.fresh_wire();
                            made.push(f);
                            f
                        }))
                    }
                    c => c,
                })
                .with_ranges(&mut |r| Range::input(p, r.lo, r.hi));
            let first_range = self.probes[p].ranges;
            fresh.for_each_range(&mut |_| self.probes[p].ranges += 1);
            self.probes[p].fresh_of = fresh_of;
            // The substitution is the probe's, whatever branch is open.
            self.journal[self.probes[p].level]
                .saved
                .entry(key)
                .or_insert(original);
            self.objs[obj].slots[leaf] = fresh.clone();
            let st = &mut self.probes[p];
            st.seq += 1;
            // A write here undone since (a secret branch's, before the
            // branches merge) is not what this read sees: the first write
            // that stays comes after it (else the read would seem to read
            // what the iteration wrote, and no other iteration could be
            // applied by the template).
            st.written.remove(&key);
            if public && pad.is_some() {
                st.public_inputs.extend(&made);
            }
            st.inputs.extend(made);
            st.observed.insert(key, st.observations.len());
            let mut bits = Vec::new();
            fresh.for_each_bit(&mut |b| bits.push(b));
            let shape = fresh.shape();
            st.observations.push(Observation {
                at: Address::of(key),
                seq: st.seq,
                last_read: st.seq,
                distinct_word: crate::value::is_distinct_word(&shape),
                shape,
                bits,
                fresh,
                first_range,
                class_shape,
                public,
                pad,
                significant,
            });
        }
    }

    /// Before location `(obj, leaf)` is written: the innermost probe notes
    /// its first write there.
    pub(super) fn note_write(&mut self, obj: usize, leaf: usize) {
        if let Some(st) = self.probes.last_mut() {
            if obj < st.outer_objs && !st.written.contains_key(&(obj, leaf)) {
                st.seq += 1;
                st.written.insert((obj, leaf), st.seq);
            }
        }
    }

    /// Marks every open probe as unusable as a template.
    pub(super) fn fail_probes(&mut self, why: &str) {
        for st in &mut self.probes {
            st.failed.get_or_insert_with(|| why.to_string());
        }
    }

    /// Notes a decision that depends on where a pointer points (it must be
    /// the same in every iteration of a kept loop).
    pub(super) fn note_fact(&mut self, fact: &[i128]) {
        if let Some(st) = self.probes.last_mut() {
            st.facts.extend_from_slice(fact);
        }
    }

    /// `x op y` for a binary operator at `loc`: a shift by the loop variable
    /// of a probe is observed (see [`Derived`]); anything else is
    /// [`Lower::binop`].
    pub(super) fn binop_at(&mut self, op: BinOp, x: Val, y: Val, loc: Loc) -> DResult<Val> {
        let right = match op {
            BinOp::Shl => false,
            BinOp::Shr => true,
            _ => return self.binop(op, x, y, loc),
        };
        let Some(p) = self
            .probes
            .iter()
            .position(|st| st.setup.shifts.contains(&loc))
        else {
            return self.binop(op, x, y, loc);
        };
        if p + 1 != self.probes.len() {
            self.probes[p]
                .failed
                .get_or_insert_with(|| "a nested loop shifts by the loop variable".to_string());
            return self.binop(op, x, y, loc);
        }
        match self.derived_shift(right, &x, &y) {
            Some(v) => Ok(v),
            None => {
                self.fail_probes("a shift by the loop variable of a computed value");
                self.binop(op, x, y, loc)
            }
        }
    }

    /// A shift by the loop variable as an observation, if the shifted
    /// value's bits are all inputs of the probe or constants (and not all
    /// constants) and the amount is public.
    fn derived_shift(&mut self, right: bool, x: &Val, y: &Val) -> Option<Val> {
        let (Val::Int(s1, w1), Val::Int(s2, w2)) = (x, y) else {
            return None;
        };
        let t = s1.promote();
        let t2 = s2.promote();
        let amount = w2.convert(&mut self.b, *s2, t2).as_const()?;
        let amount = t2.to_i128(amount);
        let source = w1.convert(&mut self.b, *s1, t).bits(&mut self.b);
        let st = self.probes.last()?;
        let is_input = |b: &Bit| match b {
            Bit::Wire(w) => st.inputs.contains(w),
            Bit::Const(_) => true,
        };
        if !source.iter().all(is_input) || source.iter().all(|b| b.as_const().is_some()) {
            return None;
        }
        let fresh: Vec<Wire> = (0..source.len()).map(|_| self.b.fresh_wire()).collect();
        let st = self.probes.last_mut()?;
        st.inputs.extend(&fresh);
        st.derived.push(Derived {
            right,
            signed: t.signed,
            amount,
            source,
            fresh: fresh.clone(),
        });
        let word = Word::from_bits(fresh.into_iter().map(Bit::Wire).collect());
        Some(Val::Int(t, word))
    }
}

/// A probe's canonical form (see [`Probe::canonical`]): its structure, and
/// apart, in 8 bytes a value, its gates and blocks' wiring (most of a large
/// body). Each part holds its own lengths: equal parts, equal forms.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Canonical {
    structure: Vec<i128>,
    wiring: Vec<i64>,
}

impl Probe {
    /// Calls `add` on the template's wires in canonical order: its inputs,
    /// then what its gates and blocks write.
    fn made_wires(&self, mut add: &mut dyn FnMut(Wire)) {
        self.inputs.iter().for_each(|&w| add(w));
        let mut b = 0;
        for (i, g) in self.frame.gates.iter().enumerate() {
            while b < self.frame.blocks.len() && self.frame.blocks[b].position == i {
                block_writes(&self.frame.blocks[b], &mut add);
                b += 1;
            }
            add(g.out());
        }
        for block in &self.frame.blocks[b..] {
            block_writes(block, &mut add);
        }
    }

    /// Everything about the template but where it reads and writes, with
    /// wires in canonical order: two probes with the same canonical form
    /// (and blocks with the same bodies) are the same body up to wiring.
    pub(super) fn canonical(&self) -> &Canonical {
        self.canonical.get_or_init(|| self.compute_canonical())
    }

    fn compute_canonical(&self) -> Canonical {
        let ids = CanonicalIds::of(|add| self.made_wires(add));
        let wire64 = |w: Wire| ids.id(w);
        let mut wire = |w: Wire| i128::from(wire64(w));
        let mut out = Vec::new();
        let mut wires: Vec<i64> = Vec::new();
        out.push(self.failed.is_some() as i128);
        out.push(self.observations.len() as i128);
        for o in &self.observations {
            out.push(o.shape.len() as i128);
            out.extend(&o.shape);
            for &b in &o.bits {
                out.push(match b {
                    Bit::Const(v) => -1 - v as i128,
                    Bit::Wire(w) => wire(w),
                });
            }
        }
        out.push(self.derived.len() as i128);
        for d in &self.derived {
            out.extend([d.right as i128, d.signed as i128, d.source.len() as i128]);
            for &b in &d.source {
                out.push(match b {
                    Bit::Const(v) => -1 - v as i128,
                    Bit::Wire(w) => wire(w),
                });
            }
        }
        out.push(self.facts.len() as i128);
        out.extend(&self.facts);
        wires.push(self.frame.gates.len() as i64);
        for g in &self.frame.gates {
            let kind = match g {
                Gate::Xor { .. } => 0,
                Gate::And { .. } => 1,
                Gate::Inv { .. } => 2,
            };
            wires.push(kind);
            g.inputs().for_each(|w| wires.push(wire64(w)));
        }
        out.push(self.frame.blocks.len() as i128);
        for block in &self.frame.blocks {
            out.extend([
                block.position as i128,
                block.count as i128,
                block.parallel as i128,
            ]);
            block.shared.iter().for_each(|&w| out.push(wire(w)));
            for c in &block.carried {
                out.extend([wire(c.init), c.next as i128]);
                out.push(c.last.map_or(-1, &mut wire));
            }
            for wiring in [&block.inputs, &block.outputs] {
                out.push(wiring.width() as i128);
                wiring.for_all(block.count, |w| wires.push(wire64(w)));
            }
        }
        out.push(self.writes.len() as i128);
        for w in &self.writes {
            w.value.encode(&mut out, &mut wire);
        }
        out.push(self.extras.len() as i128);
        for e in &self.extras {
            e.encode(&mut out, &mut wire);
        }
        Canonical {
            structure: out,
            wiring: wires,
        }
    }
}
