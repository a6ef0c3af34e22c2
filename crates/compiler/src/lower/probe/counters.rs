//! Values a probe reads as fresh inputs that each iteration wires its own
//! value to: the loop variable where the loop stores it, and counter keys
//! that differ between iterations lowered alike.

use super::super::*;
use crate::range::Range;

/// The loop variable's value, read where it is stored, or the value of a
/// key that differs between iterations lowered alike: fresh inputs
/// standing for its bits in each iteration.
#[derive(Clone, Debug)]
pub(in crate::lower) struct Counter {
    /// Its bits, bit 0 first: fresh inputs, or constants where every value
    /// of the loop has them.
    pub bits: Vec<Bit>,
    /// Its range's input on the tape.
    pub range: usize,
    /// The key's class and the values it may take, for a key's value.
    pub key: Option<(u32, (i128, i128))>,
    /// The values its bits hold: an iteration whose value lies outside
    /// them is not one the template serves.
    pub hull: (i128, i128),
}

/// The values of the loop's `hull` that take no more bits than `v` does
/// (for `v = 17`, those in `[-32, 31]`): a counter moved into a local
/// (`at = c ? i : at`) is read as fresh inputs as wide as the iteration's
/// own value, as the constant it stands for is where the loop is unrolled,
/// not as its widest value, and then costs what it does unrolled;
/// iterations whose values need more bits are other runs. (A counter
/// stored into an array element, a DP row's first entry, keeps the
/// hull: bucketed, levenshtein's rows took 0.45% fewer AND gates but 70%
/// longer to compile.)
fn bucket(hull: (i128, i128), v: i128) -> (i128, i128) {
    let magnitude = if v < 0 { !v } else { v };
    let cap = (1i128 << (i128::BITS - magnitude.leading_zeros())) - 1;
    (hull.0.max(-cap - 1), hull.1.min(cap))
}

impl Lower<'_> {
    /// The loop variable's value where the loop stores it (see
    /// [`Stored`]) in the innermost probe: fresh inputs, which each
    /// iteration gives its own value.
    pub(in crate::lower) fn stored_counter(&mut self, loc: Loc) -> Option<Val> {
        let p = self
            .probes
            .iter()
            .position(|st| st.setup.stored.at.contains(&loc))?;
        if p + 1 != self.probes.len() {
            self.probes[p].failed.get_or_insert_with(|| {
                "a nested loop stores the loop variable's value".to_string()
            });
            return None;
        }
        let stored = self.probes[p].setup.stored.clone();
        let (obj, leaf) = self.probes[p].setup.induction;
        let hull = match self.slot(obj, leaf) {
            Slot::Val(Word::Const { v, .. }) if stored.moved.contains(&loc) => {
                bucket(stored.hull, stored.scalar.to_i128(v))
            }
            _ => stored.hull,
        };
        if hull.0 == hull.1 {
            return None;
        }
        Some(self.fresh_counter(p, stored.scalar, hull, None))
    }

    /// A value of type `scalar` between `hull`'s ends, given to probe `p`
    /// as fresh inputs that each iteration wires its own value to.
    fn fresh_counter(
        &mut self,
        p: usize,
        scalar: Scalar,
        hull: (i128, i128),
        key: Option<(u32, (i128, i128))>,
    ) -> Val {
        let width = scalar.width as usize;
        let fresh: Bits = (0..width).map(|_| Bit::Wire(self.b.fresh_wire())).collect();
        let bits = gates::narrow(&fresh, Range::new(hull.0, hull.1));
        let range = Range::input(p, hull.0, hull.1);
        let st = &mut self.probes[p];
        for b in &bits {
            if let Bit::Wire(w) = *b {
                if !st.inputs.contains(&w) {
                    st.inputs.push(w);
                }
            }
        }
        st.counters.push(Counter {
            bits: bits.clone(),
            range: st.ranges,
            key,
            hull,
        });
        st.ranges += 1;
        Val::Int(scalar, Word::Bits(Rc::from(bits), range))
    }

    /// The value of `e`, if the probe running reads it as a key that
    /// differs between iterations (see [`crate::lower::keep::Recording`]):
    /// fresh inputs.
    pub(in crate::lower) fn general_key(&mut self, e: &Expr) -> Option<DResult<Val>> {
        let (class, hull) = self.recording.as_ref()?.general_of(e)?;
        let p = self.probes.len().checked_sub(1)?;
        let recording = self.recording.take();
        let v = self.eval(e);
        self.recording = recording;
        Some(match v {
            Ok(Val::Int(s, Word::Const { v, w })) => {
                let value = s.to_i128(v);
                // Any value of its type, or the values given.
                let lowest = s.to_i128(if s.signed { 1 << (s.width - 1) } else { 0 });
                let highest = s.to_i128(s.mask() >> u32::from(s.signed));
                let hull = (hull.0.max(lowest), hull.1.min(highest));
                if value < hull.0 || value > hull.1 {
                    // Not a value the key takes as fresh inputs: a constant.
                    return Some(Ok(Val::Int(s, Word::Const { v, w })));
                }
                Ok(self.fresh_counter(p, s, hull, Some((class, hull))))
            }
            // A secret after all (a loop-invariant secret beside the
            // counter, `i + s`): iterations are not told apart by it, so
            // the loop is lowered iteration by iteration.
            Ok(v) => {
                self.probes[p].failed.get_or_insert_with(|| {
                    "a value computed from the loop variable is also secret".to_string()
                });
                Ok(v)
            }
            Err(e) => Err(e),
        })
    }
}
