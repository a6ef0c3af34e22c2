//! Cryptographic core of twofold: blocks, fixed-key AES, the TCCR hash, the
//! PRG and the half-gates garbler and evaluator.

pub mod aes;
pub mod block;
pub mod delta;
pub mod error;
pub mod prg;

pub use aes::Aes128;
pub use block::Block;
pub use delta::Delta;
pub use error::CryptoError;
pub use prg::Prg;
