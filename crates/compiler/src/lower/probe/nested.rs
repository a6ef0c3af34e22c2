//! Reads within nested probes (see [`MAX_NESTED_READ_BITS`]).

use super::*;

/// The most bits (a sum's rows, not yet reduced) a value read inside
/// nested probes may hold: each probe copies and encodes what it reads,
/// so probes within probes reading a sum that grows with every iteration
/// (`h += m[i][k]` in a k/i/j nest) cost many times the loops' lowering.
/// No loop kept in the examples reads more than 128.
const MAX_NESTED_READ_BITS: usize = 1024;

/// Why a probe fails on reading such a value (see [`MAX_NESTED_READ_BITS`]).
pub(super) const BIG_READ: &str =
    "its probes, within another loop's, read a sum of more than 1024 bits not yet reduced";

/// Whether `v` holds more than [`MAX_NESTED_READ_BITS`].
pub(super) fn too_big_for_nested(v: &Slot) -> bool {
    let mut bits = 0;
    v.for_each_bit(&mut |_| bits += 1);
    bits > MAX_NESTED_READ_BITS
}
