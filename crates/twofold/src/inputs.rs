//! Command-line values in, output values out.

use anyhow::{bail, Context, Result};
use serde_json::Value;
use twofold_circuit::value::{parse_int, to_hex};
use twofold_circuit::Party;
use twofold_protocol::PartyInputs;

use crate::load::{Loaded, ValueKind};

/// Whose values a command takes: everybody's (`eval`, `run --local`), one
/// party's, or any of them (`share`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Givers {
    /// All input values.
    Everyone,
    /// Any input values, each at most once; the others may be missing.
    Any,
    /// Only the values owned by this party.
    Only(Party),
}

/// Assigns `-i` arguments to input values: `NAME=VALUE` goes to the value of
/// that name; a bare `VALUE` to the next expected value in order. Returns one
/// entry per input value (`None` for values this giver does not provide).
pub fn assign(loaded: &Loaded, args: &[String], givers: Givers) -> Result<PartyInputs> {
    let values = &loaded.program.main.inputs;
    let expected: Vec<bool> = values
        .iter()
        .map(|v| {
            matches!(givers, Givers::Everyone | Givers::Any) || givers == Givers::Only(v.party)
        })
        .collect();
    let mut given: Vec<Option<Vec<bool>>> = vec![None; values.len()];
    for arg in args {
        let named = arg.split_once('=').and_then(|(name, text)| {
            values
                .iter()
                .position(|v| v.name == name.trim())
                .map(|k| (k, text))
        });
        let (k, text) = match named {
            Some((k, text)) => {
                if !expected[k] {
                    bail!(
                        "input `{}` belongs to party {}; give it on that party's side",
                        values[k].name,
                        values[k].party
                    );
                }
                if given[k].is_some() {
                    bail!("input `{}` is given twice", values[k].name);
                }
                (k, text)
            }
            None => {
                let k = (0..values.len())
                    .find(|&k| expected[k] && given[k].is_none())
                    .with_context(|| {
                        format!("`{arg}`: more input values than the program takes")
                    })?;
                (k, arg.as_str())
            }
        };
        let bits = parse_value(&loaded.input_kinds[k], text, values[k].width)
            .with_context(|| format!("input `{}`", values[k].name))?;
        given[k] = Some(bits);
    }
    let missing: Vec<String> = (0..values.len())
        .filter(|&k| expected[k] && given[k].is_none() && givers != Givers::Any)
        .map(|k| {
            format!(
                "`{}` (party {}, {} bits)",
                values[k].name, values[k].party, values[k].width
            )
        })
        .collect();
    if !missing.is_empty() {
        bail!(
            "missing input value(s): {} — give each with -i",
            missing.join(", ")
        );
    }
    Ok(given)
}

/// Splits everybody's inputs into A's and B's.
pub fn split(loaded: &Loaded, all: &PartyInputs) -> (PartyInputs, PartyInputs) {
    let pick = |party| {
        loaded
            .program
            .main
            .inputs
            .iter()
            .zip(all)
            .map(|(v, bits)| if v.party == party { bits.clone() } else { None })
            .collect()
    };
    (pick(Party::A), pick(Party::B))
}

fn parse_value(kind: &ValueKind, text: &str, width: u32) -> Result<Vec<bool>> {
    match kind {
        ValueKind::Int => Ok(parse_int(text, width)?),
        ValueKind::C(t) => t.parse_value(text).map_err(|e| anyhow::anyhow!("{e}")),
    }
}

/// Each output value's name, kind and bits, in order.
fn output_values<'a>(
    loaded: &'a Loaded,
    outputs: &'a [Vec<bool>],
) -> impl Iterator<Item = (&'a str, &'a ValueKind, &'a [bool])> {
    let values = loaded.program.main.outputs.iter();
    values
        .zip(&loaded.output_kinds)
        .zip(outputs)
        .map(|((v, kind), bits)| (v.name.as_str(), kind, bits.as_slice()))
}

/// Output values as text lines `NAME = VALUE`… in order.
pub fn format_outputs(loaded: &Loaded, outputs: &[Vec<bool>]) -> Vec<(String, String)> {
    output_values(loaded, outputs)
        .map(|(name, kind, bits)| {
            let text = match kind {
                ValueKind::Int => to_hex(bits),
                ValueKind::C(t) => t.format_value(bits),
            };
            (name.to_string(), text)
        })
        .collect()
}

/// Output values as a JSON object keyed by output name.
pub fn outputs_json(loaded: &Loaded, outputs: &[Vec<bool>]) -> Value {
    let map = output_values(loaded, outputs).map(|(name, kind, bits)| {
        let value = match kind {
            ValueKind::Int => Value::String(to_hex(bits)),
            ValueKind::C(t) => serde_json::from_str(&t.json_value(bits).to_json_string())
                .expect("the compiler writes valid JSON"),
        };
        (name.to_string(), value)
    });
    Value::Object(map.collect())
}
