//! The garbling-scheme seam: what code that streams garbled tables needs to
//! know about a scheme, so that a second scheme is an addition beside
//! [`HalfGates`](crate::halfgates::HalfGates), not an edit of its users.
//!
//! A scheme keeps free XOR (a wire's 1-label is its 0-label ⊕ Δ, XOR and INV
//! gates make no table) and garbles the AND gates of each call to
//! [`SchemeGarbler::garble`] into [`table_bytes`](GarblingScheme::table_bytes)
//! bytes of table. Tables are a byte string per call, not necessarily a
//! whole number of bytes per gate (three-halves packs its control bits per
//! call), so **the evaluator must evaluate the same runs of gates in its
//! calls as the garbler garbled in its calls**; both engines of a session
//! walk the program in the same steps, which is what makes them agree.
//! Both sides number the AND gates from a first id given at construction;
//! garbler and evaluator built with the same first id agree.

use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;

use crate::aes::Backend;
use crate::batch::Core;
use crate::delta::Delta;
use crate::error::CryptoError;
use crate::label::{ActiveLabel, ZeroLabel};
use twofold_circuit::Gate;

/// A garbling scheme: its table size and its two sides.
pub trait GarblingScheme: Send + Sync + 'static {
    /// The scheme's name (for the handshake and the command line).
    const KIND: Scheme;
    /// The garbling side.
    type Garbler: SchemeGarbler;
    /// The evaluating side.
    type Evaluator: SchemeEvaluator;

    /// Bytes of table one call garbling `and_gates` AND gates appends.
    fn table_bytes(and_gates: usize) -> usize;

    /// Whether an AND gate's table is the same whatever call garbles it
    /// (so a run garbled in one call or cut into several gives the same
    /// bytes): true when tables are whole per gate, false when a call
    /// packs bits of several gates together.
    const PER_GATE_TABLES: bool;
}

/// The garbling side of a scheme: holds Δ, its secret coins if it has any,
/// and the id of the next AND gate.
///
/// A garbler is not `Clone`: a copy would garble again under the same tweaks
/// and Δ, which hands Δ to the evaluator. [`at_gate`](SchemeGarbler::at_gate)
/// is the one way to a second garbler, and it starts elsewhere.
///
/// ```compile_fail
/// fn cloneable<T: Clone>() {}
/// cloneable::<twofold_crypto::halfgates::Garbler>();
/// ```
/// ```compile_fail
/// fn cloneable<T: Clone>() {}
/// cloneable::<twofold_crypto::threehalves::Garbler>();
/// ```
pub trait SchemeGarbler: Send + Sync + Sized {
    /// A fresh garbler with offset `delta` whose first AND gate gets id
    /// `first_gate_id`, on the fastest AES backend (a scheme that needs
    /// random coins draws their key from the OS, and fails if the OS cannot
    /// supply it).
    fn new(delta: Delta, first_gate_id: u64) -> Result<Self, CryptoError>;

    /// This garbler (same Δ, same coins) continuing at AND gate `gate_id`:
    /// what a part of a parallel AND run, or a skip over AND gates garbled
    /// elsewhere, uses.
    fn at_gate(&self, gate_id: u64) -> Self;

    /// The free-XOR offset Δ.
    fn delta(&self) -> Delta;

    /// The id the next AND gate will get.
    fn next_gate_id(&self) -> u64;

    /// The AES backend in use.
    fn backend(&self) -> Backend;

    /// Garbles `gates` over 0-labels indexed by wire, appending
    /// [`table_bytes`](GarblingScheme::table_bytes) of their AND count to
    /// `tables`. On failure `tables` and the gate counter are unchanged and
    /// `labels` must be discarded.
    fn garble(
        &mut self,
        gates: &[Gate],
        labels: &mut [ZeroLabel],
        tables: &mut Vec<u8>,
    ) -> Result<(), CryptoError>;

    /// The label encoding `bit` on a wire with 0-label `zero`:
    /// `zero ⊕ bit·Δ` (free XOR makes this the same for every scheme).
    #[inline]
    fn encode(&self, zero: ZeroLabel, bit: bool) -> ActiveLabel {
        zero.encode(self.delta(), bit)
    }
}

/// The evaluating side of a scheme: holds the id of the next AND gate.
pub trait SchemeEvaluator: Clone + Send + Sync + Sized {
    /// An evaluator whose first AND gate gets id `first_gate_id`, on the
    /// fastest AES backend.
    fn new(first_gate_id: u64) -> Self;

    /// The id the next AND gate will get.
    fn next_gate_id(&self) -> u64;

    /// Evaluates `gates` on active labels indexed by wire, consuming exactly
    /// [`table_bytes`](GarblingScheme::table_bytes) of their AND count from
    /// the front of `tables` (what the garbler's call on the same gates
    /// appended; extra bytes are ignored). On failure the gate counter is
    /// unchanged and `labels` must be discarded.
    fn evaluate(
        &mut self,
        gates: &[Gate],
        labels: &mut [ActiveLabel],
        tables: &[u8],
    ) -> Result<(), CryptoError>;
}

/// The evaluator of scheme `S` (the evaluator keeps no secrets, so every
/// scheme's is the id of the next AND gate and the hash; its
/// [`SchemeEvaluator`] implementation is the scheme's).
#[derive(Debug)]
pub struct EvaluatorOf<S> {
    pub(crate) core: Core,
    scheme: PhantomData<S>,
}

impl<S> Clone for EvaluatorOf<S> {
    fn clone(&self) -> Self {
        EvaluatorOf {
            core: self.core.clone(),
            scheme: PhantomData,
        }
    }
}

impl<S> EvaluatorOf<S> {
    /// An evaluator whose first AND gate gets id `first_gate_id`, on the
    /// fastest AES backend.
    pub fn new(first_gate_id: u64) -> Self {
        EvaluatorOf {
            core: Core::new(first_gate_id),
            scheme: PhantomData,
        }
    }

    /// As [`EvaluatorOf::new`] on a given AES backend (fails if unavailable).
    pub fn with_backend(first_gate_id: u64, backend: Backend) -> Result<Self, CryptoError> {
        Ok(EvaluatorOf {
            core: Core::with_backend(first_gate_id, backend)?,
            scheme: PhantomData,
        })
    }

    /// The id the next AND gate will get.
    pub fn next_gate_id(&self) -> u64 {
        self.core.next_gate
    }

    /// The AES backend in use.
    pub fn backend(&self) -> Backend {
        self.core.tccr.backend()
    }
}

/// The [`SchemeGarbler`] methods that only read a garbler's `delta: Delta`
/// and `core` fields (every scheme's garbler has them).
macro_rules! garbler_accessors {
    () => {
        fn delta(&self) -> Delta {
            self.delta
        }

        fn next_gate_id(&self) -> u64 {
            self.core.next_gate
        }

        fn backend(&self) -> Backend {
            self.core.tccr.backend()
        }
    };
}
pub(crate) use garbler_accessors;

/// The garbling schemes, by name: what the parties agree on at the
/// handshake and what `--scheme` selects.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Scheme {
    /// Half-gates ([`HalfGates`](crate::halfgates::HalfGates)): 32 bytes per AND gate, the fastest to
    /// compute (the default).
    #[default]
    HalfGates = 0,
    /// Three halves ([`ThreeHalves`](crate::threehalves::ThreeHalves)): about 24.6 bytes per AND gate, for
    /// links slower than garbling.
    ThreeHalves = 1,
}

impl Scheme {
    /// Every scheme.
    pub const ALL: [Scheme; 2] = [Scheme::HalfGates, Scheme::ThreeHalves];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::HalfGates => "half-gates",
            Scheme::ThreeHalves => "three-halves",
        }
    }
}

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Scheme {
    type Err = String;
    fn from_str(s: &str) -> Result<Scheme, String> {
        Scheme::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| format!("unknown scheme `{s}` (half-gates or three-halves)"))
    }
}
