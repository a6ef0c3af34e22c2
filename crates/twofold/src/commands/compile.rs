//! `twofold compile FILE -o OUT`: a program (e.g. compiled from C) in
//! twofold's binary format, so that both parties load it without compiling.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};

use super::ProgramArgs;

/// Arguments of `compile`.
#[derive(clap::Args, Debug)]
pub struct CompileArgs {
    #[command(flatten)]
    program: ProgramArgs,
    /// The binary program to write.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: PathBuf,
}

/// Writes the program; returns a line on what was written.
pub fn compile(args: &CompileArgs) -> Result<String> {
    let loaded = args.program.load()?;
    let output = &args.output;
    let file = std::fs::File::create(output)
        .with_context(|| format!("cannot write {}", output.display()))?;
    let mut out = std::io::BufWriter::new(file);
    twofold_circuit::binary::write_program(&loaded.program, &mut out)?;
    out.flush()
        .with_context(|| format!("cannot write {}", output.display()))?;
    let blocks = loaded.program.blocks.len();
    let regions = loaded.program.parallel_blocks().count();
    Ok(format!(
        "{}: {} AND gates, {} regions, {} loops\n",
        output.display(),
        loaded.program.and_count(),
        regions,
        blocks - regions
    ))
}
