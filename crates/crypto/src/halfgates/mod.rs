//! Half-gates garbling (Zahur–Rosulek–Evans) with free XOR, as pure cores:
//! no IO, no allocation in the hot loop.
//!
//! For an AND gate `c = a ∧ b` with id `g` the tweaks are `j = 2g` and
//! `j' = 2g + 1`, and with `H` the [TCCR hash](crate::tccr):
//!
//! * garbler: `pa = lsb(A0)`, `pb = lsb(B0)`,
//!   `TG = H(A0,j) ⊕ H(A0⊕Δ,j) ⊕ pb·Δ`, `WG = H(A0,j) ⊕ pa·TG`,
//!   `TE = H(B0,j') ⊕ H(B0⊕Δ,j') ⊕ A0`, `WE = H(B0,j') ⊕ pb·(TE ⊕ A0)`,
//!   `C0 = WG ⊕ WE`; the table is `(TG, TE)`.
//! * evaluator: `sa = lsb(A)`, `sb = lsb(B)`,
//!   `C = H(A,j) ⊕ sa·TG ⊕ H(B,j') ⊕ sb·(TE ⊕ A)`.
//!
//! XOR gates are free (`C = A ⊕ B` on both sides); an INV gate is
//! `C0 = A0 ⊕ Δ` for the garbler and `C = A` for the evaluator.
//!
//! AND gates are processed in chunks of up to [`AND_CHUNK`] consecutive AND
//! gates (by the gate loops shared with three-halves) (a chunk also ends where gate ids reach 2^63): all inputs of a chunk
//! are read, hashed in batches, then all outputs are written, in gate order.
//! The gate list must therefore be *levelled*: within every maximal run of
//! consecutive AND gates, no gate reads a wire written by an earlier gate of
//! the same run. (A gate may overwrite the slot one of its own inputs came
//! from, or one read by another gate of its run.) Garbler and evaluator chunk
//! identically on every backend, so they always agree with each other; the
//! levelled order makes them agree with plaintext evaluation too.
//!
//! Tables are bytes: 32 per AND gate, `TG` then `TE`, each a little-endian
//! block, in gate order. Every wire is checked against the label slice and
//! every table read against the tables given; bad input is reported as a
//! [`CryptoError`](crate::CryptoError), never a panic.

mod batch;
mod evaluator;
mod garbler;
mod soft;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use crate::batch::AND_CHUNK;
pub use crate::label::{ActiveLabel, ZeroLabel};
pub use evaluator::Evaluator;
pub use garbler::Garbler;

use crate::scheme::{GarblingScheme, Scheme};

/// The half-gates scheme: `(TG, TE)`, two blocks per AND gate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HalfGates;

impl GarblingScheme for HalfGates {
    const KIND: Scheme = Scheme::HalfGates;
    type Garbler = Garbler;
    type Evaluator = Evaluator;

    const PER_GATE_TABLES: bool = true;

    #[inline]
    fn table_bytes(and_gates: usize) -> usize {
        batch::GATE_BYTES * and_gates
    }
}
