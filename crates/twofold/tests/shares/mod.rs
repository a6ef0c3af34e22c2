//! The hybrid mode through the binary: `share`, `run --parties 3 --local`,
//! `reconstruct`.

use std::path::Path;
use std::process::Command;

/// Shares the `-i` values `inputs` of `file` as `kind` (with the program
/// options `options`, e.g. `--owner`), runs the three computing parties
/// storing the outputs as `stored` (`--out` arguments, for outputs named as
/// inputs) and reconstructs them; returns what `reconstruct` printed (with
/// `--json` in `options`, its JSON).
pub fn through_shares(
    file: &Path,
    inputs: &[String],
    options: &[&str],
    stored: &[String],
    kind: &str,
) -> String {
    let store = tempfile_dir();
    let twofold = |args: &[&str], more: &[String]| {
        let out = Command::new(env!("CARGO_BIN_EXE_twofold"))
            .args(args)
            .args(more)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "twofold {args:?} {}: {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let (file_arg, store_arg) = (file.to_str().unwrap(), store.to_str().unwrap());
    let owners: Vec<String> = options
        .iter()
        .filter(|o| **o != "--json")
        .map(|o| o.to_string())
        .collect();
    let shared: Vec<String> = inputs
        .iter()
        .cloned()
        .chain(owners.iter().cloned())
        .collect();
    twofold(
        &["share", file_arg, "--kind", kind, "--out", store_arg],
        &shared,
    );
    twofold(
        &[
            "run",
            file_arg,
            "--parties",
            "3",
            "--local",
            "--kind",
            kind,
            "--store",
            store_arg,
        ],
        &[&owners[..], stored].concat(),
    );
    let json: Vec<String> = options
        .iter()
        .filter(|o| **o == "--json")
        .map(|o| o.to_string())
        .collect();
    let out = twofold(
        &["reconstruct", file_arg, "--store", store_arg],
        &[&owners[..], stored, &json].concat(),
    );
    std::fs::remove_dir_all(&store).unwrap();
    out
}

/// A fresh directory under the system's temporary directory.
fn tempfile_dir() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "twofold-shares-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}
