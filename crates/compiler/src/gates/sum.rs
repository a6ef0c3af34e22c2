//! Multi-operand sums: additions, subtractions and products collected as
//! columns of signed bits and reduced with full adders.

use std::collections::VecDeque;

use rustc_hash::FxHashMap as HashMap;
use twofold_circuit::{Bit, Builder};

use super::digits::{
    const_digits, digits, digits_of, distinct_wires_range, value_range, value_range_in, Digit,
};
use super::{bitlen, const_value, extend, konst, Bits, Range, WIDEST_RANGED};

/// A multi-operand sum being collected: signed bits per column, a constant,
/// and the exact range of the mathematical sum.
pub struct Sum {
    w: usize,
    cols: Vec<Vec<Bit>>,
    constant: i128,
    range: Range,
    /// The bits of negative digits put in as their complements
    /// (`-bit = ~bit - 1`): complement -> bit.
    complements: HashMap<Bit, Bit>,
}

impl Sum {
    /// An empty sum of result width `w`.
    pub fn new(w: usize) -> Sum {
        Sum {
            w,
            cols: vec![Vec::new(); w],
            constant: 0,
            range: Range::new(0, 0),
            complements: HashMap::default(),
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
            if let (Bit::Wire(_), Bit::Wire(_)) = (nb, d.bit) {
                self.complements.insert(nb, d.bit);
            }
            self.push(nb, c);
            self.constant = self.constant.wrapping_sub(weight);
        } else {
            self.push(d.bit, c);
        }
    }

    fn push(&mut self, bit: Bit, c: usize) {
        match bit {
            Bit::Const(false) => {}
            Bit::Const(true) => self.constant = self.constant.wrapping_add(1i128 << c),
            w => self.cols[c].push(w),
        }
    }

    /// Collects like terms, column after column from the lowest, in a
    /// column that holds a bit and its complement or four copies of a bit:
    /// a bit and its complement add up to 1 (the constant takes it), and
    /// two copies of a bit in column `c` are one copy in column `c + 1`. A
    /// sum of rows that repeat or cancel (`s += A - A`, `A` added 32 times)
    /// is reduced as what it adds up to; another column keeps its order, so
    /// its full adders are the ones it made before (three copies of a bit
    /// cost one full adder without an AND gate).
    ///
    /// Not in a mixed compilation: there a sum of products made Boolean
    /// (`--protocol auto`'s choice, recompiled) must leave the program's
    /// sums as the compilation that chose it met them, and one that folds
    /// to a constant here (`v * v - v * v`) would change what follows.
    fn collect_like_terms(&mut self) {
        if crate::mixed::notes::recording() {
            return;
        }
        // Each bit's copies in the column at hand, and the bits in the
        // order they first appear (reused from column to column).
        let mut copies: HashMap<Bit, usize> = HashMap::default();
        let mut order: Vec<Bit> = Vec::new();
        for c in 0..self.w {
            if self.cols[c].len() < 2 {
                continue;
            }
            copies.clear();
            order.clear();
            for &bit in &self.cols[c] {
                *copies.entry(bit).or_insert_with(|| {
                    order.push(bit);
                    0
                }) += 1;
            }
            let complement_in =
                |bit: &Bit| (self.complements.get(bit)).is_some_and(|of| copies.contains_key(of));
            if !order.iter().any(|b| copies[b] >= 4 || complement_in(b)) {
                continue;
            }
            for bit in &order {
                let Some(&of) = self.complements.get(bit) else {
                    continue;
                };
                let (Some(&k), Some(&j)) = (copies.get(bit), copies.get(&of)) else {
                    continue;
                };
                let pairs = k.min(j);
                copies.insert(*bit, k - pairs);
                copies.insert(of, j - pairs);
                self.constant = self.constant.wrapping_add((pairs as i128) << c);
            }
            self.cols[c].clear();
            for bit in &order {
                let k = copies[bit];
                if k % 2 == 1 {
                    self.cols[c].push(*bit);
                }
                if c + 1 < self.w {
                    let up = &mut self.cols[c + 1];
                    up.extend(std::iter::repeat_n(*bit, k / 2));
                }
            }
        }
    }

    /// The range a word may contribute: its digits' range, tightened by a
    /// known range of its value where that applies at this width. The two
    /// may read the bits in different windows (a choice of the constants
    /// `0xFFFFFFFF`, read as -1, and `0x80000000`: known `-1..=2^31`, the
    /// digits `2^31..=2^32-1`), so they meet modulo the bits read: their
    /// plain meet would keep `2^31` alone.
    fn operand_range(&self, x: &[Bit], known: Option<Range>) -> Range {
        let d = value_range_in(x, self.w);
        match known {
            Some(r) if x.len() <= self.w || (r.lo >= 0 && r.hi < 1i128 << (self.w - 1)) => {
                d.meet_modulo(r, x.len().min(self.w) as u32)
            }
            _ => d,
        }
    }

    /// The range of the mathematical sum of what was added so far.
    pub fn range(&self) -> Range {
        self.range
    }

    fn account(&mut self, r: Range, neg: bool) {
        self.range = if neg { self.range - r } else { self.range + r };
    }

    /// Adds (or, if `neg`, subtracts) the word `x`, whose value is known to
    /// lie in `known` (if given).
    pub fn add_ranged(&mut self, b: &mut Builder, x: &[Bit], neg: bool, known: Option<Range>) {
        let r = self.operand_range(x, known);
        self.account(r, neg);
        for mut d in digits_of(x, self.w) {
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

    /// Adds `k` times the low half of the product `x · y`, each factor with
    /// its known range (if any): the product is reduced to two words once
    /// (carry-save), and those are added `k` times; its partial products
    /// are not added `k` times each.
    pub fn add_product_times(
        &mut self,
        b: &mut Builder,
        x: (&[Bit], Option<Range>),
        y: (&[Bit], Option<Range>),
        k: i128,
    ) {
        let (rx, ry) = (self.operand_range(x.0, x.1), self.operand_range(y.0, y.1));
        self.account(rx * ry * Range::new(k, k), false);
        let mut product = Sum::new(self.w);
        product.add_product_ranged(b, x, y, false);
        let (lo, hi) = product.finish_carry_save(b);
        self.put_times(b, &lo, k);
        self.put_times(b, &hi, k);
    }

    /// Puts the digits of `k · x` into the columns (the range is accounted
    /// by the caller): a copy of `x` shifted by each bit set in `|k|`. (Not
    /// the fewer signed digits of a constant factor: `3x` as `4x - x` would
    /// cost the complement's constant, where three copies of a bit cost
    /// no AND gate.)
    fn put_times(&mut self, b: &mut Builder, x: &[Bit], k: i128) {
        let m = k.unsigned_abs();
        let shifts = (0..self.w.min(128)).filter(|j| (m >> j) & 1 == 1);
        for j in shifts {
            for a in digits(x, self.w) {
                let d = Digit {
                    col: a.col + j as u32,
                    neg: a.neg != (k < 0),
                    ..a
                };
                self.digit(b, d);
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
        let (x, y, _) = self.carry_save_columns(b, false);
        (x, y)
    }

    /// The sum modulo `2^w` in carry-save form with part of its constant
    /// apart: two words and a constant whose sum it is. Where at most
    /// half the columns hold two bits or more (`x - (y & 1)`), a constant
    /// bit that would make a third bit in its column is kept apart: in
    /// the columns, `x - (y & 1)`'s `+ 1` makes a full adder in every one,
    /// a carry chain, where apart it folds for free into whatever sum the
    /// words are added to, and the second word adds few secret bits
    /// there. The other constant bits are in the words, as they cost
    /// nothing there (and the words' ranges stay the sum's). Where more
    /// columns hold two bits (`x - y`), the second word costs the later
    /// sum about what the carry chain costs now (a full adder a bit), and
    /// the chain stays: a region's partials are then one word each, made
    /// in the region (a region of 65,536 `(a & b) - (b >> 3)` compiled in
    /// 2.6 s and 779 MB with its constants apart, 1.6 s and 535 MB so).
    pub fn finish_carry_save_apart(mut self, b: &mut Builder) -> (Bits, Bits, i128) {
        self.carry_save_columns(b, true)
    }

    /// Collects like terms, then reduces each column to two bits with full
    /// adders, their carries going to the next column. Bit `i` of the
    /// constant goes last in column `i`, or, if `apart` (and at most half
    /// the columns hold two bits or more) and the column already has two
    /// bits, into the constant returned.
    fn carry_save_columns(&mut self, b: &mut Builder, apart: bool) -> (Bits, Bits, i128) {
        self.collect_like_terms();
        let w = self.w;
        let apart = apart && 2 * self.cols.iter().filter(|c| c.len() >= 2).count() <= w;
        let c = low_bits(self.constant, w);
        let mut kept_apart = 0i128;
        let (mut x, mut y) = (Vec::with_capacity(w), Vec::with_capacity(w));
        let mut carry_in: Vec<Bit> = Vec::new();
        for i in 0..w {
            let mut q: VecDeque<Bit> = self.cols[i].drain(..).collect();
            q.extend(carry_in.drain(..));
            let bit = (c >> i.min(127)) & 1 == 1;
            if apart && bit && q.len() >= 2 && i < 127 {
                kept_apart |= 1i128 << i;
            } else {
                push_constant(&mut q, c, i);
            }
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
        (x, y, kept_apart)
    }

    /// Accounts the range of a word [`Sum::add_ranged`] would add, without
    /// adding its bits.
    pub fn account_word(&mut self, x: &[Bit], neg: bool, known: Option<Range>) {
        let r = self.operand_range(x, known);
        self.account(r, neg);
    }

    /// Accounts the range of a product [`Sum::add_product_ranged`] would
    /// add, without its partial products.
    pub fn account_product(
        &mut self,
        x: (&[Bit], Option<Range>),
        y: (&[Bit], Option<Range>),
        neg: bool,
    ) {
        let r = self.operand_range(x.0, x.1) * self.operand_range(y.0, y.1);
        self.account(r, neg);
    }

    /// Whether the result is signed and how many of its bits can vary (its
    /// range's), at most `w`.
    fn narrowed(&self) -> (bool, usize) {
        if self.w > WIDEST_RANGED {
            return (false, self.w);
        }
        let exact = self.range;
        let (signed, need) = if exact.lo >= 0 {
            (false, bitlen(exact.hi as u128))
        } else {
            (
                true,
                bitlen(exact.hi.max(0) as u128).max(bitlen((-(exact.lo + 1)) as u128)) + 1,
            )
        };
        (signed, need.min(self.w))
    }

    /// The result's bits as wires no gate writes, narrowed as
    /// [`Sum::finish_ranged`] narrows them, and its range: the sum of
    /// accounted rows that a mixed program computes arithmetically.
    pub fn finish_fresh(self, b: &mut Builder) -> (Bits, Range) {
        let (signed, n) = self.narrowed();
        if n == 0 {
            return (konst(0, self.w), Range::new(0, 0));
        }
        let out: Bits = (0..n).map(|_| Bit::Wire(b.fresh_wire())).collect();
        self.ranged(out, signed, n)
    }

    /// `out`, the low `n` bits of the result, extended to the width, and
    /// the result's range.
    fn ranged(&self, out: Bits, signed: bool, n: usize) -> (Bits, Range) {
        let bits = extend(&out, self.w, signed && n < self.w);
        let r = if n < self.w {
            self.range
        } else {
            value_range(&bits)
        };
        (bits, r)
    }

    /// [`Sum::finish`] and the range of the result's value.
    pub fn finish_ranged(mut self, b: &mut Builder) -> (Bits, Range) {
        self.collect_like_terms();
        let (signed, n) = self.narrowed();
        if n == 0 {
            return (konst(0, self.w), Range::new(0, 0));
        }
        let c = low_bits(self.constant, n);
        let mut out = Vec::with_capacity(self.w);
        let mut carry_in: Vec<Bit> = Vec::new();
        for i in 0..n {
            let mut q: VecDeque<Bit> = self.cols[i].drain(..).collect();
            q.extend(carry_in.drain(..));
            push_constant(&mut q, c, i);
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
        self.ranged(out, signed, n)
    }

    /// The sum modulo `2^w` computed over all `w` columns (for adders whose
    /// operands are not exact values, like the divider's register).
    pub fn finish_wrapping(mut self, b: &mut Builder) -> Bits {
        self.range = distinct_wires_range(self.w).unwrap_or(Range::new(i128::MIN, i128::MAX));
        self.finish(b)
    }
}

/// The constant `c` modulo `2^n` (its two's complement bits from 128 on).
fn low_bits(c: i128, n: usize) -> i128 {
    match n {
        0..=127 => c.rem_euclid(1i128 << n),
        _ => c,
    }
}

/// Puts bit `i` of the constant `c`, if set, last in column `i`'s queue:
/// added to one bit by a half adder it costs no AND gate.
fn push_constant(q: &mut VecDeque<Bit>, c: i128, i: usize) {
    if (c >> i) & 1 == 1 {
        q.push_back(Bit::Const(true));
    }
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

/// `x + y`, or `x - y` where `sub` is set, modulo `2^w` over all `w`
/// columns (one adder: `y` flipped and `sub` carried in).
pub fn add_or_sub(b: &mut Builder, x: &[Bit], y: &[Bit], sub: Bit) -> Bits {
    let w = x.len();
    let flipped: Bits = y.iter().map(|&p| b.xor(p, sub)).collect();
    let mut s = Sum::new(w);
    s.add(b, x);
    s.add(b, &flipped);
    let mut cin = vec![Bit::Const(false); w];
    cin[0] = sub;
    s.add(b, &cin);
    s.finish_wrapping(b)
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
