//! Floating-point values as text: C literals (decimal and hexadecimal,
//! correctly rounded), input values (also `inf`, `-inf`, `nan`) and the
//! shortest decimal that reads back to the same value for output.

/// A floating-point value of `bits` (32 or 64) read from `text`: a C
/// floating constant without its suffix (`1.5`, `1e-3`, `0x1.8p3`), an
/// optional sign, or `inf`/`infinity`/`nan` (any case). Returns the bit
/// pattern; `nan` is the positive quiet NaN (as C's `NAN`).
pub fn parse(text: &str, bits: u32) -> Option<u64> {
    let t = text.trim();
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let lower = body.to_ascii_lowercase();
    let sign = if neg { 1u64 << (bits - 1) } else { 0 };
    let magnitude = if lower == "nan" {
        if bits == 32 {
            0x7fc0_0000
        } else {
            0x7ff8 << 48
        }
    } else if let Some(hex) = lower.strip_prefix("0x") {
        hex_float(hex, bits)?
    } else {
        let word = lower == "inf" || lower == "infinity";
        let decimal = lower.starts_with(|c: char| c.is_ascii_digit() || c == '.')
            && lower
                .bytes()
                .all(|c| c.is_ascii_digit() || b".e+-".contains(&c));
        if !word && !decimal {
            return None;
        }
        if bits == 32 {
            lower.parse::<f32>().ok()?.to_bits() as u64
        } else {
            lower.parse::<f64>().ok()?.to_bits()
        }
    };
    Some(magnitude | sign)
}

/// A hexadecimal floating constant's digits and binary exponent (after
/// `0x`), rounded to nearest even.
fn hex_float(text: &str, bits: u32) -> Option<u64> {
    let (digits, exp) = match text.split_once('p') {
        Some((d, e)) => (d, e.parse::<i64>().ok()?),
        None => (text, 0),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut m: u128 = 0;
    let mut scale = exp;
    let mut sticky = false;
    for (k, c) in int.chars().chain(frac.chars()).enumerate() {
        let d = c.to_digit(16)? as u128;
        if k >= int.len() {
            scale -= 4;
        }
        if m >> 120 != 0 {
            // Enough digits: the rest only say whether something is below.
            sticky |= d != 0;
            scale += 4;
        } else {
            m = m << 4 | d;
        }
    }
    Some(round(m, sticky, scale, bits))
}

/// `m · 2^scale` (plus a little more if `sticky`) rounded to nearest even
/// in the format of `bits`.
fn round(m: u128, sticky: bool, scale: i64, bits: u32) -> u64 {
    let (exp_bits, frac) = if bits == 32 { (8, 23) } else { (11, 52) };
    if m == 0 {
        return 0;
    }
    let bias = (1i64 << (exp_bits - 1)) - 1;
    let n = 128 - m.leading_zeros() as i64;
    // The biased exponent of the top bit, and how far to shift right to
    // keep frac + 1 bits (fewer for a subnormal).
    let top = n - 1 + scale + bias;
    let inf = ((1u64 << exp_bits) - 1) << frac;
    if top >= (1 << exp_bits) - 1 {
        return inf;
    }
    let shift = n - (frac + 1) + (1 - top).max(0);
    let base = if top >= 1 { top - 1 } else { 0 };
    let kept = if shift <= 0 {
        (m << (-shift).min(127)) as u64
    } else if shift >= 128 {
        0
    } else {
        let q = m >> shift;
        let rem = m & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        let up = rem > half || (rem == half && (sticky || q & 1 == 1));
        (q + up as u128) as u64
    };
    let packed = ((base as u64) << frac) + kept;
    packed.min(inf)
}

/// The shortest decimal that reads back to the value of the `bits`-wide
/// pattern `v`: `inf`, `-inf`, `nan` or `-nan` for the values without one.
pub fn format(v: u64, bits: u32) -> String {
    let (nan, text) = if bits == 32 {
        let x = f32::from_bits(v as u32);
        (x.is_nan(), format!("{x:?}"))
    } else {
        let x = f64::from_bits(v);
        (x.is_nan(), format!("{x:?}"))
    };
    match (nan, (v >> (bits - 1)) & 1 == 1) {
        // (As C's printf: SSE's default NaN, `0.0 / 0.0`, is negative.)
        (true, true) => "-nan".into(),
        (true, false) => "nan".into(),
        _ => text,
    }
}
