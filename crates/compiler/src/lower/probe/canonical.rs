//! The canonical numbers of a probe's wires (see `Probe::canonical`), and
//! whether two probes are one template.

use rustc_hash::FxHashMap as HashMap;
use twofold_circuit::Wire;

use super::{reread, Probe};

/// No canonical number, in [`CanonicalIds::Table`].
const NONE: u32 = u32::MAX;

/// The canonical number of each wire a template takes as input or makes:
/// the order in which they first appear. The builder makes them while the
/// probe runs, so they lie in a span about as wide as the wires made then:
/// a table over that span, 4 bytes a wire, where a hash map held 16 and
/// missed the caches on every lookup. Wires spread much wider than their
/// count (not met so far) are numbered in a map instead.
pub(super) enum CanonicalIds {
    /// The number of wire `first + i` at `ids[i]` ([`NONE`] if it has none).
    Table { first: Wire, ids: Vec<u32> },
    /// The numbers by wire.
    Map(HashMap<Wire, u32>),
}

impl CanonicalIds {
    /// Numbers the wires `visit` gives, in order, each by its first
    /// appearance (`visit` is called twice and must give them alike).
    pub(super) fn of(visit: impl Fn(&mut dyn FnMut(Wire))) -> CanonicalIds {
        let (mut lo, mut hi, mut count) = (Wire::MAX, 0, 0u64);
        visit(&mut |w| {
            (lo, hi, count) = (lo.min(w), hi.max(w), count + 1);
        });
        let mut next = 0u32;
        if count == 0 || u64::from(hi - lo) > 2 * count + (1 << 16) {
            let mut ids = HashMap::default();
            visit(&mut |w| {
                ids.entry(w).or_insert_with(|| {
                    next += 1;
                    next - 1
                });
            });
            return CanonicalIds::Map(ids);
        }
        let mut ids = vec![NONE; (hi - lo) as usize + 1];
        visit(&mut |w| {
            let id = &mut ids[(w - lo) as usize];
            if *id == NONE {
                (*id, next) = (next, next + 1);
            }
        });
        CanonicalIds::Table { first: lo, ids }
    }

    /// The canonical number of `w`, or for a wire the template does not
    /// make (nor take as input) `-1_000_000 - w`.
    pub(super) fn id(&self, w: Wire) -> i64 {
        let id = match self {
            CanonicalIds::Table { first, ids } => w
                .checked_sub(*first)
                .and_then(|i| ids.get(i as usize))
                .filter(|&&id| id != NONE)
                .copied(),
            CanonicalIds::Map(ids) => ids.get(&w).copied(),
        };
        id.map_or(-1_000_000 - i64::from(w), i64::from)
    }
}

impl Probe {
    /// Whether `other` (the next iteration's probe) is the same body up to
    /// wiring, reading and writing the same objects in the same order.
    pub(in crate::lower) fn matches(&self, other: &Probe) -> bool {
        self.failed.is_none()
            && other.failed.is_none()
            && self.observations.len() == other.observations.len()
            && self.writes.len() == other.writes.len()
            && self.derived.len() == other.derived.len()
            && reread::alike(&self.rereads, &other.rereads)
            && self
                .observations
                .iter()
                .zip(&other.observations)
                .all(|(a, b)| a.at.obj == b.at.obj && a.seq == b.seq)
            && self
                .writes
                .iter()
                .zip(&other.writes)
                .all(|(a, b)| a.at.obj == b.at.obj && a.seq == b.seq)
            && self.frame.blocks.len() == other.frame.blocks.len()
            && self
                .frame
                .blocks
                .iter()
                .zip(&other.frame.blocks)
                .all(|(a, b)| a.body == b.body)
            && self.canonical() == other.canonical()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Wires are numbered by first appearance and others by their own
    /// number, whether they lie close together (a table) or far apart (a
    /// map).
    #[test]
    fn numbers_wires_by_first_appearance_in_a_table_or_a_map() {
        for (wires, table) in [
            (vec![40, 41, 45, 41, 40, 43], true),
            (vec![7, 4_000_000_000, 7, 9], false),
            (vec![], false),
        ] {
            let ids = CanonicalIds::of(|add| wires.iter().for_each(|&w| add(w)));
            assert_eq!(matches!(ids, CanonicalIds::Table { .. }), table);
            let mut first: Vec<Wire> = Vec::new();
            for &w in &wires {
                if !first.contains(&w) {
                    first.push(w);
                }
            }
            for (n, &w) in first.iter().enumerate() {
                assert_eq!(ids.id(w), n as i64);
            }
            for w in [0, 39, 42, 44, 46, 8, Wire::MAX] {
                if !wires.contains(&w) {
                    assert_eq!(ids.id(w), -1_000_000 - i64::from(w));
                }
            }
        }
    }
}
