//! The circuit layer of twofold: the Boolean circuit IR, the builder, programs
//! with parallel regions, file formats, plaintext evaluation and analysis.

pub mod assemble;
pub mod batch;
pub mod binary;
mod bits;
pub mod bristol;
pub mod builder;
pub mod circuit;
pub mod exchange;
pub mod gate;
pub mod levels;
pub mod mixed;
pub mod overlap;
pub mod prepare;
pub mod program;
pub mod segments;
pub mod size;
pub mod synthetic;
pub mod value;
pub mod walk;
pub mod wiring;

pub use assemble::{PendingBlock, RawFrame};
pub use builder::{Bit, Builder, FlatParts, FrameMark};
pub use circuit::{eval_gates, Circuit, InputValue, OutputValue, Party, MAX_WIRES};
pub use gate::{Gate, Wire};
pub use levels::CircuitStats;
pub use mixed::{Kind, MixedInput, MixedOutput, MixedProgram, Step, ValueId};
pub use overlap::{Item, MainOrder};
pub use program::{Block, Body, Carried, Frame, GateCounts, Program};
pub use walk::{Engine, PlainEngine};
pub use wiring::{Segment, Wiring};

/// Errors of the circuit layer. Each message includes its cause, and no
/// variant exposes it again as [`source`](std::error::Error::source).
#[derive(Debug, thiserror::Error)]
pub enum CircuitError {
    /// The circuit's structure is wrong.
    #[error("invalid circuit: {0}")]
    Invalid(String),
    /// The inputs given do not fit the circuit.
    #[error("bad inputs: {0}")]
    Inputs(String),
    /// A file could not be parsed.
    #[error("{file}:{line}: {message}")]
    Parse {
        /// File name as given.
        file: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// Reading or writing failed.
    #[error("{0}")]
    Io(std::io::Error),
}

impl From<std::io::Error> for CircuitError {
    fn from(e: std::io::Error) -> Self {
        CircuitError::Io(e)
    }
}
