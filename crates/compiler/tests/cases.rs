//! Every case of ../shared/data/c/CASES.md compiles and gives the expected
//! output in plaintext evaluation.

mod common;

use std::path::Path;

use common::{modw, output_scalars, run};
use twofold_compiler::{compile_file, CompileOptions, Party};

const DATA: &str = "/work/shared/data/c";

struct Case {
    program: String,
    inputs: Vec<(String, String)>,
    expected: Vec<i128>,
}

fn parse_number(s: &str) -> i128 {
    let s = s.trim();
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let v = match body.strip_prefix("0x") {
        Some(h) => i128::from_str_radix(h, 16).expect("hex"),
        None => body.parse::<i128>().expect("decimal"),
    };
    if neg {
        -v
    } else {
        v
    }
}

/// Splits `text` into the contents of backquoted spans and what precedes each.
fn backquoted(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(a) = rest.find('`') {
        let Some(b) = rest[a + 1..].find('`') else {
            break;
        };
        out.push((rest[..a].to_string(), rest[a + 1..a + 1 + b].to_string()));
        rest = &rest[a + 2 + b..];
    }
    out
}

fn parse_cases(md: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut program = String::new();
    let mut pending: Option<Vec<(String, String)>> = None;
    for line in md.lines() {
        let t = line.trim();
        if let Some(h) = t.strip_prefix("### ") {
            program = h.trim_matches('`').to_string();
            continue;
        }
        if let Some(rest) = t.strip_prefix("-> ") {
            let inputs = pending.take().expect("an input line before '->'");
            let exp = rest.trim().trim_matches('`');
            let expected = exp.split_whitespace().map(parse_number).collect();
            cases.push(Case {
                program: program.clone(),
                inputs,
                expected,
            });
            continue;
        }
        let numbered = t
            .split_once(". ")
            .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        if numbered && t.contains("INPUT_") {
            let mut inputs = Vec::new();
            for (before, value) in backquoted(t) {
                let name = before.trim_end().trim_end_matches('=').trim();
                let name = name.rsplit([' ', ',']).next().unwrap_or(name).to_string();
                inputs.push((name, value));
            }
            pending = Some(inputs);
        }
    }
    cases
}

#[test]
fn all_cases_pass() {
    let md_path = Path::new(DATA).join("CASES.md");
    let Ok(md) = std::fs::read_to_string(&md_path) else {
        eprintln!("skipping: {} is absent", md_path.display());
        return;
    };
    let cases = parse_cases(&md);
    assert!(cases.len() >= 89, "parsed only {} cases", cases.len());
    let opts = CompileOptions {
        unwind: None,
        owners: vec![("INPUT_C".to_string(), Party::B)],
        ..CompileOptions::default()
    };
    let mut failures = Vec::new();
    let mut last = String::new();
    let mut program = None;
    for c in &cases {
        if c.program != last {
            last = c.program.clone();
            program = Some(compile_file(&Path::new(DATA).join(&c.program), &opts));
        }
        let p = match program.as_ref().expect("compiled") {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{}: {e}", c.program));
                continue;
            }
        };
        let outs = run(p, &c.inputs);
        let got = output_scalars(p, &outs);
        let widths: Vec<u32> = {
            let mut w = Vec::new();
            for ((_, ty), bits) in p.outputs.iter().zip(&outs) {
                let mut l = Vec::new();
                common::leaves(ty, &ty.json_value(bits), &mut l);
                w.extend(l.iter().map(|(w, _)| *w));
            }
            w
        };
        let want: Vec<u128> = c
            .expected
            .iter()
            .zip(&widths)
            .map(|(&e, &w)| modw(e, w))
            .collect();
        if got != want || c.expected.len() != got.len() {
            failures.push(format!(
                "{} {:?}: expected {:?}, got {:?}",
                c.program, c.inputs, c.expected, got
            ));
        }
    }
    println!(
        "{} of {} cases pass",
        cases.len() - failures.len(),
        cases.len()
    );
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n"));
}
