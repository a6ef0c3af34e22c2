//! An AND run split between threads that garble (or evaluate) its parts at
//! once, each reading its inputs from the shared label array and writing
//! its outputs into it, in place: fine-grained parallelism without copying
//! labels in and out.
//!
//! Sound because the run comes from a batch ([`AndRun`]): no AND of it writes a wire
//! another AND of it reads or writes, so parts that run at once never touch
//! a label another part writes. Each part is handed out once.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use twofold_circuit::batch::AndRun;
use twofold_circuit::Gate;

use crate::error::CryptoError;
use crate::label::{SharedLabels, WireLabel};

/// The gates of part `p` of `k` of a run of `n` gates: consecutive,
/// as even as can be.
pub fn part_range(n: usize, k: usize, p: usize) -> Range<usize> {
    n * p / k..n * (p + 1) / k
}

/// A run of AND gates of a batch over its labels, cut into parts (see
/// [`part_range`]) that threads garble or evaluate at once with
/// [`SchemeGarbler::garble_part`](crate::SchemeGarbler::garble_part) and
/// [`SchemeEvaluator::evaluate_part`](crate::SchemeEvaluator::evaluate_part).
pub struct SplitRun<'a, L: WireLabel> {
    gates: &'a [Gate],
    labels: SharedLabels<'a, L>,
    taken: Vec<AtomicBool>,
}

impl<'a, L: WireLabel> SplitRun<'a, L> {
    /// `run` over `labels`, in `parts` parts.
    pub fn new(run: AndRun<'a>, labels: &'a mut [L], parts: usize) -> Self {
        SplitRun {
            gates: run.gates(),
            labels: SharedLabels::new(labels),
            taken: (0..parts).map(|_| AtomicBool::new(false)).collect(),
        }
    }

    /// Parts of the run.
    pub fn parts(&self) -> usize {
        self.taken.len()
    }

    /// The gates of part `p`.
    pub fn part(&self, p: usize) -> &'a [Gate] {
        &self.gates[part_range(self.gates.len(), self.parts(), p)]
    }

    /// Hands out part `p` (once) with the labels it works on.
    pub(crate) fn take(&self, p: usize) -> Result<(&'a [Gate], &SharedLabels<'a, L>), CryptoError> {
        let taken = self
            .taken
            .get(p)
            .ok_or(CryptoError::BadSplit("no such part"))?;
        if taken.swap(true, Ordering::AcqRel) {
            return Err(CryptoError::BadSplit("a part taken twice"));
        }
        Ok((self.part(p), &self.labels))
    }
}

#[cfg(test)]
mod tests {
    use twofold_circuit::synthetic::wide_level;
    use twofold_circuit::walk::for_each_batch;

    use super::*;
    use crate::{Block, Delta, Prg, SchemeGarbler, ZeroLabel};

    /// Parts garbled on their own threads, in place, give the tables and
    /// labels of one garbling of the whole run; a part is handed out once.
    #[test]
    fn parts_on_threads_garble_like_the_whole_run() {
        let circuit = wide_level(5000, 64, 3);
        let mut prg = Prg::from_seed(Block::from(9u128));
        let delta = Delta::random(&mut prg);
        let inputs: Vec<ZeroLabel> = (0..circuit.num_wires)
            .map(|_| ZeroLabel::random(&mut prg))
            .collect();
        for_each_batch(&circuit.gates, circuit.num_wires, |batch| {
            let (_, run) = batch.and_runs_with_gates().next().expect("an AND run");
            let garbler = crate::Garbler::new(delta, 7);
            let (mut want_labels, mut want) = (inputs.clone(), Vec::new());
            garbler
                .at_gate(7)
                .garble(&run, &mut want_labels, &mut want)?;
            for parts in 1..5 {
                let mut labels = inputs.clone();
                let split = SplitRun::new(run, &mut labels, parts);
                let tables: Vec<Vec<u8>> = std::thread::scope(|s| {
                    let handles: Vec<_> = (0..parts)
                        .map(|p| {
                            let (split, garbler) = (&split, &garbler);
                            s.spawn(move || {
                                let first = part_range(run.len(), parts, p).start as u64;
                                let mut tables = Vec::new();
                                garbler
                                    .at_gate(7 + first)
                                    .garble_part(split, p, &mut tables)
                                    .map(|()| tables)
                            })
                        })
                        .collect();
                    handles
                        .into_iter()
                        .map(|h| h.join().unwrap().unwrap())
                        .collect()
                });
                let taken = garbler.at_gate(7).garble_part(&split, 0, &mut Vec::new());
                assert_eq!(taken, Err(CryptoError::BadSplit("a part taken twice")));
                drop(split);
                assert_eq!(tables.concat(), want, "{parts} parts");
                assert!(labels == want_labels, "{parts} parts");
            }
            Ok::<(), CryptoError>(())
        })
        .unwrap();
    }
}
