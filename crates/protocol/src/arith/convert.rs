//! Conversions between arithmetic shares and garbled values, over the
//! session's garbling engines. Party A garbles ([`YaoGarbler`]), party B
//! evaluates ([`YaoEvaluator`]); a garbled value of `w` bits is the
//! garbler's 0-labels and the evaluator's active labels of its wires,
//! least significant bit first.
//!
//! * A→Y ([`YaoGarbler::from_shares`]): a garbled adder over the two
//!   parties' shares (`w − 1` AND gates a value). The garbler's share
//!   enters as its own labels, the evaluator's through correlated OT with
//!   the garbling Δ — the two-party protocol's input phase.
//! * Y→A ([`YaoGarbler::to_shares`]): the garbler draws a random `r`, the
//!   circuit computes `x − r` (`w − 1` AND gates), the garbler sends its
//!   decoding bits; the evaluator's share is `x − r`, the garbler's `r`.
//! * Y→B ([`YaoGarbler::xor_shares`]): no message — the point-and-permute
//!   bits `lsb(K0)` and `lsb(K)` are XOR shares of a wire's bit (Δ has
//!   lsb 1). With [`Arith::inject_bits`](super::Arith::inject_bits)
//!   (B→A) a garbled bit becomes an arithmetic share at one OT, far
//!   cheaper than a `w`-bit Y→A.
//!
//! Every AND gate of a session's conversions and circuits gets a fresh id
//! (the hash tweak), counted on in the garbler and the evaluator alike.

use std::marker::PhantomData;

use twofold_circuit::{Bit, Builder, Circuit, Party, Program};
use twofold_crypto::halfgates::{ActiveLabel, ZeroLabel};
use twofold_crypto::{Block, Delta, GarblingScheme, Prg};
use twofold_net::Channel;
use twofold_ot::{CotReceiver, CotSender, Extension};

use super::ring::{random_word, Width};
use crate::error::ProtocolError;
use crate::messages::{Bits, Labels};
use crate::options::Schedule;
use crate::schedule::{run_flat, run_program_from, Plan, Side};
use crate::session::{EvaluatorSide, GarblerSide};

/// The garbling party (A) of conversions: Δ (inside its OT sender), its
/// randomness and its gate counter.
pub struct YaoGarbler<S> {
    cot: CotSender,
    prg: Prg,
    gates: Gates<S>,
}

/// The evaluating party (B) of conversions: its OT receiver and its gate
/// counter.
pub struct YaoEvaluator<S> {
    cot: CotReceiver,
    gates: Gates<S>,
}

/// The id of a party's next AND gate under scheme `S`: every circuit run
/// by a conversion side takes the ids after the previous one's, so no hash
/// tweak repeats.
struct Gates<S> {
    next: u64,
    scheme: PhantomData<S>,
}

impl<S: GarblingScheme> Gates<S> {
    fn new() -> Self {
        Gates {
            next: 0,
            scheme: PhantomData,
        }
    }

    /// Runs `circuit` on `side` from the labels of its input wires.
    fn run<D: Side<Link = Channel>>(
        &mut self,
        side: &D,
        chan: &mut Channel,
        circuit: &Circuit,
        inputs: &[D::Label],
    ) -> Result<Vec<D::Label>, ProtocolError> {
        let (out, ands) = run_flat(side, circuit, inputs, chan, self.next)?;
        self.next += ands;
        Ok(out)
    }

    /// Runs the block-tree `program` on `side`, sequentially.
    fn run_program<D: Side<Link = Channel>>(
        &mut self,
        side: &D,
        chan: &mut Channel,
        program: &Program,
        inputs: &[D::Label],
    ) -> Result<Vec<D::Label>, ProtocolError> {
        if inputs.len() != program.main.input_bits() {
            return Err(ProtocolError::Inputs(format!(
                "a program of {} input bits given {} labels",
                program.main.input_bits(),
                inputs.len()
            )));
        }
        let plan = Plan::new(Schedule::Sequential, 1);
        let chans = std::slice::from_mut(chan);
        let (out, ands) = run_program_from(side, program, inputs, chans, plan, self.next)?;
        self.next += ands;
        Ok(out)
    }
}

/// The bits of `w`-bit words, value after value, least significant first.
fn word_bits(width: Width, words: &[u64]) -> Vec<bool> {
    words
        .iter()
        .flat_map(|&x| (0..width.bits()).map(move |i| (x >> i) & 1 == 1))
        .collect()
}

/// The word of `w` bits, least significant first.
fn bits_word(bits: &[bool]) -> u64 {
    bits.iter().rev().fold(0, |acc, &b| acc << 1 | b as u64)
}

/// The adder of A→Y: inputs A's `n` shares then B's, outputs their sums.
fn join_circuit(width: Width, n: usize) -> Result<Circuit, ProtocolError> {
    let w = width.bits();
    let mut b = Builder::new();
    let mine: Vec<Vec<Bit>> = (0..n)
        .map(|k| b.input(format!("a{k}"), Party::A, w))
        .collect();
    let theirs: Vec<Vec<Bit>> = (0..n)
        .map(|k| b.input(format!("b{k}"), Party::B, w))
        .collect();
    for (k, (x, y)) in mine.iter().zip(&theirs).enumerate() {
        let sum = add(&mut b, x, y, Bit::Const(false), false);
        b.output(format!("x{k}"), &sum);
    }
    b.finish().map_err(circuit_error)
}

/// The subtractor of Y→A for garbled `values` (each checked to have `w`
/// wires): inputs the values then A's masks, outputs `value − mask`.
fn mask_circuit<L>(width: Width, values: &[Vec<L>]) -> Result<Circuit, ProtocolError> {
    if let Some(v) = values.iter().find(|v| v.len() != width.bits() as usize) {
        return Err(ProtocolError::Inputs(format!(
            "a garbled value of {} wires in {width}",
            v.len()
        )));
    }
    let (w, n) = (width.bits(), values.len());
    let mut b = Builder::new();
    let values: Vec<Vec<Bit>> = (0..n)
        .map(|k| b.input(format!("x{k}"), Party::A, w))
        .collect();
    let masks: Vec<Vec<Bit>> = (0..n)
        .map(|k| b.input(format!("r{k}"), Party::A, w))
        .collect();
    for (k, (x, r)) in values.iter().zip(&masks).enumerate() {
        let masked = add(&mut b, x, r, Bit::Const(true), true);
        b.output(format!("z{k}"), &masked);
    }
    b.finish().map_err(circuit_error)
}

fn circuit_error(e: twofold_circuit::CircuitError) -> ProtocolError {
    ProtocolError::Internal(format!("a conversion circuit: {e}"))
}

/// Output labels cut into values of `w` wires.
fn values_of<L: Clone>(width: Width, wires: &[L]) -> Vec<Vec<L>> {
    wires
        .chunks(width.bits() as usize)
        .map(<[L]>::to_vec)
        .collect()
}

impl<S: GarblingScheme> YaoGarbler<S> {
    /// Sets up the garbler with a fresh Δ and the OT sender for the
    /// evaluator's shares, with [`Extension::DEFAULT`]; the peer runs
    /// [`YaoEvaluator::setup`] with the same `session_id`.
    pub fn setup(chan: &mut Channel, session_id: &[u8]) -> Result<Self, ProtocolError> {
        YaoGarbler::setup_with(chan, session_id, Extension::DEFAULT)
    }

    /// Like [`setup`](YaoGarbler::setup) with the extension `ext` (the peer
    /// runs [`YaoEvaluator::setup_with`] with the same).
    pub fn setup_with(
        chan: &mut Channel,
        session_id: &[u8],
        ext: Extension,
    ) -> Result<Self, ProtocolError> {
        let mut prg = Prg::try_from_os()?;
        let delta = Delta::random(&mut prg);
        let sid = [session_id, b"/arith/yao"].concat();
        Ok(YaoGarbler {
            cot: CotSender::setup_with(chan, delta, &sid, ext)?,
            prg,
            gates: Gates::new(),
        })
    }

    /// The AND gates garbled so far (the evaluator has evaluated as many).
    pub fn and_gates(&self) -> u64 {
        self.gates.next
    }

    /// A→Y: garbled values of `x = a + b mod 2^w` from this party's shares
    /// `a` and the evaluator's `b` (its [`YaoEvaluator::from_shares`]).
    pub fn from_shares(
        &mut self,
        chan: &mut Channel,
        width: Width,
        shares: &[u64],
    ) -> Result<Vec<Vec<ZeroLabel>>, ProtocolError> {
        let circuit = join_circuit(width, shares.len())?;
        let bits = word_bits(width, shares);
        let (mine, theirs) = self.inputs(chan, &bits, bits.len())?;
        let inputs: Vec<ZeroLabel> = mine.into_iter().chain(theirs).collect();
        Ok(values_of(width, &self.run(chan, &circuit, &inputs)?))
    }

    /// Garbled inputs: the 0-labels of this party's `own` bits (it sends
    /// their active labels) and of `peer` bits of the evaluator's (which
    /// it gets by correlated OT, [`YaoEvaluator::inputs`]). No bits of a
    /// side: no message for it.
    pub fn inputs(
        &mut self,
        chan: &mut Channel,
        own: &[bool],
        peer: usize,
    ) -> Result<(Vec<ZeroLabel>, Vec<ZeroLabel>), ProtocolError> {
        let delta = self.cot.delta();
        let mine: Vec<ZeroLabel> = (0..own.len())
            .map(|_| ZeroLabel::random(&mut self.prg))
            .collect();
        let theirs = match peer {
            0 => Vec::new(),
            _ => self.cot.send(chan, peer)?,
        };
        let encoded: Vec<Block> = mine
            .iter()
            .zip(own)
            .map(|(z, &bit)| z.encode(delta, bit).block())
            .collect();
        if !encoded.is_empty() {
            Labels::send(chan, &encoded)?;
        }
        Ok((
            mine,
            theirs.into_iter().map(ZeroLabel::from_block).collect(),
        ))
    }

    /// Y→A: this party's shares of garbled `values` (random masks `r`; the
    /// evaluator learns `x − r`).
    pub fn to_shares(
        &mut self,
        chan: &mut Channel,
        width: Width,
        values: &[Vec<ZeroLabel>],
    ) -> Result<Vec<u64>, ProtocolError> {
        let circuit = mask_circuit(width, values)?;
        let delta = self.cot.delta();
        let masks: Vec<u64> = (0..values.len())
            .map(|_| random_word(&mut self.prg, width))
            .collect();
        let mask_labels: Vec<ZeroLabel> = (0..values.len() * width.bits() as usize)
            .map(|_| ZeroLabel::random(&mut self.prg))
            .collect();
        let encoded: Vec<Block> = mask_labels
            .iter()
            .zip(word_bits(width, &masks))
            .map(|(z, bit)| z.encode(delta, bit).block())
            .collect();
        Labels::send(chan, &encoded)?;
        let inputs: Vec<ZeroLabel> = values.concat().into_iter().chain(mask_labels).collect();
        let out = self.run(chan, &circuit, &inputs)?;
        self.reveal(chan, &out)?;
        Ok(masks)
    }

    /// Sends the decoding bits of `wires`: the evaluator learns their bits
    /// ([`YaoEvaluator::reveal`]).
    pub fn reveal(&mut self, chan: &mut Channel, wires: &[ZeroLabel]) -> Result<(), ProtocolError> {
        Bits::send(chan, wires.iter().map(|z| z.decode_bit()))
    }

    /// Y→B: this party's XOR shares of the bits of `wires` (no message).
    pub fn xor_shares(wires: &[ZeroLabel]) -> Vec<bool> {
        wires.iter().map(|z| z.decode_bit()).collect()
    }

    /// Garbles `circuit` on the 0-labels of its input wires (in wire
    /// order); returns the 0-labels of its outputs. The evaluator runs
    /// [`YaoEvaluator::run`] on the same circuit.
    pub fn run(
        &mut self,
        chan: &mut Channel,
        circuit: &Circuit,
        inputs: &[ZeroLabel],
    ) -> Result<Vec<ZeroLabel>, ProtocolError> {
        let side = GarblerSide::<S>::new(self.cot.delta(), None);
        self.gates.run(&side, chan, circuit, inputs)
    }

    /// Garbles the block-tree `program` on the 0-labels of its inputs, on
    /// one thread; the evaluator runs [`YaoEvaluator::run_program`].
    pub fn run_program(
        &mut self,
        chan: &mut Channel,
        program: &Program,
        inputs: &[ZeroLabel],
    ) -> Result<Vec<ZeroLabel>, ProtocolError> {
        let side = GarblerSide::<S>::new(self.cot.delta(), None);
        self.gates.run_program(&side, chan, program, inputs)
    }
}

impl<S: GarblingScheme> YaoEvaluator<S> {
    /// Sets up the evaluator's OT receiver with [`Extension::DEFAULT`]; the
    /// peer runs [`YaoGarbler::setup`] with the same `session_id`.
    pub fn setup(chan: &mut Channel, session_id: &[u8]) -> Result<Self, ProtocolError> {
        YaoEvaluator::setup_with(chan, session_id, Extension::DEFAULT)
    }

    /// Like [`setup`](YaoEvaluator::setup) with the extension `ext` (the
    /// peer runs [`YaoGarbler::setup_with`] with the same).
    pub fn setup_with(
        chan: &mut Channel,
        session_id: &[u8],
        ext: Extension,
    ) -> Result<Self, ProtocolError> {
        let sid = [session_id, b"/arith/yao"].concat();
        Ok(YaoEvaluator {
            cot: CotReceiver::setup_with(chan, &sid, ext)?,
            gates: Gates::new(),
        })
    }

    /// The AND gates evaluated so far.
    pub fn and_gates(&self) -> u64 {
        self.gates.next
    }

    /// A→Y: the active labels of `x = a + b mod 2^w` from the garbler's
    /// shares `a` and this party's `b`.
    pub fn from_shares(
        &mut self,
        chan: &mut Channel,
        width: Width,
        shares: &[u64],
    ) -> Result<Vec<Vec<ActiveLabel>>, ProtocolError> {
        let circuit = join_circuit(width, shares.len())?;
        let bits = word_bits(width, shares);
        let (theirs, mine) = self.inputs(chan, bits.len(), &bits)?;
        let inputs: Vec<ActiveLabel> = theirs.into_iter().chain(mine).collect();
        Ok(values_of(width, &self.run(chan, &circuit, &inputs)?))
    }

    /// Garbled inputs: the active labels of `peer` bits of the garbler's
    /// (sent by it) and of this party's `own` bits (by correlated OT);
    /// the peer runs [`YaoGarbler::inputs`]. No bits of a side: no message
    /// for it.
    pub fn inputs(
        &mut self,
        chan: &mut Channel,
        peer: usize,
        own: &[bool],
    ) -> Result<(Vec<ActiveLabel>, Vec<ActiveLabel>), ProtocolError> {
        let mine = match own.len() {
            0 => Vec::new(),
            _ => self.cot.receive(chan, own)?,
        };
        let theirs = match peer {
            0 => Vec::new(),
            _ => Labels::recv(chan, peer, "the garbler's input labels")?,
        };
        let active = |v: Vec<Block>| v.into_iter().map(ActiveLabel::from_block).collect();
        Ok((active(theirs), active(mine)))
    }

    /// Y→A: this party's shares `x − r` of garbled `values`.
    pub fn to_shares(
        &mut self,
        chan: &mut Channel,
        width: Width,
        values: &[Vec<ActiveLabel>],
    ) -> Result<Vec<u64>, ProtocolError> {
        let circuit = mask_circuit(width, values)?;
        let n = values.len() * width.bits() as usize;
        let masks = Labels::recv(chan, n, "the garbler's mask labels")?;
        let inputs: Vec<ActiveLabel> = values
            .concat()
            .into_iter()
            .chain(masks.into_iter().map(ActiveLabel::from_block))
            .collect();
        let out = self.run(chan, &circuit, &inputs)?;
        let bits = self.reveal(chan, &out)?;
        Ok(bits.chunks(width.bits() as usize).map(bits_word).collect())
    }

    /// The bits of `wires`, from the garbler's decoding bits
    /// ([`YaoGarbler::reveal`]).
    pub fn reveal(
        &mut self,
        chan: &mut Channel,
        wires: &[ActiveLabel],
    ) -> Result<Vec<bool>, ProtocolError> {
        let decode = Bits::recv(chan, wires.len(), "decoding bits")?;
        Ok(wires.iter().zip(decode).map(|(l, d)| l.decode(d)).collect())
    }

    /// Y→B: this party's XOR shares of the bits of `wires` (no message).
    pub fn xor_shares(wires: &[ActiveLabel]) -> Vec<bool> {
        wires.iter().map(|l| l.block().lsb()).collect()
    }

    /// Evaluates `circuit` on the active labels of its input wires (in
    /// wire order); returns the active labels of its outputs.
    pub fn run(
        &mut self,
        chan: &mut Channel,
        circuit: &Circuit,
        inputs: &[ActiveLabel],
    ) -> Result<Vec<ActiveLabel>, ProtocolError> {
        self.gates
            .run(&EvaluatorSide::<S>::new(None), chan, circuit, inputs)
    }

    /// Evaluates the block-tree `program` on the active labels of its
    /// inputs, on one thread.
    pub fn run_program(
        &mut self,
        chan: &mut Channel,
        program: &Program,
        inputs: &[ActiveLabel],
    ) -> Result<Vec<ActiveLabel>, ProtocolError> {
        self.gates
            .run_program(&EvaluatorSide::<S>::new(None), chan, program, inputs)
    }
}

/// `x + y + carry` modulo 2^width (`x + !y + 1` = `x - y` with `invert` and
/// a carry of 1), one AND gate a bit but the last: the next carry is
/// `c ^ ((x ^ c) & (y ^ c))`.
fn add(b: &mut Builder, x: &[Bit], y: &[Bit], mut carry: Bit, invert: bool) -> Vec<Bit> {
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
