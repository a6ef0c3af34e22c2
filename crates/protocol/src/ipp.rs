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

use std::collections::HashSet;
use std::time::{Duration, Instant};

use twofold_circuit::{Region, Wire};
use twofold_crypto::halfgates::{ActiveLabel, ZeroLabel};
use twofold_crypto::{blocks_as_bytes, blocks_from_byte_vec, Block, Delta, Prg};
use twofold_net::Channel;
use twofold_ot::{CotReceiver, CotSender};

use crate::error::ProtocolError;
use crate::schedule::{run_region_part, scatter_outputs, Plan, Side};

/// Gate-id space of party B's garbling (the top bit set).
pub const B_GATE_SPACE: u64 = 1 << 63;

/// The session id of the B→A correlated OT, derived from the session's.
pub(crate) fn reverse_ot_session(session_id: &[u8]) -> Vec<u8> {
    let mut id = session_id.to_vec();
    id.extend_from_slice(b"/ipp: b garbles");
    id
}

/// The main wires a range of instances reads, each once, in a fixed order.
fn input_wires(region: &Region, range: std::ops::Range<usize>) -> Vec<Wire> {
    let mut seen = HashSet::new();
    let all = region
        .shared
        .iter()
        .chain(region.instances[range].iter().flat_map(|i| i.inputs.iter()));
    all.copied().filter(|w| seen.insert(*w)).collect()
}

/// The instances party B garbles: the second half (A also garbles the main
/// circuit, so B takes the larger half).
fn split(region: &Region) -> usize {
    region.instances.len() / 2
}

fn labels_frame(chan: &mut Channel, n: usize) -> Result<Vec<Block>, ProtocolError> {
    let mut buf = Vec::new();
    chan.recv_frame(&mut buf)?;
    blocks_from_byte_vec(&buf)
        .ok()
        .filter(|b| b.len() == n)
        .ok_or_else(|| {
            ProtocolError::Malformed(format!(
                "{} bytes of transferred labels, expected {}",
                buf.len(),
                16 * n
            ))
        })
}

/// Party A's side of IPP.
pub(crate) struct IppA<'s, G, E> {
    /// A's garbling side (Δ_A) for its half.
    pub garbler: &'s G,
    /// A's evaluating side for B's half.
    pub evaluator: &'s E,
    /// A→B correlated OT (A sends, Δ_A), from the input phase.
    pub cot_ab: &'s mut CotSender,
    /// B→A correlated OT (A receives).
    pub cot_ba: CotReceiver,
    /// Δ_A.
    pub delta: Delta,
    /// Randomness for transferred labels.
    pub prg: Prg,
    /// Connections carrying B's tables to A.
    pub links_b: &'s mut [Channel],
    /// Time spent transferring roles.
    pub transfer: Duration,
    /// Every block A sent at role transfers, if recorded (audits, tests).
    pub sent_log: Option<Vec<Block>>,
}

impl<G, E> IppA<'_, G, E>
where
    G: Side<Label = ZeroLabel, Link = Channel>,
    E: Side<Label = ActiveLabel, Link = Channel>,
{
    /// Runs `region`: A garbles the first half, evaluates B's half, and the
    /// outputs of B's half come back as A-garbled labels.
    pub fn run_region(
        &mut self,
        region: &Region,
        labels: &mut [ZeroLabel],
        first_gate: u64,
        links_a: &mut [Channel],
        plan: Plan,
    ) -> Result<u64, ProtocolError> {
        let (n, h) = (region.instances.len(), split(region));
        if h == 0 || h == n {
            let (out, ands) = run_region_part(
                self.garbler,
                region,
                0..n,
                labels,
                links_a,
                first_gate,
                plan,
            )?;
            scatter_outputs(region, 0..n, &out, labels);
            return Ok(ands);
        }
        let (mine, theirs) = (0..n - h, n - h..n);
        // A-garbled -> B-garbled: A's shares through OT, B's labels in a frame.
        let start = Instant::now();
        let wires = input_wires(region, theirs.clone());
        let chan = &mut links_a[0];
        let shares: Vec<bool> = wires.iter().map(|&w| labels[w as usize].0.lsb()).collect();
        let from_ot = self.cot_ba.receive(chan, &shares)?;
        let from_b = labels_frame(chan, wires.len())?;
        let mut other = vec![ActiveLabel::default(); labels.len()];
        for ((&w, ot), b) in wires.iter().zip(from_ot).zip(from_b) {
            other[w as usize] = ActiveLabel(ot ^ b);
        }
        self.transfer += start.elapsed();
        // Both halves at once.
        let (garbler, evaluator, links_b) = (self.garbler, self.evaluator, &mut *self.links_b);
        let shared: &[ZeroLabel] = labels;
        let (a_half, b_half) = std::thread::scope(|s| {
            let b = s.spawn(|| {
                run_region_part(
                    evaluator,
                    region,
                    theirs.clone(),
                    &other,
                    links_b,
                    first_gate | B_GATE_SPACE,
                    plan,
                )
            });
            let a = run_region_part(
                garbler,
                region,
                mine.clone(),
                shared,
                links_a,
                first_gate,
                plan,
            );
            (a, b.join().expect("evaluating thread does not panic"))
        });
        let (a_out, a_ands) = a_half?;
        let (b_out, b_ands) = b_half?;
        scatter_outputs(region, mine, &a_out, labels);
        // B-garbled -> A-garbled: A's shares as A's input, B's through OT.
        let start = Instant::now();
        let chan = &mut links_a[0];
        let zeros: Vec<Block> = (0..b_out.len()).map(|_| self.prg.random_block()).collect();
        let sent: Vec<Block> = zeros
            .iter()
            .zip(&b_out)
            .map(|(r, m)| *r ^ self.delta.block().select(m.0.lsb()))
            .collect();
        chan.send_frame(blocks_as_bytes(&sent))?;
        chan.flush()?;
        if let Some(log) = &mut self.sent_log {
            log.extend_from_slice(&sent);
        }
        let from_ot = self.cot_ab.send(chan, b_out.len())?;
        let back: Vec<ZeroLabel> = zeros
            .iter()
            .zip(from_ot)
            .map(|(r, s)| ZeroLabel(*r ^ s))
            .collect();
        scatter_outputs(region, theirs, &back, labels);
        self.transfer += start.elapsed();
        Ok(a_ands + b_ands)
    }
}

/// Party B's side of IPP.
pub(crate) struct IppB<'s, G, E> {
    /// B's garbling side (Δ_B) for its half.
    pub garbler: &'s G,
    /// B's evaluating side for A's half.
    pub evaluator: &'s E,
    /// A→B correlated OT (B receives), from the input phase.
    pub cot_ab: &'s mut CotReceiver,
    /// B→A correlated OT (B sends, Δ_B).
    pub cot_ba: CotSender,
    /// Δ_B.
    pub delta: Delta,
    /// Randomness for transferred labels.
    pub prg: Prg,
    /// Connections carrying B's tables to A.
    pub links_b: &'s mut [Channel],
    /// Time spent transferring roles.
    pub transfer: Duration,
    /// Every block B sent at role transfers, if recorded (audits, tests).
    pub sent_log: Option<Vec<Block>>,
}

impl<G, E> IppB<'_, G, E>
where
    G: Side<Label = ZeroLabel, Link = Channel>,
    E: Side<Label = ActiveLabel, Link = Channel>,
{
    /// Runs `region`: B evaluates A's half, garbles the second half, and the
    /// outputs of its half go back to being A-garbled.
    pub fn run_region(
        &mut self,
        region: &Region,
        labels: &mut [ActiveLabel],
        first_gate: u64,
        links_a: &mut [Channel],
        plan: Plan,
    ) -> Result<u64, ProtocolError> {
        let (n, h) = (region.instances.len(), split(region));
        if h == 0 || h == n {
            let (out, ands) = run_region_part(
                self.evaluator,
                region,
                0..n,
                labels,
                links_a,
                first_gate,
                plan,
            )?;
            scatter_outputs(region, 0..n, &out, labels);
            return Ok(ands);
        }
        let (theirs, mine) = (0..n - h, n - h..n);
        let start = Instant::now();
        let wires = input_wires(region, mine.clone());
        let chan = &mut links_a[0];
        let from_ot = self.cot_ba.send(chan, wires.len())?;
        let mut zero = vec![ZeroLabel::default(); labels.len()];
        let mut sent = Vec::with_capacity(wires.len());
        for (&w, p0) in wires.iter().zip(from_ot) {
            let l0 = self.prg.random_block();
            let c = labels[w as usize].0.lsb();
            sent.push(l0 ^ self.delta.block().select(c));
            zero[w as usize] = ZeroLabel(l0 ^ p0);
        }
        chan.send_frame(blocks_as_bytes(&sent))?;
        chan.flush()?;
        if let Some(log) = &mut self.sent_log {
            log.extend_from_slice(&sent);
        }
        self.transfer += start.elapsed();
        let (garbler, evaluator, links_b) = (self.garbler, self.evaluator, &mut *self.links_b);
        let shared: &[ActiveLabel] = labels;
        let (a_half, b_half) = std::thread::scope(|s| {
            let b = s.spawn(|| {
                run_region_part(
                    garbler,
                    region,
                    mine.clone(),
                    &zero,
                    links_b,
                    first_gate | B_GATE_SPACE,
                    plan,
                )
            });
            let a = run_region_part(
                evaluator,
                region,
                theirs.clone(),
                shared,
                links_a,
                first_gate,
                plan,
            );
            (a, b.join().expect("garbling thread does not panic"))
        });
        let (a_out, a_ands) = a_half?;
        let (b_out, b_ands) = b_half?;
        scatter_outputs(region, theirs, &a_out, labels);
        let start = Instant::now();
        let chan = &mut links_a[0];
        let from_a = labels_frame(chan, b_out.len())?;
        let shares: Vec<bool> = b_out.iter().map(|m| m.0.lsb()).collect();
        let from_ot = self.cot_ab.receive(chan, &shares)?;
        let back: Vec<ActiveLabel> = from_a
            .iter()
            .zip(from_ot)
            .map(|(f, t)| ActiveLabel(*f ^ t))
            .collect();
        scatter_outputs(region, mine, &back, labels);
        self.transfer += start.elapsed();
        Ok(a_ands + b_ands)
    }
}
