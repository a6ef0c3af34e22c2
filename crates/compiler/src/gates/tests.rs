//! Tests of the word-level building blocks: results and AND-gate counts.

use rand::{rngs::StdRng, Rng, SeedableRng};
use twofold_circuit::{Bit, Builder, Party};

use super::*;

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

#[test]
fn value_range_is_the_range_of_the_words_digits() {
    // Every word of up to 6 bits made of 0, 1 and (distinct or repeated)
    // wires, against the digits' range (as sums read words).
    let choices = [
        Bit::Const(false),
        Bit::Const(true),
        Bit::Wire(7),
        Bit::Wire(9),
    ];
    for w in 1..=6u32 {
        for code in 0..4usize.pow(w) {
            let x: Vec<Bit> = (0..w).map(|i| choices[code / 4usize.pow(i) % 4]).collect();
            let want = digits::range_of_digits(digits::digits_of(&x, x.len()));
            assert_eq!(value_range(&x), want, "{x:?}");
            // Read in sums narrower and wider than the word.
            for sum in 1..=8 {
                let want = digits::range_of_digits(digits::digits_of(&x, sum));
                assert_eq!(digits::value_range_in(&x, sum), want, "{x:?} in {sum} bits");
            }
        }
    }
    // Words of 60 to 100 bits (masks of 64 and 128 bits), each a pattern
    // of the choices.
    for w in 60..=100usize {
        for seed in 0..64usize {
            let x: Vec<Bit> = (0..w).map(|i| choices[(i * 7 + seed) / 5 % 4]).collect();
            let want = digits::range_of_digits(digits::digits_of(&x, x.len()));
            assert_eq!(value_range(&x), want, "{x:?}");
        }
    }
}

/// A word of distinct wires may hold any of its width's unsigned values
/// (what the kept-loop shape check assumes rather than reading its bits),
/// and bucketing it by that range is bucketing it by its bits.
#[test]
fn a_word_of_distinct_wires_allows_all_its_values() {
    for n in 1..=64u32 {
        let bits: Bits = (0..n).map(|i| Bit::Wire(100 + 3 * i)).collect();
        let all = Range::new(0, (1i128 << n) - 1);
        assert_eq!(value_range(&bits), all, "{n} bits");
        assert_eq!(distinct_wires_range(n as usize), Some(all), "{n} bits");
        let r = Range::new(5, (1i128 << n) / 2);
        for how in [
            Widening::Exact,
            Widening::Fine,
            Widening::Wide,
            Widening::Bits,
        ] {
            assert_eq!(
                bucket(r, &bits, how),
                bucket_in(r, all, n, how),
                "{n} bits, {how:?}"
            );
        }
    }
}

/// A sum whose terms repeat or cancel costs what it adds up to: `x`
/// added 32 times is `32 x` (a shift: no gate), `x - x + y` is `y`, and
/// `3x + 5y - x - 2y` is `2x + 3y` (an adder or two), each checked on
/// values at the edges and at random, in 8, 32 and 64 bits.
#[test]
fn like_terms_are_collected_before_reducing() {
    for n in [8u32, 32, 64] {
        let many = |b: &mut Builder, x: &[Bit], _: &[Bit]| {
            let mut s = Sum::new(x.len());
            for _ in 0..32 {
                s.add(b, x);
            }
            s.finish(b)
        };
        assert_eq!(check(n, many, |p, _| p.wrapping_mul(32)), 0);
        let cancel = |b: &mut Builder, x: &[Bit], y: &[Bit]| {
            let mut s = Sum::new(x.len());
            s.add(b, x);
            s.add(b, y);
            s.sub(b, x);
            s.finish(b)
        };
        assert_eq!(check(n, cancel, |_, q| q), 0);
        let mixed = |b: &mut Builder, x: &[Bit], y: &[Bit]| {
            let mut s = Sum::new(x.len());
            for _ in 0..3 {
                s.add(b, x);
            }
            for _ in 0..5 {
                s.add(b, y);
            }
            s.sub(b, x);
            s.sub(b, y);
            s.sub(b, y);
            s.finish(b)
        };
        let ands = check(n, mixed, |p, q| {
            p.wrapping_mul(2).wrapping_add(q.wrapping_mul(3))
        });
        assert!(ands <= 3 * n as usize, "2x + 3y took {ands} AND gates");
        // Carry-save form: the same value, its two words added.
        let carry_save = |b: &mut Builder, x: &[Bit], y: &[Bit]| {
            let mut s = Sum::new(x.len());
            for _ in 0..6 {
                s.add(b, x);
                s.sub(b, y);
            }
            let (u, v) = s.finish_carry_save(b);
            add(b, &u, &v)
        };
        check(n, carry_save, |p, q| p.wrapping_sub(q).wrapping_mul(6));
    }
}

/// `x - (y & 1)` in carry-save form with the constant apart makes no
/// AND gate (words `x` and `!y0`, then ones, and the constant 1), where
/// its `+ 1` put into the columns carries through all of them, a full
/// adder a bit. `x - y` (every column two bits) keeps its carry chain:
/// its second word would cost a later sum as much.
#[test]
fn a_sparse_difference_in_carry_save_form_makes_no_carry_chain() {
    for n in [8u32, 32] {
        let mask = (1u64 << n) - 1;
        // The two words side by side, and the constant apart.
        let parts = |apart: bool, sparse: bool| {
            move |b: &mut Builder, x: &[Bit], y: &[Bit]| -> (Bits, i128) {
                let mut s = Sum::new(x.len());
                s.add(b, x);
                let low: Bits = (0..y.len())
                    .map(|i| {
                        if i == 0 || !sparse {
                            y[i]
                        } else {
                            Bit::Const(false)
                        }
                    })
                    .collect();
                s.sub(b, &low);
                let (u, v, c) = match apart {
                    true => s.finish_carry_save_apart(b),
                    false => {
                        let (u, v) = s.finish_carry_save(b);
                        (u, v, 0)
                    }
                };
                (u.into_iter().chain(v).collect(), c)
            }
        };
        let mut ands = Vec::new();
        for (apart, sparse) in [(true, true), (false, true), (true, false)] {
            let c = std::cell::Cell::new(0);
            let f = parts(apart, sparse);
            let (count, eval) = build(n, |b, x, y| {
                let (bits, k) = f(b, x, y);
                c.set(k);
                bits
            });
            let mut rng = StdRng::seed_from_u64(u64::from(n));
            for _ in 0..200 {
                let (p, q) = (rng.gen::<u64>() & mask, rng.gen::<u64>() & mask);
                let o = eval(p, q);
                let total = (o & mask) + (o >> n) + c.get() as u64;
                let want = p.wrapping_sub(if sparse { q & 1 } else { q });
                assert_eq!(total & mask, want & mask, "inputs {p:#x} {q:#x}");
            }
            assert_eq!(c.get() != 0, apart && sparse, "the constant apart");
            ands.push(count);
        }
        assert_eq!(ands[0], 0, "x - (y & 1) apart");
        assert!(ands[1] >= n as usize - 1, "{} AND gates chained", ands[1]);
        assert!(ands[2] >= n as usize - 1, "x - y: {} AND gates", ands[2]);
    }
}

/// A product added `k` times is reduced once and its two words added `k`
/// times: the same value as `k` products' rows, for fewer AND gates.
#[test]
fn a_product_added_many_times_is_reduced_once() {
    for n in [8u32, 32] {
        for k in [2i128, 5, -3] {
            let times = |b: &mut Builder, x: &[Bit], y: &[Bit]| {
                let mut s = Sum::new(x.len());
                s.add(b, y);
                s.add_product_times(b, (x, None), (y, None), k);
                s.finish(b)
            };
            let want = |p: u64, q: u64| q.wrapping_add(p.wrapping_mul(q).wrapping_mul(k as u64));
            let once = check(n, times, want);
            let rows = |b: &mut Builder, x: &[Bit], y: &[Bit]| {
                let mut s = Sum::new(x.len());
                s.add(b, y);
                for _ in 0..k.abs() {
                    s.add_product(b, x, y, k < 0);
                }
                s.finish(b)
            };
            let each = check(n, rows, want);
            assert!(
                once < each,
                "{k} products in {n} bits: {once} AND gates, as rows {each}"
            );
        }
    }
}

/// Division and remainder of words wider than 64 bits (C's `__int128`),
/// with divisors of every width: the operands are read as 128-bit values.
/// A divisor of all 128 bits needs a 129-bit register, past what a `Sum`
/// adds: `x / 1` gave `2^127 - 1`. Signed too, at 128 bits.
#[test]
fn wide_division_and_remainder() {
    let mut rng = StdRng::seed_from_u64(128);
    for n in [64u32, 65, 66, 100, 127, 128] {
        let mut b = Builder::new();
        let x = b.input("x", Party::A, n);
        let y = b.input("y", Party::B, n);
        let (q, _) = udivrem(&mut b, &x, &y, false);
        let (_, r) = udivrem(&mut b, &x, &y, true);
        b.output("q", &q);
        b.output("r", &r);
        if n == 128 {
            let (sq, _) = sdivrem(&mut b, &x, &y, false);
            let (_, sr) = sdivrem(&mut b, &x, &y, true);
            b.output("sq", &sq);
            b.output("sr", &sr);
        }
        let c = b.finish().expect("circuit");
        let mask = if n == 128 {
            u128::MAX
        } else {
            (1u128 << n) - 1
        };
        let bits = |v: u128| (0..n).map(|i| (v >> i) & 1 == 1).collect::<Vec<bool>>();
        let value = |o: &[bool]| {
            o.iter()
                .enumerate()
                .map(|(i, &t)| (t as u128) << i)
                .sum::<u128>()
        };
        for k in 0..200 {
            let p = rng.gen::<u128>() & mask;
            // Divisors of every width up to n bits.
            let width = 1 + k % n;
            let d = (rng.gen::<u128>() & mask) >> (n - width);
            let o = c.eval(&[bits(p), bits(d)]).expect("eval");
            let (want_q, want_r) = match d {
                0 => (mask, p),
                d => (p / d, p % d),
            };
            assert_eq!(
                (value(&o[0]), value(&o[1])),
                (want_q, want_r),
                "{n} bits: {p:#x} / {d:#x}"
            );
            if n == 128 {
                let (sp, sd) = (p as i128, d as i128);
                let want = match sd {
                    0 if sp < 0 => (1, p),
                    0 => (u128::MAX, p),
                    _ => (sp.wrapping_div(sd) as u128, sp.wrapping_rem(sd) as u128),
                };
                assert_eq!((value(&o[2]), value(&o[3])), want, "signed: {sp} / {sd}");
            }
        }
    }
}
