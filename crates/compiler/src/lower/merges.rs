//! What the lowering knows about secret merges: which locations hold a
//! merge `sel ? t : e`, and which "still running" conditions imply which.
//! Inside a branch on `sel` a merged location is given back `t` or `e`
//! (see `Lower::assume`).
//!
//! A probe's facts are over its own wires and objects and must be
//! forgotten when it ends; the facts it added are logged, so forgetting
//! costs what the probe added, not what the whole program has.

use rustc_hash::FxHashMap as HashMap;
use twofold_circuit::{Bit, Wire};

use super::Lower;
use crate::value::Slot;

/// A location: an object and a leaf.
type Key = (usize, usize);

/// A merge: its selector, the two values merged and the result.
pub(super) type Merge = (Bit, Slot, Slot, Slot);

/// A fact added while a probe ran.
#[derive(Clone, Copy)]
enum Added {
    Merge(Key, Bit),
    Implied(Bit),
}

/// The merges and implications known (see the module docs).
#[derive(Default)]
pub(super) struct Merges {
    /// Locations holding a merge.
    merged: HashMap<Key, Merge>,
    /// The locations of `merged` by selector.
    by_sel: HashMap<Bit, Vec<Key>>,
    /// "Still running" conditions and an earlier one each implies.
    implied: HashMap<Bit, Bit>,
    /// Facts added while probes ran, oldest first.
    log: Vec<Added>,
}

impl Merges {
    /// Notes that location `k` holds `merge`; `logged` while a probe runs.
    pub(super) fn insert(&mut self, k: Key, merge: Merge, logged: bool) {
        let sel = merge.0;
        self.merged.insert(k, merge);
        self.by_sel.entry(sel).or_default().push(k);
        if logged {
            self.log.push(Added::Merge(k, sel));
        }
    }

    /// Notes that `now` implies `before`; `logged` while a probe runs.
    pub(super) fn imply(&mut self, now: Bit, before: Bit, logged: bool) {
        self.implied.insert(now, before);
        if logged {
            self.log.push(Added::Implied(now));
        }
    }

    /// The condition `c` implies, if one is known.
    pub(super) fn implied_by(&self, c: Bit) -> Option<Bit> {
        self.implied.get(&c).copied()
    }

    /// The locations noted with selector `sel`.
    pub(super) fn keys_of(&self, sel: Bit) -> Vec<Key> {
        self.by_sel.get(&sel).cloned().unwrap_or_default()
    }

    /// The merge location `k` holds, if noted.
    pub(super) fn get(&self, k: Key) -> Option<&Merge> {
        self.merged.get(&k)
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
                    if let Some((now, ..)) = self.merged.get(&k) {
                        if k.0 >= outer_objs || inner(now) {
                            self.merged.remove(&k);
                        }
                    }
                    if inner(&sel) {
                        self.by_sel.remove(&sel);
                    } else if let Some(keys) = self.by_sel.get_mut(&sel) {
                        keys.retain(|k| k.0 < outer_objs);
                    }
                    if self.merged.contains_key(&k) || self.by_sel.contains_key(&sel) {
                        self.log.push(a);
                    }
                }
                Added::Implied(now) => {
                    let Some(before) = self.implied.get(&now) else {
                        continue;
                    };
                    if inner(&now) || inner(before) {
                        self.implied.remove(&now);
                    } else {
                        self.log.push(a);
                    }
                }
            }
        }
    }
}

impl Lower<'_> {
    /// Inside a branch where `c` is known to be `holds`: every location
    /// that still holds a merge `c ? t : e` is given back `t` (or `e`).
    /// (A loop counter muxed by a secret `break` is public again on the
    /// paths still running.) Returns the locations and values given.
    pub(super) fn assume(&mut self, c: Bit, holds: bool) -> Vec<((usize, usize), Slot)> {
        // Conditions known to hold along with `c` (earlier "still running"
        // conditions of the same function).
        let mut chain = vec![c];
        if holds {
            let mut at = c;
            while let Some(p) = self.merges.implied_by(at) {
                if chain.len() >= 16 || chain.contains(&p) {
                    break;
                }
                chain.push(p);
                at = p;
            }
        }
        let mut given = Vec::new();
        for sel in chain {
            for k in self.merges.keys_of(sel) {
                let Some((s2, t, e, m)) = self.merges.get(k).cloned() else {
                    continue;
                };
                if s2 != sel || given.iter().any(|(g, _)| *g == k) {
                    continue;
                }
                if self.objs[k.0].slots[k.1] == m {
                    let v = if holds { t } else { e };
                    self.write_slot(k.0, k.1, v.clone());
                    given.push((k, v));
                }
            }
        }
        given
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
