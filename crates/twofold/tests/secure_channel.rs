//! The secure channel from the command line, as an attacker on the network
//! sees it: tampering on the wire, a wrong peer key, an unauthenticated
//! peer, keys made by `keygen`, pre-shared secrets, and the three-party
//! mode with keys. Every failure must end both parties with an error and
//! no output, never with a result.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use twofold_testkit::relay::{Direction, Fault, Relay};

mod keys;

fn twofold() -> Command {
    Command::new(env!("CARGO_BIN_EXE_twofold"))
}

fn free_addr() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().to_string()
}

/// A synthetic program of about 2 x 10^6 AND gates (64 MB of garbled
/// tables), written once as a binary program.
fn big_program() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let body = twofold_circuit::synthetic::layered(4096, 64, 64, 3);
        let copies = 2_000_000u64.div_ceil(body.and_count() as u64) as u32;
        let program = twofold_circuit::synthetic::repeated(&body, copies);
        let path = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("twofold-secure-{}.tfc", std::process::id()));
        let mut file = std::fs::File::create(&path).unwrap();
        twofold_circuit::binary::write_program(&program, &mut file).unwrap();
        path
    })
}

/// Starts party `party` of `program` on `flag ADDR` with `extra` arguments.
fn party(
    program: &Path,
    party: &str,
    flag: &str,
    addr: &str,
    extra: &[String],
) -> std::process::Child {
    let zero = "0".to_string();
    let input = if program.extension().is_some_and(|e| e == "c") {
        if party == "a" {
            "INPUT_A_income=5"
        } else {
            "INPUT_B_income=7"
        }
        .to_string()
    } else {
        format!("{party}={zero}")
    };
    twofold()
        .arg("run")
        .arg(program)
        .args(["--party", party, flag, addr, "-i", &input])
        .args(["--threads", "1", "--schedule", "seq", "--timeout", "10"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Asserts that a party failed, printed nothing on stdout, and said
/// something containing every one of `needles`; returns its stderr.
fn refused(out: Output, who: &str, needles: &[&str]) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{who} succeeded: {err}");
    assert!(
        out.stdout.is_empty(),
        "{who} printed an output: {:?}",
        out.stdout
    );
    assert!(!err.contains("panicked"), "{who}: {err}");
    for needle in needles {
        assert!(err.contains(needle), "{who}: expected `{needle}` in: {err}");
    }
    err
}

/// A relay to party A listening at `target` that does `fault` to what A
/// sends (its garbled tables) on the first connection.
fn relay(target: &str, fault: Fault) -> Relay {
    Relay::start(target.parse().unwrap(), fault, Direction::ToConnector, 0).unwrap()
}

#[test]
fn tampering_on_the_wire_ends_both_parties_with_an_integrity_error_and_no_output() {
    let program = big_program();
    for fault in [
        Fault::Flip {
            offset: 1_000_000,
            mask: 0x10,
        },
        Fault::Duplicate {
            offset: 1_000_000,
            len: 4096,
        },
        Fault::Reorder {
            offset: 1_000_000,
            len: 1000,
        },
    ] {
        let addr = free_addr();
        let start = Instant::now();
        let a = party(program, "a", "--listen", &addr, &keys::two("a"));
        let relay = relay(&addr, fault);
        let via = relay.addr().to_string();
        let b = party(program, "b", "--connect", &via, &keys::two("b"));
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        let who = format!("{fault:?}");
        let integrity = "integrity/authentication check";
        refused(b, &format!("B, {who}"), &[integrity]);
        refused(a, &format!("A, {who}"), &[integrity]);
        assert!(
            start.elapsed() < Duration::from_secs(8),
            "{who}: took {:?}",
            start.elapsed()
        );
    }
}

#[test]
fn an_untouched_relay_gives_the_result() {
    let millionaires = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/millionaires.c");
    let addr = free_addr();
    let a = party(
        Path::new(millionaires),
        "a",
        "--listen",
        &addr,
        &keys::two("a"),
    );
    let relay = relay(
        &addr,
        Fault::Flip {
            offset: u64::MAX - 1,
            mask: 1,
        },
    );
    let via = relay.addr().to_string();
    let b = party(
        Path::new(millionaires),
        "b",
        "--connect",
        &via,
        &keys::two("b"),
    );
    for out in [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()] {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8(out.stdout).unwrap().trim(), "0");
    }
}

#[test]
fn a_wrong_peer_key_is_refused_on_both_sides() {
    let millionaires = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/millionaires.c"
    ));
    // A expects Mallory's key; B is who it is.
    let addr = free_addr();
    let a_args = vec![
        "--key".into(),
        keys::file("a.key"),
        "--peer-key".into(),
        keys::file("mallory.pub"),
    ];
    let a = party(millionaires, "a", "--listen", &addr, &a_args);
    let b = party(millionaires, "b", "--connect", &addr, &keys::two("b"));
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    refused(
        a,
        "A",
        &[
            "integrity/authentication",
            "not the one this party was told to accept",
        ],
    );
    refused(
        b,
        "B",
        &["integrity/authentication", "refused this party's key"],
    );
    // B holds Mallory's key.
    let addr = free_addr();
    let b_args = vec![
        "--key".into(),
        keys::file("mallory.key"),
        "--peer-key".into(),
        keys::file("a.pub"),
    ];
    let a = party(millionaires, "a", "--listen", &addr, &keys::two("a"));
    let b = party(millionaires, "b", "--connect", &addr, &b_args);
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    refused(a, "A", &["not the one this party was told to accept"]);
    refused(b, "B", &["refused this party's key"]);
}

#[test]
fn an_unauthenticated_peer_is_refused_and_no_keys_means_no_run() {
    let millionaires = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/millionaires.c"
    ));
    let addr = free_addr();
    let a = party(millionaires, "a", "--listen", &addr, &keys::two("a"));
    let b = party(
        millionaires,
        "b",
        "--connect",
        &addr,
        &["--insecure".into()],
    );
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    refused(a, "A", &["integrity/authentication", "not a valid TLS"]);
    let err = refused(b, "B", &[]);
    assert!(err.contains("warning: --insecure"), "{err}");
    // Neither keys nor --insecure: refused before anything starts.
    let started = Instant::now();
    let out = party(millionaires, "a", "--listen", &free_addr(), &[])
        .wait_with_output()
        .unwrap();
    refused(
        out,
        "A",
        &["--key", "--peer-key", "--psk-file", "--insecure", "keygen"],
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn keygen_writes_an_owner_only_private_key_and_never_overwrites() {
    let dir = std::env::temp_dir().join(format!("twofold-keygen-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let name = dir.join("alice");
    let keygen = |extra: &[&str]| {
        twofold()
            .arg("keygen")
            .arg("-o")
            .arg(&name)
            .args(extra)
            .output()
            .unwrap()
    };
    let out = keygen(&[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (key, public) = (dir.join("alice.key"), dir.join("alice.pub"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "NAME.key mode {mode:o}");
    }
    let first = std::fs::read(&key).unwrap();
    assert!(first.starts_with(b"-----BEGIN PRIVATE KEY-----"));
    assert!(std::fs::read(&public)
        .unwrap()
        .starts_with(b"-----BEGIN PUBLIC KEY-----"));
    // No secret on the terminal.
    let printed = String::from_utf8(out.stdout).unwrap();
    assert!(
        !printed.contains("BEGIN") && printed.contains("fingerprint"),
        "{printed}"
    );
    // Never replaced without --force.
    let out = keygen(&[]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--force"));
    assert_eq!(std::fs::read(&key).unwrap(), first);
    let out = keygen(&["--force"]);
    assert!(out.status.success());
    assert_ne!(std::fs::read(&key).unwrap(), first);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "NAME.key mode after --force {mode:o}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_pre_shared_secret_runs_and_a_different_one_is_refused() {
    let millionaires = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/millionaires.c"
    ));
    let dir = std::env::temp_dir().join(format!("twofold-psk-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let keygen = |name: &str, extra: &[&str]| {
        twofold()
            .args(["keygen", "--psk", "-o"])
            .arg(dir.join(name))
            .args(extra)
            .output()
            .unwrap()
    };
    let psk = |name: &str| {
        let out = keygen(name, &[]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let path = dir.join(format!("{name}.psk"));
        vec!["--psk-file".to_string(), path.display().to_string()]
    };
    let (one, two) = (psk("one"), psk("two"));
    // 256 bits in a 0600 file, created once, never printed.
    let text = std::fs::read_to_string(dir.join("one.psk")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "twofold-psk-v1");
    assert!(lines[1].len() == 64 && lines[1].bytes().all(|b| b.is_ascii_hexdigit()));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.join("one.psk"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let again = keygen("one", &[]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    assert_eq!(std::fs::read_to_string(dir.join("one.psk")).unwrap(), text);
    let addr = free_addr();
    let a = party(millionaires, "a", "--listen", &addr, &one);
    let b = party(millionaires, "b", "--connect", &addr, &one);
    for out in [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()] {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!String::from_utf8_lossy(&out.stdout).contains(lines[1]));
        assert_eq!(String::from_utf8(out.stdout).unwrap().trim(), "0");
    }
    let addr = free_addr();
    let a = party(millionaires, "a", "--listen", &addr, &one);
    let b = party(millionaires, "b", "--connect", &addr, &two);
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    refused(a, "A", &["integrity/authentication"]);
    refused(b, "B", &["integrity/authentication"]);
    // Each role has a key of its own: two parties both claiming A with the
    // right secret do not get past TLS.
    let addr = free_addr();
    let a = party(millionaires, "a", "--listen", &addr, &one);
    let fake = twofold()
        .arg("run")
        .arg(millionaires)
        .args(["--party", "a", "--connect", &addr, "-i", "INPUT_A_income=5"])
        .args(["--timeout", "10"])
        .args(&one)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (a, fake) = (
        a.wait_with_output().unwrap(),
        fake.wait_with_output().unwrap(),
    );
    refused(a, "A", &["integrity/authentication"]);
    refused(fake, "the second A", &["integrity/authentication"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_passphrase_is_refused_before_any_network_activity() {
    let millionaires = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/millionaires.c"
    ));
    let dir = std::env::temp_dir().join(format!("twofold-passphrase-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    for (name, secret) in [
        ("phrase", "our lab secret for twofold runs 2024\n"),
        (
            "random",
            "5f0c2a9e81d4b7366e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f\n",
        ),
        (
            "short",
            "twofold-psk-v1\n5f0c2a9e81d4b7366e0f1a2b3c4d5e6f\n",
        ),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, secret).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let perms = std::fs::Permissions::from_mode(0o600);
            std::fs::set_permissions(&path, perms).unwrap();
        }
        let psk = vec!["--psk-file".to_string(), path.display().to_string()];
        let out = party(millionaires, "b", "--connect", &addr, &psk)
            .wait_with_output()
            .unwrap();
        let err = refused(out, "B", &["keygen --psk"]);
        assert!(
            !err.contains("lab secret") && !err.contains("5f0c2a9e"),
            "{err}"
        );
    }
    // No connection was ever opened.
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "a refused party connected");
    std::fs::remove_dir_all(&dir).unwrap();
}
