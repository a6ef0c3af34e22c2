//! The compact binary format of programs (`.tfc`).
//!
//! Little-endian throughout. A file is the magic `TWOFOLD\0`, a format version
//! (u32), then the program: its main circuit and its blocks. Blocks are a
//! count (u32) and each block: position (u64), iteration count (u64), a
//! parallel flag byte, shared wires, carried values (count, then `init`,
//! `next` and an optional `last` wire each), input and output wiring, and
//! its body (a circuit and its blocks, recursively). A wiring is a segment
//! count (u32) and each segment: tag 0 (affine: length, start wire, step as
//! i64) or tag 1 (table: length, wire count as u64, the wires). A circuit
//! is: wire count (u32); inputs (count, then name, party byte, width);
//! outputs (count, then name, width, wires); gate count (u64); then the
//! gates, one tag byte (0 XOR, 1 AND, 2 INV) followed by their wires as u32.
//!
//! A loop is stored once, so a file's size follows the program's source, not
//! the number of gates it runs. Readers never trust a count: lists grow as
//! data arrives, nesting is bounded, and the program is validated.

use std::io::{BufRead, Read, Write};

use sha2::{Digest, Sha256};

use crate::circuit::{Circuit, InputValue, OutputValue, Party};
use crate::gate::{Gate, Wire};
use crate::program::{Block, Body, Carried, Frame, Program, MAX_DEPTH, MAX_ITERATIONS};
use crate::wiring::{Segment, Wiring};
use crate::CircuitError;

/// File magic.
pub const MAGIC: &[u8; 8] = b"TWOFOLD\0";
/// Current format version (2: programs are block trees).
pub const VERSION: u32 = 2;

/// Longest name accepted when reading (bytes).
pub const MAX_NAME: u32 = 4096;

/// Writes a program in the binary format.
pub fn write_program(program: &Program, out: &mut impl Write) -> Result<(), CircuitError> {
    out.write_all(MAGIC)?;
    out.write_all(&VERSION.to_le_bytes())?;
    write_frame(program.frame(), out)
}

pub(crate) fn write_frame(frame: Frame<'_>, out: &mut impl Write) -> Result<(), CircuitError> {
    write_circuit(frame.circuit, out)?;
    put_u32(out, frame.blocks.len() as u32)?;
    for b in frame.blocks {
        out.write_all(&(b.position as u64).to_le_bytes())?;
        out.write_all(&b.count.to_le_bytes())?;
        out.write_all(&[b.parallel as u8])?;
        put_wires(out, &b.shared)?;
        put_u32(out, b.carried.len() as u32)?;
        for c in &b.carried {
            put_u32(out, c.init)?;
            put_u32(out, c.next)?;
            match c.last {
                Some(w) => {
                    out.write_all(&[1])?;
                    put_u32(out, w)?;
                }
                None => out.write_all(&[0])?,
            }
        }
        write_wiring(&b.inputs, out)?;
        write_wiring(&b.outputs, out)?;
        write_frame(b.frame(), out)?;
    }
    Ok(())
}

fn write_wiring(w: &Wiring, out: &mut impl Write) -> Result<(), CircuitError> {
    put_u32(out, w.segments.len() as u32)?;
    for seg in &w.segments {
        match seg {
            Segment::Affine { len, start, step } => {
                out.write_all(&[0])?;
                put_u32(out, *len)?;
                put_u32(out, *start)?;
                out.write_all(&step.to_le_bytes())?;
            }
            Segment::Ranges { len, .. } | Segment::Table { len, .. } => {
                let (listed, _) = seg.listed();
                let tag = if matches!(seg, Segment::Table { .. }) {
                    1
                } else {
                    2
                };
                out.write_all(&[tag])?;
                put_u32(out, *len)?;
                out.write_all(&(listed.len() as u64).to_le_bytes())?;
                for w in listed {
                    out.write_all(&w.to_le_bytes())?;
                }
            }
        }
    }
    Ok(())
}

/// Reads a program in the binary format, checking its structure.
pub fn read_program(input: &mut impl BufRead) -> Result<Program, CircuitError> {
    read_checked(input).map_err(truncated)
}

/// `e`, or, if the input ended early, an error saying the file is truncated
/// (rather than the I/O error's "failed to fill whole buffer").
pub fn truncated(e: CircuitError) -> CircuitError {
    match e {
        CircuitError::Io(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            CircuitError::Invalid("the file is truncated (it ends inside the program)".into())
        }
        e => e,
    }
}

fn read_checked(input: &mut impl BufRead) -> Result<Program, CircuitError> {
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
    let (main, blocks) = read_frame(input, 0)?;
    let program = Program { main, blocks };
    program.validate()?;
    Ok(program)
}

pub(crate) fn read_frame(
    input: &mut impl BufRead,
    depth: usize,
) -> Result<(Circuit, Vec<Block>), CircuitError> {
    if depth > MAX_DEPTH {
        return Err(CircuitError::Invalid(format!(
            "blocks nested more than {MAX_DEPTH} deep"
        )));
    }
    let circuit = read_circuit(input)?;
    let count = get_u32(input)?;
    let mut blocks = Vec::new();
    for _ in 0..count {
        let position = usize::try_from(get_u64(input)?)
            .map_err(|_| CircuitError::Invalid("block position out of range".into()))?;
        let count = get_u64(input)?;
        if count > MAX_ITERATIONS {
            return Err(CircuitError::Invalid(format!(
                "a block of {count} iterations: a loop may run at most {MAX_ITERATIONS}"
            )));
        }
        let parallel = match get_u8(input)? {
            0 => false,
            1 => true,
            f => return Err(CircuitError::Invalid(format!("bad block flag {f}"))),
        };
        let shared = get_wires(input)?;
        let n_carried = get_u32(input)?;
        let mut carried = Vec::new();
        for _ in 0..n_carried {
            let init = get_u32(input)?;
            let next = get_u32(input)?;
            let last = match get_u8(input)? {
                0 => None,
                1 => Some(get_u32(input)?),
                f => return Err(CircuitError::Invalid(format!("bad carried flag {f}"))),
            };
            carried.push(Carried { init, next, last });
        }
        let inputs = read_wiring(input)?;
        let outputs = read_wiring(input)?;
        let (body, nested) = read_frame(input, depth + 1)?;
        blocks.push(Block {
            position,
            count,
            parallel,
            body: Body {
                circuit: body,
                blocks: nested,
            },
            shared,
            carried,
            inputs,
            outputs,
        });
    }
    Ok((circuit, blocks))
}

fn read_wiring(input: &mut impl Read) -> Result<Wiring, CircuitError> {
    let n = get_u32(input)?;
    let mut segments = Vec::new();
    for _ in 0..n {
        segments.push(match get_u8(input)? {
            0 => Segment::Affine {
                len: get_u32(input)?,
                start: get_u32(input)?,
                step: get_u64(input)? as i64,
            },
            tag @ (1 | 2) => {
                let len = get_u32(input)?;
                let count = get_u64(input)?;
                let mut wires = Vec::with_capacity(count.min(1 << 16) as usize);
                for _ in 0..count {
                    wires.push(get_u32(input)?);
                }
                match tag {
                    1 => Segment::Table { len, wires },
                    _ => Segment::Ranges { len, starts: wires },
                }
            }
            t => return Err(CircuitError::Invalid(format!("bad wiring tag {t}"))),
        });
    }
    Ok(Wiring { segments })
}

/// Whether `bytes` start with the binary format's magic.
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// Whether `bytes`, shorter than the magic, are its start: a binary
/// program cut inside its magic.
pub fn is_cut_magic(bytes: &[u8]) -> bool {
    !bytes.is_empty() && bytes.len() < MAGIC.len() && MAGIC.starts_with(bytes)
}

fn write_circuit(c: &Circuit, out: &mut impl Write) -> Result<(), CircuitError> {
    put_u32(out, c.num_wires)?;
    put_u32(out, c.inputs.len() as u32)?;
    for v in &c.inputs {
        put_name(out, &v.name)?;
        out.write_all(&[v.party.index()])?;
        put_u32(out, v.width)?;
    }
    put_u32(out, c.outputs.len() as u32)?;
    for v in &c.outputs {
        put_name(out, &v.name)?;
        put_wires(out, &v.wires)?;
    }
    out.write_all(&(c.gates.len() as u64).to_le_bytes())?;
    let mut buf = Vec::with_capacity(AND_BYTES * 4096);
    for chunk in c.gates.chunks(4096) {
        buf.clear();
        for g in chunk {
            encode_gate(g, &mut buf);
        }
        out.write_all(&buf)?;
    }
    Ok(())
}

fn read_circuit(input: &mut impl BufRead) -> Result<Circuit, CircuitError> {
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
    let gates = read_gates(input, n_gates)?;
    // Checked as part of the whole program by `read_program`.
    Ok(Circuit {
        num_wires,
        inputs,
        outputs,
        gates,
    })
}

/// Reads `n` gates a buffer at a time (field by field, 6 M gates took
/// 0.15 s). The list grows as gates arrive, so a corrupt count cannot make
/// it allocate more than the input holds.
fn read_gates(input: &mut impl BufRead, n: u64) -> Result<Vec<Gate>, CircuitError> {
    let mut gates = Vec::new();
    let mut left = n;
    while left > 0 {
        let buf = input.fill_buf()?;
        gates.reserve((buf.len() / INV_BYTES).min(left as usize));
        let mut at = 0;
        while left > 0 {
            let Some(&tag) = buf.get(at) else { break };
            let Some(bytes) = buf.get(at..at + gate_bytes(tag)?) else {
                break;
            };
            gates.push(decode_gate(bytes));
            at += bytes.len();
            left -= 1;
        }
        if at == 0 {
            // A gate across the buffer's end, or the input's end (an error).
            gates.push(read_gate(input)?);
            left -= 1;
        } else {
            input.consume(at);
        }
    }
    Ok(gates)
}

/// Bytes of a gate with tag `tag` in the format: the tag and its wires.
fn gate_bytes(tag: u8) -> Result<usize, CircuitError> {
    match tag {
        0 | 1 => Ok(AND_BYTES),
        2 => Ok(INV_BYTES),
        t => Err(CircuitError::Invalid(format!("bad gate tag {t}"))),
    }
}

/// Bytes of an XOR or AND gate, the longest: its tag and three wires.
const AND_BYTES: usize = 13;
/// Bytes of an INV gate, the shortest: its tag and two wires.
const INV_BYTES: usize = 9;

/// The gate `bytes` encode: a valid tag and [`gate_bytes`] of it.
fn decode_gate(bytes: &[u8]) -> Gate {
    let wire = |k: usize| u32::from_le_bytes([0, 1, 2, 3].map(|i| bytes[1 + 4 * k + i]));
    match bytes[0] {
        0 => Gate::Xor {
            a: wire(0),
            b: wire(1),
            out: wire(2),
        },
        1 => Gate::And {
            a: wire(0),
            b: wire(1),
            out: wire(2),
        },
        _ => Gate::Inv {
            a: wire(0),
            out: wire(1),
        },
    }
}

/// Appends gate `g` as the format holds it: a tag byte (0 XOR, 1 AND, 2
/// INV), then its input wires and its output wire.
pub fn encode_gate(g: &Gate, buf: &mut Vec<u8>) {
    // (One record made on the stack and copied: pushing byte by byte and
    // wire by wire took most of the time of writing a large program.)
    let (tag, wires) = match *g {
        Gate::Xor { a, b, out } => (0, [a, b, out]),
        Gate::And { a, b, out } => (1, [a, b, out]),
        Gate::Inv { a, out } => (2, [a, out, 0]),
    };
    let mut record = [tag; AND_BYTES];
    for (k, w) in wires.iter().enumerate() {
        record[1 + 4 * k..5 + 4 * k].copy_from_slice(&w.to_le_bytes());
    }
    // (Copies of a constant length, not a call to copy memory.)
    match g {
        Gate::Inv { .. } => buf.extend_from_slice(&record[..INV_BYTES]),
        _ => buf.extend_from_slice(&record),
    }
}

/// Reads one gate (tag byte and wires), as [`encode_gate`] writes it.
pub fn read_gate(input: &mut impl Read) -> Result<Gate, CircuitError> {
    let mut bytes = [0u8; AND_BYTES];
    input.read_exact(&mut bytes[..1])?;
    let len = gate_bytes(bytes[0])?;
    input.read_exact(&mut bytes[1..len])?;
    Ok(decode_gate(&bytes[..len]))
}

/// Writes `v` as 4 little-endian bytes.
pub fn put_u32(out: &mut impl Write, v: u32) -> std::io::Result<()> {
    out.write_all(&v.to_le_bytes())
}

/// Writes a name: its length in bytes (u32), then its UTF-8 bytes.
pub fn put_name(out: &mut impl Write, name: &str) -> std::io::Result<()> {
    put_u32(out, name.len() as u32)?;
    out.write_all(name.as_bytes())
}

/// Writes a wire list: its length (u32), then each wire (u32).
pub fn put_wires(out: &mut impl Write, wires: &[Wire]) -> std::io::Result<()> {
    put_u32(out, wires.len() as u32)?;
    for w in wires {
        out.write_all(&w.to_le_bytes())?;
    }
    Ok(())
}

/// Reads one byte.
pub fn get_u8(input: &mut impl Read) -> std::io::Result<u8> {
    let mut b = [0u8; 1];
    input.read_exact(&mut b)?;
    Ok(b[0])
}

/// Reads 4 little-endian bytes.
pub fn get_u32(input: &mut impl Read) -> std::io::Result<u32> {
    let mut b = [0u8; 4];
    input.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

/// Reads 8 little-endian bytes.
pub fn get_u64(input: &mut impl Read) -> std::io::Result<u64> {
    let mut b = [0u8; 8];
    input.read_exact(&mut b)?;
    Ok(u64::from_le_bytes(b))
}

/// Reads a name as [`put_name`] writes it (at most 4,096 bytes of UTF-8).
pub fn get_name(input: &mut impl Read) -> Result<String, CircuitError> {
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
pub fn get_wires(input: &mut impl Read) -> Result<Vec<Wire>, CircuitError> {
    let len = get_u32(input)?;
    let mut wires = Vec::with_capacity(len.min(1 << 16) as usize);
    for _ in 0..len {
        wires.push(get_u32(input)?);
    }
    Ok(wires)
}

impl Program {
    /// The program's identity: SHA-256 of its binary encoding (which follows
    /// the program's size, not its gate count). Both parties compare it at
    /// the handshake.
    pub fn hash(&self) -> [u8; 32] {
        sha256_of(|out| write_program(self, out))
    }
}

/// SHA-256 of what `write` writes, fed straight into the hash without
/// holding the encoding.
pub(crate) fn sha256_of(
    write: impl FnOnce(&mut HashWriter) -> Result<(), CircuitError>,
) -> [u8; 32] {
    let mut hasher = HashWriter(Sha256::new());
    write(&mut hasher).expect("hashing cannot fail");
    hasher.0.finalize().into()
}

/// A writer into SHA-256.
pub(crate) struct HashWriter(Sha256);

impl std::io::Write for HashWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
