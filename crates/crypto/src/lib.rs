//! Cryptographic core of twofold: blocks, fixed-key AES, the TCCR hash, the
//! PRG and the half-gates garbler and evaluator.
//!
//! * [`block`]: the 128-bit [`Block`] and byte conversions for the network.
//! * [`aes`]: AES-128 with run-time dispatch over the portable, AES-NI,
//!   VAES-256 and VAES-512 [`Backend`]s (bit-identical results).
//! * [`prg`]: AES-CTR [`Prg`] seeded from the OS; [`delta`]: the free-XOR
//!   offset [`Delta`].
//! * [`tccr`]: the TCCR hash `H(X, t) = π(π(X) ⊕ t) ⊕ π(X)`.
//! * [`scheme`]: the [`GarblingScheme`] seam (table size, garbler and
//!   evaluator of a scheme).
//! * [`halfgates`]: the half-gates [`Garbler`] and [`Evaluator`] cores
//!   ([`HalfGates`]); [`threehalves`]: the three-halves cores
//!   ([`ThreeHalves`]); both run the same gate loops (module `batch`).
//! * [`crew`]: persistent helper threads for splitting an AND run between
//!   threads ([`Crew`]).
//! * [`memory`]: the cores as in-memory engines, garbling into a table
//!   buffer and evaluating from it ([`MemoryGarbler`], [`MemoryEvaluator`]);
//!   [`speed`]: their speed on one core under either scheme ([`core_speed`]).
//!
//! Secrets (labels, Δ, keys, PRG state) are never printed: their `Debug`
//! forms hide them.
//!
//! This crate and `twofold-ot` are the only ones allowed `unsafe` (the
//! workspace denies it): SIMD AES kernels behind run-time feature checks,
//! the garbling loops' unchecked label access, byte views of blocks, and
//! the crew's hand-off of a borrowed job to its threads.
//! Every `unsafe` block states why it is sound.

#![allow(unsafe_code)]

pub mod aes;
mod batch;
pub mod block;
pub mod crew;
pub mod delta;
pub mod dispatch;
pub mod error;
pub mod halfgates;
mod hw;
mod label;
pub mod memory;
pub mod prg;
pub mod scheme;
pub mod speed;
pub mod tccr;
pub mod threehalves;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use aes::{Aes128, Backend, FIXED_KEY};
#[cfg(target_endian = "little")]
pub use block::{blocks_as_bytes, blocks_as_bytes_mut};
pub use block::{blocks_from_byte_vec, blocks_from_bytes, Block};
pub use crew::{Barrier, BarrierGuard, CalledOff, Crew};
pub use delta::Delta;
pub use dispatch::SchemeJob;
pub use error::CryptoError;
pub use halfgates::{ActiveLabel, Evaluator, Garbler, HalfGates, ZeroLabel};
pub use label::WireLabel;
pub use memory::{MemoryEvaluator, MemoryGarbler};
pub use prg::Prg;
pub use scheme::{EvaluatorOf, GarblingScheme, Scheme, SchemeEvaluator, SchemeGarbler};
pub use speed::{core_speed, CoreSpeed};
pub use tccr::Tccr;
pub use threehalves::ThreeHalves;
