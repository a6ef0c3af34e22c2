//! `twofold run` of a C program whose chosen protocol is a mixed program
//! (`--protocol`, `crate::choice`): the C inputs become the mixed
//! program's (a party's input slices are its arithmetic shares), both
//! parties run it here or one runs it with the peer elsewhere, and the
//! mixed outputs become the C outputs.

use std::time::Duration;

use anyhow::Result;
use serde::{Deserialize, Serialize};
use twofold_circuit::Party;
use twofold_net::ChannelOptions;
use twofold_protocol::mixed::{run_mixed_local, MixedOptions, MixedReport};
use twofold_protocol::{run_mixed_remote, Endpoint};

use crate::choice::{Chosen, Comparison};
use crate::inputs::{assign, Givers};
use crate::load::Loaded;

/// How a mixed run goes.
pub struct MixedRun<'a> {
    /// The program (its Boolean program names the C inputs).
    pub loaded: &'a Loaded,
    /// The mixed program chosen for it.
    pub chosen: &'a Chosen,
    /// `-i` values.
    pub inputs: &'a [String],
    /// The peer, or `None` for both parties here.
    pub endpoint: Option<(Endpoint, Party)>,
    /// Every connection's options.
    pub channel: &'a ChannelOptions,
    /// How long to wait for the peer.
    pub wait: Duration,
    /// Who learns the outputs, and the garbling scheme.
    pub opts: MixedOptions,
}

/// What a mixed run adds to `run --json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MixedFigures {
    /// Sums of products run in the arithmetic sharing.
    pub arithmetic_sums: usize,
    /// Sums of products given their Boolean circuits by the estimate.
    pub boolean_sums: usize,
    /// Rounds of products and conversions.
    pub rounds: usize,
    /// Messages waited for, by both parties.
    pub messages: u64,
    /// Bytes both ways: setup (handshake, base OTs, triples).
    pub setup_bytes: u64,
    /// Arithmetic products and openings.
    pub arith_bytes: u64,
    /// Conversions between the sharings.
    pub convert_bytes: u64,
    /// Garbled inputs, Boolean steps and opened bits.
    pub yao_bytes: u64,
    /// The estimates that chose the protocol.
    pub estimate: Comparison,
}

impl MixedFigures {
    /// The figures of a run of `chosen`.
    pub fn of(chosen: &Chosen, report: &MixedReport) -> MixedFigures {
        let t = &report.traffic;
        MixedFigures {
            arithmetic_sums: chosen.compiled.arithmetic_sums,
            boolean_sums: chosen.compiled.boolean_sums,
            rounds: report.rounds,
            messages: report.flights,
            setup_bytes: t.setup,
            arith_bytes: t.arith,
            convert_bytes: t.convert,
            yao_bytes: t.yao,
            estimate: chosen.estimate.clone(),
        }
    }
}

/// Runs the session: this party's report, and the peer's when both ran
/// here. Outputs in the reports are the C outputs' bits.
pub fn run(m: MixedRun) -> Result<(Party, MixedReport, Option<MixedReport>)> {
    let compiled = &m.chosen.compiled;
    let program = &compiled.program;
    let givers = match &m.endpoint {
        None => Givers::Everyone,
        Some((_, party)) => Givers::Only(*party),
    };
    let given = compiled.mixed_inputs(&assign(m.loaded, m.inputs, givers)?);
    let side = |owner: u8| -> Vec<Option<Vec<bool>>> {
        program
            .inputs
            .iter()
            .zip(&given)
            .map(|(v, bits)| bits.clone().filter(|_| v.owner == owner))
            .collect()
    };
    let c_outputs = |mut r: MixedReport| {
        r.outputs = r.outputs.map(|o| compiled.c_outputs(&o));
        r
    };
    Ok(match m.endpoint {
        None => {
            let (a, b) = run_mixed_local(program, (&side(0), &side(1)), &m.opts, m.channel)?;
            (Party::A, c_outputs(a), Some(c_outputs(b)))
        }
        Some((endpoint, party)) => {
            let mine = side(party.index());
            let report =
                run_mixed_remote(&endpoint, m.wait, m.channel, party, program, &mine, &m.opts)?;
            (party, c_outputs(report), None)
        }
    })
}
