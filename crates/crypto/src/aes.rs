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
use aes::cipher::{generic_array::GenericArray, BlockEncrypt, KeyInit};
use std::sync::OnceLock;

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
            Some(hw) => Keys::Hw(unsafe { x86::expand_key(key) }, hw),
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
            Keys::Hw(rk, hw) => unsafe { x86::encrypt_blocks(*hw, rk, blocks) },
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

/// Hardware AES kernels for x86-64.
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86 {
    use super::{HwBackend, RoundKeys};
    use crate::block::Block;
    use std::arch::x86_64::*;

    /// A vector of `BLOCKS` AES states and the AES round on it.
    ///
    /// # Safety
    /// Every method requires the CPU features of its implementation.
    pub(crate) trait Lanes: Copy {
        /// Blocks per vector.
        const BLOCKS: usize;
        /// Vectors per TCCR group, 4 or 8 (each has two states in flight).
        const TCCR_WIDTH: usize;
        /// `k` in every lane.
        unsafe fn splat(k: Block) -> Self;
        /// Loads `BLOCKS` blocks from `p` (unaligned).
        unsafe fn load(p: *const Block) -> Self;
        /// Stores `BLOCKS` blocks to `p` (unaligned).
        unsafe fn store(self, p: *mut Block);
        /// Lane-wise XOR.
        unsafe fn xor(self, o: Self) -> Self;
        /// One AES round with round key `k`.
        unsafe fn enc(self, k: Self) -> Self;
        /// The last AES round with round key `k`.
        unsafe fn enclast(self, k: Self) -> Self;
    }

    /// One block in an SSE register (AES-NI).
    #[derive(Clone, Copy)]
    pub(crate) struct X1(__m128i);
    /// Two blocks in an AVX register (VAES-256).
    #[derive(Clone, Copy)]
    pub(crate) struct Y2(__m256i);
    /// Four blocks in an AVX-512 register (VAES-512).
    #[derive(Clone, Copy)]
    pub(crate) struct Z4(__m512i);

    impl Lanes for X1 {
        const BLOCKS: usize = 1;
        const TCCR_WIDTH: usize = 8;
        #[inline]
        #[target_feature(enable = "aes,sse4.1")]
        unsafe fn splat(k: Block) -> Self {
            X1(_mm_loadu_si128(&k as *const Block as *const __m128i))
        }
        #[inline]
        #[target_feature(enable = "aes,sse4.1")]
        unsafe fn load(p: *const Block) -> Self {
            X1(_mm_loadu_si128(p as *const __m128i))
        }
        #[inline]
        #[target_feature(enable = "aes,sse4.1")]
        unsafe fn store(self, p: *mut Block) {
            _mm_storeu_si128(p as *mut __m128i, self.0)
        }
        #[inline]
        #[target_feature(enable = "aes,sse4.1")]
        unsafe fn xor(self, o: Self) -> Self {
            X1(_mm_xor_si128(self.0, o.0))
        }
        #[inline]
        #[target_feature(enable = "aes,sse4.1")]
        unsafe fn enc(self, k: Self) -> Self {
            X1(_mm_aesenc_si128(self.0, k.0))
        }
        #[inline]
        #[target_feature(enable = "aes,sse4.1")]
        unsafe fn enclast(self, k: Self) -> Self {
            X1(_mm_aesenclast_si128(self.0, k.0))
        }
    }

    impl crate::tccr::Label128 for X1 {
        #[inline]
        #[target_feature(enable = "aes,sse4.1")]
        unsafe fn splat(b: Block) -> Self {
            <X1 as Lanes>::splat(b)
        }
        #[inline]
        #[target_feature(enable = "aes,sse4.1")]
        unsafe fn load(p: *const Block) -> Self {
            <X1 as Lanes>::load(p)
        }
        #[inline]
        #[target_feature(enable = "aes,sse4.1")]
        unsafe fn store(self, p: *mut Block) {
            <X1 as Lanes>::store(self, p)
        }
        #[inline]
        #[target_feature(enable = "aes,sse4.1")]
        unsafe fn xor(self, o: Self) -> Self {
            <X1 as Lanes>::xor(self, o)
        }
        #[inline]
        #[target_feature(enable = "aes,sse4.1")]
        unsafe fn and(self, o: Self) -> Self {
            X1(_mm_and_si128(self.0, o.0))
        }
        #[inline]
        #[target_feature(enable = "aes,sse4.1")]
        unsafe fn lsb_mask(self) -> Self {
            // Move bit 0 to bit 31 of dword 0, smear it over the dword, then
            // copy that dword everywhere.
            let m = _mm_srai_epi32::<31>(_mm_slli_epi32::<31>(self.0));
            X1(_mm_shuffle_epi32::<0>(m))
        }
    }

    impl Lanes for Y2 {
        const BLOCKS: usize = 2;
        const TCCR_WIDTH: usize = 8;
        #[inline]
        #[target_feature(enable = "aes,sse4.1,avx2,vaes")]
        unsafe fn splat(k: Block) -> Self {
            Y2(_mm256_broadcastsi128_si256(_mm_loadu_si128(
                &k as *const Block as *const __m128i,
            )))
        }
        #[inline]
        #[target_feature(enable = "aes,sse4.1,avx2,vaes")]
        unsafe fn load(p: *const Block) -> Self {
            Y2(_mm256_loadu_si256(p as *const __m256i))
        }
        #[inline]
        #[target_feature(enable = "aes,sse4.1,avx2,vaes")]
        unsafe fn store(self, p: *mut Block) {
            _mm256_storeu_si256(p as *mut __m256i, self.0)
        }
        #[inline]
        #[target_feature(enable = "aes,sse4.1,avx2,vaes")]
        unsafe fn xor(self, o: Self) -> Self {
            Y2(_mm256_xor_si256(self.0, o.0))
        }
        #[inline]
        #[target_feature(enable = "aes,sse4.1,avx2,vaes")]
        unsafe fn enc(self, k: Self) -> Self {
            Y2(_mm256_aesenc_epi128(self.0, k.0))
        }
        #[inline]
        #[target_feature(enable = "aes,sse4.1,avx2,vaes")]
        unsafe fn enclast(self, k: Self) -> Self {
            Y2(_mm256_aesenclast_epi128(self.0, k.0))
        }
    }

    impl Lanes for Z4 {
        const BLOCKS: usize = 4;
        const TCCR_WIDTH: usize = 8;
        #[inline]
        #[target_feature(enable = "aes,sse4.1,avx2,vaes,avx512f")]
        unsafe fn splat(k: Block) -> Self {
            Z4(_mm512_broadcast_i32x4(_mm_loadu_si128(
                &k as *const Block as *const __m128i,
            )))
        }
        #[inline]
        #[target_feature(enable = "aes,sse4.1,avx2,vaes,avx512f")]
        unsafe fn load(p: *const Block) -> Self {
            Z4(_mm512_loadu_si512(p as *const __m512i))
        }
        #[inline]
        #[target_feature(enable = "aes,sse4.1,avx2,vaes,avx512f")]
        unsafe fn store(self, p: *mut Block) {
            _mm512_storeu_si512(p as *mut __m512i, self.0)
        }
        #[inline]
        #[target_feature(enable = "aes,sse4.1,avx2,vaes,avx512f")]
        unsafe fn xor(self, o: Self) -> Self {
            Z4(_mm512_xor_si512(self.0, o.0))
        }
        #[inline]
        #[target_feature(enable = "aes,sse4.1,avx2,vaes,avx512f")]
        unsafe fn enc(self, k: Self) -> Self {
            Z4(_mm512_aesenc_epi128(self.0, k.0))
        }
        #[inline]
        #[target_feature(enable = "aes,sse4.1,avx2,vaes,avx512f")]
        unsafe fn enclast(self, k: Self) -> Self {
            Z4(_mm512_aesenclast_epi128(self.0, k.0))
        }
    }

    /// Expands an AES-128 key with `aeskeygenassist`.
    ///
    /// # Safety
    /// Requires AES-NI and SSE4.1.
    #[target_feature(enable = "aes,sse4.1")]
    pub(crate) unsafe fn expand_key(key: Block) -> RoundKeys {
        #[inline(always)]
        fn step(prev: __m128i, assist: __m128i) -> __m128i {
            // SAFETY: SSE2 is part of x86-64.
            unsafe {
                let assist = _mm_shuffle_epi32::<0xff>(assist);
                let mut k = prev;
                k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
                k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
                k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
                _mm_xor_si128(k, assist)
            }
        }
        let mut rk = [_mm_setzero_si128(); 11];
        rk[0] = _mm_loadu_si128(&key as *const Block as *const __m128i);
        macro_rules! round {
            ($i:expr, $rcon:expr) => {
                rk[$i] = step(rk[$i - 1], _mm_aeskeygenassist_si128::<$rcon>(rk[$i - 1]));
            };
        }
        round!(1, 0x01);
        round!(2, 0x02);
        round!(3, 0x04);
        round!(4, 0x08);
        round!(5, 0x10);
        round!(6, 0x20);
        round!(7, 0x40);
        round!(8, 0x80);
        round!(9, 0x1b);
        round!(10, 0x36);
        let mut out = RoundKeys([Block::ZERO; 11]);
        for (o, k) in out.0.iter_mut().zip(rk.iter()) {
            _mm_storeu_si128(o as *mut Block as *mut __m128i, *k);
        }
        out
    }

    /// The round keys splatted into every lane.
    ///
    /// # Safety
    /// Requires the CPU features of `L`.
    #[inline(always)]
    pub(crate) unsafe fn splat_keys<L: Lanes>(rk: &RoundKeys) -> [L; 11] {
        let mut k = [L::splat(rk.0[0]); 11];
        for (ki, r) in k.iter_mut().zip(rk.0.iter()) {
            *ki = L::splat(*r);
        }
        k
    }

    /// Encrypts `W` vectors at `p` in place, round by round across all of them.
    ///
    /// # Safety
    /// Requires the CPU features of `L`; `p` must be valid for `W * L::BLOCKS`
    /// blocks.
    #[inline(always)]
    unsafe fn encrypt_group<L: Lanes, const W: usize>(k: &[L; 11], p: *mut Block) {
        let mut s = [k[0]; W];
        for (i, si) in s.iter_mut().enumerate() {
            *si = L::load(p.add(i * L::BLOCKS)).xor(k[0]);
        }
        for kr in &k[1..10] {
            for si in s.iter_mut() {
                *si = si.enc(*kr);
            }
        }
        for (i, si) in s.iter().enumerate() {
            si.enclast(k[10]).store(p.add(i * L::BLOCKS));
        }
    }

    /// Encrypts `n` blocks at `p` in place.
    ///
    /// # Safety
    /// Requires the CPU features of `L` (which include AES-NI); `p` must be
    /// valid for `n` blocks.
    #[inline(always)]
    unsafe fn encrypt_n<L: Lanes>(rk: &RoundKeys, p: *mut Block, n: usize) {
        let k = splat_keys::<L>(rk);
        let step = 8 * L::BLOCKS;
        let mut i = 0;
        while i + step <= n {
            encrypt_group::<L, 8>(&k, p.add(i));
            i += step;
        }
        while i + L::BLOCKS <= n {
            encrypt_group::<L, 1>(&k, p.add(i));
            i += L::BLOCKS;
        }
        if i < n {
            let k1 = splat_keys::<X1>(rk);
            while i < n {
                encrypt_group::<X1, 1>(&k1, p.add(i));
                i += 1;
            }
        }
    }

    /// `out[i] = H(x[i], t[i]) = π(π(x[i]) ⊕ t[i]) ⊕ π(x[i])` for a group of
    /// `W` vectors: the first AES pass of all of them, then the second.
    ///
    /// # Safety
    /// Requires the CPU features of `L`; `x`, `t` and `out` must be valid for
    /// `W * L::BLOCKS` blocks (`out` may equal `x`).
    #[inline(always)]
    unsafe fn tccr_group<L: Lanes, const W: usize>(
        k: &[L; 11],
        x: *const Block,
        t: *const Block,
        out: *mut Block,
    ) {
        let mut s = [k[0]; W];
        for (i, si) in s.iter_mut().enumerate() {
            *si = L::load(x.add(i * L::BLOCKS)).xor(k[0]);
        }
        for kr in &k[1..10] {
            for si in s.iter_mut() {
                *si = si.enc(*kr);
            }
        }
        for si in s.iter_mut() {
            *si = si.enclast(k[10]);
        }
        // s = π(x); second pass on π(x) ⊕ t.
        let mut u = [k[0]; W];
        for (i, ui) in u.iter_mut().enumerate() {
            *ui = s[i].xor(L::load(t.add(i * L::BLOCKS))).xor(k[0]);
        }
        for kr in &k[1..10] {
            for ui in u.iter_mut() {
                *ui = ui.enc(*kr);
            }
        }
        // The last round adds its key by XOR, so folding π(x) into the key
        // gives π(π(x) ⊕ t) ⊕ π(x) directly.
        for (i, ui) in u.iter().enumerate() {
            ui.enclast(k[10].xor(s[i])).store(out.add(i * L::BLOCKS));
        }
    }

    /// TCCR on `n` blocks: `out[i] = H(x[i], t[i])`.
    ///
    /// # Safety
    /// Requires the CPU features of `L` (which include AES-NI); `x`, `t` and
    /// `out` must be valid for `n` blocks (`out` may equal `x`, but must not
    /// otherwise overlap it).
    #[inline(always)]
    pub(crate) unsafe fn tccr_n<L: Lanes>(
        k: &[L; 11],
        k1: &[X1; 11],
        x: *const Block,
        t: *const Block,
        out: *mut Block,
        n: usize,
    ) {
        let mut i = 0;
        let step = L::TCCR_WIDTH * L::BLOCKS;
        while i + step <= n {
            if L::TCCR_WIDTH == 8 {
                tccr_group::<L, 8>(k, x.add(i), t.add(i), out.add(i));
            } else {
                tccr_group::<L, 4>(k, x.add(i), t.add(i), out.add(i));
            }
            i += step;
        }
        while i + L::BLOCKS <= n {
            tccr_group::<L, 1>(k, x.add(i), t.add(i), out.add(i));
            i += L::BLOCKS;
        }
        while i < n {
            tccr_group::<X1, 1>(k1, x.add(i), t.add(i), out.add(i));
            i += 1;
        }
    }

    #[target_feature(enable = "aes,sse4.1")]
    unsafe fn encrypt_aesni(rk: &RoundKeys, p: *mut Block, n: usize) {
        encrypt_n::<X1>(rk, p, n)
    }

    #[target_feature(enable = "aes,sse4.1,avx2,vaes")]
    unsafe fn encrypt_vaes256(rk: &RoundKeys, p: *mut Block, n: usize) {
        encrypt_n::<Y2>(rk, p, n)
    }

    #[target_feature(enable = "aes,sse4.1,avx2,vaes,avx512f")]
    unsafe fn encrypt_vaes512(rk: &RoundKeys, p: *mut Block, n: usize) {
        encrypt_n::<Z4>(rk, p, n)
    }

    /// Encrypts `blocks` in place with the given hardware backend.
    ///
    /// # Safety
    /// The CPU must support `hw` (guaranteed where a `HwBackend` was built by
    /// [`super::Backend::hw`]).
    pub(crate) unsafe fn encrypt_blocks(hw: HwBackend, rk: &RoundKeys, blocks: &mut [Block]) {
        let (p, n) = (blocks.as_mut_ptr(), blocks.len());
        match hw {
            HwBackend::AesNi => encrypt_aesni(rk, p, n),
            HwBackend::Vaes256 => encrypt_vaes256(rk, p, n),
            HwBackend::Vaes512 => encrypt_vaes512(rk, p, n),
        }
    }

    #[target_feature(enable = "aes,sse4.1")]
    unsafe fn tccr_aesni(rk: &RoundKeys, x: *mut Block, t: *const Block, n: usize) {
        let k = splat_keys::<X1>(rk);
        tccr_n::<X1>(&k, &k, x, t, x, n)
    }

    #[target_feature(enable = "aes,sse4.1,avx2,vaes")]
    unsafe fn tccr_vaes256(rk: &RoundKeys, x: *mut Block, t: *const Block, n: usize) {
        tccr_n::<Y2>(&splat_keys(rk), &splat_keys(rk), x, t, x, n)
    }

    #[target_feature(enable = "aes,sse4.1,avx2,vaes,avx512f")]
    unsafe fn tccr_vaes512(rk: &RoundKeys, x: *mut Block, t: *const Block, n: usize) {
        tccr_n::<Z4>(&splat_keys(rk), &splat_keys(rk), x, t, x, n)
    }

    /// TCCR in place: `xs[i] = H(xs[i], ts[i])` for `i < xs.len()`.
    ///
    /// # Safety
    /// The CPU must support `hw`, and `ts.len() >= xs.len()`.
    pub(crate) unsafe fn tccr_in_place(
        hw: HwBackend,
        rk: &RoundKeys,
        xs: &mut [Block],
        ts: &[Block],
    ) {
        debug_assert!(ts.len() >= xs.len());
        let (x, t, n) = (xs.as_mut_ptr(), ts.as_ptr(), xs.len());
        match hw {
            HwBackend::AesNi => tccr_aesni(rk, x, t, n),
            HwBackend::Vaes256 => tccr_vaes256(rk, x, t, n),
            HwBackend::Vaes512 => tccr_vaes512(rk, x, t, n),
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
