//! A run of iterations lowered by one template: where each of its inputs
//! comes from, iteration after iteration, and the tokens naming its
//! outputs until the run is materialised.

use super::super::budget::Charge;
use super::super::probe::Probe;
use super::super::*;
use super::simulate::Scratch;
pub(super) use super::track::Track;
use super::track::{loose_inputs, word_groups, Group};
use crate::range::Range;
use twofold_circuit::{RawFrame, Wire};

/// A location: an object and a leaf (signed, for moving it by a step).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(in crate::lower) struct Address {
    /// The object.
    pub obj: usize,
    /// The leaf.
    pub leaf: i64,
}

impl Address {
    pub(in crate::lower) fn of((obj, leaf): (usize, usize)) -> Address {
        Address {
            obj,
            leaf: leaf as i64,
        }
    }
}

/// Tokens (wires standing for values of iterations not yet materialised)
/// are numbered from here; real wires stay below.
pub(super) const TOKEN_BASE: Wire = 1 << 31;

/// Locations with the values they held before a run wrote them.
pub(super) type Overwritten = Vec<((usize, usize), Slot)>;

/// How far the addresses and shift amounts of one iteration move in the
/// next: the difference between the probes of two matching iterations.
pub(super) struct Steps {
    observations: Vec<i64>,
    writes: Vec<i64>,
    rereads: Vec<i64>,
    amounts: Vec<i128>,
}

impl Steps {
    /// The steps from `earlier`'s iteration to `later`'s (the next one).
    pub(super) fn between(earlier: &Probe, later: &Probe) -> Steps {
        Steps {
            observations: earlier
                .observations
                .iter()
                .zip(&later.observations)
                .map(|(a, b)| b.at.leaf - a.at.leaf)
                .collect(),
            writes: earlier
                .writes
                .iter()
                .zip(&later.writes)
                .map(|(a, b)| b.at.leaf - a.at.leaf)
                .collect(),
            rereads: (earlier.rereads.iter().zip(&later.rereads))
                .map(|(a, b)| b.at.leaf - a.at.leaf)
                .collect(),
            amounts: earlier
                .derived
                .iter()
                .zip(&later.derived)
                .map(|(a, b)| b.amount - a.amount)
                .collect(),
        }
    }
}

/// The addresses and shift amounts of one iteration, from its own probe.
#[derive(Default)]
pub(super) struct Explicit {
    pub(super) observations: Vec<i64>,
    pub(super) writes: Vec<i64>,
    amounts: Vec<i128>,
    /// Its keys (see [`crate::loops::counter`]), if known.
    pub(super) keys: Vec<i128>,
}

impl Explicit {
    /// The same, for an iteration whose keys are `keys`.
    pub(super) fn with_keys(self, keys: Option<&[i128]>) -> Explicit {
        Explicit {
            keys: keys.map(<[i128]>::to_vec).unwrap_or_default(),
            ..self
        }
    }

    /// What `probe` (of an iteration matching the run's template) reads,
    /// writes and shifts by.
    pub(super) fn of(probe: &Probe) -> Explicit {
        Explicit {
            observations: probe.observations.iter().map(|o| o.at.leaf).collect(),
            writes: probe.writes.iter().map(|w| w.at.leaf).collect(),
            amounts: probe.derived.iter().map(|d| d.amount).collect(),
            keys: Vec::new(),
        }
    }
}

/// A run of iterations lowered by one template.
pub(super) struct Run {
    pub probe: Probe,
    /// The first iteration (of the loop).
    pub start: u64,
    /// Iterations covered.
    pub count: u64,
    /// One past the last iteration (of the loop) covered: `start + count`,
    /// but for a run of probed iterations that skipped disabled ones.
    pub end: u64,
    /// Iterations simulated (the rest of a steady run continue the last).
    pub simulated: u64,
    pub obs_delta: Vec<i64>,
    /// How far each of the template's rereads (see `Probe::rereads`) moves
    /// an iteration.
    pub reread_delta: Vec<i64>,
    pub write_delta: Vec<i64>,
    pub derived_delta: Vec<i128>,
    /// Where the next iteration reads and writes, and its shift amounts,
    /// when its own probe says so (a loop whose every iteration is probed)
    /// rather than the steps.
    pub(super) explicit: Option<Explicit>,
    /// The template's wires that its writes and extras hold: its outputs.
    pub outputs: Vec<Wire>,
    /// Which input or output of the template each of its wires is.
    pub roles: Roles,
    /// The template's writes' values, then its extras, with each wire
    /// replaced by its role's code (see [`Run::decode_role`]): what an
    /// iteration makes of them is then found without looking wires up.
    pub coded: Vec<Slot>,
    /// Per observation, per bit of its template: the template input the
    /// bit is ([`NOT_AN_INPUT`] for a constant), read every iteration;
    /// empty where no bit is an input.
    pub obs_inputs: Vec<Vec<u32>>,
    /// Per input of the template, where it comes from.
    pub tracks: Vec<Track>,
    /// Words of inputs whose origins may be held a word at a time.
    groups: Vec<Group>,
    /// The inputs whose tracks are not grouped.
    loose: Vec<usize>,
    /// The extras of each simulated iteration.
    pub extras: Vec<Vec<Slot>>,
    /// Observation/write pairs that may meet in some iteration.
    pub alias_pairs: Vec<(usize, usize)>,
    /// Pairs of an observation and a location the template wrote back to
    /// what it read, at another step: where they meet, the read may see
    /// what the iteration wrote there in between.
    pub restore_pairs: Vec<(usize, usize)>,
    /// Writes to objects the template writes at more than one step: two
    /// of them may land on one leaf in some iteration, where the later
    /// one's value (and what the iteration reads after it) is not the
    /// template's.
    pub moving_writes: Vec<usize>,
    /// Objects written between its iterations (see `super::hoist`).
    pub volatile: Vec<usize>,
    /// The ranges of what the last two simulated iterations left, in
    /// order (a steady run leaves the same ones every iteration).
    left: [Vec<Range>; 2],
    /// The locations its iterations wrote, with what they held before, in
    /// the order first written.
    overwritten: Overwritten,
    written: HashSet<(usize, usize)>,
    /// Space simulating an iteration reuses from the last one's.
    pub(super) scratch: Scratch,
    /// The bytes the records of its simulated iterations hold (their
    /// inputs' origins and extras), and their charge in the budget.
    recorded: (u64, Option<Charge>),
}

/// Iterations a run records between two updates of its charge.
const RECHARGE_EVERY: u64 = 1 << 10;

/// The first of `bits` if they are consecutive wires (`w`, `w + 1`, …).
fn first_of_consecutive(bits: &[Bit]) -> Option<Wire> {
    let Some(&Bit::Wire(first)) = bits.first() else {
        return None;
    };
    (bits.iter().zip(first..))
        .all(|(&b, w)| b == Bit::Wire(w))
        .then_some(first)
}

/// In [`Run::obs_inputs`], a bit that is no input of the template.
pub(super) const NOT_AN_INPUT: u32 = u32::MAX;

/// What a wire is to a template.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    /// Input `i` of the template.
    Input(usize),
    /// Output `q` of the template.
    Output(u32),
    /// Neither (not a wire of the template).
    Neither,
}

/// The roles of a template's wires, looked up by wire in a table over the
/// span of its wires (a template's wires are made close together; the
/// table is read for every bit of every iteration simulated).
#[derive(Clone, Debug, Default)]
pub(super) struct Roles {
    /// The lowest wire in the table.
    base: Wire,
    /// Per wire from `base`: an input's index, an output's index with
    /// [`OUTPUT_ROLE`] set, or [`NO_ROLE`].
    table: Vec<u32>,
}

/// In [`Roles::table`], the mark of an output.
const OUTPUT_ROLE: u32 = 1 << 31;
/// In [`Roles::table`], a wire that is no input or output.
const NO_ROLE: u32 = u32::MAX;

impl Roles {
    /// The roles of a template whose inputs are `inputs` (in order).
    fn new(inputs: &[Wire]) -> Roles {
        let mut roles = Roles {
            base: inputs.iter().copied().min().unwrap_or(0),
            table: Vec::new(),
        };
        for (i, &w) in inputs.iter().enumerate() {
            roles.set(w, Role::Input(i));
        }
        roles
    }

    /// Gives wire `w` the role `role` (an input or an output).
    fn set(&mut self, w: Wire, role: Role) {
        let code = match role {
            Role::Input(i) => u32::try_from(i).expect("fewer than 2^31 inputs"),
            Role::Output(q) => OUTPUT_ROLE | q,
            Role::Neither => NO_ROLE,
        };
        if self.table.is_empty() {
            self.base = w;
        }
        if w < self.base {
            let grow = (self.base - w) as usize;
            self.table.splice(0..0, std::iter::repeat_n(NO_ROLE, grow));
            self.base = w;
        }
        let k = (w - self.base) as usize;
        if k >= self.table.len() {
            self.table.resize(k + 1, NO_ROLE);
        }
        self.table[k] = code;
    }

    /// The role of wire `w`.
    pub(super) fn role(&self, w: Wire) -> Role {
        let code = w
            .checked_sub(self.base)
            .and_then(|k| self.table.get(k as usize))
            .copied()
            .unwrap_or(NO_ROLE);
        match code {
            NO_ROLE => Role::Neither,
            c if c & OUTPUT_ROLE != 0 => Role::Output(c & !OUTPUT_ROLE),
            c => Role::Input(c as usize),
        }
    }

    /// The code of wire `w`'s role (an input or an output): the input's
    /// index, or the output's index with [`OUTPUT_ROLE`] set.
    fn code(&self, w: Wire) -> Wire {
        match self.role(w) {
            Role::Input(i) => i as Wire,
            Role::Output(q) => OUTPUT_ROLE | q,
            Role::Neither => unreachable!("a template's values are its inputs and outputs"),
        }
    }

    /// The index of input wire `w`.
    pub(super) fn input(&self, w: Wire) -> usize {
        match self.role(w) {
            Role::Input(i) => i,
            _ => unreachable!("wire {w} is an input of the template"),
        }
    }
}

impl Run {
    pub(super) fn new(probe: Probe, start: u64) -> Run {
        let mut roles = Roles::new(&probe.inputs);
        let mut outputs = Vec::new();
        for v in values_of(&probe) {
            v.for_each_bit(&mut |b| {
                if let Bit::Wire(w) = b {
                    if roles.role(w) == Role::Neither {
                        roles.set(w, Role::Output(outputs.len() as u32));
                        outputs.push(w);
                    }
                }
            });
        }
        // The values with each wire replaced by its role's code (see
        // `Run::coded`).
        let coded = values_of(&probe)
            .map(|v| {
                v.map_bits(&mut |b| match b {
                    Bit::Wire(w) => Bit::Wire(roles.code(w)),
                    c => c,
                })
            })
            .collect();
        let in_index = |f: &Wire| match roles.role(*f) {
            Role::Input(i) => i as u32,
            _ => unreachable!("an observation's wires are inputs of the template"),
        };
        let obs_inputs: Vec<Vec<u32>> = probe
            .observations
            .iter()
            .map(|obs| {
                let ins: Vec<u32> = obs
                    .bits
                    .iter()
                    .map(|b| match b {
                        Bit::Wire(f) => in_index(f),
                        _ => NOT_AN_INPUT,
                    })
                    .collect();
                // (A public value read, such as a bound: nothing to note.)
                match ins.iter().all(|&i| i == NOT_AN_INPUT) {
                    true => Vec::new(),
                    false => ins,
                }
            })
            .collect();
        let groups = word_groups(&obs_inputs, probe.inputs.len());
        Run {
            tracks: vec![Track::Empty; probe.inputs.len()],
            groups,
            loose: (0..probe.inputs.len()).collect(),
            obs_delta: vec![0; probe.observations.len()],
            reread_delta: vec![0; probe.rereads.len()],
            write_delta: vec![0; probe.writes.len()],
            derived_delta: vec![0; probe.derived.len()],
            probe,
            start,
            count: 0,
            end: start,
            explicit: None,
            simulated: 0,
            outputs,
            roles,
            coded,
            obs_inputs,
            extras: Vec::new(),
            alias_pairs: Vec::new(),
            restore_pairs: Vec::new(),
            moving_writes: Vec::new(),
            volatile: Vec::new(),
            left: [Vec::new(), Vec::new()],
            overwritten: Vec::new(),
            written: HashSet::default(),
            scratch: Scratch::default(),
            recorded: (0, None),
        }
    }

    /// Takes the steps by which the iterations' addresses and shift
    /// amounts move.
    pub(super) fn set_steps(&mut self, steps: Steps) {
        self.obs_delta = steps.observations;
        self.reread_delta = steps.rereads;
        self.write_delta = steps.writes;
        self.derived_delta = steps.amounts;
        // A read after a write to the same object (a read of the value
        // again after it, too), at another step, may meet it in some
        // iteration; at the same step, where it is the same leaf. The
        // writes are found by object and step (an outer loop over a large
        // array reads and writes tens of thousands of leaves, all at step
        // 0: trying every pair took seconds).
        let p = &self.probe;
        let mut steps_of: HashMap<usize, HashMap<i64, Vec<usize>>> = HashMap::default();
        let mut at_leaf: HashMap<(usize, i64, i64), Vec<usize>> = HashMap::default();
        for (w, wr) in p.writes.iter().enumerate() {
            let (obj, step) = (wr.at.obj, self.write_delta[w]);
            steps_of
                .entry(obj)
                .or_default()
                .entry(step)
                .or_default()
                .push(w);
            at_leaf.entry((obj, step, wr.at.leaf)).or_default().push(w);
        }
        for steps in steps_of.values().filter(|steps| steps.len() > 1) {
            self.moving_writes.extend(steps.values().flatten());
        }
        // A location the template wrote back to what it read is written
        // too: a write at another step that lands there meets it.
        // And a read of another location of its object, at another step,
        // may be of it, between the write and the write back.
        for &r in &p.restored {
            let (obj, step) = (p.observations[r].at.obj, self.obs_delta[r]);
            let others = steps_of.get(&obj).into_iter().flatten();
            for (_, ws) in others.filter(|&(&s, _)| s != step) {
                self.alias_pairs.extend(ws.iter().map(|&w| (r, w)));
            }
            let reads = (p.observations.iter().enumerate())
                .filter(|&(o, obs)| obs.at.obj == obj && self.obs_delta[o] != step);
            self.restore_pairs.extend(reads.map(|(o, _)| (o, r)));
        }
        for (o, obs) in p.observations.iter().enumerate() {
            let (obj, step) = (obs.at.obj, self.obs_delta[o]);
            let Some(steps) = steps_of.get(&obj) else {
                continue;
            };
            let other_steps = steps.iter().filter(|&(&s, _)| s != step);
            let same_leaf = at_leaf.get(&(obj, step, obs.at.leaf));
            let met = other_steps
                .flat_map(|(_, ws)| ws)
                .chain(same_leaf.into_iter().flatten());
            for &w in met {
                if p.writes[w].seq <= obs.last_read {
                    self.alias_pairs.push((o, w));
                }
            }
        }
    }

    /// The leaf observation `o` reads in iteration `j` of the run.
    pub(super) fn obs_leaf(&self, o: usize, j: u64) -> i64 {
        match &self.explicit {
            Some(e) => e.observations[o],
            None => self.probe.observations[o].at.leaf + self.obs_delta[o] * j as i64,
        }
    }

    /// The leaf write `w` writes in iteration `j` of the run.
    pub(super) fn write_leaf(&self, w: usize, j: u64) -> i64 {
        match &self.explicit {
            Some(e) => e.writes[w],
            None => self.probe.writes[w].at.leaf + self.write_delta[w] * j as i64,
        }
    }

    /// The amount derived shift `d` shifts by in iteration `j` of the run.
    pub(super) fn amount(&self, d: usize, j: u64) -> i128 {
        match &self.explicit {
            Some(e) => e.amounts[d],
            None => self.probe.derived[d].amount + self.derived_delta[d] * j as i128,
        }
    }

    /// The value of key `class` in the next iteration, if known.
    pub(super) fn key(&self, class: u32) -> Option<i128> {
        self.explicit.as_ref()?.keys.get(class as usize).copied()
    }

    /// Notes that an iteration writes location `at`, which holds `old`.
    pub(super) fn note_write(&mut self, at: (usize, usize), old: &Slot) {
        if self.written.insert(at) {
            self.overwritten.push((at, old.clone()));
        }
    }

    /// The locations its iterations wrote, in the order first written.
    pub(super) fn written(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.overwritten.iter().map(|(at, _)| *at)
    }

    /// Its template, and the locations it wrote with what they held.
    pub(super) fn into_parts(self) -> (Probe, Overwritten) {
        (self.probe, self.overwritten)
    }

    /// Whether `b` is a token of this run.
    pub(super) fn owns(&self, b: Bit) -> bool {
        matches!(b, Bit::Wire(w) if self.decode(w).is_some())
    }

    /// The iteration and first output that `bits` name if they are
    /// consecutive tokens of one iteration (as the words an iteration
    /// wrote mostly are).
    pub(super) fn token_word(&self, bits: &[Bit]) -> Option<(u64, u32)> {
        let (j, q) = self.decode(first_of_consecutive(bits)?)?;
        (q as u64 + bits.len() as u64 <= self.width()).then_some((j, q))
    }

    /// Outputs per iteration (at least one, so every iteration has a
    /// token of its own).
    fn width(&self) -> u64 {
        self.outputs.len().max(1) as u64
    }

    /// The token naming output `q` of iteration `j` of the run, if tokens
    /// reach that far.
    pub(super) fn token(&self, j: u64, q: u32) -> Option<Wire> {
        let t = j.checked_mul(self.width())?.checked_add(q as u64)?;
        (t < (super::super::probe::MARKER_BASE - TOKEN_BASE) as u64).then(|| TOKEN_BASE + t as Wire)
    }

    /// Which iteration and output of this run token `w` names, if any.
    pub(super) fn decode(&self, w: Wire) -> Option<(u64, u32)> {
        let t = w.checked_sub(TOKEN_BASE)? as u64;
        Some((t / self.width(), (t % self.width()) as u32))
    }

    /// The iteration that simulated iteration `j` stands for: itself, but
    /// for the last simulated one of a steady run, which stands for the
    /// last of all.
    pub(super) fn stands_for(&self, j: u64) -> u64 {
        if j + 1 == self.simulated {
            self.count - 1
        } else {
            j
        }
    }

    /// The space of the ranges the iteration before last left, which
    /// [`Run::record`] no longer compares: for the next iteration's.
    pub(super) fn take_oldest_left(&mut self) -> Vec<Range> {
        std::mem::take(&mut self.left[0])
    }

    /// Records where the inputs of iteration `j` came from (all known),
    /// the extras it yielded and the ranges of what it left.
    pub(super) fn record(
        &mut self,
        j: u64,
        origin: &[Option<Bit>],
        extras: Vec<Slot>,
        left: Vec<Range>,
    ) {
        let mut bytes =
            std::mem::size_of::<Vec<Slot>>() + extras.len() * std::mem::size_of::<Slot>();
        for e in &extras {
            if let Slot::Val(Word::Bits(bits, _)) = e {
                bytes += bits.len() * std::mem::size_of::<Bit>();
            }
        }
        self.extras.push(extras);
        self.left.swap(0, 1);
        self.left[1] = left;
        let width = self.width();
        let own = |i: u64, q: u32| Bit::Wire(TOKEN_BASE + (i * width) as Wire + q);
        let own_q = |b: Bit| match b {
            Bit::Wire(w) if w >= TOKEN_BASE => {
                let t = (w - TOKEN_BASE) as u64;
                Some((t / width, (t % width) as u32))
            }
            _ => None,
        };
        for &i in &self.loose {
            let o = origin[i].expect("every input's origin is known");
            match &mut self.tracks[i] {
                // (Most tracks of a long run, in a plain loop.)
                Track::Table(v) => {
                    v.push(o);
                    bytes += std::mem::size_of::<Bit>();
                }
                t => t.push(j, o, &own, own_q),
            }
        }
        self.recorded.0 += bytes as u64;
        if self.simulated.is_multiple_of(RECHARGE_EVERY) {
            // (A run of millions of iterations holds gigabytes of them.)
            self.recorded.1 = Some(Charge::new(self.recorded.0));
        }
        let mut regroup = false;
        for (g, group) in self.groups.iter_mut().enumerate() {
            regroup |= group.record(g, j, origin, &mut self.tracks);
        }
        if regroup {
            self.loose = loose_inputs(&self.tracks);
        }
        self.simulated += 1;
        self.count += 1;
    }

    /// The origin of input `i` in iteration `j`, this run's outputs named
    /// by tokens.
    pub(super) fn origin(&self, i: usize, j: u64) -> Bit {
        self.origin_in(&self.tracks[i], j)
    }

    /// The origin in iteration `j` of an input whose track is `track`.
    pub(super) fn origin_in(&self, track: &Track, j: u64) -> Bit {
        let width = self.width();
        let own = |jj, q| Bit::Wire(TOKEN_BASE + (jj * width) as Wire + q);
        track.at(j, &own, &self.groups)
    }

    /// What a bit of a [`Run::coded`] value is in an iteration whose
    /// inputs' origins are `origin` and whose first token is `first_token`.
    pub(super) fn decode_role(b: Bit, origin: &[Option<Bit>], first_token: Wire) -> Bit {
        match b {
            Bit::Wire(c) if c & OUTPUT_ROLE != 0 => Bit::Wire(first_token + (c & !OUTPUT_ROLE)),
            Bit::Wire(i) => origin[i as usize].expect("every input's origin is known"),
            c => c,
        }
    }

    /// [`Run::decode_role`] of every bit of a coded value that is a word of
    /// consecutive outputs of the template, at once: consecutive tokens
    /// from the iteration's token of its first output. `None` for other
    /// values.
    pub(super) fn decode_output_word(coded: &Slot, first_token: Wire) -> Option<Slot> {
        let Slot::Val(Word::Bits(bits, r)) = coded else {
            return None;
        };
        let c = first_of_consecutive(bits).filter(|c| c & OUTPUT_ROLE != 0)?;
        let first = first_token + (c & !OUTPUT_ROLE);
        let tokens = (first..first + bits.len() as Wire).map(Bit::Wire).collect();
        Some(Slot::Val(Word::Bits(tokens, *r)))
    }

    /// Whether every later iteration repeats the last one (nothing moves,
    /// every input is fixed or carried, nothing is collected, and the last
    /// two left values of the same ranges).
    pub(super) fn is_steady(&self) -> bool {
        self.simulated >= 3
            && self.left[0] == self.left[1]
            && self.probe.extras.is_empty()
            && self.obs_delta.iter().all(|&d| d == 0)
            && self.write_delta.iter().all(|&d| d == 0)
            && self.derived_delta.iter().all(|&d| d == 0)
            && self.tracks.iter().all(Track::is_steady)
    }

    /// Whether the run has grown as long as a run is let grow whose
    /// template makes no gates and no blocks: such a run is never kept
    /// (see [`Lower::keeps`]), and its iterations' records would be held
    /// for nothing (a public loop of millions of iterations held
    /// hundreds of bytes an iteration).
    pub(super) fn gateless_and_long(&self) -> bool {
        let frame = &self.probe.frame;
        self.count >= super::MAX_GATELESS_RUN && frame.gates.is_empty() && frame.blocks.is_empty()
    }

    /// Gates executed by one iteration.
    pub(super) fn gates(&self) -> u64 {
        frame_gates(&self.probe.frame)
    }

    /// Which of the template's inputs something reads.
    pub(super) fn used_inputs(&self) -> Vec<bool> {
        let mut used = vec![false; self.probe.inputs.len()];
        let mut mark = |w: Wire| {
            if let Role::Input(i) = self.roles.role(w) {
                used[i] = true;
            }
        };
        for g in &self.probe.frame.gates {
            g.inputs().for_each(&mut mark);
        }
        for b in &self.probe.frame.blocks {
            b.shared.iter().for_each(|&w| mark(w));
            b.carried.iter().for_each(|c| mark(c.init));
            b.inputs.for_all(b.count, &mut mark);
        }
        let values = self.probe.writes.iter().map(|w| &w.value);
        for v in values.chain(&self.probe.extras) {
            v.for_each_bit(&mut |b| {
                if let Bit::Wire(w) = b {
                    mark(w)
                }
            });
        }
        used
    }

    /// Whether no iteration reads what another wrote.
    pub(super) fn parallel(&self) -> bool {
        let own = |o: &Bit| self.owns(*o);
        self.tracks.iter().all(|t| match t {
            Track::Carried { .. } => false,
            Track::Table(_) | Track::Grouped { .. } => !self.tables_own(t),
            Track::Fixed(o) => !own(o),
            Track::Empty | Track::Affine { .. } => true,
        })
    }

    /// The origin in iteration `j` of an input whose track is a table or
    /// grouped; `None` for other tracks.
    pub(super) fn listed_origin(&self, track: &Track, j: u64) -> Option<Bit> {
        match track {
            Track::Table(v) => Some(v[j as usize]),
            Track::Grouped { group, k } => Some(self.groups[*group as usize].at(j, *k)),
            _ => None,
        }
    }

    /// If input `i` is the first of a formed group: the group's first wires,
    /// iteration by iteration, and its length.
    pub(super) fn group_from(&self, i: usize) -> Option<(&[Wire], usize)> {
        match self.tracks[i] {
            Track::Grouped { group, k: 0 } => {
                let g = &self.groups[group as usize];
                Some((&g.firsts, g.len))
            }
            _ => None,
        }
    }

    /// Whether a table or grouped track holds a token of this run in some
    /// iteration.
    pub(super) fn tables_own(&self, track: &Track) -> bool {
        match track {
            Track::Table(v) => v.iter().any(|&o| self.owns(o)),
            // (A word of consecutive wires holds tokens if its first
            // does: real wires stay far below them.)
            Track::Grouped { group, .. } => {
                (self.groups[*group as usize].firsts.iter()).any(|&f| self.owns(Bit::Wire(f)))
            }
            _ => false,
        }
    }
}

/// The values of `probe`'s template: its writes', then its extras.
fn values_of(probe: &Probe) -> impl Iterator<Item = &Slot> {
    probe.writes.iter().map(|w| &w.value).chain(&probe.extras)
}

/// Gates a frame executes once (its blocks' iterations counted).
fn frame_gates(frame: &RawFrame) -> u64 {
    frame.gates.len() as u64
        + frame
            .blocks
            .iter()
            .map(|b| b.body.frame().counts().gates.saturating_mul(b.count))
            .sum::<u64>()
}
