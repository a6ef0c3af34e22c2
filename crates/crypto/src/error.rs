//! Errors of the cryptographic layer.

/// Errors returned by the public APIs of `twofold-crypto`.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CryptoError {
    /// The OS random number generator failed.
    #[error("OS randomness unavailable: {0}")]
    Randomness(String),
    /// The requested AES backend is not supported by this CPU.
    #[error("AES backend {0} is not available on this CPU")]
    BackendUnavailable(&'static str),
    /// Fewer garbled-table bytes were supplied than the AND gates need.
    #[error("garbled tables too short: need {needed} bytes, got {got}")]
    TablesTooShort {
        /// Bytes the gates consume.
        needed: usize,
        /// Bytes supplied.
        got: usize,
    },
    /// A gate reads or writes a wire outside the label slice.
    #[error("gate {gate} uses wire {wire}, but only {num_wires} label slots exist")]
    WireOutOfRange {
        /// Index of the gate within the slice given.
        gate: usize,
        /// The offending wire.
        wire: u32,
        /// Length of the label slice.
        num_wires: usize,
    },
    /// The AND-gate counter would overflow its 64-bit tweak space.
    #[error("AND-gate id space exhausted")]
    GateIdOverflow,
    /// Two slices that must have the same length do not.
    #[error("length mismatch: {left} vs {right}")]
    LengthMismatch {
        /// Length of the first slice.
        left: usize,
        /// Length of the second slice.
        right: usize,
    },
    /// A byte buffer's length is not a multiple of 16.
    #[error("byte length {0} is not a multiple of 16")]
    BadByteLength(usize),
    /// Evaluating in memory gave an output label that is neither of its
    /// wire's labels (see [`core_speed`](crate::speed::core_speed)).
    #[error("evaluation did not reproduce the garbled outputs")]
    WrongOutputs,
}
