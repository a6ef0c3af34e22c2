//! Hoists (see [`crate::loops::counter::Hoist`]): expressions of the
//! counter and of secrets the body does not write, computed in the
//! enclosing frame ahead of each iteration of a loop whose every iteration
//! is probed. Each has a slot of its own, written before its iteration;
//! a probe reads the slot where the body has the expression, so the
//! template's input there is wired per iteration to the value computed
//! ahead, and a replayed iteration is checked against it like any value it
//! reads. Unrolled, structural hashing shares such values between the
//! iterations (and the loops) that compute the same; computed in the
//! template, each instance would compute its own.

use super::*;
use crate::loops::counter::{CounterPlan, Hoist};
use crate::lower::probe::Write;
use crate::types::Scalar;

/// The rows past which [`Lower::settle_long_sums`] reduces a sum.
const LONG_SUM: usize = 16;

/// A loop's hoists and their slots.
pub(super) struct Hoists {
    exprs: Vec<Hoist>,
    /// The iteration whose values the slots hold.
    computed: Option<u64>,
    /// Per hoist, its object and type, once computed.
    slots: Vec<Option<(usize, Scalar)>>,
    /// The slots by the hoists' places in the syntax tree, for probes.
    by_place: Rc<HashMap<usize, (usize, Scalar)>>,
}

impl Hoists {
    /// The hoists `exprs`, not yet computed.
    pub(super) fn new(exprs: &[Hoist]) -> Hoists {
        Hoists {
            exprs: exprs.to_vec(),
            computed: None,
            slots: vec![None; exprs.len()],
            by_place: Rc::default(),
        }
    }

    /// Whether there are any.
    pub(super) fn any(&self) -> bool {
        !self.exprs.is_empty()
    }

    /// The objects holding them (written between iterations: a template
    /// may not assume what it read there stays).
    pub(super) fn objects(&self) -> Vec<usize> {
        self.slots.iter().flatten().map(|&(obj, _)| obj).collect()
    }

    /// What lowering the loop's iterations needs of them.
    pub(super) fn hoisting(&self) -> Hoisting {
        Hoisting {
            places: self.by_place.clone(),
            in_probe: false,
        }
    }
}

impl Lower<'_> {
    /// Whether no name the hoists of `plan` read, and none its body
    /// writes, holds a pointer: the hoists were found by names (what the
    /// body writes cannot change them), which a write through a pointer
    /// to the same array would belie.
    pub(super) fn hoists_by_name(&self, plan: &CounterPlan) -> bool {
        let mut names = plan.written.clone();
        for h in &plan.hoists {
            crate::loops::idents_of(&h.expr, &mut names);
        }
        names
            .iter()
            .all(|n| self.lookup(n).is_none_or(|(_, ty)| !ty.holds_pointer()))
    }

    /// Whether the hoists `h` read an object that `writes` (an open run's)
    /// write: its iterations' values there are tokens until the run ends
    /// (and a sum it reduced is written back as its bits, so an object the
    /// body only reads may be among them).
    pub(super) fn hoists_read(&self, h: &Hoists, writes: &[Write]) -> bool {
        let mut names = Vec::new();
        for e in &h.exprs {
            crate::loops::idents_of(&e.expr, &mut names);
        }
        (names.iter().filter_map(|n| self.lookup(n)))
            .any(|(obj, _)| writes.iter().any(|w| w.at.obj == obj))
    }

    /// Computes the hoists of iteration `m` of loop `c` into their slots;
    /// `false` if one cannot be computed ahead (an element out of bounds
    /// where the body would not read it, a pointer): the iteration must
    /// then be lowered as written.
    pub(super) fn compute_hoists(&mut self, h: &mut Hoists, c: &Counted, m: u64) -> bool {
        if h.computed == Some(m) {
            return true;
        }
        h.computed = None;
        self.set_induction(c, m);
        let mut made = false;
        for k in 0..h.exprs.len() {
            let Ok(Val::Int(s, w)) = self.eval(&h.exprs[k].expr) else {
                return false;
            };
            // A sum is reduced here, where its adder is shared too.
            let w = w.settled(&mut self.b).unwrap_or(w);
            let obj = match h.slots[k] {
                Some((obj, was)) if was == s => obj,
                Some(_) => return false,
                None => {
                    let Ok(obj) = self.new_object(&s.ctype(), c.loc) else {
                        return false;
                    };
                    h.slots[k] = Some((obj, s));
                    made = true;
                    obj
                }
            };
            // (A fresh object of the loop's own: nothing to journal.)
            self.objs[obj].slots[0] = Slot::Val(w);
        }
        if made {
            let places = h.exprs.iter().zip(&h.slots);
            h.by_place = Rc::new(
                places
                    .filter_map(|(e, slot)| Some((e.id, (*slot)?)))
                    .collect(),
            );
        }
        h.computed = Some(m);
        true
    }

    /// Reduces the sums of many rows the variables `names` hold (those
    /// the body of a loop with hoists writes), before its first iteration.
    /// Kept, that loop's template would read every row of such a sum as
    /// inputs, and every iteration would carry them on: a histogram's
    /// counts, each a sum of one row per value counted so far, made that
    /// quadratic. Reducing them every [`LONG_SUM`] rows costs about the
    /// AND gates reducing them once does.
    pub(super) fn settle_long_sums(&mut self, names: &[String]) {
        for name in names {
            let Some((obj, _)) = self.lookup(name) else {
                continue;
            };
            for k in 0..self.objs[obj].slots.len() {
                let long = |s: &Slot| matches!(s, Slot::Val(w) if w.row_count() > LONG_SUM);
                if !long(&self.objs[obj].slots[k]) {
                    continue;
                }
                // (Read as a read: a probe around the loop observes it.)
                if let Slot::Val(w) = self.slot(obj, k) {
                    if let Some(bits) = w.settled(&mut self.b) {
                        self.write_slot(obj, k, Slot::Val(bits));
                    }
                }
            }
        }
    }

    /// The value of `e`, if it is a hoist of the loop being lowered (see
    /// [`Hoisting`]): in its probe, its slot read; else computed here and
    /// reduced as ahead, so that an iteration lowered as written leaves
    /// values of the forms a probe's do.
    pub(in crate::lower) fn hoisted_value(&mut self, e: &Expr) -> Option<DResult<Val>> {
        let h = self.hoisting.as_ref()?;
        let &(obj, s) = h.places.get(&(e as *const Expr as usize))?;
        if h.in_probe {
            return match self.slot(obj, 0) {
                Slot::Val(w) => Some(Ok(Val::Int(s, w))),
                Slot::Ptr(_) => None,
            };
        }
        let saved = self.hoisting.take();
        let v = self.eval(e);
        self.hoisting = saved;
        Some(v.map(|v| match v {
            Val::Int(s, w) => Val::Int(s, w.settled(&mut self.b).unwrap_or(w)),
            v => v,
        }))
    }
}

/// The hoists of the loop being lowered, by their places in the syntax
/// tree, with their slots and types; and whether an iteration is being
/// probed (else lowered as written).
#[derive(Clone)]
pub(in crate::lower) struct Hoisting {
    pub places: Rc<HashMap<usize, (usize, Scalar)>>,
    pub in_probe: bool,
}
