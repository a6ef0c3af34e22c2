//! Reads a probe serves from within its iteration: a location read again
//! after its observation, or read after the iteration wrote it. The
//! template holds no input for them, only what served them (the
//! observation's input, the written value), so two probes are one template
//! only if the same accesses served them, and an iteration is applied by
//! the template only where each still lands on the location that served
//! it (`x[12]` read after `x[i + 1] = ...` wrote it at `i == 11`, and after
//! `x[i]` was observed at `i == 12`, is neither in other iterations).

use super::{Address, Observation, Write};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// What served a read within the iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::lower) enum Served {
    /// The observation of that number.
    Observation(usize),
    /// The write of that number.
    Write(usize),
}

/// A read served within the iteration: where, and by what.
#[derive(Clone, Debug)]
pub(in crate::lower) struct Reread {
    pub at: Address,
    pub by: Served,
}

/// The locations a probe read again, in order, each with the observation
/// that served it if it was one not written yet; each such pair once (a
/// loop lowered as written inside the probe reads its flags again every
/// iteration: listed each time, a long one's list filled the memory).
#[derive(Default)]
pub(super) struct Read {
    list: Vec<((usize, usize), Option<usize>)>,
    seen: HashSet<((usize, usize), Option<usize>)>,
}

impl Read {
    /// Notes a read of `key` again, served by observation `obs` if it is
    /// one not written yet.
    pub(super) fn note(&mut self, key: (usize, usize), obs: Option<usize>) {
        if self.seen.insert((key, obs)) {
            self.list.push((key, obs));
        }
    }
}

/// The rereads of locations `read`, given the probe's `observations` (by
/// location in `observed`) and `writes`. A location written and written
/// back is served by its observation.
pub(super) fn resolve(
    read: Read,
    observed: &HashMap<(usize, usize), usize>,
    observations: &[Observation],
    writes: &[Write],
) -> Vec<Reread> {
    let written: HashMap<Address, usize> = (writes.iter().enumerate())
        .map(|(w, wr)| (wr.at, w))
        .collect();
    (read.list.into_iter())
        .filter_map(|(key, obs)| {
            let at = Address::of(key);
            let by = match obs {
                Some(o) => Served::Observation(o),
                None => match written.get(&at) {
                    Some(&w) => Served::Write(w),
                    None => Served::Observation(*observed.get(&key)?),
                },
            };
            debug_assert!(match by {
                Served::Observation(o) => observations[o].at == at,
                Served::Write(w) => writes[w].at == at,
            });
            Some(Reread { at, by })
        })
        .collect()
}

/// Whether two probes' rereads are of the same objects, served alike.
pub(super) fn alike(a: &[Reread], b: &[Reread]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.at.obj == y.at.obj && x.by == y.by)
}
