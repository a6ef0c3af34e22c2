//! Key files for the tests that run parties as processes: made once per
//! test binary in a directory of Cargo's target (`CARGO_TARGET_TMPDIR`),
//! where what is left is cleaned with the build.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use twofold_net::KeyPair;

/// The directory holding `NAME.key` and `NAME.pub` for NAME in `a`, `b`,
/// `cp1`, `cp2`, `cp3` and `mallory`.
pub fn dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("twofold-test-keys-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["a", "b", "cp1", "cp2", "cp3", "mallory"] {
            let pair = KeyPair::generate().unwrap();
            std::fs::write(dir.join(format!("{name}.key")), pair.to_pem().as_bytes()).unwrap();
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let perms = std::fs::Permissions::from_mode(0o600);
                std::fs::set_permissions(dir.join(format!("{name}.key")), perms).unwrap();
            }
            std::fs::write(dir.join(format!("{name}.pub")), pair.public().to_pem()).unwrap();
        }
        dir
    })
}

/// A key file of `name` (`a.key`, `b.pub`, ...).
pub fn file(name: &str) -> String {
    dir().join(name).display().to_string()
}

/// `--key` and `--peer-key` for party `party` (`a` or `b`) of a two-party run.
pub fn two(party: &str) -> Vec<String> {
    let peer = if party == "a" { "b" } else { "a" };
    vec![
        "--key".into(),
        file(&format!("{party}.key")),
        "--peer-key".into(),
        file(&format!("{peer}.pub")),
    ]
}

/// `--key` and both `--peer-key N=FILE` for computing party `k` (1, 2, 3).
pub fn three(k: &str) -> Vec<String> {
    let mut args = vec!["--key".into(), file(&format!("cp{k}.key"))];
    for other in ["1", "2", "3"].into_iter().filter(|&o| o != k) {
        args.push("--peer-key".into());
        args.push(format!("{other}={}", file(&format!("cp{other}.pub"))));
    }
    args
}
