//! Transposition of the 128 × m bit matrix of IKNP.
//!
//! The input is 128 *lines* of `m` bits each, stored one after the other,
//! `m / 8` bytes per line, bits least-significant first within each byte (bit
//! `j` of line `i` is bit `j % 8` of byte `i·m/8 + j/8`). The output is `m`
//! rows of 128 bits, one [`Block`] per row: bit `i` of row `j` is bit `j` of
//! line `i`.
//!
//! [`transpose`] uses SSE2 on x86-64 (a 16 × 16 byte transpose by
//! interleaving, then `_mm_movemask_epi8` to gather one bit of 16 lines at
//! once) and [`transpose_portable`] elsewhere; both give identical results.

use twofold_crypto::Block;

/// Lines of the matrix: the OT extension's security parameter.
pub const LINES: usize = 128;

/// Transposes `lines` (128 lines of `rows.len()` bits) into `rows`, with the
/// fastest implementation for this CPU.
///
/// # Panics
/// If `rows.len()` is not a multiple of 128 or `lines.len() != 16 * rows.len()`.
pub fn transpose(lines: &[u8], rows: &mut [Block]) {
    #[cfg(target_arch = "x86_64")]
    transpose_sse2(lines, rows);
    #[cfg(not(target_arch = "x86_64"))]
    transpose_portable(lines, rows);
}

/// Checks the shapes of a transposition.
fn check_shape(lines: &[u8], rows: &[Block]) -> usize {
    assert!(
        rows.len().is_multiple_of(LINES),
        "transpose: {} rows is not a multiple of {LINES}",
        rows.len()
    );
    assert_eq!(
        lines.len(),
        rows.len() / 8 * LINES,
        "transpose: input length does not match {} rows",
        rows.len()
    );
    rows.len() / 8
}

/// Portable transposition (8 × 8 bit blocks in a `u64`); same result as
/// [`transpose`].
///
/// # Panics
/// As [`transpose`].
pub fn transpose_portable(lines: &[u8], rows: &mut [Block]) {
    let stride = check_shape(lines, rows);
    let mut tile = [[0u8; 16]; LINES];
    for (h, out) in rows.chunks_exact_mut(LINES).enumerate() {
        // Rows 128h..128h+128 come from bytes 16h..16h+16 of every line.
        for g in 0..LINES / 8 {
            for k in 0..16 {
                let mut x = 0u64;
                for l in 0..8 {
                    x |= (lines[(8 * g + l) * stride + 16 * h + k] as u64) << (8 * l);
                }
                let y = transpose8x8(x);
                for c in 0..8 {
                    tile[8 * k + c][g] = (y >> (8 * c)) as u8;
                }
            }
        }
        for (row, bytes) in out.iter_mut().zip(tile.iter()) {
            *row = Block::from_bytes(*bytes);
        }
    }
}

/// Transposes the 8 × 8 bit matrix whose element `(r, c)` is bit `8r + c`.
#[inline(always)]
fn transpose8x8(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x ^= t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x ^= t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^ t ^ (t << 28)
}

/// SSE2 transposition (SSE2 is part of every x86-64 CPU).
///
/// # Panics
/// As [`transpose`].
#[cfg(target_arch = "x86_64")]
pub fn transpose_sse2(lines: &[u8], rows: &mut [Block]) {
    let stride = check_shape(lines, rows);
    // SAFETY: SSE2 is part of the x86-64 baseline, so the CPU has it.
    unsafe { sse2::transpose(lines, rows, stride) }
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use super::LINES;
    use std::arch::x86_64::{
        __m128i, _mm_loadu_si128, _mm_movemask_epi8, _mm_setzero_si128, _mm_slli_epi64,
        _mm_unpackhi_epi8, _mm_unpacklo_epi8,
    };
    use twofold_crypto::Block;

    /// The kernel of [`super::transpose_sse2`]; the shape is already checked
    /// and `stride` is the number of bytes per line.
    #[target_feature(enable = "sse2")]
    pub(super) fn transpose(lines: &[u8], rows: &mut [Block], stride: usize) {
        for (h, out) in rows.chunks_exact_mut(LINES).enumerate() {
            // The 128 rows as 16-bit pieces: piece 8r + g is bits
            // 16g..16g+16 of row r (`Block` is a little-endian `u128`).
            let out: *mut u16 = out.as_mut_ptr().cast();
            for g in 0..LINES / 16 {
                // v[l] = bytes 16h..16h+16 of line 16g + l.
                let mut v = [_mm_setzero_si128(); 16];
                for (l, v) in v.iter_mut().enumerate() {
                    let start = (16 * g + l) * stride + 16 * h;
                    let src: &[u8] = &lines[start..start + 16];
                    // SAFETY: `src` holds exactly 16 readable bytes; the
                    // load is unaligned.
                    *v = unsafe { _mm_loadu_si128(src.as_ptr().cast::<__m128i>()) };
                }
                // Four perfect shuffles transpose the 16 × 16 byte matrix:
                // each rotates the 8-bit (line, byte) index by one bit.
                for _ in 0..4 {
                    let mut w = [_mm_setzero_si128(); 16];
                    for i in 0..8 {
                        w[2 * i] = _mm_unpacklo_epi8(v[i], v[i + 8]);
                        w[2 * i + 1] = _mm_unpackhi_epi8(v[i], v[i + 8]);
                    }
                    v = w;
                }
                // Now byte l of v[b] is byte 16h + b of line 16g + l: its
                // bit 7 is bit 8b + 7 of those 16 lines, and so on down.
                for (b, &x) in v.iter().enumerate() {
                    let mut x = x;
                    for bit in (0..8).rev() {
                        let piece = 8 * (8 * b + bit) + g;
                        // SAFETY: `out` is 128 blocks, i.e. 1024 `u16`
                        // pieces, and piece < 8 · 128; any bit pattern is a
                        // valid `u128`.
                        unsafe { out.add(piece).write(_mm_movemask_epi8(x) as u16) };
                        x = _mm_slli_epi64::<1>(x);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use twofold_crypto::Prg;

    /// Bit by bit, straight from the definition.
    fn naive(lines: &[u8], m: usize) -> Vec<Block> {
        let stride = m / 8;
        (0..m)
            .map(|j| {
                let mut row = 0u128;
                for i in 0..LINES {
                    let bit = (lines[i * stride + j / 8] >> (j % 8)) & 1;
                    row |= (bit as u128) << i;
                }
                Block(row)
            })
            .collect()
    }

    fn random_lines(m: usize, seed: u128) -> Vec<u8> {
        let mut lines = vec![0u8; m / 8 * LINES];
        Prg::from_seed(Block(seed)).fill_bytes(&mut lines);
        lines
    }

    #[test]
    fn transpose8x8_matches_definition() {
        let mut prg = Prg::from_seed(Block(3));
        for _ in 0..100 {
            let x = prg.random_block().0 as u64;
            let y = transpose8x8(x);
            for r in 0..8 {
                for c in 0..8 {
                    assert_eq!((x >> (8 * r + c)) & 1, (y >> (8 * c + r)) & 1);
                }
            }
        }
    }

    #[test]
    fn all_implementations_match_naive() {
        for (seed, m) in [0usize, 128, 256, 384, 1024, 4096].into_iter().enumerate() {
            let lines = random_lines(m, seed as u128);
            let expected = naive(&lines, m);
            let mut rows = vec![Block::ZERO; m];
            transpose_portable(&lines, &mut rows);
            assert!(rows == expected, "portable, m = {m}");
            let mut rows = vec![Block::ZERO; m];
            transpose(&lines, &mut rows);
            assert!(rows == expected, "dispatch, m = {m}");
            #[cfg(target_arch = "x86_64")]
            {
                let mut rows = vec![Block::ZERO; m];
                transpose_sse2(&lines, &mut rows);
                assert!(rows == expected, "sse2, m = {m}");
            }
        }
    }

    #[test]
    fn single_bits_land_in_place() {
        let m = 256;
        for (i, j) in [(0, 0), (0, 255), (127, 0), (127, 255), (5, 9), (64, 130)] {
            let mut lines = vec![0u8; m / 8 * LINES];
            lines[i * (m / 8) + j / 8] = 1 << (j % 8);
            let mut rows = vec![Block::ZERO; m];
            transpose(&lines, &mut rows);
            for (r, row) in rows.iter().enumerate() {
                let want = if r == j { 1u128 << i } else { 0 };
                assert_eq!(row.0, want, "bit ({i}, {j}) row {r}");
            }
        }
    }
}
