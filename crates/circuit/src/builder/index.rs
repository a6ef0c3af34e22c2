//! The builder's structural hashing: the gates of a frame by kind and
//! inputs, found through their newest input. Each wire lists the first
//! [`LISTED`] gates whose newest (highest) input it is, latest first; the
//! gates of a wire read more often go to a hash table. A new gate mostly
//! reads wires made a little earlier, so a lookup reads a wire's entry and
//! a few gates near the end of the frame, where a table over all the
//! gates of a 40 M-gate frame (half a gigabyte) missed the caches and the
//! TLB twice a lookup. Every gate of the frame is found, however old.

use super::store::Pair;
use crate::gate::Wire;

/// Gates listed under their newest input; the rest of its gates go to
/// the table.
const LISTED: u32 = 8;

/// Wires of a page of the wire map (4 bytes each).
const PAGE_BITS: u32 = 8;

/// The gates of a frame by kind and inputs (see the module docs).
#[derive(Default)]
pub(super) struct Index {
    /// The last gate listed under wire `w` (index + 1, 0 for none) is in
    /// page `pages[(w >> PAGE_BITS) - first_page]` (its number + 1, 0 for
    /// none) of `heads`, at `w % 2^PAGE_BITS`: pages are made as wires are
    /// used (a frame's wires are mostly consecutive, with the wires of
    /// nested frames between).
    pages: Vec<u32>,
    first_page: usize,
    /// The pages, one after the other: one allocation, not one a page, so
    /// that freeing them returns their memory (160 MB of 1 KB pages freed
    /// at the end of a 40 M-gate frame stayed resident in the heap through
    /// assembling).
    heads: Vec<u32>,
    /// `next[i]`: the listed gate before gate `i` with the same newest input
    /// (index + 1, 0 for none).
    next: Vec<u32>,
    /// Gates whose newest input had [`LISTED`] gates listed already.
    table: hashbrown::HashTable<u32>,
}

/// The hash of a gate's kind and inputs (its stored pair, which two
/// gates computing the same value share).
fn hash(pair: &Pair) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(pair)
}

/// Where in [`Index::heads`] wire `w` is, on page `n` (its number + 1).
fn slot(n: u32, w: Wire) -> usize {
    ((n as usize - 1) << PAGE_BITS) | (w & ((1 << PAGE_BITS) - 1)) as usize
}

/// A gate's newest input.
fn newest(&[x, y]: &Pair) -> Wire {
    x.max(y)
}

impl Index {
    /// The last gate listed under `w` (index + 1, 0 for none).
    fn head(&self, w: Wire) -> u32 {
        let page = (w >> PAGE_BITS) as usize;
        match page
            .checked_sub(self.first_page)
            .and_then(|p| self.pages.get(p))
        {
            Some(&n) if n != 0 => self.heads[slot(n, w)],
            _ => 0,
        }
    }

    fn head_mut(&mut self, w: Wire) -> &mut u32 {
        let page = (w >> PAGE_BITS) as usize;
        if self.pages.is_empty() {
            self.first_page = page;
        } else if page < self.first_page {
            let before = self.first_page - page;
            self.pages.splice(0..0, std::iter::repeat_n(0, before));
            self.first_page = page;
        }
        let p = page - self.first_page;
        if p >= self.pages.len() {
            self.pages.resize(p + 1, 0);
        }
        if self.pages[p] == 0 {
            self.heads.resize(self.heads.len() + (1 << PAGE_BITS), 0);
            self.pages[p] = (self.heads.len() >> PAGE_BITS) as u32;
        }
        &mut self.heads[slot(self.pages[p], w)]
    }

    /// The position in `gates` (the pairs of the frame's gates, each
    /// recorded here or not) of the gate stored as `gate`, if any; else how
    /// many gates are listed under its newest input (to give
    /// [`Index::insert`]).
    pub(super) fn find(&self, gates: &[Pair], gate: &Pair) -> Result<usize, u32> {
        let mut at = self.head(newest(gate));
        let mut listed = 0;
        while at != 0 {
            if gates[at as usize - 1] == *gate {
                return Ok(at as usize - 1);
            }
            at = self.next[at as usize - 1];
            listed += 1;
        }
        if listed < LISTED {
            return Err(listed);
        }
        self.table
            .find(hash(gate), |&i| gates[i as usize] == *gate)
            .map(|&i| i as usize)
            .ok_or(listed)
    }

    /// Records gate `i` of `gates`, which [`Index::find`] did not find,
    /// given what it returned.
    pub(super) fn insert(&mut self, gates: &[Pair], i: u32, listed: u32) {
        self.next.resize(i as usize, 0);
        if listed < LISTED {
            let head = self.head_mut(newest(&gates[i as usize]));
            let before = std::mem::replace(head, i + 1);
            self.next.push(before);
        } else {
            self.next.push(0);
            let hasher = |&j: &u32| hash(&gates[j as usize]);
            self.table
                .insert_unique(hash(&gates[i as usize]), i, hasher);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::store::pair;
    use super::*;
    use crate::gate::Gate;

    /// Records `gate` as the next gate of `gates`.
    fn add(index: &mut Index, gates: &mut Vec<Pair>, gate: Gate) {
        let listed = index.find(gates, &pair(&gate)).unwrap_err();
        gates.push(pair(&gate));
        index.insert(gates, gates.len() as u32 - 1, listed);
    }

    /// Where `index` finds `gate`, if anywhere.
    fn found(index: &Index, gates: &[Pair], gate: Gate) -> Option<usize> {
        index.find(gates, &pair(&gate)).ok()
    }

    /// Every gate is found, however many came since, whether listed under
    /// its newest input or in the table (a wire read by many gates);
    /// kinds and inputs are told apart; wires below the first seen are
    /// mapped too.
    #[test]
    fn finds_every_gate() {
        let mut index = Index::default();
        let mut gates = Vec::new();
        let and = |a, b| Gate::And { a, b, out: 0 };
        let xor = |a, b| Gate::Xor { a, b, out: 0 };
        add(&mut index, &mut gates, and(1000, 1001));
        for i in 0..300_000 {
            add(&mut index, &mut gates, and(2000 + i, 2001 + i));
        }
        // 40 gates whose newest input is wire 7_000_000.
        for i in 0..40 {
            add(&mut index, &mut gates, and(i, 7_000_000));
        }
        gates.push([3, 3]); // not recorded
        add(&mut index, &mut gates, Gate::Inv { a: 12, out: 0 });
        assert_eq!(found(&index, &gates, and(1000, 1001)), Some(0));
        assert_eq!(found(&index, &gates, and(2, 7_000_000)), Some(300_003));
        assert_eq!(found(&index, &gates, and(39, 7_000_000)), Some(300_040));
        assert_eq!(found(&index, &gates, and(40, 7_000_000)), None);
        assert_eq!(found(&index, &gates, xor(1000, 1001)), None);
        assert_eq!(found(&index, &gates, xor(39, 7_000_000)), None);
        let inv = |a| Gate::Inv { a, out: 0 };
        assert_eq!(found(&index, &gates, inv(12)), Some(300_042));
        assert_eq!(found(&index, &gates, inv(3)), None);
    }
}
