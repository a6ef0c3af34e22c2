//! Inputs that widen one whole lane of additive shares: the wrap count's
//! bits injected into the widened word's shares or, for the factors of a
//! fused product (`mixed3::fused`), the product's correction and the
//! replicated pairs of the lane sums.

use twofold_circuit::mixed::mask;
use twofold_circuit::ValueId;

use super::{Exec, Held};
use crate::error::ProtocolError;
use crate::hybrid::circuits::and_circuit;
use crate::hybrid::held::{self, Holding};
use crate::mixed3::arith::pass_apart;
use crate::mixed3::fused::{Fused, Gate};
use crate::mixed3::garbled::Garbled;
use crate::options::Role;

/// One widened input as the join left it.
pub(super) struct Widened<L> {
    /// The program's input.
    pub value: ValueId,
    /// The lane's width.
    pub lane: u32,
    /// Whether it extends by its sign.
    pub signed: bool,
    /// This party's share of the lane.
    pub own: u64,
    /// CP3's sum of CP2's lane share and its own, with the carry (0
    /// elsewhere).
    pub sum: u64,
    /// The join's outputs: its wrap bits, then (a fused factor) its lane
    /// bits.
    pub wraps: Vec<L>,
}

impl<G: Garbled> Exec<'_, G> {
    /// Sets the widened inputs `lanes`; `fused` are the fused products.
    ///
    /// A widened lane's share is this party's share of the lane, less
    /// 2^lane times its share of the wrap count (its bits injected; CP3
    /// also adds the carry of its sum), plus a zero sharing (CP3's share
    /// would otherwise have zeros or ones on top). A fused product's
    /// factors give AND gates whose outputs are injected instead, in the
    /// same rows, and their lane sums' replicated pairs.
    pub(super) fn widen(
        &mut self,
        lanes: Vec<Widened<G::Label>>,
        fused: &[Fused],
    ) -> Result<(), ProtocolError> {
        let (factors, lanes): (Vec<_>, Vec<_>) = lanes
            .into_iter()
            .partition(|l| fused.iter().any(|f| f.has(l.value)));
        let mut injected: Vec<(G::Label, u32)> = Vec::new();
        for l in &lanes {
            let modulus = self.width(l.value) - l.lane;
            injected.extend(l.wraps.iter().map(|&b| (b, modulus)));
        }
        let split = |v: ValueId| {
            let l = factors.iter().find(|l| l.value == v);
            let l = l.expect("a fused factor is a widened lane");
            l.wraps.split_at(1 + l.signed as usize)
        };
        let ands: Vec<Vec<Gate<G::Label>>> = fused
            .iter()
            .map(|f| f.ands(split(f.x.0), split(f.y.0)))
            .collect();
        let gates: Vec<&Gate<G::Label>> = ands.iter().flatten().collect();
        if !gates.is_empty() {
            let mut inputs: Vec<G::Label> = gates.iter().map(|g| g.0).collect();
            inputs.extend(gates.iter().map(|g| g.1));
            let n = gates.len();
            let outs = self
                .garbled
                .circuit(self.links, || and_circuit(n as u32), &inputs, n)?;
            let moduli = fused
                .iter()
                .zip(&ands)
                .flat_map(|(f, a)| a.iter().map(move |&(_, _, shift)| f.width - shift));
            injected.extend(outs.into_iter().zip(moduli));
        }
        let mut shares = self.garbled.inject(self.links, &injected)?.into_iter();
        for l in &lanes {
            let w = self.width(l.value);
            let count = shares
                .by_ref()
                .take(l.wraps.len())
                .fold(l.sum >> l.lane, u64::wrapping_add);
            let share = l.own.wrapping_sub(count << l.lane);
            let share = share.wrapping_add(self.zeros.zero(w)) & mask(w);
            self.hold(l.value, Held::Word { share, next: None });
        }
        for (f, a) in fused.iter().zip(&ands) {
            let weighted = a.iter().zip(shares.by_ref());
            let sum = weighted.fold(0u64, |acc, (&(_, _, shift), s)| {
                acc.wrapping_add(s << shift)
            });
            self.corrections
                .insert((f.step, f.term), sum & mask(f.width));
        }
        // The factors' replicated pairs of `(x1, 0, t)`: CP1's lane
        // share, none of CP2's, CP3's lane sum.
        let words: Vec<(u64, u32)> = factors
            .iter()
            .map(|l| {
                let raw = match self.role {
                    Role::Cp1 => l.own,
                    Role::Cp2 => 0,
                    Role::Cp3 => l.sum & mask(l.lane),
                };
                (raw, self.width(l.value))
            })
            .collect();
        if words.is_empty() {
            return Ok(());
        }
        let pairs = pass_apart(self.role, self.links, &mut self.zeros, Role::Cp2, &words)?;
        for ((l, &(_, width)), (share, next)) in factors.iter().zip(&words).zip(pairs) {
            held::hold(|| Holding::LaneSum {
                value: l.value,
                lane: l.lane,
                width,
                share,
                next,
            });
            let next = Some(next);
            self.values[l.value as usize] = Held::Word { share, next };
        }
        Ok(())
    }
}
