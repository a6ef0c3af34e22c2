//! A computing party's share store (hybrid mode): named values, each with
//! its width, how it is shared (kind and lane) and this party's share, in
//! one file
//! `shares.json` in a directory. Writes replace the file atomically (a
//! temporary file renamed over it), so a run that fails or is killed leaves
//! the store as it was. The file is the owner's alone (mode 0600, in
//! directories made with mode 0700) and is read only if it is a regular
//! file no larger than the store's cap.
//!
//! Every share carries the id of the run that made it (`share` or a hybrid
//! run: one random id for all three parties' shares of it), so that shares
//! of one value from different runs — left by a run that failed in one
//! store only — are refused instead of combined into garbage. Every store
//! has an id of its own (random, made when it is first written), so that
//! two parties whose stores are the same place are refused.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use twofold_protocol::{RunId, ShareKind};

use crate::files::{clip, hex};

/// The file of a store, in its directory.
const FILE: &str = "shares.json";
/// What the file says it is.
const FORMAT: &str = "twofold-shares/2";
/// What files of the first format (no run ids) say they are.
const OLD_FORMAT: &str = "twofold-shares";

/// A store's identity.
pub type StoreId = [u8; 16];

/// One party's share of a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredShare {
    /// How the value is shared.
    pub kind: ShareKind,
    /// The lane of the sharing (see [`crate::load::lane_of`]): additive
    /// shares are taken modulo 2^lane in each lane of `lane` bits. At
    /// least 1, dividing the width.
    pub lane: u32,
    /// This party's share, bit 0 (least significant) first; its length is
    /// the value's width.
    pub bits: Vec<bool>,
    /// The run that made it.
    pub run: RunId,
}

/// A store file's contents.
#[derive(Clone, Debug, Default)]
pub struct Contents {
    /// The store's identity (`None` for a store never written).
    pub id: Option<StoreId>,
    /// The values by name.
    pub values: BTreeMap<String, StoredShare>,
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
    /// The store's id, 32 hex digits.
    id: String,
    #[serde(deserialize_with = "unique_keys")]
    values: BTreeMap<String, ValueRecord>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ValueRecord {
    width: usize,
    kind: String,
    /// The lane in bits (absent in stores written before lanes: the
    /// whole width).
    #[serde(default)]
    lane: Option<u32>,
    /// The share's bytes in hex, bit `i` in byte `i / 8` at bit `i % 8`.
    share: String,
    /// The run that made it, 32 hex digits.
    run: String,
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
        Ok(self.contents()?.values)
    }

    /// The store's id and values (none if it was never written).
    pub fn contents(&self) -> Result<Contents> {
        let path = self.dir.join(FILE);
        if let Err(e) = std::fs::symlink_metadata(&path) {
            if e.kind() == std::io::ErrorKind::NotFound {
                return Ok(Contents::default());
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
        self.stage(values)?.commit()
    }

    /// The store with `values` added, written beside it but not yet in
    /// place: [`Staged::commit`] puts it there; dropped, it is removed.
    pub fn stage(&self, values: &BTreeMap<String, StoredShare>) -> Result<Staged> {
        let Contents {
            id,
            values: mut all,
        } = self.contents()?;
        all.extend(values.iter().map(|(n, v)| (n.clone(), v.clone())));
        let id = match id {
            Some(id) => id,
            None => random_id()?,
        };
        let file = StoreFile {
            format: FORMAT.into(),
            id: hex(&id),
            values: all
                .iter()
                .map(|(name, share)| (name.clone(), ValueRecord::encode(share)))
                .collect(),
        };
        crate::files::create_private_dir(&self.dir)?;
        let path = self.dir.join(FILE);
        let text = serde_json::to_string_pretty(&file)?;
        let temp = crate::files::stage(&path, text.as_bytes(), 0o600)?;
        Ok(Staged {
            temp: Some(temp),
            path,
        })
    }
}

/// A store's new file, written and synced beside the store, not yet in
/// place (removed if dropped uncommitted).
pub struct Staged {
    temp: Option<PathBuf>,
    path: PathBuf,
}

impl Staged {
    /// Renames the new file over the store's.
    pub fn commit(mut self) -> Result<()> {
        let temp = self.temp.take().expect("staged once");
        crate::files::commit(&temp, &self.path)
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some(temp) = self.temp.take() {
            let _ = std::fs::remove_file(temp);
        }
    }
}

/// Writes `values[k]` to `stores[k]` for every k, all or none: every new
/// file is staged first, and only once all are written are they renamed
/// into place (a failed write, a full disk, a missing directory leaves
/// every store as it was).
pub fn write_all_or_none(stores: &[Store], values: &[BTreeMap<String, StoredShare>]) -> Result<()> {
    let staged = stores
        .iter()
        .zip(values)
        .map(|(store, values)| store.stage(values))
        .collect::<Result<Vec<_>>>()?;
    staged.into_iter().try_for_each(Staged::commit)
}

/// Fails if two of `stores` are the same place: the same directory once
/// symlinks are resolved, or files of the same store id (a link or a
/// copy). `names` names them in the message.
pub fn refuse_shared_stores(stores: &[Store], names: &[&str]) -> Result<()> {
    let places: Vec<(Option<PathBuf>, Option<StoreId>)> = stores
        .iter()
        .map(|s| Ok((std::fs::canonicalize(s.dir()).ok(), s.contents()?.id)))
        .collect::<Result<_>>()?;
    for i in 0..places.len() {
        for j in i + 1..places.len() {
            let same_dir = places[i].0.is_some() && places[i].0 == places[j].0;
            let same_id = places[i].1.is_some() && places[i].1 == places[j].1;
            if same_dir || same_id {
                bail!(
                    "the stores of {} ({}) and {} ({}) are the same store{}; each computing party needs its own",
                    names[i],
                    stores[i].dir().display(),
                    names[j],
                    stores[j].dir().display(),
                    if same_dir { " (one directory)" } else { " (the same store id: a link or a copy)" }
                );
            }
        }
    }
    Ok(())
}

/// A fresh random id (OS randomness).
pub fn random_id() -> Result<[u8; 16]> {
    crate::files::random_bytes()
}

/// Bytes from hex digits (no sign, no space: only 0-9, a-f, A-F).
fn from_hex(text: &str) -> Result<Vec<u8>> {
    let hex = text.as_bytes();
    if !hex.len().is_multiple_of(2) || !hex.iter().all(u8::is_ascii_hexdigit) {
        bail!("`{}` is not hex (digits 0-9, a-f only)", clip(text));
    }
    let digit = |d: u8| (d as char).to_digit(16).expect("checked hex") as u8;
    Ok(hex
        .chunks(2)
        .map(|pair| digit(pair[0]) << 4 | digit(pair[1]))
        .collect())
}

/// A 16-byte id from 32 hex digits.
fn id_from_hex(text: &str, what: &str) -> Result<[u8; 16]> {
    from_hex(text)?
        .try_into()
        .map_err(|_| anyhow::anyhow!("{what} is not 32 hex digits"))
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
            lane: Some(share.lane),
            share: bytes,
            run: hex(&share.run),
        }
    }

    fn decode(&self) -> Result<StoredShare> {
        let kind = parse_kind(&self.kind)?;
        if self.share.len() != 2 * self.width.div_ceil(8) {
            bail!("{} hex digits for {} bits", self.share.len(), self.width);
        }
        let bytes = from_hex(&self.share).context("the share")?;
        let run = id_from_hex(&self.run, "the run")?;
        let width = u32::try_from(self.width).context("the width")?;
        let lane = self.lane.unwrap_or(width.max(1));
        if lane == 0 || !width.is_multiple_of(lane) {
            bail!("lanes of {lane} bits do not cut a value of {width} bits");
        }
        let bits = (0..self.width)
            .map(|i| (bytes[i / 8] >> (i % 8)) & 1 == 1)
            .collect();
        Ok(StoredShare {
            kind,
            lane,
            bits,
            run,
        })
    }
}

/// The id and values of a store file's text.
pub fn parse_store(text: &str) -> Result<Contents> {
    #[derive(Deserialize)]
    struct Format {
        format: String,
    }
    if let Ok(Format { format }) = serde_json::from_str::<Format>(text) {
        if format == OLD_FORMAT {
            bail!("it was written by an older twofold, without run ids; share the values again (`twofold share`)");
        }
    }
    let file: StoreFile = serde_json::from_str(text)?;
    if file.format != FORMAT {
        bail!("its format is not `{FORMAT}`");
    }
    let id = id_from_hex(&file.id, "the store id")?;
    let values = file
        .values
        .into_iter()
        .map(|(name, record)| {
            let share = record
                .decode()
                .with_context(|| format!("value `{}`", clip(&name)))?;
            Ok((name, share))
        })
        .collect::<Result<_>>()?;
    Ok(Contents {
        id: Some(id),
        values,
    })
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
            lane: 5,
            bits: vec![
                true, false, true, true, false, false, false, false, true, true,
            ],
            run: [1; 16],
        };
        let b = StoredShare {
            kind: ShareKind::Xor,
            lane: 1,
            bits: vec![],
            run: [2; 16],
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
        let id = store.contents().unwrap().id.unwrap();
        std::fs::write(dir.join(FILE), file(&format!("\"x\": {}", value(9, "ff")))).unwrap();
        assert!(store.read_all().is_err());
        // A store of the first format says what to do.
        std::fs::write(dir.join(FILE), "{\"format\": \"twofold-shares\", \"values\": {\"x\": {\"width\": 8, \"kind\": \"xor\", \"share\": \"ff\"}}}").unwrap();
        let err = format!("{:#}", store.read_all().unwrap_err());
        assert!(err.contains("share the values again"), "{err}");
        assert_ne!(id, [0; 16]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A store file of `values` (JSON members).
    fn file(values: &str) -> String {
        format!(
            "{{\"format\": \"{FORMAT}\", \"id\": \"{}\", \"values\": {{{values}}}}}",
            "ab".repeat(16)
        )
    }

    /// A value record of `width` bits and hex `share`.
    fn value(width: usize, share: &str) -> String {
        format!(
            "{{\"width\": {width}, \"kind\": \"xor\", \"share\": \"{share}\", \"run\": \"{}\"}}",
            "cd".repeat(16)
        )
    }

    #[test]
    fn a_signed_hex_share_and_a_name_given_twice_are_refused() {
        let one = |share: &str| value(8, share);
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
    fn a_share_records_its_lane_and_an_old_record_has_one_lane() {
        let record = |lane: &str| {
            file(&format!(
                "\"x\": {{\"width\": 32, \"kind\": \"add\",{lane} \"share\": \"01020304\", \"run\": \"{}\"}}",
                "cd".repeat(16)
            ))
        };
        let lane = |text: &str| parse_store(text).map(|c| c.values["x"].lane);
        assert_eq!(lane(&record(" \"lane\": 8,")).unwrap(), 8);
        // Written before lanes: the whole width.
        assert_eq!(lane(&record("")).unwrap(), 32);
        for bad in ["0", "3", "64"] {
            let err = lane(&record(&format!(" \"lane\": {bad},"))).unwrap_err();
            assert!(format!("{err:#}").contains("do not cut"), "{bad}: {err:#}");
        }
        // The lane is written.
        let share = StoredShare {
            kind: ShareKind::Add,
            lane: 8,
            bits: vec![false; 32],
            run: [1; 16],
        };
        let json = serde_json::to_value(ValueRecord::encode(&share)).unwrap();
        assert_eq!(json["lane"], 8);
        assert_eq!(ValueRecord::encode(&share).decode().unwrap(), share);
    }

    #[test]
    fn a_store_is_the_owners_alone() {
        use std::os::unix::fs::PermissionsExt;
        let top = crate::files::private_temp_dir("twofold-store-mode").unwrap();
        let dir = top.join("stores/cp1");
        let share = StoredShare {
            kind: ShareKind::Xor,
            lane: 1,
            bits: vec![true],
            run: [3; 16],
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

    #[test]
    fn a_run_id_must_be_32_hex_digits() {
        let run = |run: &str| {
            file(&format!(
                "\"x\": {{\"width\": 8, \"kind\": \"xor\", \"share\": \"ff\", \"run\": \"{run}\"}}"
            ))
        };
        assert!(parse_store(&run(&"0".repeat(32))).is_ok());
        for bad in ["", "00", &"+0".repeat(16), &"0".repeat(34)] {
            assert!(parse_store(&run(bad)).is_err(), "{bad}");
        }
        let no_run = file("\"x\": {\"width\": 8, \"kind\": \"xor\", \"share\": \"ff\"}");
        assert!(parse_store(&no_run).is_err());
    }

    #[test]
    fn a_failed_write_in_one_store_changes_none() {
        let top = crate::files::private_temp_dir("twofold-store-stage").unwrap();
        let stores: Vec<Store> = (1..=3)
            .map(|k| Store::at(top.join(format!("cp{k}")), DEFAULT_CAP))
            .collect();
        let values = |run: u8| {
            BTreeMap::from([(
                "v".to_string(),
                StoredShare {
                    kind: ShareKind::Xor,
                    lane: 1,
                    bits: vec![true],
                    run: [run; 16],
                },
            )])
        };
        let first = [values(1), values(1), values(1)];
        write_all_or_none(&stores, &first).unwrap();
        // The third store cannot be written: its directory is now a file.
        std::fs::remove_dir_all(top.join("cp3")).unwrap();
        std::fs::write(top.join("cp3"), "not a directory").unwrap();
        let second = [values(2), values(2), values(2)];
        assert!(write_all_or_none(&stores, &second).is_err());
        for store in &stores[..2] {
            assert_eq!(store.read("v").unwrap().run, [1; 16]);
            let names: Vec<_> = std::fs::read_dir(store.dir()).unwrap().collect();
            assert_eq!(names.len(), 1, "a staged file was left behind");
        }
        std::fs::remove_dir_all(&top).unwrap();
    }

    #[test]
    fn two_parties_in_one_store_are_refused() {
        let top = crate::files::private_temp_dir("twofold-store-same").unwrap();
        let share = BTreeMap::from([(
            "v".to_string(),
            StoredShare {
                kind: ShareKind::Xor,
                lane: 1,
                bits: vec![true],
                run: [1; 16],
            },
        )]);
        let stores: Vec<Store> = (1..=3)
            .map(|k| Store::at(top.join(format!("cp{k}")), DEFAULT_CAP))
            .collect();
        for store in &stores {
            store.write(&share).unwrap();
        }
        let names = ["CP1", "CP2", "CP3"];
        refuse_shared_stores(&stores, &names).unwrap();
        // CP2's directory a link to CP1's.
        std::fs::remove_dir_all(top.join("cp2")).unwrap();
        std::os::unix::fs::symlink(top.join("cp1"), top.join("cp2")).unwrap();
        let err = refuse_shared_stores(&stores, &names)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("CP1") && err.contains("CP2") && err.contains("one directory"),
            "{err}"
        );
        // CP3's file a copy of CP1's.
        std::fs::remove_file(top.join("cp2")).unwrap();
        std::fs::create_dir(top.join("cp2")).unwrap();
        stores[1].write(&share).unwrap();
        std::fs::copy(top.join("cp1").join(FILE), top.join("cp3").join(FILE)).unwrap();
        let err = refuse_shared_stores(&stores, &names)
            .unwrap_err()
            .to_string();
        assert!(err.contains("CP3") && err.contains("store id"), "{err}");
        std::fs::remove_dir_all(&top).unwrap();
    }
}
