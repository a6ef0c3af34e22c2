//! twofold
