//! Errors of a two-party session.

use twofold_crypto::CryptoError;
use twofold_net::NetError;
use twofold_ot::OtError;

/// Why a session failed. Messages never contain labels, Δ or input values.
/// Each message includes its cause, and no variant exposes it again as
/// [`source`](std::error::Error::source), so a printed chain names every
/// cause once.
#[derive(Debug, thiserror::Error)]
pub enum ProtocolError {
    /// This party could not listen on the address given.
    #[error("cannot listen on {addr}: {cause}")]
    Listen {
        /// The address.
        addr: String,
        /// Why.
        cause: NetError,
    },
    /// The first connection to the peer could not be opened (no peer
    /// connected, or none could be reached, in time).
    #[error("{0}")]
    Meet(NetError),
    /// The network failed or the peer left, stalled or sent an oversized frame.
    #[error("network: {0}")]
    Net(NetError),
    /// Oblivious transfer failed.
    #[error("oblivious transfer: {0}")]
    Ot(OtError),
    /// The garbling core rejected the work (e.g. too few tables from the peer).
    #[error("garbling: {0}")]
    Crypto(CryptoError),
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
    /// The program is too large for what was asked of the session.
    #[error("{0}")]
    TooLarge(String),
    /// This party's own inputs do not fit the program.
    #[error("inputs: {0}")]
    Inputs(String),
    /// A thread sharing this party's work stopped because another failed
    /// (the other's error is the one reported).
    #[error("a worker thread stopped: {0}")]
    Stopped(String),
    /// A check of this party's own bookkeeping failed (a bug; the run stops
    /// rather than reuse a hash tweak).
    #[error("internal check failed: {0}")]
    Internal(String),
}

/// Wraps an error of a lower layer as its variant (the cause stays in the
/// message, not in `source`).
macro_rules! wrap {
    ($($from:ty => $variant:ident),*) => {$(
        impl From<$from> for ProtocolError {
            fn from(e: $from) -> Self {
                ProtocolError::$variant(e)
            }
        }
    )*};
}

wrap!(NetError => Net, OtError => Ot, CryptoError => Crypto);
