//! The subcommands of `twofold`.

pub mod bench;
pub mod eval;
pub mod run;
pub mod stats;
