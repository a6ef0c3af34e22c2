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

/// An input value as given: for a named input or (without a name) the
/// next expected one in order, and how to read its bits.
pub trait GivenValue {
    /// The name of the input it is for, if it names one.
    fn name(&self) -> Option<&str>;
    /// How it is shown in an error (clipped).
    fn shown(&self) -> String;
    /// Its bits as a value of `kind` (`width` bits).
    fn bits(&self, kind: &ValueKind, width: u32) -> Result<Vec<bool>>;
}

/// A `-i` argument: `NAME=VALUE` or a bare `VALUE` (`@FILE` reads it from
/// FILE, see [`crate::infile`]).
impl GivenValue for String {
    fn name(&self) -> Option<&str> {
        named(self).map(|(name, _)| name)
    }

    fn shown(&self) -> String {
        crate::files::clip(self)
    }

    fn bits(&self, kind: &ValueKind, width: u32) -> Result<Vec<bool>> {
        let text = named(self).map_or(self.as_str(), |(_, text)| text);
        parse_value(kind, text, width)
    }
}

/// A named input's value as JSON (numbers, nested arrays, objects for
/// structs), read as a `.json` input file is (see
/// [`crate::infile::read_json_value`]).
pub struct JsonInput<'a> {
    /// The input's name.
    pub name: &'a str,
    /// Its value.
    pub value: &'a Value,
}

impl GivenValue for JsonInput<'_> {
    fn name(&self) -> Option<&str> {
        Some(self.name)
    }

    fn shown(&self) -> String {
        crate::files::clip(&self.value.to_string())
    }

    fn bits(&self, kind: &ValueKind, width: u32) -> Result<Vec<bool>> {
        crate::infile::read_json_value(kind, width, self.value)
    }
}

/// Assigns `-i` arguments to input values: `NAME=VALUE` goes to the value of
/// that name; a bare `VALUE` to the next expected value in order. A VALUE
/// `@FILE` is read from FILE (see [`crate::infile`]). Returns one entry per
/// input value (`None` for values this giver does not provide).
pub fn assign(loaded: &Loaded, args: &[String], givers: Givers) -> Result<PartyInputs> {
    assign_given(loaded, args, givers)
}

/// Assigns given values to input values as [`assign`] does, whatever form
/// they come in (see [`GivenValue`]).
pub fn assign_given<G: GivenValue>(
    loaded: &Loaded,
    args: &[G],
    givers: Givers,
) -> Result<PartyInputs> {
    let values = &loaded.inputs;
    let expected: Vec<bool> = values
        .iter()
        .map(|v| {
            matches!(givers, Givers::Everyone | Givers::Any) || givers == Givers::Only(v.party)
        })
        .collect();
    let mut given: Vec<Option<Vec<bool>>> = vec![None; values.len()];
    for arg in args {
        let k = match arg.name() {
            Some(name) => {
                let k = values
                    .iter()
                    .position(|v| v.name == name)
                    .with_context(|| unknown_name(loaded, name))?;
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
                k
            }
            None => (0..values.len())
                .find(|&k| expected[k] && given[k].is_none())
                .with_context(|| {
                    let all: Vec<usize> = (0..values.len()).filter(|&k| expected[k]).collect();
                    format!(
                        "`{}`: more input values than the program takes; it takes {}:\n{}",
                        arg.shown(),
                        all.len(),
                        describe(loaded, &all)
                    )
                })?,
        };
        let bits = arg
            .bits(&loaded.input_kinds[k], values[k].width)
            .with_context(|| format!("input `{}`", values[k].name))?;
        given[k] = Some(bits);
    }
    let missing: Vec<usize> = (0..values.len())
        .filter(|&k| expected[k] && given[k].is_none() && givers != Givers::Any)
        .collect();
    if !missing.is_empty() {
        bail!(
            "missing input value(s); give each with -i NAME=VALUE (or in this order):\n{}",
            describe(loaded, &missing)
        );
    }
    Ok(given)
}

/// `NAME` and `VALUE` of a `NAME=VALUE` argument (NAME letters, digits and
/// `_`), or `None` for a bare value (which may hold `=`, as `{.x = 1}`).
fn named(arg: &str) -> Option<(&str, &str)> {
    let (name, text) = arg.split_once('=')?;
    let name = name.trim();
    let word = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    word.then_some((name, text))
}

/// Input values `ks`, one a line: name, owner and type; past the first
/// [`LISTED`], how many more (a program of 20,000 inputs listed 600 KB).
fn describe(loaded: &Loaded, ks: &[usize]) -> String {
    let mut lines: Vec<String> = ks
        .iter()
        .take(LISTED)
        .map(|&k| {
            let v = &loaded.inputs[k];
            let ty = match &loaded.input_kinds[k] {
                ValueKind::Int => format!("{} bits", v.width),
                ValueKind::C(t) => t.name(),
            };
            format!("  {} (party {}, {ty})", v.name, v.party)
        })
        .collect();
    if ks.len() > LISTED {
        lines.push(format!("  … and {} more", ks.len() - LISTED));
    }
    lines.join("\n")
}

/// Most input values an error lists.
const LISTED: usize = 10;

/// The error for a name the program has no input of: the closest name and
/// the program's inputs.
fn unknown_name(loaded: &Loaded, name: &str) -> String {
    let values = &loaded.inputs;
    let closest = values
        .iter()
        .min_by_key(|v| edit_distance(&v.name, name))
        .map(|v| format!("; did you mean `{}`?", v.name))
        .unwrap_or_default();
    let all: Vec<usize> = (0..values.len()).collect();
    format!(
        "the program has no input `{}`{closest} Its inputs:\n{}",
        crate::files::clip(name),
        describe(loaded, &all)
    )
}

/// Levenshtein distance between `a` and `b` (in characters).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// Splits everybody's inputs into A's and B's.
pub fn split(loaded: &Loaded, all: &PartyInputs) -> (PartyInputs, PartyInputs) {
    let pick = |party| {
        loaded
            .inputs
            .iter()
            .zip(all)
            .map(|(v, bits)| if v.party == party { bits.clone() } else { None })
            .collect()
    };
    (pick(Party::A), pick(Party::B))
}

/// A value from its text on the command line, or from a file (`@FILE`).
pub fn parse_value(kind: &ValueKind, text: &str, width: u32) -> Result<Vec<bool>> {
    if let Some(path) = text.strip_prefix('@') {
        return crate::infile::read_value(kind, width, std::path::Path::new(path));
    }
    match kind {
        ValueKind::Int => parse_int(text, width).map_err(|e| e.to_string()),
        ValueKind::C(t) => t.parse_value(text).map_err(|e| e.to_string()),
    }
    .map_err(|e| anyhow::anyhow!("{}", crate::files::clip_in(&e, text)))
}

/// Each output value's name, kind and bits, in order.
fn output_values<'a>(
    loaded: &'a Loaded,
    outputs: &'a [Vec<bool>],
) -> impl Iterator<Item = (&'a str, &'a ValueKind, &'a [bool])> {
    let values = loaded.outputs.iter();
    values
        .zip(&loaded.output_kinds)
        .zip(outputs)
        .map(|(((name, _), kind), bits)| (name.as_str(), kind, bits.as_slice()))
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

#[cfg(test)]
mod tests {
    use super::{assign, assign_given, edit_distance, named, Givers, JsonInput};
    use crate::load::{load_source, LoadOptions};

    #[test]
    fn json_values_are_checked_as_command_line_values() {
        let source = "typedef struct { short v[2]; } P;
            int mpc_main(P INPUT_A, unsigned char INPUT_B) { return INPUT_A.v[1] + INPUT_B; }";
        let loaded = load_source(source, "p.c", &LoadOptions::default()).unwrap();
        let json = |a: &str, b: &str| {
            let (a, b): (serde_json::Value, serde_json::Value) = (
                serde_json::from_str(a).unwrap(),
                serde_json::from_str(b).unwrap(),
            );
            let given = [
                JsonInput {
                    name: "INPUT_A",
                    value: &a,
                },
                JsonInput {
                    name: "INPUT_B",
                    value: &b,
                },
            ];
            assign_given(&loaded, &given, Givers::Everyone).map_err(|e| format!("{e:#}"))
        };
        let text = assign(
            &loaded,
            &["INPUT_A={{-3, 9}}".into(), "INPUT_B=200".into()],
            Givers::Everyone,
        );
        assert_eq!(json(r#"{"v": [-3, 9]}"#, "200").unwrap(), text.unwrap());
        assert_eq!(
            json("[[-3, 9]]", "200").unwrap(),
            json(r#"{"v": [-3, 9]}"#, "200").unwrap()
        );
        assert_eq!(
            json(r#"{"v": [1]}"#, "1").unwrap_err(),
            "input `INPUT_A`: expected 2 elements for short[2], found 1"
        );
        assert_eq!(
            json(r#"{"v": [1, 2]}"#, "256").unwrap_err(),
            "input `INPUT_B`: value 256 does not fit in unsigned char"
        );
    }

    #[test]
    fn errors_list_the_first_ten_inputs_and_count_the_rest() {
        let params: Vec<String> = (0..30).map(|k| format!("int INPUT_A_{k}")).collect();
        let source = format!("int mpc_main({}) {{ return 0; }}", params.join(", "));
        let loaded = load_source(&source, "many.c", &LoadOptions::default()).unwrap();
        for args in [vec![], vec!["INPUT_B=1".to_string()]] {
            let e = format!(
                "{:#}",
                assign(&loaded, &args, Givers::Everyone).unwrap_err()
            );
            assert!(
                e.contains("INPUT_A_9 ") && !e.contains("INPUT_A_10 "),
                "{e}"
            );
            assert!(e.ends_with("\n  … and 20 more"), "{e}");
        }
    }

    #[test]
    fn edit_distance_counts_insertions_deletions_and_substitutions() {
        assert_eq!(edit_distance("INPUT_A", "INPUT_A_base"), 5);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }

    #[test]
    fn only_a_word_before_the_equals_sign_is_a_name() {
        assert_eq!(named("INPUT_A=5"), Some(("INPUT_A", "5")));
        assert_eq!(named("0=@x.csv"), Some(("0", "@x.csv")));
        assert_eq!(named("{.x = 1}"), None);
        assert_eq!(named("-1"), None);
    }
}
