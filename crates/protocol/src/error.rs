//! Errors of a two-party session.

use twofold_crypto::CryptoError;
use twofold_net::NetError;
use twofold_ot::OtError;

/// Why a session failed. Messages never contain labels, Δ or input values.
#[derive(Debug, thiserror::Error)]
pub enum ProtocolError {
    /// This party could not listen on the address given.
    #[error("cannot listen on {addr}")]
    Listen {
        /// The address.
        addr: String,
        /// Why.
        source: NetError,
    },
    /// The first connection to the peer could not be opened (no peer
    /// connected, or none could be reached, in time).
    #[error(transparent)]
    Meet(NetError),
    /// The network failed or the peer left, stalled or sent an oversized frame.
    #[error("network: {0}")]
    Net(#[from] NetError),
    /// Oblivious transfer failed.
    #[error("oblivious transfer: {0}")]
    Ot(#[from] OtError),
    /// The garbling core rejected the work (e.g. too few tables from the peer).
    #[error("garbling: {0}")]
    Crypto(#[from] CryptoError),
    /// The two parties do not agree on what to run.
    #[error("the parties disagree on {what}: this party has {ours}, the peer has {theirs}")]
    Mismatch {
        /// What differs.
        what: &'static str,
        /// This party's value.
        ours: String,
        /// The peer's value.
        theirs: String,
    },
    /// The peer sent something that is not a valid message at this point.
    #[error("malformed message from the peer: {0}")]
    Malformed(String),
    /// This party's own inputs do not fit the program.
    #[error("inputs: {0}")]
    Inputs(String),
}
