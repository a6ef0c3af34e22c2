//! Every case of `shared/data/c/CASES.md` through the binary: `eval`,
//! `run --local` (garbled) and the three-party hybrid mode (`share`, `run
//! --parties 3`, `reconstruct`, with both share kinds) all give the expected
//! output. The C front end's own tests cover the language in depth; this
//! checks the whole path.

mod shares;

use std::process::Command;

use twofold_testkit::shared_data;

/// One program with its input/output cases.
struct Case {
    program: String,
    inputs: Vec<(String, String)>,
    expected: String,
}

fn parse_cases(text: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut program = String::new();
    let mut pending: Option<Vec<(String, String)>> = None;
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("### `") {
            program = rest.trim_end_matches('`').to_string();
        } else if let Some(out) = line.strip_prefix("-> `") {
            if let Some(inputs) = pending.take() {
                cases.push(Case {
                    program: program.clone(),
                    inputs,
                    expected: out.trim_end_matches('`').to_string(),
                });
            }
        } else if line.chars().next().is_some_and(|c| c.is_ascii_digit()) && line.contains(" = `") {
            // `1. INPUT_A = `5`, INPUT_B = `{1, 2}``
            let body = line.split_once(". ").map_or(line, |(_, b)| b);
            let mut inputs = Vec::new();
            for part in body.split("`, ") {
                let (name, value) = part.split_once(" = `").expect("NAME = `VALUE`");
                inputs.push((
                    name.trim().to_string(),
                    value.trim().trim_end_matches('`').to_string(),
                ));
            }
            pending = Some(inputs);
        }
    }
    cases
}

/// The integers in a printed value, in order (decimal or 0x hex).
fn numbers(text: &str) -> Vec<i128> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|t| !t.is_empty())
        .map(|t| match t.strip_prefix("0x") {
            Some(hex) => i128::from_str_radix(hex, 16).unwrap(),
            None => t.parse().unwrap(),
        })
        .collect()
}

fn same_value(got: &str, expected: &str) -> bool {
    let (g, e) = (numbers(got), numbers(expected));
    // Hex expectations are bit patterns (float32 cases): compare as 32-bit words.
    let hex = expected.contains("0x");
    g.len() == e.len()
        && g.iter().zip(&e).all(|(a, b)| {
            if hex {
                (a - b) % (1 << 32) == 0
            } else {
                a == b
            }
        })
}

#[test]
fn every_c_case_through_eval_run_local_and_shares() {
    let Some(data) = shared_data() else { return };
    let text = std::fs::read_to_string(data.join("c/CASES.md")).unwrap();
    let cases = parse_cases(&text);
    assert!(cases.len() >= 60, "found only {} cases", cases.len());
    for case in cases {
        let file = data.join("c").join(&case.program);
        let mut args: Vec<String> = Vec::new();
        let mut owners: Vec<String> = Vec::new();
        for (name, value) in &case.inputs {
            args.extend(["-i".into(), format!("{name}={value}")]);
            if !name.starts_with("INPUT_A") && !name.starts_with("INPUT_B") {
                owners.extend(["--owner".into(), format!("{name}=b")]);
            }
        }
        for kind in ["xor", "add"] {
            let owners: Vec<&str> = owners.iter().map(String::as_str).collect();
            let got = shares::through_shares(&file, &args, &owners, &[], kind);
            assert!(
                same_value(got.trim(), &case.expected),
                "{} through {kind} shares {:?}: got `{}`, expected `{}`",
                case.program,
                case.inputs,
                got.trim(),
                case.expected
            );
        }
        args.extend(owners);
        for mode in [&["eval"][..], &["run", "--local"][..]] {
            let out = Command::new(env!("CARGO_BIN_EXE_twofold"))
                .arg(mode[0])
                .arg(&file)
                .args(&mode[1..])
                .args(&args)
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success(),
                "{} {:?}: {}",
                case.program,
                mode,
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                same_value(stdout.trim(), &case.expected),
                "{} {:?} {:?}: got `{}`, expected `{}`",
                case.program,
                mode,
                case.inputs,
                stdout.trim(),
                case.expected
            );
        }
    }
}
