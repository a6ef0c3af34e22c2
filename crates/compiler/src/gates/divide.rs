//! Division and remainder, unsigned and signed.

use twofold_circuit::{Bit, Builder};

use super::{
    add_or_sub, const_value, extend, full_adder, konst, mux, nonzero, signed_width, uwidth, Bits,
    Sum,
};

/// The widest register a [`Sum`] adds (its constant is an `i128`);
/// dividing by a divisor of all 128 bits needs one bit more.
const WIDEST_SUM: usize = 128;

/// `x ± y` (`-` where `sub`) modulo `2^w`, `w` the width of `x`: through
/// a [`Sum`] up to [`WIDEST_SUM`] bits, else a ripple of full adders (one
/// AND gate a bit either way).
fn register_add_or_sub(b: &mut Builder, x: &[Bit], y: &[Bit], sub: Bit) -> Bits {
    if x.len() <= WIDEST_SUM {
        return add_or_sub(b, x, y, sub);
    }
    let mut carry = sub;
    let mut out = Vec::with_capacity(x.len());
    for (i, (&p, &q)) in x.iter().zip(y).enumerate() {
        let q = b.xor(q, sub);
        if i + 1 == x.len() {
            let t = b.xor(p, q);
            out.push(b.xor(t, carry));
        } else {
            let (s, c) = full_adder(b, p, q, carry);
            out.push(s);
            carry = c;
        }
    }
    out
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
        // The sum wraps modulo 2^m: the plain adder of width m.
        r = register_add_or_sub(b, &shifted, &dm, sub);
        q[i] = b.not(r[m - 1]);
    }
    let mut rem = Vec::new();
    if want_rem {
        let sign = r[m - 1];
        let fix: Bits = dm.iter().map(|&p| b.and(p, sign)).collect();
        let full = if m <= WIDEST_SUM {
            let mut s = Sum::new(m);
            s.add(b, &r);
            s.add(b, &fix);
            s.finish_wrapping(b)
        } else {
            register_add_or_sub(b, &r, &fix, Bit::Const(false))
        };
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
