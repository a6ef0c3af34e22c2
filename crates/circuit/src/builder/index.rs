//! The builder's structural hashing over a window of recent gates: two
//! generations of at most [`GENERATION`] gates each, the older dropped when
//! the younger fills. Every gate made among the last [`GENERATION`] of a
//! frame is found (and most made among the last two generations), in
//! memory and time that do not grow with the frame: a table over all the
//! gates of a 40 M-gate frame took half a gigabyte, and each lookup missed
//! the caches (and the TLB) twice.

use crate::gate::Gate;

/// Gates a generation holds: 7/8 of 2^17, what a table of 2^17 buckets
/// holds without growing (2 MiB, which the caches hold; the gates are kept
/// in the table so that a lookup reads nothing else).
pub(super) const GENERATION: usize = 7 << 14;

/// Recent gates of a frame, by kind and inputs (see the module docs).
#[derive(Default)]
pub(super) struct Recent {
    young: hashbrown::HashTable<Gate>,
    old: hashbrown::HashTable<Gate>,
}

/// `gate` with its output set to 0: what two gates computing the same
/// value share.
fn key(gate: &Gate) -> Gate {
    gate.rewire(|w| w, 0)
}

/// The hash of a gate's kind and inputs.
fn hash(gate: &Gate) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(key(gate))
}

impl Recent {
    /// The recent gate computing what `gate` (output 0) would, if any.
    pub(super) fn find(&self, gate: &Gate) -> Option<Gate> {
        let h = hash(gate);
        let same = |g: &Gate| key(g) == *gate;
        self.young
            .find(h, same)
            .or_else(|| self.old.find(h, same))
            .copied()
    }

    /// Records `gate` (with its output), which [`Recent::find`] did not find.
    pub(super) fn insert(&mut self, gate: Gate) {
        if self.young.len() == GENERATION {
            std::mem::swap(&mut self.young, &mut self.old);
            self.young.clear();
        }
        self.young.insert_unique(hash(&gate), gate, hash);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn and(a: u32, b: u32, out: u32) -> Gate {
        Gate::And { a, b, out }
    }

    /// A gate is found while it is among the last [`GENERATION`] recorded,
    /// whatever came since; kinds and inputs are told apart.
    #[test]
    fn finds_gates_within_a_generation() {
        let mut recent = Recent::default();
        recent.insert(and(1, 2, 100));
        for i in 0..GENERATION as u32 - 1 {
            recent.insert(and(10 + i, 10 + i + 1, 200 + i));
        }
        assert_eq!(recent.find(&and(1, 2, 0)), Some(and(1, 2, 100)));
        assert_eq!(recent.find(&and(2, 1, 0)), None);
        assert_eq!(recent.find(&Gate::Xor { a: 1, b: 2, out: 0 }), None);
        // One generation later still: it is in the older one.
        for i in 0..GENERATION as u32 {
            recent.insert(and(i, i, 5_000_000 + i));
        }
        assert_eq!(recent.find(&and(1, 2, 0)), Some(and(1, 2, 100)));
        assert_eq!(recent.find(&and(7, 7, 0)), Some(and(7, 7, 5_000_007)));
    }
}
