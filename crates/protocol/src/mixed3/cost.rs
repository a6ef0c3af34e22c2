//! Bytes and messages of a three-party run, mixed or garbled whole, as
//! pure functions of the program, for the cost model that chooses
//! between them. Both assume additive input shares in the lanes given
//! (the stores' native form for arithmetic) and count what all three
//! parties send, frame headers included.

use twofold_circuit::{Kind, Program, Step};
use twofold_crypto::Scheme;

use super::fused::{fused_terms, Fused};
use super::SharedMixed;
use crate::arith::cost::{bits, labels, tables, Cost};
use crate::error::ProtocolError;
use crate::mixed::plan::{factor_pairs, Plan, Term};

/// Hellos between the three pairs of parties (about 150 bytes each way).
const HELLOS: u64 = 6 * 150;

/// Labels of `n` bits CP1 knows, to CP2.
fn cp1_bits(n: u64) -> Cost {
    Cost {
        bytes: labels(n),
        flights: 1,
    }
}

/// Labels of `n` bits CP3 knows, chosen obliviously: padded pairs to CP2,
/// pads and indices from CP3 to CP2 (the pads' seed goes to CP3 once).
fn cp3_bits(n: u64) -> Cost {
    Cost {
        bytes: labels(2 * n) + labels(n) + bits(n),
        flights: 1,
    }
}

/// Garbled tables of `ands` AND gates, streamed.
fn garbled(scheme: Scheme, ands: u64) -> Cost {
    Cost {
        bytes: tables(scheme, ands),
        flights: 1,
    }
}

/// AND gates of adding two values of `width` bits in lanes of `lane`.
fn adder_ands(width: u64, lane: u64) -> u64 {
    (width / lane.max(1)) * lane.saturating_sub(1)
}

/// Joining values of `width` bits (lanes of `lane`) from CP1's bits and
/// CP3's (CP2 sends CP3 its share first).
fn join(scheme: Scheme, width: u64, lane: u64) -> Cost {
    let send_to_cp3 = Cost {
        bytes: bits(width),
        flights: 1,
    };
    send_to_cp3 + cp1_bits(width) + cp3_bits(width) + garbled(scheme, adder_ands(width, lane))
}

/// The wrap count of a lane of `lane` bits from CP1's bits and CP3's
/// (`hybrid::circuits::Joined::Wraps`), its bits (two if `signed`)
/// injected into shares modulo 2^`modulus` (`mixed3::inject`: two rows of
/// `modulus` bits a bit, from CP1 with the tables) unless the lane is a
/// factor of a fused product (`modulus` `None`).
fn wrap_count(scheme: Scheme, lane: u64, signed: bool, modulus: Option<u64>) -> Cost {
    let send_to_cp3 = Cost {
        bytes: bits(lane),
        flights: 1,
    };
    let count_bits = 1 + signed as u64;
    let inject = Cost {
        bytes: bits(2 * count_bits * modulus.unwrap_or(0)),
        flights: 1,
    };
    send_to_cp3 + cp1_bits(lane) + cp3_bits(lane) + garbled(scheme, lane) + inject
}

/// A product of two widened lanes fused with the widening
/// (`mixed3::fused`): AND gates of each factor's wrap bits (two if
/// `signed`) with the other's low lane bits, their injection rows (two of
/// `w − shift` bits a gate), and each factor's replication (CP1 → CP3,
/// CP3 → CP2; `x`'s only if `y` is another value).
fn fused(scheme: Scheme, f: &Fused, signed: [bool; 2]) -> Cost {
    let mut ands = 0;
    let mut rows = 0;
    for ((_, lane), signed) in [f.x, f.y].into_iter().zip(signed) {
        let n = f.width - lane;
        ands += (1 + signed as u64) * n as u64;
        rows += (1 + signed as u64) * (n as u64 * (n as u64 + 1));
    }
    let factors = 1 + (f.x.0 != f.y.0) as u64;
    let pass = Cost {
        bytes: 2 * factors * bits(f.width as u64),
        flights: 1,
    };
    let inject = Cost {
        bytes: bits(rows),
        flights: 1,
    };
    garbled(scheme, ands) + inject + pass
}

/// Masking garbled values of `width` bits into fresh additive shares
/// (lanes of `lane`), opened to CP2: with CP3's masks too for output
/// shares, CP1's alone for Y→A.
fn mask(scheme: Scheme, width: u64, lane: u64, cp3_masks: bool) -> Cost {
    let open = Cost {
        bytes: bits(width),
        flights: 1,
    };
    let subtractors = if cp3_masks { 2 } else { 1 };
    let cost = cp1_bits(width) + garbled(scheme, subtractors * adder_ands(width, lane)) + open;
    if cp3_masks {
        cost + cp3_bits(width)
    } else {
        cost
    }
}

/// Items run as one batch: the bytes of all, the messages of one.
fn batch(items: impl IntoIterator<Item = Cost>) -> Cost {
    items.into_iter().fold(Cost::default(), |acc, c| Cost {
        bytes: acc.bytes + c.bytes,
        flights: acc.flights.max(c.flights),
    })
}

/// The hybrid mode's run of `program` garbled whole: inputs joined in
/// their lanes, the program, outputs masked.
pub fn garbled_whole(
    program: &Program,
    input_lanes: &[u32],
    output_lanes: &[u32],
    scheme: Scheme,
) -> Cost {
    let main = &program.main;
    // The choice's seed.
    let mut cost = Cost {
        bytes: HELLOS + labels(1),
        flights: 1,
    };
    let inputs = main.inputs.iter().zip(input_lanes);
    cost = cost + batch(inputs.map(|(v, &lane)| join(scheme, v.width as u64, lane as u64)));
    cost = cost + garbled(scheme, program.and_count());
    let outputs = main.outputs.iter().zip(output_lanes);
    let masks = outputs.map(|(v, &lane)| mask(scheme, v.wires.len() as u64, lane as u64, true));
    cost + batch(masks)
}

/// A run of the mixed program `m`, with its rounds.
pub fn mixed(
    m: &SharedMixed,
    input_lanes: &[u32],
    output_lanes: &[u32],
    scheme: Scheme,
) -> Result<(Cost, usize), ProtocolError> {
    let plan = Plan::of_shared(&m.program)?;
    let program = &m.program;
    // The zero-sharing keys and the choice's seed.
    let mut cost = Cost {
        bytes: HELLOS + 4 * labels(1),
        flights: 2,
    };
    // Inputs that widen a lane convert its wrap count (or, as factors of
    // a fused product, give its AND gates); others that are not a lane's
    // low bits are joined, and their words converted back.
    let lane_of = |s: &super::Slice| input_lanes.get(s.value).copied().unwrap_or(1);
    let fused_products = fused_terms(m, &plan, |k| {
        let lane = lane_of(&m.sources[k]);
        m.widens_lane(k, lane).then_some(lane)
    });
    let is_fused = |v: usize| {
        let v = v as u32;
        fused_products.iter().any(|f| f.x.0 == v || f.y.0 == v)
    };
    let signed = |v: u32| m.sources[v as usize].signed;
    let mut joined = vec![false; m.input_values.len()];
    let (mut wraps, mut masks) = (Vec::new(), Vec::new());
    for (k, v, s) in m.sliced_inputs() {
        let lane = lane_of(s);
        if m.is_lane_word(k, lane) {
            continue;
        }
        let w = v.kind.bits() as u64;
        if m.widens_lane(k, lane) {
            let modulus = (!is_fused(k)).then_some(w - lane as u64);
            wraps.push(wrap_count(scheme, lane as u64, s.signed, modulus));
            continue;
        }
        joined[s.value] = true;
        if let Kind::Word(_) = v.kind {
            masks.push(mask(scheme, w, w, false));
        }
    }
    let joins = m
        .input_values
        .iter()
        .enumerate()
        .filter(|(k, _)| joined[*k])
        .map(|(k, &(_, width))| {
            let lane = input_lanes.get(k).copied().unwrap_or(width);
            join(scheme, width as u64, lane as u64)
        });
    let fused_costs = fused_products
        .iter()
        .map(|f| fused(scheme, f, [signed(f.x.0), signed(f.y.0)]));
    cost = cost + batch(joins.chain(wraps).chain(fused_costs)) + batch(masks);
    let width = |v: u32| plan.kinds[v as usize].bits() as u64;
    for wave in &plan.waves {
        let mut factors = std::collections::BTreeSet::new();
        let (mut to_yao, mut to_arith) = (Vec::new(), Vec::new());
        for &i in &wave.sending {
            let step = &program.steps[i];
            match step {
                Step::Mul(..) | Step::Dot(..) => {
                    let pairs = factor_pairs(step).into_iter().zip(&plan.terms[i]);
                    for (k, ((x, y), t)) in pairs.enumerate() {
                        let fused = fused_products.iter().any(|f| (f.step, f.term) == (i, k));
                        if *t == Term::Beaver && !fused {
                            factors.extend([x, y]);
                        }
                    }
                }
                Step::ToYao(x) => to_yao.push(join(scheme, width(*x), width(*x))),
                Step::ToArith(x) => to_arith.push(mask(scheme, width(*x), width(*x), false)),
                Step::Inject { width: w, .. } => {
                    to_arith.push(mask(scheme, *w as u64, *w as u64, false))
                }
                _ => {}
            }
        }
        cost = cost + batch(to_yao) + batch(to_arith);
        // Each factor value once (an estimate: one replicated earlier
        // would not be sent again).
        let factor_bits: u64 = factors.iter().map(|&v| width(v)).sum();
        if factor_bits > 0 {
            // Each party passes its shares of the factors back once.
            cost = cost
                + Cost {
                    bytes: 3 * bits(factor_bits),
                    flights: 2,
                };
        }
        for &i in &wave.local {
            if let Step::Boolean { program: p, .. } = &program.steps[i] {
                cost = cost + garbled(scheme, program.programs[*p as usize].and_count());
            }
        }
    }
    let outputs = m.output_values.iter().zip(output_lanes).enumerate();
    let masked = outputs.filter(|&(j, (_, &lane))| !m.lanes_are_words(&plan.kinds, j, lane));
    let masks =
        masked.map(|(_, ((_, out), &lane))| mask(scheme, out.len() as u64, lane as u64, true));
    Ok((cost + batch(masks), plan.rounds()))
}
