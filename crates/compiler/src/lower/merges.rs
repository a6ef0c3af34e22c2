//! What the lowering knows about secret merges: which locations hold a
//! merge `sel ? t : e`, and which "still running" conditions imply which.
//! Inside a branch on `sel` a merged location is given back `t` or `e`
//! (see `Lower::assume`).
//!
//! A probe's facts are over its own wires and objects and must be
//! forgotten when it ends; the facts it added are logged, so forgetting
//! costs what the probe added, not what the whole program has.

use std::collections::{BTreeMap, VecDeque};

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use twofold_circuit::{Bit, Wire};

use super::Lower;
use crate::value::{Slot, Word};

/// A location: an object and a leaf.
type Key = (usize, usize);

/// A merge: its selector, the two values merged and the result.
pub(super) type Merge = (Bit, Slot, Slot, Slot);

/// At most this many merges are kept a location (the newest): a merge
/// whose value was merged again is given back through the later one.
const MERGES_KEPT: usize = 8;

/// At most this many conditions are taken as known along with one.
const KNOWN: usize = 16;

/// A selector's list of at most this many locations is searched; a
/// longer one's are found in [`Merges::listed`].
const SHORT_LIST: usize = 4;

/// A fact added while a probe ran.
#[derive(Clone, Copy)]
enum Added {
    Merge(Key, Bit),
    Implied(Bit, Bit),
}

/// The merges and implications known (see the module docs).
#[derive(Default)]
pub(super) struct Merges {
    /// Locations holding a merge, or a merge of merges: the merges, oldest
    /// first.
    /// (Ordered, so that a call's objects, the newest, are dropped at
    /// once when it returns.)
    /// (A queue: the oldest leaves as a new one comes, without moving
    /// the others.)
    merged: BTreeMap<Key, VecDeque<Merge>>,
    /// The locations of `merged` by selector, each once.
    by_sel: HashMap<Bit, Vec<Key>>,
    /// The pairs of `by_sel` whose list grew past [`SHORT_LIST`]
    /// locations (a location merged again on a selector, as a loop's
    /// iterations do on a condition that stays the same, is listed once:
    /// each branch on it goes through the list). A short list is searched
    /// instead: most selectors (a fresh comparison each) merge a location
    /// or two, and were hashed twice a merge for them.
    listed: HashSet<(Bit, Key)>,
    /// "Still running" conditions and the earlier ones each implies.
    implied: HashMap<Bit, Vec<Bit>>,
    /// Facts added while probes ran, oldest first.
    log: Vec<Added>,
    /// Locations merged where paths rejoined in the loop bodies being
    /// lowered (see [`Lower::fix_going_on`]).
    joined: Vec<Key>,
    /// Loops being lowered, one inside the other.
    open_loops: usize,
}

impl Merges {
    /// Notes that location `k` holds `merge`; `logged` while a probe runs.
    pub(super) fn insert(&mut self, k: Key, merge: Merge, logged: bool) {
        let sel = merge.0;
        let merges = self.merged.entry(k).or_default();
        if merges.len() == MERGES_KEPT {
            merges.pop_front();
        }
        merges.push_back(merge);
        let keys = self.by_sel.entry(sel).or_default();
        let new = match keys.len() < SHORT_LIST {
            true => !keys.contains(&k),
            false => self.listed.insert((sel, k)),
        };
        if new {
            keys.push(k);
            if keys.len() == SHORT_LIST {
                self.listed.extend(keys.iter().map(|&k| (sel, k)));
            }
        }
        if logged {
            self.log.push(Added::Merge(k, sel));
        }
    }

    /// Notes that `now` implies `before`; `logged` while a probe runs.
    pub(super) fn imply(&mut self, now: Bit, before: Bit, logged: bool) {
        let implied = self.implied.entry(now).or_default();
        if implied.contains(&before) {
            return;
        }
        implied.push(before);
        if logged {
            self.log.push(Added::Implied(now, before));
        }
    }

    /// `c` and the conditions known to hold with it (what it implies, and
    /// so on), at most [`KNOWN`] of them, `c` first.
    fn implied_with(&self, c: Bit) -> Vec<Bit> {
        let mut known = vec![c];
        let mut next = 0;
        while next < known.len() && known.len() < KNOWN {
            for &p in self.implied.get(&known[next]).into_iter().flatten() {
                if known.len() < KNOWN && !known.contains(&p) {
                    known.push(p);
                }
            }
            next += 1;
        }
        known
    }

    /// The locations noted with selector `sel`.
    pub(super) fn keys_of(&self, sel: Bit) -> Vec<Key> {
        self.by_sel.get(&sel).cloned().unwrap_or_default()
    }

    /// What location `k`, holding `now`, holds where `sel` is `value`: the
    /// side of its merge on `sel` whose result `now` is, if noted.
    fn side(&self, k: Key, now: &Slot, sel: Bit, value: bool) -> Option<Slot> {
        let merges = self.merged.get(&k)?;
        let (_, t, e, _) = merges.iter().rev().find(|m| m.0 == sel && m.3 == *now)?;
        Some(if value { t.clone() } else { e.clone() })
    }

    /// Forgets the merges of objects from `first` on (a call's, as it
    /// returns: nothing reads its locals again). Without this, every call
    /// of a recursion under secret conditions added locations to the
    /// selectors its calls share (`x >> d & 1` at depth `d`), and each
    /// branch on one went through all of them.
    pub(super) fn end_objects(&mut self, first: usize) {
        let ended = self.merged.split_off(&(first, 0));
        let sels: HashSet<Bit> = ended.values().flatten().map(|m| m.0).collect();
        for sel in sels {
            self.unlist(sel, |k| k.0 < first);
        }
    }

    /// Forgets the merges of objects `objs` (a region's iteration objects,
    /// which nothing reads once its loop ends). Without this, each run of
    /// a region inside a loop under a secret condition added its partial's
    /// location to the selectors every run shares (`y > j`), and each
    /// branch on one went through all of them: cubic compile time.
    pub(super) fn end_these(&mut self, objs: &[usize]) {
        let mut sels = HashSet::default();
        for &obj in objs {
            let keys: Vec<Key> = self
                .merged
                .range((obj, 0)..(obj + 1, 0))
                .map(|(k, _)| *k)
                .collect();
            for k in keys {
                sels.extend(self.merged.remove(&k).into_iter().flatten().map(|m| m.0));
            }
        }
        for sel in sels {
            self.unlist(sel, |k| !objs.contains(&k.0));
        }
    }

    /// Keeps in `by_sel` only the locations of `sel` that `keep` says.
    fn unlist(&mut self, sel: Bit, keep: impl Fn(&Key) -> bool) {
        let Some(keys) = self.by_sel.get_mut(&sel) else {
            return;
        };
        keys.retain(|k| {
            let kept = keep(k);
            if !kept {
                self.listed.remove(&(sel, *k));
            }
            kept
        });
        if keys.is_empty() {
            self.by_sel.remove(&sel);
        }
    }

    /// Starts lowering a loop.
    pub(super) fn open_loop(&mut self) {
        self.open_loops += 1;
    }

    /// Where the locations merged where paths rejoin from now on begin.
    pub(super) fn joined_mark(&self) -> usize {
        self.joined.len()
    }

    /// Ends lowering a loop.
    pub(super) fn close_loop(&mut self) {
        self.open_loops -= 1;
    }

    /// Ends logging (no probe runs any more): what stays is known outside
    /// every probe.
    pub(super) fn settle(&mut self) {
        self.log.clear();
    }

    /// Where the log stands (to forget from, when a probe ends).
    pub(super) fn mark(&self) -> usize {
        self.log.len()
    }

    /// Forgets the facts added since `mark` about objects from `outer_objs`
    /// on or wires from `first_wire` on (a probe's, as it ends). Facts
    /// that stay are kept in the log for the probes enclosing it.
    pub(super) fn forget(&mut self, mark: usize, outer_objs: usize, first_wire: Option<Wire>) {
        let inner = |b: &Bit| matches!((b, first_wire), (Bit::Wire(w), Some(f)) if *w >= f);
        let added = self.log.split_off(mark.min(self.log.len()));
        for a in added {
            match a {
                Added::Merge(k, sel) => {
                    if let Some(merges) = self.merged.get_mut(&k) {
                        merges.retain(|m| k.0 < outer_objs && !inner(&m.0));
                        if merges.is_empty() {
                            self.merged.remove(&k);
                        }
                    }
                    if inner(&sel) {
                        self.unlist(sel, |_| false);
                    } else {
                        self.unlist(sel, |k| k.0 < outer_objs);
                    }
                    if self.merged.contains_key(&k) || self.by_sel.contains_key(&sel) {
                        self.log.push(a);
                    }
                }
                Added::Implied(now, before) => {
                    let Some(implied) = self.implied.get_mut(&now) else {
                        continue;
                    };
                    if inner(&now) || inner(&before) {
                        implied.retain(|b| *b != before);
                        if implied.is_empty() {
                            self.implied.remove(&now);
                        }
                    } else {
                        self.log.push(a);
                    }
                }
            }
        }
    }
}

/// The word of `values`, bit 0 first.
fn konst(values: &[bool]) -> Word {
    let v = values.iter().rev().fold(0u64, |v, &b| v << 1 | b as u64);
    Word::konst(v, values.len() as u32)
}

impl Lower<'_> {
    /// Inside a branch where `c` is known to be `holds`: every location
    /// that still holds a merge `c ? t : e` is given back `t` (or `e`).
    /// (A loop counter muxed by a secret `break` is public again on the
    /// paths still running.) Returns the locations and values given.
    pub(super) fn assume(&mut self, c: Bit, holds: bool) -> Vec<((usize, usize), Slot)> {
        // Conditions known to hold along with `c` (earlier "still running"
        // conditions of the same function), each with its value, and so its
        // negation (where known without a gate) with the other: a path
        // still running after `if (x) found = 1; else i++;` in a loop whose
        // condition reads `!found` runs where `x` is false, so `i` there is
        // the `else` side's.
        let chain = if holds {
            self.merges.implied_with(c)
        } else {
            vec![c]
        };
        let mut known: Vec<(Bit, bool)> = Vec::with_capacity(2 * chain.len());
        for (k, sel) in chain.into_iter().enumerate() {
            let value = k > 0 || holds;
            known.push((sel, value));
            if let Some(not) = self.b.known_not(sel) {
                known.push((not, !value));
            }
        }
        // A side given back may itself be a merge on a known condition (a
        // merge of merges): given back again, until nothing changes.
        let mut given: Vec<((usize, usize), Slot)> = Vec::new();
        for _ in 0..MERGES_KEPT {
            let mut changed = false;
            for &(sel, value) in &known {
                let keys = self.merges.keys_of(sel);
                // (Each location looked at is a step of work.)
                self.steps += keys.len() as u64;
                for k in keys {
                    let now = &self.objs[k.0].slots[k.1];
                    let Some(v) = self.merges.side(k, now, sel, value) else {
                        continue;
                    };
                    self.write_slot(k.0, k.1, v.clone());
                    match given.iter_mut().find(|(g, _)| *g == k) {
                        Some(g) => g.1 = v,
                        None => given.push((k, v)),
                    }
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        given
    }

    /// `m`, the merge at location `k` of the paths that ran a statement
    /// with those that had left (by `continue`, `break` or `return`), as a
    /// constant where it is one though no gate folded it: a counter every
    /// path stepped (`if (x) { i++; continue; } i++;`) stays public. Other
    /// such locations inside a loop are kept for [`Lower::fix_going_on`].
    pub(super) fn fixed_merge(&mut self, k: Key, m: Slot) -> Slot {
        // The flags are the paths' own conditions: not tried.
        let Slot::Val(Word::Bits(bits, _)) = &m else {
            return m;
        };
        if k.0 == self.frame().ctl {
            return m;
        }
        match self.b.fixed_values(bits) {
            Some(values) => Slot::Val(konst(&values)),
            None => {
                if self.merges.open_loops > 0 {
                    self.merges.joined.push(k);
                }
                m
            }
        }
    }

    /// At the end of a loop body's iteration (before its continued paths
    /// rejoin those still running): each location merged where paths
    /// rejoined since `mark` whose value is the same on every path going
    /// on to the next iteration (running or continued) is noted to hold it
    /// there, as a merge on that condition, which is returned (1 if no
    /// value was fixed). The next iteration, run where it holds, then
    /// reads the value public: a counter stepped on the paths that
    /// `continue` and on those running, beside a `break`.
    pub(super) fn fix_going_on(&mut self, mark: usize) -> Bit {
        let tail = &mut self.merges.joined[mark..];
        tail.sort_unstable();
        let mut keys = tail.to_vec();
        keys.dedup();
        if self.merges.open_loops == 1 {
            self.merges.joined.truncate(mark);
        }
        if keys.is_empty() {
            return Bit::Const(true);
        }
        let (alive, cont) = (self.alive(), self.flag(super::CONT));
        let going_on = self.b.or(alive, cont);
        if !matches!(going_on, Bit::Wire(_)) {
            return Bit::Const(true);
        }
        let mut fixed_any = false;
        for k in keys {
            let Some(now) = self.objs.get(k.0).and_then(|o| o.slots.get(k.1)) else {
                continue;
            };
            let Slot::Val(Word::Bits(bits, _)) = now else {
                continue;
            };
            if let Some(values) = self.b.fixed_values_where(bits, going_on) {
                let now = now.clone();
                let fixed = Slot::Val(konst(&values));
                let logged = !self.probes.is_empty();
                self.merges
                    .insert(k, (going_on, fixed, now.clone(), now), logged);
                fixed_any = true;
            }
        }
        if fixed_any {
            going_on
        } else {
            Bit::Const(true)
        }
    }

    /// A loop's condition `cv`, as a constant where it is one on every
    /// path running (`alive`) though no gate folded it: a merge whose
    /// counters each path steps differently (`if (x) i++; else j++;`
    /// under `while (i < 2 || j < 2)`) ends when every path is done.
    pub(super) fn fixed_condition(&mut self, cv: Bit, alive: Bit) -> Bit {
        if cv.as_const().is_some() {
            return cv;
        }
        match self.b.fixed_values_where(&[cv], alive).as_deref() {
            Some(&[v]) => Bit::Const(v),
            _ => cv,
        }
    }

    /// Notes that `now` (the path's "still running" condition after a
    /// guarded step) implies `before`.
    pub(super) fn note_implied(&mut self, before: Bit) {
        let now = self.alive();
        if now != before && matches!(now, Bit::Wire(_)) && matches!(before, Bit::Wire(_)) {
            let logged = !self.probes.is_empty();
            self.merges.imply(now, before, logged);
        }
    }
}

/// Drops from a branch's writes the values that `assume` gave and the
/// branch left unchanged: the location keeps its merged value.
pub(super) fn forget_assumed(
    vals: &mut BTreeMap<(usize, usize), Slot>,
    assumed: &[((usize, usize), Slot)],
) {
    for (k, v) in assumed {
        if vals.get(k) == Some(v) {
            vals.remove(k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Locations of ended objects leave their selectors' lists (which
    /// every branch on the selector goes through), and only those.
    #[test]
    fn ended_objects_leave_their_selectors_lists() {
        let slot = |v| Slot::Val(Word::konst(v, 8));
        let merge = |sel| (sel, slot(1), slot(2), slot(3));
        let (sel, other) = (Bit::Wire(7), Bit::Wire(8));
        let mut m = Merges::default();
        for obj in [3, 5, 9] {
            m.insert((obj, 0), merge(sel), false);
        }
        m.insert((5, 1), merge(other), false);
        m.end_these(&[5, 9]);
        assert_eq!(m.keys_of(sel), vec![(3, 0)]);
        assert!(m.keys_of(other).is_empty());
        assert_eq!(m.merged.keys().copied().collect::<Vec<_>>(), vec![(3, 0)]);
        // Merged again, a location is listed again.
        m.insert((5, 0), merge(sel), false);
        assert_eq!(m.keys_of(sel), vec![(3, 0), (5, 0)]);
    }

    /// A location merged again on a selector is listed once, whether
    /// its list is short (searched) or long (hashed), and after the list
    /// shrank and grew again.
    #[test]
    fn a_location_is_listed_once_a_selector() {
        let slot = |v| Slot::Val(Word::konst(v, 8));
        let merge = |sel| (sel, slot(1), slot(2), slot(3));
        let sel = Bit::Wire(7);
        let mut m = Merges::default();
        let objs: Vec<usize> = (0..3 * SHORT_LIST).collect();
        for _ in 0..2 {
            for &obj in &objs {
                m.insert((obj, 0), merge(sel), false);
                m.insert((obj, 0), merge(sel), false);
            }
        }
        let keys = |n: usize| objs[..n].iter().map(|&o| (o, 0)).collect::<Vec<_>>();
        assert_eq!(m.keys_of(sel), keys(objs.len()));
        m.end_these(&objs[2..]);
        assert_eq!(m.keys_of(sel), keys(2));
        for _ in 0..2 {
            for &obj in &objs {
                m.insert((obj, 0), merge(sel), false);
            }
        }
        assert_eq!(m.keys_of(sel), keys(objs.len()));
    }
}
