//! Sizes in bytes as people write them (`512M`, `4G`, `1.5GiB`) and as
//! error messages show them, for the memory limits of compiling and running
//! (`--max-memory`).

use std::fmt;

/// Why a size did not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid size `{text}`: {why} (write e.g. 512M, 4G, 1.5GiB or a number of bytes)")]
pub struct SizeError {
    /// The text given.
    pub text: String,
    /// What is wrong with it.
    pub why: &'static str,
}

/// Parses a size: a number (decimals allowed) and an optional unit `K`,
/// `M`, `G`, `T` (each also as `KB`/`KiB`, any case; all are powers of
/// 1024) or `B`. The result is at least one byte and fits in a `u64`.
pub fn parse_size(text: &str) -> Result<u64, SizeError> {
    let fail = |why| SizeError {
        text: text.to_string(),
        why,
    };
    let t = text.trim();
    let end = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(end);
    if number.is_empty() || number.starts_with('.') || number.ends_with('.') {
        return Err(fail("it does not start with a number"));
    }
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(fail("unknown unit")),
    };
    let (whole, frac) = number.split_once('.').unwrap_or((number, ""));
    if frac.contains('.') {
        return Err(fail("more than one decimal point"));
    }
    if frac.len() > 9 {
        return Err(fail("more than 9 decimals"));
    }
    let whole: u128 = whole.parse().map_err(|_| fail("the number is too large"))?;
    let scale = 10u128.pow(frac.len() as u32);
    let frac: u128 = if frac.is_empty() {
        0
    } else {
        frac.parse().map_err(|_| fail("bad decimals"))?
    };
    let bytes = whole
        .checked_mul(scale)
        .and_then(|w| w.checked_add(frac))
        .and_then(|n| n.checked_mul(1u128 << shift))
        .map(|n| n / scale)
        .ok_or_else(|| fail("the number is too large"))?;
    let bytes = u64::try_from(bytes).map_err(|_| fail("the number is too large"))?;
    if bytes == 0 {
        return Err(fail("it must be at least one byte"));
    }
    Ok(bytes)
}

/// A size for messages: `1.5 GiB`, `512 MiB`, `900 bytes`.
pub fn show(bytes: u64) -> String {
    Shown(bytes).to_string()
}

struct Shown(u64);

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
        if self.0 < 1024 {
            return write!(f, "{} bytes", self.0);
        }
        let mut value = self.0 as f64 / 1024.0;
        let mut unit = 0;
        while value >= 1024.0 && unit + 1 < UNITS.len() {
            value /= 1024.0;
            unit += 1;
        }
        if value.fract() == 0.0 {
            write!(f, "{value} {}", UNITS[unit])
        } else {
            write!(f, "{value:.1} {}", UNITS[unit])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_units() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("4g"), Ok(4 << 30));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size("1.5 GB"), Ok(3 << 29));
        assert_eq!(parse_size("100"), Ok(100));
        assert_eq!(parse_size("100B"), Ok(100));
        assert_eq!(parse_size("64KiB"), Ok(64 << 10));
        assert_eq!(parse_size("2T"), Ok(2 << 40));
        assert_eq!(parse_size("0.5K"), Ok(512));
    }

    #[test]
    fn bad_sizes_are_refused() {
        for bad in [
            "",
            "M",
            "-1G",
            "1.2.3G",
            "1X",
            "0",
            "0.0001",
            ".5G",
            "5.G",
            "1e9",
            "99999999999T",
            "18446744073709551616",
            "1.0000000001G",
        ] {
            assert!(parse_size(bad).is_err(), "{bad:?} was accepted");
        }
        let e = parse_size("4Q").unwrap_err().to_string();
        assert!(e.contains("`4Q`") && e.contains("unknown unit"), "{e}");
    }

    #[test]
    fn sizes_show_in_binary_units() {
        assert_eq!(show(900), "900 bytes");
        assert_eq!(show(512 << 20), "512 MiB");
        assert_eq!(show(3 << 29), "1.5 GiB");
        assert_eq!(show(4 << 30), "4 GiB");
    }
}
