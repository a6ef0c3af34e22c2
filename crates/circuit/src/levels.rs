//! AND-depth analysis, level ordering and circuit statistics.

mod order;

use crate::bits::Bits;
use crate::circuit::Circuit;
use crate::gate::{Gate, Wire};

/// The level of every gate: `level(AND) = 1 + max(level(inputs))`,
/// `level(XOR/INV) = max(level(inputs))`, inputs are level 0.
pub fn gate_levels(circuit: &Circuit) -> Vec<u32> {
    levels_in_turn(circuit).collect()
}

/// [`gate_levels`] gate after gate, without holding them all.
fn levels_in_turn(circuit: &Circuit) -> impl Iterator<Item = u32> + '_ {
    let mut wire_level = vec![0u32; circuit.num_wires as usize];
    circuit.gates.iter().map(move |g| {
        let input_level = g
            .inputs()
            .map(|w| wire_level[w as usize])
            .max()
            .unwrap_or(0);
        let level = input_level + g.is_and() as u32;
        wire_level[g.out() as usize] = level;
        level
    })
}

/// Locality windows aim at AND runs at least this wide on average: wide
/// enough for the engines' AND chunks (64 gates) and their per-run costs,
/// while the window's live labels stay in the caches.
const WINDOW_RUN: u64 = 128;

/// A locality window holds at least this many gates: at most 128 KiB of
/// labels, which the caches hold anyway, so smaller windows would only cut
/// AND runs short.
const WINDOW_GATES: u64 = 8192;

/// A level with fewer AND gates than this over the whole circuit (a step of
/// a serial chain, say) is narrow wherever its gates go: windows do not
/// count it among the levels they must fill.
const WIDE_LEVEL: u32 = 16;

/// The locality window and the level of every gate of a circuit in
/// single assignment (see [`Circuit::into_ssa`]), and the circuit's depth.
///
/// A gate's key is the latest input its value depends on, inputs taken in
/// the order the gates first read them: the gates that consume the same
/// inputs — one iteration of an unrolled loop, say — share a key, values
/// that every iteration uses (read first, before the iterations) do not
/// hold their consumers back, and a gate's key is never less than its
/// inputs' keys. Windows are runs of consecutive keys, closed once they
/// hold [`WINDOW_GATES`] gates and their AND gates fill the wide AND
/// levels they span [`WINDOW_RUN`] wide on average. Keys, levels and
/// what each key's gates and each level's AND gates count are found in
/// one pass over the gates (a gate's value is looked up by its position:
/// gate `i` writes wire `input_bits + i`).
///
/// The keys, made windows in place, are returned, the one array as long
/// as the gates; each gate's level and chain place (see [`Levels`]) are
/// left in its output field, which single assignment makes redundant
/// ([`order::SortKeys::pack`] puts the outputs back): a 40 M-gate
/// circuit's levels took 160 MB more.
///
/// With `read` (flagging the wires whose values are read), a gate whose
/// value is not read counts for nothing: its key, level and place are 0.
fn gate_windows(circuit: &mut Circuit, read: Option<&Bits>) -> (Vec<u32>, Levels) {
    const UNREAD: u32 = u32::MAX;
    let input_bits = circuit.input_bits();
    let gates = &mut circuit.gates;
    let mut input_key = vec![UNREAD; input_bits];
    let mut first_reads = 0u32;
    // Per key, then per window: gates, AND gates, lowest and highest AND
    // level.
    let mut groups: Vec<Group> = Vec::new();
    // AND gates per level (level 0 has none).
    let mut ands_at = vec![0u32];
    let mut keys: Vec<u32> = Vec::with_capacity(gates.len());
    let mut levels = Levels::new();
    for i in 0..gates.len() {
        let g = gates[i];
        debug_assert_eq!(g.out() as usize, input_bits + i, "single assignment");
        if read.is_some_and(|read| !read.get(input_bits + i)) {
            keys.push(0);
            gates[i] = g.rewire(|w| w, 0);
            continue;
        }
        let (mut key, mut packed) = (0, 0u32);
        for w in g.inputs() {
            let w = w as usize;
            if let Some(gate) = w.checked_sub(input_bits) {
                key = key.max(keys[gate]);
                packed = packed.max(gates[gate].out());
            } else {
                // Only an input is read before it is written.
                let k = &mut input_key[w];
                if *k == UNREAD {
                    *k = first_reads;
                    first_reads += 1;
                }
                key = key.max(*k);
            }
        }
        let and = g.is_and();
        let packed = levels.next(packed, and, &mut gates[..i]);
        let level = packed >> levels.shift;
        keys.push(key);
        gates[i] = g.rewire(|w| w, packed);
        if key as usize >= groups.len() {
            groups.resize(key as usize + 1, Group::EMPTY);
        }
        groups[key as usize].add(and, level);
        if and {
            if level as usize >= ands_at.len() {
                ands_at.resize(level as usize + 1, 0);
            }
            ands_at[level as usize] += 1;
        }
    }
    levels.depth = ands_at.len() as u32 - 1;
    let wide = wide_levels(ands_at);
    let mut window = 0u32;
    let mut open = Group::EMPTY;
    let window_of: Vec<u32> = groups
        .iter()
        .map(|group| {
            let this = window;
            open.merge(group);
            if open.is_full(&wide) {
                window += 1;
                open = Group::EMPTY;
            }
            this
        })
        .collect();
    for k in &mut keys {
        // (Only gates not read have a key no group counts: 0, when no
        // gate is read.)
        *k = window_of.get(*k as usize).copied().unwrap_or(0);
    }
    (keys, levels)
}

/// Bits of a gate's chain place (see [`Levels`]).
const PLACE_BITS: u32 = 8;

/// The levels [`gate_windows`] leaves in the gates' output fields, as
/// `level << shift | place`. A gate's *place* orders the XOR and INV gates
/// of one level, which may read each other: 0 for an AND gate, one more
/// than the place of the input of its level with the highest for any
/// other (an input of a lower level counts as place 0). Gates of one
/// window, level, kind and place read none of each other, so sorting by
/// all four needs no other order among them. Places stop at the highest
/// that [`PLACE_BITS`] hold, and a circuit too deep to hold them beside its
/// levels has none (`shift` 0, every place 0): those gates are
/// `saturated`, and are put back in their order before.
pub(super) struct Levels {
    /// The circuit's depth.
    pub(super) depth: u32,
    /// Where the level starts in a packed value.
    shift: u32,
    /// The highest place made.
    pub(super) max_place: u32,
    /// Whether gates of the highest place may read each other.
    pub(super) saturated: bool,
}

impl Levels {
    fn new() -> Levels {
        Levels {
            depth: 0,
            shift: PLACE_BITS,
            max_place: 0,
            saturated: false,
        }
    }

    /// The packed level and place of a gate whose inputs' highest packed
    /// value is `inputs` (0 for circuit inputs), made after the gates
    /// `made`.
    fn next(&mut self, mut inputs: u32, and: bool, made: &mut [Gate]) -> u32 {
        if and && self.shift > 0 && inputs >> self.shift == u32::MAX >> self.shift {
            // Too deep for places beside the levels: levels alone.
            inputs >>= self.shift;
            self.drop_places(made);
        }
        let mask = (1 << self.shift) - 1;
        if and {
            return ((inputs >> self.shift) + 1) << self.shift;
        }
        if inputs & mask == mask {
            self.saturated = true;
            return inputs;
        }
        self.max_place = self.max_place.max((inputs & mask) + 1);
        inputs + 1
    }

    /// Keeps levels alone from now on, in `made` (the gates before) too.
    fn drop_places(&mut self, made: &mut [Gate]) {
        for g in made {
            *g = g.rewire(|w| w, g.out() >> self.shift);
        }
        (self.shift, self.max_place, self.saturated) = (0, 0, true);
    }

    /// The level and place packed in `v`.
    pub(super) fn unpack(&self, v: u32) -> (u32, u32) {
        (v >> self.shift, v & ((1 << self.shift) - 1))
    }
}

/// `wide[l]`: how many of the levels `1..=l` have at least [`WIDE_LEVEL`]
/// AND gates over the whole circuit, given how many each has (`ands_at`).
fn wide_levels(mut ands_at: Vec<u32>) -> Vec<u32> {
    let mut count = 0;
    for w in ands_at.iter_mut() {
        count += (*w >= WIDE_LEVEL) as u32;
        *w = count;
    }
    ands_at
}

/// Gates of one key or one window (see [`gate_windows`]).
#[derive(Clone, Copy)]
struct Group {
    gates: u64,
    ands: u64,
    /// Lowest and highest level of its AND gates.
    lo: u32,
    hi: u32,
}

impl Group {
    const EMPTY: Group = Group {
        gates: 0,
        ands: 0,
        lo: u32::MAX,
        hi: 0,
    };

    fn add(&mut self, and: bool, level: u32) {
        self.gates += 1;
        if and {
            self.ands += 1;
            self.lo = self.lo.min(level);
            self.hi = self.hi.max(level);
        }
    }

    fn merge(&mut self, other: &Group) {
        self.gates += other.gates;
        self.ands += other.ands;
        self.lo = self.lo.min(other.lo);
        self.hi = self.hi.max(other.hi);
    }

    /// Whether a window of these gates is large enough to close, given how
    /// many of the levels up to each are wide (`wide`).
    fn is_full(&self, wide: &[u32]) -> bool {
        if self.gates < WINDOW_GATES || self.ands == 0 {
            return false;
        }
        let spanned = wide[self.hi as usize] - wide[self.lo as usize - 1];
        self.ands >= WINDOW_RUN * u64::from(spanned.max(1))
    }
}

impl Circuit {
    /// The same function with gates reordered by (window, level, AND
    /// first): every maximal run of consecutive AND gates is then a set of
    /// independent gates (one AND level of a window), which is what the
    /// garbling engine batches. Wires are compacted afterwards; a circuit
    /// already in level order window by window (see
    /// [`Circuit::is_level_ordered`]) is returned as it is.
    ///
    /// Windows (see `gate_windows`) keep the labels in use few: levelled
    /// as a whole, a wide circuit runs each level across all of it, and
    /// the values live between levels fill megabytes of labels that every
    /// gate reads from memory. Windows are groups of gates that consume
    /// the same inputs, in the order the circuit reads its inputs, just
    /// large enough to keep the AND runs wide; a small circuit is one
    /// window.
    pub fn levelize(&self) -> Circuit {
        self.clone().into_levelized()
    }

    /// [`Circuit::levelize`], consuming the circuit: its gates are
    /// reordered and renumbered in place, so that levelling holds one copy
    /// of them (and an integer a gate besides), not three.
    pub fn into_levelized(self) -> Circuit {
        // Already in order (e.g. generated that way): nothing to do.
        if self.is_level_ordered() {
            return self;
        }
        self.into_ssa().levelize_ssa(None)
    }

    /// [`Circuit::into_levelized`] of a circuit in single assignment (see
    /// [`Circuit::into_ssa`]), whether in order already or not: its gates
    /// are sorted in place, then its wires compacted (gates whose value
    /// reaches no output removed). With `read` (the wires whose values
    /// are read, found beforehand), the gates whose values are not read
    /// are left out of the windows, as if removed already.
    pub(crate) fn levelize_ssa(mut self, read: Option<&Bits>) -> Circuit {
        let (windows, levels) = gate_windows(&mut self, read);
        let input_bits = self.input_bits() as Wire;
        let keys = order::SortKeys::pack(windows, &levels, &mut self.gates, input_bits);
        keys.sort(&mut self.gates);
        self.compact_ssa()
    }

    /// Whether the gates are in level order window by window, as
    /// [`Circuit::levelize`] leaves them: sorted by (level, AND first) in
    /// stretches of at least 8192 gates (one window or several), the last
    /// stretch perhaps shorter. Levelling leaves such a circuit as it is.
    pub fn is_level_ordered(&self) -> bool {
        // (A program loaded ready to run is checked every run: in one
        // pass, holding no level per gate.)
        self.in_window_order(levels_in_turn(self))
    }

    /// Whether the gates, of `levels`, are in level order window by window
    /// (see [`Circuit::is_level_ordered`]).
    fn in_window_order(&self, levels: impl IntoIterator<Item = u32>) -> bool {
        let mut keys = levels
            .into_iter()
            .zip(&self.gates)
            .map(|(level, g)| (level, !g.is_and()));
        let Some(mut last) = keys.next() else {
            return true;
        };
        let mut stretch = 0;
        for (i, key) in keys.enumerate().map(|(i, key)| (i + 1, key)) {
            if key < last {
                if ((i - stretch) as u64) < WINDOW_GATES {
                    return false;
                }
                stretch = i;
            }
            last = key;
        }
        true
    }
}

/// `order` (indices) stably sorted by their `digit_of`, in time linear in
/// the indices and the digits.
pub(crate) fn counting_sort(order: &[u32], digit_of: impl Fn(u32) -> usize) -> Vec<u32> {
    let n_digits = order.iter().map(|&i| digit_of(i) + 1).max().unwrap_or(0);
    // next[d]: where the next index of digit d goes.
    let mut next = vec![0u32; n_digits + 1];
    for &i in order {
        next[digit_of(i) + 1] += 1;
    }
    for d in 1..=n_digits {
        next[d] += next[d - 1];
    }
    let mut sorted = vec![0u32; order.len()];
    for &i in order {
        let at = &mut next[digit_of(i)];
        sorted[*at as usize] = i;
        *at += 1;
    }
    sorted
}

/// Size and shape of a circuit, as printed by `twofold stats`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CircuitStats {
    /// All gates.
    pub gates: usize,
    /// AND gates (the ones that cost).
    pub and_gates: usize,
    /// XOR gates.
    pub xor_gates: usize,
    /// INV gates.
    pub inv_gates: usize,
    /// Wire slots.
    pub wires: usize,
    /// AND depth (number of AND levels).
    pub and_depth: usize,
    /// AND gates on each level, level 1 first.
    pub ands_per_level: Vec<usize>,
    /// Input value widths.
    pub input_widths: Vec<u32>,
    /// Output value widths.
    pub output_widths: Vec<u32>,
}

impl CircuitStats {
    /// Computes the statistics of `circuit`.
    pub fn of(circuit: &Circuit) -> CircuitStats {
        let levels = gate_levels(circuit);
        let and_depth = levels.iter().copied().max().unwrap_or(0) as usize;
        let mut ands_per_level = vec![0usize; and_depth];
        let (mut and_gates, mut xor_gates, mut inv_gates) = (0, 0, 0);
        for (g, &l) in circuit.gates.iter().zip(&levels) {
            match g {
                Gate::And { .. } => {
                    and_gates += 1;
                    ands_per_level[l as usize - 1] += 1;
                }
                Gate::Xor { .. } => xor_gates += 1,
                Gate::Inv { .. } => inv_gates += 1,
            }
        }
        CircuitStats {
            gates: circuit.gates.len(),
            and_gates,
            xor_gates,
            inv_gates,
            wires: circuit.num_wires as usize,
            and_depth,
            ands_per_level,
            input_widths: circuit.inputs.iter().map(|v| v.width).collect(),
            output_widths: circuit
                .outputs
                .iter()
                .map(|v| v.wires.len() as u32)
                .collect(),
        }
    }

    /// Median number of AND gates per level (0 for a circuit without ANDs).
    pub fn median_ands_per_level(&self) -> usize {
        let mut sorted = self.ands_per_level.clone();
        sorted.sort_unstable();
        match sorted.len() {
            0 => 0,
            n if n % 2 == 1 => sorted[n / 2],
            n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2,
        }
    }

    /// Largest number of AND gates on one level.
    pub fn max_ands_per_level(&self) -> usize {
        self.ands_per_level.iter().copied().max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};

    use super::*;

    /// A chain of 20,000 AND gates (a window of its own), then a window of
    /// three gates whose levels are 20,001, 0 and 1.
    fn far_levels() -> Circuit {
        use crate::circuit::{InputValue, OutputValue, Party};
        let mut gates = Vec::new();
        let (mut last, mut w) = (0, 5);
        for _ in 0..20_000 {
            gates.push(Gate::And {
                a: last,
                b: 1,
                out: w,
            });
            (last, w) = (w, w + 1);
        }
        gates.push(Gate::And {
            a: last,
            b: 4,
            out: w,
        });
        gates.push(Gate::Xor {
            a: 2,
            b: 4,
            out: w + 1,
        });
        gates.push(Gate::And {
            a: 2,
            b: 3,
            out: w + 2,
        });
        Circuit {
            num_wires: w + 3,
            inputs: vec![InputValue {
                name: "x".into(),
                party: Party::A,
                width: 5,
            }],
            outputs: vec![OutputValue {
                name: "y".into(),
                wires: vec![w, w + 1, w + 2],
            }],
            gates,
        }
    }

    /// Two chains of 600 XOR gates in level 0, read by AND gates, each
    /// chain's gates alternating with the other's and with INV gates.
    fn xor_chains() -> Circuit {
        use crate::circuit::{InputValue, OutputValue, Party};
        let mut gates = Vec::new();
        let (mut last, mut w) = ([0, 1], 4);
        for k in 0..600 {
            for (c, l) in last.iter_mut().enumerate() {
                gates.push(Gate::Xor {
                    a: *l,
                    b: 2 + c as Wire,
                    out: w,
                });
                *l = w;
                w += 1;
            }
            if k % 7 == 0 {
                gates.push(Gate::Inv { a: last[0], out: w });
                gates.push(Gate::And {
                    a: w,
                    b: last[1],
                    out: w + 1,
                });
                last[0] = w + 1;
                w += 2;
            }
        }
        Circuit {
            num_wires: w,
            inputs: vec![InputValue {
                name: "x".into(),
                party: Party::A,
                width: 4,
            }],
            outputs: vec![OutputValue {
                name: "y".into(),
                wires: last.to_vec(),
            }],
            gates,
        }
    }

    /// A circuit too deep for places beside its levels keeps levels alone,
    /// the gates made before too, and its XOR gates are saturated.
    #[test]
    fn levels_too_deep_for_places_are_kept_alone() {
        let mut levels = Levels::new();
        let top = u32::MAX >> PLACE_BITS;
        let mut made = vec![Gate::Xor {
            a: 0,
            b: 1,
            out: top << PLACE_BITS | 3,
        }];
        assert_eq!(
            levels.next(5 << PLACE_BITS | 2, false, &mut made),
            5 << PLACE_BITS | 3
        );
        let packed = levels.next(top << PLACE_BITS | 3, true, &mut made);
        assert_eq!(levels.unpack(packed), (top + 1, 0));
        assert_eq!(made[0].out(), top);
        assert!(levels.saturated);
        assert_eq!(levels.next(packed, false, &mut made), packed);
    }

    /// Sorting in place gives an order by (window, level, AND first) that
    /// is topological, with windows and levels computed apart: wide and
    /// deep circuits, shuffled (levels far apart in a window, sorted by
    /// comparing), chains (one long window), chains of XOR gates in one
    /// level longer than places go.
    #[test]
    fn gates_sorted_in_place_are_in_level_order() {
        use crate::synthetic::{chains, layered};
        let mut shuffled = layered(3000, 12, 64, 5).ssa();
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        // Gates of one depth (every gate counted) read none of each other:
        // in order of depth, ties in random order, the gates stay in a
        // topological order whose AND levels interleave.
        let mut depth = vec![0u32; shuffled.num_wires as usize];
        let depths: Vec<u32> = (shuffled.gates.iter())
            .map(|g| {
                let d = 1 + g.inputs().map(|w| depth[w as usize]).max().unwrap_or(0);
                depth[g.out() as usize] = d;
                d
            })
            .collect();
        let mut order: Vec<usize> = (0..depths.len()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.gen_range(0..=i));
        }
        order.sort_by_key(|&i| depths[i]);
        let made = std::mem::take(&mut shuffled.gates);
        shuffled.gates = order.iter().map(|&i| made[i]).collect();
        shuffled.validate().expect("topological");
        assert_ne!(shuffled.gates, made);
        for c in [
            Circuit::default(),
            layered(20, 3, 8, 1),
            layered(3000, 40, 64, 2),
            shuffled,
            chains(40, 3000),
            far_levels(),
            xor_chains(),
        ] {
            let ssa = c.ssa();
            let levels = gate_levels(&c);
            let mut levelled = ssa.clone();
            let (windows, found) = gate_windows(&mut levelled, None);
            let left: Vec<u32> = (levelled.gates.iter())
                .map(|g| found.unpack(g.out()).0)
                .collect();
            assert_eq!(left, levels);
            assert_eq!(found.depth, levels.iter().copied().max().unwrap_or(0));
            let input_bits = c.input_bits() as Wire;
            let keys =
                order::SortKeys::pack(windows.clone(), &found, &mut levelled.gates, input_bits);
            assert_eq!(levelled.gates, ssa.gates);
            let mut got = ssa.gates.clone();
            keys.sort(&mut got);
            // By (window, level, AND first), in a topological order: the
            // same function.
            let key = |g: &Gate| {
                let i = g.out() as usize - input_bits as usize;
                (windows[i], levels[i], !g.is_and())
            };
            assert!(got.windows(2).all(|p| key(&p[0]) <= key(&p[1])));
            let mut sorted = Circuit {
                gates: got.clone(),
                ..ssa.clone()
            };
            sorted.validate().expect("topological");
            sorted.gates.sort_by_key(Gate::out);
            assert_eq!(sorted.gates, ssa.gates);
        }
    }
}
