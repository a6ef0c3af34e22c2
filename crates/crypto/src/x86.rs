//! x86-64 SIMD kernels: AES-NI, VAES-256 and VAES-512.
//!
//! Every kernel is written once, generically over [`Lanes`] (a vector of
//! 1, 2 or 4 AES blocks), and instantiated inside `#[target_feature]`
//! functions so that the whole loop is compiled for the backend's features.
//! Callers reach these only through a [`HwBackend`] built after run-time
//! feature detection.

use crate::block::Block;
use crate::hw::{HwBackend, RoundKeys};
use std::arch::x86_64::*;

/// A vector of `BLOCKS` 128-bit lanes and the operations the AES, TCCR and
/// half-gates kernels need on it.
///
/// # Safety
/// Every method requires the CPU features of its implementation; pointers
/// must be valid for the blocks accessed.
pub(crate) trait Lanes: Copy {
    /// Blocks per vector.
    const BLOCKS: usize;
    /// Per-lane colour (point-and-permute bit) masks.
    type Mask: Copy;
    /// `k` in every lane.
    unsafe fn splat(k: Block) -> Self;
    /// Loads `BLOCKS` blocks from `p` (unaligned).
    unsafe fn load(p: *const Block) -> Self;
    /// Stores `BLOCKS` blocks to `p` (unaligned).
    unsafe fn store(self, p: *mut Block);
    /// Lane-wise XOR.
    unsafe fn xor(self, o: Self) -> Self;
    /// 64-bit lane-wise addition (for counters whose low half never wraps).
    unsafe fn add64(self, o: Self) -> Self;
    /// One AES round with round key `k`.
    unsafe fn enc(self, k: Self) -> Self;
    /// The last AES round with round key `k`.
    unsafe fn enclast(self, k: Self) -> Self;
    /// The lsb of every lane, as a mask.
    unsafe fn colour(self) -> Self::Mask;
    /// `self ⊕ v` in the lanes whose mask is set, `self` elsewhere.
    unsafe fn mask_xor(self, m: Self::Mask, v: Self) -> Self;
    /// Lane `i` is `labels[ws[i][field]]`.
    unsafe fn gather(labels: *const Block, ws: *const [u32; 3], field: usize) -> Self;
    /// Stores `a0, b0, a1, b1, …` (2·`BLOCKS` blocks) to `p`.
    unsafe fn store_interleaved(a: Self, b: Self, p: *mut Block);
    /// Loads 2·`BLOCKS` blocks `a0, b0, a1, b1, …` from `p` as `(a, b)`.
    unsafe fn load_deinterleaved(p: *const Block) -> (Self, Self);
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

/// The lane address `labels + ws[i][field]`.
#[inline(always)]
unsafe fn lane_ptr(
    labels: *const Block,
    ws: *const [u32; 3],
    i: usize,
    field: usize,
) -> *const __m128i {
    labels.add((*ws.add(i))[field] as usize) as *const __m128i
}

impl Lanes for X1 {
    const BLOCKS: usize = 1;
    type Mask = X1;
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
    unsafe fn add64(self, o: Self) -> Self {
        X1(_mm_add_epi64(self.0, o.0))
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
    #[inline]
    #[target_feature(enable = "aes,sse4.1")]
    unsafe fn colour(self) -> X1 {
        // Bit 0 to bit 31, smeared over dword 0, copied to every dword.
        let m = _mm_srai_epi32::<31>(_mm_slli_epi32::<31>(self.0));
        X1(_mm_shuffle_epi32::<0>(m))
    }
    #[inline]
    #[target_feature(enable = "aes,sse4.1")]
    unsafe fn mask_xor(self, m: X1, v: Self) -> Self {
        X1(_mm_xor_si128(self.0, _mm_and_si128(m.0, v.0)))
    }
    #[inline]
    #[target_feature(enable = "aes,sse4.1")]
    unsafe fn gather(labels: *const Block, ws: *const [u32; 3], field: usize) -> Self {
        X1(_mm_loadu_si128(lane_ptr(labels, ws, 0, field)))
    }
    #[inline]
    #[target_feature(enable = "aes,sse4.1")]
    unsafe fn store_interleaved(a: Self, b: Self, p: *mut Block) {
        a.store(p);
        b.store(p.add(1));
    }
    #[inline]
    #[target_feature(enable = "aes,sse4.1")]
    unsafe fn load_deinterleaved(p: *const Block) -> (Self, Self) {
        (X1::load(p), X1::load(p.add(1)))
    }
}

impl Lanes for Y2 {
    const BLOCKS: usize = 2;
    type Mask = Y2;
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
    unsafe fn add64(self, o: Self) -> Self {
        Y2(_mm256_add_epi64(self.0, o.0))
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
    #[inline]
    #[target_feature(enable = "aes,sse4.1,avx2,vaes")]
    unsafe fn colour(self) -> Y2 {
        // Per 128-bit lane: bit 0 smeared over dword 0, copied to the lane.
        let m = _mm256_srai_epi32::<31>(_mm256_slli_epi32::<31>(self.0));
        Y2(_mm256_shuffle_epi32::<0>(m))
    }
    #[inline]
    #[target_feature(enable = "aes,sse4.1,avx2,vaes")]
    unsafe fn mask_xor(self, m: Y2, v: Self) -> Self {
        Y2(_mm256_xor_si256(self.0, _mm256_and_si256(m.0, v.0)))
    }
    #[inline]
    #[target_feature(enable = "aes,sse4.1,avx2,vaes")]
    unsafe fn gather(labels: *const Block, ws: *const [u32; 3], field: usize) -> Self {
        let lo = _mm_loadu_si128(lane_ptr(labels, ws, 0, field));
        let hi = _mm_loadu_si128(lane_ptr(labels, ws, 1, field));
        Y2(_mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi))
    }
    #[inline]
    #[target_feature(enable = "aes,sse4.1,avx2,vaes")]
    unsafe fn store_interleaved(a: Self, b: Self, p: *mut Block) {
        Y2(_mm256_permute2x128_si256::<0x20>(a.0, b.0)).store(p);
        Y2(_mm256_permute2x128_si256::<0x31>(a.0, b.0)).store(p.add(2));
    }
    #[inline]
    #[target_feature(enable = "aes,sse4.1,avx2,vaes")]
    unsafe fn load_deinterleaved(p: *const Block) -> (Self, Self) {
        let (p0, p1) = (Y2::load(p).0, Y2::load(p.add(2)).0);
        (
            Y2(_mm256_permute2x128_si256::<0x20>(p0, p1)),
            Y2(_mm256_permute2x128_si256::<0x31>(p0, p1)),
        )
    }
}

impl Lanes for Z4 {
    const BLOCKS: usize = 4;
    type Mask = __mmask8;
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
    unsafe fn add64(self, o: Self) -> Self {
        Z4(_mm512_add_epi64(self.0, o.0))
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
    #[inline]
    #[target_feature(enable = "aes,sse4.1,avx2,vaes,avx512f")]
    unsafe fn colour(self) -> __mmask8 {
        // Copy each lane's low qword over the lane, then test bit 0: both
        // mask bits of a lane are its colour.
        let lo = _mm512_unpacklo_epi64(self.0, self.0);
        _mm512_test_epi64_mask(lo, _mm512_set1_epi64(1))
    }
    #[inline]
    #[target_feature(enable = "aes,sse4.1,avx2,vaes,avx512f")]
    unsafe fn mask_xor(self, m: __mmask8, v: Self) -> Self {
        Z4(_mm512_mask_xor_epi64(self.0, m, self.0, v.0))
    }
    #[inline]
    #[target_feature(enable = "aes,sse4.1,avx2,vaes,avx512f")]
    unsafe fn gather(labels: *const Block, ws: *const [u32; 3], field: usize) -> Self {
        let v = _mm512_castsi128_si512(_mm_loadu_si128(lane_ptr(labels, ws, 0, field)));
        let v = _mm512_inserti32x4::<1>(v, _mm_loadu_si128(lane_ptr(labels, ws, 1, field)));
        let v = _mm512_inserti32x4::<2>(v, _mm_loadu_si128(lane_ptr(labels, ws, 2, field)));
        Z4(_mm512_inserti32x4::<3>(
            v,
            _mm_loadu_si128(lane_ptr(labels, ws, 3, field)),
        ))
    }
    #[inline]
    #[target_feature(enable = "aes,sse4.1,avx2,vaes,avx512f")]
    unsafe fn store_interleaved(a: Self, b: Self, p: *mut Block) {
        // Qword indices: 0..8 from `a`, 8..16 from `b`.
        let lo = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);
        let hi = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
        Z4(_mm512_permutex2var_epi64(a.0, lo, b.0)).store(p);
        Z4(_mm512_permutex2var_epi64(a.0, hi, b.0)).store(p.add(4));
    }
    #[inline]
    #[target_feature(enable = "aes,sse4.1,avx2,vaes,avx512f")]
    unsafe fn load_deinterleaved(p: *const Block) -> (Self, Self) {
        let (p0, p1) = (Z4::load(p).0, Z4::load(p.add(4)).0);
        let a = _mm512_set_epi64(13, 12, 9, 8, 5, 4, 1, 0);
        let b = _mm512_set_epi64(15, 14, 11, 10, 7, 6, 3, 2);
        (
            Z4(_mm512_permutex2var_epi64(p0, a, p1)),
            Z4(_mm512_permutex2var_epi64(p0, b, p1)),
        )
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

/// AES-encrypts `W` vectors in registers, round by round across all of them
/// so that `W` independent instructions are in flight.
///
/// # Safety
/// Requires the CPU features of `L`.
#[inline(always)]
unsafe fn encrypt_regs<L: Lanes, const W: usize>(k: &[L; 11], s: &mut [L; W]) {
    for si in s.iter_mut() {
        *si = si.xor(k[0]);
    }
    for kr in &k[1..10] {
        for si in s.iter_mut() {
            *si = si.enc(*kr);
        }
    }
    for si in s.iter_mut() {
        *si = si.enclast(k[10]);
    }
}

/// `x[i] ← H(x[i], t[i]) = π(π(x) ⊕ t) ⊕ π(x)` for `W` vectors in registers.
///
/// # Safety
/// Requires the CPU features of `L`.
#[inline(always)]
pub(crate) unsafe fn tccr_regs<L: Lanes, const W: usize>(k: &[L; 11], x: &mut [L; W], t: &[L; W]) {
    encrypt_regs(k, x);
    // x = π(x); second pass on π(x) ⊕ t.
    let mut u = *x;
    for (ui, ti) in u.iter_mut().zip(t.iter()) {
        *ui = ui.xor(*ti).xor(k[0]);
    }
    for kr in &k[1..10] {
        for ui in u.iter_mut() {
            *ui = ui.enc(*kr);
        }
    }
    // The last round adds its key by XOR, so folding π(x) into the key
    // yields π(π(x) ⊕ t) ⊕ π(x) directly.
    for (xi, ui) in x.iter_mut().zip(u.iter()) {
        *xi = ui.enclast(k[10].xor(*xi));
    }
}

/// Encrypts `W` vectors at `p` in place.
///
/// # Safety
/// Requires the CPU features of `L`; `p` must be valid for `W * L::BLOCKS`
/// blocks.
#[inline(always)]
unsafe fn encrypt_group<L: Lanes, const W: usize>(k: &[L; 11], p: *mut Block) {
    let mut s = [k[0]; W];
    for (i, si) in s.iter_mut().enumerate() {
        *si = L::load(p.add(i * L::BLOCKS));
    }
    encrypt_regs(k, &mut s);
    for (i, si) in s.iter().enumerate() {
        si.store(p.add(i * L::BLOCKS));
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

/// `x[i] ← H(x[i], t[i])` for `W` vectors at `x` and `t`.
///
/// # Safety
/// Requires the CPU features of `L`; `x` and `t` must be valid for
/// `W * L::BLOCKS` blocks.
#[inline(always)]
unsafe fn tccr_group<L: Lanes, const W: usize>(k: &[L; 11], x: *mut Block, t: *const Block) {
    let mut s = [k[0]; W];
    let mut u = [k[0]; W];
    for i in 0..W {
        s[i] = L::load(x.add(i * L::BLOCKS));
        u[i] = L::load(t.add(i * L::BLOCKS));
    }
    tccr_regs(k, &mut s, &u);
    for (i, si) in s.iter().enumerate() {
        si.store(x.add(i * L::BLOCKS));
    }
}

/// TCCR in place on `n` blocks: `x[i] ← H(x[i], t[i])`.
///
/// # Safety
/// Requires the CPU features of `L` (which include AES-NI); `x` and `t` must
/// be valid for `n` blocks.
#[inline(always)]
unsafe fn tccr_n<L: Lanes>(rk: &RoundKeys, x: *mut Block, t: *const Block, n: usize) {
    let k = splat_keys::<L>(rk);
    let step = 8 * L::BLOCKS;
    let mut i = 0;
    while i + step <= n {
        tccr_group::<L, 8>(&k, x.add(i), t.add(i));
        i += step;
    }
    while i + L::BLOCKS <= n {
        tccr_group::<L, 1>(&k, x.add(i), t.add(i));
        i += L::BLOCKS;
    }
    if i < n {
        let k1 = splat_keys::<X1>(rk);
        while i < n {
            tccr_group::<X1, 1>(&k1, x.add(i), t.add(i));
            i += 1;
        }
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
/// feature detection).
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
    tccr_n::<X1>(rk, x, t, n)
}

#[target_feature(enable = "aes,sse4.1,avx2,vaes")]
unsafe fn tccr_vaes256(rk: &RoundKeys, x: *mut Block, t: *const Block, n: usize) {
    tccr_n::<Y2>(rk, x, t, n)
}

#[target_feature(enable = "aes,sse4.1,avx2,vaes,avx512f")]
unsafe fn tccr_vaes512(rk: &RoundKeys, x: *mut Block, t: *const Block, n: usize) {
    tccr_n::<Z4>(rk, x, t, n)
}

/// TCCR in place: `xs[i] ← H(xs[i], ts[i])` for `i < xs.len()`.
///
/// # Safety
/// The CPU must support `hw`, and `ts.len() >= xs.len()`.
pub(crate) unsafe fn tccr_in_place(hw: HwBackend, rk: &RoundKeys, xs: &mut [Block], ts: &[Block]) {
    debug_assert!(ts.len() >= xs.len());
    let (x, t, n) = (xs.as_mut_ptr(), ts.as_ptr(), xs.len());
    match hw {
        HwBackend::AesNi => tccr_aesni(rk, x, t, n),
        HwBackend::Vaes256 => tccr_vaes256(rk, x, t, n),
        HwBackend::Vaes512 => tccr_vaes512(rk, x, t, n),
    }
}
