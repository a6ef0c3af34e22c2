//! C to mixed programs (issue 29): sums of products of secret words run in
//! the arithmetic sharing, the rest in garbled circuits.
//!
//! [`compile_mixed`] lowers the program with every loop unrolled while
//! lowering notes each sum of products it reduces to bits ([`notes`]);
//! the partition ([`partition`]) runs those sums arithmetically —
//! operands that are slices of an input are their owner's shares, sums of
//! sums stay arithmetic, linear combinations of those are computed
//! locally ([`linear`]), other operands are converted from garbled bits —
//! and cuts the remaining gates into Boolean phases by the conversions
//! before them ([`build`]). Whether the mixed program is worth running is
//! the caller's choice (the cost model is the protocol's).

mod build;
pub mod file;
mod linear;
mod local;
pub(crate) mod notes;
mod partition;

pub use local::LocalInput;

use rustc_hash::FxHashMap as HashMap;
use twofold_circuit::{MixedProgram, Party, Wire};

use crate::lower::Lowered;
use crate::types::CType;

/// Where a mixed program's input comes from: bits `offset..offset + len`
/// of a C input, extended (by zeros, or by copies of the last bit if
/// `signed`) to the mixed input's width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InputSource {
    /// The C input (index into [`MixedCompiled::inputs`]).
    pub input: usize,
    /// Its first bit.
    pub offset: u32,
    /// How many of its bits.
    pub len: u32,
    /// Whether the bits extend by their last (else by zeros).
    pub signed: bool,
}

/// Where a bit of a C output comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutBit {
    /// A public constant.
    Const(bool),
    /// Bit `.1` of mixed output `.0`.
    Of(usize, u32),
}

/// A C program compiled to a mixed program.
#[derive(Clone, Debug, PartialEq)]
pub struct MixedCompiled {
    /// The mixed program.
    pub program: MixedProgram,
    /// Per input of [`MixedCompiled::program`], where its bits come from
    /// (the first `sources.len()` inputs)...
    pub sources: Vec<InputSource>,
    /// ...and the inputs after them: words their owner computes from its
    /// own C inputs (two parties only; see [`local`]).
    pub locals: Vec<LocalInput>,
    /// The C inputs: name and type, in the order of the Boolean program's.
    pub inputs: Vec<(String, CType)>,
    /// The party holding each C input.
    pub input_parties: Vec<Party>,
    /// The C outputs: name and type, in the order of the Boolean program's.
    pub outputs: Vec<(String, CType)>,
    /// Per C output, its bits (least significant first).
    pub output_bits: Vec<Vec<OutBit>>,
    /// Sums of products that run arithmetically.
    pub arithmetic_sums: usize,
    /// Gates lowering made (the cost of compiling flat).
    pub built_gates: u64,
    /// The sums of products (by their numbers in lowering's order) that
    /// run arithmetically but read a word converted from garbled bits:
    /// those a partition may rather give their Boolean circuits
    /// ([`crate::CompileOptions::boolean_sums`]).
    pub converted_sums: Vec<u32>,
    /// The sums of products that got their Boolean circuits instead.
    pub boolean_sums: usize,
}

impl MixedCompiled {
    /// The mixed program's inputs from the C inputs' bits (`None` for the
    /// peer's: then theirs are `None` too).
    pub fn mixed_inputs(&self, c_inputs: &[Option<Vec<bool>>]) -> Vec<Option<Vec<bool>>> {
        let slices = self
            .program
            .inputs
            .iter()
            .zip(&self.sources)
            .map(|(v, src)| {
                let bits = c_inputs.get(src.input)?.as_ref()?;
                let slice = &bits[src.offset as usize..(src.offset + src.len) as usize];
                let fill = src.signed && slice.last() == Some(&true);
                let mut word = slice.to_vec();
                word.resize(v.kind.bits() as usize, fill);
                Some(word)
            });
        // (A word may read the wires its owner's earlier words made.)
        let mut made: HashMap<u8, HashMap<Wire, bool>> = HashMap::default();
        let owners = self.program.inputs[self.sources.len()..].iter();
        let locals = (self.locals.iter().zip(owners))
            .map(|(l, v)| l.eval(c_inputs, made.entry(v.owner).or_default()));
        slices.chain(locals).collect()
    }

    /// The C outputs' bits from the mixed program's.
    pub fn c_outputs(&self, mixed: &[Vec<bool>]) -> Vec<Vec<bool>> {
        self.output_bits
            .iter()
            .map(|bits| {
                bits.iter()
                    .map(|b| match *b {
                        OutBit::Const(c) => c,
                        OutBit::Of(o, i) => mixed[o][i as usize],
                    })
                    .collect()
            })
            .collect()
    }
}

/// The mixed program of a program lowered flat, given the sums noted
/// while lowering it.
pub(crate) fn partitioned(
    lowered: Lowered,
    notes: &[notes::SumNote],
    local_values: bool,
    boolean_sums: usize,
) -> Result<MixedCompiled, String> {
    let flat = lowered
        .builder
        .into_flat()
        .map_err(|e| format!("cannot finish the circuit: {e}"))?;
    let built_gates = flat.gates.len() as u64;
    let input_parties = flat.inputs.iter().map(|(v, _)| v.party).collect();
    let p = partition::partition(flat, notes, local_values)?;
    Ok(MixedCompiled {
        program: p.program,
        sources: p.sources,
        locals: p.locals,
        inputs: lowered.inputs,
        input_parties,
        outputs: lowered.outputs,
        output_bits: p.outputs,
        arithmetic_sums: p.sums,
        built_gates,
        converted_sums: p.converted,
        boolean_sums,
    })
}
