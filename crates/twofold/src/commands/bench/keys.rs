//! Key pairs for the benchmarks that start parties as processes: they run
//! as a user runs them, over the secure channel.

use std::path::PathBuf;

use anyhow::Result;
use twofold_net::KeyPair;

/// A private temporary directory (random name, mode 0700) with `NAME.key`
/// and `NAME.pub` for each name, removed on drop.
pub struct BenchKeys {
    dir: PathBuf,
}

impl BenchKeys {
    /// Fresh keys for `names`.
    pub fn new(names: &[&str]) -> Result<BenchKeys> {
        let keys = BenchKeys {
            dir: crate::files::private_temp_dir("twofold-bench-keys")?,
        };
        for name in names {
            let pair = KeyPair::generate()?;
            let file = |ext| keys.dir.join(format!("{name}.{ext}"));
            crate::files::write_private(&file("key"), pair.to_pem().as_bytes())?;
            crate::files::write_private(&file("pub"), pair.public().to_pem().as_bytes())?;
        }
        Ok(keys)
    }

    fn file(&self, name: &str) -> String {
        self.dir.join(name).display().to_string()
    }

    /// `--key NAME.key --peer-key PEER.pub`.
    pub fn two(&self, name: &str, peer: &str) -> Vec<String> {
        vec![
            "--key".into(),
            self.file(&format!("{name}.key")),
            "--peer-key".into(),
            self.file(&format!("{peer}.pub")),
        ]
    }

    /// `--key cpK.key` and `--peer-key N=cpN.pub` for the other two.
    pub fn three(&self, k: u16) -> Vec<String> {
        let mut args = vec!["--key".into(), self.file(&format!("cp{k}.key"))];
        for other in (1..=3).filter(|&o| o != k) {
            args.push("--peer-key".into());
            args.push(format!("{other}={}", self.file(&format!("cp{other}.pub"))));
        }
        args
    }
}

impl Drop for BenchKeys {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_live_in_a_private_directory_of_a_random_name() {
        use std::os::unix::fs::PermissionsExt;
        let (a, b) = (
            BenchKeys::new(&["x"]).unwrap(),
            BenchKeys::new(&["x"]).unwrap(),
        );
        assert_ne!(a.dir, b.dir, "a predictable directory");
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&a.dir), 0o700);
        assert_eq!(mode(&a.dir.join("x.key")), 0o600);
        let dir = a.dir.clone();
        drop(a);
        assert!(!dir.exists());
    }
}
