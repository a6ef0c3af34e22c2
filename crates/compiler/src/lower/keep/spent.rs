//! What probing a loop has cost since a run of its iterations last
//! repeated, and when that says to stop probing and unroll the rest.

use super::Probe;

/// The most probes a loop makes without a run that repeated: where every
/// iteration is probed (probes that match their neighbours' but never
/// once apply to another iteration), probing would double the loop's
/// compile, and a long loop's ran out of budget. The rest of the loop is
/// unrolled.
const MAX_FRUITLESS: u32 = 32;

/// Gates of probes that kept nothing past which a loop that probed more
/// iterations than it lowered stops probing (see [`COSTLY`]).
const FRUITLESS_GATES: usize = 1 << 18;

/// Why a loop is unrolled once its probes cost more than its iterations.
pub(super) const COSTLY: &str =
    "its probes kept nothing and cost more than lowering its iterations";

/// Why a loop is unrolled after [`MAX_FRUITLESS`] probes.
pub(super) const FRUITLESS: &str = "32 probes in a row kept no run of iterations";

/// Probes made since a run of iterations last repeated.
#[derive(Default)]
pub(super) struct Spent {
    /// Probes made.
    probes: u32,
    /// Their gates.
    gates: usize,
}

impl Spent {
    /// Counts `probe`, just made.
    pub(super) fn probed(&mut self, probe: &Probe) {
        self.probes += 1;
        self.gates += probe.frame.gates.len();
    }

    /// Why to stop probing at iteration `m`, if it is time.
    pub(super) fn why_stop(&self, m: u64) -> Option<&'static str> {
        if self.probes >= MAX_FRUITLESS {
            Some(FRUITLESS)
        } else if self.gates >= FRUITLESS_GATES && u64::from(self.probes) > m {
            Some(COSTLY)
        } else {
            None
        }
    }
}
