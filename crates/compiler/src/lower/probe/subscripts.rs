//! Subscripts read from a table of public positions (`a[p[i]]`, an edge
//! list's `d[u[e]]`, a sorting network's comparators `lo[c]`, `hi[c]`).
//! Each iteration reads its own public value there, so a probe reads it as
//! inputs (see `Setup::general`), and the subscript in the template is a
//! secret one: a multiplexer over the whole array in every iteration,
//! where each iteration, lowered plainly, reads one element (64 times the
//! unrolled AND gates at 64 values, 1,060 times at 1,024). A probe that
//! meets such a subscript fails, and the loop is lowered plainly.

use super::*;

/// Why a probe fails on such a subscript.
const PUBLIC_SUBSCRIPT: &str =
    "a subscript is a public value that differs between iterations (a table of positions)";

impl Lower<'_> {
    /// Before a subscript whose value `idx` is not a constant selects:
    /// fails the open probes if it is computed from public values read as
    /// inputs alone.
    pub(in crate::lower) fn check_subscript(&mut self, idx: &[Bit]) {
        // (A constant out of bounds on a secret path reads no table.)
        let constant = idx.iter().all(|b| matches!(b, Bit::Const(_)));
        if constant || self.probes.iter().all(|st| st.public_inputs.is_empty()) {
            return;
        }
        let public: HashSet<Wire> = (self.probes.iter())
            .flat_map(|st| st.public_inputs.iter().copied())
            .collect();
        if self.b.computed_only_from(idx, &public) {
            self.fail_probes(PUBLIC_SUBSCRIPT);
        }
    }
}
