//! Oblivious transfer for twofold: batched base OT on Ristretto255
//! (Chou–Orlandi) and correlated OT extension (IKNP or SoftSpoken) with the
//! garbler's free-XOR offset Δ as the correlation.
//!
//! All state lives in the [`CotSender`] and [`CotReceiver`] values, so one
//! party can run several instances at once (e.g. sender in one direction and
//! receiver in the other, each over its own channel). Every function takes
//! any [`Transport`](twofold_net::Transport): the TCP
//! [`Channel`](twofold_net::Channel) in a session, the in-memory
//! [`MemoryTransport`](twofold_net::MemoryTransport) pair in tests.
//! Nothing here prints or logs keys, seeds or Δ.

pub mod base;
pub mod cot;
pub mod error;
mod iknp;
mod softspoken;
// The workspace denies `unsafe`; the bit-matrix transpose uses SSE2
// intrinsics (see the module).
#[allow(unsafe_code)]
pub mod transpose;

pub use base::{base_receive, base_send};
pub use cot::{CotReceiver, CotSender, Extension};
pub use error::{OtError, Result};
