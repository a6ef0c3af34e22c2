//! The network a cost is weighed for: `lan`, `wan` or `BANDWIDTH,RTT`
//! (e.g. `100mbit,20ms`, `1gbit,0.2ms`, `50mbit,80ms`).

use std::fmt;
use std::str::FromStr;

/// A link: its bandwidth and round-trip time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Network {
    /// Bits per second, each way.
    pub bits_per_second: f64,
    /// Round-trip time, in seconds.
    pub rtt: f64,
}

impl Network {
    /// A local network: 1 Gbit/s, 0.2 ms round trip.
    pub const LAN: Network = Network {
        bits_per_second: 1e9,
        rtt: 0.2e-3,
    };
    /// A wide-area link: 100 Mbit/s, 20 ms round trip (what
    /// `scripts/netns.sh` emulates).
    pub const WAN: Network = Network {
        bits_per_second: 100e6,
        rtt: 20e-3,
    };

    /// Seconds to move `bytes` and wait for `flights` one-way messages.
    pub fn seconds(&self, bytes: u64, flights: u64) -> f64 {
        bytes as f64 * 8.0 / self.bits_per_second + flights as f64 * self.rtt / 2.0
    }
}

impl Default for Network {
    /// The LAN: what a run on one site sees.
    fn default() -> Self {
        Network::LAN
    }
}

/// Why a network does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("network {given:?}: {why} (expected lan, wan or BANDWIDTH,RTT such as 100mbit,20ms)")]
pub struct NetworkError {
    given: String,
    why: String,
}

/// A number and its unit: `100mbit` → (100, "mbit").
fn split_unit(s: &str) -> Option<(f64, String)> {
    let s = s.trim().to_ascii_lowercase();
    let at = s.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let number: f64 = s[..at].parse().ok()?;
    (number.is_finite() && number > 0.0).then(|| (number, s[at..].trim().to_string()))
}

impl FromStr for Network {
    type Err = NetworkError;
    fn from_str(s: &str) -> Result<Network, NetworkError> {
        let fail = |why: &str| NetworkError {
            given: s.to_string(),
            why: why.to_string(),
        };
        match s.trim().to_ascii_lowercase().as_str() {
            "lan" => return Ok(Network::LAN),
            "wan" => return Ok(Network::WAN),
            _ => {}
        }
        let (bandwidth, rtt) = s
            .split_once(',')
            .ok_or_else(|| fail("no comma between bandwidth and round-trip time"))?;
        let (b, unit) = split_unit(bandwidth)
            .ok_or_else(|| fail("the bandwidth is not a positive number with a unit"))?;
        let scale = match unit.as_str() {
            "bit" | "bps" => 1.0,
            "kbit" | "kbps" => 1e3,
            "mbit" | "mbps" => 1e6,
            "gbit" | "gbps" => 1e9,
            _ => {
                return Err(fail(
                    "bandwidth units are bit, kbit, mbit or gbit (per second)",
                ))
            }
        };
        let (t, unit) = split_unit(rtt)
            .ok_or_else(|| fail("the round-trip time is not a positive number with a unit"))?;
        let seconds = match unit.as_str() {
            "us" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            _ => return Err(fail("round-trip units are us, ms or s")),
        };
        Ok(Network {
            bits_per_second: b * scale,
            rtt: t * seconds,
        })
    }
}

impl fmt::Display for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} Mbit/s, {} ms round trip",
            self.bits_per_second / 1e6,
            self.rtt * 1e3
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn networks_parse_by_name_or_figures() {
        assert_eq!("lan".parse::<Network>().unwrap(), Network::LAN);
        assert_eq!(" WAN ".parse::<Network>().unwrap(), Network::WAN);
        let n: Network = "100mbit,20ms".parse().unwrap();
        assert_eq!(n, Network::WAN);
        let n: Network = "1.5Gbit, 0.5ms".parse().unwrap();
        assert_eq!((n.bits_per_second, n.rtt), (1.5e9, 0.5e-3));
        for (bad, why) in [
            ("fast", "no comma"),
            ("100,20ms", "bandwidth is not"),
            ("100mb,20ms", "bandwidth units"),
            ("100mbit,20", "round-trip time is not"),
            ("100mbit,20min", "round-trip units"),
            ("0mbit,20ms", "bandwidth is not"),
        ] {
            let err = bad.parse::<Network>().unwrap_err().to_string();
            assert!(err.contains(why) && err.contains(bad), "{bad}: {err}");
        }
        // 1 MB and 10 one-way messages at 100 Mbit/s, 20 ms.
        let t = Network::WAN.seconds(1_000_000, 10);
        assert!((t - (0.08 + 0.1)).abs() < 1e-9, "{t}");
    }
}
