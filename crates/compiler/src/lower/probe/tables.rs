//! Public values that differ between iterations, read from a table (see
//! `Setup::general`), where a template would compute on them as on
//! secrets. Each iteration reads its own public value there, so a probe
//! reads it as inputs, and the template computes with an input where each
//! iteration, lowered plainly, computes with a constant:
//! - a subscript read from a table of public positions (`a[p[i]]`, an edge
//!   list's `d[u[e]]`, a sorting network's comparators `lo[c]`, `hi[c]`)
//!   becomes a secret one, a multiplexer over the whole array in every
//!   iteration where each iteration reads one element (64 times the
//!   unrolled AND gates at 64 values, 1,060 times at 1,024);
//! - a factor, divisor, mask or shift amount read from a table of public
//!   constants (`x * w[i]`, `x & m[i]`, `x >> s[i]`: public weights,
//!   integer or floating) becomes a general multiplier, divider, AND or
//!   barrel shifter, where a constant costs a few additions or nothing
//!   (1.4 to 14 times the unrolled AND gates);
//! - a condition read from a table of public flags (`if (m[i])`) makes the
//!   template compute both branches and select, where each iteration runs
//!   one.
//!
//! A probe that meets either fails, and the loop is lowered plainly.

use super::*;
use crate::value::Word;

/// Why a probe fails on such a subscript.
const PUBLIC_SUBSCRIPT: &str =
    "a subscript is a public value that differs between iterations (a table of positions)";

/// Why a probe fails on such a condition.
const PUBLIC_CONDITION: &str =
    "a condition is a public value that differs between iterations (a table of flags)";

/// Why a probe fails on such an operand.
const PUBLIC_OPERAND: &str = "a factor, divisor, mask or shift amount is a public value that \
     differs between iterations (a table of constants)";

impl Lower<'_> {
    /// Before a subscript whose value `idx` is not a constant selects:
    /// fails the open probes if it is computed from public values read as
    /// inputs alone.
    pub(in crate::lower) fn check_subscript(&mut self, idx: &[Bit]) {
        // (A constant out of bounds on a secret path reads no table.)
        let constant = idx.iter().all(|b| matches!(b, Bit::Const(_)));
        if !constant && self.public_reads(idx).is_some() {
            self.fail_probes(PUBLIC_SUBSCRIPT);
        }
    }

    /// Before a multiplication, division, `&`, `|` or shift by an amount
    /// that is not a constant, with `operands` (the factors or masks, the
    /// divisor or the amount): see [`Lower::check_operand`].
    pub(in crate::lower) fn check_operands(&mut self, operands: [&Word; 2]) {
        for w in operands {
            if let Word::Bits(bits, _) = w {
                self.check_operand(bits);
            }
        }
    }

    /// Before an operation with an operand's `bits`: if they are computed
    /// from public values read as inputs alone, the open probes fail
    /// unless their iteration writes where it read those (see
    /// `ProbeState::suspects`: `r = 1` before `r = r * r`).
    pub(in crate::lower) fn check_operand(&mut self, bits: &[Bit]) {
        let constant = bits.iter().all(|b| matches!(b, Bit::Const(_)));
        if !constant {
            self.suspect(bits, PUBLIC_OPERAND);
        }
    }

    /// Before a branch on `c` (an `if`, `?:`), which is not a constant: as
    /// [`Lower::check_operand`].
    pub(in crate::lower) fn check_condition(&mut self, c: Bit) {
        self.suspect(&[c], PUBLIC_CONDITION);
    }

    /// Notes `why` in the open probes that read as inputs the public
    /// values `bits` are computed from, if they are computed from such
    /// values alone: with where each probe read them.
    fn suspect(&mut self, bits: &[Bit], why: &'static str) {
        let Some(read) = self.public_reads(bits).filter(|r| !r.is_empty()) else {
            return;
        };
        for st in &mut self.probes {
            let own: Vec<(usize, usize)> = (read.iter())
                .filter_map(|w| st.public_inputs.get(w).copied())
                .collect();
            if !own.is_empty() {
                st.suspects.push((own, why));
            }
        }
    }

    /// The public values read as inputs by the open probes that `bits`
    /// are computed from, if they are computed from such values alone.
    fn public_reads(&self, bits: &[Bit]) -> Option<Vec<Wire>> {
        if self.probes.iter().all(|st| st.public_inputs.is_empty()) {
            return None;
        }
        let leaves: HashSet<Wire> = (self.probes.iter())
            .flat_map(|st| st.public_inputs.keys().copied())
            .collect();
        self.b.computed_only_from(bits, &leaves)
    }
}
