//! The circuits around a program in the hybrid mode. Before it, `pre`
//! joins each input value from CP1's share and the combination of CP2's and
//! CP3's (XOR, or for additive shares addition per lane: one adder modulo
//! 2^lane for each lane of the value, see `shares`); after it, `post` masks
//! each output value with one random value of CP1 and one of CP3, which
//! become their output shares: CP2 learns only the masked value, its own
//! share (additive: one subtractor pair per lane).

use twofold_circuit::{Bit, Builder, Circuit, Party, Program};

use crate::error::ProtocolError;
use crate::options::ShareKind;

/// Where each input wire of a wrapping circuit gets its label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// CP1's own bits (`pre`: its share; `post`: its mask).
    Cp1,
    /// Chosen by CP3 (`pre`: CP2's and CP3's shares combined; `post`: CP3's mask).
    Cp3,
    /// The program's output (`post` only).
    Program,
}

/// The circuits before and after a program.
pub(crate) struct Wrap {
    /// Input values from shares.
    pub pre: Circuit,
    /// Where each input wire of `pre` gets its label.
    pub pre_sources: Vec<Source>,
    /// Output shares from output values.
    pub post: Circuit,
    /// Where each input wire of `post` gets its label.
    pub post_sources: Vec<Source>,
}

impl Wrap {
    /// The wrapping circuits of `program` with inputs shared as `input_kinds`
    /// in lanes of `input_lanes` bits, and outputs as `output_kind` in lanes
    /// of `output_lanes` bits (one lane width per value; checked by the
    /// caller to divide its width).
    pub fn of(
        program: &Program,
        input_kinds: &[ShareKind],
        input_lanes: &[u32],
        output_kind: ShareKind,
        output_lanes: &[u32],
    ) -> Result<Wrap, ProtocolError> {
        let main = &program.main;
        let mut b = Builder::new();
        let mut pre_sources = Vec::new();
        for ((v, &kind), &lane) in main.inputs.iter().zip(input_kinds).zip(input_lanes) {
            let mine = b.input(format!("{}.cp1", v.name), Party::A, v.width);
            let chosen = b.input(format!("{}.chosen", v.name), Party::B, v.width);
            pre_sources.extend(std::iter::repeat_n(Source::Cp1, v.width as usize));
            pre_sources.extend(std::iter::repeat_n(Source::Cp3, v.width as usize));
            let joined = match kind {
                ShareKind::Xor => xor(&mut b, &mine, &chosen),
                ShareKind::Add => per_lane(lane, &mine, &chosen, |x, y| {
                    add(&mut b, x, y, Bit::Const(false), false)
                }),
            };
            b.output(v.name.clone(), &joined);
        }
        let pre = b.finish().map_err(wrap_error)?;

        let mut b = Builder::new();
        let mut post_sources = Vec::new();
        for (v, &lane) in main.outputs.iter().zip(output_lanes) {
            let width = v.wires.len() as u32;
            let out = b.input(v.name.clone(), Party::A, width);
            let cp1 = b.input(format!("{}.cp1", v.name), Party::A, width);
            let cp3 = b.input(format!("{}.cp3", v.name), Party::B, width);
            post_sources.extend(std::iter::repeat_n(Source::Program, width as usize));
            post_sources.extend(std::iter::repeat_n(Source::Cp1, width as usize));
            post_sources.extend(std::iter::repeat_n(Source::Cp3, width as usize));
            let masked = match output_kind {
                ShareKind::Xor => {
                    let once = xor(&mut b, &out, &cp1);
                    xor(&mut b, &once, &cp3)
                }
                ShareKind::Add => {
                    let mut sub = |x: &[Bit], y: &[Bit]| add(&mut b, x, y, Bit::Const(true), true);
                    let once = per_lane(lane, &out, &cp1, &mut sub);
                    per_lane(lane, &once, &cp3, &mut sub)
                }
            };
            b.output(v.name.clone(), &masked);
        }
        let post = b.finish().map_err(wrap_error)?;
        Ok(Wrap {
            pre,
            pre_sources,
            post,
            post_sources,
        })
    }
}

fn wrap_error(e: twofold_circuit::CircuitError) -> ProtocolError {
    ProtocolError::Inputs(format!("the shares' circuits: {e}"))
}

/// `op` on each lane of `lane` bits of `x` and `y` (at least 1 bit a lane):
/// the lanes' results side by side, no wire crossing from one lane into
/// the next.
fn per_lane(
    lane: u32,
    x: &[Bit],
    y: &[Bit],
    mut op: impl FnMut(&[Bit], &[Bit]) -> Vec<Bit>,
) -> Vec<Bit> {
    let lane = lane.max(1) as usize;
    x.chunks(lane)
        .zip(y.chunks(lane))
        .flat_map(|(p, q)| op(p, q))
        .collect()
}

fn xor(b: &mut Builder, x: &[Bit], y: &[Bit]) -> Vec<Bit> {
    x.iter().zip(y).map(|(&p, &q)| b.xor(p, q)).collect()
}

/// `x + y + carry` modulo 2^width (`x + !y + 1` = `x - y` with `invert` and
/// a carry of 1), one AND gate a bit: the next carry is
/// `c ^ ((x ^ c) & (y ^ c))`.
pub(crate) fn add(b: &mut Builder, x: &[Bit], y: &[Bit], mut carry: Bit, invert: bool) -> Vec<Bit> {
    let last = x.len().saturating_sub(1);
    x.iter()
        .zip(y)
        .enumerate()
        .map(|(i, (&p, &q))| {
            let q = if invert { b.not(q) } else { q };
            let sum = {
                let pq = b.xor(p, q);
                b.xor(pq, carry)
            };
            if i < last {
                let pc = b.xor(p, carry);
                let qc = b.xor(q, carry);
                let both = b.and(pc, qc);
                carry = b.xor(carry, both);
            }
            sum
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use twofold_circuit::{Builder, InputValue};

    fn bits(v: u64, width: usize) -> Vec<bool> {
        (0..width).map(|i| (v >> i) & 1 == 1).collect()
    }

    /// A program with one 8-bit input per kind and one 8-bit output.
    fn identity() -> Program {
        let mut b = Builder::new();
        let x = b.input("x", Party::A, 8);
        let y = b.input("y", Party::B, 8);
        let z = xor(&mut b, &x, &y);
        b.output("z", &z);
        Program::from(b.finish().unwrap())
    }

    #[test]
    fn pre_joins_shares_and_post_masks_outputs() {
        let program = identity();
        assert_eq!(
            program.main.inputs[0],
            InputValue {
                name: "x".into(),
                party: Party::A,
                width: 8
            }
        );
        let kinds = [ShareKind::Xor, ShareKind::Add];
        for out_kind in ShareKind::ALL {
            let wrap = Wrap::of(&program, &kinds, &[8, 8], out_kind, &[8]).unwrap();
            assert_eq!(wrap.pre_sources.len(), 32);
            // x = 0x5a ^ 0x33, y = 200 + 100 (mod 256).
            let joined = wrap
                .pre
                .eval(&[bits(0x5a, 8), bits(0x33, 8), bits(200, 8), bits(100, 8)])
                .unwrap();
            assert_eq!(joined, [bits(0x5a ^ 0x33, 8), bits(44, 8)]);
            let masked = wrap
                .post
                .eval(&[bits(9, 8), bits(250, 8), bits(20, 8)])
                .unwrap();
            let want = match out_kind {
                ShareKind::Xor => 9 ^ 250 ^ 20,
                ShareKind::Add => 251, // 9 - 250 - 20 modulo 256
            };
            assert_eq!(masked, [bits(want, 8)]);
        }
    }

    #[test]
    fn additive_lanes_get_one_adder_each_and_no_carry_crosses() {
        // One 32-bit input and output as four lanes of 8 bits.
        let mut b = Builder::new();
        let x = b.input("x", Party::A, 32);
        b.output("z", &x);
        let program = Program::from(b.finish().unwrap());
        let bytes = |v: [u64; 4]| -> Vec<bool> { v.iter().flat_map(|&x| bits(x, 8)).collect() };
        let (add, lanes) = ([ShareKind::Add], [8]);
        let wrap = Wrap::of(&program, &add, &lanes, ShareKind::Add, &lanes).unwrap();
        // lane - 1 AND gates a lane: 4 * 7 for `pre`, twice that for `post`.
        assert_eq!(wrap.pre.and_count(), 28);
        assert_eq!(wrap.post.and_count(), 56);
        let joined = wrap
            .pre
            .eval(&[bytes([200, 255, 1, 128]), bytes([100, 1, 2, 128])])
            .unwrap();
        assert_eq!(joined, [bytes([44, 0, 3, 0])]);
        let masked = wrap
            .post
            .eval(&[
                bytes([9, 0, 255, 1]),
                bytes([250, 1, 0, 1]),
                bytes([20, 0, 255, 1]),
            ])
            .unwrap();
        assert_eq!(masked, [bytes([251, 255, 0, 255])]);
        // One lane of the whole width: one 32-bit adder.
        let whole = Wrap::of(&program, &add, &[32], ShareKind::Add, &[32]).unwrap();
        assert_eq!(whole.pre.and_count(), 31);
        let joined = whole
            .pre
            .eval(&[bits(0xffff_ffff, 32), bits(2, 32)])
            .unwrap();
        assert_eq!(joined, [bits(1, 32)]);
    }
}
