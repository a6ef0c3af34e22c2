//! Wiring: which wires of the enclosing circuit each iteration of a block
//! reads or writes, stored in a size that follows the program, not the trip
//! count.
//!
//! A [`Wiring`] gives, for every iteration `k` of a block, `width` wires of
//! the enclosing circuit, as a list of [`Segment`]s laid end to end. An
//! affine segment covers `len` consecutive wires whose start moves by a fixed
//! step from one iteration to the next (an array element indexed by the loop
//! variable, a loop-invariant value with step 0); a ranges segment gives
//! each iteration's first wire of `len` consecutive ones (an array element
//! at a position computed from the counter, such as a sorting network's
//! partner `i ^ j`); a table segment lists the wires of every iteration
//! explicitly, for what is neither.

use crate::gate::Wire;
use crate::CircuitError;

/// Part of a [`Wiring`]: positions `offset..offset + len` of each iteration,
/// where `offset` is the total length of the segments before it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Segment {
    /// Position `j` of iteration `k` is wire `start + k * step + j`.
    Affine {
        /// Number of consecutive wires.
        len: u32,
        /// The first wire in iteration 0.
        start: Wire,
        /// How far the wires move from one iteration to the next.
        step: i64,
    },
    /// Position `j` of iteration `k` is `starts[k] + j`.
    Ranges {
        /// Number of consecutive wires.
        len: u32,
        /// The first wire of each iteration.
        starts: Vec<Wire>,
    },
    /// Position `j` of iteration `k` is `wires[k * len + j]`.
    Table {
        /// Wires per iteration.
        len: u32,
        /// `count * len` wires, iteration after iteration.
        wires: Vec<Wire>,
    },
}

impl Segment {
    /// Wires per iteration.
    pub fn len(&self) -> u32 {
        match self {
            Segment::Affine { len, .. }
            | Segment::Ranges { len, .. }
            | Segment::Table { len, .. } => *len,
        }
    }

    /// The listed wires of a ranges or table segment (none for an affine
    /// one), iteration after iteration, and how many each iteration has.
    pub fn listed(&self) -> (&[Wire], usize) {
        match self {
            Segment::Affine { .. } => (&[], 0),
            Segment::Ranges { starts, .. } => (starts, 1),
            Segment::Table { len, wires } => (wires, *len as usize),
        }
    }

    /// This segment for the iterations whose listed wires are `rows` (each
    /// `listed().1` long) and whose first wire, if it is affine, moves by
    /// `shift` iterations of this one and then by `scale` of them a step.
    fn reshaped(&self, shift: i64, scale: i64, rows: impl Iterator<Item = usize>) -> Segment {
        let (listed, per) = self.listed();
        let pick = || -> Vec<Wire> {
            rows.flat_map(|k| listed[k * per..(k + 1) * per].iter().copied())
                .collect()
        };
        match self {
            Segment::Affine { len, start, step } => Segment::Affine {
                len: *len,
                start: (*start as i64 + shift * step) as Wire,
                step: step * scale,
            },
            Segment::Ranges { len, .. } => Segment::Ranges {
                len: *len,
                starts: pick(),
            },
            Segment::Table { len, .. } => Segment::Table {
                len: *len,
                wires: pick(),
            },
        }
    }

    /// Iterations `from..from + count` of this segment.
    pub fn rows(&self, from: u64, count: u64) -> Segment {
        self.reshaped(from as i64, 1, from as usize..(from + count) as usize)
    }

    /// Iterations `copy, copy + every, copy + 2 * every, …` (`groups` of
    /// them) of this segment.
    pub fn every(&self, every: u64, copy: u64, groups: u64) -> Segment {
        let rows = (0..groups).map(move |g| (g * every + copy) as usize);
        self.reshaped(copy as i64, every as i64, rows)
    }

    /// The first wire of iteration `k`'s positions if they are consecutive
    /// (affine and ranges segments), or its listed wires (tables).
    #[inline]
    pub fn row(&self, k: u64) -> Result<usize, &[Wire]> {
        match self {
            Segment::Affine { start, step, .. } => Ok((*start as i64 + k as i64 * step) as usize),
            Segment::Ranges { starts, .. } => Ok(starts[k as usize] as usize),
            Segment::Table { len, wires } => {
                let len = *len as usize;
                Err(&wires[k as usize * len..(k as usize + 1) * len])
            }
        }
    }

    /// Calls `f(j, first, len)` for the wires of iteration `k` as runs of
    /// consecutive wires: positions `j..j + len` hold wires `first..first +
    /// len` (one run for an affine or ranges segment, none if it is empty,
    /// a table's wires one by one).
    #[inline]
    pub fn for_each_run(&self, k: u64, mut f: impl FnMut(usize, Wire, usize)) {
        match self.row(k) {
            Ok(_) if self.is_empty() => {}
            Ok(first) => f(0, first as Wire, self.len() as usize),
            Err(row) => row.iter().enumerate().for_each(|(j, &w)| f(j, w, 1)),
        }
    }

    /// Calls `f(j, wire)` for the wires of iteration `k`.
    #[inline]
    pub fn for_each(&self, k: u64, mut f: impl FnMut(usize, Wire)) {
        self.for_each_run(k, |j, first, len| {
            (0..len).for_each(|i| f(j + i, first + i as Wire));
        });
    }

    /// Position `j` of iteration `k`.
    #[inline]
    fn wire(&self, k: u64, j: usize) -> Wire {
        match self.row(k) {
            Ok(first) => (first + j) as Wire,
            Err(row) => row[j],
        }
    }

    /// Whether the segment has no wires.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The wires of the enclosing circuit that every iteration of a block reads
/// (or writes): `width()` wires per iteration.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Wiring {
    /// The segments, laid end to end.
    pub segments: Vec<Segment>,
}

impl Wiring {
    /// No wires.
    pub fn empty() -> Wiring {
        Wiring::default()
    }

    /// Wires per iteration.
    pub fn width(&self) -> usize {
        self.segments.iter().map(|s| s.len() as usize).sum()
    }

    /// The same wires in every iteration.
    pub fn fixed(wires: &[Wire]) -> Wiring {
        Wiring::compress(1, wires.len(), wires)
    }

    /// Every iteration of `count` reads `width` wires listed in `table`
    /// (iteration after iteration), compressed: columns whose wires move by
    /// a fixed step become affine segments (consecutive columns that move
    /// together are merged), runs of other columns whose wires are
    /// consecutive in every iteration ranges segments, and the rest table
    /// segments.
    pub fn compress(count: usize, width: usize, table: &[Wire]) -> Wiring {
        assert_eq!(table.len(), count * width, "count * width wires");
        let columns = Columns::of_table(count, width, table);
        columns.segments(count, |k, j| table[k * width + j])
    }

    /// This wiring of `count` iterations compressed: what
    /// [`Wiring::compress`] makes of the table of its wires, found segment
    /// by segment (an affine or ranges segment's columns move alike and
    /// follow one another).
    pub fn compressed(&self, count: usize) -> Wiring {
        // Each column's segment and position in it.
        let place: Vec<(&Segment, usize)> = (self.segments.iter())
            .flat_map(|seg| (0..seg.len() as usize).map(move |i| (seg, i)))
            .collect();
        let at = |k: usize, j: usize| place[j].0.wire(k as u64, place[j].1);
        let mut columns = Columns::default();
        for seg in self.segments.iter().filter(|seg| !seg.is_empty()) {
            let len = seg.len() as usize;
            let mut part = match seg {
                Segment::Affine { step, .. } if count > 0 => Columns {
                    steps: vec![Some(if count < 2 { 0 } else { *step }); len],
                    follows: vec![true; len],
                },
                Segment::Ranges { starts, .. } if count > 0 => Columns {
                    steps: vec![Columns::of_table(count, 1, starts).steps[0]; len],
                    follows: vec![true; len],
                },
                Segment::Table { wires, .. } => Columns::of_table(count, len, wires),
                _ => Columns::default(),
            };
            // Whether this segment's first column follows the last one's.
            let j = columns.follows.len();
            if j > 0 && count > 0 {
                part.follows[0] = (0..count).all(|k| at(k, j - 1).checked_add(1) == Some(at(k, j)));
            }
            columns.steps.extend(part.steps);
            columns.follows.extend(part.follows);
        }
        columns.segments(count, at)
    }

    /// The wiring of iterations `from..from + count` of this one.
    pub fn slice(&self, from: u64, count: u64) -> Wiring {
        let segments = self
            .segments
            .iter()
            .map(|seg| seg.rows(from, count))
            .collect();
        Wiring { segments }
    }

    /// Calls `f(position, first, len)` for the wires of iteration `k` as
    /// runs of consecutive wires (see [`Segment::for_each_run`]).
    #[inline]
    pub fn for_each_run(&self, k: u64, mut f: impl FnMut(usize, Wire, usize)) {
        let mut at = 0;
        for seg in &self.segments {
            seg.for_each_run(k, |j, first, len| f(at + j, first, len));
            at += seg.len() as usize;
        }
    }

    /// Calls `f(position, wire)` for the wires of iteration `k`.
    #[inline]
    pub fn for_each(&self, k: u64, mut f: impl FnMut(usize, Wire)) {
        let mut at = 0;
        for seg in &self.segments {
            seg.for_each(k, |j, w| f(at + j, w));
            at += seg.len() as usize;
        }
    }

    /// The wires of iteration `k`.
    pub fn wires(&self, k: u64) -> Vec<Wire> {
        let mut out = vec![0; self.width()];
        self.for_each(k, |j, w| out[j] = w);
        out
    }

    /// Copies the labels of iteration `k`'s wires from `from` (indexed by
    /// wire) to `to` (indexed by position).
    #[inline]
    pub fn gather<L: Copy>(&self, k: u64, from: &[L], to: &mut [L]) {
        let mut at = 0;
        for seg in &self.segments {
            let len = seg.len() as usize;
            match seg.row(k) {
                Ok(base) => to[at..at + len].copy_from_slice(&from[base..base + len]),
                Err(row) => {
                    for (slot, &w) in to[at..at + len].iter_mut().zip(row) {
                        *slot = from[w as usize];
                    }
                }
            }
            at += len;
        }
    }

    /// Copies labels by position from `from` to iteration `k`'s wires in `to`.
    #[inline]
    pub fn scatter<L: Copy>(&self, k: u64, from: &[L], to: &mut [L]) {
        let mut at = 0;
        for seg in &self.segments {
            let len = seg.len() as usize;
            match seg.row(k) {
                Ok(base) => to[base..base + len].copy_from_slice(&from[at..at + len]),
                Err(row) => {
                    for (&l, &w) in from[at..at + len].iter().zip(row) {
                        to[w as usize] = l;
                    }
                }
            }
            at += len;
        }
    }

    /// Checks that every wire of every one of `count` iterations is below
    /// `num_wires` and that ranges and table segments hold `count` rows.
    pub fn check(&self, count: u64, num_wires: Wire, what: &str) -> Result<(), CircuitError> {
        let bad = |msg: String| Err(CircuitError::Invalid(format!("{what}: {msg}")));
        if count == 0 {
            return Ok(());
        }
        for seg in &self.segments {
            let len = seg.len() as i128;
            let in_range = |first: i128| first >= 0 && first + len <= num_wires as i128;
            match seg {
                Segment::Affine { start, step, .. } => {
                    // Affine: the extremes are at the first and last iteration.
                    let last = (count - 1) as i128 * *step as i128 + *start as i128;
                    if let Some(first) = [*start as i128, last].into_iter().find(|&f| !in_range(f))
                    {
                        return bad(format!(
                            "wires {first}..{} out of range (wires: {num_wires})",
                            first + len
                        ));
                    }
                }
                Segment::Ranges { .. } | Segment::Table { .. } => {
                    let (listed, per) = seg.listed();
                    if count.checked_mul(per as u64) != Some(listed.len() as u64) {
                        return bad(format!(
                            "{} listed wires for {count} iterations of {per}",
                            listed.len()
                        ));
                    }
                    // A range's first wire, or a table's wire (of length 1).
                    let len = if per == 1 { len } else { 1 };
                    if let Some(&w) = listed
                        .iter()
                        .find(|&&w| w as i128 + len > num_wires as i128)
                    {
                        return bad(format!("wire {w} out of range (wires: {num_wires})"));
                    }
                }
            }
        }
        Ok(())
    }

    /// Calls `f` on every wire of every one of `count` iterations (table
    /// segments entry by entry, affine ones wire by wire).
    pub fn for_all(&self, count: u64, mut f: impl FnMut(Wire)) {
        self.for_all_runs(count, |first, len| {
            (first..first + len as Wire).for_each(&mut f);
        });
    }

    /// Calls `f(first, len)` on the wires of every one of `count`
    /// iterations as runs of consecutive wires (see
    /// [`Segment::for_each_run`]).
    pub fn for_all_runs(&self, count: u64, mut f: impl FnMut(Wire, usize)) {
        for k in 0..count {
            self.for_each_run(k, |_, first, len| f(first, len));
        }
    }
}

/// What [`Wiring::compress`] needs to know of the columns of a table of
/// wires (position `j` of every iteration), none if there are no
/// iterations.
#[derive(Default)]
struct Columns {
    /// Each column's step, if its wires move by a fixed one from an
    /// iteration to the next.
    steps: Vec<Option<i64>>,
    /// Whether each column holds the wire after the column before's in
    /// every iteration (the first one's is not used).
    follows: Vec<bool>,
}

impl Columns {
    /// The columns of `table`: `count` rows of `width` wires, read row by
    /// row.
    fn of_table(count: usize, width: usize, table: &[Wire]) -> Columns {
        if count == 0 {
            return Columns::default();
        }
        let row = |k: usize| &table[k * width..(k + 1) * width];
        let steps: Vec<i64> = match count {
            1 => vec![0; width],
            _ => (row(1).iter().zip(row(0)))
                .map(|(&b, &a)| b as i64 - a as i64)
                .collect(),
        };
        let mut affine = vec![true; width];
        let mut follows = vec![true; width];
        for k in 1..count {
            let moved = row(k).iter().zip(row(0)).zip(&steps);
            for (affine, ((&w, &first), &step)) in affine.iter_mut().zip(moved) {
                *affine &= w as i64 == first as i64 + k as i64 * step;
            }
        }
        for k in 0..count {
            let pairs = row(k).iter().zip(row(k).iter().skip(1));
            for (follows, (&before, &w)) in follows.iter_mut().skip(1).zip(pairs) {
                *follows &= before.checked_add(1) == Some(w);
            }
        }
        let steps = steps.into_iter().zip(affine);
        Columns {
            steps: steps.map(|(step, affine)| affine.then_some(step)).collect(),
            follows,
        }
    }

    /// The segments of these columns, whose wires `at(k, j)` gives:
    /// columns with a step become affine segments (consecutive ones moving
    /// together merged), runs of other columns following one another ranges
    /// segments, and the rest table segments.
    fn segments(&self, count: usize, at: impl Fn(usize, usize) -> Wire) -> Wiring {
        let steps = &self.steps;
        // Each segment with the column it starts at.
        let mut segments: Vec<(Segment, usize)> = Vec::new();
        let mut j = 0;
        while j < steps.len() {
            let Some(step) = steps[j] else {
                let mut end = j + 1;
                while end < steps.len() && steps[end].is_none() && self.follows[end] {
                    end += 1;
                }
                let len = (end - j) as u32;
                if len > 1 {
                    let starts = (0..count).map(|k| at(k, j)).collect();
                    segments.push((Segment::Ranges { len, starts }, j));
                } else if let Some((Segment::Table { len, .. }, _)) = segments.last_mut() {
                    *len += 1;
                } else {
                    let wires = Vec::new();
                    segments.push((Segment::Table { len: 1, wires }, j));
                }
                j = end;
                continue;
            };
            let start = at(0, j);
            j += 1;
            if let Some((
                Segment::Affine {
                    len,
                    start: s,
                    step: st,
                },
                _,
            )) = segments.last_mut()
            {
                if *st == step && s.checked_add(*len) == Some(start) {
                    *len += 1;
                    continue;
                }
            }
            segments.push((
                Segment::Affine {
                    len: 1,
                    start,
                    step,
                },
                j - 1,
            ));
        }
        // Fill the table segments column range by column range.
        for (seg, first) in &mut segments {
            if let Segment::Table { len, wires } = seg {
                let len = *len as usize;
                wires.reserve(count * len);
                for k in 0..count {
                    wires.extend((*first..*first + len).map(|j| at(k, j)));
                }
            }
        }
        Wiring {
            segments: segments.into_iter().map(|(seg, _)| seg).collect(),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// A random wiring of `count` iterations (at most 6) over wires `lo..hi`
    /// (at least 8 of them): affine, ranges and table segments of up to 5
    /// wires, some ranges moving by a fixed step or following the segment
    /// before them, some tables with consecutive rows.
    pub(crate) fn random_wiring(rng: &mut impl Rng, count: usize, lo: Wire, hi: Wire) -> Wiring {
        let mut segments: Vec<Segment> = Vec::new();
        for _ in 0..rng.gen_range(0..=4) {
            let len = rng.gen_range(0..=5);
            let fits = |first: i64| first >= lo as i64 && first + len as i64 <= hi as i64;
            // The first wires of the rows moving by `step` from `start`, if
            // they fit.
            let moving = |start: i64, step: i64| -> Option<Vec<Wire>> {
                (0..count as i64)
                    .map(|k| fits(start + k * step).then_some((start + k * step) as Wire))
                    .collect()
            };
            let start = rng.gen_range(lo..=hi - len);
            let step = rng.gen_range(-2..=3);
            let random = |rng: &mut dyn rand::RngCore| -> Vec<Wire> {
                (0..count).map(|_| rng.gen_range(lo..=hi - len)).collect()
            };
            let after_last = segments
                .last()
                .filter(|s| !matches!(s, Segment::Table { .. }))
                .and_then(|s| {
                    let ends = (0..count as u64).map(|k| s.row(k).unwrap() as i64 + s.len() as i64);
                    ends.map(|end| fits(end).then_some(end as Wire)).collect()
                });
            let seg = match rng.gen_range(0..5) {
                0 => match moving(start as i64, step) {
                    Some(_) => Segment::Affine { len, start, step },
                    None => Segment::Affine {
                        len,
                        start,
                        step: 0,
                    },
                },
                1 => Segment::Ranges {
                    len,
                    starts: moving(start as i64, step).unwrap_or_else(|| random(rng)),
                },
                2 => Segment::Ranges {
                    len,
                    starts: after_last.unwrap_or_else(|| random(rng)),
                },
                3 => Segment::Ranges {
                    len,
                    starts: random(rng),
                },
                _ => {
                    let consecutive = rng.gen_bool(0.5);
                    let mut wires = Vec::new();
                    for first in random(rng) {
                        for j in 0..len {
                            wires.push(match consecutive {
                                true => first + j,
                                false => rng.gen_range(lo..hi),
                            });
                        }
                    }
                    Segment::Table { len, wires }
                }
            };
            segments.push(seg);
        }
        let wiring = Wiring { segments };
        wiring.check(count as u64, hi, "random wiring").unwrap();
        wiring
    }

    #[test]
    fn columns_of_a_table_are_what_reading_each_column_finds() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(4);
        for round in 0..5000 {
            let count = rng.gen_range(0..=6);
            let wiring = random_wiring(&mut rng, count, 10, 40);
            let (table, width) = (wiring_table(&wiring, count), wiring.width());
            let at = |k: usize, j: usize| table[k * width + j] as i64;
            let step = |j| match count {
                0 | 1 => Some(0),
                _ => {
                    let step = at(1, j) - at(0, j);
                    (0..count)
                        .all(|k| at(k, j) == at(0, j) + k as i64 * step)
                        .then_some(step)
                }
            };
            let follows = |j| (0..count).all(|k| at(k, j - 1) + 1 == at(k, j));
            let columns = Columns::of_table(count, width, &table);
            let width = if count == 0 { 0 } else { width };
            let steps: Vec<_> = (0..width).map(step).collect();
            assert_eq!(columns.steps, steps, "round {round}: {table:?}");
            for j in 1..width {
                assert_eq!(
                    columns.follows[j],
                    follows(j),
                    "round {round}: {j} {table:?}"
                );
            }
        }
    }

    /// The wires of `count` iterations of `wiring`, iteration after
    /// iteration.
    fn wiring_table(wiring: &Wiring, count: usize) -> Vec<Wire> {
        (0..count as u64).flat_map(|k| wiring.wires(k)).collect()
    }

    #[test]
    fn compressed_is_compress_of_the_table() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for round in 0..5000 {
            let count = rng.gen_range(0..=6);
            let wiring = random_wiring(&mut rng, count, 10, 40);
            let table = wiring_table(&wiring, count);
            let want = Wiring::compress(count, wiring.width(), &table);
            assert_eq!(wiring.compressed(count), want, "round {round}: {wiring:?}");
        }
    }
}
