//! A computing party's share store (hybrid mode): named values, each with
//! its width, how it is shared and this party's share, in one file
//! `shares.json` in a directory. Writes replace the file atomically (a
//! temporary file renamed over it), so a run that fails or is killed leaves
//! the store as it was.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use twofold_protocol::ShareKind;

/// The file of a store, in its directory.
const FILE: &str = "shares.json";
/// What the file says it is.
const FORMAT: &str = "twofold-shares";

/// One party's share of a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredShare {
    /// How the value is shared.
    pub kind: ShareKind,
    /// This party's share, bit 0 (least significant) first; its length is
    /// the value's width.
    pub bits: Vec<bool>,
}

/// A store: a directory holding one party's shares by name.
#[derive(Clone, Debug)]
pub struct Store {
    dir: PathBuf,
}

/// The file as written.
#[derive(Serialize, Deserialize)]
struct StoreFile {
    format: String,
    values: BTreeMap<String, ValueRecord>,
}

#[derive(Serialize, Deserialize)]
struct ValueRecord {
    width: usize,
    kind: String,
    /// The share's bytes in hex, bit `i` in byte `i / 8` at bit `i % 8`.
    share: String,
}

impl Store {
    /// The store in `dir` (created when first written).
    pub fn at(dir: impl Into<PathBuf>) -> Store {
        Store { dir: dir.into() }
    }

    /// Its directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Every value in the store (none if it was never written).
    pub fn read_all(&self) -> Result<BTreeMap<String, StoredShare>> {
        let path = self.dir.join(FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        parse_store(&text).with_context(|| format!("{} is not a share store", path.display()))
    }

    /// The value `name`.
    pub fn read(&self, name: &str) -> Result<StoredShare> {
        self.read_all()?
            .remove(name)
            .with_context(|| format!("the store {} has no value `{name}`", self.dir.display()))
    }

    /// Adds `values` to the store (replacing values of the same names) in
    /// one atomic step.
    pub fn write(&self, values: &BTreeMap<String, StoredShare>) -> Result<()> {
        let mut all = self.read_all()?;
        all.extend(values.iter().map(|(n, v)| (n.clone(), v.clone())));
        let file = StoreFile {
            format: FORMAT.into(),
            values: all
                .iter()
                .map(|(name, share)| (name.clone(), ValueRecord::encode(share)))
                .collect(),
        };
        std::fs::create_dir_all(&self.dir)
            .with_context(|| format!("cannot create {}", self.dir.display()))?;
        write_atomically(
            &self.dir.join(FILE),
            serde_json::to_string_pretty(&file)?.as_bytes(),
        )
    }
}

/// Writes `bytes` to `path` in one atomic step: a temporary file in the same
/// directory, synced and renamed over `path`; a failed or killed write
/// leaves the old file (or none).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| -> std::io::Result<()> {
        let mut out = std::fs::File::create(&temp)?;
        out.write_all(bytes)?;
        out.sync_all()?;
        std::fs::rename(&temp, path)?;
        // The rename itself is durable once the directory is synced.
        std::fs::File::open(dir)?.sync_all()
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written.with_context(|| format!("cannot write {}", path.display()))
}

impl ValueRecord {
    fn encode(share: &StoredShare) -> ValueRecord {
        let bytes: String = share
            .bits
            .chunks(8)
            .map(|c| {
                let byte = c
                    .iter()
                    .enumerate()
                    .fold(0u8, |acc, (i, &b)| acc | (b as u8) << i);
                format!("{byte:02x}")
            })
            .collect();
        ValueRecord {
            width: share.bits.len(),
            kind: share.kind.name().into(),
            share: bytes,
        }
    }

    fn decode(&self) -> Result<StoredShare> {
        let kind = parse_kind(&self.kind)?;
        let hex = self.share.as_bytes();
        if hex.len() != 2 * self.width.div_ceil(8) {
            bail!("{} hex digits for {} bits", hex.len(), self.width);
        }
        let bytes = hex
            .chunks(2)
            .map(|pair| {
                std::str::from_utf8(pair)
                    .ok()
                    .and_then(|s| u8::from_str_radix(s, 16).ok())
                    .context("the share is not hex")
            })
            .collect::<Result<Vec<u8>>>()?;
        let bits = (0..self.width)
            .map(|i| (bytes[i / 8] >> (i % 8)) & 1 == 1)
            .collect();
        Ok(StoredShare { kind, bits })
    }
}

/// The values of a store file's text.
pub fn parse_store(text: &str) -> Result<BTreeMap<String, StoredShare>> {
    let file: StoreFile = serde_json::from_str(text)?;
    if file.format != FORMAT {
        bail!("its format is not `{FORMAT}`");
    }
    file.values
        .into_iter()
        .map(|(name, record)| {
            let share = record.decode().with_context(|| format!("value `{name}`"))?;
            Ok((name, share))
        })
        .collect()
}

/// `xor` or `add`.
pub fn parse_kind(text: &str) -> Result<ShareKind> {
    ShareKind::ALL
        .into_iter()
        .find(|k| k.name() == text)
        .with_context(|| format!("`{text}` is not a share kind (xor or add)"))
}

/// The stores of the three computing parties under `dir`: `dir/cp1`,
/// `dir/cp2`, `dir/cp3`.
pub fn party_stores(dir: &Path) -> [Store; 3] {
    [1, 2, 3].map(|k| Store::at(dir.join(format!("cp{k}"))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_and_writes_add_to_the_store() {
        let dir = std::env::temp_dir().join(format!("twofold-store-{}", std::process::id()));
        let store = Store::at(&dir);
        assert!(store.read_all().unwrap().is_empty());
        let a = StoredShare {
            kind: ShareKind::Add,
            bits: vec![
                true, false, true, true, false, false, false, false, true, true,
            ],
        };
        let b = StoredShare {
            kind: ShareKind::Xor,
            bits: vec![],
        };
        store
            .write(&BTreeMap::from([("a".to_string(), a.clone())]))
            .unwrap();
        store
            .write(&BTreeMap::from([("b".to_string(), b.clone())]))
            .unwrap();
        assert_eq!(store.read("a").unwrap(), a);
        assert_eq!(store.read("b").unwrap(), b);
        let err = store.read("c").unwrap_err().to_string();
        assert!(err.contains("no value `c`"), "{err}");
        // No temporary file is left behind.
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [FILE]);
        std::fs::write(dir.join(FILE), "{\"format\": \"twofold-shares\", \"values\": {\"x\": {\"width\": 9, \"kind\": \"xor\", \"share\": \"ff\"}}}").unwrap();
        assert!(store.read_all().is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
