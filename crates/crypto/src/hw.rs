//! The types shared by the AES dispatcher ([`crate::aes`]) and the x86
//! kernels: which hardware backend was detected, and round keys laid out
//! for it.

use crate::block::Block;

/// A hardware backend whose CPU features have been checked at run time.
/// Holding one is the proof that its `#[target_feature]` code may run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HwBackend {
    AesNi,
    Vaes256,
    Vaes512,
}

/// The 11 AES-128 round keys.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct RoundKeys(pub(crate) [Block; 11]);
