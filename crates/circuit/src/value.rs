//! Integer values of any width, as the command line gives and prints them for
//! Bristol circuits: bit `k` of the integer is wire `k` of the value.

use crate::CircuitError;

/// Parses a non-negative integer (`0x…` hex, `0b…` binary or decimal, `_`
/// allowed as a separator) into exactly `width` bits, least significant first.
/// A value that does not fit is an error; a negative decimal is taken in
/// two's complement.
pub fn parse_int(text: &str, width: u32) -> Result<Vec<bool>, CircuitError> {
    let bad = |why: &str| CircuitError::Inputs(format!("`{text}`: {why}"));
    let trimmed: String = text.trim().chars().filter(|&c| c != '_').collect();
    let (negative, digits) = match trimmed.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, trimmed.as_str()),
    };
    let (radix, digits) = if let Some(h) = digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
        (16, h)
    } else if let Some(b) = digits.strip_prefix("0b").or(digits.strip_prefix("0B")) {
        (2, b)
    } else {
        (10, digits)
    };
    if digits.is_empty() {
        return Err(bad("not a number"));
    }
    // Little-endian 32-bit limbs, grown as digits arrive.
    let mut limbs: Vec<u32> = vec![0];
    for c in digits.chars() {
        let d = c
            .to_digit(radix)
            .ok_or_else(|| bad(&format!("`{c}` is not a base-{radix} digit")))?;
        let mut carry = d as u64;
        for limb in limbs.iter_mut() {
            let v = *limb as u64 * radix as u64 + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            limbs.push(carry as u32);
        }
        if limbs.len() as u64 * 32 > width as u64 + 64 {
            return Err(bad(&format!("does not fit in {width} bits")));
        }
    }
    let bit = |k: usize| limbs.get(k / 32).is_some_and(|l| (l >> (k % 32)) & 1 == 1);
    let total_bits = limbs.len() * 32;
    if (width as usize..total_bits).any(bit) {
        return Err(bad(&format!("does not fit in {width} bits")));
    }
    let mut bits: Vec<bool> = (0..width as usize).map(bit).collect();
    if negative {
        // Two's complement: invert and add one.
        let mut carry = true;
        for b in bits.iter_mut() {
            let v = !*b;
            *b = v ^ carry;
            carry &= v;
        }
        let is_zero = bits.iter().all(|&b| !b);
        if !is_zero && !bits.last().copied().unwrap_or(false) {
            return Err(bad(&format!("does not fit in {width} bits")));
        }
    }
    Ok(bits)
}

/// Formats bits (least significant first) as a `0x…` hex integer.
pub fn to_hex(bits: &[bool]) -> String {
    let digits: Vec<char> = bits
        .chunks(4)
        .map(|nibble| {
            let v = nibble
                .iter()
                .enumerate()
                .fold(0u32, |acc, (i, &b)| acc | (b as u32) << i);
            std::char::from_digit(v, 16).expect("a nibble is a hex digit")
        })
        .collect();
    let text: String = digits.iter().rev().skip_while(|&&c| c == '0').collect();
    if text.is_empty() {
        "0x0".to_string()
    } else {
        format!("0x{text}")
    }
}
