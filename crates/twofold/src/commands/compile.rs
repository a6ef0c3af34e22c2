//! `twofold compile FILE -o OUT`: a program (e.g. compiled from C) in
//! twofold's binary format, so that both parties load it without compiling
//! (from C, with its C values, see `twofold_compiler::signature`; a mixed
//! program with its C interface, see `twofold_compiler::mixed::file`), or
//! (`--format bristol`) unrolled into a Bristol Fashion circuit for other
//! frameworks (EMP, MP-SPDZ, mpz, swanky).

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use twofold_compiler::mixed::file::write_compiled;
use twofold_compiler::signature::{write_signature, Signature};

use super::ProgramArgs;
use crate::choice::Protocol;
use crate::files;
use crate::load::{Loaded, ValueKind};

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
    let loaded = args
        .program
        .load_as(args.program.protocol.unwrap_or(Protocol::Yao))?;
    let output = &args.output;
    let cannot = || format!("cannot write {}", output.display());
    if let Some(chosen) = loaded.mixed {
        if args.format == Format::Bristol {
            bail!("a mixed program has no Bristol form: compile with --protocol yao");
        }
        let mixed = &chosen.compiled.program;
        files::write_atomically_with(output, |out| {
            write_compiled(&chosen.compiled, out).with_context(cannot)
        })?;
        return Ok(format!(
            "{}: mixed program, {} sums of products in arithmetic sharing, {} Boolean programs ({} AND gates; {} gates made)\n",
            output.display(),
            chosen.compiled.arithmetic_sums,
            mixed.programs.len(),
            mixed.programs.iter().map(|p| p.and_count()).sum::<u64>(),
            chosen.compiled.built_gates,
        ));
    }
    let signature = c_signature(&loaded);
    let program = loaded.into_garbled()?;
    let and_gates = program.and_count();
    // (Written to a file of its own first: a failed write leaves the old.)
    let summary = files::write_atomically_with(output, |out| {
        Ok(match args.format {
            Format::Twofold => {
                // Ready to run, so that `run` need not prepare it again.
                let prepared = twofold_circuit::prepare::into_prepared(program);
                twofold_circuit::binary::write_program(&prepared, out).with_context(cannot)?;
                if let Some(signature) = &signature {
                    write_signature(signature, out).with_context(cannot)?;
                }
                let regions = prepared.parallel_blocks().count();
                let loops = prepared.blocks.len() - regions;
                format!("{regions} regions, {loops} loops")
            }
            Format::Bristol => {
                let gates = twofold_circuit::bristol::write_bristol_program(&program, out)
                    .with_context(cannot)?;
                format!("{gates} gates in Bristol Fashion")
            }
        })
    })?;
    Ok(format!(
        "{}: {} AND gates, {summary}\n",
        output.display(),
        and_gates,
    ))
}

/// A C program's values (name and C type of each input and output), for
/// the file, so that a run from it reads and shows them as from the
/// source; `None` for a circuit.
fn c_signature(loaded: &Loaded) -> Option<Signature> {
    if !loaded.compiled {
        return None;
    }
    let c_values = |names: Vec<&String>, kinds: &[ValueKind]| {
        let values = names.into_iter().zip(kinds);
        values
            .map(|(name, kind)| match kind {
                ValueKind::C(t) => Some((name.clone(), t.clone())),
                ValueKind::Int => None,
            })
            .collect::<Option<Vec<_>>>()
    };
    Some(Signature {
        inputs: c_values(
            loaded.inputs.iter().map(|v| &v.name).collect(),
            &loaded.input_kinds,
        )?,
        outputs: c_values(
            loaded.outputs.iter().map(|(name, _)| name).collect(),
            &loaded.output_kinds,
        )?,
    })
}
