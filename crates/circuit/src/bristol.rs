//! Bristol Fashion (and the older Bristol format): reading and writing.
//!
//! Bit order: input value `k` occupies the next `width_k` wires; wire `j` of a
//! value is bit `j` of the integer (wire 0 = least significant bit). Outputs are
//! the last wires of the file, value after value, least significant bit first.
//! By default the first input value belongs to party A and the others to B.
//!
//! `EQW` (copy) becomes two INV gates, `EQ` (constant) is built from the first
//! input wire (`x ^ x`, then INV for 1), `MAND` becomes one AND per pair,
//! and `OR` (which HyCC's circuits have) `(a ^ b) ^ (a & b)`.

use std::io::Write;

use crate::circuit::{Circuit, InputValue, OutputValue, Party, MAX_WIRES};
use crate::gate::{Gate, Wire};
use crate::CircuitError;

/// Reads a Bristol Fashion or old-style Bristol circuit from text. `file` names
/// the source in error messages (`file:line: message`).
pub fn read_bristol(text: &str, file: &str) -> Result<Circuit, CircuitError> {
    Parser::new(text, file).parse()
}

/// Reads a Bristol circuit from a file on disk.
pub fn read_bristol_file(path: &std::path::Path) -> Result<Circuit, CircuitError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CircuitError::Invalid(format!("{}: {e}", path.display())))?;
    read_bristol(&text, &path.display().to_string())
}

struct Parser<'t> {
    lines: std::iter::Peekable<std::iter::Enumerate<std::str::Lines<'t>>>,
    file: &'t str,
    line: usize,
    /// The length of the text (bytes).
    size: usize,
}

impl<'t> Parser<'t> {
    fn new(text: &'t str, file: &'t str) -> Self {
        Parser {
            lines: text.lines().enumerate().peekable(),
            file,
            line: 0,
            size: text.len(),
        }
    }

    fn error(&self, message: impl Into<String>) -> CircuitError {
        CircuitError::Parse {
            file: self.file.to_string(),
            line: self.line,
            message: message.into(),
        }
    }

    /// The next non-blank line, split into tokens.
    fn next_tokens(&mut self) -> Option<Vec<&'t str>> {
        for (i, line) in self.lines.by_ref() {
            let tokens: Vec<&str> = line.split_whitespace().collect();
            if !tokens.is_empty() {
                self.line = i + 1;
                return Some(tokens);
            }
        }
        None
    }

    /// Whether the next non-blank line is a gate (ends with an operation name).
    fn next_is_gate(&mut self) -> bool {
        while let Some((_, line)) = self.lines.peek() {
            match line.split_whitespace().last() {
                None => {
                    self.lines.next();
                }
                Some(last) => return last.chars().all(|c| c.is_ascii_alphabetic()),
            }
        }
        true
    }

    fn number(&self, token: &str, what: &str) -> Result<u64, CircuitError> {
        token
            .parse::<u64>()
            .map_err(|_| self.error(format!("expected {what}, found `{token}`")))
    }

    fn numbers(&self, tokens: &[&str], what: &str) -> Result<Vec<u64>, CircuitError> {
        tokens.iter().map(|t| self.number(t, what)).collect()
    }

    fn parse(mut self) -> Result<Circuit, CircuitError> {
        let header = self.next_tokens().ok_or_else(|| self.error("empty file"))?;
        if header.len() != 2 {
            return Err(self.error("expected `ngates nwires`"));
        }
        let num_gates = self.number(header[0], "the gate count")?;
        let num_wires = self.number(header[1], "the wire count")?;
        if num_wires > MAX_WIRES as u64 {
            return Err(self.error(format!(
                "{num_wires} wires is more than supported ({MAX_WIRES})"
            )));
        }
        let line2 = self
            .next_tokens()
            .ok_or_else(|| self.error("missing input line"))?;
        let line2 = self.numbers(&line2, "an input width")?;
        // Old format: `n1 n2 nout` followed directly by gates; Fashion:
        // `niv w1 .. wn` then `nov m1 .. mn`.
        let (input_widths, output_widths) = if line2.len() == 3 && self.next_is_gate() {
            (vec![line2[0], line2[1]], vec![line2[2]])
        } else {
            let niv = line2[0];
            if niv.checked_add(1) != Some(line2.len() as u64) {
                return Err(self.error(format!(
                    "{niv} input values announced, {} widths given",
                    line2.len() - 1
                )));
            }
            let line3 = self
                .next_tokens()
                .ok_or_else(|| self.error("missing output line"))?;
            let line3 = self.numbers(&line3, "an output width")?;
            let nov = line3[0];
            if nov.checked_add(1) != Some(line3.len() as u64) {
                return Err(self.error(format!(
                    "{nov} output values announced, {} widths given",
                    line3.len() - 1
                )));
            }
            (line2[1..].to_vec(), line3[1..].to_vec())
        };
        let sum = |widths: &[u64]| widths.iter().try_fold(0u64, |a, &w| a.checked_add(w));
        let (Some(input_bits), Some(output_bits)) = (sum(&input_widths), sum(&output_widths))
        else {
            return Err(self.error("more input or output bits than wires"));
        };
        if input_bits > num_wires || output_bits > num_wires {
            return Err(self.error("more input or output bits than wires"));
        }
        // Every wire but the inputs is written by a gate of the file, and
        // each gate takes a line: a header cannot ask for more.
        if num_wires - input_bits > self.size as u64 || num_gates > self.size as u64 {
            return Err(self.error(format!(
                "{num_gates} gates and {num_wires} wires cannot fit in a file of {} bytes",
                self.size
            )));
        }
        let mut builder = GateList {
            gates: Vec::new(),
            defined: vec![false; num_wires as usize],
            num_wires: num_wires as Wire,
            extra: num_wires as Wire,
        };
        builder.defined[..input_bits as usize].fill(true);
        let mut gates_read = 0u64;
        while let Some(tokens) = self.next_tokens() {
            gates_read += 1;
            if gates_read > num_gates {
                return Err(self.error(format!("more gates than the {num_gates} announced")));
            }
            self.gate(&tokens, &mut builder, input_bits)?;
        }
        if gates_read != num_gates {
            return Err(self.error(format!("{num_gates} gates announced, {gates_read} found")));
        }
        let first_output = num_wires - output_bits;
        let mut outputs = Vec::new();
        let mut at = first_output;
        for (k, &w) in output_widths.iter().enumerate() {
            let wires: Vec<Wire> = (at..at + w).map(|x| x as Wire).collect();
            if let Some(&missing) = wires.iter().find(|&&x| !builder.defined[x as usize]) {
                return Err(self.error(format!("output wire {missing} is never written")));
            }
            outputs.push(OutputValue {
                name: k.to_string(),
                wires,
            });
            at += w;
        }
        let inputs = input_widths
            .iter()
            .enumerate()
            .map(|(k, &w)| InputValue {
                name: k.to_string(),
                party: if k == 0 { Party::A } else { Party::B },
                width: w as u32,
            })
            .collect();
        Ok(Circuit {
            num_wires: builder.extra,
            inputs,
            outputs,
            gates: builder.gates,
        })
    }

    fn gate(&self, t: &[&str], list: &mut GateList, input_bits: u64) -> Result<(), CircuitError> {
        if t.len() < 3 {
            return Err(self.error("a gate line needs `nin nout wires... OP`"));
        }
        let op = t[t.len() - 1];
        let nin = self.number(t[0], "the gate's input count")?;
        let nout = self.number(t[1], "the gate's output count")?;
        if nin.checked_add(nout).and_then(|n| n.checked_add(3)) != Some(t.len() as u64) {
            return Err(self.error(format!(
                "{op} gate: {nin} inputs and {nout} outputs announced, {} wires given",
                t.len() - 3
            )));
        }
        // Both fit in the line's length now.
        let (nin, nout) = (nin as usize, nout as usize);
        let arity = |want_in: usize, want_out: usize| {
            if nin == want_in && nout == want_out {
                Ok(())
            } else {
                Err(self.error(format!(
                    "{op} takes {want_in} input(s) and {want_out} output(s)"
                )))
            }
        };
        let wires = &t[2..2 + nin + nout];
        let num_wires = list.num_wires;
        let wire = |i: usize| -> Result<Wire, CircuitError> {
            let w = self.number(wires[i], "a wire number")?;
            if w >= num_wires as u64 {
                return Err(self.error(format!("wire {w} out of range (wires: {num_wires})")));
            }
            Ok(w as Wire)
        };
        let read = |i: usize, list: &GateList| -> Result<Wire, CircuitError> {
            let w = wire(i)?;
            if !list.defined[w as usize] {
                return Err(self.error(format!("wire {w} is read before it is written")));
            }
            Ok(w)
        };
        match op {
            "XOR" | "AND" => {
                arity(2, 1)?;
                let (a, b, out) = (read(0, list)?, read(1, list)?, wire(2)?);
                list.push(if op == "XOR" {
                    Gate::Xor { a, b, out }
                } else {
                    Gate::And { a, b, out }
                });
            }
            "OR" => {
                // a | b = (a ^ b) ^ (a & b): one AND gate.
                arity(2, 1)?;
                let (a, b, out) = (read(0, list)?, read(1, list)?, wire(2)?);
                let mut temporary = || list.temporary().ok_or_else(|| self.error("too many wires"));
                let (either, both) = (temporary()?, temporary()?);
                list.push(Gate::Xor { a, b, out: either });
                list.push(Gate::And { a, b, out: both });
                list.push(Gate::Xor {
                    a: either,
                    b: both,
                    out,
                });
            }
            "INV" | "NOT" => {
                arity(1, 1)?;
                let (a, out) = (read(0, list)?, wire(1)?);
                list.push(Gate::Inv { a, out });
            }
            "EQW" => {
                arity(1, 1)?;
                let (a, out) = (read(0, list)?, wire(1)?);
                let tmp = list
                    .temporary()
                    .ok_or_else(|| self.error("too many wires"))?;
                list.push(Gate::Inv { a, out: tmp });
                list.push(Gate::Inv { a: tmp, out });
            }
            "EQ" => {
                arity(1, 1)?;
                let value = match wires[0] {
                    "0" => false,
                    "1" => true,
                    other => {
                        return Err(
                            self.error(format!("EQ constant must be 0 or 1, found `{other}`"))
                        )
                    }
                };
                let out = wire(1)?;
                if input_bits == 0 {
                    return Err(self.error("EQ needs at least one input wire to build a constant"));
                }
                if value {
                    let zero = list
                        .temporary()
                        .ok_or_else(|| self.error("too many wires"))?;
                    list.push(Gate::Xor {
                        a: 0,
                        b: 0,
                        out: zero,
                    });
                    list.push(Gate::Inv { a: zero, out });
                } else {
                    list.push(Gate::Xor { a: 0, b: 0, out });
                }
            }
            "MAND" => {
                if nin != 2 * nout || nout == 0 {
                    return Err(self.error("MAND takes 2n inputs and n outputs"));
                }
                let ins: Vec<Wire> = (0..nin).map(|i| read(i, list)).collect::<Result<_, _>>()?;
                for k in 0..nout {
                    let out = wire(nin + k)?;
                    list.push(Gate::And {
                        a: ins[k],
                        b: ins[nout + k],
                        out,
                    });
                }
            }
            other => return Err(self.error(format!("unknown gate `{other}`"))),
        }
        Ok(())
    }
}

/// Gates read so far, which wires hold a value, and temporaries beyond the
/// file's own wires.
struct GateList {
    gates: Vec<Gate>,
    defined: Vec<bool>,
    num_wires: Wire,
    extra: Wire,
}

impl GateList {
    fn push(&mut self, g: Gate) {
        self.defined[g.out() as usize] = true;
        self.gates.push(g);
    }

    /// A new wire beyond the file's (`None` past [`MAX_WIRES`]).
    fn temporary(&mut self) -> Option<Wire> {
        if self.extra >= MAX_WIRES {
            return None;
        }
        self.defined.push(false);
        self.extra += 1;
        Some(self.extra - 1)
    }
}

/// Writes `circuit` in Bristol Fashion: single assignment, inputs first,
/// outputs as the last wires (an output that is an input or repeats another
/// output is copied with `EQW`).
pub fn write_bristol(circuit: &Circuit, out: &mut impl Write) -> Result<(), CircuitError> {
    let ssa = circuit.ssa();
    let input_bits = ssa.input_bits() as Wire;
    let output_wires: Vec<Wire> = ssa.output_wires().collect();
    let n_out = output_wires.len() as Wire;
    // The gate writing each output bit writes straight into its output slot
    // when it is the first use of that value; the rest are copied.
    let mut number = vec![Wire::MAX; ssa.num_wires as usize];
    for w in 0..input_bits {
        number[w as usize] = w;
    }
    let mut copies = Vec::new();
    let internal = ssa.gates.len() as Wire;
    let first_output = input_bits + internal;
    for (k, &w) in output_wires.iter().enumerate() {
        let slot = first_output + k as Wire;
        if w >= input_bits && number[w as usize] == Wire::MAX {
            number[w as usize] = slot;
        } else {
            copies.push((w, slot));
        }
    }
    let mut next = input_bits;
    for g in &ssa.gates {
        if number[g.out() as usize] == Wire::MAX {
            number[g.out() as usize] = next;
            next += 1;
        }
    }
    // Internal numbering leaves holes where gates write outputs; close them by
    // moving the output block down.
    let shift = first_output - next;
    let renumber = |w: Wire| {
        let n = number[w as usize];
        if n >= first_output {
            n - shift
        } else {
            n
        }
    };
    let num_wires = next + n_out;
    let num_gates = ssa.gates.len() + copies.len();
    write_header(out, num_gates as u64, u64::from(num_wires), &ssa)?;
    for g in &ssa.gates {
        write_gate(out, &g.rewire(renumber, renumber(g.out())))?;
    }
    for (w, slot) in copies {
        writeln!(out, "1 1 {} {} EQW", renumber(w), slot - shift)?;
    }
    Ok(())
}

/// Writes a Bristol Fashion header: gate and wire counts, then the widths
/// of `circuit`'s input and output values.
fn write_header(
    out: &mut impl Write,
    num_gates: u64,
    num_wires: u64,
    circuit: &Circuit,
) -> std::io::Result<()> {
    writeln!(out, "{num_gates} {num_wires}")?;
    write!(out, "{}", circuit.inputs.len())?;
    for v in &circuit.inputs {
        write!(out, " {}", v.width)?;
    }
    writeln!(out)?;
    write!(out, "{}", circuit.outputs.len())?;
    for v in &circuit.outputs {
        write!(out, " {}", v.wires.len())?;
    }
    writeln!(out)?;
    writeln!(out)
}

/// Writes one gate as a Bristol Fashion line.
fn write_gate(out: &mut impl Write, g: &Gate) -> std::io::Result<()> {
    match *g {
        Gate::Xor { a, b, out: o } => writeln!(out, "2 1 {a} {b} {o} XOR"),
        Gate::And { a, b, out: o } => writeln!(out, "2 1 {a} {b} {o} AND"),
        Gate::Inv { a, out: o } => writeln!(out, "1 1 {a} {o} INV"),
    }
}

/// Writes `program` in Bristol Fashion with every block unrolled (regions
/// and loops expanded: the gates it executes, in the order it executes
/// them), streaming: each gate is written as the program is walked, so
/// memory follows the program, not its unrolled size.
///
/// The file has the program's input and output values with their widths
/// (bit `k` of a value is its wire `k`), every gate a fresh wire in
/// execution order, and only `XOR`, `AND` and `INV` gates, which every
/// Bristol reader knows (EMP takes any one-input gate for `INV`): each
/// output bit is copied into its final wire (the last wires of the file)
/// by two `INV` gates. Returns the number of gates written.
pub fn write_bristol_program(
    program: &crate::Program,
    out: &mut impl Write,
) -> Result<u64, CircuitError> {
    let main = &program.main;
    let inputs = main.input_bits() as u64;
    let outputs = main.output_bits() as u64;
    let executed = program.counts().gates;
    let num_gates = executed.saturating_add(2 * outputs);
    let num_wires = inputs.saturating_add(num_gates);
    if num_wires > u64::from(Wire::MAX) {
        return Err(CircuitError::Invalid(format!(
            "{executed} gates unrolled: too many wires for a Bristol file (at most {})",
            Wire::MAX
        )));
    }
    write_header(out, num_gates, num_wires, main)?;
    let mut stream = GateStream {
        out,
        next: inputs as Wire,
    };
    let wires: Vec<Wire> = (0..inputs as Wire).collect();
    let result = program.run(&mut stream, &wires)?;
    let written = u64::from(stream.next) - inputs;
    if written != executed {
        return Err(CircuitError::Invalid(format!(
            "the program ran {written} gates, not the {executed} it counts"
        )));
    }
    let first_temporary = stream.next;
    let first_output = first_temporary + outputs as Wire;
    for (k, &w) in result.iter().enumerate() {
        let temporary = first_temporary + k as Wire;
        write_gate(
            stream.out,
            &Gate::Inv {
                a: w,
                out: temporary,
            },
        )?;
    }
    for k in 0..outputs as Wire {
        let inv = Gate::Inv {
            a: first_temporary + k,
            out: first_output + k,
        };
        write_gate(stream.out, &inv)?;
    }
    Ok(num_gates)
}

/// A walker engine that writes each gate it is given as a Bristol line, its
/// output on a fresh wire (its labels are the file's wires).
struct GateStream<'w, W: Write> {
    out: &'w mut W,
    next: Wire,
}

impl<W: Write> crate::walk::Engine for GateStream<'_, W> {
    type Label = Wire;
    type Error = std::io::Error;
    fn run_gates(
        &mut self,
        batch: crate::walk::Batch<'_>,
        labels: &mut [Wire],
    ) -> std::io::Result<()> {
        for g in batch.gates() {
            let fresh = g.rewire(|w| labels[w as usize], self.next);
            write_gate(self.out, &fresh)?;
            labels[g.out() as usize] = self.next;
            self.next += 1;
        }
        Ok(())
    }
    fn skip_ands(&mut self, _: u64) {}
}
