//! What each operation moves: bytes on the wire (both parties together,
//! frame headers included) and messages waited for, as formulas a cost
//! model can weigh for a network. `tests/arith_costs.rs` checks every
//! formula against the bytes counted on the channel.

use twofold_crypto::{GarblingScheme, HalfGates, Scheme, ThreeHalves};
use twofold_net::HEADER_LEN;
use twofold_ot::Extension;

use super::extensions::Extensions;
use super::packed::PACKED_FRAME;
use super::ring::Width;
use crate::messages::{BITS_PER_FRAME, LABELS_PER_FRAME};

/// Bytes and messages of an operation (sums saturate).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    /// Bytes both parties send, frame headers included.
    pub bytes: u64,
    /// Messages a party waits for (see [`Arith::flights`](super::Arith::flights)).
    pub flights: u64,
}

impl std::ops::Add for Cost {
    type Output = Cost;
    fn add(self, o: Cost) -> Cost {
        Cost {
            bytes: self.bytes.saturating_add(o.bytes),
            flights: self.flights.saturating_add(o.flights),
        }
    }
}

const HEADER: u64 = HEADER_LEN as u64;

/// Frames of `n` items sent `per_frame` at a time, with at least `min`.
fn frames(n: u64, per_frame: usize, min: u64) -> u64 {
    n.div_ceil(per_frame as u64).max(min)
}

/// The correlated-OT batch of `m` OTs (the evaluator's garbled input bits,
/// or a cross product's) by the instance's extension `ext`: a count frame,
/// then per chunk the extension's lines of the rows padded to 128.
pub fn cot(ext: Extension, m: u64) -> u64 {
    ext.batch_bytes(m)
}

/// A packed message of `bits` bits.
fn packed(bits: u64) -> u64 {
    let bytes = bits.div_ceil(8);
    bytes + HEADER * frames(bytes, PACKED_FRAME, 0)
}

/// Labels of `n` wires (one frame even for none).
pub fn labels(n: u64) -> u64 {
    16 * n + HEADER * frames(n, LABELS_PER_FRAME, 1)
}

/// Decoding bits (or XOR shares) of `n` wires.
pub fn bits(n: u64) -> u64 {
    n.div_ceil(8) + HEADER * frames(n, BITS_PER_FRAME, 1)
}

/// Garbled tables of `ands` AND gates under `scheme`, in frames of about
/// 128 KiB (three halves: to within a byte per garbling call).
pub fn tables(scheme: Scheme, ands: u64) -> u64 {
    // Far beyond any run; saturates rather than overflows.
    let ands = ands.min(1 << 56);
    let bytes = match scheme {
        Scheme::HalfGates => HalfGates::table_bytes(ands as usize),
        Scheme::ThreeHalves => ThreeHalves::table_bytes(ands as usize),
    } as u64;
    bytes + HEADER * frames(bytes, 128 << 10, 0)
}

/// The OTs of one direction of [`Arith::cross`](super::Arith::cross) with
/// `groups` scalars of `scalar_bits` bits (none: no batch).
pub fn cross_ots(scalar_bits: u32, groups: u64) -> u64 {
    groups * scalar_bits as u64
}

/// One direction of [`Arith::cross`](super::Arith::cross), by the
/// direction's extension `ext`: `groups` scalars of `scalar_bits` bits
/// times vectors of `words` words in all.
pub fn cross_direction(
    width: Width,
    scalar_bits: u32,
    (groups, words): (u64, u64),
    ext: Extension,
) -> u64 {
    if groups == 0 {
        return 0;
    }
    let per_word: u64 = (0..scalar_bits).map(|i| (width.bits() - i) as u64).sum();
    cot(ext, cross_ots(scalar_bits, groups)) + packed(words * per_word)
}

/// A layer of [`Arith::cross`](super::Arith::cross): A's `a_groups`
/// vectors of `a_words` words in all times B's scalars, and B's the other
/// way, with the directions' extensions in `exts`.
pub fn cross(
    width: Width,
    (a_groups, a_words): (u64, u64),
    (b_groups, b_words): (u64, u64),
    exts: &Extensions,
) -> Cost {
    let bits = width.bits();
    Cost {
        bytes: cross_direction(width, bits, (a_groups, a_words), exts.a_vectors)
            + cross_direction(width, bits, (b_groups, b_words), exts.b_vectors),
        flights: match (a_groups, b_groups) {
            (0, 0) => 0,
            (0, _) | (_, 0) => 2,
            _ => 3,
        },
    }
}

/// [`Arith::matmul`](super::Arith::matmul) of an `n×m` by an `m×p` matrix.
pub fn matmul(width: Width, (n, m, p): (u64, u64, u64), exts: &Extensions) -> Cost {
    cross(width, (m * p, n * m * p), (0, 0), exts)
}

/// [`Arith::triples`](super::Arith::triples) of `n` triples.
pub fn triples(width: Width, n: u64, exts: &Extensions) -> Cost {
    cross(width, (n, n), (n, n), exts)
}

/// [`Arith::open`](super::Arith::open) of `n` words to both parties.
pub fn open(width: Width, n: u64) -> Cost {
    Cost {
        bytes: 2 * packed(n * width.bits() as u64),
        flights: 2,
    }
}

/// A layer of `n` [`Arith::mul`](super::Arith::mul) products (online;
/// each uses up a triple).
pub fn mul(width: Width, n: u64) -> Cost {
    open(width, 2 * n)
}

/// [`Arith::inject_bits`](super::Arith::inject_bits) of `n` bits (A's
/// vectors).
pub fn inject_bits(width: Width, n: u64, exts: &Extensions) -> Cost {
    Cost {
        bytes: cross_direction(width, 1, (n, n), exts.a_vectors),
        flights: if n == 0 { 0 } else { 2 },
    }
}

/// A→Y of `n` values ([`YaoGarbler::from_shares`](super::YaoGarbler::from_shares)).
/// B's shares come by the garbling's correlated OT (`exts.garbling`).
pub fn to_yao(width: Width, n: u64, scheme: Scheme, exts: &Extensions) -> Cost {
    let wires = n * width.bits() as u64;
    Cost {
        bytes: cot(exts.garbling, wires)
            + labels(wires)
            + tables(scheme, n * (width.bits() as u64 - 1)),
        flights: 2,
    }
}

/// Y→A of `n` values ([`YaoGarbler::to_shares`](super::YaoGarbler::to_shares)).
pub fn to_arith(width: Width, n: u64, scheme: Scheme) -> Cost {
    let wires = n * width.bits() as u64;
    Cost {
        bytes: labels(wires) + tables(scheme, n * (width.bits() as u64 - 1)) + bits(wires),
        flights: 1,
    }
}
