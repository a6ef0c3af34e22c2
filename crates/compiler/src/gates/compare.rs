//! Comparisons of words: `!= 0`, `==` and `<`.

use twofold_circuit::{Bit, Builder};

use super::{eff_width, signed_width, uwidth, Bits};

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
