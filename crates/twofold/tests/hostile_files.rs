//! Files an attacker on the same host plants or points twofold at: a FIFO,
//! a device, a huge file, a key others can read, a key file of two keys,
//! text built to flood an error message. Each must end in a clear error at
//! once, with bounded memory, and never be followed or echoed whole.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod keys;

/// A fresh directory for test `name`.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("twofold-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success());
}

/// Runs `twofold args`; it must fail within `limit` (killed otherwise), print
/// nothing, and say every one of `needles`. Returns its stderr.
fn fails_within(args: &[&str], limit: Duration, needles: &[&str]) -> String {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_twofold"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("twofold {args:?} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out: Output = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "twofold {args:?} succeeded");
    assert!(out.stdout.is_empty(), "twofold {args:?} printed output");
    assert!(!err.contains("panicked"), "{err}");
    for needle in needles {
        assert!(err.contains(needle), "expected `{needle}` in: {err}");
    }
    err
}

fn millionaires() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/millionaires.c").to_string()
}

const SECOND: Duration = Duration::from_secs(1);

#[test]
fn a_fifo_or_a_device_as_a_key_psk_store_or_input_is_an_error_at_once() {
    let dir = scratch("fifo");
    let fifo = dir.join("fifo");
    mkfifo(&fifo);
    let fifo_csv = dir.join("fifo.csv");
    mkfifo(&fifo_csv);
    let program = millionaires();
    let (fifo, fifo_csv) = (fifo.to_str().unwrap(), fifo_csv.to_str().unwrap());
    let not_regular = ["not a regular file"];
    for bad in [fifo, "/dev/zero"] {
        let peer = keys::file("b.pub");
        let key = keys::file("a.key");
        let listen = ["run", &program, "--party", "a", "--listen", "127.0.0.1:1"];
        fails_within(
            &[&listen[..], &["--key", bad, "--peer-key", &peer]].concat(),
            SECOND,
            &not_regular,
        );
        fails_within(
            &[&listen[..], &["--key", &key, "--peer-key", bad]].concat(),
            SECOND,
            &not_regular,
        );
        fails_within(
            &[&listen[..], &["--psk-file", bad]].concat(),
            SECOND,
            &not_regular,
        );
    }
    for input in [
        format!("INPUT_A_income=@{fifo}"),
        format!("INPUT_A_income=@{fifo_csv}"),
    ]
    .iter()
    .chain(&["INPUT_A_income=@/dev/zero".to_string()])
    {
        fails_within(
            &["eval", &program, "-i", input, "-i", "INPUT_B_income=1"],
            SECOND,
            &not_regular,
        );
    }
    // A store whose file is a FIFO.
    let store = dir.join("store");
    for k in 1..=3 {
        std::fs::create_dir_all(store.join(format!("cp{k}"))).unwrap();
        mkfifo(&store.join(format!("cp{k}/shares.json")));
    }
    let store = store.to_str().unwrap();
    fails_within(
        &["reconstruct", &program, "--store", store],
        SECOND,
        &not_regular,
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_huge_input_or_store_is_refused_before_it_is_read() {
    let dir = scratch("huge");
    // Sparse: 8 GiB that cost no disk, and would cost 8 GiB of memory read.
    let huge = |name: &str| {
        let path = dir.join(name);
        std::fs::File::create(&path)
            .unwrap()
            .set_len(8 << 30)
            .unwrap();
        path
    };
    let program = millionaires();
    for name in ["huge.csv", "huge.json", "huge.txt"] {
        let input = format!("INPUT_A_income=@{}", huge(name).display());
        fails_within(
            &["eval", &program, "-i", &input, "-i", "INPUT_B_income=1"],
            SECOND,
            &["more than the"],
        );
    }
    let store = dir.join("store");
    std::fs::create_dir_all(store.join("cp1")).unwrap();
    std::fs::rename(huge("s"), store.join("cp1/shares.json")).unwrap();
    fails_within(
        &[
            "reconstruct",
            &program,
            "--store",
            store.to_str().unwrap(),
            "--max-memory",
            "1G",
        ],
        SECOND,
        &["more than the"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_private_key_others_can_read_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("mode");
    let key = dir.join("a.key");
    std::fs::copy(keys::file("a.key"), &key).unwrap();
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o640)).unwrap();
    let program = millionaires();
    let peer = keys::file("b.pub");
    let err = fails_within(
        &[
            "run",
            &program,
            "--party",
            "a",
            "--listen",
            "127.0.0.1:1",
            "-i",
            "INPUT_A_income=1",
            "--key",
            key.to_str().unwrap(),
            "--peer-key",
            &peer,
        ],
        Duration::from_secs(5),
        &["accessible by other users", "chmod 600"],
    );
    assert!(!err.contains("BEGIN"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_public_key_file_of_two_keys_is_refused() {
    let dir = scratch("two-keys");
    let two = dir.join("two.pub");
    let text = std::fs::read_to_string(keys::file("b.pub")).unwrap()
        + &std::fs::read_to_string(keys::file("mallory.pub")).unwrap();
    std::fs::write(&two, text).unwrap();
    fails_within(
        &[
            "run",
            &millionaires(),
            "--party",
            "a",
            "--listen",
            "127.0.0.1:1",
            "--key",
            &keys::file("a.key"),
            "--peer-key",
            two.to_str().unwrap(),
        ],
        Duration::from_secs(5),
        &["2 PEM blocks"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bad_value_is_shown_in_at_most_about_80_bytes() {
    let dir = scratch("long");
    // As long as the cap for a 32-bit value allows (a longer file is refused
    // before it is read).
    let cell = "9".repeat(1_000_000);
    let csv = dir.join("long.csv");
    std::fs::write(&csv, &cell).unwrap();
    let program = millionaires();
    let input = format!("INPUT_A_income=@{}", csv.display());
    let err = fails_within(
        &["eval", &program, "-i", &input, "-i", "INPUT_B_income=1"],
        Duration::from_secs(5),
        &["bytes)"],
    );
    assert!(err.len() < 1000, "{} bytes of error", err.len());
    let json = dir.join("long.json");
    std::fs::write(&json, format!("\"{}\"", &cell[..10000])).unwrap();
    let input = format!("INPUT_A_income=@{}", json.display());
    let err = fails_within(
        &["eval", &program, "-i", &input, "-i", "INPUT_B_income=1"],
        Duration::from_secs(5),
        &["bytes)"],
    );
    assert!(err.len() < 1000, "{} bytes of error", err.len());
    let input = format!("INPUT_A_income={}", &cell[..10000]);
    let err = fails_within(
        &["eval", &program, "-i", &input, "-i", "INPUT_B_income=1"],
        Duration::from_secs(5),
        &["bytes)"],
    );
    assert!(err.len() < 1000, "{} bytes of error", err.len());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_stored_name_given_twice_is_refused() {
    let dir = scratch("twice");
    let store = dir.join("store");
    let err = fails_within(
        &[
            "run",
            &millionaires(),
            "--parties",
            "3",
            "--local",
            "--store",
            store.to_str().unwrap(),
            "--out",
            "OUTPUT_richer=x",
            "--out",
            "OUTPUT_richer=y",
        ],
        Duration::from_secs(10),
        &["given twice"],
    );
    assert!(!err.contains("panicked"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_truncated_binary_program_is_called_truncated() {
    let dir = scratch("truncated");
    let full = dir.join("full.tfp");
    let compiled = Command::new(env!("CARGO_BIN_EXE_twofold"))
        .args(["compile", &millionaires(), "-o", full.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(compiled.status.success(), "{compiled:?}");
    let bytes = std::fs::read(&full).unwrap();
    // Inside the magic (it was read as a Bristol circuit), inside the
    // program, and inside the C values after it.
    for (cut, says) in [
        (5, "truncated twofold binary program"),
        (40, "the file is truncated"),
        (bytes.len() - 1, "the file is truncated"),
    ] {
        let path = dir.join(format!("cut{cut}.tfp"));
        std::fs::write(&path, &bytes[..cut]).unwrap();
        fails_within(&["stats", path.to_str().unwrap()], 10 * SECOND, &[says]);
    }
}
