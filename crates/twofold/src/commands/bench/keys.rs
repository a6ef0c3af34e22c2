//! Key pairs for the benchmarks that start parties as processes: they run
//! as a user runs them, over the secure channel.

use std::path::PathBuf;

use anyhow::{Context, Result};
use twofold_net::KeyPair;

/// A temporary directory with `NAME.key` and `NAME.pub` for each name,
/// removed on drop.
pub struct BenchKeys {
    dir: PathBuf,
}

impl BenchKeys {
    /// Fresh keys for `names`.
    pub fn new(names: &[&str]) -> Result<BenchKeys> {
        let dir = std::env::temp_dir().join(format!("twofold-bench-keys-{}", std::process::id()));
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let keys = BenchKeys { dir };
        for name in names {
            let pair = KeyPair::generate()?;
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create(true).truncate(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            let key = keys.file(&format!("{name}.key"));
            std::io::Write::write_all(&mut options.open(&key)?, pair.to_pem().as_bytes())?;
            std::fs::write(keys.file(&format!("{name}.pub")), pair.public().to_pem())?;
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
