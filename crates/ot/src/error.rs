//! Errors of the OT layer.

use twofold_net::NetError;

/// Errors of base OT and OT extension. None of them carries secret data.
/// Each message includes its cause, and no variant exposes it again as
/// [`source`](std::error::Error::source).
#[derive(Debug, thiserror::Error)]
pub enum OtError {
    /// The channel failed: the peer disconnected, stalled or sent a frame of
    /// the wrong size.
    #[error("OT network error: {0}")]
    Net(NetError),
    /// The peer sent bytes that are not a valid Ristretto255 point (or the
    /// identity where a non-trivial point is required).
    #[error("malformed message from the peer: {what} {index} is not a valid group element")]
    InvalidPoint {
        /// Which message the point belongs to.
        what: &'static str,
        /// Position of the point in its message.
        index: usize,
    },
    /// The two parties asked for different numbers of OTs.
    #[error("OT count mismatch: this party expects {ours} OTs, the peer {theirs}")]
    CountMismatch {
        /// The count given to this party.
        ours: u64,
        /// The count announced by the peer.
        theirs: u64,
    },
    /// An output buffer's length differs from the number of choices.
    #[error("output buffer holds {out} labels for {choices} choice bits")]
    OutputLength {
        /// Number of choice bits.
        choices: usize,
        /// Length of the output buffer.
        out: usize,
    },
    /// The channel's maximum frame length is below what the protocol needs.
    #[error("the channel's maximum frame length {max} is below the {needed} bytes OT needs")]
    FrameLimit {
        /// Bytes one OT message needs in a frame.
        needed: usize,
        /// The channel's maximum frame length.
        max: usize,
    },
    /// An OT extension with parameters this crate does not implement.
    #[error("unsupported OT extension {0} (SoftSpoken takes 2 to 8 bits per group)")]
    BadExtension(String),
    /// The operating system's random number generator failed.
    #[error("OS randomness unavailable: {0}")]
    Randomness(String),
}

impl From<NetError> for OtError {
    fn from(e: NetError) -> Self {
        OtError::Net(e)
    }
}

/// Result type of this crate.
pub type Result<T> = std::result::Result<T, OtError>;
