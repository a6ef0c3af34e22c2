//! The small circuits of the three-party conversions: joining two
//! sharings into garbled values (A→Y and shared inputs) and masking
//! garbled values into fresh shares (Y→A, bit injection, outputs). Both
//! work lane by lane, as the hybrid mode's `pre` and `post` do.

use twofold_circuit::{Bit, Builder, Circuit, Party};

use crate::error::ProtocolError;
use crate::hybrid::wrap::add;
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

/// The joining circuit: for each part, inputs CP1's bits then CP3's;
/// outputs the joined values in order.
pub(crate) fn join_circuit(parts: &[JoinPart]) -> Result<Circuit, ProtocolError> {
    let mut b = Builder::new();
    for (k, p) in parts.iter().enumerate() {
        let cp1 = b.input(format!("v{k}.cp1"), Party::A, p.width);
        let cp3 = b.input(format!("v{k}.cp3"), Party::B, p.width);
        let joined = combine(&mut b, p.kind, p.lane, &cp1, &cp3, false);
        b.output(format!("v{k}"), &joined);
    }
    b.finish().map_err(circuit_error)
}

/// The masking circuit: inputs the parts' wires (in order), then CP1's
/// masks of all their bits, then (if `cp3_masks`) CP3's; outputs each
/// part's `x ⊕ m1 ⊕ m3` (or `x − m1 − m3` per lane; without CP3's masks
/// `x ⊕ m1`, `x − m1`).
pub(crate) fn mask_circuit<L: Copy>(
    parts: &[MaskPart<L>],
    cp3_masks: bool,
) -> Result<Circuit, ProtocolError> {
    let mut b = Builder::new();
    let n: usize = parts.iter().map(|p| p.bits.len()).sum();
    let wires = parts
        .iter()
        .flat_map(|p| &p.bits)
        .filter(|s| s.wire().is_some())
        .count();
    let mut inputs = b.input("x", Party::A, wires as u32).into_iter();
    let m1 = b.input("m1", Party::A, n as u32);
    let m3 = cp3_masks.then(|| b.input("m3", Party::B, n as u32));
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
        let mut masked = combine(&mut b, p.kind, p.lane, &x, &m1[at..at + width], true);
        if let Some(m3) = &m3 {
            masked = combine(&mut b, p.kind, p.lane, &masked, &m3[at..at + width], true);
        }
        at += width;
        b.output(format!("z{k}"), &masked);
    }
    b.finish().map_err(circuit_error)
}

/// `x ⊕ y`, or `x + y` (`x − y` if `subtract`) per lane of `lane` bits.
fn combine(
    b: &mut Builder,
    kind: ShareKind,
    lane: u32,
    x: &[Bit],
    y: &[Bit],
    subtract: bool,
) -> Vec<Bit> {
    match kind {
        ShareKind::Xor => x.iter().zip(y).map(|(&p, &q)| b.xor(p, q)).collect(),
        ShareKind::Add => x
            .chunks(lane as usize)
            .zip(y.chunks(lane as usize))
            .flat_map(|(p, q)| add(b, p, q, Bit::Const(subtract), subtract))
            .collect(),
    }
}

fn circuit_error(e: twofold_circuit::CircuitError) -> ProtocolError {
    ProtocolError::Internal(format!("a conversion circuit: {e}"))
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
        let join = join_circuit(&[JoinPart {
            kind: ShareKind::Add,
            lane: 8,
            width: 16,
        }])
        .unwrap();
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
