//! Simulating an iteration: applying a run's template to it without
//! lowering it, when what it reads has the template's shapes.

use super::super::probe::{padded_form, Observation, Served, MARKER_BASE};
use super::run::{Run, TOKEN_BASE};
use super::*;
use crate::range::Range;
use crate::value::SharedBits;

/// What an iteration writes by the template: each value with its location.
type Writes = Vec<((usize, usize), Slot)>;

impl Lower<'_> {
    /// Applies iteration `m` of the loop to the state by `run`'s template,
    /// if its observations have the template's shapes (and equal inputs of
    /// the template are equal bits): its writes then hold tokens (what they
    /// held before is kept in the run, to undo it). Returns whether it did.
    pub(super) fn simulate(&mut self, run: &mut Run, (c, m): (&Counted, u64)) -> DResult<bool> {
        self.step(c.loc)?;
        let j = run.simulated;
        if !self.fits(run, j) {
            return Ok(false);
        }
        let mut scratch = std::mem::take(&mut run.scratch);
        let applied = self.apply(run, (c, m), &mut scratch);
        run.scratch = scratch;
        Ok(applied)
    }

    /// [`Lower::simulate`] once the iteration fits, with `scratch` space.
    fn apply(&mut self, run: &mut Run, (c, m): (&Counted, u64), scratch: &mut Scratch) -> bool {
        let j = run.simulated;
        if !self.read_inputs(run, j, scratch) {
            return false;
        }
        input_origins(run, j, scratch);
        if run.token(j, run.outputs.len() as u32).is_none() {
            return false;
        }
        let Scratch {
            origin,
            ranges,
            evaluated,
            evaluated_on,
            writes,
            ..
        } = scratch;
        // The loop variable's value, where the iteration stores it.
        let value = c.first + c.step * m as i128;
        for counter in &run.probe.counters {
            let value = match counter.key {
                None => value,
                Some((class, _)) => match run.key(class) {
                    Some(v) => v,
                    None => return false,
                },
            };
            if value < counter.hull.0 || value > counter.hull.1 {
                return false;
            }
            for (k, b) in counter.bits.iter().enumerate() {
                if let Bit::Wire(f) = *b {
                    origin[run.roles.input(f)] = Some(Bit::Const((value >> k) & 1 == 1));
                }
            }
            ranges[counter.range] = Range::new(value, value);
        }
        // (Iterations mostly read the ranges the one before did.)
        (run.probe.tape).eval_into_unless_same(ranges, evaluated, evaluated_on);
        // (The ranges left two iterations ago are no longer compared: their
        // space takes this iteration's.)
        let mut left = run.take_oldest_left();
        let extras = apply_template(run, j, (origin, evaluated), (writes, &mut left));
        for ((obj, leaf), value) in writes.drain(..) {
            run.note_write((obj, leaf), &self.objs[obj].slots[leaf]);
            self.write_slot(obj, leaf, value);
        }
        run.record(j, origin, extras, left);
        run.end = m + 1;
        true
    }

    /// Whether leaf `leaf` of object `obj` exists.
    fn in_bounds(&self, obj: usize, leaf: i64) -> bool {
        obj < self.objs.len() && leaf >= 0 && (leaf as usize) < self.objs[obj].slots.len()
    }

    /// Whether iteration `j` of `run` writes only leaves that exist, none
    /// where a read that may meet it (an alias pair) reads, and no leaf
    /// twice; reads no location it wrote back to what it was (a restore
    /// pair) through another subscript; and reads again where the template
    /// did (its rereads land where what served them does).
    fn fits(&self, run: &Run, j: u64) -> bool {
        let p = &run.probe;
        for &(o, w) in &run.alias_pairs {
            if run.obs_leaf(o, j) == run.write_leaf(w, j) {
                return false;
            }
        }
        for &(o, r) in &run.restore_pairs {
            if run.obs_leaf(o, j) == run.obs_leaf(r, j) {
                return false;
            }
        }
        // (An iteration of its own probe was compared with the template's.)
        if run.explicit.is_none() {
            for (r, reread) in p.rereads.iter().enumerate() {
                let leaf = reread.at.leaf + run.reread_delta[r] * j as i64;
                let served = match reread.by {
                    Served::Observation(o) => run.obs_leaf(o, j),
                    Served::Write(w) => run.write_leaf(w, j),
                };
                if leaf != served {
                    return false;
                }
            }
        }
        if !run.moving_writes.is_empty() {
            let mut leaves: Vec<(usize, i64)> = (run.moving_writes.iter())
                .map(|&w| (p.writes[w].at.obj, run.write_leaf(w, j)))
                .collect();
            leaves.sort_unstable();
            if leaves.windows(2).any(|pair| pair[0] == pair[1]) {
                return false;
            }
        }
        !p.writes
            .iter()
            .enumerate()
            .any(|(k, w)| !self.in_bounds(w.at.obj, run.write_leaf(k, j)))
    }

    /// Reads what iteration `j` of `run` observes into `scratch`, if every
    /// observation has the template's shape and equal inputs of the
    /// template are equal bits: the origin of each input of the template
    /// (where an observation shows it) and the ranges the template's tape
    /// reads. Returns whether it did.
    fn read_inputs(&mut self, run: &Run, j: u64, scratch: &mut Scratch) -> bool {
        let p = &run.probe;
        let Scratch {
            seen,
            origin,
            ranges,
            observed,
            unchanged,
            leaves,
            ..
        } = scratch;
        origin.clear();
        origin.resize(p.inputs.len(), None);
        if j == 0 {
            // The ranges the iteration reads, by the tape's inputs (those
            // of unchanged reads stay from the iteration before).
            ranges.clear();
            ranges.resize(p.tape.inputs(), Range::new(0, 0));
            *unchanged = may_stay_unchanged(run);
            leaves.clear();
            leaves.resize(p.observations.len(), None);
        }
        for (o, obs) in p.observations.iter().enumerate() {
            let leaf = run.obs_leaf(o, j);
            // (A read of what the iteration before read, and no iteration
            // can have changed: as it was then.)
            if leaves[o] == Some(leaf) && unchanged[o] {
                continue;
            }
            if !self.in_bounds(obs.at.obj, leaf) {
                return false;
            }
            // (Read in place, not cloned: most reads are words.)
            self.observe(obs.at.obj, leaf as usize);
            self.reduce_where_bits_were_read(obs, (obs.at.obj, leaf as usize));
            let stored = &self.objs[obs.at.obj].slots[leaf as usize];
            // A value read padded: its marked bits are wired in, its own
            // range is the tape's input.
            let mut marked = None;
            let padded;
            let mut value = stored;
            if let Some(width) = obs.pad {
                let Some((form, bits)) = padded_form(stored, width) else {
                    return false;
                };
                // A public value or bits: its range costs no gate.
                let Slot::Val(w) = stored else {
                    return false;
                };
                let own = w.range(&mut self.b);
                (padded, marked) = (form, Some((bits, own)));
                value = &padded;
            }
            if !value.relaxed_shape_is(p.widening, (&obs.shape, obs.distinct_word), seen) {
                return false;
            }
            let mut k = obs.first_range;
            value.for_each_range(&mut |r| {
                if let Some(slot) = ranges.get_mut(k) {
                    *slot = marked.as_ref().map_or(r, |m| m.1);
                }
                k += 1;
            });
            let inputs = &run.obs_inputs[o];
            let consistent = inputs.is_empty()
                || match (value, &marked) {
                    // A word's bits (the common case), read in place.
                    (Slot::Val(Word::Bits(bits, _)), None) => {
                        note_origins(bits.iter().copied(), inputs, origin)
                    }
                    _ => {
                        observed.clear();
                        value.for_each_bit(&mut |b| {
                            observed.push(match (b, &marked) {
                                (Bit::Wire(w), Some((marks, _))) if w >= MARKER_BASE => {
                                    marks[(w - MARKER_BASE) as usize]
                                }
                                _ => b,
                            })
                        });
                        note_origins(observed.iter().copied(), inputs, origin)
                    }
                };
            if !consistent {
                return false;
            }
            leaves[o] = Some(leaf);
        }
        true
    }

    /// A sum not yet reduced where the template read a word's bits (the
    /// newest element of a triangle, read for the first time) is reduced
    /// in place, as lowering the iteration would when reading it; else the
    /// iteration would not match, and would be lowered again beside the
    /// run of a loop run once more over it. Only outside probes, where the
    /// state and the gates are the program's.
    fn reduce_where_bits_were_read(&mut self, obs: &Observation, (obj, leaf): (usize, usize)) {
        if !self.probes.is_empty() || !matches!(obs.fresh, Slot::Val(Word::Bits(..))) {
            return;
        }
        let stored = &self.objs[obj].slots[leaf];
        let Slot::Val(sum @ Word::Sum(_)) = stored else {
            return;
        };
        // (Not a value of the run's own iterations: its tokens are
        // replaced where values are stored, not in gates.)
        let mut tokens = false;
        stored.for_each_bit(&mut |b| tokens |= matches!(b, Bit::Wire(w) if w >= TOKEN_BASE));
        if tokens {
            return;
        }
        let reduced = sum.reduced_for_readers(&mut self.b);
        if matches!(reduced, Word::Bits(..)) {
            self.objs[obj].slots[leaf] = Slot::Val(reduced);
        }
    }
}

/// Notes `bits`, the bits of an observation whose `k`-th bit is template
/// input `inputs[k]` (or none: [`super::run::NOT_AN_INPUT`]), as the
/// origins of those inputs; whether equal inputs got equal bits.
fn note_origins(
    bits: impl Iterator<Item = Bit>,
    inputs: &[u32],
    origin: &mut [Option<Bit>],
) -> bool {
    let mut consistent = true;
    for (b, &i) in bits.zip(inputs) {
        if let Some(slot) = origin.get_mut(i as usize) {
            consistent &= slot.is_none_or(|s| s == b);
            *slot = Some(b);
        }
    }
    consistent
}

/// Per observation of `run`'s template, whether a location it read stays
/// as it was while the run goes on: a read of a public value (no input of
/// the template) in no object the template writes or that is written
/// between iterations, not padded.
fn may_stay_unchanged(run: &Run) -> Vec<bool> {
    let p = &run.probe;
    (p.observations.iter().zip(&run.obs_inputs))
        .map(|(obs, inputs)| {
            inputs.is_empty()
                && obs.pad.is_none()
                && !p.writes.iter().any(|w| w.at.obj == obs.at.obj)
                && !run.volatile.contains(&obs.at.obj)
        })
        .collect()
}

/// Space an iteration's simulation reuses from the last one's.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    /// Per observation, whether it may be skipped where it reads the leaf
    /// it read in the iteration before (see [`may_stay_unchanged`]).
    unchanged: Vec<bool>,
    /// Per observation, the leaf it read in the iteration before.
    leaves: Vec<Option<i64>>,
    /// Wires seen, comparing shapes.
    seen: crate::value::WireNames,
    /// The origin of each input of the template, where known.
    origin: Vec<Option<Bit>>,
    /// The ranges the iteration reads (the tape's inputs).
    ranges: Vec<Range>,
    /// The tape evaluated on them.
    evaluated: Vec<Range>,
    /// What `evaluated` was evaluated on, where that is all it depends on.
    evaluated_on: Option<Vec<Range>>,
    /// The bits of an observation that is not a plain word.
    observed: Vec<Bit>,
    /// What the iteration writes.
    writes: Writes,
}

/// Completes the origins of the inputs of `run`'s template in iteration
/// `j` (what the iteration read) by the derived inputs (bits of other
/// inputs, shifted by the iteration's amount); an input of unknown origin
/// is 0.
fn input_origins(run: &Run, j: u64, scratch: &mut Scratch) {
    let origin = &mut scratch.origin;
    for (d, der) in run.probe.derived.iter().enumerate() {
        let amount = run.amount(d, j);
        for (bit, &f) in der.fresh.iter().enumerate() {
            origin[run.roles.input(f)] = Some(match der.bit(bit, amount) {
                Bit::Wire(s) => origin[run.roles.input(s)].unwrap_or(Bit::Const(false)),
                c => c,
            });
        }
    }
    for o in origin.iter_mut().filter(|o| o.is_none()) {
        *o = Some(Bit::Const(false));
    }
}

/// The template's writes (into `writes`) and extras (returned) for
/// iteration `j` of `run`: its inputs replaced by their origins in the
/// iteration (all known), its outputs by the iteration's tokens, and every
/// value narrowed to the iteration's own ranges (`evaluated`: the tape on
/// the ranges it read); the ranges of all of them in order into `left`.
fn apply_template(
    run: &Run,
    j: u64,
    (origin, evaluated): (&[Option<Bit>], &[Range]),
    (writes, left): (&mut Writes, &mut Vec<Range>),
) -> Vec<Slot> {
    let p = &run.probe;
    writes.clear();
    left.clear();
    // (Values of padded objects keep the padded width; a word of tokens
    // is narrowed knowing its bits are distinct wires.)
    let mut own = |v: &Slot, keep: usize, tokens: bool| {
        let resolve = |r| p.tape.resolve(r, evaluated);
        let v = match v {
            Slot::Val(Word::Bits(bits, r)) if tokens => narrowed_distinct(bits, resolve(*r)),
            _ => None,
        }
        .unwrap_or_else(|| v.with_ranges(&mut |r| resolve(r)).narrowed(keep));
        v.for_each_range(&mut |r| left.push(r));
        v
    };
    // (Output `q`'s token is the first one's plus `q`.)
    let first_token = run.token(j, 0).expect("tokens checked above");
    let mut resolve = |b: Bit| Run::decode_role(b, origin, first_token);
    let (coded_writes, coded_extras) = run.coded.split_at(p.writes.len());
    for (w, (write, coded)) in p.writes.iter().zip(coded_writes).enumerate() {
        let leaf = run.write_leaf(w, j) as usize;
        let keep = p.widths.get(&write.at.obj).copied().unwrap_or(0);
        let value = match Run::decode_output_word(coded, first_token) {
            Some(tokens) => own(&tokens, keep, true),
            None => own(&coded.map_bits(&mut resolve), keep, false),
        };
        writes.push(((write.at.obj, leaf), value));
    }
    coded_extras
        .iter()
        .map(|e| own(&e.map_bits(&mut resolve), 0, false))
        .collect()
}

/// A word of distinct wires `bits` in range `r`, narrowed as
/// [`Word::narrowed`] does, without reading its bits: its values are all
/// of its width's (see `gates::value_range`). `None` where its range
/// narrows its bits (then [`Word::narrowed`] must).
fn narrowed_distinct(bits: &SharedBits, r: Range) -> Option<Slot> {
    let n = bits.len();
    let all = gates::distinct_wires_range(n).filter(|_| n > 0 && !gates::narrows(n, r))?;
    Some(Slot::Val(Word::Bits(
        bits.clone(),
        r.meet_modulo(all, n as u32),
    )))
}
