//! `twofold run FILE --parties 3`: the three-party hybrid mode on values
//! held as shares in each computing party's store, all three parties in this
//! process (`--local --store DIR`) or one per process (`--party 1|2|3
//! --peers ADDR1,ADDR2,ADDR3 --store DIR/cpK`). Output shares go to the
//! stores, each store written atomically once the run has succeeded.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use twofold_net::{Listener, PublicKey, Security};
use twofold_protocol::{
    run_hybrid, run_hybrid_local, run_mixed3, run_mixed3_local, HybridOptions, HybridPeers,
    HybridReport, Role, RunId, ShareKind,
};

use super::{channel_options, Report};
use crate::choice::{shared_mixed, Comparison};
use crate::files::{clip, hex};
use crate::load::Loaded;
use crate::store::{
    party_stores, refuse_shared_stores, write_all_or_none, Store, StoreId, StoredShare,
};

/// Which stored value each input or output value of a program is: its own
/// name unless `--in`/`--out NAME=STORED` says otherwise.
pub struct StoredNames(BTreeMap<String, String>);

impl StoredNames {
    /// Reads `NAME=STORED` specs; every NAME must be one of `names`.
    pub fn parse<'n>(specs: &[String], names: impl Iterator<Item = &'n str>) -> Result<Self> {
        let names: Vec<&str> = names.collect();
        let mut map = BTreeMap::new();
        for spec in specs {
            let shown = clip(spec);
            let (name, stored) = spec
                .split_once('=')
                .with_context(|| format!("`{shown}`: expected NAME=STORED"))?;
            let (name, stored) = (name.trim(), stored.trim());
            if stored.is_empty() {
                bail!("`{shown}`: the stored name after `=` is empty");
            }
            if !names.contains(&name) {
                bail!(
                    "`{shown}`: the program has no value `{}` (it has {})",
                    clip(name),
                    names.join(", ")
                );
            }
            if map.insert(name.to_string(), stored.to_string()).is_some() {
                bail!("`{shown}`: `{name}` is given twice");
            }
        }
        Ok(StoredNames(map))
    }

    /// The stored name of value `name`.
    pub fn get<'a>(&'a self, name: &'a str) -> &'a str {
        self.0.get(name).map_or(name, String::as_str)
    }
}

/// How the three-party run is asked for.
pub struct ThreeParties<'a> {
    /// This party (`None`: all three here).
    pub role: Option<Role>,
    /// How its connections are protected (plain when all three are here).
    pub security: Security,
    /// The key each computing party must hold (see `HybridPeers::keys`).
    pub keys: [Option<PublicKey>; 3],
    /// `--peers`: the addresses of CP1, CP2 and CP3.
    pub peers: Option<&'a str>,
    /// `--store`: the three stores' directory (all here) or this party's store.
    pub store: &'a Path,
    /// The largest store file read (see [`crate::store::store_cap`]).
    pub store_cap: u64,
    /// `--in` specs.
    pub ins: &'a [String],
    /// `--out` specs.
    pub outs: &'a [String],
    /// Timeout of every connection (and of waiting for a peer).
    pub timeout: Duration,
    /// The options of the run (the input kinds and runs are read from the
    /// stores, the lanes taken from the program).
    pub opts: HybridOptions,
}

/// What the three-party run reports.
#[derive(Serialize, Deserialize)]
pub struct ThreePartyReport {
    /// `yao` (garbled circuits) or `mixed` (arithmetic on the shares
    /// beside them).
    pub protocol: String,
    /// The estimates that chose the mixed program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimate: Option<Comparison>,
    /// Each party that ran here (one, or all three).
    pub parties: Vec<PartyFigures>,
    /// The stored name of each output value.
    pub stored: BTreeMap<String, String>,
    /// Peak resident memory of this process.
    pub peak_rss_bytes: u64,
    #[serde(skip)]
    store: String,
}

/// One computing party's figures.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PartyFigures {
    /// `cp1`, `cp2` or `cp3`.
    pub party: String,
    /// AND gates garbled or evaluated.
    pub and_gates: u64,
    /// Bytes this party sent.
    pub bytes_sent: u64,
    /// Bytes this party received.
    pub bytes_received: u64,
    /// Seconds of each phase and `total`.
    pub seconds: BTreeMap<String, f64>,
}

impl PartyFigures {
    fn of(report: &HybridReport) -> PartyFigures {
        let mut seconds: BTreeMap<String, f64> = report
            .phases
            .iter()
            .map(|(phase, d)| (phase.name(report.role).to_string(), d.as_secs_f64()))
            .collect();
        seconds.insert("total".into(), report.total.as_secs_f64());
        PartyFigures {
            party: format!("cp{}", report.role as u8),
            and_gates: report.and_gates,
            bytes_sent: report.bytes_sent,
            bytes_received: report.bytes_received,
            seconds,
        }
    }
}

impl Report for ThreePartyReport {
    fn text(&self) -> String {
        self.stored
            .iter()
            .map(|(output, stored)| {
                format!("{output}: shares stored as `{stored}` in {}\n", self.store)
            })
            .collect()
    }
}

/// Runs the hybrid mode on `loaded` as `how` says; returns what to print.
pub fn run_three(loaded: &Loaded, how: ThreeParties, json: bool) -> Result<String> {
    run_three_parties(loaded, how)?.render(json)
}

/// Runs the hybrid mode on `loaded` as `how` says: reads the input shares
/// from the store(s), runs, and writes the output shares there.
pub fn run_three_parties(loaded: &Loaded, how: ThreeParties) -> Result<ThreePartyReport> {
    let (inputs, output_names) = (&loaded.inputs, loaded.outputs.iter().map(|o| o.0.as_str()));
    let ins = StoredNames::parse(how.ins, inputs.iter().map(|v| v.name.as_str()))?;
    let outs = StoredNames::parse(how.outs, output_names)?;
    let channel = channel_options(how.timeout, how.security.clone());
    // Each output's name, and the name it is stored as.
    let stored: Vec<(String, String)> = (loaded.outputs.iter())
        .map(|(name, _)| (name.clone(), outs.get(name).to_string()))
        .collect();
    // An output stored over an input of the same run would lose the input.
    for (output, name) in &stored {
        if let Some(input) = inputs.iter().find(|v| ins.get(&v.name) == name) {
            bail!(
                "output `{output}` would replace input `{}` (stored as `{name}`); store it under another name with --out {output}=NAME",
                input.name
            );
        }
    }
    // The mixed program, if `--protocol` chose one: its values are the
    // Boolean program's, held as shares.
    let mixed = loaded
        .mixed
        .as_ref()
        .map(|chosen| shared_mixed(&chosen.compiled, (inputs, &loaded.outputs)));
    let (reports, store) = match how.role {
        None => {
            if how.peers.is_some() {
                bail!("--peers is for one computing party (--party 1|2|3), not --local");
            }
            let stores = party_stores(how.store, how.store_cap);
            refuse_shared_stores(&stores, &["CP1", "CP2", "CP3"])?;
            let read: Vec<Inputs> = stores
                .iter()
                .map(|s| read_shares(loaded, &ins, s))
                .collect::<Result<_>>()?;
            let kinds = &read[0].kinds;
            if let Some(p) = read.iter().position(|r| &r.kinds != kinds) {
                bail!(
                    "the stores of CP1 and CP{} share the inputs differently",
                    p + 1
                );
            }
            same_runs(loaded, &ins, &read)?;
            let opts = HybridOptions {
                input_kinds: kinds.clone(),
                input_runs: read[0].runs.clone(),
                input_lanes: loaded.input_lanes(),
                output_lanes: loaded.output_lanes(),
                ..how.opts
            };
            let shares = [0, 1, 2].map(|p| read[p].shares.clone());
            let reports = match &mixed {
                Some(m) => run_mixed3_local(m, &shares, &opts, &channel)?,
                None => run_hybrid_local(loaded.garbled()?, &shares, &opts, &channel)?,
            };
            // All three stores or none: a run that cannot write one store
            // leaves all three as they were.
            let values: Vec<_> = reports
                .iter()
                .map(|report| outputs(&stored, report, &opts))
                .collect();
            write_all_or_none(&stores, &values)?;
            let dirs = format!("{}/cp1, cp2, cp3", how.store.display());
            (reports.to_vec(), dirs)
        }
        Some(role) => {
            let store = Store::at(how.store, how.store_cap);
            let Inputs {
                shares,
                kinds,
                runs,
                store_id,
            } = read_shares(loaded, &ins, &store)?;
            let opts = HybridOptions {
                input_kinds: kinds,
                input_runs: runs,
                input_lanes: loaded.input_lanes(),
                output_lanes: loaded.output_lanes(),
                ..how.opts
            };
            let peers = how
                .peers
                .context("--peers ADDR1,ADDR2,ADDR3 is needed with --party")?;
            let addrs: Vec<&str> = peers.split(',').map(str::trim).collect();
            if addrs.len() != 3 {
                bail!("--peers: give the addresses of CP1, CP2 and CP3, separated by commas");
            }
            let listener = match role {
                Role::Cp3 => None,
                _ => {
                    let addr = addrs[role.index()];
                    Some(
                        Listener::bind(addr)
                            .with_context(|| format!("cannot listen on {addr}"))?
                            .with_options(channel.clone())?,
                    )
                }
            };
            let peers = HybridPeers {
                listener: listener.as_ref(),
                addrs: [addrs[0].to_string(), addrs[1].to_string()],
                wait: how.timeout,
                channel,
                keys: how.keys,
                store_id,
            };
            let report = match &mixed {
                Some(m) => run_mixed3(role, &peers, m, &shares, &opts)?,
                None => run_hybrid(role, &peers, loaded.garbled()?, &shares, &opts)?,
            };
            store.write(&outputs(&stored, &report, &opts))?;
            (vec![report], how.store.display().to_string())
        }
    };
    Ok(ThreePartyReport {
        protocol: if mixed.is_some() { "mixed" } else { "yao" }.into(),
        estimate: loaded.mixed.as_ref().map(|chosen| chosen.estimate.clone()),
        parties: reports.iter().map(PartyFigures::of).collect(),
        stored: stored.into_iter().collect(),
        peak_rss_bytes: crate::peak_rss_bytes(),
        store,
    })
}

/// What a party reads from its store for a run.
struct Inputs {
    /// Its share of every input value.
    shares: Vec<Vec<bool>>,
    /// How each is shared.
    kinds: Vec<ShareKind>,
    /// The run that made each.
    runs: Vec<RunId>,
    /// The store's id.
    store_id: Option<StoreId>,
}

/// This party's share, its kind and its run for every input value, from
/// `store`; an additive share must be in the lanes the program takes the
/// value in.
fn read_shares(loaded: &Loaded, ins: &StoredNames, store: &Store) -> Result<Inputs> {
    let contents = store.contents()?;
    let mut inputs = Inputs {
        shares: Vec::new(),
        kinds: Vec::new(),
        runs: Vec::new(),
        store_id: contents.id,
    };
    for (v, lane) in loaded.inputs.iter().zip(loaded.input_lanes()) {
        let stored = ins.get(&v.name);
        let share = contents.values.get(stored).with_context(|| {
            format!(
                "input `{}`: the store {} has no value `{stored}` (share it with `twofold share`, or name another with --in {}=STORED)",
                v.name,
                store.dir().display(),
                v.name
            )
        })?;
        if share.bits.len() != v.width as usize {
            bail!(
                "input `{}` has {} bits; the stored `{stored}` has {}",
                v.name,
                v.width,
                share.bits.len()
            );
        }
        if share.kind == ShareKind::Add && share.lane != lane {
            bail!(
                "input `{}`: the stored `{stored}` is shared additively in lanes of {} bits, but this program takes it in lanes of {lane} bits (an integer array is shared element by element, docs/hybrid.md); its shares would not combine to the value: share it again for this program",
                v.name,
                share.lane
            );
        }
        inputs.shares.push(share.bits.clone());
        inputs.kinds.push(share.kind);
        inputs.runs.push(share.run);
    }
    Ok(inputs)
}

/// Fails unless the three parties' shares of every input come from one run.
fn same_runs(loaded: &Loaded, ins: &StoredNames, read: &[Inputs]) -> Result<()> {
    for (k, v) in loaded.inputs.iter().enumerate() {
        if let Some(p) = (1..3).find(|&p| read[p].runs[k] != read[0].runs[k]) {
            bail!(
                "input `{}` (stored as `{}`): the shares of CP1 and CP{} come from different runs ({} and {}), as a run that failed in one store leaves them; share the value again, or rerun the program that made it",
                v.name,
                ins.get(&v.name),
                p + 1,
                hex(&read[0].runs[k]),
                hex(&read[p].runs[k]),
            );
        }
    }
    Ok(())
}

/// A party's output shares as stored values, each carrying the run's id
/// and its lane, shared as `opts` says.
fn outputs(
    stored: &[(String, String)],
    report: &HybridReport,
    opts: &HybridOptions,
) -> BTreeMap<String, StoredShare> {
    stored
        .iter()
        .zip(&report.output_shares)
        .zip(&opts.output_lanes)
        .map(|(((_, stored), bits), &lane)| {
            let share = StoredShare {
                kind: opts.output_kind,
                lane,
                bits: bits.clone(),
                run: report.run_id,
            };
            (stored.clone(), share)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::StoredNames;

    /// `--out NAME=` stored the shares under an empty name.
    #[test]
    fn a_stored_name_may_not_be_empty() {
        let parse = |spec: &str| StoredNames::parse(&[spec.to_string()], ["OUT"].into_iter());
        let err = parse("OUT= ").err().expect("refused").to_string();
        assert!(err.contains("empty"), "{err}");
        assert_eq!(parse("OUT = kept").expect("parses").get("OUT"), "kept");
    }
}
