//! The garbled sharing as the mixed executor sees it: one trait over the
//! garbler's and the evaluator's conversion sides, so that one executor
//! drives both parties.

use twofold_circuit::Program;
use twofold_crypto::halfgates::{ActiveLabel, ZeroLabel};
use twofold_crypto::GarblingScheme;
use twofold_net::Channel;

use crate::arith::{Width, YaoEvaluator, YaoGarbler};
use crate::error::ProtocolError;

/// Labels of A's garbled inputs, then B's.
pub(crate) type InputLabels<L> = (Vec<L>, Vec<L>);

/// One party's side of the garbled sharing (A: 0-labels, B: active labels).
pub(crate) trait YaoSide {
    /// What a wire holds on this side.
    type Label: Copy;
    /// Garbled inputs: this party's `own` bits and `peer` bits of the
    /// other's; returns A's labels, then B's.
    fn inputs(
        &mut self,
        chan: &mut Channel,
        own: &[bool],
        peer: usize,
    ) -> Result<InputLabels<Self::Label>, ProtocolError>;
    /// A→Y of shared words.
    fn to_garbled(
        &mut self,
        chan: &mut Channel,
        width: Width,
        shares: &[u64],
    ) -> Result<Vec<Vec<Self::Label>>, ProtocolError>;
    /// Y→A of garbled words.
    fn to_shares(
        &mut self,
        chan: &mut Channel,
        width: Width,
        values: &[Vec<Self::Label>],
    ) -> Result<Vec<u64>, ProtocolError>;
    /// Y→B: this party's XOR shares of the wires' bits (no message).
    fn xor_shares(wires: &[Self::Label]) -> Vec<bool>;
    /// Runs a Boolean program on garbled inputs.
    fn run_program(
        &mut self,
        chan: &mut Channel,
        program: &Program,
        inputs: &[Self::Label],
    ) -> Result<Vec<Self::Label>, ProtocolError>;
    /// AND gates garbled or evaluated so far.
    fn and_gates(&self) -> u64;
}

impl<S: GarblingScheme> YaoSide for YaoGarbler<S> {
    type Label = ZeroLabel;
    fn inputs(
        &mut self,
        chan: &mut Channel,
        own: &[bool],
        peer: usize,
    ) -> Result<InputLabels<ZeroLabel>, ProtocolError> {
        YaoGarbler::inputs(self, chan, own, peer)
    }
    fn to_garbled(
        &mut self,
        chan: &mut Channel,
        width: Width,
        shares: &[u64],
    ) -> Result<Vec<Vec<ZeroLabel>>, ProtocolError> {
        YaoGarbler::from_shares(self, chan, width, shares)
    }
    fn to_shares(
        &mut self,
        chan: &mut Channel,
        width: Width,
        values: &[Vec<ZeroLabel>],
    ) -> Result<Vec<u64>, ProtocolError> {
        YaoGarbler::to_shares(self, chan, width, values)
    }
    fn xor_shares(wires: &[ZeroLabel]) -> Vec<bool> {
        YaoGarbler::<S>::xor_shares(wires)
    }
    fn run_program(
        &mut self,
        chan: &mut Channel,
        program: &Program,
        inputs: &[ZeroLabel],
    ) -> Result<Vec<ZeroLabel>, ProtocolError> {
        YaoGarbler::run_program(self, chan, program, inputs)
    }
    fn and_gates(&self) -> u64 {
        YaoGarbler::and_gates(self)
    }
}

impl<S: GarblingScheme> YaoSide for YaoEvaluator<S> {
    type Label = ActiveLabel;
    fn inputs(
        &mut self,
        chan: &mut Channel,
        own: &[bool],
        peer: usize,
    ) -> Result<InputLabels<ActiveLabel>, ProtocolError> {
        YaoEvaluator::inputs(self, chan, peer, own)
    }
    fn to_garbled(
        &mut self,
        chan: &mut Channel,
        width: Width,
        shares: &[u64],
    ) -> Result<Vec<Vec<ActiveLabel>>, ProtocolError> {
        YaoEvaluator::from_shares(self, chan, width, shares)
    }
    fn to_shares(
        &mut self,
        chan: &mut Channel,
        width: Width,
        values: &[Vec<ActiveLabel>],
    ) -> Result<Vec<u64>, ProtocolError> {
        YaoEvaluator::to_shares(self, chan, width, values)
    }
    fn xor_shares(wires: &[ActiveLabel]) -> Vec<bool> {
        YaoEvaluator::<S>::xor_shares(wires)
    }
    fn run_program(
        &mut self,
        chan: &mut Channel,
        program: &Program,
        inputs: &[ActiveLabel],
    ) -> Result<Vec<ActiveLabel>, ProtocolError> {
        YaoEvaluator::run_program(self, chan, program, inputs)
    }
    fn and_gates(&self) -> u64 {
        YaoEvaluator::and_gates(self)
    }
}
