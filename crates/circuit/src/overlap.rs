//! Main gates that can run while a region runs.
//!
//! A region reads its inputs when it starts and writes its outputs when it
//! ends. Main gates that neither feed the region's inputs nor depend on its
//! outputs can run in between, at the same time as the region: with
//! inter-party parallelism, the party that garbles fewer of the region's
//! instances goes on with the main circuit while the other party is still
//! garbling (the optimisation of Buescher & Katzenbeisser 2015, §5).
//!
//! The main circuit reuses wire slots, so "feeds" and "depends on" are taken
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

/// The main gates of a program, arranged around its regions.
///
/// Run `before[0]`, then region 0 — it reads its inputs, `during[0]` may run,
/// it writes its outputs — then `before[1]`, region 1, and so on, and finally
/// `before[regions.len()]`. Each list is in program order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MainOrder<'p> {
    /// The gates to run before each region, and after the last (one more
    /// list than there are regions).
    pub before: Vec<Cow<'p, [Gate]>>,
    /// The gates that may run while each region runs.
    pub during: Vec<Vec<Gate>>,
}

impl MainOrder<'_> {
    /// The AND gates that may run while region `r` runs.
    pub fn during_ands(&self, r: usize) -> u64 {
        self.during[r].iter().filter(|g| g.is_and()).count() as u64
    }
}

impl Program {
    /// The main gates in program order: everything between two regions runs
    /// between them, nothing during a region.
    pub fn main_in_order(&self) -> MainOrder<'_> {
        let mut start = 0;
        let mut before = Vec::with_capacity(self.regions.len() + 1);
        for region in &self.regions {
            before.push(Cow::Borrowed(&self.main.gates[start..region.position]));
            start = region.position;
        }
        before.push(Cow::Borrowed(&self.main.gates[start..]));
        MainOrder {
            before,
            during: vec![Vec::new(); self.regions.len()],
        }
    }

    /// The main gates with as many as possible moved to run during a region
    /// (see the module docs): the gates after region `r` that do not depend
    /// on it, then those before region `r + 1` that it does not need, run
    /// during region `r`. Gates before the first region that it does not need
    /// run during it too.
    pub fn main_overlapped(&self) -> MainOrder<'static> {
        let gates = &self.main.gates;
        let mut slots = SlotSets::new(self.main.num_wires);
        let mut before = Vec::with_capacity(self.regions.len() + 1);
        let mut during = vec![Vec::new(); self.regions.len()];
        let mut start = 0;
        for k in 0..=self.regions.len() {
            let end = self.regions.get(k).map_or(gates.len(), |r| r.position);
            let mut stay: Vec<Gate> = gates[start..end].to_vec();
            if k > 0 {
                let ends = self.regions[k - 1]
                    .instances
                    .iter()
                    .flat_map(|i| i.outputs.iter().copied());
                let (after, free) = slots.split(stay.iter().copied(), ends, &[]);
                during[k - 1].extend(free);
                stay = after;
            }
            if let Some(region) = self.regions.get(k) {
                let starts: Vec<Wire> = region
                    .shared
                    .iter()
                    .chain(region.instances.iter().flat_map(|i| i.inputs.iter()))
                    .copied()
                    .collect();
                let (mut feeding, mut free) =
                    slots.split(stay.iter().rev().copied(), std::iter::empty(), &starts);
                feeding.reverse();
                free.reverse();
                during[k] = free;
                stay = feeding;
            }
            before.push(Cow::Owned(stay));
            start = end;
        }
        MainOrder { before, during }
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
    /// that writes `written` and reads `read`, and splits them into the gates
    /// tied to it — a gate is tied if it reads a slot written by the region
    /// or a tied gate, or writes a slot they read or write — and the free
    /// rest, both in walking order.
    fn split(
        &mut self,
        gates: impl Iterator<Item = Gate>,
        written: impl Iterator<Item = Wire>,
        read: &[Wire],
    ) -> (Vec<Gate>, Vec<Gate>) {
        self.stamp += 1;
        let stamp = self.stamp;
        for w in written {
            self.written[w as usize] = stamp;
        }
        for &w in read {
            self.read[w as usize] = stamp;
        }
        let (mut tied, mut free) = (Vec::new(), Vec::new());
        for g in gates {
            let out = g.out() as usize;
            let is_tied = self.written[out] == stamp
                || self.read[out] == stamp
                || g.inputs().any(|w| self.written[w as usize] == stamp);
            if is_tied {
                self.written[out] = stamp;
                for w in g.inputs() {
                    self.read[w as usize] = stamp;
                }
                tied.push(g);
            } else {
                free.push(g);
            }
        }
        (tied, free)
    }
}
