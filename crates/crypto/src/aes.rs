//! AES-128 on [`Block`]s with run-time CPU-feature dispatch.
//!
//! Four backends give bit-identical results: the portable software AES of the
//! `aes` crate, AES-NI (one block per instruction), VAES on 256-bit vectors
//! (two blocks per instruction) and VAES on 512-bit vectors with AVX-512F
//! (four blocks per instruction). [`Backend::best`] picks the fastest one the
//! CPU supports; the `with_backend` constructors force one (for tests and
//! benchmarks).
//!
//! A block's little-endian bytes are the AES state bytes, so `Block(x)` is the
//! AES input whose byte `i` is `x.to_le_bytes()[i]`.

use crate::block::Block;
use crate::error::CryptoError;
use crate::hw::{HwBackend, RoundKeys};
use aes::cipher::{generic_array::GenericArray, BlockEncrypt, KeyInit};
use std::sync::OnceLock;
use zeroize::Zeroize;

/// The public fixed key of the permutation π used by the TCCR hash: the first
/// 128 fractional bits of π (a nothing-up-my-sleeve constant).
pub const FIXED_KEY: Block = Block(0x243F_6A88_85A3_08D3_1319_8A2E_0370_7344);

/// An AES implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// Software AES (the `aes` crate's generic API); available everywhere.
    Portable,
    /// x86-64 AES-NI, one block per instruction.
    AesNi,
    /// x86-64 VAES on 256-bit vectors (AVX2), two blocks per instruction.
    Vaes256,
    /// x86-64 VAES on 512-bit vectors (AVX-512F), four blocks per instruction.
    Vaes512,
}

impl Backend {
    /// Every backend, slowest first.
    pub const ALL: [Backend; 4] = [
        Backend::Portable,
        Backend::AesNi,
        Backend::Vaes256,
        Backend::Vaes512,
    ];

    /// Whether this CPU can run the backend.
    pub fn is_available(self) -> bool {
        match self {
            Backend::Portable => true,
            _ => self.hw().is_some(),
        }
    }

    /// The fastest backend this CPU supports (detected once).
    pub fn best() -> Backend {
        static BEST: OnceLock<Backend> = OnceLock::new();
        *BEST.get_or_init(|| {
            Backend::ALL
                .into_iter()
                .rev()
                .find(|b| b.is_available())
                .unwrap_or(Backend::Portable)
        })
    }

    /// The backends this CPU supports, slowest first.
    pub fn available() -> Vec<Backend> {
        Backend::ALL
            .into_iter()
            .filter(|b| b.is_available())
            .collect()
    }

    /// A short name (`portable`, `aes-ni`, `vaes-256`, `vaes-512`).
    pub fn name(self) -> &'static str {
        match self {
            Backend::Portable => "portable",
            Backend::AesNi => "aes-ni",
            Backend::Vaes256 => "vaes-256",
            Backend::Vaes512 => "vaes-512",
        }
    }

    /// The hardware backend, if this is one and the CPU supports it.
    fn hw(self) -> Option<HwBackend> {
        #[cfg(target_arch = "x86_64")]
        {
            let aes = std::arch::is_x86_feature_detected!("aes")
                && std::arch::is_x86_feature_detected!("sse4.1");
            let vaes = aes
                && std::arch::is_x86_feature_detected!("vaes")
                && std::arch::is_x86_feature_detected!("avx2");
            match self {
                Backend::AesNi if aes => Some(HwBackend::AesNi),
                Backend::Vaes256 if vaes => Some(HwBackend::Vaes256),
                Backend::Vaes512 if vaes && std::arch::is_x86_feature_detected!("avx512f") => {
                    Some(HwBackend::Vaes512)
                }
                _ => None,
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            None
        }
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The expanded key, in the form its backend uses.
#[derive(Clone)]
pub(crate) enum Keys {
    /// Portable software AES.
    Soft(Box<aes::Aes128>),
    /// Round keys for a hardware backend the CPU supports.
    Hw(RoundKeys, HwBackend),
}

/// AES-128 under an arbitrary key, for batch encryption of blocks.
///
/// The key schedule is secret when the key is: `Debug` does not print it.
#[derive(Clone)]
pub struct Aes128 {
    pub(crate) keys: Keys,
}

impl Drop for Aes128 {
    /// Wipes the round keys (the software backend's are wiped by the `aes`
    /// crate itself).
    fn drop(&mut self) {
        if let Keys::Hw(round_keys, _) = &mut self.keys {
            round_keys.0.zeroize();
        }
    }
}

impl Aes128 {
    /// Expands `key` (its little-endian bytes are the AES key bytes) for the
    /// fastest backend of this CPU.
    pub fn new(key: Block) -> Aes128 {
        Aes128::build(key, Backend::best())
    }

    /// Expands `key` for the given backend, or fails if the CPU lacks it.
    pub fn with_backend(key: Block, backend: Backend) -> Result<Aes128, CryptoError> {
        if backend.is_available() {
            Ok(Aes128::build(key, backend))
        } else {
            Err(CryptoError::BackendUnavailable(backend.name()))
        }
    }

    /// AES under [`FIXED_KEY`] with the fastest backend (expanded once).
    pub fn fixed() -> &'static Aes128 {
        static FIXED: OnceLock<Aes128> = OnceLock::new();
        FIXED.get_or_init(|| Aes128::new(FIXED_KEY))
    }

    fn build(key: Block, backend: Backend) -> Aes128 {
        let keys = match backend.hw() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `hw()` returned a backend, so AES-NI is available.
            Some(hw) => Keys::Hw(unsafe { crate::x86::expand_key(key) }, hw),
            _ => Keys::Soft(Box::new(aes::Aes128::new(&GenericArray::from(
                key.to_bytes(),
            )))),
        };
        Aes128 { keys }
    }

    /// The backend this instance runs on.
    pub fn backend(&self) -> Backend {
        match self.keys {
            Keys::Soft(_) => Backend::Portable,
            Keys::Hw(_, HwBackend::AesNi) => Backend::AesNi,
            Keys::Hw(_, HwBackend::Vaes256) => Backend::Vaes256,
            Keys::Hw(_, HwBackend::Vaes512) => Backend::Vaes512,
        }
    }

    /// Encrypts every block in place (ECB: blocks are independent).
    pub fn encrypt_blocks(&self, blocks: &mut [Block]) {
        match &self.keys {
            Keys::Soft(aes) => soft_encrypt(aes, blocks),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a `HwBackend` is only constructed after its CPU features
            // were detected.
            Keys::Hw(rk, hw) => unsafe { crate::x86::encrypt_blocks(*hw, rk, blocks) },
            #[cfg(not(target_arch = "x86_64"))]
            Keys::Hw(..) => unreachable!("no hardware AES backend on this architecture"),
        }
    }

    /// Encrypts one block.
    pub fn encrypt_block(&self, block: Block) -> Block {
        let mut b = [block];
        self.encrypt_blocks(&mut b);
        b[0]
    }
}

impl std::fmt::Debug for Aes128 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Aes128({}, ..)", self.backend())
    }
}

/// Portable encryption in place through the `aes` crate.
pub(crate) fn soft_encrypt(aes: &aes::Aes128, blocks: &mut [Block]) {
    const CHUNK: usize = 32;
    let mut buf = [GenericArray::default(); CHUNK];
    for chunk in blocks.chunks_mut(CHUNK) {
        for (g, b) in buf.iter_mut().zip(chunk.iter()) {
            *g = GenericArray::from(b.to_bytes());
        }
        aes.encrypt_blocks(&mut buf[..chunk.len()]);
        for (g, b) in buf.iter().zip(chunk.iter_mut()) {
            *b = Block::from_bytes((*g).into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex16(s: &str) -> Block {
        let mut b = [0u8; 16];
        for (i, byte) in b.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
        }
        Block::from_bytes(b)
    }

    /// FIPS-197 Appendix C.1 and Appendix B.
    const VECTORS: [(&str, &str, &str); 2] = [
        (
            "000102030405060708090a0b0c0d0e0f",
            "00112233445566778899aabbccddeeff",
            "69c4e0d86a7b0430d8cdb78070b4c55a",
        ),
        (
            "2b7e151628aed2a6abf7158809cf4f3c",
            "3243f6a8885a308d313198a2e0370734",
            "3925841d02dc09fbdc118597196a0b32",
        ),
    ];

    #[test]
    fn fips197_vectors_every_backend() {
        for backend in Backend::available() {
            for (key, pt, ct) in VECTORS {
                let aes = Aes128::with_backend(hex16(key), backend).unwrap();
                assert_eq!(aes.backend(), backend);
                // Alone and inside batches of every tail length.
                assert_eq!(aes.encrypt_block(hex16(pt)), hex16(ct), "{backend}");
                for len in 1..70 {
                    let mut v = vec![hex16(pt); len];
                    aes.encrypt_blocks(&mut v);
                    assert!(v.iter().all(|&c| c == hex16(ct)), "{backend} len {len}");
                }
            }
        }
    }

    #[test]
    fn best_is_available_and_unavailable_is_an_error() {
        assert!(Backend::best().is_available());
        assert_eq!(Aes128::new(Block(1)).backend(), Backend::best());
        assert!(Backend::available().contains(&Backend::Portable));
        for b in Backend::ALL {
            assert_eq!(Aes128::with_backend(Block(1), b).is_ok(), b.is_available());
        }
    }

    #[test]
    fn fixed_key_matches_constant() {
        let reference = Aes128::with_backend(FIXED_KEY, Backend::Portable).unwrap();
        let x = Block(0x5555_0000_1234);
        assert_eq!(Aes128::fixed().encrypt_block(x), reference.encrypt_block(x));
    }
}
