//! Where the inputs of a run's template come from, iteration after
//! iteration: a track per input (fixed, carried, affine, a table), or a
//! group per word of consecutive wires.

use super::super::*;
use super::run::TOKEN_BASE;
use twofold_circuit::Wire;

/// Where a value one iteration reads comes from, iteration after
/// iteration.
#[derive(Clone, Debug)]
pub(super) enum Track {
    Empty,
    /// The same in every iteration.
    Fixed(Bit),
    /// Output `q` of the previous iteration (from `init` in the first).
    Carried {
        init: Bit,
        q: u32,
    },
    /// Wires moving by a fixed step.
    Affine {
        start: Wire,
        step: i64,
    },
    /// Anything else, iteration by iteration.
    Table(Vec<Bit>),
    /// Bit `k` of a word of consecutive wires, iteration by iteration (see
    /// [`Group`]).
    Grouped {
        group: u32,
        k: u32,
    },
}

/// Consecutive inputs of a template that one observation reads as a word,
/// where that word was consecutive wires in every iteration so far (as a
/// word an earlier block wrote is): their origins held as the first wire
/// an iteration, not bit by bit.
#[derive(Clone, Debug)]
pub(super) struct Group {
    /// The first of the inputs.
    first_input: usize,
    /// How many.
    pub(super) len: usize,
    /// The first wire of the word, iteration by iteration (empty for a
    /// group not formed, or broken up again).
    pub(super) firsts: Vec<Wire>,
}

impl Group {
    /// Bit `k`'s origin in iteration `j`.
    pub(super) fn at(&self, j: u64, k: u32) -> Bit {
        Bit::Wire(self.firsts[j as usize] + k)
    }

    /// Records iteration `j`'s origins of this group's inputs (`origin`:
    /// of all inputs), after `tracks` recorded those of the rest: a formed
    /// group keeps the first wire, or breaks up into tables if the word is
    /// not consecutive wires; from the third iteration on, inputs whose
    /// tables hold consecutive wires in every row so far form the group
    /// (number `g`). Returns whether the group formed or broke up.
    pub(super) fn record(
        &mut self,
        g: usize,
        j: u64,
        origin: &[Option<Bit>],
        tracks: &mut [Track],
    ) -> bool {
        let inputs = self.first_input..self.first_input + self.len;
        let row = &origin[inputs.clone()];
        if !self.firsts.is_empty() {
            match first_of_consecutive_origins(row) {
                Some(first) => self.firsts.push(first),
                None => {
                    // Held bit by bit from here on.
                    for (k, t) in tracks[inputs].iter_mut().enumerate() {
                        let mut v: Vec<Bit> = (0..j).map(|jj| self.at(jj, k as u32)).collect();
                        v.push(row[k].expect("every input's origin is known"));
                        *t = Track::Table(v);
                    }
                    self.len = 0;
                    self.firsts = Vec::new();
                    return true;
                }
            }
            return false;
        }
        if j < 2 || self.len == 0 || !matches!(tracks[self.first_input], Track::Table(_)) {
            return false;
        }
        let tables: Option<Vec<&Vec<Bit>>> = (tracks[inputs.clone()].iter())
            .map(|t| match t {
                Track::Table(v) => Some(v),
                _ => None,
            })
            .collect();
        let Some(tables) = tables else {
            return false;
        };
        let mut firsts = Vec::with_capacity(tables[0].len());
        for jj in 0..tables[0].len() {
            let row: Vec<Option<Bit>> = tables.iter().map(|v| Some(v[jj])).collect();
            match first_of_consecutive_origins(&row) {
                Some(first) => firsts.push(first),
                None => {
                    // Not a word of wires: never tried again.
                    self.len = 0;
                    return false;
                }
            }
        }
        for (k, t) in tracks[inputs].iter_mut().enumerate() {
            *t = Track::Grouped {
                group: g as u32,
                k: k as u32,
            };
        }
        self.firsts = firsts;
        true
    }
}

/// The inputs whose `tracks` are not grouped.
pub(super) fn loose_inputs(tracks: &[Track]) -> Vec<usize> {
    (0..tracks.len())
        .filter(|&i| !matches!(tracks[i], Track::Grouped { .. }))
        .collect()
}

/// The first wire of `row` (origins) if they are consecutive wires.
fn first_of_consecutive_origins(row: &[Option<Bit>]) -> Option<Wire> {
    let Some(Some(Bit::Wire(first))) = row.first().copied() else {
        return None;
    };
    first.checked_add(row.len() as Wire)?;
    // The differences or'ed together, without stopping at the first (a
    // loop without branches: this runs for every word every iteration).
    let off = (row.iter().zip(first..)).fold(0, |off, (&o, w)| {
        off | match o {
            Some(Bit::Wire(x)) => x ^ w,
            _ => 1,
        }
    });
    (off == 0).then_some(first)
}

/// The groups a run's inputs may form: per observation whose bits are
/// two or more consecutive inputs read nowhere else (`obs_inputs`, of a
/// template of `inputs` inputs).
pub(super) fn word_groups(obs_inputs: &[Vec<u32>], inputs: usize) -> Vec<Group> {
    let mut reads = vec![0u32; inputs];
    for &i in obs_inputs.iter().flatten() {
        if let Some(n) = reads.get_mut(i as usize) {
            *n += 1;
        }
    }
    let group = |ins: &Vec<u32>| {
        let first = *ins.first()?;
        let consecutive = (ins.iter().zip(first..)).all(|(&i, want)| i == want);
        let alone = ins.iter().all(|&i| reads.get(i as usize) == Some(&1));
        (ins.len() >= 2 && consecutive && alone).then(|| Group {
            first_input: first as usize,
            len: ins.len(),
            firsts: Vec::new(),
        })
    };
    obs_inputs.iter().filter_map(group).collect()
}

impl Track {
    /// The value's origin in iteration `j` of the run (`own(j, q)` names
    /// output `q` of iteration `j`).
    pub(super) fn at(&self, j: u64, own: &impl Fn(u64, u32) -> Bit, groups: &[Group]) -> Bit {
        match self {
            Track::Empty => Bit::Const(false),
            Track::Fixed(o) => *o,
            Track::Carried { init, q } => {
                if j == 0 {
                    *init
                } else {
                    own(j - 1, *q)
                }
            }
            Track::Affine { start, step } => Bit::Wire((*start as i64 + j as i64 * step) as Wire),
            Track::Table(v) => v[j as usize],
            Track::Grouped { group, k } => groups[*group as usize].at(j, *k),
        }
    }

    /// Adds iteration `j`'s origin `o`; `own_q` says which output of which
    /// iteration of this run a bit is, if it is one.
    #[inline]
    pub(super) fn push(
        &mut self,
        j: u64,
        o: Bit,
        own: &impl Fn(u64, u32) -> Bit,
        own_q: impl Fn(Bit) -> Option<(u64, u32)>,
    ) {
        let keeps = match self {
            Track::Empty => {
                *self = Track::Fixed(o);
                return;
            }
            Track::Fixed(o0) if *o0 == o => true,
            Track::Fixed(o0) if j == 1 => {
                let o0 = *o0;
                if let Some((0, q)) = own_q(o) {
                    *self = Track::Carried { init: o0, q };
                    return;
                }
                if let (Bit::Wire(a), Bit::Wire(b)) = (o0, o) {
                    if a < TOKEN_BASE && b < TOKEN_BASE {
                        *self = Track::Affine {
                            start: a,
                            step: b as i64 - a as i64,
                        };
                        return;
                    }
                }
                false
            }
            Track::Carried { .. } | Track::Affine { .. } => self.at(j, own, &[]) == o,
            Track::Fixed(_) => false,
            Track::Table(v) => {
                v.push(o);
                return;
            }
            Track::Grouped { .. } => unreachable!("grouped inputs are recorded by their group"),
        };
        if !keeps {
            let mut v: Vec<Bit> = (0..j).map(|i| self.at(i, own, &[])).collect();
            v.push(o);
            *self = Track::Table(v);
        }
    }

    /// Whether the origin is the same or the previous iteration's, so that
    /// every later iteration continues the pattern.
    pub(super) fn is_steady(&self) -> bool {
        matches!(self, Track::Empty | Track::Fixed(_) | Track::Carried { .. })
    }
}
