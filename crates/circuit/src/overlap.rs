//! Main-circuit work that can run while a region (a parallel block of the
//! main circuit) runs.
//!
//! A region reads its inputs when it starts and writes its outputs when it
//! ends. Main gates — and sequential loops of the main circuit, taken whole
//! — that neither feed the region's inputs nor depend on its outputs can
//! run in between, at the same time as the region: with inter-party
//! parallelism, the party that garbles fewer of the region's instances goes
//! on with the main circuit while the other party is still garbling (the
//! optimisation of Buescher & Katzenbeisser 2015, §5).
//!
//! The main circuit may reuse wire slots, so "feeds" and "depends on" are
//! taken over slots, not values: a step must stay before a region's start if
//! the region reads what it writes, or if it must run before another step
//! that does (it writes a slot such a step reads or writes, or reads a slot
//! such a step writes). Symmetrically, a step must stay after a region's end
//! if it reads or overwrites a slot the region writes, or one that a step
//! staying after it reads or writes. Both rules are the same closure, run
//! forward from a region's end over the steps after it and backward from a
//! region's start over the steps before it. What is left between the two can
//! run during the region; every order this allows computes what program
//! order computes.

use std::borrow::Cow;

use crate::gate::{Gate, Wire};
use crate::program::{Block, Program};

/// A step of the main circuit: a run of gates, or a sequential loop (a
/// block of the main circuit, by index).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item<'p> {
    /// Gates, in order.
    Gates(Cow<'p, [Gate]>),
    /// The main circuit's block of this index (not a region).
    Loop(usize),
}

/// The main circuit's work, arranged around its regions.
///
/// Run `before[0]`, then region 0 — it reads its inputs, `during[0]` may
/// run, it writes its outputs — then `before[1]`, region 1, and so on, and
/// finally `before[regions.len()]`. Each list is in program order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MainOrder<'p> {
    /// The regions: indices of the main circuit's parallel blocks.
    pub regions: Vec<usize>,
    /// What runs before each region, and after the last (one more list
    /// than there are regions).
    pub before: Vec<Vec<Item<'p>>>,
    /// What may run while each region runs.
    pub during: Vec<Vec<Item<'p>>>,
}

impl MainOrder<'_> {
    /// The AND gates that may run while region `r` runs.
    pub fn during_ands(&self, program: &Program, r: usize) -> u64 {
        self.during[r]
            .iter()
            .map(|item| match item {
                Item::Gates(g) => g.iter().filter(|g| g.is_and()).count() as u64,
                Item::Loop(b) => program.blocks[*b].and_count(),
            })
            .sum()
    }

    /// The region that is main block `block`, if it is one.
    pub fn region_of(&self, block: usize) -> Option<usize> {
        self.regions.iter().position(|&b| b == block)
    }
}

/// One step of a list: a gate, or a loop.
#[derive(Clone, Copy)]
enum Atom<'a> {
    Gate(&'a Gate),
    Loop(&'a Block),
}

impl Program {
    /// The main circuit's steps between its regions, in program order.
    fn segments(&self) -> (Vec<usize>, Vec<Vec<Item<'_>>>) {
        let mut regions = Vec::new();
        let mut segments = vec![Vec::new()];
        let mut start = 0;
        for (i, block) in self.blocks.iter().enumerate() {
            let gates = &self.main.gates[start..block.position];
            start = block.position;
            let current = segments.last_mut().expect("one segment at least");
            if !gates.is_empty() {
                current.push(Item::Gates(Cow::Borrowed(gates)));
            }
            if block.parallel {
                regions.push(i);
                segments.push(Vec::new());
            } else {
                current.push(Item::Loop(i));
            }
        }
        let rest = &self.main.gates[start..];
        if !rest.is_empty() {
            segments
                .last_mut()
                .expect("one segment at least")
                .push(Item::Gates(Cow::Borrowed(rest)));
        }
        (regions, segments)
    }

    /// The main circuit's work in program order: everything between two
    /// regions runs between them, nothing during a region.
    pub fn main_in_order(&self) -> MainOrder<'_> {
        let (regions, before) = self.segments();
        MainOrder {
            during: vec![Vec::new(); regions.len()],
            regions,
            before,
        }
    }

    /// The main circuit's work with as much as possible moved to run during
    /// a region (see the module docs): the steps after region `r` that do
    /// not depend on it, then those before region `r + 1` that it does not
    /// need, run during region `r`. Steps before the first region that it
    /// does not need run during it too. Runs of gates are split into
    /// slices, never copied.
    pub fn main_overlapped(&self) -> MainOrder<'_> {
        let (regions, segments) = self.segments();
        let mut slots = SlotSets::new(self.main.num_wires);
        let mut before = Vec::with_capacity(regions.len() + 1);
        let mut during: Vec<Vec<Item<'_>>> = vec![Vec::new(); regions.len()];
        for (k, mut waiting) in segments.into_iter().enumerate() {
            // The steps after region k - 1 that wait for it; the others run
            // during it.
            if k > 0 {
                let region = &self.blocks[regions[k - 1]];
                let mut ends = Vec::new();
                region.outputs.for_all(region.count, |w| ends.push(w));
                let atoms = self.atoms(&waiting);
                let tied = slots.tied(atoms.iter().copied(), &ends, &[]);
                let (tied, free) = split(waiting, &tied);
                during[k - 1].extend(free);
                waiting = tied;
            }
            // Of those, the steps that region k does not need run during it.
            if let Some(&r) = regions.get(k) {
                let region = &self.blocks[r];
                let mut starts: Vec<Wire> = region.shared.clone();
                region.inputs.for_all(region.count, |w| starts.push(w));
                let atoms = self.atoms(&waiting);
                let mut feeding = slots.tied(atoms.iter().rev().copied(), &[], &starts);
                feeding.reverse();
                let (feeding, free) = split(waiting, &feeding);
                during[k] = free;
                waiting = feeding;
            }
            before.push(waiting);
        }
        MainOrder {
            regions,
            before,
            during,
        }
    }

    /// The steps of `items`, one gate or loop at a time.
    fn atoms<'a>(&'a self, items: &'a [Item<'_>]) -> Vec<Atom<'a>> {
        let mut out = Vec::new();
        for item in items {
            match item {
                Item::Gates(g) => out.extend(g.iter().map(Atom::Gate)),
                Item::Loop(b) => out.push(Atom::Loop(&self.blocks[*b])),
            }
        }
        out
    }
}

/// Splits `items` into the steps marked in `tied` (one flag per step, in
/// order) and the others, both in order; runs of gates become slices of
/// their run.
fn split<'p>(items: Vec<Item<'p>>, tied: &[bool]) -> (Vec<Item<'p>>, Vec<Item<'p>>) {
    let (mut yes, mut no) = (Vec::new(), Vec::new());
    let mut at = 0;
    for item in items {
        match item {
            Item::Loop(b) => {
                if tied[at] { &mut yes } else { &mut no }.push(Item::Loop(b));
                at += 1;
            }
            Item::Gates(gates) => {
                let flags = &tied[at..at + gates.len()];
                at += gates.len();
                if flags.iter().all(|&t| t) {
                    yes.push(Item::Gates(gates));
                    continue;
                }
                if flags.iter().all(|&t| !t) {
                    no.push(Item::Gates(gates));
                    continue;
                }
                let mut start = 0;
                while start < flags.len() {
                    let flag = flags[start];
                    let end = flags[start..]
                        .iter()
                        .position(|&t| t != flag)
                        .map_or(flags.len(), |n| start + n);
                    let part = match &gates {
                        Cow::Borrowed(g) => Cow::Borrowed(&g[start..end]),
                        Cow::Owned(g) => Cow::Owned(g[start..end].to_vec()),
                    };
                    if flag { &mut yes } else { &mut no }.push(Item::Gates(part));
                    start = end;
                }
            }
        }
    }
    (yes, no)
}

/// Two sets of wire slots — written and read by the steps kept so far —
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

    /// Walks `atoms` (in program order, or reversed) starting from a region
    /// that writes `written` and reads `read`, and marks, in walking order,
    /// the steps tied to it: a step is tied if it reads a slot written by
    /// the region or a tied step, or writes a slot they read or write.
    fn tied<'a>(
        &mut self,
        atoms: impl Iterator<Item = Atom<'a>>,
        written: &[Wire],
        read: &[Wire],
    ) -> Vec<bool> {
        self.stamp += 1;
        let stamp = self.stamp;
        for &w in written {
            self.written[w as usize] = stamp;
        }
        for &w in read {
            self.read[w as usize] = stamp;
        }
        atoms
            .map(|atom| match atom {
                Atom::Gate(g) => self.step(stamp, g.inputs(), std::iter::once(g.out())),
                Atom::Loop(b) => {
                    let mut reads: Vec<Wire> = b.shared.clone();
                    reads.extend(b.carried.iter().map(|c| c.init));
                    b.inputs.for_all(b.count, |w| reads.push(w));
                    let mut writes = Vec::new();
                    b.outputs.for_all(b.count, |w| writes.push(w));
                    writes.extend(b.carried.iter().filter_map(|c| c.last));
                    self.step(stamp, reads.into_iter(), writes.into_iter())
                }
            })
            .collect()
    }

    /// Whether a step reading `reads` and writing `writes` is tied; marks
    /// its slots if it is.
    fn step(
        &mut self,
        stamp: u32,
        reads: impl Iterator<Item = Wire> + Clone,
        writes: impl Iterator<Item = Wire> + Clone,
    ) -> bool {
        let is_tied = writes
            .clone()
            .any(|w| self.written[w as usize] == stamp || self.read[w as usize] == stamp)
            || reads.clone().any(|w| self.written[w as usize] == stamp);
        if is_tied {
            writes.for_each(|w| self.written[w as usize] = stamp);
            reads.for_each(|w| self.read[w as usize] = stamp);
        }
        is_tied
    }
}
