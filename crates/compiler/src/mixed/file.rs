//! A mixed program compiled from C, as a file (`twofold compile --protocol
//! mixed`): the mixed program in its binary format (`.tfm`, see
//! [`twofold_circuit::mixed::format`]), then its *C interface*: the C
//! inputs (name, party, C type) and outputs (name, C type), where each of
//! the mixed program's inputs comes from (a slice of a C input, or a word
//! its owner computes from its own C inputs) and where each bit of a C
//! output comes from. With it the file runs on the C program's values
//! (`twofold mixed FILE.tfm -i INPUT_A=...`), as the C source does.
//!
//! The interface follows the program: a reader of the mixed format alone
//! reads the program and stops there, and the program's hash (which the
//! parties compare at the handshake) does not cover it, so a party running
//! the file and one running the C source agree. It is encoded as the
//! program is (little-endian, counts as u32): the magic `TWOFOLDC`, a
//! version (u32), then
//!
//! * C inputs: each a name, its party (u8: 0 A, 1 B) and its C type;
//! * C outputs: each a name, a C type and its bits (each a tag byte, 0 or
//!   1 a constant, 2 bit `i` of mixed output `o`, then `o` and `i`);
//! * sources, one per mixed input from the first: the C input, its first
//!   bit, the bit count and whether it extends by its sign (u8);
//! * local words, one per mixed input after those: the input bits it reads
//!   (C input, bit and wire), its gates (each as the Boolean format holds
//!   it: a tag byte, 0 XOR, 1 AND, 2 INV, the input wires, the output
//!   wire) and its bits (a tag byte, 0 or 1 a constant, 2 a wire, then the
//!   wire);
//! * the sums run arithmetically and the gates lowering made (u64 each).
//!
//! C types are encoded as in [`crate::signature`]. Readers trust no count
//! (lists grow as data arrives) and validate the interface against the
//! program.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, Write};

use twofold_circuit::binary::{
    encode_gate, get_name, get_u32, get_u64, get_u8, put_name, put_u32, read_gate,
};
use twofold_circuit::mixed::format::{read_mixed, write_mixed};
use twofold_circuit::{Bit, CircuitError, MixedProgram, Party, Wire};

use super::{InputSource, LocalInput, MixedCompiled, OutBit};
use crate::signature::{get_type, put_type};

/// Magic of the C interface that follows a compiled mixed program.
pub const MAGIC: &[u8; 8] = b"TWOFOLDC";
/// Current version of the C interface's encoding.
pub const VERSION: u32 = 2;

/// What a mixed program file holds.
#[derive(Clone, Debug, PartialEq)]
pub enum MixedFile {
    /// A mixed program alone (written by hand, or by an embedding program):
    /// its inputs and outputs are its own.
    Program(MixedProgram),
    /// A mixed program compiled from C, with its C interface.
    Compiled(Box<MixedCompiled>),
}

impl MixedFile {
    /// The mixed program.
    pub fn program(&self) -> &MixedProgram {
        match self {
            MixedFile::Program(p) => p,
            MixedFile::Compiled(c) => &c.program,
        }
    }

    /// The program with its C interface, if it was compiled from C.
    pub fn compiled(&self) -> Option<&MixedCompiled> {
        match self {
            MixedFile::Program(_) => None,
            MixedFile::Compiled(c) => Some(c),
        }
    }
}

/// Writes `compiled` as a file: the mixed program, then its C interface.
pub fn write_compiled(compiled: &MixedCompiled, out: &mut impl Write) -> Result<(), CircuitError> {
    write_mixed(&compiled.program, out)?;
    out.write_all(MAGIC)?;
    put_u32(out, VERSION)?;
    put_u32(out, compiled.inputs.len() as u32)?;
    for ((name, ty), party) in compiled.inputs.iter().zip(&compiled.input_parties) {
        put_name(out, name)?;
        out.write_all(&[party.index()])?;
        put_type(out, ty)?;
    }
    put_u32(out, compiled.outputs.len() as u32)?;
    for ((name, ty), bits) in compiled.outputs.iter().zip(&compiled.output_bits) {
        put_name(out, name)?;
        put_type(out, ty)?;
        put_u32(out, bits.len() as u32)?;
        for bit in bits {
            match *bit {
                OutBit::Const(c) => out.write_all(&[c as u8])?,
                OutBit::Of(o, i) => {
                    out.write_all(&[2])?;
                    put_u32(out, o as u32)?;
                    put_u32(out, i)?;
                }
            }
        }
    }
    put_u32(out, compiled.sources.len() as u32)?;
    for s in &compiled.sources {
        for v in [s.input as u32, s.offset, s.len] {
            put_u32(out, v)?;
        }
        out.write_all(&[s.signed as u8])?;
    }
    put_u32(out, compiled.locals.len() as u32)?;
    for local in &compiled.locals {
        put_local(out, local)?;
    }
    out.write_all(&(compiled.arithmetic_sums as u64).to_le_bytes())?;
    out.write_all(&compiled.built_gates.to_le_bytes())?;
    put_u32(out, compiled.converted_sums.len() as u32)?;
    for &k in &compiled.converted_sums {
        put_u32(out, k)?;
    }
    out.write_all(&(compiled.boolean_sums as u64).to_le_bytes())?;
    Ok(())
}

/// Reads a mixed program file: the program, and its C interface if one
/// follows (validated against the program).
pub fn read_compiled(input: &mut impl BufRead) -> Result<MixedFile, CircuitError> {
    let program = read_mixed(input)?;
    if input.fill_buf()?.is_empty() {
        return Ok(MixedFile::Program(program));
    }
    let invalid = |m: String| CircuitError::Invalid(m);
    let mut magic = [0u8; 8];
    input.read_exact(&mut magic)?;
    if &magic != MAGIC {
        return Err(invalid(
            "bytes after the mixed program are not its C interface".into(),
        ));
    }
    let version = get_u32(input)?;
    if version != VERSION {
        return Err(invalid(format!(
            "C interface version {version}, this twofold reads version {VERSION}"
        )));
    }
    let (mut inputs, mut input_parties) = (Vec::new(), Vec::new());
    for _ in 0..get_u32(input)? {
        let name = get_name(input)?;
        input_parties.push(match get_u8(input)? {
            0 => Party::A,
            1 => Party::B,
            p => return Err(invalid(format!("party {p} of a C input"))),
        });
        inputs.push((name, get_type(input, 0)?));
    }
    let (mut outputs, mut output_bits) = (Vec::new(), Vec::new());
    for _ in 0..get_u32(input)? {
        outputs.push((get_name(input)?, get_type(input, 0)?));
        let mut bits = Vec::new();
        for _ in 0..get_u32(input)? {
            bits.push(match get_u8(input)? {
                c @ (0 | 1) => OutBit::Const(c == 1),
                2 => OutBit::Of(get_u32(input)? as usize, get_u32(input)?),
                t => return Err(invalid(format!("bad output bit tag {t}"))),
            });
        }
        output_bits.push(bits);
    }
    let mut sources = Vec::new();
    for _ in 0..get_u32(input)? {
        sources.push(InputSource {
            input: get_u32(input)? as usize,
            offset: get_u32(input)?,
            len: get_u32(input)?,
            signed: get_u8(input)? != 0,
        });
    }
    let mut locals = Vec::new();
    for _ in 0..get_u32(input)? {
        locals.push(get_local(input)?);
    }
    let compiled = MixedCompiled {
        program,
        sources,
        locals,
        inputs,
        input_parties,
        outputs,
        output_bits,
        arithmetic_sums: usize::try_from(get_u64(input)?).map_err(|e| invalid(e.to_string()))?,
        built_gates: get_u64(input)?,
        converted_sums: (0..get_u32(input)?)
            .map(|_| get_u32(input))
            .collect::<Result<_, _>>()?,
        boolean_sums: usize::try_from(get_u64(input)?).map_err(|e| invalid(e.to_string()))?,
    };
    if !input.fill_buf()?.is_empty() {
        return Err(invalid("bytes after the C interface".into()));
    }
    compiled.validate().map_err(invalid)?;
    Ok(MixedFile::Compiled(Box::new(compiled)))
}

fn put_local(out: &mut impl Write, local: &LocalInput) -> Result<(), CircuitError> {
    put_u32(out, local.reads.len() as u32)?;
    for &(input, bit, w) in &local.reads {
        for v in [input as u32, bit, w] {
            put_u32(out, v)?;
        }
    }
    put_u32(out, local.gates.len() as u32)?;
    let mut gates = Vec::new();
    for g in &local.gates {
        encode_gate(g, &mut gates);
    }
    out.write_all(&gates)?;
    put_u32(out, local.bits.len() as u32)?;
    for bit in &local.bits {
        match *bit {
            Bit::Const(c) => out.write_all(&[c as u8])?,
            Bit::Wire(w) => {
                out.write_all(&[2])?;
                put_u32(out, w)?;
            }
        }
    }
    Ok(())
}

fn get_local(input: &mut impl BufRead) -> Result<LocalInput, CircuitError> {
    let mut reads = Vec::new();
    for _ in 0..get_u32(input)? {
        reads.push((get_u32(input)? as usize, get_u32(input)?, get_u32(input)?));
    }
    let mut gates = Vec::new();
    for _ in 0..get_u32(input)? {
        gates.push(read_gate(input)?);
    }
    let mut bits = Vec::new();
    for _ in 0..get_u32(input)? {
        bits.push(match get_u8(input)? {
            c @ (0 | 1) => Bit::Const(c == 1),
            2 => Bit::Wire(get_u32(input)?),
            t => return Err(CircuitError::Invalid(format!("bad bit tag {t}"))),
        });
    }
    Ok(LocalInput { reads, gates, bits })
}

impl MixedCompiled {
    /// Checks that the C interface fits the program, so that
    /// [`MixedCompiled::mixed_inputs`] and [`MixedCompiled::c_outputs`]
    /// cannot fail on values of the C inputs' widths: every mixed input has
    /// a source or a local word, of its owner's C inputs and in their
    /// bounds; a local word's gates read only wires made before them; each
    /// C output has its type's bits, each of a mixed output's.
    pub fn validate(&self) -> Result<(), String> {
        let p = &self.program;
        if self.input_parties.len() != self.inputs.len()
            || self.output_bits.len() != self.outputs.len()
            || self.sources.len() + self.locals.len() != p.inputs.len()
        {
            return Err("the C interface does not match the program's inputs and outputs".into());
        }
        let mut names = HashSet::new();
        if let Some((name, _)) = self.inputs.iter().find(|(n, _)| !names.insert(n)) {
            return Err(format!("two C inputs named {name:?}"));
        }
        let widths: Vec<u32> = self.inputs.iter().map(|(_, t)| t.width()).collect();
        let party = |input: usize| self.input_parties[input].index();
        let (words, computed) = p.inputs.split_at(self.sources.len());
        for (v, s) in words.iter().zip(&self.sources) {
            let end = s.offset.checked_add(s.len);
            if s.input >= widths.len() || end.is_none_or(|end| end > widths[s.input]) {
                return Err(format!("input {:?} reads past its C input", v.name));
            }
            if s.len > v.kind.bits() || party(s.input) != v.owner {
                return Err(format!("input {:?} does not fit its C input", v.name));
            }
        }
        // Per owner, the wires its words made so far (a word may read them).
        let mut made_by_owner: HashMap<u8, HashSet<Wire>> = HashMap::new();
        for (v, local) in computed.iter().zip(&self.locals) {
            let made = made_by_owner.entry(v.owner).or_default();
            for &(input, bit, w) in &local.reads {
                if input >= widths.len() || bit >= widths[input] || party(input) != v.owner {
                    return Err(format!("input {:?} reads no C input of its owner", v.name));
                }
                made.insert(w);
            }
            for g in &local.gates {
                if !g.inputs().all(|w| made.contains(&w)) || !made.insert(g.out()) {
                    return Err(format!("input {:?} has a gate out of order", v.name));
                }
            }
            let bits_made = local.bits.iter().all(|b| match b {
                Bit::Wire(w) => made.contains(w),
                Bit::Const(_) => true,
            });
            if local.bits.len() != v.kind.bits() as usize || !bits_made {
                return Err(format!("input {:?} is not a word of its width", v.name));
            }
        }
        let kinds = p.kinds().map_err(|e| e.to_string())?;
        let output_width = |o: usize| Some(kinds.get(p.outputs.get(o)?.value as usize)?.bits());
        for ((name, ty), bits) in self.outputs.iter().zip(&self.output_bits) {
            let fits = bits.iter().all(|b| match *b {
                OutBit::Const(_) => true,
                OutBit::Of(o, i) => output_width(o).is_some_and(|w| i < w),
            });
            if bits.len() != ty.width() as usize || !fits {
                return Err(format!(
                    "output {name:?} does not fit the program's outputs"
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{compile_mixed, CompileOptions};

    /// A conditional sum of B's values on A's threshold: a source slice
    /// for B's words and a local word for each of A's comparisons.
    const SOURCE: &str = "#include <stdint.h>
typedef struct { int32_t v[4]; } V;
typedef struct { int32_t sum; _Bool big; } Out;
Out mpc_main(V INPUT_A, V INPUT_B) {
    Out o = {0, 0};
    for (int i = 0; i < 4; i++) o.sum += (INPUT_A.v[i] > 100) * INPUT_B.v[i];
    o.big = o.sum > 5;
    return o;
}";

    fn compiled() -> MixedCompiled {
        let two = CompileOptions {
            local_values: true,
            ..CompileOptions::default()
        };
        compile_mixed(SOURCE, "file.c", &two).expect("compiles")
    }

    fn written(c: &MixedCompiled) -> Vec<u8> {
        let mut bytes = Vec::new();
        write_compiled(c, &mut bytes).expect("writes to memory");
        bytes
    }

    #[test]
    fn a_compiled_program_reads_back_whole_and_hashes_as_its_program() {
        let c = compiled();
        assert!(!c.locals.is_empty() && !c.sources.is_empty());
        let bytes = written(&c);
        let MixedFile::Compiled(back) = read_compiled(&mut bytes.as_slice()).expect("reads") else {
            panic!("the C interface is lost");
        };
        assert_eq!(back.program, c.program);
        assert_eq!(back.inputs, c.inputs);
        assert_eq!(back.input_parties, c.input_parties);
        assert_eq!(back.outputs, c.outputs);
        assert_eq!(back.output_bits, c.output_bits);
        assert_eq!(back.sources, c.sources);
        assert_eq!(back.locals, c.locals);
        assert_eq!(
            (back.arithmetic_sums, back.built_gates, back.boolean_sums),
            (c.arithmetic_sums, c.built_gates, c.boolean_sums)
        );
        assert_eq!(back.converted_sums, c.converted_sums);
        // A reader of the program alone stops before the interface.
        let alone = read_mixed(&mut bytes.as_slice()).expect("reads");
        assert_eq!(alone.hash(), c.program.hash());
        let mut program = Vec::new();
        write_mixed(&c.program, &mut program).expect("writes");
        match read_compiled(&mut program.as_slice()).expect("reads") {
            MixedFile::Program(p) => assert_eq!(p, c.program),
            MixedFile::Compiled(_) => panic!("no interface was written"),
        }
    }

    #[test]
    fn an_interface_that_does_not_fit_its_program_is_refused() {
        let c = compiled();
        let refused = |change: &dyn Fn(&mut MixedCompiled)| {
            let mut bad = c.clone();
            change(&mut bad);
            read_compiled(&mut written(&bad).as_slice()).is_err()
        };
        assert!(!refused(&|_| {}));
        assert!(refused(&|c| c.sources[0].offset = u32::MAX));
        assert!(refused(&|c| c.sources[0].input = 7));
        // The other party's input, of the same type.
        assert!(refused(&|c| c.sources[0].input ^= 1));
        assert!(refused(&|c| {
            let p = &mut c.input_parties;
            p.swap(0, 1);
        }));
        assert!(refused(&|c| c.locals[0].gates.reverse()));
        assert!(refused(&|c| {
            c.locals[0].bits.pop();
        }));
        assert!(refused(&|c| c.output_bits[0][0] = OutBit::Of(99, 0)));
        assert!(refused(&|c| c.output_bits[0].push(OutBit::Const(true))));
        assert!(refused(&|c| c.inputs[1].0 = c.inputs[0].0.clone()));
        // Truncated anywhere in the interface, or followed by other bytes.
        let bytes = written(&c);
        let mut program = Vec::new();
        write_mixed(&c.program, &mut program).expect("writes");
        for cut in program.len() + 1..bytes.len() {
            assert!(read_compiled(&mut &bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut other = program.clone();
        other.extend_from_slice(b"TWOFOLDX");
        assert!(read_compiled(&mut other.as_slice()).is_err());
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(read_compiled(&mut longer.as_slice()).is_err());
    }
}
