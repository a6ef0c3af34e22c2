//! What a session is asked to do: who learns the outputs, how the work is
//! spread over threads, whether both parties garble — the terms both parties
//! must agree on at the handshake — and each party's inputs.

use std::sync::Arc;

use twofold_circuit::Party;
use twofold_crypto::Scheme;

/// Who learns the outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum Reveal {
    /// Both parties (the default).
    #[default]
    Both = 0,
    /// Only party A.
    A = 1,
    /// Only party B.
    B = 2,
}

impl Reveal {
    /// Every mode.
    pub const ALL: [Reveal; 3] = [Reveal::Both, Reveal::A, Reveal::B];

    /// Whether `party` learns the outputs.
    pub fn reveals_to(self, party: Party) -> bool {
        matches!(
            (self, party),
            (Reveal::Both, _) | (Reveal::A, Party::A) | (Reveal::B, Party::B)
        )
    }
}

impl std::fmt::Display for Reveal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Reveal::Both => "both parties",
            Reveal::A => "party a only",
            Reveal::B => "party b only",
        })
    }
}

/// How the work is spread over threads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum Schedule {
    /// One thread.
    Sequential = 0,
    /// Fine-grained: AND levels split between threads.
    Fgp = 1,
    /// Coarse-grained: region instances split between threads.
    Cgp = 2,
    /// CGP where regions exist, FGP elsewhere.
    #[default]
    Auto = 3,
}

impl Schedule {
    /// All schedules.
    pub const ALL: [Schedule; 4] = [
        Schedule::Sequential,
        Schedule::Fgp,
        Schedule::Cgp,
        Schedule::Auto,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Schedule::Sequential => "seq",
            Schedule::Fgp => "fgp",
            Schedule::Cgp => "cgp",
            Schedule::Auto => "auto",
        }
    }

    /// How many channels a session with `threads` threads opens.
    pub fn channels(self, threads: u32) -> usize {
        match self {
            Schedule::Cgp | Schedule::Auto => threads.max(1) as usize,
            Schedule::Sequential | Schedule::Fgp => 1,
        }
    }
}

/// Whether and how both parties garble.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum IppMode {
    /// Party A garbles everything (plain Yao).
    #[default]
    Off = 0,
    /// Both parties garble part of every parallel region, and the main gates
    /// that neither feed a region nor need its results run during it.
    On = 1,
    /// Both parties garble, but the main circuit waits for every region to
    /// end (to measure what the overlap brings).
    NoOverlap = 2,
}

impl IppMode {
    /// Every mode.
    pub const ALL: [IppMode; 3] = [IppMode::Off, IppMode::On, IppMode::NoOverlap];

    /// Whether both parties garble.
    pub fn is_on(self) -> bool {
        self != IppMode::Off
    }

    /// What the command line and error messages call it.
    pub fn name(self) -> &'static str {
        match self {
            IppMode::Off => "no IPP",
            IppMode::On => "IPP",
            IppMode::NoOverlap => "IPP without overlap",
        }
    }
}

/// Called with the number of AND gates just done (for a progress bar).
pub type Progress = Arc<dyn Fn(u64) + Send + Sync>;

/// The most threads a party may use: each thread of a schedule with its own
/// connections opens one (twice with IPP), and both parties must agree.
pub const MAX_THREADS: u32 = 256;

/// Checks a thread count against [`MAX_THREADS`].
pub fn check_threads(threads: u32) -> Result<(), crate::error::ProtocolError> {
    if threads > MAX_THREADS {
        return Err(crate::error::ProtocolError::Inputs(format!(
            "{threads} threads asked for; at most {MAX_THREADS}"
        )));
    }
    Ok(())
}

/// How to run a session. Both parties must pass the same options (checked at
/// the handshake).
#[derive(Clone, Default)]
pub struct SessionOptions {
    /// Who learns the outputs.
    pub reveal: Reveal,
    /// How the work is spread over threads.
    pub schedule: Schedule,
    /// Worker threads per party (at least 1).
    pub threads: u32,
    /// Inter-party parallelism: both parties garble part of every region.
    pub ipp: IppMode,
    /// The garbling scheme.
    pub scheme: Scheme,
    /// Keep every block this party sends at IPP role transfers in the report
    /// (for audits and the statistical tests of the transfer).
    pub record_transfers: bool,
    /// FGP splits AND levels of at least this many gates (`None`: the
    /// measured default, [`FGP_MIN_ANDS`](crate::engine::FGP_MIN_ANDS)).
    /// Both parties must split alike (checked at the handshake): a scheme's
    /// tables are cut as the garbler's steps are.
    pub fgp_min_ands: Option<usize>,
    /// Called with the AND gates done so far, for a progress bar.
    pub progress: Option<Progress>,
}

/// One party's inputs: for each input value of the program, its bits (least
/// significant first) if this party owns it, `None` otherwise.
pub type PartyInputs = Vec<Option<Vec<bool>>>;

/// A computing party of the three-party hybrid mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Role {
    /// CP1: garbles.
    Cp1 = 1,
    /// CP2: evaluates.
    Cp2 = 2,
    /// CP3: hands CP2 the input labels its shares and CP2's choose.
    Cp3 = 3,
}

impl Role {
    /// The three, in order.
    pub const ALL: [Role; 3] = [Role::Cp1, Role::Cp2, Role::Cp3];

    /// 0, 1 or 2.
    pub fn index(self) -> usize {
        self as usize - 1
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CP{}", *self as u8)
    }
}

/// How a value is split into three shares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ShareKind {
    /// Bitwise: the value is the XOR of the shares.
    #[default]
    Xor = 0,
    /// Additive: the value is the sum of the shares modulo 2^width.
    Add = 1,
}

impl ShareKind {
    /// Both kinds.
    pub const ALL: [ShareKind; 2] = [ShareKind::Xor, ShareKind::Add];

    /// `xor` or `add`, as on the command line.
    pub fn name(self) -> &'static str {
        match self {
            ShareKind::Xor => "xor",
            ShareKind::Add => "add",
        }
    }
}

impl std::fmt::Display for ShareKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
