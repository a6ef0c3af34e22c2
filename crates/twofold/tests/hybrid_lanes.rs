//! Additive shares of integer arrays are taken element by element (lanes)
//! through the binary: `share`, `run --parties 3 --local` and
//! `reconstruct` give the plaintext result, every stored element combines
//! modulo 2^(element width) on its own, and a stored lane other than the
//! program's is refused.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

mod common;
use common::{path, twofold_ok as ok};

fn fails<S: AsRef<std::ffi::OsStr> + std::fmt::Debug>(args: &[S]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_twofold"))
        .args(args)
        .output()
        .unwrap();
    assert!(!out.status.success(), "twofold {args:?} succeeded");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// `OUTPUT_z[i] = x[i] + 2 * y[i]` on two arrays of four `int32_t`.
const INT32: &str = "#include <stdint.h>
void mpc_main(void)
{
    int32_t INPUT_A_x[4];
    int32_t INPUT_B_y[4];
    int32_t OUTPUT_z[4];
    for (int i = 0; i < 4; i++)
        OUTPUT_z[i] = INPUT_A_x[i] + 2 * INPUT_B_y[i];
}
";

/// `OUTPUT_w[i] = v[i] + u[i]` modulo 256 on two arrays of four bytes.
const BYTES: &str = "#include <stdint.h>
void mpc_main(void)
{
    uint8_t INPUT_A_v[4];
    uint8_t INPUT_B_u[4];
    uint8_t OUTPUT_w[4];
    for (int i = 0; i < 4; i++)
        OUTPUT_w[i] = INPUT_A_v[i] + INPUT_B_u[i];
}
";

/// The same 32 bits of input and output as [`BYTES`], as one integer each.
const WORDS: &str = "#include <stdint.h>
void mpc_main(void)
{
    uint32_t INPUT_A_v;
    uint32_t INPUT_B_u;
    uint32_t OUTPUT_w = INPUT_A_v + INPUT_B_u;
}
";

/// Shares `inputs` of `program` additively into `store`.
fn share(program: &str, store: &str, inputs: &[&str]) {
    let mut args = vec!["share", program, "--kind", "add", "--out", store];
    for input in inputs {
        args.extend(["-i", input]);
    }
    ok(&args);
}

/// The arguments that run `program` on the three stores in `store`,
/// outputs shared as `kind`.
fn run(program: &str, store: &str, kind: &str) -> Vec<String> {
    vec![
        "run".into(),
        program.into(),
        "--parties".into(),
        "3".into(),
        "--local".into(),
        "--kind".into(),
        kind.into(),
        "--store".into(),
        store.into(),
    ]
}

/// The stored record of `name` in each of the three stores under `store`.
fn records(store: &Path, name: &str) -> [Value; 3] {
    [1, 2, 3].map(|k| {
        let file = store.join(format!("cp{k}")).join("shares.json");
        let text = std::fs::read_to_string(file).unwrap();
        let json: Value = serde_json::from_str(&text).unwrap();
        json["values"][name].clone()
    })
}

/// The bytes of a stored share (hex, byte 0 first).
fn share_bytes(record: &Value) -> Vec<u8> {
    let hex = record["share"].as_str().unwrap();
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

/// Checks that the three stored shares of `name` record lanes of 8 bits
/// and that each byte of them combines modulo 256 to `want`'s.
fn bytes_combine(store: &Path, name: &str, want: [u8; 4]) {
    let records = records(store, name);
    for record in &records {
        assert_eq!(record["kind"], "add", "{name}");
        assert_eq!(record["lane"], 8, "{name}");
    }
    let shares = records.each_ref().map(share_bytes);
    for (k, &byte) in want.iter().enumerate() {
        let sum = shares.iter().fold(0u8, |acc, s| acc.wrapping_add(s[k]));
        assert_eq!(sum, byte, "{name}: element {k}");
    }
}

#[test]
fn an_int32_array_shared_additively_runs_element_by_element() {
    let dir = common::workspace("lanes-int32", &[("p.c", INT32)]);
    let (program, store) = (path(&dir, "p.c"), path(&dir, "store"));
    share(
        &program,
        &store,
        &[
            "INPUT_A_x={2147483000, -5, 0, -2147483000}",
            "INPUT_B_y={300, -7, 1, -300}",
        ],
    );
    for record in records(&dir.join("store"), "INPUT_A_x") {
        assert_eq!(record["lane"], 32);
    }
    ok(&run(&program, &store, "add"));
    for record in records(&dir.join("store"), "OUTPUT_z") {
        assert_eq!(
            (record["kind"].as_str(), record["lane"].as_u64()),
            (Some("add"), Some(32))
        );
    }
    let got = ok(&["reconstruct", &program, "--store", &store, "--json"]);
    let got: Value = serde_json::from_str(&got).unwrap();
    let want: Vec<i64> = vec![2147483600, -19, 2, -2147483600];
    assert_eq!(got["outputs"]["OUTPUT_z"], serde_json::json!(want));
    // Each stored element combines modulo 2^32 on its own.
    let records = records(&dir.join("store"), "OUTPUT_z");
    let shares = records.each_ref().map(share_bytes);
    for (k, &want) in want.iter().enumerate() {
        let element = |s: &Vec<u8>| u32::from_le_bytes(s[4 * k..4 * k + 4].try_into().unwrap());
        let sum = shares
            .iter()
            .fold(0u32, |acc, s| acc.wrapping_add(element(s)));
        assert_eq!(sum as i32 as i64, want, "element {k}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn each_stored_byte_of_a_uint8_array_combines_modulo_256() {
    let dir = common::workspace("lanes-bytes", &[("p.c", BYTES)]);
    let (program, store) = (path(&dir, "p.c"), path(&dir, "store"));
    let (v, u) = ([250u8, 1, 128, 255], [10u8, 255, 128, 0]);
    // Over several sharings: as one 32-bit value, the carries between the
    // bytes of the shares would make some byte sum differ.
    for _ in 0..8 {
        share(
            &program,
            &store,
            &[
                "INPUT_A_v={250, 1, 128, 255}",
                "INPUT_B_u={10, 255, 128, 0}",
            ],
        );
        bytes_combine(&dir.join("store"), "INPUT_A_v", v);
        bytes_combine(&dir.join("store"), "INPUT_B_u", u);
    }
    // The outputs of a run are per element too.
    ok(&run(&program, &store, "add"));
    let w = [4u8, 0, 0, 255];
    assert_eq!(w, std::array::from_fn(|k| v[k].wrapping_add(u[k])));
    bytes_combine(&dir.join("store"), "OUTPUT_w", w);
    let got = ok(&["reconstruct", &program, "--store", &store]);
    assert_eq!(got.trim(), "{4, 0, 0, 255}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_stored_lane_other_than_the_programs_is_refused() {
    let dir = common::workspace("lanes-mismatch", &[("bytes.c", BYTES), ("words.c", WORDS)]);
    let (bytes, words, store) = (
        path(&dir, "bytes.c"),
        path(&dir, "words.c"),
        path(&dir, "store"),
    );
    // Shared as four bytes, read as one 32-bit word: the same 32 bits, but
    // the shares would combine to another value.
    share(
        &bytes,
        &store,
        &["INPUT_A_v={1, 2, 3, 4}", "INPUT_B_u={5, 6, 7, 8}"],
    );
    let err = fails(&run(&words, &store, "add"));
    assert!(
        err.contains("input `INPUT_A_v`")
            && err.contains("lanes of 8 bits")
            && err.contains("lanes of 32 bits"),
        "{err}"
    );
    // Output shares of the bytes program (lanes of 8) are refused by
    // `reconstruct` with the words program.
    ok(&run(&bytes, &store, "add"));
    let err = fails(&["reconstruct", &words, "--store", &store]);
    assert!(
        err.contains("output `OUTPUT_w`")
            && err.contains("lanes of 8 bits")
            && err.contains("lanes of 32 bits"),
        "{err}"
    );
    // Bitwise shares are the same whatever the lane.
    let xor = [
        "share",
        &bytes,
        "--kind",
        "xor",
        "-i",
        "INPUT_A_v={1, 2, 3, 4}",
        "-i",
        "INPUT_B_u={5, 6, 7, 8}",
        "--out",
        &store,
    ];
    ok(&xor);
    ok(&run(&words, &store, "xor"));
    let got = ok(&["reconstruct", &words, "--store", &store]);
    assert_eq!(got.trim(), (0x04030201u32 + 0x08070605).to_string());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_store_written_before_lanes_reads_as_one_lane_a_value() {
    let dir = common::workspace("lanes-old", &[("bytes.c", BYTES), ("words.c", WORDS)]);
    let (bytes, words, store) = (
        path(&dir, "bytes.c"),
        path(&dir, "words.c"),
        path(&dir, "store"),
    );
    // Drops every `lane` field, as a store of an older twofold has none.
    let strip = || {
        for k in 1..=3 {
            let file = dir.join(format!("store/cp{k}/shares.json"));
            let mut json: Value =
                serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
            for record in json["values"].as_object_mut().unwrap().values_mut() {
                record.as_object_mut().unwrap().remove("lane");
            }
            std::fs::write(&file, serde_json::to_string(&json).unwrap()).unwrap();
        }
    };
    share(&words, &store, &["INPUT_A_v=1000", "INPUT_B_u=4294967295"]);
    strip();
    ok(&run(&words, &store, "add"));
    let got = ok(&["reconstruct", &words, "--store", &store]);
    assert_eq!(got.trim(), "999");
    // A byte array stored without lanes was shared whole: refused.
    share(
        &bytes,
        &store,
        &["INPUT_A_v={1, 2, 3, 4}", "INPUT_B_u={5, 6, 7, 8}"],
    );
    strip();
    let err = fails(&run(&bytes, &store, "add"));
    assert!(err.contains("lanes of 32 bits"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
