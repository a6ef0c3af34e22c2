//! The circuits of the three parties' conversions: joining two sharings
//! into garbled values (the hybrid mode's `pre`; A→Y and shared inputs of
//! mixed programs) and masking garbled values into fresh shares (`post`;
//! Y→A, bit injection and outputs of mixed programs). Both work lane by
//! lane.

use twofold_circuit::circuit::{InputValue, OutputValue};
use twofold_circuit::{Circuit, Gate, Party, Wire};

use crate::error::ProtocolError;
use crate::options::ShareKind;

/// A value joined from CP1's bits and CP3's (the combination of CP2's
/// and CP3's shares): XOR, or sums per lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct JoinPart {
    /// How the two combine.
    pub kind: ShareKind,
    /// Bits per lane (additive sharing).
    pub lane: u32,
    /// Its bits.
    pub width: u32,
    /// What the join gives of it.
    pub out: Joined,
}

impl JoinPart {
    /// The value itself, joined from `width` bits in lanes of `lane`.
    pub fn value(kind: ShareKind, lane: u32, width: u32) -> JoinPart {
        JoinPart {
            kind,
            lane,
            width,
            out: Joined::Value,
        }
    }

    /// Output bits of the part.
    pub fn out_width(&self) -> u32 {
        match self.out {
            Joined::Value => self.width,
            Joined::Wraps { signed, sum } => 1 + signed as u32 + if sum { self.width } else { 0 },
        }
    }
}

/// What a join gives of a part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Joined {
    /// Its bits.
    Value,
    /// Of one additive lane `x = a + b mod 2^lane`: the carry `c` of
    /// `a + b` and, if `signed`, the sum's top bit `s` (the wrap count is
    /// `c`, or `c + s`). Widening the lane then needs no garbled value:
    /// `a + b − 2^lane·(c + s)` is `x` extended by zeros (by its sign).
    /// With `sum`, the lane's bits follow (XOR gates only): a product of
    /// two widened lanes multiplies the wrap bits of each by the other.
    Wraps {
        /// Whether the lane extends by its sign.
        signed: bool,
        /// Whether the sum's bits follow the wrap bits.
        sum: bool,
    },
}

/// A garbled bit to mask: a wire's label or a public constant.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Src<L> {
    /// A wire.
    Wire(L),
    /// A public constant.
    Const(bool),
}

impl<L: Copy> Src<L> {
    /// The wire's label, if it is one.
    pub fn wire(&self) -> Option<L> {
        match *self {
            Src::Wire(l) => Some(l),
            Src::Const(_) => None,
        }
    }
}

/// A garbled value to turn into fresh shares of `kind`, lane by lane.
#[derive(Clone, Debug)]
pub(crate) struct MaskPart<L> {
    /// How the shares combine.
    pub kind: ShareKind,
    /// Bits per lane.
    pub lane: u32,
    /// Its bits, least significant first.
    pub bits: Vec<Src<L>>,
}

impl<L: Copy> MaskPart<L> {
    /// A word of `width` bits from `wires` (fewer: zero-extended), to
    /// additive shares modulo 2^width (Y→A, bit injection).
    pub fn word(width: u32, wires: Vec<L>) -> MaskPart<L> {
        let mut bits: Vec<Src<L>> = wires.into_iter().map(Src::Wire).collect();
        bits.resize(width as usize, Src::Const(false));
        MaskPart {
            kind: ShareKind::Add,
            lane: width,
            bits,
        }
    }
}

/// Gates emitted straight into a circuit: conversions run on every
/// value of a batch, and these adders are too plain for the general
/// builder's analysis to pay (it took most of a batch's time).
struct Emit {
    circuit: Circuit,
}

/// A bit while emitting: a wire or a public constant (folded away).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bit {
    Wire(Wire),
    Const(bool),
}

impl Emit {
    fn new() -> Emit {
        Emit {
            circuit: Circuit::default(),
        }
    }

    /// An input value of `width` bits (inputs come first, in order).
    fn input(&mut self, name: String, party: Party, width: u32) -> Vec<Bit> {
        let first = self.circuit.num_wires;
        self.circuit.inputs.push(InputValue { name, party, width });
        self.circuit.num_wires += width;
        (first..first + width).map(Bit::Wire).collect()
    }

    fn fresh(&mut self) -> Wire {
        self.circuit.num_wires += 1;
        self.circuit.num_wires - 1
    }

    fn xor(&mut self, a: Bit, b: Bit) -> Bit {
        match (a, b) {
            (Bit::Const(x), Bit::Const(y)) => Bit::Const(x ^ y),
            (Bit::Const(false), w) | (w, Bit::Const(false)) => w,
            (Bit::Const(true), w) | (w, Bit::Const(true)) => self.not(w),
            (Bit::Wire(a), Bit::Wire(b)) => {
                let out = self.fresh();
                self.circuit.gates.push(Gate::Xor { a, b, out });
                Bit::Wire(out)
            }
        }
    }

    fn and(&mut self, a: Bit, b: Bit) -> Bit {
        match (a, b) {
            (Bit::Const(x), Bit::Const(y)) => Bit::Const(x & y),
            (Bit::Const(false), _) | (_, Bit::Const(false)) => Bit::Const(false),
            (Bit::Const(true), w) | (w, Bit::Const(true)) => w,
            (Bit::Wire(a), Bit::Wire(b)) => {
                let out = self.fresh();
                self.circuit.gates.push(Gate::And { a, b, out });
                Bit::Wire(out)
            }
        }
    }

    fn not(&mut self, a: Bit) -> Bit {
        match a {
            Bit::Const(x) => Bit::Const(!x),
            Bit::Wire(a) => {
                let out = self.fresh();
                self.circuit.gates.push(Gate::Inv { a, out });
                Bit::Wire(out)
            }
        }
    }

    /// `x + y + carry` modulo 2^width (`x − y` with `subtract`: `x + !y +
    /// 1`), one AND gate a bit but the last: the next carry is
    /// `c ⊕ ((x ⊕ c) ∧ (y ⊕ c))`.
    fn add(&mut self, x: &[Bit], y: &[Bit], subtract: bool) -> Vec<Bit> {
        self.add_carrying(x, y, subtract, false).0
    }

    /// [`Emit::add`], with the carry out of the top bit if `carry_out`
    /// (one AND gate more).
    fn add_carrying(
        &mut self,
        x: &[Bit],
        y: &[Bit],
        subtract: bool,
        carry_out: bool,
    ) -> (Vec<Bit>, Option<Bit>) {
        let mut carry = Bit::Const(subtract);
        let last = x.len().saturating_sub(1);
        let mut out = Vec::with_capacity(x.len());
        for (i, (&p, &q)) in x.iter().zip(y).enumerate() {
            let q = if subtract { self.not(q) } else { q };
            let pq = self.xor(p, q);
            out.push(self.xor(pq, carry));
            if i < last || carry_out {
                let (pc, qc) = (self.xor(p, carry), self.xor(q, carry));
                let both = self.and(pc, qc);
                carry = self.xor(carry, both);
            }
        }
        (out, carry_out.then_some(carry))
    }

    /// The part `out` asks for of `x` and `y` joined (see [`Joined`]).
    fn join(&mut self, p: &JoinPart, x: &[Bit], y: &[Bit]) -> Vec<Bit> {
        match p.out {
            Joined::Value => self.combine(p.kind, p.lane, x, y, false),
            Joined::Wraps {
                signed,
                sum: with_sum,
            } => {
                let (sum, carry) = self.add_carrying(x, y, false, true);
                let mut out = vec![carry.expect("asked for")];
                if signed {
                    out.extend(sum.last());
                }
                if with_sum {
                    out.extend(sum);
                }
                out
            }
        }
    }

    /// `x ⊕ y`, or `x + y` (`x − y` if `subtract`) per lane of `lane` bits.
    fn combine(
        &mut self,
        kind: ShareKind,
        lane: u32,
        x: &[Bit],
        y: &[Bit],
        subtract: bool,
    ) -> Vec<Bit> {
        match kind {
            ShareKind::Xor => x.iter().zip(y).map(|(&p, &q)| self.xor(p, q)).collect(),
            ShareKind::Add => x
                .chunks(lane.max(1) as usize)
                .zip(y.chunks(lane.max(1) as usize))
                .flat_map(|(p, q)| self.add(p, q, subtract))
                .collect(),
        }
    }

    /// An output value; a constant bit gets a wire (`w ⊕ w`, inverted for
    /// 1, from the first input wire).
    fn output(&mut self, name: String, bits: &[Bit]) {
        let wires = bits
            .iter()
            .map(|&b| match b {
                Bit::Wire(w) => w,
                Bit::Const(c) => {
                    let zero = self.xor(Bit::Wire(0), Bit::Wire(0));
                    let bit = if c { self.not(zero) } else { zero };
                    match bit {
                        Bit::Wire(w) => w,
                        Bit::Const(_) => unreachable!("a gate's output is a wire"),
                    }
                }
            })
            .collect();
        self.circuit.outputs.push(OutputValue { name, wires });
    }

    fn finish(self) -> Result<Circuit, ProtocolError> {
        self.circuit
            .validate()
            .map_err(|e| ProtocolError::Internal(format!("a conversion circuit: {e}")))?;
        Ok(self.circuit)
    }
}

/// The joining circuit: for each part, inputs CP1's bits then CP3's;
/// outputs what each part asks for, in order.
pub(crate) fn join_circuit(parts: &[JoinPart]) -> Result<Circuit, ProtocolError> {
    let mut e = Emit::new();
    let inputs: Vec<_> = parts
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let cp1 = e.input(format!("v{k}.cp1"), Party::A, p.width);
            let cp3 = e.input(format!("v{k}.cp3"), Party::B, p.width);
            (cp1, cp3)
        })
        .collect();
    for (k, (p, (cp1, cp3))) in parts.iter().zip(inputs).enumerate() {
        let joined = e.join(p, &cp1, &cp3);
        e.output(format!("v{k}"), &joined);
    }
    e.finish()
}

/// `n` AND gates: inputs `a` and `b` (`n` bits each), outputs `a[k] ∧
/// b[k]`.
pub(crate) fn and_circuit(n: u32) -> Result<Circuit, ProtocolError> {
    let mut e = Emit::new();
    let a = e.input("a".into(), Party::A, n);
    let b = e.input("b".into(), Party::A, n);
    let ands: Vec<Bit> = a.into_iter().zip(b).map(|(p, q)| e.and(p, q)).collect();
    e.output("ands".into(), &ands);
    e.finish()
}

/// The masking circuit: inputs the parts' wires (in order), then CP1's
/// masks of all their bits, then (if `cp3_masks`) CP3's; outputs each
/// part's `x ⊕ m1 ⊕ m3` (or `x − m1 − m3` per lane; without CP3's masks
/// `x ⊕ m1`, `x − m1`).
pub(crate) fn mask_circuit<L: Copy>(
    parts: &[MaskPart<L>],
    cp3_masks: bool,
) -> Result<Circuit, ProtocolError> {
    let mut e = Emit::new();
    let n: usize = parts.iter().map(|p| p.bits.len()).sum();
    let wires = parts
        .iter()
        .flat_map(|p| &p.bits)
        .filter(|s| s.wire().is_some())
        .count();
    let mut inputs = e.input("x".into(), Party::A, wires as u32).into_iter();
    let m1 = e.input("m1".into(), Party::A, n as u32);
    let m3 = cp3_masks.then(|| e.input("m3".into(), Party::B, n as u32));
    let mut at = 0;
    for (k, p) in parts.iter().enumerate() {
        let x: Vec<Bit> = p
            .bits
            .iter()
            .map(|s| match s {
                Src::Wire(_) => inputs.next().expect("counted"),
                Src::Const(c) => Bit::Const(*c),
            })
            .collect();
        let width = x.len();
        let mut masked = e.combine(p.kind, p.lane, &x, &m1[at..at + width], true);
        if let Some(m3) = &m3 {
            masked = e.combine(p.kind, p.lane, &masked, &m3[at..at + width], true);
        }
        at += width;
        e.output(format!("z{k}"), &masked);
    }
    e.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(v: u64, w: usize) -> Vec<bool> {
        (0..w).map(|i| (v >> i) & 1 == 1).collect()
    }

    fn value(b: &[bool]) -> u64 {
        b.iter().rev().fold(0, |acc, &x| acc << 1 | x as u64)
    }

    #[test]
    fn joins_add_per_lane_and_masks_subtract_per_lane() {
        // Two 8-bit lanes: 200 + 100 and 3 + 4; no carry crosses lanes.
        let join = join_circuit(&[JoinPart::value(ShareKind::Add, 8, 16)]).unwrap();
        let out = join
            .eval(&[bits(200 | 3 << 8, 16), bits(100 | 4 << 8, 16)])
            .unwrap();
        assert_eq!(value(&out[0]), (300 % 256) | 7 << 8);

        // 7 − 5 − 1 = 1 modulo 16, a constant top bit included.
        let part = MaskPart {
            kind: ShareKind::Add,
            lane: 4,
            bits: vec![
                Src::Wire(()),
                Src::Wire(()),
                Src::Wire(()),
                Src::Const(false),
            ],
        };
        let mask = mask_circuit(std::slice::from_ref(&part), true).unwrap();
        let out = mask.eval(&[bits(7, 3), bits(5, 4), bits(1, 4)]).unwrap();
        assert_eq!(value(&out[0]), 1);
        // 7 − 5 = 2 with CP1's mask alone.
        let mask = mask_circuit(&[part], false).unwrap();
        let out = mask.eval(&[bits(7, 3), bits(5, 4)]).unwrap();
        assert_eq!(value(&out[0]), 2);
    }
}
