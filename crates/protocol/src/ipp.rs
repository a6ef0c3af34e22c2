//! Inter-party parallelism (IPP, Buescher & Katzenbeisser 2015, §5): both
//! parties garble. The instances of every parallel region are split: party A
//! (the garbler of the main circuit) garbles the first half and party B
//! evaluates it, as usual; party B garbles the second half with its own
//! offset Δ_B and party A evaluates it. Both CPUs garble and both directions
//! of the link carry tables.
//!
//! # Transferring roles
//!
//! A wire garbled by A is held as XOR shares by the point-and-permute bits:
//! A has the 0-label `K0` and B the active label `K = K0 ⊕ v·Δ_A`, so
//! `v = lsb(K0) ⊕ lsb(K)` (`lsb(Δ_A) = 1`). Neither bit alone says anything
//! about `v`: each is the colour bit of a uniformly random label.
//!
//! * **A-garbled → B-garbled** (inputs of B's instances). B's share
//!   `c = lsb(K)` is B's own input to its garbling: B picks `L0` and sends
//!   `L0 ⊕ c·Δ_B`. A's share `p = lsb(K0)` enters through correlated OT with
//!   B as sender (correlation Δ_B): B learns `P0`, A learns `P0 ⊕ p·Δ_B`. The
//!   wire's new 0-label is `L0 ⊕ P0` (B), A's active label the XOR of the two
//!   it received: `L0 ⊕ P0 ⊕ (c ⊕ p)·Δ_B` — the free XOR of the two shares.
//! * **B-garbled → A-garbled** (outputs of B's instances), the mirror image:
//!   B holds `M0`, A holds `M = M0 ⊕ u·Δ_B`. A's share `d = lsb(M)` is A's
//!   input: A sends `R0 ⊕ d·Δ_A`; B's share `q = lsb(M0)` enters through the
//!   session's correlated OT with A as sender (Δ_A): A learns `S0`, B learns
//!   `S0 ⊕ q·Δ_A`. New 0-label `R0 ⊕ S0`, B's active label the XOR.
//!
//! Only labels (uniformly random to the receiver) and OT messages cross the
//! link; no share and no plaintext intermediate value is ever sent. OT
//! extension runs in both directions, each set up once per session.
//!
//! B's AND gates take ids in their own space (`B_GATE_SPACE` set), so the
//! two garblers' tweaks never meet even if their offsets were equal.
//! The two halves of a region run at the same time, on their own
//! connections (`links_a` carry A's tables to B, `links_b` B's tables to A).
//! The B→A OT and the transfers into B-garbled wires also use B's first
//! connection, so that both table streams start on connections that have
//! just carried data: TCP gives a fresh connection a poor share of a link
//! loaded the other way (on 100 Mbit/s with 20 ms delay, B's tables got 70%
//! of the link when they started cold; BioMatch took 8.4 s instead of 6.9).

use std::collections::HashSet;
use std::time::{Duration, Instant};

use twofold_circuit::walk::{scatter_instances, BlockPlan, Walker};
use twofold_circuit::{Item, Program, Wire};
use twofold_crypto::halfgates::{ActiveLabel, ZeroLabel};
use twofold_crypto::{Block, Delta, Prg};
use twofold_net::Channel;
use twofold_ot::{CotReceiver, CotSender};

use crate::error::ProtocolError;
use crate::messages::Labels;
use crate::schedule::{region_ands, run_items, run_region_part, run_region_whole, Plan, Side};

/// Gate-id space of party B's garbling (the top bit set).
pub const B_GATE_SPACE: u64 = 1 << 63;

/// The id of B's first AND gate of a region half whose A-side AND gates
/// start at `first_gate` and run `ands` long, with the A-side ids checked to
/// stay below [`B_GATE_SPACE`] (else the two garblers could share tweaks).
fn b_first_gate(first_gate: u64, ands: u64) -> Result<u64, ProtocolError> {
    match first_gate.checked_add(ands) {
        Some(end) if first_gate < B_GATE_SPACE && end <= B_GATE_SPACE => {
            Ok(first_gate | B_GATE_SPACE)
        }
        _ => Err(ProtocolError::TooLarge(format!(
            "IPP needs the program's AND gates below 2^63; this region ends at {}",
            first_gate as u128 + ands as u128
        ))),
    }
}

/// The session id of the B→A correlated OT, derived from the session's.
pub(crate) fn reverse_ot_session(session_id: &[u8]) -> Vec<u8> {
    let mut id = session_id.to_vec();
    id.extend_from_slice(b"/ipp: b garbles");
    id
}

/// The main wires a range of instances reads, each once, in a fixed order.
fn input_wires(region: &BlockPlan<'_>, range: std::ops::Range<u64>) -> Vec<Wire> {
    let mut seen = HashSet::new();
    let mut wires: Vec<Wire> = Vec::new();
    let b = region.block;
    for &w in &b.shared {
        if seen.insert(w) {
            wires.push(w);
        }
    }
    for k in range {
        b.inputs.for_each(k, |_, w| {
            if seen.insert(w) {
                wires.push(w);
            }
        });
    }
    wires
}

/// How many instances party B garbles: balanced against A, who also
/// garbles the `main_ands` main AND gates that run during the region; at
/// least one.
fn b_share(region: &BlockPlan<'_>, main_ands: u64) -> u64 {
    let n = region.block.count;
    let body = region.body_ands.max(1);
    let balanced = (n * body + main_ands).div_ceil(2 * body);
    balanced.clamp(1, n)
}

/// The role transfers one party performs: its half of steps 2 and 4 of the
/// protocol (see the module docs).
pub(crate) trait Transfer {
    /// This party's label for A-garbled wires.
    type MainLabel: Copy + Default + Send + Sync;
    /// This party's label for B-garbled wires.
    type OtherLabel: Copy + Default + Send + Sync;
    /// A-garbled → B-garbled for `wires`; returns their new labels in order.
    fn to_b(
        &mut self,
        chan: &mut Channel,
        held: Vec<Self::MainLabel>,
    ) -> Result<Vec<Self::OtherLabel>, ProtocolError>;
    /// B-garbled → A-garbled; returns the new labels in order.
    fn to_a(
        &mut self,
        chan: &mut Channel,
        held: &[Self::OtherLabel],
    ) -> Result<Vec<Self::MainLabel>, ProtocolError>;
    /// The blocks sent at transfers so far, if they are recorded.
    fn take_log(&mut self) -> Vec<Block>;
}

/// One party's IPP state: its two sides, its transfers, the connections
/// carrying B's tables, and the time spent transferring.
pub(crate) struct Ipp<'s, M, O, T> {
    /// The side this party plays on A-garbled wires (A's half).
    pub main: &'s M,
    /// The side this party plays on B-garbled wires (B's half).
    pub other: &'s O,
    /// This party's half of the role transfers.
    pub transfer: T,
    /// Connections carrying B's tables to A.
    pub links_b: &'s mut [Channel],
    /// Time spent transferring roles.
    pub transfer_time: Duration,
}

impl<M, O, T> Ipp<'_, M, O, T>
where
    M: Side<Link = Channel>,
    O: Side<Link = Channel>,
    T: Transfer<MainLabel = M::Label, OtherLabel = O::Label>,
{
    /// Runs `region`: A's half as usual, B's half after moving its inputs to
    /// B-garbled wires, both at once; the main work `during` (see
    /// [`MainOrder`](twofold_circuit::MainOrder)) runs after A's half, while
    /// B may still be garbling. The outputs of B's half come back to
    /// A-garbled wires.
    #[allow(clippy::too_many_arguments)]
    pub fn run_region(
        &mut self,
        walker: &mut Walker<'_, '_, M::Label>,
        program: &Program,
        region: &BlockPlan<'_>,
        during: &[Item],
        labels: &mut [M::Label],
        first_gate: u64,
        links_a: &mut [Channel],
        plan: Plan,
    ) -> Result<u64, ProtocolError> {
        let n = region.block.count;
        if n < 2 {
            let first = first_gate;
            return run_region_whole(
                self.main, walker, region, during, labels, links_a, first, plan,
            );
        }
        let walk = walker.plan();
        let during_ands: u64 = during
            .iter()
            .map(|item| match item {
                Item::Gates(g) => g.iter().filter(|g| g.is_and()).count() as u64,
                Item::Loop(b) => program.blocks[*b].and_count(),
            })
            .sum();
        let h = b_share(region, during_ands);
        let (a_half, b_half) = (0..n - h, n - h..n);
        let start = Instant::now();
        let wires = input_wires(region, b_half.clone());
        let held = wires.iter().map(|&w| labels[w as usize]).collect();
        let moved = self.transfer.to_b(&mut self.links_b[0], held)?;
        // Indexed by main wire, up to the highest the half reads (region
        // inputs are often program inputs, at the low wires).
        let len = wires.iter().max().map_or(0, |&w| w as usize + 1);
        let mut other = vec![O::Label::default(); len];
        for (&w, l) in wires.iter().zip(moved) {
            other[w as usize] = l;
        }
        self.transfer_time += start.elapsed();
        let b_first = b_first_gate(first_gate, region_ands(region) + during_ands)?;
        let (main, other_side, links_b) = (self.main, self.other, &mut *self.links_b);
        let (a_done, b_done) = std::thread::scope(|s| {
            let b = s.spawn(|| {
                run_region_part(
                    other_side,
                    walk,
                    region,
                    b_half.clone(),
                    &other,
                    links_b,
                    b_first,
                    plan,
                )
            });
            let during_first = first_gate + region_ands(region);
            let a = run_region_part(
                main,
                walk,
                region,
                a_half.clone(),
                labels,
                links_a,
                first_gate,
                plan,
            )
            .and_then(|mut done| {
                done.ands += run_items(main, walker, during, labels, links_a, during_first, plan)?;
                Ok(done)
            });
            (a, b.join().expect("region threads do not panic"))
        });
        let (a_done, b_done) = (a_done?, b_done?);
        let (a_ands, b_ands) = (a_done.ands, b_done.ands);
        a_done.scatter(region, labels);
        let start = Instant::now();
        let back = self.transfer.to_a(&mut links_a[0], &b_done.joined())?;
        scatter_instances(region, b_half, &back, labels);
        self.transfer_time += start.elapsed();
        Ok(a_ands + b_ands)
    }
}

/// Party A's transfers.
pub(crate) struct TransferA<'s> {
    /// A→B correlated OT (A sends, Δ_A), from the input phase.
    pub cot_ab: &'s mut CotSender,
    /// B→A correlated OT (A receives).
    pub cot_ba: CotReceiver,
    /// Δ_A.
    pub delta: Delta,
    /// Randomness for transferred labels.
    pub prg: Prg,
    /// Every block sent at transfers, if recorded (audits, tests).
    pub sent_log: Option<Vec<Block>>,
}

impl Transfer for TransferA<'_> {
    type MainLabel = ZeroLabel;
    type OtherLabel = ActiveLabel;

    fn to_b(
        &mut self,
        chan: &mut Channel,
        held: Vec<ZeroLabel>,
    ) -> Result<Vec<ActiveLabel>, ProtocolError> {
        // A's shares p = lsb(K0) through OT; B's labels in a frame.
        let shares: Vec<bool> = held.iter().map(|l| l.block().lsb()).collect();
        let from_ot = self.cot_ba.receive(chan, &shares)?;
        let from_b = Labels::recv(chan, held.len(), "transferred labels")?;
        Ok(from_ot
            .into_iter()
            .zip(from_b)
            .map(|(o, b)| ActiveLabel::from_block(o ^ b))
            .collect())
    }

    fn to_a(
        &mut self,
        chan: &mut Channel,
        held: &[ActiveLabel],
    ) -> Result<Vec<ZeroLabel>, ProtocolError> {
        // A's shares d = lsb(M) as A's input; B's through OT.
        let zeros: Vec<Block> = held.iter().map(|_| self.prg.random_block()).collect();
        let sent: Vec<Block> = zeros
            .iter()
            .zip(held)
            .map(|(r, m)| *r ^ self.delta.block().select(m.block().lsb()))
            .collect();
        Labels::send(chan, &sent)?;
        if let Some(log) = &mut self.sent_log {
            log.extend_from_slice(&sent);
        }
        let from_ot = self.cot_ab.send(chan, held.len())?;
        Ok(zeros
            .iter()
            .zip(from_ot)
            .map(|(r, s)| ZeroLabel::from_block(*r ^ s))
            .collect())
    }

    fn take_log(&mut self) -> Vec<Block> {
        self.sent_log.take().unwrap_or_default()
    }
}

/// Party B's transfers.
pub(crate) struct TransferB<'s> {
    /// A→B correlated OT (B receives), from the input phase.
    pub cot_ab: &'s mut CotReceiver,
    /// B→A correlated OT (B sends, Δ_B).
    pub cot_ba: CotSender,
    /// Δ_B.
    pub delta: Delta,
    /// Randomness for transferred labels.
    pub prg: Prg,
    /// Every block sent at transfers, if recorded (audits, tests).
    pub sent_log: Option<Vec<Block>>,
}

impl Transfer for TransferB<'_> {
    type MainLabel = ActiveLabel;
    type OtherLabel = ZeroLabel;

    fn to_b(
        &mut self,
        chan: &mut Channel,
        held: Vec<ActiveLabel>,
    ) -> Result<Vec<ZeroLabel>, ProtocolError> {
        // B's shares c = lsb(K) as B's input; A's through OT.
        let from_ot = self.cot_ba.send(chan, held.len())?;
        let zeros: Vec<Block> = held.iter().map(|_| self.prg.random_block()).collect();
        let sent: Vec<Block> = zeros
            .iter()
            .zip(&held)
            .map(|(l, k)| *l ^ self.delta.block().select(k.block().lsb()))
            .collect();
        Labels::send(chan, &sent)?;
        if let Some(log) = &mut self.sent_log {
            log.extend_from_slice(&sent);
        }
        Ok(zeros
            .iter()
            .zip(from_ot)
            .map(|(l, p)| ZeroLabel::from_block(*l ^ p))
            .collect())
    }

    fn to_a(
        &mut self,
        chan: &mut Channel,
        held: &[ZeroLabel],
    ) -> Result<Vec<ActiveLabel>, ProtocolError> {
        // A's labels in a frame; B's shares q = lsb(M0) through OT.
        let from_a = Labels::recv(chan, held.len(), "transferred labels")?;
        let shares: Vec<bool> = held.iter().map(|m| m.block().lsb()).collect();
        let from_ot = self.cot_ab.receive(chan, &shares)?;
        Ok(from_a
            .into_iter()
            .zip(from_ot)
            .map(|(f, t)| ActiveLabel::from_block(f ^ t))
            .collect())
    }

    fn take_log(&mut self) -> Vec<Block> {
        self.sent_log.take().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_side_gate_ids_must_stay_below_the_b_space() {
        assert_eq!(b_first_gate(5, 10).unwrap(), 5 | B_GATE_SPACE);
        assert_eq!(b_first_gate(0, B_GATE_SPACE).unwrap(), B_GATE_SPACE);
        for (first, ands) in [(B_GATE_SPACE, 0), (B_GATE_SPACE - 1, 2), (u64::MAX, 1)] {
            let err = b_first_gate(first, ands).unwrap_err().to_string();
            assert!(err.contains("below 2^63"), "{err}");
        }
    }
}
