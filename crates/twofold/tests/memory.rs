//! Memory follows the program, not the gates it runs: a multiply chain of
//! 10^5 iterations (10^8 AND gates) runs, both parties in one process,
//! within a fixed bound that does not grow when the trip count grows 10x;
//! a 4,096-value sort, whose stages are loops of their own, in 256 MiB a
//! party; a program of many regions is prepared once, not once a party; a
//! long chain of linear sums compiles as a mixed program in memory that
//! grows with it, not with its square.

use std::process::Command;

use serde_json::Value;

/// `twofold run --local --json --protocol yao` of the C `source` with the
/// `inputs` given, in a directory of its own (`tag`) holding the `files`
/// (name, text) the inputs may read.
fn run_local(tag: &str, source: &str, files: &[(&str, String)], inputs: &[&str]) -> Value {
    // Garbled circuits (a chain as a mixed program has no AND gate).
    run_local_as(tag, source, files, inputs, "yao")
}

/// [`run_local`] with `--protocol protocol`.
fn run_local_as(
    tag: &str,
    source: &str,
    files: &[(&str, String)],
    inputs: &[&str],
    protocol: &str,
) -> Value {
    let dir = std::env::temp_dir().join(format!("twofold-memory-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("program.c"), source).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_twofold"));
    cmd.current_dir(&dir).args(["run", "program.c"]);
    cmd.args(["--local", "--json", "--protocol", protocol]);
    for i in inputs {
        cmd.args(["-i", i]);
    }
    let out = cmd.output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Peak memory and AND gates of `twofold run --local --json` on a chain of
/// `n` iterations, and its output.
fn chain(n: u64) -> (u64, u64, Value) {
    let source = format!(
        "#include <stdint.h>\nuint32_t mpc_main(uint32_t INPUT_A, uint32_t INPUT_B) {{\n    uint32_t acc = 0;\n    for (int i = 0; i < {n}; i++)\n        acc = acc * INPUT_B + INPUT_A;\n    return acc;\n}}\n"
    );
    let v = run_local(
        &format!("chain-{n}"),
        &source,
        &[],
        &["INPUT_A=3", "INPUT_B=5"],
    );
    (
        v["peak_rss_bytes"].as_u64().unwrap(),
        v["and_gates"].as_u64().unwrap(),
        v["outputs"].clone(),
    )
}

/// `acc = acc * 5 + 3`, `n` times, modulo 2^32.
fn expected(n: u64) -> u32 {
    (0..n).fold(0u32, |acc, _| acc.wrapping_mul(5).wrapping_add(3))
}

#[test]
fn a_long_chain_runs_in_memory_that_does_not_follow_its_trip_count() {
    if !std::path::Path::new("/proc/self/status").exists() {
        eprintln!("skipping: peak memory is read from /proc (Linux only)");
        return;
    }
    let (small, small_ands, small_out) = chain(10_000);
    let (large, large_ands, large_out) = chain(100_000);
    assert!(large_ands >= 100_000_000, "{large_ands} AND gates");
    assert!(large_ands > small_ands * 9);
    assert!(
        small_out
            .to_string()
            .contains(&expected(10_000).to_string()),
        "{small_out}"
    );
    assert!(
        large_out
            .to_string()
            .contains(&expected(100_000).to_string()),
        "{large_out}"
    );
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    assert!(
        large <= 64 << 20 && large <= small + (8 << 20),
        "peak memory {:.1} MiB for 10^5 iterations, {:.1} MiB for 10^4",
        mib(large),
        mib(small)
    );
}

/// The 4,096-value bitonic sort (10^7 AND gates in 78 stages): each party
/// a process of its own that compiles the C source and runs it, within
/// 256 MiB a party.
#[test]
fn a_4096_value_sort_runs_in_256_mib_a_party() {
    if !std::path::Path::new("/proc/self/status").exists() {
        eprintln!("skipping: peak memory is read from /proc (Linux only)");
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_twofold"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(["bench", "--runs", "1", "--json", "--e2e"])
        .arg("examples/bench/bitonic_sort4096.c")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = &v["e2e"][0];
    assert_eq!(row["and_gates"].as_u64(), Some(10_223_616), "{row}");
    for party in ["a", "b"] {
        let peak = row["peak_rss_bytes"][party].as_u64().unwrap();
        assert!(
            peak <= 256 << 20,
            "party {party} peaks at {:.1} MiB",
            peak as f64 / (1u64 << 20) as f64
        );
    }
}

/// A histogram whose loop over 64 buckets becomes a region for each of
/// 1,024 values: the main circuit between the regions (the counts' sums)
/// holds most of the gates. Preparing it (levelling the gates between
/// blocks) is done once, in place: each party's session prepared a copy
/// of its own and held it beside the program (249 MiB for both parties
/// in one process, now about 160).
#[test]
fn a_program_of_many_regions_is_prepared_once_in_place() {
    if !std::path::Path::new("/proc/self/status").exists() {
        eprintln!("skipping: peak memory is read from /proc (Linux only)");
        return;
    }
    const N: usize = 1024;
    const B: usize = 64;
    let source = format!(
        "#include <stdint.h>\n#define N {N}\n#define B {B}\n\
         typedef struct {{ uint8_t idx[N]; }} Idx;\n\
         typedef struct {{ uint16_t w[N]; }} W;\n\
         typedef struct {{ uint32_t c[B]; }} Hist;\n\
         Hist mpc_main(Idx INPUT_A, W INPUT_B) {{\n\
         \x20   Hist h;\n\
         \x20   for (int b = 0; b < B; b++) h.c[b] = 0;\n\
         \x20   for (int i = 0; i < N; i++)\n\
         \x20       for (int b = 0; b < B; b++)\n\
         \x20           if (INPUT_A.idx[i] == b) h.c[b] += INPUT_B.w[i];\n\
         \x20   return h;\n\
         }}\n"
    );
    let idx: Vec<usize> = (0..N).map(|i| (i * 37 + 11) % 71).collect();
    let w: Vec<usize> = (0..N).map(|i| (i * 7919) % 65_536).collect();
    let list = |v: &[usize]| {
        let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
        format!("{{ {{{}}} }}", items.join(","))
    };
    let files = [("a.txt", list(&idx)), ("b.txt", list(&w))];
    let v = run_local(
        "histogram",
        &source,
        &files,
        &["INPUT_A=@a.txt", "INPUT_B=@b.txt"],
    );
    let mut want = vec![0u64; B];
    for (&i, &x) in idx.iter().zip(&w) {
        if i < B {
            want[i] += x as u64;
        }
    }
    assert_eq!(v["outputs"]["return"], serde_json::json!([want]), "{v}");
    let peak = v["peak_rss_bytes"].as_u64().unwrap();
    assert!(
        peak <= 200 << 20,
        "both parties peak at {:.1} MiB",
        peak as f64 / (1u64 << 20) as f64
    );
}

/// A chain of 3,000 linear sums, each a term of the next with a word of
/// its own (`INPUT_B ^ i`), compiled as a mixed program: each sum's
/// combination held every term of the chain before it (870 MiB for both
/// parties in one process; 5,000 links took 4.8 GB and 20,000 ran out of
/// memory); now, once the combinations held pass a budget of terms, a
/// longer one is converted instead.
#[test]
fn a_chain_of_linear_sums_compiles_mixed_in_memory_that_grows_with_it() {
    if !std::path::Path::new("/proc/self/status").exists() {
        eprintln!("skipping: peak memory is read from /proc (Linux only)");
        return;
    }
    let source = "#include <stdint.h>\n\
        int16_t mpc_main(uint16_t INPUT_A, uint16_t INPUT_B) {\n\
        \x20   int16_t t = 0;\n\
        \x20   for (int i = 3000; i > 0; i--)\n\
        \x20       t = (int16_t)(t + i * INPUT_A + (INPUT_B ^ i));\n\
        \x20   return t;\n\
        }\n";
    let (a, b) = (12_345i32, 54_321i32);
    let want = (1..=3000)
        .rev()
        .fold(0i16, |t, i| (t as i32 + i * a + (b ^ i)) as i16);
    let v = run_local_as(
        "linear-chain",
        source,
        &[],
        &["INPUT_A=12345", "INPUT_B=54321"],
        "mixed",
    );
    assert_eq!(v["outputs"]["return"], serde_json::json!(want), "{v}");
    let peak = v["peak_rss_bytes"].as_u64().unwrap();
    assert!(
        peak <= 256 << 20,
        "both parties peak at {:.1} MiB",
        peak as f64 / (1u64 << 20) as f64
    );
}
