//! Running scheme-generic code on the scheme chosen at run time: the one
//! place that names every scheme, so adding a scheme is adding an arm here.

use crate::halfgates::HalfGates;
use crate::scheme::{GarblingScheme, Scheme};
use crate::threehalves::ThreeHalves;

/// Code generic over the scheme, run on a scheme chosen at run time with
/// [`Scheme::dispatch`].
pub trait SchemeJob {
    /// What the job returns.
    type Output;
    /// Runs the job under scheme `S`.
    fn run<S: GarblingScheme>(self) -> Self::Output;
}

impl Scheme {
    /// Bytes of table one call garbling `and_gates` AND gates appends
    /// ([`GarblingScheme::table_bytes`] of this scheme).
    pub fn table_bytes(self, and_gates: usize) -> usize {
        /// [`Scheme::table_bytes`] as a job.
        struct TableBytes(usize);
        impl SchemeJob for TableBytes {
            type Output = usize;
            fn run<S: GarblingScheme>(self) -> usize {
                S::table_bytes(self.0)
            }
        }
        self.dispatch(TableBytes(and_gates))
    }

    /// Runs `job` with this scheme as its type parameter.
    pub fn dispatch<J: SchemeJob>(self, job: J) -> J::Output {
        match self {
            Scheme::HalfGates => job.run::<HalfGates>(),
            Scheme::ThreeHalves => job.run::<ThreeHalves>(),
        }
    }
}
