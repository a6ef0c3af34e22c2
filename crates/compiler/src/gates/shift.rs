//! Shifts by secret amounts (barrel shifters of multiplexers).

use twofold_circuit::{Bit, Builder};

use super::{mux, Bits};

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
