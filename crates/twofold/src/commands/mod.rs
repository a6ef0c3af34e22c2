//! The subcommands of `twofold`.

pub mod bench;
pub mod e2e;
pub mod eval;
pub mod run;
pub mod stats;
