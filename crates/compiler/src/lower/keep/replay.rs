//! Replaying a template without probing: in a loop whose every iteration
//! is probed, an iteration whose keys (see [`crate::loops::counter`]) other
//! than subscripts equal a template's lowers to that template, reading and
//! writing where the subscripts move its accesses. Its keys cost a few
//! expressions to evaluate, where a probe costs lowering the body.
//!
//! While a template is probed, every access through a place is recorded
//! with the subscript keys that placed it (their strides and array
//! lengths); each of the template's reads and writes of older locations
//! then moves by `stride × (key now − key then)` for those keys. A
//! template whose locations are reached in two ways, or whose keys leave a
//! place (a pointer to an element), is not replayed.

use super::hoist::Hoists;
use super::run::Explicit;
use super::*;
use crate::loops::counter::CounterPlan;
use crate::loops::public::{Column, Compiled, Public};
use std::cell::RefCell;

pub(in crate::lower) use crate::value::Term;

/// An access the probe made: a span of an object's leaves and the terms
/// that placed it.
struct Access {
    obj: usize,
    start: i64,
    len: i64,
    terms: Vec<Term>,
}

/// A key class read as fresh inputs, and the values it may take.
pub(super) type Class = (u32, (i128, i128));

/// The values a key class may take when it may take any value of its type.
pub(in crate::lower) const ANY: (i128, i128) = (i128::MIN, i128::MAX);

/// A location's value read by a disabled iteration.
pub(super) type Read = ((usize, usize), Slot);

/// Keys read as fresh inputs, by their place in the syntax tree.
type General = HashMap<usize, Class>;

/// What a probe records for its replays.
pub(in crate::lower) struct Recording {
    /// The subscript keys, by their place in the syntax tree.
    keys: Rc<HashMap<usize, u32>>,
    /// The keys read as fresh inputs.
    general: Rc<General>,
    accesses: Vec<Access>,
    /// Whether a key escaped its place.
    broken: bool,
    /// The first object the probe made: older ones outlive it.
    first_new: usize,
}

impl Recording {
    /// The class and values of `e`, if it is a key read as fresh inputs.
    pub(in crate::lower) fn general_of(&self, e: &Expr) -> Option<Class> {
        self.general.get(&(e as *const Expr as usize)).copied()
    }

    /// The terms of a subscript `sub` whose index is public (`Some` of the
    /// element stride and array length when the place indexes an array,
    /// `None` when it offsets a pointer or the index is secret).
    pub(in crate::lower) fn subscript(
        &mut self,
        sub: &Expr,
        array: Option<(i64, i64)>,
    ) -> Option<Term> {
        let &key = self.keys.get(&(sub as *const Expr as usize))?;
        match array {
            Some((stride, count)) => Some(Term { key, stride, count }),
            None => {
                self.broken = true;
                None
            }
        }
    }

    /// Notes that pointer `p` is used other than to reach what it points
    /// to (moved by a secret, selected by one, compared or subtracted,
    /// stored where it outlives the probe): the keys that placed it leave
    /// their place.
    pub(in crate::lower) fn escape(&mut self, p: &Ptr) {
        self.broken |= !p.terms.is_empty();
    }

    /// Notes that pointer `s` is written to object `obj`: a pointer placed
    /// by keys may live in the probe's own objects only.
    pub(in crate::lower) fn store(&mut self, obj: usize, s: &Slot) {
        if let Slot::Ptr(p) = s {
            if obj < self.first_new {
                self.escape(p);
            }
        }
    }

    /// Notes an access through `p` of `leaves` leaves (an array read as a
    /// pointer, if `decays`).
    pub(in crate::lower) fn access(&mut self, p: &Place, leaves: usize, decays: bool) {
        if decays && !p.terms.is_empty() {
            self.broken = true;
        }
        let spread: i64 = p
            .sec
            .iter()
            .map(|s| (s.count as i64 - 1) * s.stride as i64)
            .sum();
        self.accesses.push(Access {
            obj: p.obj,
            start: p.leaf,
            len: leaves as i64 + spread,
            terms: p.terms.clone(),
        });
    }

    /// The terms of the accesses that reached leaf `leaf` of `obj`, if
    /// they agree.
    fn terms_at(&self, obj: usize, leaf: i64) -> Option<Vec<Term>> {
        let mut found: Option<&Vec<Term>> = None;
        for a in &self.accesses {
            if a.obj == obj && a.start <= leaf && leaf < a.start + a.len {
                match found {
                    Some(t) if *t != a.terms => return None,
                    _ => found = Some(&a.terms),
                }
            }
        }
        Some(found.cloned().unwrap_or_default())
    }
}

/// A loop's replays: its keys and the locations of its invariants.
pub(super) struct Replay {
    plan: CounterPlan,
    keys: Rc<HashMap<usize, u32>>,
    /// Keys whose values differ between iterations that are otherwise
    /// alike, read as fresh inputs (a direction bit XORed into a
    /// comparison costs no AND gate either way).
    general: Rc<General>,
    /// Key classes read as fresh inputs at no more AND gates than as
    /// constants, with the values they may take.
    classes: HashMap<u32, (i128, i128)>,
    /// Key classes that cost AND gates as fresh inputs.
    refused: HashSet<u32>,
    /// The invariants' locations (the loop must not write them).
    invariants: Vec<(usize, usize)>,
    /// The names the keys read: the loop variable (`Err`) or an invariant
    /// with its value (if it is a public integer).
    names: Vec<(String, Result<Option<Public>, ()>)>,
    /// The keys compiled, reading `names` by index.
    compiled: Vec<Compiled>,
    /// Their values over the batch of iterations evaluated last.
    table: RefCell<KeyTable>,
    /// The expressions computed ahead of each iteration.
    pub(super) hoists: Hoists,
}

/// The compiled keys' values over a batch of consecutive iterations.
#[derive(Default)]
struct KeyTable {
    /// The batch's first iteration.
    first: u64,
    /// Its iterations.
    len: u64,
    /// Per key, its value in each iteration of the batch (`None` where
    /// the evaluator gives none, and for a key written as an earlier one).
    values: Vec<Vec<Option<i128>>>,
}

/// The iterations a [`KeyTable`] evaluates at once: enough to pay for
/// interpreting each key, few enough that a loop kept only in part
/// evaluates few iterations it does not use.
const KEY_BATCH: u64 = 256;

/// A template as a replay sees it: the keys of its iteration, the classes
/// of those it reads as fresh inputs, the terms of its reads and writes,
/// and which of them met at one location.
pub(super) struct Form {
    keys: Vec<i128>,
    general: Vec<u32>,
    observations: Vec<Vec<Term>>,
    writes: Vec<Vec<Term>>,
    meets: Meets,
}

/// Which of a template's locations (its reads', then its writes') met at
/// one place, as a replayed iteration's must.
enum Meets {
    /// The pairs of locations of one object at least one of which moves
    /// with the keys, and whether they met (the others meet, or not, in
    /// every iteration alike): few, so each iteration compares them.
    Pairs(Vec<(usize, usize, bool)>),
    /// For each location, the index of its first occurrence (see
    /// [`meets`]), where pairs would be many.
    First(Vec<usize>),
}

/// The most pairs of locations [`Meets::Pairs`] lists.
const MOST_PAIRS: usize = 64;

impl Meets {
    /// How the locations `at` (with whether each moves) meet.
    fn of(at: &[(usize, i64)], moves: &[bool]) -> Meets {
        let mut pairs = Vec::new();
        for b in 0..at.len() {
            for a in 0..b {
                if at[a].0 == at[b].0 && (moves[a] || moves[b]) {
                    if pairs.len() == MOST_PAIRS {
                        return Meets::First(meets(at));
                    }
                    pairs.push((a, b, at[a] == at[b]));
                }
            }
        }
        Meets::Pairs(pairs)
    }

    /// Whether the `n` locations `location(0..n)` meet as these do.
    fn hold(&self, n: usize, location: impl Fn(usize) -> (usize, i64)) -> bool {
        match self {
            Meets::Pairs(pairs) => pairs
                .iter()
                .all(|&(a, b, met)| (location(a) == location(b)) == met),
            Meets::First(want) => meet_as(n, location, want),
        }
    }
}

impl Form {
    /// The keys of the template's iteration.
    pub(super) fn keys(&self) -> &[i128] {
        &self.keys
    }
}

impl Replay {
    /// The recording a probe of the loop makes, whose objects are made
    /// from `first_new` on.
    pub(super) fn recording(&self, first_new: usize) -> Recording {
        Recording {
            keys: self.keys.clone(),
            general: self.general.clone(),
            accesses: Vec::new(),
            broken: false,
            first_new,
        }
    }

    /// The keys of `values` that decide what an iteration's template is,
    /// but those of the classes `general` (read as fresh inputs).
    fn decided_but<'a>(
        &'a self,
        values: &'a [i128],
        general: &'a [u32],
    ) -> impl Iterator<Item = i128> + 'a {
        self.plan
            .keys
            .iter()
            .zip(values)
            .filter(|(k, _)| !k.subscript && !general.contains(&(k.class as u32)))
            .map(|(_, &v)| v)
    }

    /// The keys of `values` that decide what an iteration's template is
    /// (all but the subscripts), into `out`.
    pub(super) fn decisions(&self, values: &[i128], out: &mut Vec<i128>) {
        out.clear();
        out.extend(self.decided_but(values, &[]));
    }

    /// The key classes whose values differ between `a` and `b` that could
    /// be read as fresh inputs (decisions, neither subscripts, guards nor
    /// refused; none if a guard differs),
    /// with the values they may take: 0 or 1 if both are, else any value
    /// of their type ([`ANY`]); a class read as 0 or 1 already widens.
    pub(super) fn differing(&self, a: &[i128], b: &[i128]) -> Vec<Class> {
        let mut out: Vec<Class> = Vec::new();
        for (k, (&x, &y)) in self.plan.keys.iter().zip(a.iter().zip(b)) {
            let class = k.class as u32;
            if x != y && k.guard {
                // (What it guards must stay unevaluated where it is false.)
                return Vec::new();
            }
            if x != y && !k.subscript && !out.iter().any(|(c, _)| *c == class) {
                let bit = (0..=1).contains(&x) && (0..=1).contains(&y);
                let hull = if bit { (0, 1) } else { ANY };
                let wider = match self.classes.get(&class) {
                    Some(&now) => now != ANY && hull == ANY,
                    None => !self.refused.contains(&class),
                };
                if !wider {
                    return Vec::new();
                }
                out.push((class, hull));
            }
        }
        out
    }

    /// Reads the key classes `classes` as fresh inputs taking the values
    /// given (or, if `refuse`, stops doing so and never again).
    pub(super) fn generalize(&mut self, classes: &[Class], refuse: bool) {
        for &(class, hull) in classes {
            if refuse {
                self.classes.remove(&class);
                self.refused.insert(class);
            } else {
                self.classes.insert(class, hull);
            }
        }
        let general = self
            .plan
            .keys
            .iter()
            .filter_map(|k| {
                let class = k.class as u32;
                self.classes.get(&class).map(|&hull| (k.id, (class, hull)))
            })
            .collect();
        self.general = Rc::new(general);
    }

    /// `probe`'s template as a replay sees it, made at an iteration whose
    /// keys were `keys`, if it can be replayed.
    pub(super) fn form(&self, probe: &Probe, rec: &Recording, keys: Vec<i128>) -> Option<Form> {
        if rec.broken
            || !probe.derived.is_empty()
            || probe.counters.iter().any(|c| c.key.is_none())
            || !probe.facts.is_empty()
        {
            return None;
        }
        let observations = probe
            .observations
            .iter()
            .map(|o| rec.terms_at(o.at.obj, o.at.leaf))
            .collect::<Option<Vec<_>>>()?;
        let writes = probe
            .writes
            .iter()
            .map(|w| rec.terms_at(w.at.obj, w.at.leaf))
            .collect::<Option<Vec<_>>>()?;
        let at: Vec<(usize, i64)> = probe
            .observations
            .iter()
            .map(|o| (o.at.obj, o.at.leaf))
            .chain(probe.writes.iter().map(|w| (w.at.obj, w.at.leaf)))
            .collect();
        let general = probe
            .counters
            .iter()
            .filter_map(|c| c.key.map(|k| k.0))
            .collect();
        let moves: Vec<bool> = observations
            .iter()
            .chain(&writes)
            .map(|t| !t.is_empty())
            .collect();
        Some(Form {
            keys,
            general,
            meets: Meets::of(&at, &moves),
            observations,
            writes,
        })
    }

    /// Where an iteration whose keys are `keys` reads and writes by
    /// `probe`'s template, into `out`, if the template serves it (returns
    /// whether it does): its decisions are the template's, its subscripts
    /// in bounds, its locations meet as the template's did, and it writes
    /// no invariant. `out` is reused from iteration to iteration.
    pub(super) fn explicit(
        &self,
        form: &Form,
        probe: &Probe,
        keys: &[i128],
        out: &mut Explicit,
    ) -> bool {
        let decided = |values| self.decided_but(values, &form.general);
        if !decided(keys).eq(decided(&form.keys)) {
            return false;
        }
        let moved = |leaf: i64, terms: &[Term]| -> Option<i64> {
            let mut leaf = leaf;
            for t in terms {
                let (now, then) = (keys[t.key as usize], form.keys[t.key as usize]);
                if now < 0 || now >= t.count as i128 {
                    return None;
                }
                leaf += t.stride * i64::try_from(now - then).ok()?;
            }
            Some(leaf)
        };
        out.observations.clear();
        out.writes.clear();
        for (o, t) in probe.observations.iter().zip(&form.observations) {
            let Some(leaf) = moved(o.at.leaf, t) else {
                return false;
            };
            out.observations.push(leaf);
        }
        for (w, t) in probe.writes.iter().zip(&form.writes) {
            let Some(leaf) = moved(w.at.leaf, t) else {
                return false;
            };
            if leaf >= 0 && self.invariants.contains(&(w.at.obj, leaf as usize)) {
                return false;
            }
            out.writes.push(leaf);
        }
        out.keys.clear();
        out.keys.extend_from_slice(keys);
        let location = |i: usize| match out.observations.get(i) {
            Some(&leaf) => (probe.observations[i].at.obj, leaf),
            None => {
                let w = i - out.observations.len();
                (probe.writes[w].at.obj, out.writes[w])
            }
        };
        form.meets
            .hold(out.observations.len() + out.writes.len(), location)
    }
}

/// For each location of `at`, the index of its first occurrence.
fn meets(at: &[(usize, i64)]) -> Vec<usize> {
    if at.len() <= FEW_LOCATIONS {
        return at
            .iter()
            .enumerate()
            .map(|(i, a)| at[..i].iter().position(|b| b == a).unwrap_or(i))
            .collect();
    }
    let mut first: HashMap<(usize, i64), usize> = HashMap::default();
    at.iter()
        .enumerate()
        .map(|(i, a)| *first.entry(*a).or_insert(i))
        .collect()
}

/// Whether the `n` locations `location(0..n)` meet as `want` says
/// ([`meets`] of them), compared without a list where they are few.
fn meet_as(n: usize, location: impl Fn(usize) -> (usize, i64), want: &[usize]) -> bool {
    if n > FEW_LOCATIONS {
        return meets(&(0..n).map(location).collect::<Vec<_>>()) == want;
    }
    n == want.len()
        && (0..n).all(|i| {
            let a = location(i);
            (0..i).find(|&k| location(k) == a).unwrap_or(i) == want[i]
        })
}

/// Locations an iteration reads and writes that [`meets`] searches in
/// order rather than hashes (most iterations touch this few).
const FEW_LOCATIONS: usize = 32;

impl Replay {
    /// Evaluates the compiled keys over the iterations from `m` (a batch,
    /// or to the end of loop `c`) into `table`.
    fn evaluate_batch(&self, table: &mut KeyTable, c: &Counted, m: u64) {
        let len = KEY_BATCH.min(c.trips - m);
        let counters: Vec<i128> = (m..m + len)
            .map(|i| c.scalar.to_i128((c.first + c.step * i as i128) as u64))
            .collect();
        let name = |k: usize| match self.names[k].1 {
            Ok(invariant) => invariant.map(|(_, v)| Column::Same(v)),
            Err(()) => Some(Column::Each(counters.clone())),
        };
        table.values.resize_with(self.compiled.len(), Vec::new);
        for (k, (key, compiled)) in self.plan.keys.iter().zip(&self.compiled).enumerate() {
            if key.class < k {
                table.values[k].clear();
                continue;
            }
            compiled.eval_column(&name, len as usize, &mut table.values[k]);
        }
        (table.first, table.len) = (m, len);
    }
}

impl Lower<'_> {
    /// The locations `probe` (of a disabled iteration) read and the public
    /// values there, if its keys do not move them and all are public: the
    /// iteration's like does nothing whenever its decisions recur and those
    /// locations hold the same values.
    pub(super) fn fixed_public_reads(&self, probe: &Probe, rec: &Recording) -> Option<Vec<Read>> {
        probe
            .observations
            .iter()
            .map(|o| {
                let fixed = rec.terms_at(o.at.obj, o.at.leaf)?.is_empty();
                let at = (o.at.obj, usize::try_from(o.at.leaf).ok()?);
                let value = &self.objs[at.0].slots[at.1];
                let public = matches!(value, Slot::Val(Word::Const { .. }));
                (fixed && public && !rec.broken).then(|| (at, value.clone()))
            })
            .collect()
    }

    /// The replays of the loop `c` counts, whose body `plan` describes, if
    /// its invariants are public scalars the body cannot reach otherwise
    /// and its locals' names are its own.
    pub(super) fn replay(&mut self, plan: &CounterPlan, c: &Counted) -> Option<Replay> {
        let mut invariants = Vec::new();
        let mut names = Vec::new();
        for k in &plan.keys {
            crate::loops::idents_of(&k.expr, &mut names);
        }
        for local in &plan.locals {
            if self.lookup(local).is_some() {
                return None;
            }
        }
        for n in &names {
            if let Some((obj, ty)) = self.lookup(n) {
                if ty.scalar().is_some() && !invariants.contains(&(obj, 0)) {
                    invariants.push((obj, 0));
                }
            }
        }
        let keys = plan
            .keys
            .iter()
            .enumerate()
            .filter(|(_, k)| k.subscript)
            .map(|(_, k)| (k.id, k.class as u32))
            .collect();
        names.sort();
        names.dedup();
        let names: Vec<(String, Result<Option<Public>, ()>)> = names
            .into_iter()
            .map(|n| {
                if self.lookup(&n).is_some_and(|(obj, _)| obj == c.at.0) {
                    return (n, Err(()));
                }
                let ident = Expr {
                    kind: ExprKind::Ident(n.clone()),
                    loc: c.loc,
                };
                let value = match self.eval(&ident) {
                    Ok(Val::Int(s, Word::Const { v, .. })) => Some((s, s.to_i128(v))),
                    _ => None,
                };
                (n, Ok(value))
            })
            .collect();
        let resolve = |n: &str| {
            let k = names.iter().position(|(m, _)| m == n)?;
            match names[k].1 {
                Ok(invariant) => invariant.map(|(s, _)| (k, s)),
                Err(()) => Some((k, c.scalar)),
            }
        };
        let compiled = plan
            .keys
            .iter()
            .map(|k| Compiled::new(&k.expr, &resolve))
            .collect();
        Some(Replay {
            compiled,
            table: RefCell::default(),
            hoists: Hoists::new(&plan.hoists),
            plan: plan.clone(),
            keys: Rc::new(keys),
            general: Rc::default(),
            classes: HashMap::default(),
            refused: HashSet::default(),
            invariants,
            names,
        })
    }

    /// The keys of iteration `m`, into `values`; whether each is a public
    /// value. They read the loop variable and invariants only, and write nothing:
    /// each is evaluated on public integers, or lowered where that gives
    /// no value (see [`crate::loops::public`]).
    pub(super) fn key_values(
        &mut self,
        r: &Replay,
        c: &Counted,
        m: u64,
        values: &mut Vec<i128>,
    ) -> bool {
        self.set_induction(c, m);
        let table = &mut r.table.borrow_mut();
        if !(table.first..table.first + table.len).contains(&m) {
            r.evaluate_batch(table, c, m);
        }
        let row = (m - table.first) as usize;
        values.clear();
        for (k, key) in r.plan.keys.iter().enumerate() {
            if key.class < values.len() {
                // Written as an earlier key: the same value.
                values.push(values[key.class]);
                continue;
            }
            if let Some(v) = table.values[k][row] {
                values.push(v);
                continue;
            }
            match self.eval(&key.expr) {
                Ok(Val::Int(s, Word::Const { v, .. })) => values.push(s.to_i128(v)),
                _ => return false,
            }
        }
        true
    }
}
