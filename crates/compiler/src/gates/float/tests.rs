//! Every operation against the host's IEEE arithmetic (x86-64 SSE), bit
//! for bit: corner values against each other, then random patterns.

use std::hint::black_box;

use rand::{rngs::StdRng, Rng, SeedableRng};
use twofold_circuit::{Bit, Builder, Circuit, Gate, Party};

use super::*;

/// Random pairs per binary operation and format.
const RANDOM: usize = 100_000;

/// A circuit with one input per operand (of `widths`) and one output.
fn circuit(widths: &[usize], f: impl Fn(&mut Builder, &[Bits]) -> Bits) -> Circuit {
    let mut b = Builder::new();
    let ins: Vec<Bits> = widths
        .iter()
        .enumerate()
        .map(|(i, &w)| {
            let party = if i == 0 { Party::A } else { Party::B };
            b.input(format!("x{i}"), party, w as u32)
        })
        .collect();
    let out = f(&mut b, &ins);
    b.output("o", &out);
    b.finish().expect("circuit")
}

/// Evaluates `c` on up to 64 input tuples at once (one per bit lane).
fn eval64(c: &Circuit, args: &[Vec<u64>]) -> Vec<u64> {
    let lanes = args.len();
    let mut wires = vec![0u64; c.num_wires as usize];
    let mut at = 0;
    for (k, input) in c.inputs.iter().enumerate() {
        for i in 0..input.width as usize {
            let mut w = 0u64;
            for (lane, a) in args.iter().enumerate() {
                w |= ((a[k] >> i) & 1) << lane;
            }
            wires[at] = w;
            at += 1;
        }
    }
    for g in &c.gates {
        match *g {
            Gate::Xor { a, b, out } => wires[out as usize] = wires[a as usize] ^ wires[b as usize],
            Gate::And { a, b, out } => wires[out as usize] = wires[a as usize] & wires[b as usize],
            Gate::Inv { a, out } => wires[out as usize] = !wires[a as usize],
        }
    }
    (0..lanes)
        .map(|lane| {
            c.outputs[0]
                .wires
                .iter()
                .enumerate()
                .map(|(i, &w)| ((wires[w as usize] >> lane) & 1) << i)
                .sum()
        })
        .collect()
}

/// Checks `c` against `want` on every tuple of `cases`.
fn check(c: &Circuit, cases: &[Vec<u64>], want: impl Fn(&[u64]) -> u64, what: &str) {
    for chunk in cases.chunks(64) {
        let got = eval64(c, chunk);
        for (args, g) in chunk.iter().zip(got) {
            let w = want(args);
            assert_eq!(g, w, "{what}{args:x?}: got {g:#x}, want {w:#x}");
        }
    }
}

/// Corner values of a format: zeros, subnormals, normals at the
/// boundaries, ones and halves, the largest values, infinities, NaNs.
fn corners(fmt: Fmt) -> Vec<u64> {
    let (f, e) = (fmt.frac, fmt.exp);
    let sign = 1u64 << (f + e);
    let emax = (1u64 << e) - 1;
    let bias = fmt.bias() as u64;
    let at = |exp: u64, frac: u64| (exp << f) | frac;
    let top = 1u64 << (f - 1);
    let all = (1u64 << f) - 1;
    let mut v = vec![
        0,
        1,
        2,
        3,
        all,
        top,
        at(1, 0),
        at(1, 1),
        at(2, 0),
        at(bias - 2, all),
        at(bias - 1, 0),
        at(bias - 1, 1),
        at(bias, 0),
        at(bias, 1),
        at(bias, top),
        at(bias, top | 1),
        at(bias + 1, top),
        at(bias + 1, all),
        at(bias + 3, 3 << (f - 2)),
        at(bias + f as u64, 1),
        at(bias + f as u64 - 1, all),
        at(bias + 31, 0),
        at(bias + 31, all),
        at(bias + 63, 0),
        at(bias + 64, 0),
        at(emax - 1, all),
        at(emax - 1, 0),
        at(emax, 0),
        at(emax, top),
        at(emax, top | 5),
        at(emax, 1),
        at(emax, 5),
    ];
    let neg: Vec<u64> = v.iter().map(|x| x | sign).collect();
    v.extend(neg);
    v
}

/// Random patterns: uniform bits, and operands with close exponents
/// (cancellation, rounding ties) and small ones (subnormal results).
fn random_values(fmt: Fmt, rng: &mut StdRng, like: Option<u64>) -> u64 {
    let w = fmt.width();
    let mask = if w == 64 { u64::MAX } else { (1 << w) - 1 };
    let x: u64 = rng.gen::<u64>() & mask;
    let exp_mask = ((1u64 << fmt.exp) - 1) << fmt.frac;
    match (rng.gen_range(0..4), like) {
        (0, Some(y)) => (x & !exp_mask) | (y & exp_mask) ^ ((rng.gen_range(0..3u64)) << fmt.frac),
        (1, Some(y)) => y ^ (x & ((1 << rng.gen_range(1..fmt.frac)) - 1)) ^ (x & (1 << (w - 1))),
        (2, _) => {
            let e = rng.gen_range(0..fmt.exp as u64 + 1) + (fmt.bias() as u64 - fmt.exp as u64 / 2);
            (x & !exp_mask) | ((e % (1 << fmt.exp)) << fmt.frac)
        }
        _ => x,
    }
}

fn pairs(fmt: Fmt, seed: u64) -> Vec<Vec<u64>> {
    let c = corners(fmt);
    let mut v: Vec<Vec<u64>> = c
        .iter()
        .flat_map(|&x| c.iter().map(move |&y| vec![x, y]))
        .collect();
    let mut rng = StdRng::seed_from_u64(seed);
    for _ in 0..RANDOM {
        let x = random_values(fmt, &mut rng, None);
        let y = random_values(fmt, &mut rng, Some(x));
        v.push(vec![x, y]);
    }
    v
}

fn singles(fmt: Fmt, seed: u64) -> Vec<Vec<u64>> {
    let mut v: Vec<Vec<u64>> = corners(fmt).into_iter().map(|x| vec![x]).collect();
    let mut rng = StdRng::seed_from_u64(seed);
    for _ in 0..RANDOM {
        v.push(vec![random_values(fmt, &mut rng, None)]);
    }
    v
}

fn f32op(op: fn(f32, f32) -> f32) -> impl Fn(&[u64]) -> u64 {
    move |a: &[u64]| {
        let x = black_box(f32::from_bits(a[0] as u32));
        let y = black_box(f32::from_bits(a[1] as u32));
        black_box(op)(x, y).to_bits() as u64
    }
}

fn f64op(op: fn(f64, f64) -> f64) -> impl Fn(&[u64]) -> u64 {
    move |a: &[u64]| {
        let x = black_box(f64::from_bits(a[0]));
        let y = black_box(f64::from_bits(a[1]));
        black_box(op)(x, y).to_bits()
    }
}

fn binary(
    name: &str,
    build: fn(&mut Builder, Fmt, &[Bit], &[Bit]) -> Bits,
    on32: fn(f32, f32) -> f32,
    on64: fn(f64, f64) -> f64,
) -> [usize; 2] {
    let mut ands = [0; 2];
    for (i, fmt) in [Fmt::F32, Fmt::F64].into_iter().enumerate() {
        let w = fmt.width();
        let c = circuit(&[w, w], |b, x| build(b, fmt, &x[0], &x[1]));
        ands[i] = c.and_count();
        let cases = pairs(fmt, 7 + i as u64);
        if i == 0 {
            check(&c, &cases, f32op(on32), name);
        } else {
            check(&c, &cases, f64op(on64), name);
        }
    }
    ands
}

#[test]
fn addition_and_subtraction() {
    let add_ands = binary(
        "add",
        |b, f, x, y| add(b, f, x, y, false),
        |x, y| x + y,
        |x, y| x + y,
    );
    let sub_ands = binary(
        "sub",
        |b, f, x, y| add(b, f, x, y, true),
        |x, y| x - y,
        |x, y| x - y,
    );
    println!("add {add_ands:?} sub {sub_ands:?}");
    assert!(add_ands[1] <= 5385, "double add: {} AND gates", add_ands[1]);
}

#[test]
fn multiplication() {
    let ands = binary("mul", mul, |x, y| x * y, |x, y| x * y);
    println!("mul {ands:?}");
    assert!(ands[1] <= 19626, "double mul: {} AND gates", ands[1]);
}

#[test]
fn division() {
    let ands = binary("div", div, |x, y| x / y, |x, y| x / y);
    println!("div {ands:?}");
}

/// Checks a one-operand operation in both formats; returns AND counts.
fn unary(
    name: &str,
    build: impl Fn(&mut Builder, Fmt, &[Bit]) -> Bits,
    on32: impl Fn(f32) -> f32,
    on64: impl Fn(f64) -> f64,
) -> [usize; 2] {
    let mut ands = [0; 2];
    for (i, fmt) in [Fmt::F32, Fmt::F64].into_iter().enumerate() {
        let c = circuit(&[fmt.width()], |b, x| build(b, fmt, &x[0]));
        ands[i] = c.and_count();
        let cases = singles(fmt, 11 + i as u64);
        if i == 0 {
            let want = |a: &[u64]| on32(black_box(f32::from_bits(a[0] as u32))).to_bits() as u64;
            check(&c, &cases, want, name);
        } else {
            let want = |a: &[u64]| on64(black_box(f64::from_bits(a[0]))).to_bits();
            check(&c, &cases, want, name);
        }
    }
    ands
}

#[test]
fn square_root() {
    let ands = unary("sqrt", sqrt, f32::sqrt, f64::sqrt);
    println!("sqrt {ands:?}");
}

/// The host's rounding functions, a NaN quietened as glibc's are (Rust's
/// own return a signalling NaN as it is; checked against gcc and glibc in
/// the compiler's differential tests).
fn glibc<F: Copy>(x: F, host: fn(F) -> F, is_nan: fn(F) -> bool, quiet: fn(F) -> F) -> F {
    if is_nan(x) {
        quiet(x)
    } else {
        host(x)
    }
}

#[test]
fn rounding_to_integers() {
    for (how, h32, h64) in [
        (
            Rounding::Floor,
            f32::floor as fn(f32) -> f32,
            f64::floor as fn(f64) -> f64,
        ),
        (Rounding::Ceil, f32::ceil, f64::ceil),
        (Rounding::Trunc, f32::trunc, f64::trunc),
        (Rounding::Round, f32::round, f64::round),
    ] {
        let q32 = |x: f32| f32::from_bits(x.to_bits() | 1 << 22);
        let q64 = |x: f64| f64::from_bits(x.to_bits() | 1 << 51);
        let c32 = |x: f32| glibc(x, h32, f32::is_nan, q32);
        let c64 = |x: f64| glibc(x, h64, f64::is_nan, q64);
        let ands = unary(
            &format!("{how:?}"),
            |b, f, x| integral(b, f, x, how),
            c32,
            c64,
        );
        println!("{how:?} {ands:?}");
    }
}

/// The host's comparisons of two values of a format, as bits.
fn host_compare(fmt: Fmt, a: &[u64], op: fn(f64, f64) -> bool) -> u64 {
    // Every binary32 value is exactly a binary64 value, so comparing the
    // widened values compares the floats.
    let v = |x: u64| {
        if fmt == Fmt::F32 {
            f32::from_bits(x as u32) as f64
        } else {
            f64::from_bits(x)
        }
    };
    black_box(op)(black_box(v(a[0])), black_box(v(a[1]))) as u64
}

#[test]
fn comparisons() {
    type Cmp = fn(&mut Builder, Fmt, &[Bit], &[Bit]) -> Bit;
    type Host = fn(f64, f64) -> bool;
    let ops: [(&str, Cmp, Host); 4] = [
        ("lt", less, |x, y| x < y),
        ("le", less_equal, |x, y| x <= y),
        ("eq", equal, |x, y| x == y),
        ("unordered", unordered, |x, y| x.is_nan() || y.is_nan()),
    ];
    for (name, build, host) in ops {
        for (i, fmt) in [Fmt::F32, Fmt::F64].into_iter().enumerate() {
            let w = fmt.width();
            let c = circuit(&[w, w], |b, x| vec![build(b, fmt, &x[0], &x[1])]);
            println!("{name} {:?} {}", fmt, c.and_count());
            check(
                &c,
                &pairs(fmt, 3 + i as u64),
                |a| host_compare(fmt, a, host),
                name,
            );
        }
    }
}

#[test]
fn minimum_and_maximum() {
    for greater in [false, true] {
        for (i, fmt) in [Fmt::F32, Fmt::F64].into_iter().enumerate() {
            let w = fmt.width();
            let c = circuit(&[w, w], |b, x| {
                if greater {
                    max(b, fmt, &x[0], &x[1])
                } else {
                    min(b, fmt, &x[0], &x[1])
                }
            });
            let quiet = 1u64 << (fmt.frac - 1);
            let is_nan = |v: u64| {
                let m = v & ((1u64 << (fmt.width() - 1)) - 1);
                m > ((1u64 << fmt.exp) - 1) << fmt.frac
            };
            let want = |a: &[u64]| {
                let (x, y) = (a[0], a[1]);
                let signalling = |v: u64| is_nan(v) && v & quiet == 0;
                match (is_nan(x), is_nan(y)) {
                    (true, true) => x | quiet,
                    (true, false) if signalling(x) => x | quiet,
                    (true, false) => y,
                    (false, true) if signalling(y) => y | quiet,
                    (false, true) => x,
                    _ => {
                        let le = host_compare(fmt, &[x, y], |p, q| p <= q) == 1;
                        let ge = host_compare(fmt, &[y, x], |p, q| p <= q) == 1;
                        if (greater && ge) || (!greater && le) {
                            x
                        } else {
                            y
                        }
                    }
                }
            };
            println!("max {greater} {fmt:?}: {}", c.and_count());
            check(&c, &pairs(fmt, 5 + i as u64), want, "min/max");
        }
    }
}

#[test]
fn format_conversions() {
    let c = circuit(&[32], |b, x| resize(b, Fmt::F32, Fmt::F64, &x[0]));
    println!("f32->f64 {}", c.and_count());
    let want = |a: &[u64]| (black_box(f32::from_bits(a[0] as u32)) as f64).to_bits();
    check(&c, &singles(Fmt::F32, 1), want, "f32->f64");
    let c = circuit(&[64], |b, x| resize(b, Fmt::F64, Fmt::F32, &x[0]));
    println!("f64->f32 {}", c.and_count());
    let want = |a: &[u64]| (black_box(f64::from_bits(a[0])) as f32).to_bits() as u64;
    let mut cases = singles(Fmt::F64, 2);
    // Values near binary32's range and its subnormals.
    let mut rng = StdRng::seed_from_u64(9);
    for _ in 0..RANDOM {
        let e = rng.gen_range(1023 - 160..1023 + 130u64);
        cases.push(vec![(rng.gen::<u64>() & !(0x7ff << 52)) | (e << 52)]);
    }
    check(&c, &cases, want, "f64->f32");
}

/// Integers of every width, as bit patterns, with their boundaries.
fn integers(bits: usize, seed: u64) -> Vec<Vec<u64>> {
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    let mut v: Vec<u64> = vec![0, 1, 2, 3, mask, mask >> 1, (mask >> 1) + 1, mask - 1];
    for k in 0..bits {
        v.push(1 << k);
        v.push((1u64 << k).wrapping_sub(1) & mask);
        v.push((1u64 << k | 1) & mask);
    }
    let mut rng = StdRng::seed_from_u64(seed);
    for _ in 0..RANDOM / 8 {
        let k = rng.gen_range(1..=bits);
        v.push(rng.gen::<u64>() & (mask >> (bits - k)));
        v.push(rng.gen::<u64>() & mask);
    }
    v.into_iter().map(|x| vec![x]).collect()
}

#[test]
fn from_integers() {
    for bits in [8usize, 16, 32, 64] {
        for signed in [false, true] {
            let sx = move |v: u64| ((v << (64 - bits)) as i64) >> (64 - bits);
            for fmt in [Fmt::F32, Fmt::F64] {
                let c = circuit(&[bits], |b, x| from_int(b, fmt, &x[0], signed));
                let want = move |a: &[u64]| match (fmt == Fmt::F32, signed) {
                    (true, true) => (black_box(sx(a[0])) as f32).to_bits() as u64,
                    (true, false) => (black_box(a[0]) as f32).to_bits() as u64,
                    (false, true) => (black_box(sx(a[0])) as f64).to_bits(),
                    (false, false) => (black_box(a[0]) as f64).to_bits(),
                };
                println!("i{bits} signed {signed} -> {fmt:?}: {}", c.and_count());
                check(&c, &integers(bits, bits as u64), want, "from int");
            }
        }
    }
}

/// x86-64's `cvttsd2si` into `n` bits: truncation, `1 << (n-1)` when out
/// of range or NaN.
fn cvtt(x: f64, n: u32) -> u64 {
    let t = x.trunc();
    let lim = 2f64.powi(n as i32 - 1);
    if x.is_nan() || t >= lim || t < -lim {
        1 << (n - 1)
    } else {
        t as i64 as u64
    }
}

/// What gcc's code gives for a conversion to a C integer type.
fn host_to_int(x: f64, bits: usize, signed: bool) -> u64 {
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    let two63 = 2f64.powi(63);
    let v = match (bits, signed) {
        (64, false) if x >= two63 => cvtt(x - two63, 64) ^ (1 << 63),
        (64, _) | (32, false) => cvtt(x, 64),
        _ => cvtt(x, 32),
    };
    v & mask
}

#[test]
fn to_integers() {
    for bits in [8usize, 16, 32, 64] {
        for signed in [false, true] {
            for (i, fmt) in [Fmt::F32, Fmt::F64].into_iter().enumerate() {
                let c = circuit(&[fmt.width()], |b, x| to_int(b, fmt, &x[0], bits, signed));
                let value = move |v: u64| {
                    if fmt == Fmt::F32 {
                        f32::from_bits(v as u32) as f64
                    } else {
                        f64::from_bits(v)
                    }
                };
                let want = |a: &[u64]| host_to_int(value(a[0]), bits, signed);
                let mut cases = singles(fmt, 20 + i as u64);
                let mut rng = StdRng::seed_from_u64(bits as u64);
                for _ in 0..RANDOM / 4 {
                    // Magnitudes around the integer types' ranges.
                    let e = fmt.bias() as u64 + rng.gen_range(0..70);
                    let r = rng.gen::<u64>() & ((1u64 << (fmt.width() - 1)) - 1);
                    let x = (r & ((1 << fmt.frac) - 1)) | (e << fmt.frac);
                    cases.push(vec![x | ((rng.gen::<u64>() & 1) << (fmt.width() - 1))]);
                }
                println!("{fmt:?} -> i{bits} signed {signed}: {}", c.and_count());
                check(&c, &cases, want, "to int");
            }
        }
    }
}
