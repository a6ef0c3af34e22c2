//! One AND gate of three-halves, given its hash outputs: the paper's
//! matrices and the garbler's and evaluator's linear algebra, on 64-bit
//! halves, branch-free. (Hashing, coins and table bytes are `kernel`'s.)
//!
//! A pair of halves `(L, R)` is a [`Block`] (`L` low). A 2×4 matrix over
//! GF(2) is a byte: bit `4·row + col` for rows (L, R) of the output and
//! columns (A_L, A_R, B_L, B_R) of the input.

use crate::block::Block;

/// `S1`: added to `R_ij` when `d1` is set.
const S1: u8 = 0b1001_0111;
/// `S2`: added to `R_ij` when `d2` is set.
const S2: u8 = 0b1110_1001;
/// `Rp_ij`, indexed by `2i + j`.
const RP: [u8; 4] = [0b0010_0100, 0b0000_0100, 0b0010_0000, 0];

/// All ones if `bit` is 1, else zero.
#[inline(always)]
fn ones(bit: usize) -> u64 {
    0u64.wrapping_sub(bit as u64 & 1)
}

/// `x` if `bit` is 1, else zero.
#[inline(always)]
fn sel(bit: usize, x: Block) -> Block {
    Block(x.0 & (ones(bit) as u128 | (ones(bit) as u128) << 64))
}

/// The halves `(L, R)` of `x`.
#[inline(always)]
fn halves(x: Block) -> [u64; 2] {
    [x.0 as u64, (x.0 >> 64) as u64]
}

/// The block of halves `(l, r)`.
#[inline(always)]
fn pair(l: u64, r: u64) -> Block {
    Block(l as u128 | (r as u128) << 64)
}

/// `m · (a_L, a_R, b_L, b_R)`, as halves `(L, R)`. Inlined with a constant
/// `m` it folds to a few XORs.
#[inline(always)]
fn apply(m: u8, a: Block, b: Block) -> Block {
    let [al, ar] = halves(a);
    let [bl, br] = halves(b);
    let x = [al, ar, bl, br];
    let row = |r: usize| (0..4).fold(0, |acc, c| acc ^ (ones((m >> (4 * r + c)) as usize) & x[c]));
    pair(row(0), row(1))
}

/// The low half of a hash output (the half-label part).
#[inline(always)]
fn h(x: Block) -> u64 {
    x.0 as u64
}

/// Bit 64 of a hash output (the control-bit mask).
#[inline(always)]
fn c(x: Block) -> usize {
    (x.0 >> 64) as usize & 1
}

/// What a garbler precomputes from Δ: for the cases `(0,0)`, `(1,1)`,
/// `(0,1)` the products of `S1`, `S2` and `Rp_ij` with `(iΔ, jΔ)`, and Δ.
#[derive(Clone, Debug)]
pub(super) struct DeltaTerms {
    /// Per case: `[S1·(iΔ, jΔ), S2·(iΔ, jΔ), Rp_ij·(iΔ, jΔ)]`.
    cases: [[Block; 3]; 3],
    delta: Block,
}

/// The cases `(i, j)` that fix the garbler's unknowns, in the order of
/// [`DeltaTerms::cases`].
impl zeroize::Zeroize for DeltaTerms {
    fn zeroize(&mut self) {
        self.cases.zeroize();
        self.delta.zeroize();
    }
}

const CASES: [(usize, usize); 3] = [(0, 0), (1, 1), (0, 1)];

impl DeltaTerms {
    /// The terms of `delta`.
    pub(super) fn new(delta: Block) -> DeltaTerms {
        let cases = CASES.map(|(i, j)| {
            let (a, b) = (sel(i, delta), sel(j, delta));
            [apply(S1, a, b), apply(S2, a, b), apply(RP[2 * i + j], a, b)]
        });
        DeltaTerms { cases, delta }
    }

    /// Δ.
    pub(super) fn delta(&self) -> Block {
        self.delta
    }
}

/// The garbler's gate: colour-0 labels `a0`, `b0`, colours `a`, `b` of the
/// 1-labels, coins `r = r1 | r2 << 1`, and the hashes `hs = [H(A⁰), H(A¹),
/// H(B⁰), H(B¹), H(A⁰⊕B⁰), H(A⁰⊕B⁰⊕Δ)]` with their tweaks. Returns the
/// output 0-label, the ciphertexts `G0, G1, G2` and the control bits
/// `z1..z5` (bit 0 = `z1`).
#[inline(always)]
pub(super) fn garble(
    dt: &DeltaTerms,
    a0: Block,
    b0: Block,
    (a, b): (usize, usize),
    r: usize,
    hs: &[Block; 6],
) -> (Block, [u64; 3], u8) {
    let (r1, r2) = (r & 1, r >> 1 & 1);
    let s = [apply(S1, a0, b0), apply(S2, a0, b0)];
    let x = (a0, b0);
    let (w00, w11, w01) = (
        w_case(dt, 0, x, s, (a, b), (r1, r2)),
        w_case(dt, 1, x, s, (a, b), (r1, r2)),
        w_case(dt, 2, x, s, (a, b), (r1, r2)),
    );
    let [ha0, ha1, hb0, hb1, hx0, hx1] = *hs;
    let c0 = w00 ^ pair(h(ha0) ^ h(hx0), h(hb0) ^ h(hx0));
    let [g0, g1] = halves(w11 ^ w00 ^ pair(h(ha0 ^ ha1), h(hb0 ^ hb1)));
    let g2 = halves(w01 ^ w00)[0] ^ h(hx0 ^ hx1);
    let z = (r1 ^ c(ha0) ^ c(hx0))
        | (r2 ^ c(hb0) ^ c(hx0)) << 1
        | (a ^ c(ha0) ^ c(ha1)) << 2
        | (b ^ c(hb0) ^ c(hb1)) << 3
        | (a ^ b ^ c(hx0) ^ c(hx1)) << 4;
    (c0, [g0, g1, g2], z as u8)
}

/// `W_ij` for case `CASES[k] = (i, j)`: the evaluator's output in that case
/// without hash and ciphertext terms, `R_ij·(A^i, B^j) ⊕ [i = a ∧ j = b]·Δ`,
/// from `x = (A⁰, B⁰)` and `s = [S1·x, S2·x]`.
#[inline(always)]
fn w_case(
    dt: &DeltaTerms,
    k: usize,
    (a0, b0): (Block, Block),
    [s1, s2]: [Block; 2],
    (a, b): (usize, usize),
    (r1, r2): (usize, usize),
) -> Block {
    let (i, j) = CASES[k];
    let [s1d, s2d, rpd] = dt.cases[k];
    let d1 = r1 ^ (i & a) ^ ((i ^ j) & (a ^ b));
    let d2 = r2 ^ (j & b) ^ ((i ^ j) & (a ^ b));
    let f = (1 ^ i ^ a) & (1 ^ j ^ b);
    apply(RP[2 * i + j], a0, b0) ^ rpd ^ sel(d1, s1 ^ s1d) ^ sel(d2, s2 ^ s2d) ^ sel(f, dt.delta)
}

/// The evaluator's gate: labels `a`, `b`, the hashes `hs = [H(A), H(B),
/// H(A⊕B)]` with their tweaks, ciphertexts `g` and control bits `z`.
/// Returns the output label.
#[inline(always)]
pub(super) fn evaluate(a: Block, b: Block, hs: &[Block; 3], g: [u64; 3], z: usize) -> Block {
    let [ha, hb, hx] = *hs;
    let (i, j) = (a.lsb() as usize, b.lsb() as usize);
    let ij = i ^ j;
    let d1 = (z ^ (i & z >> 2) ^ (ij & z >> 4) ^ c(ha) ^ c(hx)) & 1;
    let d2 = (z >> 1 ^ (j & z >> 3) ^ (ij & z >> 4) ^ c(hb) ^ c(hx)) & 1;
    let [g0, g1, g2] = g;
    let cipher = pair(
        (ones(i) & g0) ^ (ones(ij) & g2),
        (ones(j) & g1) ^ (ones(ij) & g2),
    );
    pair(h(ha) ^ h(hx), h(hb) ^ h(hx))
        ^ cipher
        ^ apply(RP[2 * i + j], a, b)
        ^ sel(d1, apply(S1, a, b))
        ^ sel(d2, apply(S2, a, b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prg::Prg;

    /// For every colour of the 1-labels and every coin, the evaluator gets
    /// `C0 ⊕ (x ∧ y)·Δ` in all four cases, whatever the hash outputs: the
    /// matrices make the garbler's system consistent.
    #[test]
    fn every_case_gives_the_right_label() {
        let mut prg = Prg::from_seed(Block(3));
        for trial in 0..64 {
            let delta = Block(prg.random_block().0 | 1);
            let dt = DeltaTerms::new(delta);
            let (za, zb) = (prg.random_block(), prg.random_block());
            let hs: [Block; 6] = std::array::from_fn(|_| prg.random_block());
            let (pa, pb) = (za.lsb() as usize, zb.lsb() as usize);
            let (a0, b0) = (za ^ sel(pa, delta), zb ^ sel(pb, delta));
            let r = trial % 4;
            let (c0, g, z) = garble(&dt, a0, b0, (1 ^ pa, 1 ^ pb), r, &hs);
            for (x, y) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                let (a, b) = (za ^ sel(x, delta), zb ^ sel(y, delta));
                let (i, j) = (a.lsb() as usize, b.lsb() as usize);
                let seen = [hs[i], hs[2 + j], hs[4 + (i ^ j)]];
                let got = evaluate(a, b, &seen, g, z as usize);
                assert_eq!(got, c0 ^ sel(x & y, delta), "trial {trial} {x}{y}");
            }
        }
    }
}
