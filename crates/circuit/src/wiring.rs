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
    fn row(&self, k: u64) -> Result<usize, &[Wire]> {
        match self {
            Segment::Affine { start, step, .. } => Ok((*start as i64 + k as i64 * step) as usize),
            Segment::Ranges { starts, .. } => Ok(starts[k as usize] as usize),
            Segment::Table { len, wires } => {
                let len = *len as usize;
                Err(&wires[k as usize * len..(k as usize + 1) * len])
            }
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
        let at = |k: usize, j: usize| table[k * width + j];
        let column_step = |j: usize| -> Option<i64> {
            if count < 2 {
                return Some(0);
            }
            let step = at(1, j) as i64 - at(0, j) as i64;
            (2..count)
                .all(|k| at(k, j) as i64 == at(0, j) as i64 + k as i64 * step)
                .then_some(step)
        };
        // Whether column `j` holds the wire after column `j - 1`'s in every
        // iteration.
        let follows = |j: usize| (0..count).all(|k| at(k, j - 1).checked_add(1) == Some(at(k, j)));
        let steps: Vec<Option<i64>> = (0..if count == 0 { 0 } else { width })
            .map(column_step)
            .collect();
        // Each segment with the column it starts at.
        let mut segments: Vec<(Segment, usize)> = Vec::new();
        let mut j = 0;
        while j < steps.len() {
            let Some(step) = steps[j] else {
                let mut end = j + 1;
                while end < steps.len() && steps[end].is_none() && follows(end) {
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
                    wires.extend_from_slice(&table[k * width + *first..k * width + *first + len]);
                }
            }
        }
        Wiring {
            segments: segments.into_iter().map(|(seg, _)| seg).collect(),
        }
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

    /// Calls `f(position, wire)` for the wires of iteration `k`.
    #[inline]
    pub fn for_each(&self, k: u64, mut f: impl FnMut(usize, Wire)) {
        let mut at = 0;
        for seg in &self.segments {
            let len = seg.len() as usize;
            match seg.row(k) {
                Ok(base) => (0..len).for_each(|j| f(at + j, (base + j) as Wire)),
                Err(row) => row.iter().enumerate().for_each(|(j, &w)| f(at + j, w)),
            }
            at += len;
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
        for k in 0..count {
            self.for_each(k, |_, w| f(w));
        }
    }
}
