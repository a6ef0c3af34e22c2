//! Cryptographic core of twofold: blocks, fixed-key AES, the TCCR hash, the
//! PRG and the half-gates garbler and evaluator.

pub mod block;

pub use block::Block;
