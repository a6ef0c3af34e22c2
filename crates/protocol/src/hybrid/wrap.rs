//! The circuits around a program in the hybrid mode. Before it, `pre`
//! joins each input value from CP1's share and the combination of CP2's and
//! CP3's (XOR, or for additive shares addition per lane: one adder modulo
//! 2^lane for each lane of the value, see `shares`); after it, `post` masks
//! each output value with one random value of CP1 and one of CP3, which
//! become their output shares: CP2 learns only the masked value, its own
//! share (additive: one subtractor pair per lane).

use twofold_circuit::{Circuit, Program};

use super::circuits::{join_circuit, mask_circuit, JoinPart, MaskPart, Src};

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
        // `pre`: each value's CP1 bits, then its CP3 bits.
        let joins: Vec<JoinPart> = main
            .inputs
            .iter()
            .zip(input_kinds.iter().zip(input_lanes))
            .map(|(v, (&kind, &lane))| JoinPart::value(kind, lane, v.width))
            .collect();
        let mut pre_sources = Vec::new();
        for p in &joins {
            pre_sources.extend(std::iter::repeat_n(Source::Cp1, p.width as usize));
            pre_sources.extend(std::iter::repeat_n(Source::Cp3, p.width as usize));
        }
        // `post`: every output bit, then CP1's masks of them all, then CP3's.
        let masks: Vec<MaskPart<()>> = main
            .outputs
            .iter()
            .zip(output_lanes)
            .map(|(v, &lane)| MaskPart {
                kind: output_kind,
                lane,
                bits: vec![Src::Wire(()); v.wires.len()],
            })
            .collect();
        let bits: usize = main.outputs.iter().map(|v| v.wires.len()).sum();
        let post_sources = [Source::Program, Source::Cp1, Source::Cp3]
            .into_iter()
            .flat_map(|s| std::iter::repeat_n(s, bits))
            .collect();
        Ok(Wrap {
            pre: join_circuit(&joins)?,
            pre_sources,
            post: mask_circuit(&masks, true)?,
            post_sources,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use twofold_circuit::{Builder, InputValue, Party};

    fn bits(v: u64, width: usize) -> Vec<bool> {
        (0..width).map(|i| (v >> i) & 1 == 1).collect()
    }

    /// A program with one 8-bit input per kind and one 8-bit output.
    fn identity() -> Program {
        let mut b = Builder::new();
        let x = b.input("x", Party::A, 8);
        let y = b.input("y", Party::B, 8);
        let z: Vec<_> = x.iter().zip(&y).map(|(&p, &q)| b.xor(p, q)).collect();
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
