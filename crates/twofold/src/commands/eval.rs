//! `twofold eval FILE -i VALUE…`: plaintext evaluation, for checking.

use anyhow::Result;
use serde_json::json;

use crate::inputs::{assign, format_outputs, outputs_json, Givers};
use crate::load::Loaded;

/// Evaluates `loaded` on `args` and returns what to print.
pub fn eval(loaded: &Loaded, args: &[String], as_json: bool) -> Result<String> {
    let given = assign(loaded, args, Givers::Everyone)?;
    let bits: Vec<Vec<bool>> = given
        .into_iter()
        .map(|b| b.expect("all values assigned"))
        .collect();
    let outputs = loaded.program.eval(&bits)?;
    Ok(if as_json {
        json!({ "outputs": outputs_json(loaded, &outputs) }).to_string()
    } else {
        format_outputs(loaded, &outputs)
            .into_iter()
            .map(|(_, v)| v + "\n")
            .collect()
    })
}
