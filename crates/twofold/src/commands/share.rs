//! `twofold share FILE -i NAME=VALUE… --out DIR`: splits input values of a
//! program into three shares, one in each computing party's store
//! (`DIR/cp1`, `DIR/cp2`, `DIR/cp3`), for the hybrid mode.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use twofold_crypto::Prg;
use twofold_protocol::hybrid::shares::split;
use twofold_protocol::{PartyInputs, ShareKind};

use super::ProgramArgs;
use crate::inputs::{assign, Givers};
use crate::load::Loaded;
use crate::store::{
    party_stores, random_id, refuse_shared_stores, store_cap, write_all_or_none, StoredShare,
};

/// Arguments of `share`.
#[derive(clap::Args, Debug)]
pub struct ShareArgs {
    #[command(flatten)]
    program: ProgramArgs,
    /// How to share: xor (bitwise) or add (modulo 2^lane per lane: an
    /// integer array element by element, see docs/hybrid.md).
    #[arg(long, default_value = "xor", value_parser = crate::store::parse_kind)]
    kind: ShareKind,
    /// An input value, `NAME=VALUE` or `VALUE` (in order), as for `run`
    /// (`@FILE` reads it from a file); any of the program's inputs.
    #[arg(short = 'i', long = "input", allow_hyphen_values = true)]
    inputs: Vec<String>,
    /// The directory of the three stores.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

/// Shares the values given; returns a line on what was stored.
pub fn share(args: &ShareArgs) -> Result<String> {
    let loaded = args.program.load_three()?;
    let given = assign(&loaded, &args.inputs, Givers::Any)?;
    let cap = store_cap(args.program.max_memory());
    let names = share_values(&loaded, &given, args.kind, &args.out, cap)?;
    Ok(format!(
        "{} ({} shares) in {}/cp1, cp2, cp3: {}\n",
        if names.len() == 1 {
            "1 value"
        } else {
            "values"
        },
        args.kind,
        args.out.display(),
        names.join(", ")
    ))
}

/// Splits the input values given (`None` for those not given) into three
/// shares of `kind` (additive: per lane, see [`crate::load::lane_of`]),
/// one in each computing party's store under `dir`
/// (`dir/cp1`, `dir/cp2`, `dir/cp3`; all three written or none), each store
/// file read up to `store_cap` bytes. Returns the names of the values
/// stored.
pub fn share_values(
    loaded: &Loaded,
    given: &PartyInputs,
    kind: ShareKind,
    dir: &Path,
    store_cap: u64,
) -> Result<Vec<String>> {
    let mut prg = Prg::try_from_os()?;
    // One run id for all three parties' shares of this sharing.
    let run = random_id()?;
    let mut per_party: [BTreeMap<String, StoredShare>; 3] = Default::default();
    let values = loaded.inputs.iter().zip(loaded.input_lanes());
    for ((value, lane), bits) in values.zip(given) {
        let Some(bits) = bits else { continue };
        for (p, share) in split(kind, lane, bits, &mut prg).into_iter().enumerate() {
            per_party[p].insert(
                value.name.clone(),
                StoredShare {
                    kind,
                    lane,
                    bits: share,
                    run,
                },
            );
        }
    }
    if per_party[0].is_empty() {
        bail!("no input value given (-i NAME=VALUE)");
    }
    let stores = party_stores(dir, store_cap);
    refuse_shared_stores(&stores, &["CP1", "CP2", "CP3"])?;
    write_all_or_none(&stores, &per_party)?;
    Ok(per_party[0].keys().cloned().collect())
}
