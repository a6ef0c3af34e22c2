//! `twofold compile FILE -o OUT`: a program (e.g. compiled from C) in
//! twofold's binary format, so that both parties load it without compiling,
//! or (`--format bristol`) unrolled into a Bristol Fashion circuit for other
//! frameworks (EMP, MP-SPDZ, mpz, swanky).

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};

use super::ProgramArgs;

/// The file formats `compile` writes.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// twofold's binary program, ready to run: loops and regions kept,
    /// small, loads fast.
    #[default]
    Twofold,
    /// Bristol Fashion text: every loop and region unrolled, XOR/AND/INV gates.
    Bristol,
}

/// Arguments of `compile`.
#[derive(clap::Args, Debug)]
pub struct CompileArgs {
    #[command(flatten)]
    program: ProgramArgs,
    /// The file to write.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: PathBuf,
    /// What to write: twofold's binary program or a Bristol Fashion circuit.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// Writes the program; returns a line on what was written.
pub fn compile(args: &CompileArgs) -> Result<String> {
    let program = args.program.load()?.program;
    let and_gates = program.and_count();
    let output = &args.output;
    let cannot = || format!("cannot write {}", output.display());
    let file = std::fs::File::create(output).with_context(cannot)?;
    let mut out = std::io::BufWriter::new(file);
    let summary = match args.format {
        Format::Twofold => {
            // Ready to run, so that `run` need not prepare it again.
            let prepared = twofold_circuit::prepare::into_prepared(program);
            twofold_circuit::binary::write_program(&prepared, &mut out).with_context(cannot)?;
            let regions = prepared.parallel_blocks().count();
            let loops = prepared.blocks.len() - regions;
            format!("{regions} regions, {loops} loops")
        }
        Format::Bristol => {
            let gates = twofold_circuit::bristol::write_bristol_program(&program, &mut out)
                .with_context(cannot)?;
            format!("{gates} gates in Bristol Fashion")
        }
    };
    out.flush().with_context(cannot)?;
    Ok(format!(
        "{}: {} AND gates, {summary}\n",
        output.display(),
        and_gates,
    ))
}
