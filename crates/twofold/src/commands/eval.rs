//! `twofold eval FILE -i VALUE…`: plaintext evaluation, for checking.

use anyhow::Result;
use serde::Serialize;

use super::{OutputArgs, ProgramArgs, Report};
use crate::choice::Protocol;
use crate::inputs::{assign, format_outputs, outputs_json, Givers};
use crate::load::Loaded;

/// Arguments of `eval`.
#[derive(clap::Args, Debug)]
pub struct EvalArgs {
    #[command(flatten)]
    program: ProgramArgs,
    /// An input value, `VALUE` (in order) or `NAME=VALUE`: an integer (hex
    /// 0x… or decimal) for circuits, a C initializer for C programs; VALUE
    /// `@FILE` reads it from a C-initializer, .json or .csv file.
    #[arg(short = 'i', long = "input", allow_hyphen_values = true)]
    inputs: Vec<String>,
    /// One JSON object on stdout.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    output: OutputArgs,
}

/// The outputs of a plaintext evaluation.
#[derive(Serialize)]
pub struct Evaluation {
    /// Output values keyed by name.
    outputs: serde_json::Value,
    /// The outputs as text, one line each.
    #[serde(skip)]
    lines: String,
}

impl Report for Evaluation {
    fn text(&self) -> String {
        self.lines.clone()
    }
}

/// Evaluates the program on the inputs given: its garbled circuits, or
/// with `--protocol mixed` or `auto` the mixed program chosen (the only
/// one where the garbled circuits are out of reach).
pub fn eval(args: &EvalArgs) -> Result<String> {
    let loaded = args
        .program
        .load_as(args.program.protocol.unwrap_or(Protocol::Yao))?;
    let text = evaluate(&loaded, &args.inputs)?.render(args.json)?;
    args.output.deliver(text)
}

/// Evaluates `loaded` on the values `inputs` (as given to `-i`).
pub fn evaluate(loaded: &Loaded, inputs: &[String]) -> Result<Evaluation> {
    let given = assign(loaded, inputs, Givers::Everyone)?;
    let all = |given: Vec<Option<Vec<bool>>>| -> Vec<Vec<bool>> {
        given.into_iter().map(|b| b.unwrap_or_default()).collect()
    };
    let outputs = match &loaded.mixed {
        Some(chosen) => {
            let c = &chosen.compiled;
            c.c_outputs(&c.program.eval(&all(c.mixed_inputs(&given)))?)
        }
        None => loaded.garbled()?.eval(&all(given))?,
    };
    Ok(Evaluation {
        outputs: outputs_json(loaded, &outputs),
        lines: format_outputs(loaded, &outputs)
            .into_iter()
            .map(|(_, v)| v + "\n")
            .collect(),
    })
}
