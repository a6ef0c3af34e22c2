//! The C values of a program compiled from C, in its file: after the
//! program (`twofold compile FILE.c -o FILE.tfc`), the names and C types of
//! its inputs and outputs, so that a run from the file reads and shows
//! values as a run from the C source does (`-i INPUT_A={1, 2}`, input
//! files, outputs as C values). A reader of the binary format alone stops
//! before them, and the program's hash does not cover them.
//!
//! Little-endian, as the program: the magic `TWOFOLDS`, a version (u32),
//! then the inputs and then the outputs, each a count (u32) and per value a
//! name and a C type. A C type is a tag byte and its fields: 0 `_Bool`, 1
//! an integer (width u32, signed u8), 2 a floating-point type (width u32),
//! 3 an array (length u32, element type), 4 a struct (0, or 1 and its
//! tag's name; then its members, each a name and a type). Readers trust no
//! count and check the values against the program's.

use std::io::{BufRead, Write};
use std::sync::Arc;

use twofold_circuit::binary::{get_name, get_u32, get_u8, put_name, put_u32, MAX_NAME};
use twofold_circuit::{Circuit, CircuitError};

use crate::types::{CType, StructDef};

/// Magic of the C values that follow a compiled program.
pub const MAGIC: &[u8; 8] = b"TWOFOLDS";
/// Current version of their encoding.
pub const VERSION: u32 = 1;

/// C types nest at most this deep in a file (arrays of structs of ...).
const MAX_TYPE_DEPTH: u32 = 64;

/// A program's inputs and outputs as C values: name and type of each, in
/// the program's order.
#[derive(Clone, Debug, PartialEq)]
pub struct Signature {
    /// The inputs.
    pub inputs: Vec<(String, CType)>,
    /// The outputs.
    pub outputs: Vec<(String, CType)>,
}

impl Signature {
    /// Whether these are the values of `main` (a program's main circuit):
    /// the same names, in order, of the types' widths.
    pub fn check(&self, main: &Circuit) -> Result<(), String> {
        let inputs = main.inputs.iter().map(|v| (v.name.as_str(), v.width));
        let outputs = (main.outputs.iter()).map(|v| (v.name.as_str(), v.wires.len() as u32));
        for (kind, values, program) in [
            ("inputs", &self.inputs, inputs.collect::<Vec<_>>()),
            ("outputs", &self.outputs, outputs.collect()),
        ] {
            let c = values.iter().map(|(n, t)| (n.as_str(), t.width()));
            if !c.eq(program.iter().copied()) {
                return Err(format!("the C {kind} after the program are not its {kind}"));
            }
        }
        Ok(())
    }
}

/// Writes `signature` (see the module docs).
pub fn write_signature(signature: &Signature, out: &mut impl Write) -> Result<(), CircuitError> {
    out.write_all(MAGIC)?;
    put_u32(out, VERSION)?;
    for values in [&signature.inputs, &signature.outputs] {
        put_u32(out, values.len() as u32)?;
        for (name, ty) in values {
            put_name(out, name)?;
            put_type(out, ty)?;
        }
    }
    Ok(())
}

/// Reads the C values that follow a program, if any do: `None` at the end
/// of the input. Bytes that are not C values, or bytes after them, are an
/// error.
pub fn read_signature(input: &mut impl BufRead) -> Result<Option<Signature>, CircuitError> {
    if input.fill_buf()?.is_empty() {
        return Ok(None);
    }
    let invalid = |m: &str| CircuitError::Invalid(m.into());
    let mut magic = [0u8; 8];
    input.read_exact(&mut magic)?;
    if &magic != MAGIC {
        return Err(invalid("bytes after the program are not its C values"));
    }
    if get_u32(input)? != VERSION {
        return Err(invalid("C values of another version"));
    }
    let mut lists = [Vec::new(), Vec::new()];
    for values in &mut lists {
        for _ in 0..get_u32(input)? {
            values.push((get_name(input)?, get_type(input, 0)?));
        }
    }
    if !input.fill_buf()?.is_empty() {
        return Err(invalid("bytes after the C values"));
    }
    let [inputs, outputs] = lists;
    Ok(Some(Signature { inputs, outputs }))
}

/// Writes C type `ty` (see the module docs).
pub(crate) fn put_type(out: &mut impl Write, ty: &CType) -> Result<(), CircuitError> {
    match ty {
        CType::Bool => out.write_all(&[0])?,
        CType::Int { bits, signed } => {
            out.write_all(&[1])?;
            put_u32(out, *bits)?;
            out.write_all(&[*signed as u8])?;
        }
        CType::Float { bits } => {
            out.write_all(&[2])?;
            put_u32(out, *bits)?;
        }
        CType::Array(element, n) => {
            out.write_all(&[3])?;
            put_u32(out, *n)?;
            put_type(out, element)?;
        }
        CType::Struct(s) => {
            out.write_all(&[4])?;
            match &s.name {
                None => out.write_all(&[0])?,
                Some(name) => {
                    out.write_all(&[1])?;
                    put_name(out, name)?;
                }
            }
            put_u32(out, s.fields.len() as u32)?;
            for (name, t) in &s.fields {
                put_name(out, name)?;
                put_type(out, t)?;
            }
        }
        CType::Void | CType::Pointer(_) | CType::Function(_) => {
            return Err(CircuitError::Invalid(format!(
                "an input or output of type {} has no value to write",
                ty.name()
            )))
        }
    }
    Ok(())
}

/// Why a C input or output named `name` of type `ty` could not be written
/// to a program file and read back (see [`get_type`]), if it could not:
/// arrays and structs nested more than [`MAX_TYPE_DEPTH`] deep, or a name
/// (its own, a struct's tag, a member's) longer than a file holds.
pub(crate) fn unstorable(name: &str, ty: &CType) -> Option<String> {
    long_name(name).or_else(|| unstorable_type(ty, 0))
}

fn long_name(name: &str) -> Option<String> {
    (name.len() > MAX_NAME as usize).then(|| {
        format!(
            "a name of {} bytes (a program file holds at most {MAX_NAME})",
            name.len()
        )
    })
}

fn unstorable_type(ty: &CType, depth: u32) -> Option<String> {
    if depth > MAX_TYPE_DEPTH {
        return Some(format!(
            "its type nests arrays and structs more than {MAX_TYPE_DEPTH} deep"
        ));
    }
    match ty {
        CType::Array(e, _) => unstorable_type(e, depth + 1),
        CType::Struct(s) => (s.name.as_deref().and_then(long_name)).or_else(|| {
            (s.fields.iter())
                .find_map(|(n, t)| long_name(n).or_else(|| unstorable_type(t, depth + 1)))
        }),
        _ => None,
    }
}

/// A C type as [`put_type`] writes it, nested `depth` deep: only the types
/// a C input or output may have, of at most `u32::MAX` bits.
pub(crate) fn get_type(input: &mut impl BufRead, depth: u32) -> Result<CType, CircuitError> {
    let invalid = |m: String| Err(CircuitError::Invalid(m));
    if depth > MAX_TYPE_DEPTH {
        return invalid(format!("C types nested more than {MAX_TYPE_DEPTH} deep"));
    }
    let ty = match get_u8(input)? {
        0 => CType::Bool,
        1 => {
            let bits = get_u32(input)?;
            let signed = get_u8(input)? != 0;
            if ![8, 16, 32, 64].contains(&bits) {
                return invalid(format!("an integer type of {bits} bits"));
            }
            CType::Int { bits, signed }
        }
        2 => {
            let bits = get_u32(input)?;
            if ![32, 64].contains(&bits) {
                return invalid(format!("a floating-point type of {bits} bits"));
            }
            CType::Float { bits }
        }
        3 => {
            let n = get_u32(input)?;
            CType::Array(Arc::new(get_type(input, depth + 1)?), n)
        }
        4 => {
            let name = match get_u8(input)? {
                0 => None,
                _ => Some(get_name(input)?),
            };
            let mut fields = Vec::new();
            for _ in 0..get_u32(input)? {
                fields.push((get_name(input)?, get_type(input, depth + 1)?));
            }
            CType::Struct(Arc::new(StructDef {
                name,
                fields,
                ..Default::default()
            }))
        }
        t => return invalid(format!("bad C type tag {t}")),
    };
    if checked_width(&ty).is_none() {
        return invalid(format!("a value of type {} has too many bits", ty.name()));
    }
    Ok(ty)
}

/// The width of a value of `ty`, if it fits in a `u32`.
fn checked_width(ty: &CType) -> Option<u32> {
    match ty {
        CType::Array(element, n) => checked_width(element)?.checked_mul(*n),
        CType::Struct(s) => s
            .fields
            .iter()
            .try_fold(0u32, |sum, (_, t)| sum.checked_add(checked_width(t)?)),
        t => Some(t.width()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{compile, CompileOptions};

    /// C values read back as written, fit their program and not another;
    /// a truncated or extended list is refused, and none is `None`.
    #[test]
    fn c_values_read_back_and_fit_their_program() {
        let source = "typedef struct { short v[3]; _Bool b; double d; } S;
int mpc_main(S INPUT_A, unsigned char INPUT_B[2]) { return INPUT_A.v[0] + INPUT_B[1]; }";
        let c = compile(source, "sig.c", &CompileOptions::default()).expect("compiles");
        let signature = Signature {
            inputs: c.inputs.clone(),
            outputs: c.outputs.clone(),
        };
        let mut bytes = Vec::new();
        write_signature(&signature, &mut bytes).expect("writes");
        let back = read_signature(&mut bytes.as_slice()).expect("reads");
        assert_eq!(back.as_ref(), Some(&signature));
        assert_eq!(signature.check(&c.program.main), Ok(()));
        let mut other = signature.clone();
        other.inputs.swap(0, 1);
        assert!(other.check(&c.program.main).is_err());
        other = signature.clone();
        other.outputs[0].1 = CType::Bool;
        assert!(other.check(&c.program.main).is_err());
        assert_eq!(read_signature(&mut &[][..]).expect("reads"), None);
        for cut in 1..bytes.len() {
            assert!(read_signature(&mut &bytes[..cut]).is_err(), "cut at {cut}");
        }
        bytes.push(0);
        assert!(read_signature(&mut bytes.as_slice()).is_err());
        assert!(read_signature(&mut &b"TWOFOLDX\x01\0\0\0"[..]).is_err());
    }
}
