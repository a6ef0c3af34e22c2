//! The secure-channel options of `run` between processes: this party's
//! key and the peers' public keys, or a pre-shared secret, or (explicitly)
//! none. See `docs/security.md`.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use twofold_net::{KeyPair, PublicKey, Security};
use twofold_protocol::Role;

use crate::files::{read_regular, refuse_if_shared, KEY_FILE_CAP};

/// Arguments of `run` that protect its connections.
#[derive(clap::Args, Debug, Default)]
pub struct SecureArgs {
    /// This party's private key (NAME.key from `twofold keygen -o NAME`).
    #[arg(long, value_name = "NAME.key", requires = "peer_keys")]
    pub key: Option<PathBuf>,
    /// The peer's public key (PEER.pub); with --parties 3, N=PEER.pub for
    /// each other computing party N.
    #[arg(long = "peer-key", value_name = "PEER.pub", requires = "key")]
    pub peer_keys: Vec<String>,
    /// Derive the parties' key from this shared secret file instead (at least
    /// 32 bytes, e.g. `head -c 32 /dev/urandom`); every party gives the same.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["key", "peer_keys"])]
    pub psk_file: Option<PathBuf>,
    /// Run without encryption or authentication (anyone on the network can
    /// read and change everything; for tests on a trusted network only).
    #[arg(long, conflicts_with_all = ["key", "peer_keys", "psk_file"])]
    pub insecure: bool,
}

/// Why a run between processes without keys is refused.
const NEED_KEYS: &str = "a run between processes needs a secure channel: give --key NAME.key --peer-key PEER.pub (make keys with `twofold keygen -o NAME` and swap the .pub files), or --psk-file FILE (a secret of at least 32 bytes that every party holds); --insecure runs without encryption or authentication";

impl SecureArgs {
    /// Whether any of the options was given.
    fn given(&self) -> bool {
        self.key.is_some() || !self.peer_keys.is_empty() || self.psk_file.is_some() || self.insecure
    }

    /// `--local` runs in this process and needs (takes) none of them.
    pub fn refuse_for_local(&self) -> Result<()> {
        if self.given() {
            bail!("--key, --peer-key, --psk-file and --insecure are for runs between processes; --local needs none");
        }
        Ok(())
    }

    /// The security of a two-party run between processes.
    pub fn two_parties(&self) -> Result<Security> {
        if let Some(security) = self.common()? {
            return Ok(security);
        }
        let key = self.key.as_deref().context(NEED_KEYS)?;
        let [peer] = self.peer_keys.as_slice() else {
            bail!("give one --peer-key (the other party's public key)");
        };
        let peer = read_public(Path::new(peer))?;
        tls(&read_private(key)?, &[peer])
    }

    /// The security of computing party `me` of the hybrid mode, and the key
    /// each role must hold (`None` with a pre-shared secret or --insecure).
    pub fn three_parties(&self, me: Role) -> Result<(Security, [Option<PublicKey>; 3])> {
        if let Some(security) = self.common()? {
            return Ok((security, [None; 3]));
        }
        let key = read_private(self.key.as_deref().context(NEED_KEYS)?)?;
        let mut keys = [None; 3];
        keys[me.index()] = Some(key.public());
        for spec in &self.peer_keys {
            let (role, file) = spec
                .split_once('=')
                .filter(|(r, _)| matches!(r.trim(), "1" | "2" | "3"))
                .with_context(|| {
                    format!(
                        "--peer-key `{spec}`: with --parties 3, write N=PEER.pub (N = 1, 2 or 3)"
                    )
                })?;
            let index = role.trim().parse::<usize>().expect("1, 2 or 3") - 1;
            if index == me.index() {
                bail!("--peer-key `{spec}`: that is this party ({me}); give the other two");
            }
            if keys[index].replace(read_public(Path::new(file))?).is_some() {
                bail!("--peer-key `{spec}`: party {role} given twice");
            }
        }
        if keys.iter().any(Option::is_none) {
            bail!("with --parties 3, give --peer-key N=PEER.pub for both other computing parties");
        }
        let peers: Vec<PublicKey> = Role::ALL
            .into_iter()
            .filter(|&r| r != me)
            .filter_map(|r| keys[r.index()])
            .collect();
        Ok((tls(&key, &peers)?, keys))
    }

    /// `--insecure` (with its warning) or `--psk-file`; `None` for keys.
    fn common(&self) -> Result<Option<Security>> {
        if self.insecure {
            eprintln!("twofold: warning: --insecure: the connections are neither encrypted nor authenticated; anyone on the network can read and change what the parties send (and so the result), or take the peer's place");
            return Ok(Some(Security::Plain));
        }
        match &self.psk_file {
            Some(path) => {
                let secret = read_secret(path, "--psk-file")?;
                let pair = KeyPair::from_psk(&secret)
                    .with_context(|| format!("--psk-file {}", path.display()))?;
                Ok(Some(tls(&pair, &[pair.public()])?))
            }
            None => Ok(None),
        }
    }
}

fn tls(ours: &KeyPair, peers: &[PublicKey]) -> Result<Security> {
    Security::tls(ours, peers).context("cannot set up the secure channel")
}

/// Reads a private key file (`--key`).
fn read_private(path: &Path) -> Result<KeyPair> {
    let text = read_secret(path, "--key")?;
    KeyPair::from_pem(&text).with_context(|| format!("--key {}", path.display()))
}

/// Reads a public key file (`--peer-key`).
fn read_public(path: &Path) -> Result<PublicKey> {
    let text = read_regular(path, "--peer-key", KEY_FILE_CAP)?;
    PublicKey::from_pem(&text).with_context(|| format!("--peer-key {}", path.display()))
}

/// Reads a secret file (`--key`, `--psk-file`): the owner's alone, a
/// regular file, small.
fn read_secret(path: &Path, what: &str) -> Result<zeroize::Zeroizing<Vec<u8>>> {
    let bytes = zeroize::Zeroizing::new(read_regular(path, what, KEY_FILE_CAP)?);
    refuse_if_shared(path, what)?;
    Ok(bytes)
}
