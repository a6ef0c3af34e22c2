//! Value ranges, and the tape on which a kept loop's template records how
//! the ranges it computes follow from the ranges it read.
//!
//! Lowering narrows a value to the bits its range needs, so ranges decide
//! widths. A template is lowered for every value with the bits it read
//! (their ranges relaxed to what the bits allow), which keeps it valid for
//! every iteration whose values have those bits; but the ranges it computes
//! are then those of the relaxed inputs, wider than the iteration's own. A
//! loop whose values grow by one each iteration (a DP row: `cur[j] =
//! min(cur[j - 1] + 1, ...)`) would then gain a bit per iteration. So while
//! a template is lowered, every range computed from what it read is
//! recorded as an operation on a tape; evaluating the tape on an
//! iteration's own input ranges gives that iteration's ranges, as exact as
//! unrolled lowering finds them, and its values are narrowed to them.
//!
//! Every operation is monotone: tighter inputs give a tighter (or equal)
//! result, and a result is sound for any inputs within the given ranges.

use std::cell::RefCell;

/// Inclusive bounds of the value a word stands for.
///
/// Every operation reads a word as its low bits with positive weights and,
/// when its top bits are copies of one bit from bit `k-1` up (`k` less than
/// the width), that bit with weight `-2^(k-1)`: a sign extension. The value
/// is congruent to the bit pattern modulo `2^width`.
#[derive(Clone, Copy, Debug)]
pub struct Range {
    /// The least value.
    pub lo: i128,
    /// The greatest value.
    pub hi: i128,
    /// How the range follows from a template's inputs, while one is lowered.
    sym: Sym,
}

impl PartialEq for Range {
    fn eq(&self, other: &Range) -> bool {
        (self.lo, self.hi) == (other.lo, other.hi)
    }
}

impl Eq for Range {}

/// An entry of a tape: (tape, index), or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sym {
    tape: u32,
    index: u32,
}

const NO_SYM: Sym = Sym {
    tape: 0,
    index: u32::MAX,
};

/// An operand of a recorded operation.
#[derive(Clone, Copy, Debug)]
enum Arg {
    /// An earlier entry of the tape.
    Entry(u32),
    /// A range that does not depend on the inputs.
    Fixed(i128, i128),
}

/// A recorded operation.
#[derive(Clone, Copy, Debug)]
enum Op {
    Input(u32),
    Add(Arg, Arg),
    Sub(Arg, Arg),
    Mul(Arg, Arg),
    Hull(Arg, Arg),
    Meet(Arg, Arg),
    Greater(Arg, Arg),
    Lesser(Arg, Arg),
    MeetModulo(Arg, Arg, u32),
}

/// The ranges a template computed, as operations on the ranges it read.
#[derive(Debug, Default)]
pub struct Tape {
    id: u32,
    ops: Vec<Op>,
    inputs: u32,
}

thread_local! {
    /// The tapes being recorded, innermost last, and the last id given.
    static TAPES: RefCell<(Vec<Tape>, u32)> = const { RefCell::new((Vec::new(), 0)) };
}

impl Range {
    /// The range `lo..=hi`, fixed.
    pub const fn new(lo: i128, hi: i128) -> Range {
        Range {
            lo,
            hi,
            sym: NO_SYM,
        }
    }

    /// A range the tape at `level` (0 the outermost) reads: its next
    /// input. Fixed when there is no such tape.
    pub fn input(level: usize, lo: i128, hi: i128) -> Range {
        let sym = TAPES.with(|t| {
            let mut t = t.borrow_mut();
            match t.0.get_mut(level) {
                Some(tape) => {
                    let k = tape.inputs;
                    tape.inputs += 1;
                    tape.push(Op::Input(k))
                }
                None => NO_SYM,
            }
        });
        Range { lo, hi, sym }
    }

    /// The smallest range holding both.
    pub fn hull(self, o: Range) -> Range {
        let r = Range::new(self.lo.min(o.lo), self.hi.max(o.hi));
        r.recorded(Op::Hull, self, o)
    }

    /// The values in both (for two ranges known to hold the same value).
    pub fn meet(self, o: Range) -> Range {
        let r = Range::new(self.lo.max(o.lo), self.hi.min(o.hi));
        r.recorded(Op::Meet, self, o)
    }

    /// The values of `self` congruent modulo `2^n` to a value of `o` (the
    /// least range holding them): what a word of `n` bits is known to hold
    /// from two ranges that may read its bits in different windows (one
    /// signed, say `-128..=2^30`, the other unsigned, `0..=2^32-1`, where
    /// their plain [`Range::meet`] would lose the negative values). Equal
    /// to the plain meet when both lie in one window of `2^n` values.
    pub fn meet_modulo(self, o: Range, n: u32) -> Range {
        let r = meet_modulo(self, o, n);
        r.recorded(move |a, b| Op::MeetModulo(a, b, n), self, o)
    }

    /// The values the greater of a value of `self` and one of `o` takes.
    pub fn greater(self, o: Range) -> Range {
        let r = Range::new(self.lo.max(o.lo), self.hi.max(o.hi));
        r.recorded(Op::Greater, self, o)
    }

    /// The values the lesser of a value of `self` and one of `o` takes.
    pub fn lesser(self, o: Range) -> Range {
        let r = Range::new(self.lo.min(o.lo), self.hi.min(o.hi));
        r.recorded(Op::Lesser, self, o)
    }

    /// Whether `self` holds every value of `o`.
    pub fn contains(&self, o: &Range) -> bool {
        self.lo <= o.lo && o.hi <= self.hi
    }

    /// `self`, recorded on the innermost tape as `op(a, b)` if `a` or `b`
    /// is an entry of it.
    fn recorded(mut self, op: impl FnOnce(Arg, Arg) -> Op, a: Range, b: Range) -> Range {
        if a.sym == NO_SYM && b.sym == NO_SYM {
            return self;
        }
        self.sym = TAPES.with(|t| {
            let mut t = t.borrow_mut();
            let Some(tape) = t.0.last_mut() else {
                return NO_SYM;
            };
            match (tape.arg(a), tape.arg(b)) {
                (Arg::Fixed(..), Arg::Fixed(..)) => NO_SYM,
                (x, y) => tape.push(op(x, y)),
            }
        });
        self
    }
}

/// [`Range::meet_modulo`]'s bounds: from the lowest copy of `b` shifted by
/// a multiple of `2^n` that meets `a` to the highest (the plain meet, empty,
/// if none does; `a` itself where the shifts would overflow).
fn meet_modulo(a: Range, b: Range, n: u32) -> Range {
    if b.lo <= a.lo && a.hi <= b.hi {
        // (The common case: every copy of `b` that meets `a` holds it.)
        return Range::new(a.lo, a.hi);
    }
    let plain = Range::new(a.lo.max(b.lo), a.hi.min(b.hi));
    if n >= 120 {
        return plain;
    }
    let m = 1i128 << n;
    // Shifts k with b + k·m meeting a: b.lo + k·m <= a.hi, b.hi + k·m >= a.lo.
    let (Some(from), Some(to)) = (a.lo.checked_sub(b.hi), a.hi.checked_sub(b.lo)) else {
        return a;
    };
    // (Floor division by `m = 2^n` is an arithmetic shift.)
    let (k_lo, k_hi) = (-((-from) >> n), to >> n);
    if k_hi < k_lo {
        return plain;
    }
    let shifted = |v: i128, k: i128| k.checked_mul(m).and_then(|s| v.checked_add(s));
    match (shifted(b.lo, k_lo), shifted(b.hi, k_hi)) {
        (Some(lo), Some(hi)) => Range::new(a.lo.max(lo), a.hi.min(hi)),
        _ => a,
    }
}

/// `a + b` for any `a`, `b` in the ranges (saturating).
impl std::ops::Add for Range {
    type Output = Range;

    fn add(self, o: Range) -> Range {
        let r = Range::new(self.lo.saturating_add(o.lo), self.hi.saturating_add(o.hi));
        r.recorded(Op::Add, self, o)
    }
}

/// `a - b` for any `a`, `b` in the ranges (saturating).
impl std::ops::Sub for Range {
    type Output = Range;

    fn sub(self, o: Range) -> Range {
        let r = Range::new(self.lo.saturating_sub(o.hi), self.hi.saturating_sub(o.lo));
        r.recorded(Op::Sub, self, o)
    }
}

/// `a · b` for any `a`, `b` in the ranges (a range too large to bound
/// becomes `i128::MIN / 4 ..= i128::MAX / 4`).
impl std::ops::Mul for Range {
    type Output = Range;

    fn mul(self, o: Range) -> Range {
        let corners = [
            self.lo.checked_mul(o.lo),
            self.lo.checked_mul(o.hi),
            self.hi.checked_mul(o.lo),
            self.hi.checked_mul(o.hi),
        ];
        let r = match corners {
            [Some(a), Some(b), Some(c), Some(d)] => {
                Range::new(a.min(b).min(c).min(d), a.max(b).max(c).max(d))
            }
            _ => Range::new(i128::MIN / 4, i128::MAX / 4),
        };
        r.recorded(Op::Mul, self, o)
    }
}

impl Tape {
    /// Starts recording a tape (nested in those being recorded).
    pub fn begin() {
        TAPES.with(|t| {
            let mut t = t.borrow_mut();
            t.1 += 1;
            let id = t.1;
            t.0.push(Tape {
                id,
                ..Tape::default()
            });
        });
    }

    /// Stops recording the innermost tape and returns it.
    pub fn end() -> Tape {
        TAPES.with(|t| t.borrow_mut().0.pop().expect("a tape was begun"))
    }

    /// Drops every tape being recorded (left by a lowering that failed).
    pub fn reset() {
        TAPES.with(|t| t.borrow_mut().0.clear());
    }

    /// The bytes this tape holds.
    pub fn bytes(&self) -> u64 {
        (self.ops.capacity() * std::mem::size_of::<Op>()) as u64
    }

    /// The bytes the tapes being recorded hold.
    pub fn held_bytes() -> u64 {
        TAPES.with(|t| t.borrow().0.iter().map(Tape::bytes).sum())
    }

    fn push(&mut self, op: Op) -> Sym {
        self.ops.push(op);
        Sym {
            tape: self.id,
            index: self.ops.len() as u32 - 1,
        }
    }

    /// `r` as an operand: an entry of this tape, or fixed (a range of
    /// another tape is fixed here: it holds for every iteration).
    fn arg(&self, r: Range) -> Arg {
        if r.sym.tape == self.id && r.sym != NO_SYM {
            Arg::Entry(r.sym.index)
        } else {
            Arg::Fixed(r.lo, r.hi)
        }
    }

    /// The ranges read, in order.
    pub fn inputs(&self) -> usize {
        self.inputs as usize
    }

    /// Every entry of the tape for `inputs` (one range per input, in
    /// order). The operations run as ranges do, so they are recorded on the
    /// tape now innermost, if any.
    pub fn eval(&self, inputs: &[Range]) -> Vec<Range> {
        let mut out = Vec::with_capacity(self.ops.len());
        self.eval_into(inputs, &mut out);
        out
    }

    /// [`Tape::eval`] into `out` (cleared first), reusing its space.
    pub fn eval_into(&self, inputs: &[Range], out: &mut Vec<Range>) {
        out.clear();
        for op in &self.ops {
            let get = |a: Arg| match a {
                Arg::Entry(i) => out[i as usize],
                Arg::Fixed(lo, hi) => Range::new(lo, hi),
            };
            let r = match *op {
                Op::Input(k) => inputs[k as usize],
                Op::Add(a, b) => get(a) + get(b),
                Op::Sub(a, b) => get(a) - get(b),
                Op::Mul(a, b) => get(a) * get(b),
                Op::Hull(a, b) => get(a).hull(get(b)),
                Op::Meet(a, b) => get(a).meet(get(b)),
                Op::Greater(a, b) => get(a).greater(get(b)),
                Op::Lesser(a, b) => get(a).lesser(get(b)),
                Op::MeetModulo(a, b, n) => get(a).meet_modulo(get(b), n),
            };
            out.push(r);
        }
    }

    /// [`Tape::eval_into`], unless `out` already holds the tape evaluated
    /// on `inputs` (`evaluated_on` says on what, if on anything): inputs
    /// recorded on no tape make the evaluation record nothing either, so
    /// its result is all it does. Updates `evaluated_on`.
    pub fn eval_into_unless_same(
        &self,
        inputs: &[Range],
        out: &mut Vec<Range>,
        evaluated_on: &mut Option<Vec<Range>>,
    ) {
        let plain = inputs.iter().all(|r| r.sym == NO_SYM);
        if plain && evaluated_on.as_deref() == Some(inputs) {
            return;
        }
        self.eval_into(inputs, out);
        *evaluated_on = plain.then(|| inputs.to_vec());
    }

    /// What `r` (computed while this tape was recorded) is for the entries
    /// `evaluated`: the evaluated entry if `r` is one, else `r` itself.
    pub fn resolve(&self, r: Range, evaluated: &[Range]) -> Range {
        if r.sym.tape == self.id && r.sym != NO_SYM {
            evaluated[r.sym.index as usize]
        } else {
            r
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tape_replays_the_ranges_for_other_inputs() {
        Tape::begin();
        let x = Range::input(0, 0, 255);
        let y = Range::input(0, 0, 255);
        let sum = (x + Range::new(1, 1)).hull(y).meet(Range::new(0, 1000));
        let product = x * y - sum;
        let tape = Tape::end();
        assert_eq!((sum.lo, sum.hi), (0, 256));
        let got = tape.eval(&[Range::new(3, 5), Range::new(10, 10)]);
        assert_eq!(tape.resolve(sum, &got), Range::new(4, 10));
        assert_eq!(tape.resolve(product, &got), Range::new(30 - 10, 50 - 4));
        // Fixed ranges are themselves.
        assert_eq!(tape.resolve(Range::new(7, 9), &got), Range::new(7, 9));
        assert_eq!(tape.inputs(), 2);
    }

    #[test]
    fn an_inner_tape_replayed_inside_an_outer_one_records_on_it() {
        Tape::begin();
        let outer = Range::input(0, 0, 10);
        Tape::begin();
        let inner_in = Range::input(1, 0, 100);
        let inner_out = inner_in + Range::new(1, 1);
        let inner = Tape::end();
        let got = inner.eval(&[outer]);
        let carried = inner.resolve(inner_out, &got);
        let tape = Tape::end();
        assert_eq!(carried, Range::new(1, 11));
        let again = tape.eval(&[Range::new(5, 6)]);
        assert_eq!(tape.resolve(carried, &again), Range::new(6, 7));
    }

    /// The meet modulo `2^n` keeps what each window says of the other:
    /// the plain meet within one window, the negative values of a signed
    /// range met with an unsigned reading of the same bits, and it replays
    /// from a tape.
    #[test]
    fn a_meet_modulo_a_power_of_two_keeps_both_windows() {
        let n32 = (1i128 << 32) - 1;
        let unsigned = Range::new(0, n32);
        assert_eq!(
            Range::new(3, 9).meet_modulo(Range::new(5, 20), 8),
            Range::new(5, 9)
        );
        assert_eq!(
            Range::new(-128, 1 << 30).meet_modulo(unsigned, 32),
            Range::new(-128, 1 << 30)
        );
        assert_eq!(
            Range::new(-2, 1).meet_modulo(Range::new(0, 1 << 30), 32),
            Range::new(0, 1)
        );
        assert_eq!(
            Range::new(-5, -1).meet_modulo(Range::new(n32 - 4, n32), 32),
            Range::new(-5, -1)
        );
        // Each value of the result is congruent to one of the other range:
        // checked against brute force on small widths.
        for (a, b) in [
            ((-9, 3), (0, 7)),
            ((-4, 20), (14, 15)),
            ((2, 2), (-30, -20)),
        ] {
            let (a, b) = (Range::new(a.0, a.1), Range::new(b.0, b.1));
            let got = a.meet_modulo(b, 4);
            let held: Vec<i128> = (a.lo..=a.hi)
                .filter(|v| (b.lo..=b.hi).any(|u| (v - u).rem_euclid(16) == 0))
                .collect();
            match (held.first(), held.last()) {
                (Some(&lo), Some(&hi)) => assert_eq!(got, Range::new(lo, hi), "{a:?} {b:?}"),
                _ => assert!(got.lo > got.hi, "{a:?} {b:?}: {got:?}"),
            }
        }
        Tape::begin();
        let x = Range::input(0, -128, 127);
        let met = x.meet_modulo(unsigned, 32);
        let tape = Tape::end();
        let got = tape.eval(&[Range::new(-3, 5)]);
        assert_eq!(tape.resolve(met, &got), Range::new(-3, 5));
    }

    #[test]
    fn ranges_outside_any_tape_are_fixed() {
        let r = Range::input(0, 1, 2) + Range::new(3, 4);
        assert_eq!(r, Range::new(4, 6));
        assert_eq!(r.sym, NO_SYM);
    }
}
