//! What each computing party does in a run (see the module above for the
//! protocol).

use std::time::Instant;

use twofold_circuit::circuit::split_outputs;
use twofold_circuit::prepare::prepared;
use twofold_circuit::walk::Plan as WalkPlan;
use twofold_circuit::Program;
use twofold_crypto::halfgates::{ActiveLabel, ZeroLabel};
use twofold_crypto::{Block, Delta, GarblingScheme, Prg, SchemeJob};
use twofold_net::Channel;

use super::choice;
use super::held::{self, Holding};
use super::meet::{Links, Meeting};
use super::shares::combine_two;
use super::wrap::{Source, Wrap};
use super::{HybridOptions, HybridPhase, HybridReport};
use crate::error::ProtocolError;
use crate::messages::{Bits, Labels};
use crate::options::Role;
use crate::schedule::{run_flat, run_program_arranged, Plan, Side};
use crate::session::{EvaluatorSide, GarblerSide};

/// Runs `role` after meeting the others (its phases timed from `start`);
/// `opts` gives the lane of every value.
pub(super) fn run(
    role: Role,
    meeting: &Meeting,
    program: &Program,
    shares: &[Vec<bool>],
    opts: &HybridOptions,
    start: Instant,
) -> Result<HybridReport, ProtocolError> {
    let mut clock = Clock {
        last: start,
        phases: Vec::new(),
    };
    let mut links = meeting.meet()?;
    clock.lap(HybridPhase::Handshake);
    let wrap = Wrap::of(
        program,
        &opts.input_kinds,
        &opts.input_lanes,
        opts.output_kind,
        &opts.output_lanes,
    )?;
    let mut run = Run {
        program,
        wrap: &wrap,
        shares,
        opts,
        clock,
    };
    let (output_shares, and_gates) = opts.scheme.dispatch(Play {
        run: &mut run,
        links: &mut links,
        role,
    })?;
    let done = (output_shares, and_gates);
    Ok(HybridReport::of(
        role,
        &links,
        done,
        run.clock.phases,
        start,
    ))
}

/// Times the phases one after another.
struct Clock {
    last: Instant,
    phases: Vec<(HybridPhase, std::time::Duration)>,
}

impl Clock {
    fn lap(&mut self, phase: HybridPhase) {
        self.phases.push((phase, self.last.elapsed()));
        self.last = Instant::now();
    }
}

/// One party's run: the program, its wrapping and this party's shares.
struct Run<'a> {
    program: &'a Program,
    wrap: &'a Wrap,
    shares: &'a [Vec<bool>],
    opts: &'a HybridOptions,
    clock: Clock,
}

/// Output shares (one per output value) and the AND gates done.
type Done = (Vec<Vec<bool>>, u64);

/// One party's part of the run, as a job generic over the garbling scheme.
struct Play<'r, 'a> {
    run: &'r mut Run<'a>,
    links: &'r mut Links,
    role: Role,
}

impl SchemeJob for Play<'_, '_> {
    type Output = Result<Done, ProtocolError>;
    fn run<S: GarblingScheme>(self) -> Self::Output {
        match self.role {
            Role::Cp1 => self.run.cp1::<S>(self.links),
            Role::Cp2 => self.run.cp2::<S>(self.links),
            Role::Cp3 => self.run.cp3(self.links),
        }
    }
}

impl Run<'_> {
    /// The bits of one random mask per output value.
    fn masks(&self, prg: &mut Prg) -> Vec<Vec<bool>> {
        let outputs = &self.program.main.outputs;
        outputs
            .iter()
            .map(|v| v.wires.iter().map(|_| prg.random_bool()).collect())
            .collect()
    }

    /// The wires of `pre` and then `post` that `source` provides, in order.
    fn wires_from(&self, source: Source) -> usize {
        let all = self.wrap.pre_sources.iter().chain(&self.wrap.post_sources);
        all.filter(|&&s| s == source).count()
    }

    /// CP1: garbles.
    fn cp1<S: GarblingScheme>(&mut self, links: &mut Links) -> Result<Done, ProtocolError> {
        let mut prg = Prg::try_from_os()?;
        let delta = Delta::random(&mut prg);
        let masks = self.masks(&mut prg);
        let pre_zero: Vec<ZeroLabel> = (0..self.wrap.pre_sources.len())
            .map(|_| ZeroLabel::random(&mut prg))
            .collect();
        let post_zero: Vec<ZeroLabel> = (0..self.wrap.post_sources.len())
            .map(|_| ZeroLabel::random(&mut prg))
            .collect();
        // The seed of the choice's pads to CP3 first (it need not wait for
        // the rest); labels of CP1's bits to CP2; for the wires CP3
        // chooses, the padded label pairs to CP2.
        let mut pads = choice::Pads::send(&mut links.to(Role::Cp3)[0])?;
        let mut own_bits = self.shares.concat().into_iter().chain(masks.concat());
        let mut encoded = Vec::with_capacity(self.wires_from(Source::Cp1));
        let mut cp3_zeros = Vec::with_capacity(self.wires_from(Source::Cp3));
        let sources = self.wrap.pre_sources.iter().chain(&self.wrap.post_sources);
        for (&source, zero) in sources.zip(pre_zero.iter().chain(&post_zero)) {
            match source {
                Source::Cp1 => {
                    let bit = own_bits.next().expect("a bit per CP1 wire");
                    encoded.push(zero.encode(delta, bit).block());
                }
                Source::Cp3 => cp3_zeros.push(zero.block()),
                Source::Program => {}
            }
        }
        let pairs = choice::offer(&cp3_zeros, delta, &mut pads);
        let to_cp2 = &mut links.to(Role::Cp2)[0];
        Labels::send(to_cp2, &encoded)?;
        Labels::send(to_cp2, &pairs)?;
        self.clock.lap(HybridPhase::Input);
        let side = GarblerSide::<S>::new(delta, self.opts.progress.clone());
        let (z, ands) = self.gates(&side, links.to(Role::Cp2), &pre_zero, &post_zero)?;
        self.clock.lap(HybridPhase::Gates);
        let decode = z.iter().map(|l| l.decode_bit());
        crate::messages::Bits::send(&mut links.to(Role::Cp2)[0], decode)?;
        self.clock.lap(HybridPhase::Reshare);
        Ok((masks, ands))
    }

    /// CP2: evaluates.
    fn cp2<S: GarblingScheme>(&mut self, links: &mut Links) -> Result<Done, ProtocolError> {
        Bits::send(
            &mut links.to(Role::Cp3)[0],
            self.shares.concat().into_iter(),
        )?;
        let (cp1, cp3) = (self.wires_from(Source::Cp1), self.wires_from(Source::Cp3));
        let from = &mut links.to(Role::Cp1)[0];
        let mut from_cp1 = Labels::recv(from, cp1, "CP1's labels")?.into_iter();
        let pairs = Labels::recv(from, 2 * cp3, "CP1's padded label pairs")?;
        self.clock.lap(HybridPhase::Input);
        let from = &mut links.to(Role::Cp3)[0];
        let keys = Labels::recv(from, cp3, "CP3's pads")?;
        let indices = Bits::recv(from, cp3, "CP3's indices")?;
        let mut from_cp3 = choice::take(&pairs, &keys, &indices).into_iter();
        self.clock.lap(HybridPhase::ObliviousChoice);
        let mut label = |source: &Source| {
            ActiveLabel::from_block(match source {
                Source::Cp1 => from_cp1.next().expect("length checked"),
                Source::Cp3 => from_cp3.next().expect("length checked"),
                Source::Program => Block::ZERO,
            })
        };
        let pre: Vec<ActiveLabel> = self.wrap.pre_sources.iter().map(&mut label).collect();
        let post: Vec<ActiveLabel> = self.wrap.post_sources.iter().map(&mut label).collect();
        let side = EvaluatorSide::<S>::new(self.opts.progress.clone());
        let (z, ands) = self.gates(&side, links.to(Role::Cp1), &pre, &post)?;
        self.clock.lap(HybridPhase::Gates);
        let decode = Bits::recv(&mut links.to(Role::Cp1)[0], z.len(), "decoding bits")?;
        let masked: Vec<bool> = z.iter().zip(decode).map(|(l, d)| l.decode(d)).collect();
        self.clock.lap(HybridPhase::Reshare);
        Ok((split_outputs(&self.program.main, &masked), ands))
    }

    /// CP3: chooses CP2's labels of the combined shares and of its masks.
    fn cp3(&mut self, links: &mut Links) -> Result<Done, ProtocolError> {
        let main = &self.program.main;
        let theirs = Bits::recv(
            &mut links.to(Role::Cp2)[0],
            main.input_bits(),
            "CP2's shares",
        )?;
        let mut at = 0;
        let mut combined = Vec::with_capacity(theirs.len());
        let opts = self.opts;
        let values = main.inputs.iter().zip(self.shares);
        for ((v, mine), (&kind, &lane)) in
            values.zip(opts.input_kinds.iter().zip(&opts.input_lanes))
        {
            let width = v.width as usize;
            combined.extend(combine_two(kind, lane, &theirs[at..at + width], mine));
            at += width;
        }
        held::hold(|| Holding::Joined(combined.clone()));
        let masks = self.masks(&mut Prg::try_from_os()?);
        self.clock.lap(HybridPhase::Input);
        let mut pads = choice::Pads::recv(&mut links.to(Role::Cp1)[0])?;
        let bits = combined.into_iter().chain(masks.concat());
        let (keys, indices) = choice::choose(&mut pads, bits);
        let to_cp2 = &mut links.to(Role::Cp2)[0];
        Labels::send(to_cp2, &keys)?;
        Bits::send(to_cp2, indices.into_iter())?;
        self.clock.lap(HybridPhase::ObliviousChoice);
        Ok((masks, 0))
    }

    /// The gates of `pre`, the program and `post` on `side` over `chans`
    /// (the connections between CP1 and CP2), from the labels of `pre`'s
    /// inputs and of `post`'s (those of its output-value wires ignored);
    /// returns the labels of `post`'s outputs
    /// and the AND gates done. The program's AND gates have ids from 0, as
    /// in the two-party protocol; `pre`'s and `post`'s follow them.
    fn gates<S: Side<Link = Channel>>(
        &self,
        side: &S,
        chans: &mut [Channel],
        pre_inputs: &[S::Label],
        post_inputs: &[S::Label],
    ) -> Result<(Vec<S::Label>, u64), ProtocolError> {
        let prepared = prepared(self.program);
        let program_ands = prepared.and_count();
        let mut plan = Plan::new(self.opts.schedule, self.opts.threads.max(1) as usize);
        plan.scheme = self.opts.scheme;
        if let Some(min) = self.opts.fgp_min_ands {
            plan.fgp_min_ands = min;
        }
        let (x, pre_ands) = run_flat(
            side,
            &self.wrap.pre,
            pre_inputs,
            &mut chans[0],
            program_ands,
        )?;
        let walk = WalkPlan::of(&prepared);
        let order = prepared.main_in_order();
        let (out, ands) = run_program_arranged(side, &walk, &order, &x, chans, plan)?;
        check_gate_ids(ands, program_ands)?;
        // `post` reads each output value, then the two masks of it; the
        // labels given for its output-value wires are placeholders.
        let mut outputs = out.into_iter();
        let post: Vec<S::Label> = self
            .wrap
            .post_sources
            .iter()
            .zip(post_inputs)
            .map(|(source, &given)| match source {
                Source::Program => outputs.next().expect("a label per output bit"),
                Source::Cp1 | Source::Cp3 => given,
            })
            .collect();
        let first = program_ands + pre_ands;
        let (z, post_ands) = run_flat(side, &self.wrap.post, &post, &mut chans[0], first)?;
        Ok((z, ands + pre_ands + post_ands))
    }
}

/// Fails unless the program's AND gates, which have the ids from 0, were
/// `program_ands`: `pre`'s and `post`'s gates take the ids from there, and
/// an id used twice would reuse a hash tweak (two garbled gates under one
/// tweak leak).
fn check_gate_ids(done: u64, program_ands: u64) -> Result<(), ProtocolError> {
    if done != program_ands {
        return Err(ProtocolError::Internal(format!(
            "the program ran {done} AND gates, but the wrapping circuits' gate ids start after {program_ands}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check_gate_ids;

    #[test]
    fn wrapping_gate_ids_must_start_where_the_programs_end() {
        assert!(check_gate_ids(0, 0).is_ok());
        assert!(check_gate_ids(1234, 1234).is_ok());
        for (done, expected) in [(1235, 1234), (1233, 1234), (1, 0)] {
            let err = check_gate_ids(done, expected).unwrap_err().to_string();
            assert!(err.contains("internal check failed"), "{err}");
        }
    }
}
