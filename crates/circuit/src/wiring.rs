//! Wiring: which wires of the enclosing circuit each iteration of a block
//! reads or writes, stored in a size that follows the program, not the trip
//! count.
//!
//! A [`Wiring`] gives, for every iteration `k` of a block, `width` wires of
//! the enclosing circuit, as a list of [`Segment`]s laid end to end. An
//! affine segment covers `len` consecutive wires whose start moves by a fixed
//! step from one iteration to the next (an array element indexed by the loop
//! variable, a loop-invariant value with step 0); a table segment lists the
//! wires of every iteration explicitly, for patterns that are not affine.

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
            Segment::Affine { len, .. } | Segment::Table { len, .. } => *len,
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
    /// together are merged), the others table segments.
    pub fn compress(count: usize, width: usize, table: &[Wire]) -> Wiring {
        assert_eq!(table.len(), count * width, "count * width wires");
        let column_step = |j: usize| -> Option<i64> {
            if count < 2 {
                return Some(0);
            }
            let step = table[width + j] as i64 - table[j] as i64;
            (2..count)
                .all(|k| table[k * width + j] as i64 == table[j] as i64 + k as i64 * step)
                .then_some(step)
        };
        let mut segments: Vec<Segment> = Vec::new();
        for (j, &start) in table[..width.min(table.len())].iter().enumerate() {
            match column_step(j) {
                Some(step) => {
                    if let Some(Segment::Affine {
                        len,
                        start: s,
                        step: st,
                    }) = segments.last_mut()
                    {
                        if *st == step && s.checked_add(*len) == Some(start) {
                            *len += 1;
                            continue;
                        }
                    }
                    segments.push(Segment::Affine {
                        len: 1,
                        start,
                        step,
                    });
                }
                None => {
                    if let Some(Segment::Table { len, .. }) = segments.last_mut() {
                        *len += 1;
                    } else {
                        segments.push(Segment::Table {
                            len: 1,
                            wires: Vec::new(),
                        });
                    }
                }
            }
        }
        // Fill the table segments column range by column range.
        let mut offset = 0;
        for seg in &mut segments {
            let len = seg.len() as usize;
            if let Segment::Table { wires, .. } = seg {
                wires.reserve(count * len);
                for k in 0..count {
                    wires.extend_from_slice(&table[k * width + offset..k * width + offset + len]);
                }
            }
            offset += len;
        }
        Wiring { segments }
    }

    /// The wiring of iterations `from..from + count` of this one.
    pub fn slice(&self, from: u64, count: u64) -> Wiring {
        let segments = self
            .segments
            .iter()
            .map(|seg| match seg {
                Segment::Affine { len, start, step } => Segment::Affine {
                    len: *len,
                    start: (*start as i64 + from as i64 * step) as Wire,
                    step: *step,
                },
                Segment::Table { len, wires } => {
                    let (a, n) = (
                        from as usize * *len as usize,
                        count as usize * *len as usize,
                    );
                    Segment::Table {
                        len: *len,
                        wires: wires[a..a + n].to_vec(),
                    }
                }
            })
            .collect();
        Wiring { segments }
    }

    /// Calls `f(position, wire)` for the wires of iteration `k`.
    #[inline]
    pub fn for_each(&self, k: u64, mut f: impl FnMut(usize, Wire)) {
        let mut at = 0;
        for seg in &self.segments {
            match seg {
                Segment::Affine { len, start, step } => {
                    let base = (*start as i64 + k as i64 * step) as Wire;
                    for j in 0..*len {
                        f(at + j as usize, base + j);
                    }
                    at += *len as usize;
                }
                Segment::Table { len, wires } => {
                    let len = *len as usize;
                    let row = &wires[k as usize * len..(k as usize + 1) * len];
                    for (j, &w) in row.iter().enumerate() {
                        f(at + j, w);
                    }
                    at += len;
                }
            }
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
            match seg {
                Segment::Affine { len, start, step } => {
                    let base = (*start as i64 + k as i64 * step) as usize;
                    let len = *len as usize;
                    to[at..at + len].copy_from_slice(&from[base..base + len]);
                    at += len;
                }
                Segment::Table { len, wires } => {
                    let len = *len as usize;
                    let row = &wires[k as usize * len..(k as usize + 1) * len];
                    for (slot, &w) in to[at..at + len].iter_mut().zip(row) {
                        *slot = from[w as usize];
                    }
                    at += len;
                }
            }
        }
    }

    /// Copies labels by position from `from` to iteration `k`'s wires in `to`.
    #[inline]
    pub fn scatter<L: Copy>(&self, k: u64, from: &[L], to: &mut [L]) {
        let mut at = 0;
        for seg in &self.segments {
            match seg {
                Segment::Affine { len, start, step } => {
                    let base = (*start as i64 + k as i64 * step) as usize;
                    let len = *len as usize;
                    to[base..base + len].copy_from_slice(&from[at..at + len]);
                    at += len;
                }
                Segment::Table { len, wires } => {
                    let len = *len as usize;
                    let row = &wires[k as usize * len..(k as usize + 1) * len];
                    for (&l, &w) in from[at..at + len].iter().zip(row) {
                        to[w as usize] = l;
                    }
                    at += len;
                }
            }
        }
    }

    /// Checks that every wire of every one of `count` iterations is below
    /// `num_wires` and that table segments hold `count` rows.
    pub fn check(&self, count: u64, num_wires: Wire, what: &str) -> Result<(), CircuitError> {
        let bad = |msg: String| Err(CircuitError::Invalid(format!("{what}: {msg}")));
        if count == 0 {
            return Ok(());
        }
        for seg in &self.segments {
            match seg {
                Segment::Affine { len, start, step } => {
                    // Affine: the extremes are at the first and last iteration.
                    let last = (count - 1) as i128 * *step as i128 + *start as i128;
                    for first in [*start as i128, last] {
                        if first < 0 || first + *len as i128 > num_wires as i128 {
                            return bad(format!(
                                "wires {first}..{} out of range (wires: {num_wires})",
                                first + *len as i128
                            ));
                        }
                    }
                }
                Segment::Table { len, wires } => {
                    let rows = count.checked_mul(*len as u64);
                    if rows != Some(wires.len() as u64) {
                        return bad(format!(
                            "a table of {} wires for {count} iterations of {len}",
                            wires.len()
                        ));
                    }
                    if let Some(&w) = wires.iter().find(|&&w| w >= num_wires) {
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
