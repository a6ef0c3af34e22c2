//! Which OT extension each correlated-OT instance of a run uses.
//!
//! A two-party arithmetic run has up to three instances: the direction in
//! which A's vectors meet B's scalars (A is the extension's sender), the
//! reverse direction, and the garbling's (B's garbled inputs and A→Y).
//! Both parties must give each instance the same extension; the mixed
//! executor chooses them from the program (`mixed::cost::extensions`).

use twofold_ot::Extension;

/// The OT extension of each instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extensions {
    /// A's vectors times B's scalars (A sends).
    pub a_vectors: Extension,
    /// B's vectors times A's scalars (B sends).
    pub b_vectors: Extension,
    /// The garbling's: B's garbled inputs and A→Y conversions.
    pub garbling: Extension,
}

impl Default for Extensions {
    /// [`Extension::DEFAULT`] for every instance.
    fn default() -> Extensions {
        Extensions {
            a_vectors: Extension::DEFAULT,
            b_vectors: Extension::DEFAULT,
            garbling: Extension::DEFAULT,
        }
    }
}
