//! The three-party hybrid mode from the command line: results chained
//! through the stores, one process per computing party, and clear errors
//! for missing or mismatched shares and for a party that fails.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

mod common;
mod keys;
use common::path;

fn twofold(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_twofold"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(args: &[&str]) -> String {
    let out = twofold(args);
    assert!(
        out.status.success(),
        "twofold {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn fails(args: &[&str]) -> String {
    let out = twofold(args);
    assert!(!out.status.success(), "twofold {args:?} succeeded");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// A fresh directory with the C programs (name, source).
fn workspace(test: &str, programs: &[(&str, &str)]) -> PathBuf {
    common::workspace(&format!("hybrid-{test}"), programs)
}

const SUM: &str = "int mpc_main(int INPUT_A, int INPUT_B) { return INPUT_A + 3 * INPUT_B; }\n";
const PRODUCT: &str = "int mpc_main(int INPUT_A, int INPUT_B) { return INPUT_A * INPUT_B - 7; }\n";

#[test]
fn a_chain_of_two_programs_on_stored_values_agrees_with_plaintext() {
    let dir = workspace("chain", &[("sum.c", SUM), ("product.c", PRODUCT)]);
    let (sum, product, store) = (
        path(&dir, "sum.c"),
        path(&dir, "product.c"),
        path(&dir, "store"),
    );
    for kind in ["xor", "add"] {
        ok(&[
            "share",
            &sum,
            "--kind",
            kind,
            "-i",
            "INPUT_A=1000",
            "-i",
            "INPUT_B=-21",
            "--out",
            &store,
        ]);
        // sum = 1000 + 3 * -21 = 937, stored as `s`; then 937 * 6 - 7.
        ok(&[
            "run",
            &sum,
            "--parties",
            "3",
            "--local",
            "--store",
            &store,
            "--kind",
            kind,
            "--out",
            "return=s",
        ]);
        // Shared after the first run, which reads another INPUT_B.
        ok(&[
            "share",
            &product,
            "--kind",
            kind,
            "-i",
            "INPUT_B=6",
            "--out",
            &store,
        ]);
        ok(&[
            "run",
            &product,
            "--parties",
            "3",
            "--local",
            "--store",
            &store,
            "--kind",
            kind,
            "--in",
            "INPUT_A=s",
        ]);
        let got = ok(&["reconstruct", &product, "--store", &store]);
        assert_eq!(got.trim(), (937 * 6 - 7).to_string(), "{kind}");
        let got = ok(&["reconstruct", &sum, "--store", &store, "--out", "return=s"]);
        assert_eq!(got.trim(), "937", "{kind}");
        // No store holds a result in the clear.
        for cp in ["cp1", "cp2", "cp3"] {
            let stored =
                std::fs::read_to_string(dir.join("store").join(cp).join("shares.json")).unwrap();
            let stored: Value = serde_json::from_str(&stored).unwrap();
            assert_ne!(stored["values"]["s"]["share"], "a9030000", "{cp} holds 937");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn one_process_per_computing_party() {
    let (dir, sum, store) = shared_sum("processes");
    let peers = free_peers();
    let children: Vec<_> = ["1", "2", "3"]
        .iter()
        .map(|k| {
            Command::new(env!("CARGO_BIN_EXE_twofold"))
                .args([
                    "run",
                    &sum,
                    "--parties",
                    "3",
                    "--party",
                    k,
                    "--peers",
                    &peers,
                    "--json",
                ])
                .args(keys::three(k))
                .args(["--store", &format!("{store}/cp{k}")])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (k, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "CP{}: {}",
            k + 1,
            String::from_utf8_lossy(&out.stderr)
        );
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        let party = &json["parties"][0];
        assert_eq!(party["party"], format!("cp{}", k + 1));
        assert!(party["bytes_sent"].as_u64().unwrap() > 0);
        assert!(party["seconds"]["total"].as_f64().unwrap() > 0.0);
        let gates = party["and_gates"].as_u64().unwrap();
        assert_eq!(gates > 0, k < 2, "CP{} did {gates} AND gates", k + 1);
    }
    assert_eq!(ok(&["reconstruct", &sum, "--store", &store]).trim(), "26");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn missing_or_mismatched_shares_and_a_failed_party_are_clear_errors() {
    let dir = workspace("errors", &[("sum.c", SUM), ("product.c", PRODUCT)]);
    let (sum, store) = (path(&dir, "sum.c"), path(&dir, "store"));
    let run = ["run", &sum, "--parties", "3", "--local", "--store", &store];
    let err = fails(&run);
    assert!(err.contains("has no value `INPUT_A`"), "{err}");
    ok(&["share", &sum, "-i", "INPUT_A=5", "--out", &store]);
    let err = fails(&run);
    assert!(err.contains("has no value `INPUT_B`"), "{err}");
    // A 32-bit input read from a stored value of another width.
    let narrow = workspace(
        "narrow",
        &[("c.c", "char mpc_main(char INPUT_A) { return INPUT_A; }\n")],
    );
    ok(&[
        "share",
        &path(&narrow, "c.c"),
        "-i",
        "INPUT_A=5",
        "--out",
        &store,
    ]);
    ok(&["share", &sum, "-i", "INPUT_B=1", "--out", &store]);
    let err = fails(&[&run[..], &["--in", "INPUT_B=INPUT_A"]].concat());
    assert!(
        err.contains("has 32 bits; the stored `INPUT_A` has 8"),
        "{err}"
    );
    // Stores that shared a value differently.
    ok(&["share", &sum, "-i", "INPUT_A=5", "--out", &store]);
    let other = path(&dir, "other");
    ok(&[
        "share",
        &sum,
        "--kind",
        "add",
        "-i",
        "INPUT_A=5",
        "-i",
        "INPUT_B=1",
        "--out",
        &other,
    ]);
    std::fs::copy(
        dir.join("other/cp3/shares.json"),
        dir.join("store/cp3/shares.json"),
    )
    .unwrap();
    let err = fails(&run);
    assert!(err.contains("share the inputs differently"), "{err}");
    // CP1 alone, its peers never come: it stops after the timeout.
    let started = Instant::now();
    let cp1 = [
        "run",
        &sum,
        "--parties",
        "3",
        "--party",
        "1",
        "--peers",
        "127.0.0.1:1,127.0.0.1:2,127.0.0.1:3",
        "--store",
        &path(&dir, "other/cp1"),
        "--timeout",
        "1",
    ];
    let keys1 = keys::three("1");
    let keys1: Vec<&str> = keys1.iter().map(String::as_str).collect();
    let err = fails(&[&cp1[..], &keys1].concat());
    assert!(started.elapsed() < Duration::from_secs(15), "{err}");
    // The store of a failed run is as it was.
    let before = std::fs::read(dir.join("other/cp1/shares.json")).unwrap();
    assert!(!String::from_utf8(before).unwrap().contains("\"return\""));
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&narrow).unwrap();
}

#[test]
fn a_failed_write_in_any_one_store_leaves_nothing_that_reconstructs() {
    let dir = workspace("mixed", &[("sum.c", SUM), ("product.c", PRODUCT)]);
    let (sum, product, store) = (
        path(&dir, "sum.c"),
        path(&dir, "product.c"),
        path(&dir, "store"),
    );
    let run_sum = |a: &str| {
        let (a, b) = (format!("INPUT_A={a}"), "INPUT_B=7");
        ok(&["share", &sum, "-i", &a, "-i", b, "--out", &store]);
        ok(&[
            "run",
            &sum,
            "--parties",
            "3",
            "--local",
            "--store",
            &store,
            "--out",
            "return=s",
        ]);
    };
    let file = |k: usize| dir.join(format!("store/cp{k}/shares.json"));
    run_sum("5");
    let reconstruct = ["reconstruct", &sum, "--store", &store, "--out", "return=s"];
    assert_eq!(ok(&reconstruct).trim(), "26");
    let chain = [
        "run",
        &product,
        "--parties",
        "3",
        "--local",
        "--store",
        &store,
        "--in",
        "INPUT_A=s",
        "--out",
        "return=p",
    ];
    let before: Vec<Vec<u8>> = (1..=3).map(|k| std::fs::read(file(k)).unwrap()).collect();
    run_sum("100");
    let after: Vec<Vec<u8>> = (1..=3).map(|k| std::fs::read(file(k)).unwrap()).collect();
    for k in 1..=3 {
        // Party k's write failed: its store is as before the second run.
        std::fs::write(file(k), &before[k - 1]).unwrap();
        let err = fails(&reconstruct);
        assert!(err.contains("come from different runs"), "CP{k}: {err}");
        let err = fails(&chain);
        assert!(err.contains("come from different runs"), "CP{k}: {err}");
        std::fs::write(file(k), &after[k - 1]).unwrap();
    }
    assert_eq!(ok(&reconstruct).trim(), "121");
    ok(&chain);
    let got = ok(&[
        "reconstruct",
        &product,
        "--store",
        &store,
        "--out",
        "return=p",
    ]);
    // INPUT_B is the 7 the second sharing stored.
    assert_eq!(got.trim(), (121 * 7 - 7).to_string());
    // One process per party: CP3 holds a share of another run, and all
    // three refuse to start the protocol.
    std::fs::write(file(3), &before[2]).unwrap();
    let peers = free_peers();
    let children: Vec<_> = ["1", "2", "3"]
        .iter()
        .map(|k| {
            let mut extra = keys::three(k);
            extra.extend(["--in".into(), "INPUT_A=s".into()]);
            computing_party(&product, k, &peers, &store, &extra)
        })
        .collect();
    let errs = failures(children);
    assert!(
        errs.iter()
            .any(|e| e.contains("the run that made the input shares")),
        "{errs:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn two_parties_in_one_store_are_refused() {
    let (dir, sum, store) = shared_sum("same-store");
    // CP2's store a link to CP1's.
    std::fs::remove_dir_all(dir.join("store/cp2")).unwrap();
    std::os::unix::fs::symlink(dir.join("store/cp1"), dir.join("store/cp2")).unwrap();
    let run = ["run", &sum, "--parties", "3", "--local", "--store", &store];
    let err = fails(&run);
    assert!(err.contains("are the same store"), "{err}");
    let err = fails(&["reconstruct", &sum, "--store", &store]);
    assert!(err.contains("are the same store"), "{err}");
    let err = fails(&["share", &sum, "-i", "INPUT_A=1", "--out", &store]);
    assert!(err.contains("are the same store"), "{err}");
    // One process per party, CP1 and CP2 both given CP1's store.
    let peers = free_peers();
    std::fs::remove_file(dir.join("store/cp2")).unwrap();
    std::fs::create_dir(dir.join("store/cp2")).unwrap();
    std::fs::copy(
        dir.join("store/cp1/shares.json"),
        dir.join("store/cp2/shares.json"),
    )
    .unwrap();
    let children: Vec<_> = ["1", "2", "3"]
        .iter()
        .map(|k| computing_party(&sum, k, &peers, &store, &keys::three(k)))
        .collect();
    let errs = failures(children);
    assert!(
        errs.iter()
            .any(|e| e.contains("each computing party needs its own store")),
        "{errs:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_group_psk_or_one_key_for_two_roles_is_refused() {
    let (dir, sum, store) = shared_sum("group-psk");
    let psk = dir.join("group.psk");
    let made = twofold(&["keygen", "--psk", "-o", &path(&dir, "group")]);
    assert!(made.status.success());
    // With one secret for all three, CP3 could sit between CP1 and CP2 (or
    // claim CP2's role to CP1) and read every label: all three refuse to
    // start, before any connection.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let cp1 = listener.local_addr().unwrap().to_string();
    let peers = format!("{cp1},127.0.0.1:1,127.0.0.1:2");
    let psk_args = vec!["--psk-file".to_string(), psk.display().to_string()];
    for k in ["1", "2", "3"] {
        let out = computing_party(&sum, k, &peers, &store, &psk_args)
            .wait_with_output()
            .unwrap();
        assert!(!out.status.success(), "CP{k} ran with a group secret");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--psk-file is for two parties"), "{err}");
    }
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "a party connected to CP1");
    // One key pair for CP2 and CP3.
    let shared: Vec<String> = vec![
        "--key".into(),
        keys::file("cp2.key"),
        "--peer-key".into(),
        format!("1={}", keys::file("cp1.pub")),
        "--peer-key".into(),
        format!("3={}", keys::file("cp2.pub")),
    ];
    let out = computing_party(&sum, "2", &peers, &store, &shared)
        .wait_with_output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("CP2 and CP3 have the same public key"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A workspace with the sum program and a store of its inputs 5 and 7
/// shared: the workspace, the program's path and the store's.
fn shared_sum(name: &str) -> (std::path::PathBuf, String, String) {
    let dir = workspace(name, &[("sum.c", SUM)]);
    let (sum, store) = (path(&dir, "sum.c"), path(&dir, "store"));
    ok(&[
        "share",
        &sum,
        "-i",
        "INPUT_A=5",
        "-i",
        "INPUT_B=7",
        "--out",
        &store,
    ]);
    (dir, sum, store)
}

/// Three loopback addresses on ports free a moment ago, for `--peers`.
fn free_peers() -> String {
    let port = |_| {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let p: Vec<u16> = (0..3).map(port).collect();
    format!("127.0.0.1:{},127.0.0.1:{},127.0.0.1:{}", p[0], p[1], p[2])
}

/// Waits for `children`, each of which must fail, and returns what each
/// wrote to standard error.
fn failures(children: Vec<std::process::Child>) -> Vec<String> {
    children
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            assert!(!out.status.success());
            String::from_utf8_lossy(&out.stderr).into_owned()
        })
        .collect()
}

/// Starts computing party `k` of `program` on `peers` with `keys`.
fn computing_party(
    program: &str,
    k: &str,
    peers: &str,
    store: &str,
    keys: &[String],
) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_twofold"))
        .args([
            "run",
            program,
            "--parties",
            "3",
            "--party",
            k,
            "--peers",
            peers,
        ])
        .args(["--timeout", "5", "--store", &format!("{store}/cp{k}")])
        .args(keys)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn three_parties_refuse_a_wrong_key_and_a_party_without_keys() {
    let (dir, sum, store) = shared_sum("wrong-key");
    let peers = free_peers;
    // CP3 has a wrong key for CP1 (another's): CP1's connection is refused.
    // (Taking CP2's key for CP1's is refused before meeting anyone: two
    // roles with one key, see `a_group_psk_or_one_key_for_two_roles_is_refused`.)
    let wrong: Vec<String> = vec![
        "--key".into(),
        keys::file("cp3.key"),
        "--peer-key".into(),
        format!("1={}", keys::file("mallory.pub")),
        "--peer-key".into(),
        format!("2={}", keys::file("cp2.pub")),
    ];
    let peers_now = peers();
    let started = Instant::now();
    let children = [
        computing_party(&sum, "1", &peers_now, &store, &keys::three("1")),
        computing_party(&sum, "2", &peers_now, &store, &keys::three("2")),
        computing_party(&sum, "3", &peers_now, &store, &wrong),
    ];
    let outs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    for (k, out) in outs.iter().enumerate() {
        assert!(!out.status.success(), "CP{} succeeded", k + 1);
        assert!(
            out.stdout.is_empty(),
            "CP{} printed {:?}",
            k + 1,
            out.stdout
        );
    }
    let err3 = String::from_utf8_lossy(&outs[2].stderr);
    assert!(
        err3.contains("integrity/authentication") && err3.contains("not the one"),
        "{err3}"
    );
    let err1 = String::from_utf8_lossy(&outs[0].stderr);
    assert!(err1.contains("refused this party's key"), "{err1}");
    assert!(started.elapsed() < Duration::from_secs(15));
    // A party holding a pinned key cannot take another's role: CP2's key
    // claiming to be CP3 is refused by CP1, which pins CP3's own key for CP3.
    // (The impostor names another key for CP2: given its own, it would
    // refuse to start with two roles on one key.)
    let peers_now = peers();
    let impostor: Vec<String> = vec![
        "--key".into(),
        keys::file("cp2.key"),
        "--peer-key".into(),
        format!("1={}", keys::file("cp1.pub")),
        "--peer-key".into(),
        format!("2={}", keys::file("mallory.pub")),
    ];
    let children = [
        computing_party(&sum, "1", &peers_now, &store, &keys::three("1")),
        computing_party(&sum, "2", &peers_now, &store, &keys::three("2")),
        computing_party(&sum, "3", &peers_now, &store, &impostor),
    ];
    let outs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    for (k, out) in outs.iter().enumerate() {
        assert!(!out.status.success(), "CP{} succeeded", k + 1);
    }
    let err1 = String::from_utf8_lossy(&outs[0].stderr);
    assert!(
        err1.contains("the key of the party on this connection"),
        "{err1}"
    );
    // No keys at all: refused before meeting anyone.
    let err = fails(&[
        "run",
        &sum,
        "--parties",
        "3",
        "--party",
        "1",
        "--peers",
        &peers(),
        "--store",
        &format!("{store}/cp1"),
    ]);
    assert!(
        err.contains("--psk-file") && err.contains("--insecure"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
