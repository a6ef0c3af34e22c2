//! Gates and wires.

/// A wire index: dense, `0..num_wires`.
pub type Wire = u32;

/// A Boolean gate. XOR and INV are free in the garbled circuit; AND costs a
/// garbled table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Gate {
    /// `out = a ^ b`
    Xor {
        /// First input.
        a: Wire,
        /// Second input.
        b: Wire,
        /// Output.
        out: Wire,
    },
    /// `out = a & b`
    And {
        /// First input.
        a: Wire,
        /// Second input.
        b: Wire,
        /// Output.
        out: Wire,
    },
    /// `out = !a`
    Inv {
        /// Input.
        a: Wire,
        /// Output.
        out: Wire,
    },
}

impl Gate {
    /// The wire this gate writes.
    #[inline]
    pub fn out(&self) -> Wire {
        match *self {
            Gate::Xor { out, .. } | Gate::And { out, .. } | Gate::Inv { out, .. } => out,
        }
    }

    /// The wires this gate reads (one or two).
    #[inline]
    pub fn inputs(&self) -> impl Iterator<Item = Wire> + Clone {
        let (a, b) = match *self {
            Gate::Xor { a, b, .. } | Gate::And { a, b, .. } => (a, Some(b)),
            Gate::Inv { a, .. } => (a, None),
        };
        std::iter::once(a).chain(b)
    }

    /// Whether this is a non-free (AND) gate.
    #[inline]
    pub fn is_and(&self) -> bool {
        matches!(self, Gate::And { .. })
    }

    /// The same kind of gate reading `input(a)` (and `input(b)`) and writing `out`.
    #[inline]
    pub fn rewire(&self, input: impl Fn(Wire) -> Wire, out: Wire) -> Gate {
        match *self {
            Gate::Xor { a, b, .. } => Gate::Xor {
                a: input(a),
                b: input(b),
                out,
            },
            Gate::And { a, b, .. } => Gate::And {
                a: input(a),
                b: input(b),
                out,
            },
            Gate::Inv { a, .. } => Gate::Inv { a: input(a), out },
        }
    }
}
