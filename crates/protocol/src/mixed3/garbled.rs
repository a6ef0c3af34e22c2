//! The garbled sharing of the three-party mixed executor, one trait over
//! the three roles: CP1 garbles (0-labels), CP2 evaluates (active labels),
//! CP3 holds no label but chooses CP2's labels of its own bits (the
//! hybrid mode's oblivious choice, `hybrid::choice`), so one executor
//! drives all three.

use twofold_circuit::mixed::eval::word_bits;
use twofold_circuit::mixed::mask;
use twofold_circuit::{Circuit, Program};
use twofold_crypto::halfgates::{ActiveLabel, ZeroLabel};
use twofold_crypto::{Delta, GarblingScheme, Prg, Tccr};
use twofold_net::Channel;

use super::inject;
use crate::arith::packed::{recv, send, BitWriter};
use crate::error::ProtocolError;
use crate::hybrid::choice;
use crate::hybrid::held::{self, Holding};
use crate::hybrid::meet::Links;
use crate::messages::{Bits, Labels};
use crate::options::{Progress, Role};
use crate::schedule::{run_flat, run_program_from, Plan, Side};
use crate::session::{EvaluatorSide, GarblerSide};

/// One role's side of the garbled sharing. Every AND gate takes the next
/// id of one counter (the hash tweak), the same on CP1 and CP2.
pub(crate) trait Garbled {
    /// What a wire holds on this side (`()` for CP3).
    type Label: Copy;
    /// Labels of bits CP1 knows: `bits` are CP1's (ignored elsewhere),
    /// `n` of them; CP1 sends CP2 their labels.
    fn cp1_bits(
        &mut self,
        links: &mut Links,
        bits: &[bool],
        n: usize,
    ) -> Result<Vec<Self::Label>, ProtocolError>;
    /// Labels of bits CP3 knows, chosen obliviously: `bits` are CP3's
    /// (ignored elsewhere), `n` of them.
    fn cp3_bits(
        &mut self,
        links: &mut Links,
        bits: &[bool],
        n: usize,
    ) -> Result<Vec<Self::Label>, ProtocolError>;
    /// Runs the flat circuit `build` makes (CP3 builds none) from the
    /// labels of its inputs; it has `outputs` output bits.
    fn circuit(
        &mut self,
        links: &mut Links,
        build: impl FnOnce() -> Result<Circuit, ProtocolError>,
        inputs: &[Self::Label],
        outputs: usize,
    ) -> Result<Vec<Self::Label>, ProtocolError>;
    /// Runs a block-tree program (CGP over CP1's and CP2's links, as
    /// `plan` says) from the labels of its inputs.
    fn program(
        &mut self,
        links: &mut Links,
        program: &Program,
        inputs: &[Self::Label],
        plan: Plan,
    ) -> Result<Vec<Self::Label>, ProtocolError>;
    /// Opens wires to CP2: CP1 sends their decoding bits; CP2 gets the
    /// bits (`None` on CP1 and CP3).
    fn open_to_cp2(
        &mut self,
        links: &mut Links,
        wires: &[Self::Label],
    ) -> Result<Option<Vec<bool>>, ProtocolError>;
    /// Additive shares of garbled bits, each modulo 2^(its `u32`), by
    /// arithmetic ciphertexts (`mixed3::inject`): CP1 draws a mask `s` a
    /// bit and sends CP2 the rows; CP1's share is `−s`, CP2's `b + s`
    /// (decrypted with its label), CP3's 0. CP2 waits for the rows only.
    fn inject(
        &mut self,
        links: &mut Links,
        bits: &[(Self::Label, u32)],
    ) -> Result<Vec<u64>, ProtocolError>;
    /// AND gates garbled or evaluated so far.
    fn and_gates(&self) -> u64;
}

/// The bits of the rows of `n` injected bits, two words of each modulus.
fn rows_bits(moduli: impl Iterator<Item = u32>) -> usize {
    moduli.map(|k| 2 * k as usize).sum()
}

/// One side of the garbling (CP1's or CP2's) and the gate counter,
/// running circuits and programs over the links to `peer`.
struct Gates<D> {
    side: D,
    peer: Role,
    next_gate: u64,
}

impl<D: Side<Link = Channel>> Gates<D> {
    fn circuit(
        &mut self,
        links: &mut Links,
        build: impl FnOnce() -> Result<Circuit, ProtocolError>,
        inputs: &[D::Label],
    ) -> Result<Vec<D::Label>, ProtocolError> {
        let chan = &mut links.to(self.peer)[0];
        let (out, ands) = run_flat(&self.side, &build()?, inputs, chan, self.next_gate)?;
        self.next_gate += ands;
        Ok(out)
    }

    fn program(
        &mut self,
        links: &mut Links,
        program: &Program,
        inputs: &[D::Label],
        plan: Plan,
    ) -> Result<Vec<D::Label>, ProtocolError> {
        let chans = links.to(self.peer);
        let (out, ands) =
            run_program_from(&self.side, program, inputs, chans, plan, self.next_gate)?;
        self.next_gate += ands;
        Ok(out)
    }
}

/// CP1: Δ, its randomness and the gate counter.
pub(crate) struct Garbler<S> {
    gates: Gates<GarblerSide<S>>,
    delta: Delta,
    prg: Prg,
    /// The choice's pads (its seed sent to CP3 at the first choice).
    pads: Option<choice::Pads>,
    /// The hash of the injection's rows, and its next tweak.
    tccr: Tccr,
    injected: u64,
}

impl<S: GarblingScheme> Garbler<S> {
    /// A garbler with a fresh Δ.
    pub fn new(progress: Option<Progress>) -> Result<Self, ProtocolError> {
        let mut prg = Prg::try_from_os()?;
        let delta = Delta::random(&mut prg);
        Ok(Garbler {
            gates: Gates {
                side: GarblerSide::new(delta, progress),
                peer: Role::Cp2,
                next_gate: 0,
            },
            delta,
            prg,
            pads: None,
            tccr: Tccr::new(),
            injected: 0,
        })
    }

    fn zeros(&mut self, n: usize) -> Vec<ZeroLabel> {
        (0..n).map(|_| ZeroLabel::random(&mut self.prg)).collect()
    }
}

impl<S: GarblingScheme> Garbled for Garbler<S> {
    type Label = ZeroLabel;

    fn cp1_bits(
        &mut self,
        links: &mut Links,
        bits: &[bool],
        n: usize,
    ) -> Result<Vec<ZeroLabel>, ProtocolError> {
        debug_assert_eq!(bits.len(), n);
        let zeros = self.zeros(n);
        let encoded: Vec<_> = zeros
            .iter()
            .zip(bits)
            .map(|(z, &b)| z.encode(self.delta, b).block())
            .collect();
        let to_cp2 = &mut links.to(Role::Cp2)[0];
        Labels::send(to_cp2, &encoded)?;
        Ok(zeros)
    }

    fn cp3_bits(
        &mut self,
        links: &mut Links,
        _bits: &[bool],
        n: usize,
    ) -> Result<Vec<ZeroLabel>, ProtocolError> {
        let zeros = self.zeros(n);
        let blocks: Vec<_> = zeros.iter().map(|z| z.block()).collect();
        let pads = match &mut self.pads {
            Some(pads) => pads,
            None => self
                .pads
                .insert(choice::Pads::send(&mut links.to(Role::Cp3)[0])?),
        };
        let pairs = choice::offer(&blocks, self.delta, pads);
        Labels::send(&mut links.to(Role::Cp2)[0], &pairs)?;
        Ok(zeros)
    }

    fn circuit(
        &mut self,
        links: &mut Links,
        build: impl FnOnce() -> Result<Circuit, ProtocolError>,
        inputs: &[ZeroLabel],
        _outputs: usize,
    ) -> Result<Vec<ZeroLabel>, ProtocolError> {
        self.gates.circuit(links, build, inputs)
    }

    fn program(
        &mut self,
        links: &mut Links,
        program: &Program,
        inputs: &[ZeroLabel],
        plan: Plan,
    ) -> Result<Vec<ZeroLabel>, ProtocolError> {
        self.gates.program(links, program, inputs, plan)
    }

    fn open_to_cp2(
        &mut self,
        links: &mut Links,
        wires: &[ZeroLabel],
    ) -> Result<Option<Vec<bool>>, ProtocolError> {
        let to_cp2 = &mut links.to(Role::Cp2)[0];
        Bits::send(to_cp2, wires.iter().map(|l| l.decode_bit()))?;
        Ok(None)
    }

    fn inject(
        &mut self,
        links: &mut Links,
        bits: &[(ZeroLabel, u32)],
    ) -> Result<Vec<u64>, ProtocolError> {
        let mut rows = BitWriter::with_bits(rows_bits(bits.iter().map(|&(_, k)| k)));
        let mut shares = Vec::with_capacity(bits.len());
        for &(zero, k) in bits {
            let s = self.prg.random_block().0 as u64 & mask(k);
            let pair = inject::offer(&self.tccr, zero, self.delta, s, k, self.injected);
            self.injected += 1;
            pair.into_iter().for_each(|row| rows.push(row, k));
            shares.push(0u64.wrapping_sub(s) & mask(k));
        }
        let to_cp2 = &mut links.to(Role::Cp2)[0];
        send(to_cp2, &rows.finish())?;
        to_cp2.flush()?;
        Ok(shares)
    }

    fn and_gates(&self) -> u64 {
        self.gates.next_gate
    }
}

/// CP2: the evaluating side and the gate counter.
pub(crate) struct Evaluator<S> {
    gates: Gates<EvaluatorSide<S>>,
    /// The hash of the injection's rows, and its next tweak.
    tccr: Tccr,
    injected: u64,
}

impl<S: GarblingScheme> Evaluator<S> {
    /// An evaluator.
    pub fn new(progress: Option<Progress>) -> Self {
        Evaluator {
            gates: Gates {
                side: EvaluatorSide::new(progress),
                peer: Role::Cp1,
                next_gate: 0,
            },
            tccr: Tccr::new(),
            injected: 0,
        }
    }
}

impl<S: GarblingScheme> Garbled for Evaluator<S> {
    type Label = ActiveLabel;

    fn cp1_bits(
        &mut self,
        links: &mut Links,
        _bits: &[bool],
        n: usize,
    ) -> Result<Vec<ActiveLabel>, ProtocolError> {
        let from = &mut links.to(Role::Cp1)[0];
        let blocks = Labels::recv(from, n, "CP1's labels")?;
        Ok(blocks.into_iter().map(ActiveLabel::from_block).collect())
    }

    fn cp3_bits(
        &mut self,
        links: &mut Links,
        _bits: &[bool],
        n: usize,
    ) -> Result<Vec<ActiveLabel>, ProtocolError> {
        let pairs = Labels::recv(&mut links.to(Role::Cp1)[0], 2 * n, "CP1's padded pairs")?;
        let from = &mut links.to(Role::Cp3)[0];
        let keys = Labels::recv(from, n, "CP3's pads")?;
        let indices = Bits::recv(from, n, "CP3's indices")?;
        let labels = choice::take(&pairs, &keys, &indices);
        Ok(labels.into_iter().map(ActiveLabel::from_block).collect())
    }

    fn circuit(
        &mut self,
        links: &mut Links,
        build: impl FnOnce() -> Result<Circuit, ProtocolError>,
        inputs: &[ActiveLabel],
        _outputs: usize,
    ) -> Result<Vec<ActiveLabel>, ProtocolError> {
        self.gates.circuit(links, build, inputs)
    }

    fn program(
        &mut self,
        links: &mut Links,
        program: &Program,
        inputs: &[ActiveLabel],
        plan: Plan,
    ) -> Result<Vec<ActiveLabel>, ProtocolError> {
        self.gates.program(links, program, inputs, plan)
    }

    fn open_to_cp2(
        &mut self,
        links: &mut Links,
        wires: &[ActiveLabel],
    ) -> Result<Option<Vec<bool>>, ProtocolError> {
        let from = &mut links.to(Role::Cp1)[0];
        let decode = Bits::recv(from, wires.len(), "decoding bits")?;
        Ok(Some(
            wires.iter().zip(decode).map(|(l, d)| l.decode(d)).collect(),
        ))
    }

    fn inject(
        &mut self,
        links: &mut Links,
        bits: &[(ActiveLabel, u32)],
    ) -> Result<Vec<u64>, ProtocolError> {
        let total = rows_bits(bits.iter().map(|&(_, k)| k));
        let mut rows = recv(&mut links.to(Role::Cp1)[0], total, "CP1's injection rows")?;
        let mut shares = Vec::with_capacity(bits.len());
        for &(label, k) in bits {
            let pair = [rows.take(k), rows.take(k)];
            shares.push(inject::take(&self.tccr, label, pair, k, self.injected));
            self.injected += 1;
        }
        held::hold(|| {
            let words = bits.iter().zip(&shares);
            Holding::Opened(words.flat_map(|(&(_, k), &s)| word_bits(s, k)).collect())
        });
        Ok(shares)
    }

    fn and_gates(&self) -> u64 {
        self.gates.next_gate
    }
}

/// CP3: no label; it only chooses CP2's labels of its own bits.
#[derive(Default)]
pub(crate) struct Chooser {
    /// The choice's pads, from CP1's seed (received at the first choice).
    pads: Option<choice::Pads>,
}

impl Garbled for Chooser {
    type Label = ();

    fn cp1_bits(&mut self, _: &mut Links, _: &[bool], n: usize) -> Result<Vec<()>, ProtocolError> {
        Ok(vec![(); n])
    }

    fn cp3_bits(
        &mut self,
        links: &mut Links,
        bits: &[bool],
        n: usize,
    ) -> Result<Vec<()>, ProtocolError> {
        debug_assert_eq!(bits.len(), n);
        let pads = match &mut self.pads {
            Some(pads) => pads,
            None => self
                .pads
                .insert(choice::Pads::recv(&mut links.to(Role::Cp1)[0])?),
        };
        let (keys, indices) = choice::choose(pads, bits.iter().copied());
        let to_cp2 = &mut links.to(Role::Cp2)[0];
        Labels::send(to_cp2, &keys)?;
        Bits::send(to_cp2, indices.into_iter())?;
        Ok(vec![(); n])
    }

    fn circuit(
        &mut self,
        _: &mut Links,
        _: impl FnOnce() -> Result<Circuit, ProtocolError>,
        _: &[()],
        outputs: usize,
    ) -> Result<Vec<()>, ProtocolError> {
        Ok(vec![(); outputs])
    }

    fn program(
        &mut self,
        _: &mut Links,
        program: &Program,
        _: &[()],
        _: Plan,
    ) -> Result<Vec<()>, ProtocolError> {
        let main = &program.main;
        Ok(vec![(); main.outputs.iter().map(|o| o.wires.len()).sum()])
    }

    fn open_to_cp2(&mut self, _: &mut Links, _: &[()]) -> Result<Option<Vec<bool>>, ProtocolError> {
        Ok(None)
    }

    fn inject(&mut self, _: &mut Links, bits: &[((), u32)]) -> Result<Vec<u64>, ProtocolError> {
        Ok(vec![0; bits.len()])
    }

    fn and_gates(&self) -> u64 {
        0
    }
}
