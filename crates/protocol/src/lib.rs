//! The Yao protocol of twofold: handshake, input phase (garbler labels and
//! correlated OT for the evaluator's bits), streamed garbling and evaluation,
//! output decoding. Party A garbles, party B evaluates.
//!
//! The garbling and evaluation engines are the pure cores of
//! `twofold-crypto` (half-gates or three-halves, as the parties agree at the
//! handshake), driven through [`twofold_circuit::Engine`]; this crate only
//! moves their bytes over a [`Channel`](twofold_net::Channel).

pub mod arith;
mod balance;
pub mod budget;
pub mod engine;
pub mod error;
mod fgp;
pub mod garble_only;
pub mod handshake;
pub mod hybrid;
pub mod ipp;
pub mod local;
pub mod messages;
pub mod mixed;
pub mod mixed3;
pub mod options;
pub mod peer;
pub mod remote;
pub mod schedule;
pub mod session;

pub use error::ProtocolError;
pub use garble_only::{evaluate_only, garble_only, GarbleOnlyReport};
pub use hybrid::{
    run_hybrid, run_hybrid_local, run_mixed3, run_mixed3_local, HybridOptions, HybridPeers,
    HybridPhase, HybridReport, RunId,
};
pub use local::run_local;
pub use options::{
    IppMode, PartyInputs, Progress, Reveal, Role, Schedule, SessionOptions, ShareKind,
};
pub use peer::{Endpoint, Peer};
pub use remote::{run_mixed_remote, run_remote};
pub use schedule::Plan;
pub use session::{run_session, Phase, SessionReport};

/// Version of the wire protocol; both parties must speak the same. (4:
/// labels and bits go in frames of at most 1 MiB; FGP splits AND runs in
/// rounds of bounded frames. 5: rounds of `threads × 8192` gates, not
/// `threads × 32768`, which cuts the tables differently. 6: link bindings
/// name their sender's role; the hybrid hello carries the store id and the
/// input shares' run ids; CP3 chooses labels from padded pairs, without Δ.
/// 7: additive shares are taken per lane; the hybrid hello carries the
/// lanes of the inputs and outputs; CP1 and CP3 draw the oblivious choice's
/// pads from a seed CP1 sends, instead of CP1 sending them. 8: correlated
/// OT by SoftSpoken with 4-bit groups instead of IKNP; the session id
/// hashes the extension's name. 9: SoftSpoken's GGM corrections go with an
/// instance's first batch, not with its setup. 10: each instance runs IKNP
/// where its OTs, known before its setup, cost fewer bytes so.)
pub const PROTOCOL_VERSION: u32 = 10;
