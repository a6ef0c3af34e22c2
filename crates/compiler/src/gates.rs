//! Word-level building blocks over [`Bit`]s, minimising AND gates.
//!
//! Words are bit vectors, bit 0 first. Constant bits fold away in the
//! builder, so public operands cost nothing. Additions, subtractions and
//! multiplications are collected as columns of signed bits and reduced with
//! full adders (one AND each): a two-operand add is a ripple-carry adder
//! (n-1 ANDs for n bits), the low half of an n x n product costs about n^2
//! ANDs, squaring about half of that. Results are computed only up to the
//! width the operands can reach ("narrowing"), and extended from there.

use std::collections::VecDeque;

use twofold_circuit::{Bit, Builder};

/// A word: bits, least significant first.
pub type Bits = Vec<Bit>;

/// The constant `v` as `w` bits.
pub fn konst(v: u64, w: usize) -> Bits {
    (0..w)
        .map(|i| Bit::Const(i < 64 && (v >> i) & 1 == 1))
        .collect()
}

/// The value of a word if all its bits are constants.
pub fn const_value(x: &[Bit]) -> Option<u64> {
    let mut v = 0u64;
    for (i, b) in x.iter().enumerate() {
        match b {
            Bit::Const(true) if i < 64 => v |= 1 << i,
            Bit::Const(_) => {}
            Bit::Wire(_) => return None,
        }
    }
    Some(v)
}

/// The top bit that is not a copy of the bits above it: the word equals the
/// sign extension (if the run is a wire or `true`) or zero extension of its
/// low `k` bits. Returns `k` (at least 1).
pub fn eff_width(x: &[Bit]) -> usize {
    let Some(&top) = x.last() else { return 0 };
    let mut k = x.len();
    while k > 1 && x[k - 2] == top {
        k -= 1;
    }
    if top == Bit::Const(false) { k - 1 } else { k }.max(1)
}

/// Extends (or truncates) `x` to `w` bits, with sign extension if `signed`.
pub fn extend(x: &[Bit], w: usize, signed: bool) -> Bits {
    let fill = if signed {
        x.last().copied().unwrap_or(Bit::Const(false))
    } else {
        Bit::Const(false)
    };
    (0..w).map(|i| x.get(i).copied().unwrap_or(fill)).collect()
}

/// A signed digit: `±bit · 2^col`.
#[derive(Clone, Copy, Debug)]
struct Digit {
    bit: Bit,
    col: u32,
    neg: bool,
}

/// The digits of a word read modulo `2^w`: the low bits positive and, when
/// the word is a sign extension of a wire, its sign bit negative.
fn digits(x: &[Bit], w: usize) -> Vec<Digit> {
    let x = &x[..x.len().min(w)];
    let Some(&top) = x.last() else {
        return Vec::new();
    };
    let mut k = x.len();
    while k > 1 && x[k - 2] == top {
        k -= 1;
    }
    let mut out = Vec::new();
    for (i, &b) in x.iter().enumerate().take(k - 1) {
        if b != Bit::Const(false) {
            out.push(Digit {
                bit: b,
                col: i as u32,
                neg: false,
            });
        }
    }
    if top != Bit::Const(false) {
        // The run of copies from bit k-1 up to bit w-1 is worth
        // -top · 2^(k-1) modulo 2^w, unless it reaches only bit w-1 alone.
        out.push(Digit {
            bit: top,
            col: (k - 1) as u32,
            neg: k < w,
        });
    }
    out
}

/// Non-adjacent form of a constant modulo `2^w`: few signed digits.
fn const_digits(v: u64, w: usize) -> Vec<Digit> {
    let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
    let v = v & mask;
    let mut out = Vec::new();
    let mut n = v as i128;
    let mut col = 0u32;
    while n != 0 && (col as usize) < w {
        if n & 1 == 1 {
            let d = 2 - (n & 3); // 1 or -1
            let d = if (col as usize) + 1 >= w { 1 } else { d };
            out.push(Digit {
                bit: Bit::Const(true),
                col,
                neg: d < 0,
            });
            n -= d;
        }
        n >>= 1;
        col += 1;
    }
    out
}

/// A multi-operand sum being collected: signed bits per column, a constant,
/// and the exact range of the mathematical sum.
pub struct Sum {
    w: usize,
    cols: Vec<Vec<Bit>>,
    constant: i128,
    range: Range,
}

impl Sum {
    /// An empty sum of result width `w`.
    pub fn new(w: usize) -> Sum {
        Sum {
            w,
            cols: vec![Vec::new(); w],
            constant: 0,
            range: Range::new(0, 0),
        }
    }

    /// Puts the partial product `a·c` into column `col` (nothing, and no
    /// gate, past the word), negative if exactly one of `a`, `c`, `neg_all`
    /// is.
    fn partial_product(&mut self, b: &mut Builder, a: &Digit, c: &Digit, col: u32, neg_all: bool) {
        if col as usize >= self.w {
            return;
        }
        let bit = b.and(a.bit, c.bit);
        let neg = (a.neg != c.neg) != neg_all;
        self.digit(b, Digit { bit, col, neg });
    }

    /// Puts a digit into the columns (the range is accounted by the caller).
    fn digit(&mut self, b: &mut Builder, d: Digit) {
        let c = d.col as usize;
        if c >= self.w {
            return;
        }
        let weight = 1i128 << c;
        if d.neg {
            // -bit = ~bit - 1
            let nb = b.not(d.bit);
            self.push(nb, c);
            self.constant -= weight;
        } else {
            self.push(d.bit, c);
        }
    }

    fn push(&mut self, bit: Bit, c: usize) {
        match bit {
            Bit::Const(false) => {}
            Bit::Const(true) => self.constant += 1i128 << c,
            w => self.cols[c].push(w),
        }
    }

    /// The range a word may contribute: its digits' range, tightened by a
    /// known range of its value where that applies at this width.
    fn operand_range(&self, x: &[Bit], known: Option<Range>) -> Range {
        let d = range_of_digits(&digits(x, self.w));
        match known {
            Some(r) if x.len() <= self.w || (r.lo >= 0 && r.hi < 1i128 << (self.w - 1)) => {
                d.meet(r)
            }
            _ => d,
        }
    }

    fn account(&mut self, r: Range, neg: bool) {
        self.range = if neg { self.range - r } else { self.range + r };
    }

    /// Adds (or, if `neg`, subtracts) the word `x`, whose value is known to
    /// lie in `known` (if given).
    pub fn add_ranged(&mut self, b: &mut Builder, x: &[Bit], neg: bool, known: Option<Range>) {
        let r = self.operand_range(x, known);
        self.account(r, neg);
        for mut d in digits(x, self.w) {
            d.neg ^= neg;
            self.digit(b, d);
        }
    }

    /// Adds the word `x` (modulo `2^w`).
    pub fn add(&mut self, b: &mut Builder, x: &[Bit]) {
        self.add_ranged(b, x, false, None);
    }

    /// Subtracts the word `x` (modulo `2^w`).
    pub fn sub(&mut self, b: &mut Builder, x: &[Bit]) {
        self.add_ranged(b, x, true, None);
    }

    /// Adds (or, if `neg`, subtracts) the low half of the product `x · y`.
    pub fn add_product(&mut self, b: &mut Builder, x: &[Bit], y: &[Bit], neg: bool) {
        self.add_product_ranged(b, (x, None), (y, None), neg);
    }

    /// Adds (or, if `neg`, subtracts) the low half of the product `x · y`,
    /// each factor with its known range (if any).
    pub fn add_product_ranged(
        &mut self,
        b: &mut Builder,
        x: (&[Bit], Option<Range>),
        y: (&[Bit], Option<Range>),
        neg: bool,
    ) {
        let (x, rx) = (x.0, self.operand_range(x.0, x.1));
        let (y, ry) = (y.0, self.operand_range(y.0, y.1));
        // (Too large to bound, the product is only known modulo 2^w.)
        self.account(rx * ry, neg);
        let neg_all = neg;
        let w = self.w;
        if x == y {
            // Squaring: x_i x_j appears twice, x_i x_i = x_i.
            let dx = digits(x, w);
            for (i, a) in dx.iter().enumerate() {
                self.digit(
                    b,
                    Digit {
                        bit: a.bit,
                        col: 2 * a.col,
                        neg: neg_all,
                    },
                );
                for c in &dx[i + 1..] {
                    self.partial_product(b, a, c, a.col + c.col + 1, neg_all);
                }
            }
            return;
        }
        let dx = match const_value(x) {
            Some(v) => const_digits(v, w),
            None => digits(x, w),
        };
        let dy = match const_value(y) {
            Some(v) => const_digits(v, w),
            None => digits(y, w),
        };
        for a in &dx {
            for c in &dy {
                self.partial_product(b, a, c, a.col + c.col, neg_all);
            }
        }
    }

    /// The sum modulo `2^w` as a word: columns reduced with full adders,
    /// only up to the width the sum can reach.
    pub fn finish(self, b: &mut Builder) -> Bits {
        self.finish_ranged(b).0
    }

    /// The sum modulo `2^w` in carry-save form: two words whose sum it is,
    /// each column reduced to two bits with full adders (no carry chain).
    pub fn finish_carry_save(mut self, b: &mut Builder) -> (Bits, Bits) {
        let w = self.w;
        let c = self.constant.rem_euclid(1i128 << w.min(127));
        for i in 0..w.min(127) {
            if (c >> i) & 1 == 1 {
                self.cols[i].push(Bit::Const(true));
            }
        }
        let (mut x, mut y) = (Vec::with_capacity(w), Vec::with_capacity(w));
        let mut carry_in: Vec<Bit> = Vec::new();
        for i in 0..w {
            let mut q: VecDeque<Bit> = self.cols[i].drain(..).collect();
            q.extend(carry_in.drain(..));
            while q.len() >= 3 {
                let (Some(p), Some(r), Some(t)) = (q.pop_front(), q.pop_front(), q.pop_front())
                else {
                    break;
                };
                let (s, c) = full_adder(b, p, r, t);
                q.push_back(s);
                if i + 1 < w {
                    carry_in.push(c);
                }
            }
            x.push(q.pop_front().unwrap_or(Bit::Const(false)));
            y.push(q.pop_front().unwrap_or(Bit::Const(false)));
        }
        (x, y)
    }

    /// [`Sum::finish`] and the range of the result's value.
    pub fn finish_ranged(mut self, b: &mut Builder) -> (Bits, Range) {
        let w = self.w;
        let exact = self.range;
        let (signed, need) = if exact.lo >= 0 {
            (false, bitlen(exact.hi as u128))
        } else {
            (
                true,
                bitlen(exact.hi.max(0) as u128).max(bitlen((-(exact.lo + 1)) as u128)) + 1,
            )
        };
        let n = need.min(w);
        if n == 0 {
            return (konst(0, w), Range::new(0, 0));
        }
        let c = self.constant.rem_euclid(1i128 << n);
        for i in 0..n {
            if (c >> i) & 1 == 1 {
                self.cols[i].push(Bit::Const(true));
            }
        }
        let mut out = Vec::with_capacity(w);
        let mut carry_in: Vec<Bit> = Vec::new();
        for i in 0..n {
            let mut q: VecDeque<Bit> = self.cols[i].drain(..).collect();
            q.extend(carry_in.drain(..));
            if i + 1 == n {
                let mut s = Bit::Const(false);
                for x in q {
                    s = b.xor(s, x);
                }
                out.push(s);
                break;
            }
            while q.len() >= 3 {
                let (x, y, z) = (q.pop_front(), q.pop_front(), q.pop_front());
                let (Some(x), Some(y), Some(z)) = (x, y, z) else {
                    break;
                };
                let (s, c) = full_adder(b, x, y, z);
                q.push_back(s);
                carry_in.push(c);
            }
            if q.len() == 2 {
                let (x, y) = (q[0], q[1]);
                let s = b.xor(x, y);
                let c = b.and(x, y);
                carry_in.push(c);
                out.push(s);
            } else {
                out.push(q.pop_front().unwrap_or(Bit::Const(false)));
            }
        }
        let bits = extend(&out, w, signed && n < w);
        let r = if n < w { exact } else { value_range(&bits) };
        (bits, r)
    }
}

pub use crate::range::Range;

fn range_of_digits(ds: &[Digit]) -> Range {
    let (mut lo, mut hi) = (0i128, 0i128);
    for d in ds {
        let wgt = 1i128 << d.col;
        match (d.bit, d.neg) {
            (Bit::Const(false), _) => {}
            (Bit::Const(true), false) => {
                lo += wgt;
                hi += wgt;
            }
            (Bit::Const(true), true) => {
                lo -= wgt;
                hi -= wgt;
            }
            (_, false) => hi += wgt,
            (_, true) => lo -= wgt,
        }
    }
    Range::new(lo, hi)
}

/// The range of a word's value from its bits alone.
pub fn value_range(x: &[Bit]) -> Range {
    range_of_digits(&digits(x, x.len()))
}

/// Buckets per power of two, as a shift: `2^BUCKET_SHIFT` of them.
const BUCKET_SHIFT: usize = 3;

/// How far a kept loop's template widens the ranges it reads (so that
/// iterations whose ranges differ within the widened ones match).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Widening {
    /// Each bound rounded outwards to a multiple of an eighth of the
    /// largest power of two the bits allow: values whose ranges grow a
    /// little at a time (a DP row) share buckets for a while, and a bucket
    /// leaves room above its values, so adding a little to them does not
    /// need a bit more.
    Fine,
    /// Each bound rounded outwards to the next `±7·2^m`: few, wide buckets
    /// that still leave an eighth of their width of room below the next
    /// power of two.
    Wide,
    /// To all the bits allow.
    Bits,
}

/// The range `r` of a value with bits `x`, widened as `how` says (never
/// beyond what the bits allow).
pub fn bucket(r: Range, x: &[Bit], how: Widening) -> Range {
    let natural = value_range(x);
    if how == Widening::Bits {
        return natural;
    }
    if how == Widening::Wide {
        let up = |v: i128| {
            let mut b = 6i128;
            while b < v {
                b = b * 2 + 1;
            }
            b
        };
        let hi = if r.hi < 0 { r.hi } else { up(r.hi) };
        let lo = if r.lo >= 0 {
            r.lo.min(0)
        } else {
            -up(-r.lo - 1) - 1
        };
        return Range::new(lo.max(natural.lo), hi.min(natural.hi));
    }
    let span = natural.hi.max(-(natural.lo + 1)).max(1) as u128;
    let step = (1i128 << bitlen(span).saturating_sub(BUCKET_SHIFT)).max(1);
    let hi = (r.hi.div_euclid(step) + 1) * step - 1;
    let lo = r.lo.div_euclid(step) * step;
    Range::new(lo.max(natural.lo), hi.min(natural.hi))
}

/// The word with the bits above what `r` needs replaced by the extension
/// of the rest (a value known to lie in `r` needs no more bits).
pub fn narrow(x: &[Bit], r: Range) -> Bits {
    let w = x.len();
    let (signed, need) = if r.lo >= 0 {
        (false, bitlen(r.hi.max(0) as u128))
    } else {
        (
            true,
            bitlen(r.hi.max(0) as u128).max(bitlen((-(r.lo + 1)) as u128)) + 1,
        )
    };
    if need >= w {
        return x.to_vec();
    }
    extend(&x[..need], w, signed)
}

fn bitlen(v: u128) -> usize {
    (128 - v.leading_zeros()) as usize
}

/// A full adder: one AND gate.
pub fn full_adder(b: &mut Builder, x: Bit, y: Bit, z: Bit) -> (Bit, Bit) {
    let t1 = b.xor(x, z);
    let t2 = b.xor(y, z);
    let s = b.xor(t1, y);
    let a = b.and(t1, t2);
    let c = b.xor(a, z);
    (s, c)
}

/// `x + y` modulo `2^w`.
pub fn add(b: &mut Builder, x: &[Bit], y: &[Bit]) -> Bits {
    let mut s = Sum::new(x.len());
    s.add(b, x);
    s.add(b, y);
    s.finish(b)
}

/// `x - y` modulo `2^w`.
pub fn sub(b: &mut Builder, x: &[Bit], y: &[Bit]) -> Bits {
    let mut s = Sum::new(x.len());
    s.add(b, x);
    s.sub(b, y);
    s.finish(b)
}

/// `-x` modulo `2^w`.
pub fn neg(b: &mut Builder, x: &[Bit]) -> Bits {
    let mut s = Sum::new(x.len());
    s.sub(b, x);
    s.finish(b)
}

/// `x · y` modulo `2^w`.
pub fn mul(b: &mut Builder, x: &[Bit], y: &[Bit]) -> Bits {
    let mut s = Sum::new(x.len());
    s.add_product(b, x, y, false);
    s.finish(b)
}

/// Bitwise AND.
pub fn and(b: &mut Builder, x: &[Bit], y: &[Bit]) -> Bits {
    x.iter().zip(y).map(|(&p, &q)| b.and(p, q)).collect()
}

/// Bitwise OR.
pub fn or(b: &mut Builder, x: &[Bit], y: &[Bit]) -> Bits {
    x.iter().zip(y).map(|(&p, &q)| b.or(p, q)).collect()
}

/// Bitwise XOR.
pub fn xor(b: &mut Builder, x: &[Bit], y: &[Bit]) -> Bits {
    x.iter().zip(y).map(|(&p, &q)| b.xor(p, q)).collect()
}

/// Bitwise NOT.
pub fn not(b: &mut Builder, x: &[Bit]) -> Bits {
    x.iter().map(|&p| b.not(p)).collect()
}

/// `sel ? t : f`, bit by bit (one AND per differing bit).
pub fn mux(b: &mut Builder, sel: Bit, t: &[Bit], f: &[Bit]) -> Bits {
    t.iter().zip(f).map(|(&p, &q)| b.mux(sel, p, q)).collect()
}

/// `x != 0` (an OR tree).
pub fn nonzero(b: &mut Builder, x: &[Bit]) -> Bit {
    or_all(b, x.to_vec())
}

fn or_all(b: &mut Builder, mut v: Vec<Bit>) -> Bit {
    v.retain(|&x| x != Bit::Const(false));
    if v.contains(&Bit::Const(true)) {
        return Bit::Const(true);
    }
    while v.len() > 1 {
        let mut next = Vec::with_capacity(v.len().div_ceil(2));
        for pair in v.chunks(2) {
            next.push(if pair.len() == 2 {
                b.or(pair[0], pair[1])
            } else {
                pair[0]
            });
        }
        v = next;
    }
    v.first().copied().unwrap_or(Bit::Const(false))
}

/// `x == y` (n-1 ANDs over the significant bits).
pub fn equal(b: &mut Builder, x: &[Bit], y: &[Bit]) -> Bit {
    let d: Vec<Bit> = x.iter().zip(y).map(|(&p, &q)| b.xor(p, q)).collect();
    let k = eff_width(&d).min(d.len());
    let nz = or_all(b, d[..k].to_vec());
    b.not(nz)
}

/// Number of bits left when the constant-zero top bits are dropped (the
/// unsigned significant width; at least 1).
pub fn uwidth(x: &[Bit]) -> usize {
    let mut k = x.len();
    while k > 1 && x[k - 1] == Bit::Const(false) {
        k -= 1;
    }
    k.max(1)
}

/// `x < y` for words of equal width (one AND per significant bit).
pub fn less(b: &mut Builder, x: &[Bit], y: &[Bit], signed: bool) -> Bit {
    let n = x.len();
    let zero_top = |v: &[Bit]| v.last() == Some(&Bit::Const(false));
    // Both words must be extensions of their low k bits of the same kind.
    let (k, flip) = if zero_top(x) && zero_top(y) {
        (uwidth(x).max(uwidth(y)).min(n), false)
    } else {
        (signed_width(x).max(signed_width(y)).min(n), signed)
    };
    let mut xs: Bits = x[..k].to_vec();
    let mut ys: Bits = y[..k].to_vec();
    if flip {
        let t = k - 1;
        xs[t] = b.not(xs[t]);
        ys[t] = b.not(ys[t]);
    }
    // Borrow of x - y: bout = maj(!x, y, bin).
    // bout = maj(!x, y, bin) = ((x ^ bin) & (y ^ bin)) ^ y
    let mut borrow = Bit::Const(false);
    for i in 0..k {
        let t1 = b.xor(xs[i], borrow);
        let t2 = b.xor(ys[i], borrow);
        let a = b.and(t1, t2);
        borrow = b.xor(a, ys[i]);
    }
    borrow
}

/// Number of low bits whose sign extension gives the word.
fn signed_width(x: &[Bit]) -> usize {
    let Some(&top) = x.last() else { return 1 };
    let mut k = x.len();
    while k > 1 && x[k - 2] == top {
        k -= 1;
    }
    k
}

/// `x << s` for a secret amount (the low log2(width) bits of `s` are used,
/// as x86 does).
pub fn shl_var(b: &mut Builder, x: &[Bit], s: &[Bit]) -> Bits {
    let n = x.len();
    let mut v = x.to_vec();
    let mut k = 0;
    while (1usize << k) < n {
        let sh = 1usize << k;
        let sel = s.get(k).copied().unwrap_or(Bit::Const(false));
        let shifted: Bits = (0..n)
            .map(|i| {
                if i >= sh {
                    v[i - sh]
                } else {
                    Bit::Const(false)
                }
            })
            .collect();
        v = mux(b, sel, &shifted, &v);
        k += 1;
    }
    v
}

/// `x >> s` for a secret amount (arithmetic if `signed`).
pub fn shr_var(b: &mut Builder, x: &[Bit], s: &[Bit], signed: bool) -> Bits {
    let n = x.len();
    let fill = if signed { x[n - 1] } else { Bit::Const(false) };
    let mut v = x.to_vec();
    let mut k = 0;
    while (1usize << k) < n {
        let sh = 1usize << k;
        let sel = s.get(k).copied().unwrap_or(Bit::Const(false));
        let shifted: Bits = (0..n)
            .map(|i| if i + sh < n { v[i + sh] } else { fill })
            .collect();
        v = mux(b, sel, &shifted, &v);
        k += 1;
    }
    v
}

/// `(x ^ s) + s` over the low `k` bits, modulo `2^k`.
fn flip_add(b: &mut Builder, x: &[Bit], s: Bit, k: usize) -> Bits {
    let flipped: Bits = x[..k].iter().map(|&p| b.xor(p, s)).collect();
    let mut sum = Sum::new(k);
    sum.add(b, &flipped);
    let mut one = vec![Bit::Const(false); k];
    one[0] = s;
    sum.add(b, &one);
    sum.finish_wrapping(b)
}

/// `|x|` as an unsigned word, `s` being the sign bit of the signed word `x`.
fn abs_of(b: &mut Builder, x: &[Bit], s: Bit) -> Bits {
    let k = signed_width(x).min(x.len());
    extend(&flip_add(b, x, s, k), x.len(), false)
}

/// `s ? -q : q` for an unsigned word `q`, as a signed word.
fn negate_if(b: &mut Builder, q: &[Bit], s: Bit) -> Bits {
    let k = (uwidth(q) + 1).min(q.len());
    extend(&flip_add(b, q, s, k), q.len(), true)
}

/// Unsigned division and remainder of words of width `n`.
///
/// Non-restoring division: one adder/subtractor (as many ANDs as the
/// divisor's significant bits) per quotient bit, no multiplexers. A public
/// divisor skips the leading steps whose quotient bit must be 0, and powers
/// of two become shifts. Division by zero gives an all-ones quotient and
/// the dividend as remainder.
pub fn udivrem(b: &mut Builder, x: &[Bit], d: &[Bit], want_rem: bool) -> (Bits, Bits) {
    let n = x.len();
    let nx = uwidth(x).min(n);
    let dconst = const_value(d);
    if let Some(dv) = dconst {
        if dv == 0 {
            return (konst(u64::MAX, n), x.to_vec());
        }
        if dv.is_power_of_two() {
            let k = dv.trailing_zeros() as usize;
            let q = (0..n)
                .map(|i| x.get(i + k).copied().unwrap_or(Bit::Const(false)))
                .collect();
            let r = (0..n)
                .map(|i| if i < k { x[i] } else { Bit::Const(false) })
                .collect();
            return (q, r);
        }
    }
    let nd = uwidth(d).min(n);
    let l = match dconst {
        Some(dv) => 64 - dv.leading_zeros() as usize,
        None => 1,
    };
    let m = nd + 1; // register width: -d <= R < d
    let mut q = vec![Bit::Const(false); n];
    if nx + 1 < l {
        return (q, x.to_vec());
    }
    // Start with the top l-1 bits of x (they are < d).
    let start = nx + 1 - l; // number of steps
    let mut r: Bits = (0..m)
        .map(|i| {
            if i + start < nx && i < l - 1 {
                x[i + start]
            } else {
                Bit::Const(false)
            }
        })
        .collect();
    let dm: Bits = extend(&d[..nd], m, false);
    for i in (0..start).rev() {
        let sign = r[m - 1];
        let sub = b.not(sign);
        let mut shifted = Vec::with_capacity(m);
        shifted.push(x[i]);
        shifted.extend_from_slice(&r[..m - 1]);
        let op: Bits = dm.iter().map(|&p| b.xor(p, sub)).collect();
        let mut s = Sum::new(m);
        s.add(b, &shifted);
        s.add(b, &op);
        let mut cin = vec![Bit::Const(false); m];
        cin[0] = sub;
        s.add(b, &cin);
        // The sum wraps modulo 2^m: force the plain adder of width m.
        r = s.finish_wrapping(b);
        q[i] = b.not(r[m - 1]);
    }
    let mut rem = Vec::new();
    if want_rem {
        let sign = r[m - 1];
        let fix: Bits = dm.iter().map(|&p| b.and(p, sign)).collect();
        let mut s = Sum::new(m);
        s.add(b, &r);
        s.add(b, &fix);
        let full = s.finish_wrapping(b);
        rem = extend(&full[..nd.min(m)], n, false);
    }
    if dconst.is_none() && (nd < nx || nx < n) {
        // Division by zero: quotient all ones, remainder the dividend.
        let z = {
            let nz = nonzero(b, &d[..nd]);
            b.not(nz)
        };
        if nd < nx {
            q = q.iter().map(|&p| b.or(p, z)).collect();
            if want_rem {
                rem = mux(b, z, x, &rem);
            }
        } else {
            for bit in q.iter_mut().skip(nx) {
                *bit = z;
            }
        }
    }
    (q, rem)
}

impl Sum {
    /// The sum modulo `2^w` computed over all `w` columns (for adders whose
    /// operands are not exact values, like the divider's register).
    pub fn finish_wrapping(mut self, b: &mut Builder) -> Bits {
        self.range = Range::new(0, (1i128 << self.w) - 1);
        self.finish(b)
    }
}

/// Signed (truncating) division and remainder. `INT_MIN / -1` wraps to
/// `INT_MIN` (remainder 0); `x / 0` is -1 for `x >= 0` and 1 for `x < 0`,
/// `x % 0 = x`.
pub fn sdivrem(b: &mut Builder, x: &[Bit], d: &[Bit], want_rem: bool) -> (Bits, Bits) {
    let n = x.len();
    let sx = x[n - 1];
    let sd = d[n - 1];
    let ax = abs_of(b, x, sx);
    let ad = abs_of(b, d, sd);
    let (q, r) = udivrem(b, &ax, &ad, want_rem);
    let sq = b.xor(sx, sd);
    let q = negate_if(b, &q, sq);
    let r = if want_rem { negate_if(b, &r, sx) } else { r };
    (q, r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{rngs::StdRng, Rng, SeedableRng};
    use twofold_circuit::Party;

    /// Builds `f` over two n-bit inputs; returns (AND count, evaluator).
    fn build(
        n: u32,
        f: impl Fn(&mut Builder, &[Bit], &[Bit]) -> Bits,
    ) -> (usize, impl Fn(u64, u64) -> u64) {
        let mut b = Builder::new();
        let x = b.input("x", Party::A, n);
        let y = b.input("y", Party::B, n);
        let out = f(&mut b, &x, &y);
        b.output("o", &out);
        let c = b.finish().expect("circuit");
        let ands = c.and_count();
        let eval = move |p: u64, q: u64| {
            let bits = |v: u64| (0..n).map(|i| (v >> i) & 1 == 1).collect::<Vec<bool>>();
            let o = c.eval(&[bits(p), bits(q)]).expect("eval");
            o[0].iter()
                .enumerate()
                .map(|(i, &bit)| (bit as u64) << i)
                .sum()
        };
        (ands, eval)
    }

    fn check(
        n: u32,
        f: impl Fn(&mut Builder, &[Bit], &[Bit]) -> Bits,
        want: impl Fn(u64, u64) -> u64,
    ) -> usize {
        let (ands, eval) = build(n, f);
        let mask = if n == 64 { u64::MAX } else { (1 << n) - 1 };
        let mut rng = StdRng::seed_from_u64(n as u64);
        let special = [0, 1, mask, mask >> 1, (mask >> 1) + 1, 2, mask - 1];
        for k in 0..300 {
            let p = if k < 49 {
                special[k % 7]
            } else {
                rng.gen::<u64>() & mask
            };
            let q = if k < 49 {
                special[k / 7]
            } else {
                rng.gen::<u64>() & mask
            };
            assert_eq!(eval(p, q), want(p, q) & mask, "inputs {p:#x} {q:#x}");
        }
        ands
    }

    fn sx(v: u64, n: u32) -> i64 {
        ((v << (64 - n)) as i64) >> (64 - n)
    }

    #[test]
    fn adders_cost_one_and_per_bit() {
        for n in [8u32, 32, 64] {
            assert_eq!(check(n, add, |p, q| p.wrapping_add(q)), n as usize - 1);
            assert_eq!(check(n, sub, |p, q| p.wrapping_sub(q)), n as usize - 1);
        }
    }

    #[test]
    fn comparators_cost_one_and_per_bit() {
        for n in [8u32, 32, 64] {
            let u = check(
                n,
                |b, x, y| vec![less(b, x, y, false)],
                |p, q| (p < q) as u64,
            );
            assert_eq!(u, n as usize);
            let s = check(
                n,
                |b, x, y| vec![less(b, x, y, true)],
                move |p, q| (sx(p, n) < sx(q, n)) as u64,
            );
            assert_eq!(s, n as usize);
            let e = check(n, |b, x, y| vec![equal(b, x, y)], |p, q| (p == q) as u64);
            assert_eq!(e, n as usize - 1);
            let m = check(
                n,
                |b, x, y| mux(b, x[0], y, x),
                |p, q| if p & 1 == 1 { q } else { p },
            );
            assert_eq!(m, n as usize);
        }
    }

    #[test]
    fn multiplication_low_half() {
        // The low half of a 32 x 32 product: 528 partial products and 465
        // full/half adders.
        assert_eq!(check(32, mul, |p, q| p.wrapping_mul(q)), 993);
        let sq = check(32, |b, x, _| mul(b, x, x), |p, _| p.wrapping_mul(p));
        assert!(sq < 993 * 6 / 10, "squaring took {sq}");
        check(64, mul, |p, q| p.wrapping_mul(q));
        check(8, mul, |p, q| p.wrapping_mul(q));
        // Multiplying by a public constant costs only its additions.
        let c = check(
            32,
            |b, x, _| mul(b, x, &konst(0x0f0f_0f0f, 32)),
            |p, _| p.wrapping_mul(0x0f0f_0f0f),
        );
        assert!(c < 250, "constant product took {c}");
    }

    #[test]
    fn division_and_remainder() {
        for n in [8u32, 16, 32] {
            check(
                n,
                |b, x, y| udivrem(b, x, y, false).0,
                |p, q| p.checked_div(q).unwrap_or(u64::MAX),
            );
            check(
                n,
                |b, x, y| udivrem(b, x, y, true).1,
                |p, q| if q == 0 { p } else { p % q },
            );
            check(
                n,
                |b, x, y| sdivrem(b, x, y, false).0,
                move |p, q| {
                    let (a, d) = (sx(p, n), sx(q, n));
                    if d == 0 {
                        if a < 0 {
                            1
                        } else {
                            u64::MAX
                        }
                    } else {
                        a.wrapping_div(d) as u64
                    }
                },
            );
            check(
                n,
                |b, x, y| sdivrem(b, x, y, true).1,
                move |p, q| {
                    let (a, d) = (sx(p, n), sx(q, n));
                    if d == 0 {
                        p
                    } else {
                        a.wrapping_rem(d) as u64
                    }
                },
            );
        }
        // A public divisor: one adder per quotient bit that can be set.
        let c = check(
            32,
            |b, x, _| udivrem(b, x, &konst(1000, 32), true).1,
            |p, _| p % 1000,
        );
        assert!(c < 23 * 12 + 40, "x % 1000 took {c}");
    }

    #[test]
    fn shifts_by_secret_amounts() {
        for n in [8u32, 32] {
            check(n, shl_var, move |p, q| p << (q & (n as u64 - 1)));
            check(
                n,
                |b, x, y| shr_var(b, x, y, false),
                move |p, q| p >> (q & (n as u64 - 1)),
            );
            check(
                n,
                |b, x, y| shr_var(b, x, y, true),
                move |p, q| (sx(p, n) >> (q & (n as u64 - 1))) as u64,
            );
        }
    }

    #[test]
    fn narrow_operands_make_narrow_circuits() {
        // Two 8-bit values zero-extended to 32 bits: a 9-bit sum.
        let (ands, _) = build(8, |b, x, y| {
            add(b, &extend(x, 32, false), &extend(y, 32, false))
        });
        assert_eq!(ands, 8);
        let (ands, _) = build(8, |b, x, y| {
            mul(b, &extend(x, 32, false), &extend(y, 32, false))
        });
        assert!(ands <= 64 + 56, "8x8 product took {ands}");
    }
}
