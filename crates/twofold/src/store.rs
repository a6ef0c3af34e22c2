//! A computing party's share store (hybrid mode): named values, each with
//! its width, how it is shared and this party's share, in one file
//! `shares.json` in a directory. Writes replace the file atomically (a
//! temporary file renamed over it), so a run that fails or is killed leaves
//! the store as it was. The file is the owner's alone (mode 0600, in
//! directories made with mode 0700) and is read only if it is a regular
//! file no larger than the store's cap.

use std::collections::BTreeMap;
use std::fmt;
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
    cap: u64,
}

/// The largest store file read when `--max-memory` gives no limit.
const DEFAULT_CAP: u64 = 1 << 30;

/// The largest store file a command that may use `max_memory` bytes reads:
/// a quarter of it (a store's text is a quarter of a byte a bit).
pub fn store_cap(max_memory: Option<u64>) -> u64 {
    max_memory.map_or(DEFAULT_CAP, |m| m / 4)
}

/// The file as written.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoreFile {
    format: String,
    #[serde(deserialize_with = "unique_keys")]
    values: BTreeMap<String, ValueRecord>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ValueRecord {
    width: usize,
    kind: String,
    /// The share's bytes in hex, bit `i` in byte `i / 8` at bit `i % 8`.
    share: String,
}

impl Store {
    /// The store in `dir` (created when first written), whose file is
    /// read only up to `cap` bytes (see [`store_cap`]).
    pub fn at(dir: impl Into<PathBuf>, cap: u64) -> Store {
        Store {
            dir: dir.into(),
            cap,
        }
    }

    /// Its directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Every value in the store (none if it was never written).
    pub fn read_all(&self) -> Result<BTreeMap<String, StoredShare>> {
        let path = self.dir.join(FILE);
        if let Err(e) = std::fs::symlink_metadata(&path) {
            if e.kind() == std::io::ErrorKind::NotFound {
                return Ok(BTreeMap::new());
            }
        }
        let bytes = crate::files::read_regular(&path, "the share store", self.cap)?;
        let text = std::str::from_utf8(&bytes)
            .with_context(|| format!("{} is not a share store: not UTF-8", path.display()))?;
        parse_store(text).with_context(|| format!("{} is not a share store", path.display()))
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
        crate::files::create_private_dir(&self.dir)?;
        crate::files::write_private(
            &self.dir.join(FILE),
            serde_json::to_string_pretty(&file)?.as_bytes(),
        )
    }
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
        if !hex.iter().all(u8::is_ascii_hexdigit) {
            bail!("the share is not hex (digits 0-9, a-f only)");
        }
        let digit = |d: u8| (d as char).to_digit(16).expect("checked hex") as u8;
        let bytes: Vec<u8> = hex
            .chunks(2)
            .map(|pair| digit(pair[0]) << 4 | digit(pair[1]))
            .collect();
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

/// A JSON object as a map, refusing a key that appears twice (serde would
/// keep the last).
fn unique_keys<'de, D, V>(de: D) -> Result<BTreeMap<String, V>, D::Error>
where
    D: serde::Deserializer<'de>,
    V: Deserialize<'de>,
{
    struct Unique<V>(std::marker::PhantomData<V>);
    impl<'de, V: Deserialize<'de>> serde::de::Visitor<'de> for Unique<V> {
        type Value = BTreeMap<String, V>;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an object of named values")
        }

        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            while let Some((key, value)) = map.next_entry::<String, V>()? {
                if out.contains_key(&key) {
                    return Err(serde::de::Error::custom(format!(
                        "the value `{}` appears twice",
                        crate::files::clip(&key)
                    )));
                }
                out.insert(key, value);
            }
            Ok(out)
        }
    }
    de.deserialize_map(Unique(std::marker::PhantomData))
}

/// `xor` or `add`.
pub fn parse_kind(text: &str) -> Result<ShareKind> {
    ShareKind::ALL
        .into_iter()
        .find(|k| k.name() == text)
        .with_context(|| {
            format!(
                "`{}` is not a share kind (xor or add)",
                crate::files::clip(text)
            )
        })
}

/// The stores of the three computing parties under `dir`: `dir/cp1`,
/// `dir/cp2`, `dir/cp3`.
pub fn party_stores(dir: &Path, cap: u64) -> [Store; 3] {
    [1, 2, 3].map(|k| Store::at(dir.join(format!("cp{k}")), cap))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_and_writes_add_to_the_store() {
        let dir = std::env::temp_dir().join(format!("twofold-store-{}", std::process::id()));
        let store = Store::at(&dir, DEFAULT_CAP);
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

    #[test]
    fn a_signed_hex_share_and_a_name_given_twice_are_refused() {
        let file =
            |values: &str| format!("{{\"format\": \"twofold-shares\", \"values\": {{{values}}}}}");
        let one =
            |share: &str| format!("{{\"width\": 8, \"kind\": \"xor\", \"share\": \"{share}\"}}");
        assert!(parse_store(&file(&format!("\"x\": {}", one("ff")))).is_ok());
        for bad in ["+f", "-1", " f"] {
            let err = parse_store(&file(&format!("\"x\": {}", one(bad)))).unwrap_err();
            assert!(format!("{err:#}").contains("not hex"), "{bad}: {err:#}");
        }
        let twice = file(&format!("\"x\": {}, \"x\": {}", one("ff"), one("00")));
        let err = format!("{:#}", parse_store(&twice).unwrap_err());
        assert!(err.contains("`x` appears twice"), "{err}");
    }

    #[test]
    fn a_store_is_the_owners_alone() {
        use std::os::unix::fs::PermissionsExt;
        let top = crate::files::private_temp_dir("twofold-store-mode").unwrap();
        let dir = top.join("stores/cp1");
        let share = StoredShare {
            kind: ShareKind::Xor,
            bits: vec![true],
        };
        Store::at(&dir, DEFAULT_CAP)
            .write(&BTreeMap::from([("a".to_string(), share)]))
            .unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir.join(FILE)), 0o600);
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&top.join("stores")), 0o700);
        std::fs::remove_dir_all(&top).unwrap();
    }
}
