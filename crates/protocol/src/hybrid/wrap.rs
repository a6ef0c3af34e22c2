//! The circuits around a program in the hybrid mode. Before it, `pre`
//! joins each input value from CP1's share and the combination of CP2's and
//! CP3's (XOR, or addition modulo 2^width for additive shares); after it,
//! `post` masks each output value with one random value of CP1 and one of
//! CP3, which become their output shares: CP2 learns only the masked value,
//! its own share.

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
    /// and outputs as `output_kind`.
    pub fn of(
        program: &Program,
        input_kinds: &[ShareKind],
        output_kind: ShareKind,
    ) -> Result<Wrap, ProtocolError> {
        let main = &program.main;
        let mut b = Builder::new();
        let mut pre_sources = Vec::new();
        for (v, &kind) in main.inputs.iter().zip(input_kinds) {
            let mine = b.input(format!("{}.cp1", v.name), Party::A, v.width);
            let chosen = b.input(format!("{}.chosen", v.name), Party::B, v.width);
            pre_sources.extend(std::iter::repeat_n(Source::Cp1, v.width as usize));
            pre_sources.extend(std::iter::repeat_n(Source::Cp3, v.width as usize));
            let joined = match kind {
                ShareKind::Xor => xor(&mut b, &mine, &chosen),
                ShareKind::Add => add(&mut b, &mine, &chosen, Bit::Const(false), false),
            };
            b.output(v.name.clone(), &joined);
        }
        let pre = b.finish().map_err(wrap_error)?;

        let mut b = Builder::new();
        let mut post_sources = Vec::new();
        for v in &main.outputs {
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
                    let once = add(&mut b, &out, &cp1, Bit::Const(true), true);
                    add(&mut b, &once, &cp3, Bit::Const(true), true)
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
            let wrap = Wrap::of(&program, &kinds, out_kind).unwrap();
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
}
