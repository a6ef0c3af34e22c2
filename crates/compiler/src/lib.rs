//! twofold-compiler
