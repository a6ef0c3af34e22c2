//! The secure-channel options of `run` between processes: this party's
//! key and the peers' public keys, or (two parties only) a pre-shared
//! secret, or (explicitly) none. See `docs/security.md`.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use twofold_circuit::Party;
use twofold_net::{KeyPair, Psk, PublicKey, Security};
use twofold_protocol::Role;

use crate::files::{clip, read_regular, refuse_if_shared, KEY_FILE_CAP};

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
    /// Two parties only: authenticate with this pre-shared secret instead
    /// (NAME.psk from `twofold keygen --psk -o NAME`, given to both).
    #[arg(long, value_name = "NAME.psk", conflicts_with_all = ["key", "peer_keys"])]
    pub psk_file: Option<PathBuf>,
    /// Run without encryption or authentication (anyone on the network can
    /// read and change everything; for tests on a trusted network only).
    #[arg(long, conflicts_with_all = ["key", "peer_keys", "psk_file"])]
    pub insecure: bool,
}

/// Why a run between processes without keys is refused.
const NEED_KEYS: &str = "a run between processes needs a secure channel: give --key NAME.key --peer-key PEER.pub (make keys with `twofold keygen -o NAME` and swap the .pub files), or, for two parties, --psk-file NAME.psk (a secret made by `twofold keygen --psk -o NAME` that both hold); --insecure runs without encryption or authentication";

/// Why the three-party mode refuses a pre-shared secret.
const NO_GROUP_PSK: &str = "--psk-file is for two parties: with --parties 3 all three would hold the secret, and any of them could take another's role (and, between CP1 and CP2, read everything); give each computing party a key of its own (`twofold keygen -o NAME`) and --key NAME.key --peer-key N=PEER.pub for the other two";

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

    /// The security of party `me` of a two-party run between processes.
    /// With a pre-shared secret each party derives the key of its own role
    /// and pins the other role's, so neither can present the other's key.
    pub fn two_parties(&self, me: Party) -> Result<Security> {
        if self.insecure {
            return Ok(insecure());
        }
        if let Some(path) = &self.psk_file {
            let psk = read_psk(path)?;
            let (ours, theirs) = match me {
                Party::A => ("a", "b"),
                Party::B => ("b", "a"),
            };
            let pair = KeyPair::from_psk(&psk, ours)?;
            let peer = KeyPair::from_psk(&psk, theirs)?.public();
            return tls(&pair, &[peer]);
        }
        let key = self.key.as_deref().context(NEED_KEYS)?;
        let [peer] = self.peer_keys.as_slice() else {
            bail!("give one --peer-key (the other party's public key)");
        };
        let peer = read_public(Path::new(peer))?;
        tls(&read_private(key)?, &[peer])
    }

    /// The security of computing party `me` of the hybrid mode, and the key
    /// each role must hold (`None` only with --insecure). A pre-shared
    /// secret is refused, and so are two roles with one key.
    pub fn three_parties(&self, me: Role) -> Result<(Security, [Option<PublicKey>; 3])> {
        if self.insecure {
            return Ok((insecure(), [None; 3]));
        }
        if self.psk_file.is_some() {
            bail!(NO_GROUP_PSK);
        }
        let key = read_private(self.key.as_deref().context(NEED_KEYS)?)?;
        let mut keys = [None; 3];
        keys[me.index()] = Some(key.public());
        for spec in &self.peer_keys {
            let shown = clip(spec);
            let (role, file) = spec
                .split_once('=')
                .filter(|(r, _)| matches!(r.trim(), "1" | "2" | "3"))
                .with_context(|| {
                    format!(
                        "--peer-key `{shown}`: with --parties 3, write N=PEER.pub (N = 1, 2 or 3)"
                    )
                })?;
            let index = role.trim().parse::<usize>().expect("1, 2 or 3") - 1;
            if index == me.index() {
                bail!("--peer-key `{shown}`: that is this party ({me}); give the other two");
            }
            if keys[index].replace(read_public(Path::new(file))?).is_some() {
                bail!("--peer-key `{shown}`: party {role} given twice");
            }
        }
        let [Some(k1), Some(k2), Some(k3)] = keys else {
            bail!("with --parties 3, give --peer-key N=PEER.pub for both other computing parties");
        };
        for (i, j) in [(0, 1), (0, 2), (1, 2)] {
            let (ki, kj) = ([k1, k2, k3][i], [k1, k2, k3][j]);
            if ki == kj {
                bail!(
                    "CP{} and CP{} have the same public key ({ki}); each computing party needs a key of its own (`twofold keygen -o NAME`), or one could take the other's role",
                    i + 1,
                    j + 1
                );
            }
        }
        let peers: Vec<PublicKey> = Role::ALL
            .into_iter()
            .filter(|&r| r != me)
            .filter_map(|r| keys[r.index()])
            .collect();
        Ok((tls(&key, &peers)?, keys))
    }
}

/// `--insecure`, with its warning.
fn insecure() -> Security {
    eprintln!("twofold: warning: --insecure: the connections are neither encrypted nor authenticated; anyone on the network can read and change what the parties send (and so the result), or take the peer's place");
    Security::Plain
}

/// Reads a pre-shared secret file (`--psk-file`).
fn read_psk(path: &Path) -> Result<Psk> {
    let text = read_secret(path, "--psk-file")?;
    Psk::from_text(&text).with_context(|| format!("--psk-file {}", path.display()))
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
