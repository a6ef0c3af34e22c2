//! How `k` threads run one batch each on its own copy of the labels
//! (fine-grained parallelism that keeps every thread's data in its own
//! cache): the batch is cut into units, each unit's gates into one part per
//! thread, and after every unit each thread hands the others only the
//! labels they will read.
//!
//! Threads that share one label array pay for every label one writes and
//! another reads at random: on the development VM that exchange cost three
//! times a label's own traffic, and FGP on random levels stayed at 1.0x.
//! With a copy each, a thread reads and writes its own cache only, and the
//! exchange is a short sequential list per unit.
//!
//! Units, in batch order:
//! - an AND run of at least `min_ands` gates, in rounds of at most
//!   `round_gates` gates, a unit each, cut by [`round_range`] (the cut the
//!   engines' tables follow; part 0 may take less, [`Split::lead_weight`]);
//! - the gates between two such runs, one unit: free gates cut by
//!   [`part_range`] as well, unless a part would read or overwrite what an
//!   earlier part of the unit writes; then (and whenever ANDs are among
//!   them) all of them on part 0 — unless the plan shares gaps
//!   ([`Split::share_gaps`]) and the gap holds at least `min_ands` ANDs:
//!   then it is cut into units of [`Shape::Owned`], each gate going to
//!   the part that made its inputs (owner computes), and a unit ending
//!   where a gate reads what two parts made in it (or at `round_gates`
//!   gates), if that shares the ANDs well ([`shares_well`]). This is how
//!   a circuit with many independent chains but no long AND run (a loop
//!   unrolled and levelled in windows) runs on several threads.
//!
//! Units are grouped in stretches ([`Stretch`], about [`STRETCH_GATES`]
//! gates each), which an engine may run either way. Part 0 runs on the
//! batch's own labels; the others on copies that get, at the start of a
//! stretch, the labels they read before the stretch writes them
//! ([`Stretch::initial`]). After unit `u`, part `p` sends the labels
//! [`Stretch::sends`] lists — outputs another part reads before they are
//! overwritten, and last values a part other than 0 writes that are read
//! after the stretch (or that the batch ends with) — and every other part
//! copies them into its labels. Then part 0's labels are what running the
//! batch in order leaves.

use std::ops::Range;

use crate::batch::Batch;
use crate::gate::{Gate, Wire};

/// The gates `p` of `k` parts of `n` take: `n·p/k .. n·(p+1)/k`.
pub fn part_range(n: usize, k: usize, p: usize) -> Range<usize> {
    round_range(n, k, p, EVEN_WEIGHT)
}

/// A part's weight in a round when the parts share it evenly (see
/// [`Split::lead_weight`]).
pub const EVEN_WEIGHT: usize = 256;

/// The gates `p` of `k` parts of a round of `n` take when part 0 weighs
/// `lead_weight` against [`EVEN_WEIGHT`] for each other part: part 0 the
/// first `n·lead/(lead + 256·(k-1))`, the others the rest in order, evenly.
/// At [`EVEN_WEIGHT`] this is [`part_range`]: `n·p/k .. n·(p+1)/k`.
pub fn round_range(n: usize, k: usize, p: usize, lead_weight: usize) -> Range<usize> {
    let total = lead_weight + EVEN_WEIGHT * (k - 1);
    let end = |p: usize| match p {
        0 => 0,
        _ => n * (lead_weight + EVEN_WEIGHT * (p - 1)) / total,
    };
    end(p)..end(p + 1)
}

/// How a unit's gates are shared between the parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A round of a split AND run: part `p` takes [`round_range`].
    Round,
    /// Free gates, part `p` taking [`part_range`].
    Cut,
    /// Gates (ANDs among them) that go to the part that made their
    /// inputs, in pieces: no gate reads what another part wrote in the
    /// unit.
    Owned,
    /// Everything on part 0.
    First,
}

impl Shape {
    /// Whether units of this shape have garbled tables that their parts
    /// make (the engines' lead makes those of [`Shape::First`]).
    pub fn has_shared_tables(self) -> bool {
        matches!(self, Shape::Round | Shape::Owned)
    }
}

/// Consecutive gates of a unit that one part runs, in one garbling call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    /// The gates, as positions in the batch.
    pub gates: Range<usize>,
    /// The part that runs them.
    pub part: usize,
    /// AND gates among them.
    pub ands: usize,
}

/// A stretch of a batch's gates and how its parts share it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    /// The gates, as positions in the batch.
    pub gates: Range<usize>,
    /// How they are shared.
    pub shape: Shape,
    /// The pieces, in batch order (so those of one part are in order).
    pub pieces: Vec<Piece>,
}

/// How a batch is cut for `threads` threads (see the module
/// documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    /// Parts (threads).
    pub threads: usize,
    /// AND runs of at least this many gates are split in rounds.
    pub min_ands: usize,
    /// The most gates of a round.
    pub round_gates: usize,
    /// Whether gaps of at least `min_ands` ANDs are shared by owner
    /// ([`Shape::Owned`]): the calls then differ from the unplanned
    /// [`cut`]'s, so only for schemes whose tables do not depend on where
    /// calls begin and end.
    pub share_gaps: bool,
    /// Part 0's weight in a round against [`EVEN_WEIGHT`] for each other
    /// part ([`round_range`]): below it, part 0 (which also moves the
    /// tables) takes less. Another weight moves where calls begin and end,
    /// so only for schemes whose tables do not depend on that.
    pub lead_weight: usize,
}

/// The plan of a batch on `k` threads with a copy of the labels each (see
/// the module documentation), in stretches of at least [`STRETCH_GATES`]
/// gates: each stretch starts from the batch's labels as the stretch
/// before left them, so an engine may run each stretch either way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExchangePlan {
    /// The cut it was made for.
    pub split: Split,
    stretches: Vec<Stretch>,
}

/// Whole units of at least this many gates make a stretch (the last one
/// of a batch may be shorter): an engine chooses between its threads and
/// one stretch by stretch, so it learns within a batch.
pub const STRETCH_GATES: usize = 1 << 20;

/// Consecutive units of a batch and what their parts exchange.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stretch {
    threads: usize,
    units: Vec<Unit>,
    /// Wires parts other than 0 read before the stretch writes them.
    initial: Vec<Wire>,
    /// The wires each part sends after each unit, unit after unit, part
    /// after part; `send_ends[u * threads + p]` ends the list of part `p`
    /// after unit `u`.
    sends: Vec<Wire>,
    send_ends: Vec<usize>,
    /// AND gates of units whose parts make tables.
    split_ands: usize,
}

/// A wire's last writer so far, as a position in the batch: none yet.
const BEFORE: u32 = u32::MAX;

impl ExchangePlan {
    /// The plan of `batch` over `num_wires` labels cut as `split` says.
    ///
    /// # Panics
    /// If a gate uses a wire not below `num_wires`, or the batch has 2^32
    /// gates or more.
    pub fn of(batch: Batch<'_>, num_wires: Wire, split: Split) -> ExchangePlan {
        Self::stretched(batch, num_wires, split, STRETCH_GATES)
    }

    /// [`ExchangePlan::of`] in stretches of `stretch_gates`.
    fn stretched(
        batch: Batch<'_>,
        num_wires: Wire,
        split: Split,
        stretch_gates: usize,
    ) -> ExchangePlan {
        let k = split.threads.max(1);
        let gates = batch.gates();
        assert!(
            gates.len() < BEFORE as usize,
            "a batch of fewer than 2^32 gates"
        );
        let all = units(batch, num_wires, split);
        let groups = stretch_groups(&all, stretch_gates);
        if all.iter().all(|u| u.shape == Shape::First) {
            // All on part 0 (a serial loop body, say): nothing to copy or
            // send, so no need analysis.
            let stretches = groups.iter().map(|units| Stretch::on_part_0(units, k));
            return ExchangePlan {
                split,
                stretches: stretches.collect(),
            };
        }
        let mut need = Needs {
            gates,
            wires: vec![WireState::default(); num_wires as usize],
            // One spare flag at the end (see `Needs::pass`).
            needed: vec![false; gates.len() + 1],
            elsewhere: Vec::new(),
        };
        let initials: Vec<_> = groups.iter().map(|units| need.pass(units)).collect();
        need.end();
        let stretches = groups
            .into_iter()
            .zip(initials)
            .map(|(units, initial)| need.stretch(units, initial, k))
            .collect();
        ExchangePlan { split, stretches }
    }

    /// The stretches, in order.
    pub fn stretches(&self) -> &[Stretch] {
        &self.stretches
    }

    /// AND gates of units whose parts make tables: what the threads
    /// share.
    pub fn split_ands(&self) -> usize {
        self.stretches.iter().map(|s| s.split_ands).sum()
    }
}

/// `units` grouped in stretches: whole units, at least `stretch_gates`
/// gates a group (the last may have fewer).
fn stretch_groups(units: &[Unit], stretch_gates: usize) -> Vec<&[Unit]> {
    let mut groups = Vec::new();
    let mut rest = units;
    while !rest.is_empty() {
        let (mut len, mut n) = (0, 0);
        while n < rest.len() && len < stretch_gates {
            len += rest[n].gates.len();
            n += 1;
        }
        groups.push(&rest[..n]);
        rest = &rest[n..];
    }
    groups
}

/// What the need analysis of a batch keeps between stretches.
struct Needs<'g> {
    gates: &'g [Gate],
    wires: Vec<WireState>,
    /// Gates whose output is sent (and a spare flag).
    needed: Vec<bool>,
    /// Wires the current stretch's parts other than 0 wrote.
    elsewhere: Vec<Wire>,
}

/// What the need analysis knows of a wire (one cache line for all).
#[derive(Clone, Copy)]
struct WireState {
    /// The last writer so far (a position in the batch), or [`BEFORE`].
    writer: u32,
    /// A write by a part other than 0 in an earlier stretch that is the
    /// wire's last, until the wire is next read (then part 0 needs it)
    /// or written (then nobody does); or [`BEFORE`].
    pending: u32,
    /// The first gate of the last stretch that lists the wire in its
    /// `initial`.
    copied: u32,
    /// The last writer's part.
    part: u8,
}

impl Default for WireState {
    fn default() -> Self {
        WireState {
            writer: BEFORE,
            pending: BEFORE,
            copied: BEFORE,
            part: 0,
        }
    }
}

impl Needs<'_> {
    /// Goes through the stretch of `units` in batch order (a valid order
    /// of the parts' work: no part reads in a unit what another wrote in
    /// it): a read of a wire last
    /// written by another part of the stretch marks that write to be
    /// sent; a read by a part other than 0 of a wire last written before
    /// the stretch lists the wire in the stretch's `initial` (returned);
    /// a last value written elsewhere than on part 0 is sent if it is read
    /// after the stretch (or the batch ends first).
    fn pass(&mut self, units: &[Unit]) -> Vec<Wire> {
        let first = units[0].gates.start as u32;
        let mut initial = Vec::new();
        for u in units {
            for piece in &u.pieces {
                let pu = piece.part as u8;
                for i in piece.gates.clone() {
                    let g = self.gates[i];
                    for w in g.inputs() {
                        let st = &mut self.wires[w as usize];
                        // Pending writes are rare: a branch.
                        if st.pending != BEFORE {
                            self.needed[st.pending as usize] = true;
                            st.pending = BEFORE;
                        }
                        // Branch-free (the parts of reader and writer are
                        // as good as random): what is not needed marks the
                        // spare flag at the end of `needed`.
                        let spare = self.gates.len() as u32;
                        let before = st.writer == BEFORE || st.writer < first;
                        let other = !before && st.part != pu;
                        self.needed[if other { st.writer } else { spare } as usize] = true;
                        if before && pu != 0 && st.copied != first {
                            st.copied = first;
                            initial.push(w);
                        }
                    }
                    let out = g.out();
                    let st = &mut self.wires[out as usize];
                    st.writer = i as u32;
                    st.part = pu;
                    st.pending = BEFORE;
                    if pu != 0 {
                        self.elsewhere.push(out);
                    }
                }
            }
        }
        for w in self.elsewhere.drain(..) {
            let st = &mut self.wires[w as usize];
            if st.part != 0 && st.writer >= first && st.writer != BEFORE {
                st.pending = st.writer;
            }
        }
        initial
    }

    /// The batch ends: what is still pending may be read after it.
    fn end(&mut self) {
        for st in &self.wires {
            if st.pending != BEFORE {
                self.needed[st.pending as usize] = true;
            }
        }
    }

    /// The stretch of `units` (gone through) with its `initial` wires.
    fn stretch(&self, units: &[Unit], initial: Vec<Wire>, k: usize) -> Stretch {
        let first = units[0].gates.start;
        let end = units[units.len() - 1].gates.end;
        // Branch-free (which outputs are needed is as good as random):
        // every output is written, the count moves past the needed ones.
        let mut sends = vec![0; end - first];
        let mut n = 0;
        let mut send_ends = Vec::with_capacity(units.len() * k);
        for u in units {
            for p in 0..k {
                for piece in u.pieces.iter().filter(|piece| piece.part == p) {
                    for i in piece.gates.clone() {
                        sends[n] = self.gates[i].out();
                        n += usize::from(self.needed[i]);
                    }
                }
                send_ends.push(n);
            }
        }
        sends.truncate(n);
        sends.shrink_to_fit();
        Stretch {
            threads: k,
            units: units.to_vec(),
            initial,
            sends,
            send_ends,
            split_ands: units
                .iter()
                .filter(|u| u.shape.has_shared_tables())
                .flat_map(|u| &u.pieces)
                .map(|piece| piece.ands)
                .sum(),
        }
    }
}

impl Stretch {
    /// The stretch of `units` that all run on part 0: nothing is copied
    /// or sent.
    fn on_part_0(units: &[Unit], k: usize) -> Stretch {
        Stretch {
            threads: k,
            units: units.to_vec(),
            initial: Vec::new(),
            sends: Vec::new(),
            send_ends: vec![0; units.len() * k],
            split_ands: 0,
        }
    }

    /// The units, in order.
    pub fn units(&self) -> &[Unit] {
        &self.units
    }

    /// The gates of the stretch, as positions in the batch.
    pub fn gates(&self) -> Range<usize> {
        self.units[0].gates.start..self.units[self.units.len() - 1].gates.end
    }

    /// The wires part `p` sends after unit number `u` of the stretch.
    pub fn sends(&self, u: usize, p: usize) -> &[Wire] {
        let i = u * self.threads + p;
        let start = if i == 0 { 0 } else { self.send_ends[i - 1] };
        &self.sends[start..self.send_ends[i]]
    }

    /// The wires the parts other than 0 need from the labels before the
    /// stretch.
    pub fn initial(&self) -> &[Wire] {
        &self.initial
    }

    /// AND gates of units whose parts make tables: what the threads
    /// share.
    pub fn split_ands(&self) -> usize {
        self.split_ands
    }
}

impl Unit {
    /// Gates `gates` of `batch` cut into `k` parts by [`round_range`],
    /// part 0 weighing `lead_weight`.
    fn cut_in(
        batch: Batch<'_>,
        gates: Range<usize>,
        shape: Shape,
        k: usize,
        lead_weight: usize,
    ) -> Unit {
        let n = gates.len();
        let pieces = (0..k)
            .map(|p| {
                let r = round_range(n, k, p, lead_weight);
                let piece = gates.start + r.start..gates.start + r.end;
                Piece {
                    ands: batch.slice(piece.clone()).and_count(),
                    gates: piece,
                    part: p,
                }
            })
            .collect();
        Unit {
            gates,
            shape,
            pieces,
        }
    }

    /// Gates `gates` of `batch`, all on part 0.
    fn first(batch: Batch<'_>, gates: Range<usize>) -> Unit {
        let piece = Piece {
            ands: batch.slice(gates.clone()).and_count(),
            gates: gates.clone(),
            part: 0,
        };
        Unit {
            gates,
            shape: Shape::First,
            pieces: vec![piece],
        }
    }
}

/// The units of `batch` cut as `split` says, AND runs of at least
/// `min_ands` gates split in rounds, the gates between them on part 0:
/// the cut that fixes the calls (and so the tables) of a batch run
/// without its plan, whether its parts run at once or in turn. (An
/// [`ExchangePlan`] cuts the same way, also sharing the free gates it can
/// and, if `split` says so, the gaps it can.)
pub fn cut(batch: Batch<'_>, split: Split) -> Vec<Unit> {
    let gates = batch.gates();
    let k = split.threads.max(1);
    let (min_ands, round_gates) = (split.min_ands.max(1), split.round_gates.max(k));
    let mut units = Vec::new();
    let mut start = 0;
    let gap = |units: &mut Vec<Unit>, range: Range<usize>| {
        if !range.is_empty() {
            units.push(Unit::first(batch, range));
        }
    };
    for run in batch.and_runs().filter(|r| r.len() >= min_ands) {
        gap(&mut units, start..run.start);
        let mut s = run.start;
        while s < run.end {
            let e = run.end.min(s + round_gates);
            units.push(Unit::cut_in(
                batch,
                s..e,
                Shape::Round,
                k,
                split.lead_weight,
            ));
            s = e;
        }
        start = run.end;
    }
    gap(&mut units, start..gates.len());
    units
}

/// The units of `batch` over `num_wires` labels (see the module
/// documentation): its [`cut`], with the free stretches between rounds
/// shared where they cut cleanly, and (if `split` says so) the gaps with
/// many ANDs shared by owner.
fn units(batch: Batch<'_>, num_wires: Wire, split: Split) -> Vec<Unit> {
    let gates = batch.gates();
    let k = split.threads.max(1);
    let cut = cut(batch, split);
    let mut units = Vec::with_capacity(cut.len());
    // Stamps of (gap number + 1, part): zero is no gap's.
    let mut written = vec![0u64; num_wires as usize];
    // Made for the first gap shared (a word a wire).
    let mut owners = None;
    let mut gap = 0;
    for unit in cut {
        if unit.shape != Shape::First {
            units.push(unit);
            continue;
        }
        gap += 1;
        let ands = unit.pieces[0].ands;
        if ands == 0 && cuts_cleanly(&gates[unit.gates.clone()], k, gap, &mut written) {
            units.push(Unit::cut_in(batch, unit.gates, Shape::Cut, k, EVEN_WEIGHT));
        } else if split.share_gaps && k > 1 && ands >= split.min_ands.max(1) {
            let owners = owners.get_or_insert_with(|| Owners::new(num_wires, k));
            let owned = owners.share(batch, unit.gates.clone(), split.round_gates.max(k));
            if shares_well(&owned, ands, split.min_ands) {
                units.extend(owned);
            } else {
                units.push(unit);
            }
        } else {
            units.push(unit);
        }
    }
    units
}

/// Whether a gap of `ands` ANDs cut into `owned` units is worth running
/// that way: its units average at least `min_ands / 2` ANDs (each costs a
/// barrier), and the parts' longest share, unit by unit, is at most 3/4
/// of the ANDs (random wiring cuts units short; chains that all start on
/// one part stay there).
fn shares_well(owned: &[Unit], ands: usize, min_ands: usize) -> bool {
    let longest: usize = owned
        .iter()
        .map(|u| {
            let parts = u.pieces.iter().map(|p| p.part + 1).max().unwrap_or(0);
            let mut on = vec![0; parts];
            for piece in &u.pieces {
                on[piece.part] += piece.ands;
            }
            on.into_iter().max().unwrap_or(0)
        })
        .sum();
    ands >= owned.len() * (min_ands / 2) && 4 * longest <= 3 * ands
}

/// How far one part's AND gates in an owned unit may run ahead of the
/// least loaded part's before gates that any part could take go to that
/// part instead: small keeps the parts even, large keeps chains of
/// gates whole (fewer units). On an unrolled inner product (2,048
/// multiplications, levelled in windows) 256 gave units of about 3,000
/// ANDs split within 10% of even.
const OWNED_SLACK: usize = 256;

/// Owner-computes sharing of gaps (see [`Shape::Owned`]): which unit and
/// part last wrote each wire.
struct Owners {
    /// Per wire: the stamp of the unit that wrote it last, and the part.
    writer: Vec<(u32, u8)>,
    /// The stamp of the current unit (0: none yet).
    stamp: u32,
    k: usize,
}

impl Owners {
    fn new(num_wires: Wire, k: usize) -> Owners {
        Owners {
            writer: vec![(0, 0); num_wires as usize],
            stamp: 0,
            k,
        }
    }

    /// Gates `range` of `batch` cut into owned units: a gate goes to the
    /// one part that wrote its inputs in the unit, or (none did) to the
    /// part of the gate before unless that part is
    /// [`OWNED_SLACK`] ANDs ahead of the least loaded; a gate whose inputs
    /// two parts wrote starts a new unit, as does the gate after `most`
    /// (so that a unit's tables, held until it ends, stay small).
    fn share(&mut self, batch: Batch<'_>, range: Range<usize>, most: usize) -> Vec<Unit> {
        let gates = batch.gates();
        let mut units = Vec::new();
        let mut unit = Unit {
            gates: range.start..range.start,
            shape: Shape::Owned,
            pieces: Vec::new(),
        };
        let mut loads = vec![0usize; self.k];
        let mut current = 0;
        self.stamp += 1;
        for i in range {
            let g = gates[i];
            // The part that wrote an input in this unit, if one did, and
            // whether another did too.
            let mut made = None;
            let mut two = false;
            for w in g.inputs() {
                let (stamp, part) = self.writer[w as usize];
                if stamp == self.stamp {
                    two |= made.is_some_and(|m| m != part);
                    made = Some(part);
                }
            }
            if two || unit.gates.len() >= most {
                units.push(std::mem::replace(
                    &mut unit,
                    Unit {
                        gates: i..i,
                        shape: Shape::Owned,
                        pieces: Vec::new(),
                    },
                ));
                loads.iter_mut().for_each(|l| *l = 0);
                self.stamp += 1;
                made = None;
            }
            let part = match made {
                Some(part) => usize::from(part),
                None => {
                    let least = (0..self.k).min_by_key(|&p| loads[p]).unwrap_or(0);
                    if loads[current] > loads[least] + OWNED_SLACK {
                        least
                    } else {
                        current
                    }
                }
            };
            current = part;
            let and = usize::from(g.is_and());
            loads[part] += and;
            match unit.pieces.last_mut() {
                Some(last) if last.part == part => {
                    last.gates.end = i + 1;
                    last.ands += and;
                }
                _ => unit.pieces.push(Piece {
                    gates: i..i + 1,
                    part,
                    ands: and,
                }),
            }
            unit.gates.end = i + 1;
            self.writer[g.out() as usize] = (self.stamp, part as u8);
        }
        if !unit.gates.is_empty() {
            units.push(unit);
        }
        units
    }
}

/// Whether free gates `gates` can be cut into `k` parts by [`part_range`]
/// that run at once on their own labels: no AND among them, and no gate
/// reads or writes a wire a gate of an earlier part writes. `written`
/// (a stamp per wire) must hold no stamp of `unit` (a number unique to
/// this call) when called.
fn cuts_cleanly(gates: &[Gate], k: usize, unit: u32, written: &mut [u64]) -> bool {
    if k < 2 || gates.iter().any(Gate::is_and) {
        return k < 2;
    }
    let stamp = |p: usize| (u64::from(unit) << 32) | p as u64;
    for p in 0..k {
        let mine = stamp(p);
        for g in &gates[part_range(gates.len(), k, p)] {
            let touches_earlier = g.inputs().chain([g.out()]).any(|w| {
                let s = written[w as usize];
                s >> 32 == u64::from(unit) && s != mine
            });
            if touches_earlier {
                return false;
            }
            written[g.out() as usize] = mine;
        }
    }
    true
}

#[cfg(test)]
mod tests;
