//! `twofold keygen -o NAME`: a party's key pair for secure channels —
//! `NAME.key` (the private key, PKCS#8 PEM, mode 0600) and `NAME.pub` (the
//! public key, SubjectPublicKeyInfo PEM, to give to the peers); with
//! `--psk`, a pre-shared secret for two parties instead — `NAME.psk` (256
//! random bits, mode 0600).

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Serialize;
use twofold_net::{KeyPair, Psk};

use super::Report;

/// Arguments of `keygen`.
#[derive(clap::Args, Debug)]
pub struct KeygenArgs {
    /// Write NAME.key (private: keep it) and NAME.pub (public: give it to
    /// the peers).
    #[arg(short = 'o', long = "output", value_name = "NAME")]
    name: PathBuf,
    /// Replace NAME.key and NAME.pub (NAME.psk) if they exist.
    #[arg(long)]
    force: bool,
    /// Write a pre-shared secret NAME.psk (256 random bits, for
    /// `run --psk-file` by two parties) instead of a key pair.
    #[arg(long)]
    psk: bool,
    /// One JSON object on stdout (the files and the key's fingerprint).
    #[arg(long)]
    json: bool,
}

/// What `keygen` reports.
#[derive(Serialize)]
pub struct KeygenReport {
    /// The private key file.
    pub private_key: PathBuf,
    /// The public key file.
    pub public_key: PathBuf,
    /// The first 8 bytes of the public key's SHA-256, in hex.
    pub fingerprint: String,
}

impl Report for KeygenReport {
    fn text(&self) -> String {
        format!(
            "wrote {} (private: keep it secret) and {} (public: give it to the peers)\nkey fingerprint: {}\n",
            self.private_key.display(),
            self.public_key.display(),
            self.fingerprint
        )
    }
}

/// What `keygen --psk` reports.
#[derive(Serialize)]
pub struct PskReport {
    /// The secret's file.
    pub psk_file: PathBuf,
}

impl Report for PskReport {
    fn text(&self) -> String {
        format!(
            "wrote {} (secret: give it to the other party over a channel you trust; both run with --psk-file)\n",
            self.psk_file.display()
        )
    }
}

/// `NAME` with `.ext` appended.
fn with_ext(name: &Path, ext: &str) -> PathBuf {
    let mut path = name.as_os_str().to_owned();
    path.push(ext);
    PathBuf::from(path)
}

/// Makes the key pair (or the secret) and writes the files.
pub fn keygen(args: &KeygenArgs) -> Result<String> {
    if args.psk {
        return write_psk(&args.name, args.force)?.render(args.json);
    }
    write_key_pair(&args.name, args.force)?.render(args.json)
}

/// Writes a new pre-shared secret to `NAME.psk` (mode 0600); an existing
/// file is replaced only with `force`.
pub fn write_psk(name: &Path, force: bool) -> Result<PskReport> {
    let path = with_ext(name, ".psk");
    if !force && path.exists() {
        bail!(
            "{} exists; keygen does not replace secrets (use --force, or another NAME)",
            path.display()
        );
    }
    write_private(&path, Psk::generate()?.to_text().as_bytes(), force)?;
    Ok(PskReport { psk_file: path })
}

/// Makes a key pair and writes `NAME.key` (private, mode 0600) and
/// `NAME.pub`; existing files are replaced only with `force`.
pub fn write_key_pair(name: &Path, force: bool) -> Result<KeygenReport> {
    let (key_path, pub_path) = (with_ext(name, ".key"), with_ext(name, ".pub"));
    if !force {
        for path in [&key_path, &pub_path] {
            if path.exists() {
                bail!(
                    "{} exists; keygen does not replace keys (use --force, or another NAME)",
                    path.display()
                );
            }
        }
    }
    let pair = KeyPair::generate()?;
    write_private(&key_path, pair.to_pem().as_bytes(), force)?;
    crate::files::write_atomically(&pub_path, pair.public().to_pem().as_bytes())?;
    Ok(KeygenReport {
        private_key: key_path,
        public_key: pub_path,
        fingerprint: pair.public().fingerprint(),
    })
}

/// Writes `pem` to `path`, readable by its owner only from the start
/// (created with mode 0600, never widened): without `force`, only if
/// `path` does not exist (checked by the creation itself); with it, through
/// a temporary file renamed over `path`.
fn write_private(path: &Path, pem: &[u8], force: bool) -> Result<()> {
    if force {
        return crate::files::write_private(path, pem);
    }
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = (|| -> std::io::Result<()> {
        let mut file = options.open(path)?;
        file.write_all(pem)?;
        file.sync_all()
    })();
    written.with_context(|| format!("cannot write {}", path.display()))
}
