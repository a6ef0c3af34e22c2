//! Input values from files (`-i NAME=@FILE`: C initializer, JSON, CSV) with
//! their exact errors, the unknown-name and count messages, negative values,
//! `--output`, and error chains that name each cause once.

use std::path::{Path, PathBuf};
use std::process::Command;

use twofold_net::NetError;
use twofold_protocol::ProtocolError;

mod keys;

/// A program with a 2x3 matrix (A), a struct (B) and a 1-D array (B).
const PROGRAM: &str = "
typedef struct { int m[2][3]; } Matrix;
typedef struct { int x; unsigned char y; } Pair;
typedef struct { short v[4]; } Vec4;
int mpc_main(Matrix INPUT_A_m, Pair INPUT_B_p, Vec4 INPUT_B_v)
{
    int s = 0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            s += INPUT_A_m.m[i][j] * (i * 3 + j + 1);
    for (int k = 0; k < 4; k++)
        s += INPUT_B_v.v[k] * 10000 * (k + 1);
    return s + INPUT_B_p.x * 1000 + INPUT_B_p.y * 100;
}
";

/// A fresh directory for one test's files.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("twofold-inputs-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `text` to `dir/name`; returns the path.
fn put(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// Runs `twofold` with `args`: Ok(stdout) or Err(stderr).
fn twofold(args: &[&str]) -> Result<String, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_twofold"))
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    if out.status.success() {
        Ok(String::from_utf8(out.stdout).unwrap())
    } else {
        Err(stderr)
    }
}

/// `eval` of the program in `dir` with `-i` values `inputs`.
fn eval(dir: &Path, inputs: &[&str]) -> Result<String, String> {
    let program = put(dir, "program.c", PROGRAM);
    let mut args = vec!["eval", program.as_str()];
    for i in inputs {
        args.extend(["-i", i]);
    }
    twofold(&args)
}

/// The value the program computes on m = {{1..6}}, p = {-2, 7}, v = {1, 2, 3, 4}.
fn want() -> String {
    let m: i32 = (1..=6).map(|k| k * k).sum();
    let v: i32 = (1..=4).map(|k| k * 10000 * k).sum();
    format!("{}\n", m + v - 2000 + 700)
}

#[test]
fn every_format_gives_the_value_of_the_command_line() {
    let dir = scratch("good");
    let literal = eval(&dir, &["{{{1,2,3},{4,5,6}}}", "{-2, 7}", "{{1,2,3,4}}"]).unwrap();
    assert_eq!(literal, want());
    let files = [
        (
            "m.txt",
            "{{{1, 2, 3},\n  {4, 5, 6}}}\n",
            "p.c",
            "{.y = 7, .x = -2}",
            "v.txt",
            "{1, 2, 3, 4}",
        ),
        (
            "m.json",
            "{\"m\": [[1, 2, 3],\n [4, 5, 6]]}\n",
            "p.json",
            "{\"y\": 7, \"x\": -2}",
            "v.json",
            "{\"v\": [1, 2, 3, 4]}",
        ),
        (
            "m.csv",
            "1,2,3\n4, 5, 6\n\n",
            "p.csv",
            "-2,7\n",
            "v.csv",
            "1,2,3,4\n",
        ),
        (
            "m2.json",
            "[[[1, 2, 3], [4, 5, 6]]]",
            "p2.json",
            "[-2, 7]",
            "v2.csv",
            "1\n2\n3\n4\n",
        ),
        (
            // A byte order mark (Excel's "CSV UTF-8" writes one) is skipped.
            "bom.csv",
            "\u{feff}1,2,3\n4,5,6\n",
            "bom.json",
            "\u{feff}[-2, 7]",
            "bom.txt",
            "\u{feff}{1, 2, 3, 4}",
        ),
    ];
    for (m, mt, p, pt, v, vt) in files {
        let (m, p, v) = (put(&dir, m, mt), put(&dir, p, pt), put(&dir, v, vt));
        let named = [
            format!("INPUT_A_m=@{m}"),
            format!("INPUT_B_p=@{p}"),
            format!("INPUT_B_v=@{v}"),
        ];
        let named: Vec<&str> = named.iter().map(String::as_str).collect();
        assert_eq!(eval(&dir, &named).unwrap(), want(), "{m} {p} {v}");
        let positional = [format!("@{m}"), format!("@{p}"), format!("@{v}")];
        let positional: Vec<&str> = positional.iter().map(String::as_str).collect();
        assert_eq!(eval(&dir, &positional).unwrap(), want(), "{m} {p} {v}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// JSON writers give integers as `1.0` or `1e2` (Python's floats, numpy,
/// JavaScript): integral values are read as the integers they are.
#[test]
fn integral_json_numbers_for_integers() {
    let dir = scratch("integral");
    let m = put(
        &dir,
        "m.json",
        "{\"m\": [[1.0, 2e0, -3.0], [4, 5e1, 6.00]]}",
    );
    let p = put(&dir, "p.json", "{\"x\": 1e2, \"y\": 2.5e1}");
    let named = [format!("INPUT_A_m=@{m}"), format!("INPUT_B_p=@{p}")];
    let out = eval(&dir, &[&named[0], &named[1], "INPUT_B_v={0}"]).unwrap();
    let want = [1, 2, -3, 4, 50, 6]
        .iter()
        .zip(1..)
        .map(|(v, k)| v * k)
        .sum::<i64>()
        + 100 * 1000
        + 25 * 100;
    assert_eq!(out.trim(), want.to_string());
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bad_files_name_the_file_and_line() {
    let dir = scratch("bad");
    let cases = [
        ("short.csv", "1,2,3\n4,5\n", "short.csv:2: expected 3 value(s) in a row (int[3]), found 2"),
        ("nan.csv", "1,2,3\n4,x,6\n", "nan.csv:2: column 2: invalid number 'x'"),
        ("long.csv", "1,2,3\n4,5,6\n7,8,9\n", "long.csv:3: more than 2 row(s)"),
        ("few.csv", "1,2,3\n", "few.csv:1: expected 2 row(s), found 1"),
        ("big.csv", "1,2,3\n4,5,99999999999\n", "big.csv:2: column 3: value 99999999999 does not fit in int"),
        ("string.json", "{\"m\": [[1, 2, 3],\n [4, \"a\", 6]]}", "string.json:2:8: expected a number for int, found the string \"a\""),
        ("few.json", "{\"m\": [[1, 2, 3]]}", "few.json:1:17: expected 2 elements for int[2][3], found 1"),
        ("many.json", "{\"m\": [[1, 2, 3], [4, 5, 6],\n [7, 8, 9]]}", "many.json:2:11: more than 2 elements for int[2][3]"),
        ("float.json", "{\"m\": [[1.5, 2, 3], [4, 5, 6]]}", "float.json:1:12: 1.5 is not an integer, as int needs"),
        ("huge.json", "{\"m\": [[1e300, 2, 3], [4, 5, 6]]}", "huge.json:1:14: 1e300 is too large to be exact as a JSON number (write it as a string, \"0x…\")"),
        ("member.json", "{\"n\": []}", "member.json:1:5: struct <anonymous> has no member `n` (its members: m)"),
        ("syntax.json", "{\"m\": [[1, 2, 3]\n [4, 5, 6]]}", "syntax.json:2:2: expected `,` or `]`"),
        ("many.txt", "{{{1, 2, 3},\n {4, 5, 6, 7}}}", "many.txt:2:12: too many values"),
        ("word.txt", "{{{1, 2, 3},\n {4, five, 6}}}", "word.txt:2:6: invalid number 'five'"),
    ];
    for (name, text, error) in cases {
        let path = put(&dir, name, text);
        let arg = format!("INPUT_A_m=@{path}");
        let err = eval(&dir, &[&arg, "INPUT_B_p={1, 2}", "INPUT_B_v={0}"]).unwrap_err();
        let want = format!(
            "twofold: error: input `INPUT_A_m`: {}/{error}\n",
            dir.display()
        );
        assert_eq!(err, want, "{name}");
    }
    let pair = put(&dir, "range.json", "{\"x\": 1,\n \"y\": 300}");
    let err = eval(&dir, &["{0}", &format!("@{pair}"), "{0}"]).unwrap_err();
    assert_eq!(
        err,
        format!("twofold: error: input `INPUT_B_p`: {pair}:2:10: value 300 does not fit in unsigned char\n")
    );
    let missing = dir.join("none.csv").display().to_string();
    let err = eval(&dir, &[&format!("@{missing}"), "{0}", "{0}"]).unwrap_err();
    assert!(
        err.starts_with(&format!(
            "twofold: error: input `INPUT_A_m`: cannot read the input file {missing}: "
        )),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bristol_values_from_files() {
    let dir = scratch("bristol");
    let circuit = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/millionaires.txt"
    );
    let a = put(&dir, "a.json", "\"0x10\"");
    let b = put(&dir, "b.csv", "15\n");
    let out = twofold(&[
        "eval",
        circuit,
        "-i",
        &format!("0=@{a}"),
        "-i",
        &format!("@{b}"),
    ]);
    assert_eq!(out.unwrap(), "0x1\n");
    let b = put(&dir, "b.json", "17");
    let out = twofold(&[
        "eval",
        circuit,
        "-i",
        &format!("@{a}"),
        "-i",
        &format!("1=@{b}"),
    ]);
    assert_eq!(out.unwrap(), "0x0\n");
    let stores = dir.join("stores").display().to_string();
    let shared = twofold(&["share", circuit, "-i", &format!("0=@{a}"), "--out", &stores]);
    assert!(shared.unwrap().starts_with("1 value (xor shares) in "));
    let bad = put(&dir, "bad.txt", "\n 0x1g");
    let err = twofold(&["eval", circuit, "-i", &format!("@{bad}"), "-i", "1"]).unwrap_err();
    assert_eq!(
        err,
        format!("twofold: error: input `0`: {bad}:2: bad inputs: `\n 0x1g`: `g` is not a base-16 digit\n")
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn unknown_names_and_counts_list_the_inputs() {
    let dir = scratch("names");
    let err = eval(&dir, &["INPUT_A=1", "{0}", "{0}"]).unwrap_err();
    assert_eq!(
        err,
        "twofold: error: the program has no input `INPUT_A`; did you mean `INPUT_A_m`? Its inputs:\n  \
         INPUT_A_m (party a, struct <anonymous>)\n  \
         INPUT_B_p (party b, struct <anonymous>)\n  \
         INPUT_B_v (party b, struct <anonymous>)\n"
    );
    let err = eval(&dir, &["{0}", "{0}", "{0}", "5"]).unwrap_err();
    assert!(
        err.starts_with("twofold: error: `5`: more input values than the program takes; it takes 3:\n  INPUT_A_m (party a, "),
        "{err}"
    );
    let err = eval(&dir, &["{0}"]).unwrap_err();
    assert_eq!(
        err,
        "twofold: error: missing input value(s); give each with -i NAME=VALUE (or in this order):\n  \
         INPUT_B_p (party b, struct <anonymous>)\n  \
         INPUT_B_v (party b, struct <anonymous>)\n"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn negative_values_and_output_files() {
    let dir = scratch("negative");
    let millionaires = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/millionaires.c");
    assert_eq!(
        twofold(&["eval", millionaires, "-i", "-1", "-i", "-2"]).unwrap(),
        "1\n"
    );
    let out = dir.join("out.json").display().to_string();
    let printed = twofold(&[
        "run",
        "--local",
        millionaires,
        "-i",
        "-3",
        "-i",
        "-2",
        "--json",
        "--output",
        &out,
    ])
    .unwrap();
    assert_eq!(printed, "");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(report["outputs"]["OUTPUT_richer"], 0);
    let eval_to =
        |out: &str| twofold(&["eval", millionaires, "-i", "5", "-i", "-2", "--output", out]);
    let out = dir.join("out.txt").display().to_string();
    assert_eq!(eval_to(&out).unwrap(), "");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "1\n");
    let nowhere = dir.join("no/such/dir/out.txt").display().to_string();
    let err = eval_to(&nowhere).unwrap_err();
    assert!(
        err.starts_with(&format!("twofold: error: cannot write {nowhere}: ")),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// The `: `-separated parts of an error line that are long enough to be a
/// cause's text, each at most once.
fn assert_each_cause_once(err: &str) {
    let parts: Vec<&str> = err.trim_end().split(": ").filter(|p| p.len() > 8).collect();
    for (k, part) in parts.iter().enumerate() {
        assert!(!parts[k + 1..].contains(part), "`{part}` repeats in: {err}");
    }
}

#[test]
fn error_chains_name_each_cause_once() {
    let millionaires = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/millionaires.c");
    let keys = keys::two("b");
    let mut args = vec![
        "run",
        millionaires,
        "--party",
        "b",
        "--connect",
        "127.0.0.1:1",
        "--timeout",
        "1",
        "-i",
        "1",
    ];
    args.extend(keys.iter().map(String::as_str));
    let err = twofold(&args).unwrap_err();
    assert!(
        err.starts_with("twofold: error: could not connect to 127.0.0.1:1 within "),
        "{err}"
    );
    assert_each_cause_once(&err);
    // The wrappers of each layer, as `main` prints them.
    let timeout = ProtocolError::from(NetError::Timeout(std::time::Duration::from_secs(5)));
    let printed = format!("{:#}", anyhow::Error::from(timeout).context("session"));
    assert_eq!(
        printed,
        "session: network: timed out: the peer sent or accepted nothing within 5s"
    );
}
