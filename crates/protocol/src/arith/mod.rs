//! Two-party arithmetic sharing beside the garbled circuits (issue 29,
//! the protocol half): additive shares modulo 2^w, products by correlated
//! OT, and conversions to and from garbled values.
//!
//! * [`ring`]: the ring Z_2^w ([`Width`]) and the local operations on
//!   shares (add, sub, neg, multiplication by a public constant, inputs).
//! * [`Arith`]: one party of the protocol: layers of products of one
//!   party's values with the other's ([`Arith::cross`], Gilboa's product
//!   by correlated OT; [`Arith::matmul`] for a matrix product), Beaver
//!   triples made from the same products in a batched offline phase
//!   ([`Arith::triples`]) and the layers of shared products they serve
//!   ([`Arith::mul`], [`Arith::dot`]), opening ([`Arith::open`]), bit
//!   injection ([`Arith::inject_bits`]); it counts the messages waited
//!   for ([`Arith::flights`]).
//! * [`YaoGarbler`] and [`YaoEvaluator`]: A→Y, Y→A and Y→B over the
//!   session's garbling engines.
//! * [`Extensions`]: the OT extension each correlated-OT instance runs.
//! * [`cost`]: the bytes and messages of each operation, as formulas for
//!   a cost model.
//! * [`packed`]: words of any bit length packed tight into a message, and
//!   the checked reader of a peer's (public for the `packed` fuzz target);
//!   [`stream`]: such a message sent and received a piece at a time
//!   (public for the same target).
//!
//! Party A is the garbler of conversions; every product is symmetric in
//! the parties. `docs/arith.md` gives the protocols, their costs and the
//! security argument for every message a party receives.

mod convert;
pub mod cost;
mod extensions;
pub mod packed;
mod party;
pub mod ring;
pub mod stream;
mod vole;

pub use convert::{YaoEvaluator, YaoGarbler};
pub use extensions::Extensions;
pub use packed::PACKED_FRAME;
pub use party::{Arith, Cross, CrossShares, Factor, Triples};
pub use ring::Width;
