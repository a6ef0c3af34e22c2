//! Main gates that can run while a region (a parallel block of the main
//! circuit) runs.
//!
//! A region reads its inputs when it starts and writes its outputs when it
//! ends. Main gates that neither feed the region's inputs nor depend on its
//! outputs can run in between, at the same time as the region: with
//! inter-party parallelism, the party that garbles fewer of the region's
//! instances goes on with the main circuit while the other party is still
//! garbling (the optimisation of Buescher & Katzenbeisser 2015, §5).
//!
//! The main circuit may reuse wire slots, so "feeds" and "depends on" are taken
//! over slots, not values: a gate must stay before a region's start if the
//! region reads what it writes, or if it must run before another gate that
//! does (it writes a slot such a gate reads or writes, or reads a slot such
//! a gate writes). Symmetrically, a gate must stay after a region's end if it
//! reads or overwrites a slot the region writes, or one that a gate staying
//! after it reads or writes. Both rules are the same closure, run forward
//! from a region's end over the gates after it and backward from a region's
//! start over the gates before it. What is left between the two can run
//! during the region; every order this allows computes what program order
//! computes.

use std::borrow::Cow;

use crate::gate::{Gate, Wire};
use crate::program::Program;

/// The main gates of a program, arranged around its blocks.
///
/// Run `before[0]`, then block 0 — it reads its inputs, `during[0]` may run,
/// it writes its outputs — then `before[1]`, block 1, and so on, and finally
/// `before[blocks.len()]`. Each list is in program order. Only parallel
/// blocks have gates during them: no gate moves across a sequential block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MainOrder<'p> {
    /// The gates to run before each region, and after the last (one more
    /// list than there are regions).
    pub before: Vec<Cow<'p, [Gate]>>,
    /// The gates that may run while each region runs.
    pub during: Vec<Cow<'p, [Gate]>>,
}

impl MainOrder<'_> {
    /// The AND gates that may run while block `r` runs.
    pub fn during_ands(&self, r: usize) -> u64 {
        self.during[r].iter().filter(|g| g.is_and()).count() as u64
    }
}

impl Program {
    /// The main gates in program order: everything between two regions runs
    /// between them, nothing during a region.
    pub fn main_in_order(&self) -> MainOrder<'_> {
        let mut start = 0;
        let mut before = Vec::with_capacity(self.blocks.len() + 1);
        for block in &self.blocks {
            before.push(Cow::Borrowed(&self.main.gates[start..block.position]));
            start = block.position;
        }
        before.push(Cow::Borrowed(&self.main.gates[start..]));
        MainOrder {
            before,
            during: vec![Cow::Borrowed(&[][..]); self.blocks.len()],
        }
    }

    /// The main gates with as many as possible moved to run during a region
    /// (see the module docs): the gates after region `r` that do not depend
    /// on it, then those before region `r + 1` that it does not need, run
    /// during region `r`. Gates before the first region that it does not need
    /// run during it too. Up to 1/64 of the gates that could move may stay
    /// where they are when that saves copying the rest.
    pub fn main_overlapped(&self) -> MainOrder<'_> {
        let gates = &self.main.gates;
        let mut slots = SlotSets::new(self.main.num_wires);
        let mut before = Vec::with_capacity(self.blocks.len() + 1);
        let mut during = vec![Cow::Borrowed(&[][..]); self.blocks.len()];
        let mut start = 0;
        for k in 0..=self.blocks.len() {
            let end = self.blocks.get(k).map_or(gates.len(), |r| r.position);
            let mut waiting = Cow::Borrowed(&gates[start..end]);
            start = end;
            // The gates after region k - 1 that wait for it; the others run
            // during it.
            if k > 0 && self.blocks[k - 1].parallel {
                let region = &self.blocks[k - 1];
                let mut ends = Vec::new();
                region.outputs.for_all(region.count, |w| ends.push(w));
                let tied = slots.tied(waiting.iter(), ends.into_iter(), &[]);
                let (tied, free) = partition(waiting, &tied, true);
                if during[k - 1].is_empty() {
                    during[k - 1] = free;
                } else {
                    during[k - 1].to_mut().extend_from_slice(&free);
                }
                waiting = tied;
            }
            // Of those, the gates that region k does not need run during it.
            if let Some(region) = self.blocks.get(k).filter(|b| b.parallel) {
                let mut starts: Vec<Wire> = region.shared.clone();
                region.inputs.for_all(region.count, |w| starts.push(w));
                let mut feeding = slots.tied(waiting.iter().rev(), std::iter::empty(), &starts);
                feeding.reverse();
                let (feeding, free) = partition(waiting, &feeding, false);
                during[k] = free;
                waiting = feeding;
            }
            before.push(waiting);
        }
        MainOrder { before, during }
    }
}

/// Splits `gates` into those marked in `tied` (to keep waiting) and the
/// free others (to run during a region), both in order. The free gates are
/// taken from the start of `gates` (`free_first`) or from its end. When all
/// but a few of the free gates lie before the first tied gate (or after the
/// last), the split is a cut of the slice and no gate is copied: the few
/// free gates on the tied side stay waiting, in program order, which is
/// always allowed.
fn partition<'p>(
    gates: Cow<'p, [Gate]>,
    tied: &[bool],
    free_first: bool,
) -> (Cow<'p, [Gate]>, Cow<'p, [Gate]>) {
    let free = tied.iter().filter(|&&t| !t).count();
    let cut = if free_first {
        tied.iter().position(|&t| t).unwrap_or(tied.len())
    } else {
        tied.iter().rposition(|&t| t).map_or(0, |i| i + 1)
    };
    let free_side = if free_first { cut } else { tied.len() - cut };
    match gates {
        Cow::Borrowed(slice) if (free - free_side) * 64 <= free => {
            let (head, tail) = slice.split_at(cut);
            if free_first {
                (Cow::Borrowed(tail), Cow::Borrowed(head))
            } else {
                (Cow::Borrowed(head), Cow::Borrowed(tail))
            }
        }
        gates => {
            let pick = |want: bool| -> Vec<Gate> {
                let both = gates.iter().zip(tied);
                both.filter(|(_, &t)| t == want).map(|(g, _)| *g).collect()
            };
            (Cow::Owned(pick(true)), Cow::Owned(pick(false)))
        }
    }
}

/// Two sets of wire slots — written and read by the gates kept so far —
/// cleared in constant time between uses by bumping a stamp.
struct SlotSets {
    written: Vec<u32>,
    read: Vec<u32>,
    stamp: u32,
}

impl SlotSets {
    fn new(num_wires: Wire) -> SlotSets {
        SlotSets {
            written: vec![0; num_wires as usize],
            read: vec![0; num_wires as usize],
            stamp: 0,
        }
    }

    /// Walks `gates` (in program order, or reversed) starting from a region
    /// that writes `written` and reads `read`, and marks, in walking order,
    /// the gates tied to it: a gate is tied if it reads a slot written by the
    /// region or a tied gate, or writes a slot they read or write.
    fn tied<'g>(
        &mut self,
        gates: impl Iterator<Item = &'g Gate>,
        written: impl Iterator<Item = Wire>,
        read: &[Wire],
    ) -> Vec<bool> {
        self.stamp += 1;
        let stamp = self.stamp;
        for w in written {
            self.written[w as usize] = stamp;
        }
        for &w in read {
            self.read[w as usize] = stamp;
        }
        gates
            .map(|g| {
                let out = g.out() as usize;
                let is_tied = self.written[out] == stamp
                    || self.read[out] == stamp
                    || g.inputs().any(|w| self.written[w as usize] == stamp);
                if is_tied {
                    self.written[out] = stamp;
                    for w in g.inputs() {
                        self.read[w as usize] = stamp;
                    }
                }
                is_tied
            })
            .collect()
    }
}
