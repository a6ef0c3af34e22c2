//! The binary format of mixed programs (`.tfm`) and their hash.
//!
//! Little-endian, as the Boolean format ([`crate::binary`]). A file is the
//! magic `TWOFOLDM`, a format version (u32), the number of parties (u8),
//! then:
//!
//! * inputs: a count (u32), each a name (u32 length, UTF-8), the owner
//!   (u8) and a kind;
//! * Boolean programs: a count (u32), each a frame of the Boolean format
//!   (a circuit and its blocks, as after a `.tfc` file's version);
//! * steps: a count (u32), each a tag byte and its fields (below);
//! * outputs: a count (u32), each a name and a value (u32).
//!
//! A kind is a tag byte (0 word, 1 bits) and its width (u32). Steps, by
//! tag: 0 `Const` (width u32, value u64), 1 `Add` (x, y), 2 `Sub` (x, y),
//! 3 `Neg` (x), 4 `MulConst` (x, constant u64), 5 `Mul` (x, y), 6 `Dot`
//! (length u32, the x values, the y values), 7 `ToYao` (x), 8 `ToArith`
//! (x), 9 `Inject` (bit, width u32), 10 `Boolean` (program u32, value
//! list: u32 count and the values); values are u32.
//!
//! Readers trust no count (lists grow as data arrives), and the program
//! read is validated whole. The hash is SHA-256 of this encoding: the
//! magic differs from a Boolean program's, so a mixed program and a
//! Boolean one never share a hash.

use std::io::{BufRead, Read, Write};

use super::{Kind, MixedInput, MixedOutput, MixedProgram, Step, ValueId};
use crate::binary::{
    get_name, get_u32, get_u64, get_u8, get_wires, put_name, put_u32, put_wires, read_frame,
    sha256_of, truncated, write_frame,
};
use crate::program::Program;
use crate::CircuitError;

/// File magic of mixed programs.
pub const MAGIC: &[u8; 8] = b"TWOFOLDM";
/// Current format version.
pub const VERSION: u32 = 1;

/// Whether `bytes` start with the mixed format's magic.
pub fn is_mixed(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// Writes a mixed program in the binary format.
pub fn write_mixed(program: &MixedProgram, out: &mut impl Write) -> Result<(), CircuitError> {
    out.write_all(MAGIC)?;
    put_u32(out, VERSION)?;
    out.write_all(&[program.parties])?;
    put_u32(out, program.inputs.len() as u32)?;
    for v in &program.inputs {
        put_name(out, &v.name)?;
        out.write_all(&[v.owner])?;
        put_kind(out, v.kind)?;
    }
    put_u32(out, program.programs.len() as u32)?;
    for p in &program.programs {
        write_frame(p.frame(), out)?;
    }
    put_u32(out, program.steps.len() as u32)?;
    for step in &program.steps {
        put_step(out, step)?;
    }
    put_u32(out, program.outputs.len() as u32)?;
    for o in &program.outputs {
        put_name(out, &o.name)?;
        put_u32(out, o.value)?;
    }
    Ok(())
}

fn put_kind(out: &mut impl Write, kind: Kind) -> std::io::Result<()> {
    let (tag, width) = match kind {
        Kind::Word(w) => (0, w),
        Kind::Bits(n) => (1, n),
    };
    out.write_all(&[tag])?;
    put_u32(out, width)
}

fn put_step(out: &mut impl Write, step: &Step) -> std::io::Result<()> {
    let tag = |out: &mut dyn Write, t: u8, values: &[ValueId]| -> std::io::Result<()> {
        out.write_all(&[t])?;
        values
            .iter()
            .try_for_each(|v| out.write_all(&v.to_le_bytes()))
    };
    match step {
        Step::Const { width, value } => {
            tag(out, 0, &[*width])?;
            out.write_all(&value.to_le_bytes())
        }
        Step::Add(x, y) => tag(out, 1, &[*x, *y]),
        Step::Sub(x, y) => tag(out, 2, &[*x, *y]),
        Step::Neg(x) => tag(out, 3, &[*x]),
        Step::MulConst(x, c) => {
            tag(out, 4, &[*x])?;
            out.write_all(&c.to_le_bytes())
        }
        Step::Mul(x, y) => tag(out, 5, &[*x, *y]),
        Step::Dot(x, y) => {
            tag(out, 6, &[x.len() as u32])?;
            x.iter()
                .chain(y)
                .try_for_each(|v| out.write_all(&v.to_le_bytes()))
        }
        Step::ToYao(x) => tag(out, 7, &[*x]),
        Step::ToArith(x) => tag(out, 8, &[*x]),
        Step::Inject { bit, width } => tag(out, 9, &[*bit, *width]),
        Step::Boolean { program, args } => {
            tag(out, 10, &[*program])?;
            put_wires(out, args)
        }
    }
}

/// Reads a mixed program in the binary format and validates it.
pub fn read_mixed(input: &mut impl BufRead) -> Result<MixedProgram, CircuitError> {
    read_checked(input).map_err(truncated)
}

fn read_checked(input: &mut impl BufRead) -> Result<MixedProgram, CircuitError> {
    let invalid = |m: String| Err(CircuitError::Invalid(m));
    let mut magic = [0u8; 8];
    input.read_exact(&mut magic)?;
    if &magic != MAGIC {
        return invalid("not a twofold mixed program (bad magic)".into());
    }
    let version = get_u32(input)?;
    if version != VERSION {
        return invalid(format!(
            "mixed program version {version}, this twofold reads version {VERSION}"
        ));
    }
    let parties = get_u8(input)?;
    let mut inputs = Vec::new();
    for _ in 0..get_u32(input)? {
        inputs.push(MixedInput {
            name: get_name(input)?,
            owner: get_u8(input)?,
            kind: get_kind(input)?,
        });
    }
    let mut programs = Vec::new();
    for _ in 0..get_u32(input)? {
        let (main, blocks) = read_frame(input, 0)?;
        programs.push(Program { main, blocks });
    }
    let mut steps = Vec::new();
    for _ in 0..get_u32(input)? {
        steps.push(get_step(input)?);
    }
    let mut outputs = Vec::new();
    for _ in 0..get_u32(input)? {
        outputs.push(MixedOutput {
            name: get_name(input)?,
            value: get_u32(input)?,
        });
    }
    let program = MixedProgram {
        parties,
        inputs,
        programs,
        steps,
        outputs,
    };
    program.validate()?;
    Ok(program)
}

fn get_kind(input: &mut impl Read) -> Result<Kind, CircuitError> {
    match get_u8(input)? {
        0 => Ok(Kind::Word(get_u32(input)?)),
        1 => Ok(Kind::Bits(get_u32(input)?)),
        t => Err(CircuitError::Invalid(format!("bad kind tag {t}"))),
    }
}

fn get_step(input: &mut impl Read) -> Result<Step, CircuitError> {
    Ok(match get_u8(input)? {
        0 => Step::Const {
            width: get_u32(input)?,
            value: get_u64(input)?,
        },
        1 => Step::Add(get_u32(input)?, get_u32(input)?),
        2 => Step::Sub(get_u32(input)?, get_u32(input)?),
        3 => Step::Neg(get_u32(input)?),
        4 => Step::MulConst(get_u32(input)?, get_u64(input)?),
        5 => Step::Mul(get_u32(input)?, get_u32(input)?),
        6 => {
            let n = get_u32(input)?;
            let mut list = || -> std::io::Result<Vec<ValueId>> {
                let mut values = Vec::with_capacity(n.min(1 << 16) as usize);
                for _ in 0..n {
                    values.push(get_u32(input)?);
                }
                Ok(values)
            };
            let x = list()?;
            Step::Dot(x, list()?)
        }
        7 => Step::ToYao(get_u32(input)?),
        8 => Step::ToArith(get_u32(input)?),
        9 => Step::Inject {
            bit: get_u32(input)?,
            width: get_u32(input)?,
        },
        10 => Step::Boolean {
            program: get_u32(input)?,
            args: get_wires(input)?,
        },
        t => return Err(CircuitError::Invalid(format!("bad step tag {t}"))),
    })
}

impl MixedProgram {
    /// The program's identity: SHA-256 of its binary encoding (Boolean
    /// parts included). Both parties compare it at the handshake.
    pub fn hash(&self) -> [u8; 32] {
        sha256_of(|out| write_mixed(self, out))
    }
}
