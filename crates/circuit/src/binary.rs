//! The compact binary format of circuits and programs (`.tfc`).
//!
//! Little-endian throughout. A file is the magic `TWOFOLD\0`, a format version
//! (u32), then a program: the main circuit, the region count (u32) and each
//! region (position u64, shared wires, instances, body circuit). A circuit is:
//! wire count (u32); inputs (count, then name, party byte, width); outputs
//! (count, then name, width, wires); gate count (u64); then the gates, one tag
//! byte (0 XOR, 1 AND, 2 INV) followed by their wires as u32 — last, so a
//! reader can stream them without holding the whole list.

use std::io::{Read, Write};

use crate::circuit::{Circuit, InputValue, OutputValue, Party};
use crate::gate::{Gate, Wire};
use crate::program::{Program, Region, RegionInstance};
use crate::CircuitError;

/// File magic.
pub const MAGIC: &[u8; 8] = b"TWOFOLD\0";
/// Current format version.
pub const VERSION: u32 = 1;

/// Longest name accepted when reading (bytes).
const MAX_NAME: u32 = 4096;

/// Writes a program in the binary format.
pub fn write_program(program: &Program, out: &mut impl Write) -> Result<(), CircuitError> {
    out.write_all(MAGIC)?;
    out.write_all(&VERSION.to_le_bytes())?;
    write_circuit(&program.main, out)?;
    put_u32(out, program.regions.len() as u32)?;
    for r in &program.regions {
        out.write_all(&(r.position as u64).to_le_bytes())?;
        put_wires(out, &r.shared)?;
        put_u32(out, r.instances.len() as u32)?;
        for inst in &r.instances {
            put_wires(out, &inst.inputs)?;
            put_wires(out, &inst.outputs)?;
        }
        write_circuit(&r.body, out)?;
    }
    Ok(())
}

/// Reads a program in the binary format, checking its structure.
pub fn read_program(input: &mut impl Read) -> Result<Program, CircuitError> {
    let mut magic = [0u8; 8];
    input.read_exact(&mut magic)?;
    if &magic != MAGIC {
        return Err(CircuitError::Invalid(
            "not a twofold binary circuit (bad magic)".into(),
        ));
    }
    let version = get_u32(input)?;
    if version != VERSION {
        return Err(CircuitError::Invalid(format!(
            "binary circuit version {version}, this twofold reads version {VERSION}"
        )));
    }
    let main = read_circuit(input)?;
    let count = get_u32(input)?;
    let mut regions = Vec::new();
    for _ in 0..count {
        let position = get_u64(input)? as usize;
        let shared = get_wires(input)?;
        let instances_count = get_u32(input)?;
        let mut instances = Vec::new();
        for _ in 0..instances_count {
            instances.push(RegionInstance {
                inputs: get_wires(input)?,
                outputs: get_wires(input)?,
            });
        }
        let body = read_circuit(input)?;
        regions.push(Region {
            body,
            position,
            shared,
            instances,
        });
    }
    let program = Program { main, regions };
    program.validate()?;
    Ok(program)
}

/// Whether `bytes` start with the binary format's magic.
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

fn write_circuit(c: &Circuit, out: &mut impl Write) -> Result<(), CircuitError> {
    put_u32(out, c.num_wires)?;
    put_u32(out, c.inputs.len() as u32)?;
    for v in &c.inputs {
        put_name(out, &v.name)?;
        out.write_all(&[match v.party {
            Party::A => 0,
            Party::B => 1,
        }])?;
        put_u32(out, v.width)?;
    }
    put_u32(out, c.outputs.len() as u32)?;
    for v in &c.outputs {
        put_name(out, &v.name)?;
        put_wires(out, &v.wires)?;
    }
    out.write_all(&(c.gates.len() as u64).to_le_bytes())?;
    let mut buf = Vec::with_capacity(13 * 4096);
    for chunk in c.gates.chunks(4096) {
        buf.clear();
        for g in chunk {
            match *g {
                Gate::Xor { a, b, out } | Gate::And { a, b, out } => {
                    buf.push(if g.is_and() { 1 } else { 0 });
                    for w in [a, b, out] {
                        buf.extend_from_slice(&w.to_le_bytes());
                    }
                }
                Gate::Inv { a, out } => {
                    buf.push(2);
                    buf.extend_from_slice(&a.to_le_bytes());
                    buf.extend_from_slice(&out.to_le_bytes());
                }
            }
        }
        out.write_all(&buf)?;
    }
    Ok(())
}

fn read_circuit(input: &mut impl Read) -> Result<Circuit, CircuitError> {
    let num_wires = get_u32(input)?;
    let n_inputs = get_u32(input)?;
    let mut inputs = Vec::new();
    for _ in 0..n_inputs {
        let name = get_name(input)?;
        let mut party = [0u8];
        input.read_exact(&mut party)?;
        let party = match party[0] {
            0 => Party::A,
            1 => Party::B,
            p => return Err(CircuitError::Invalid(format!("bad party byte {p}"))),
        };
        inputs.push(InputValue {
            name,
            party,
            width: get_u32(input)?,
        });
    }
    let n_outputs = get_u32(input)?;
    let mut outputs = Vec::new();
    for _ in 0..n_outputs {
        outputs.push(OutputValue {
            name: get_name(input)?,
            wires: get_wires(input)?,
        });
    }
    let n_gates = get_u64(input)?;
    let mut gates = Vec::new();
    for _ in 0..n_gates {
        gates.push(read_gate(input)?);
    }
    // Checked as part of the whole program by `read_program`.
    Ok(Circuit {
        num_wires,
        inputs,
        outputs,
        gates,
    })
}

/// Reads one gate (tag byte and wires).
pub fn read_gate(input: &mut impl Read) -> Result<Gate, CircuitError> {
    let mut tag = [0u8];
    input.read_exact(&mut tag)?;
    Ok(match tag[0] {
        0 => Gate::Xor {
            a: get_u32(input)?,
            b: get_u32(input)?,
            out: get_u32(input)?,
        },
        1 => Gate::And {
            a: get_u32(input)?,
            b: get_u32(input)?,
            out: get_u32(input)?,
        },
        2 => Gate::Inv {
            a: get_u32(input)?,
            out: get_u32(input)?,
        },
        t => return Err(CircuitError::Invalid(format!("bad gate tag {t}"))),
    })
}

fn put_u32(out: &mut impl Write, v: u32) -> std::io::Result<()> {
    out.write_all(&v.to_le_bytes())
}

fn put_name(out: &mut impl Write, name: &str) -> std::io::Result<()> {
    put_u32(out, name.len() as u32)?;
    out.write_all(name.as_bytes())
}

fn put_wires(out: &mut impl Write, wires: &[Wire]) -> std::io::Result<()> {
    put_u32(out, wires.len() as u32)?;
    for w in wires {
        out.write_all(&w.to_le_bytes())?;
    }
    Ok(())
}

fn get_u32(input: &mut impl Read) -> std::io::Result<u32> {
    let mut b = [0u8; 4];
    input.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

fn get_u64(input: &mut impl Read) -> std::io::Result<u64> {
    let mut b = [0u8; 8];
    input.read_exact(&mut b)?;
    Ok(u64::from_le_bytes(b))
}

fn get_name(input: &mut impl Read) -> Result<String, CircuitError> {
    let len = get_u32(input)?;
    if len > MAX_NAME {
        return Err(CircuitError::Invalid(format!(
            "name of {len} bytes is too long"
        )));
    }
    let mut bytes = vec![0u8; len as usize];
    input.read_exact(&mut bytes)?;
    String::from_utf8(bytes).map_err(|_| CircuitError::Invalid("name is not UTF-8".into()))
}

/// Reads a wire list, growing the vector as data arrives (a corrupt count
/// cannot make it allocate more than the input holds).
fn get_wires(input: &mut impl Read) -> Result<Vec<Wire>, CircuitError> {
    let len = get_u32(input)?;
    let mut wires = Vec::with_capacity(len.min(1 << 16) as usize);
    for _ in 0..len {
        wires.push(get_u32(input)?);
    }
    Ok(wires)
}
