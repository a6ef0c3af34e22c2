//! `twofold reconstruct FILE --store DIR`: combines the three computing
//! parties' shares of a program's outputs (hybrid mode) into the values,
//! printed as `run` prints them.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use serde::Serialize;
use twofold_protocol::hybrid::shares::combine;
use twofold_protocol::ShareKind;

use super::run3::StoredNames;
use super::{ProgramArgs, Report};
use crate::files::hex;
use crate::inputs::{format_outputs, outputs_json};
use crate::load::Loaded;
use crate::store::{party_stores, refuse_shared_stores, store_cap};

/// Arguments of `reconstruct`.
#[derive(clap::Args, Debug)]
pub struct ReconstructArgs {
    #[command(flatten)]
    program: ProgramArgs,
    /// The directory of the three stores (`DIR/cp1`, `DIR/cp2`, `DIR/cp3`).
    #[arg(long, value_name = "DIR")]
    store: PathBuf,
    /// Read output NAME from the stored value STORED (as `run --out` wrote it).
    #[arg(long = "out", value_name = "NAME=STORED")]
    outs: Vec<String>,
    /// One JSON object on stdout.
    #[arg(long)]
    json: bool,
}

/// The output values.
#[derive(Serialize)]
pub struct Reconstructed {
    /// Output values keyed by name.
    outputs: serde_json::Value,
    #[serde(skip)]
    lines: String,
}

impl Report for Reconstructed {
    fn text(&self) -> String {
        self.lines.clone()
    }
}

/// Combines the stored output shares.
pub fn reconstruct(args: &ReconstructArgs) -> Result<String> {
    let loaded = args.program.load_three()?;
    let cap = store_cap(args.program.max_memory());
    let outputs = reconstruct_outputs(&loaded, &args.store, &args.outs, cap)?;
    Reconstructed {
        outputs: outputs_json(&loaded, &outputs),
        lines: format_outputs(&loaded, &outputs)
            .into_iter()
            .map(|(_, v)| v + "\n")
            .collect(),
    }
    .render(args.json)
}

/// The bits of every output value of `loaded`, combined (per lane, see
/// [`crate::load::lane_of`]; a stored lane other than the program's is
/// refused) from the three computing parties' shares in the stores under
/// `dir` (`dir/cp1`, `cp2`, `cp3`, each file read up to `store_cap`
/// bytes); `outs` are `NAME=STORED` specs for outputs stored under another
/// name.
pub fn reconstruct_outputs(
    loaded: &Loaded,
    dir: &Path,
    outs: &[String],
    store_cap: u64,
) -> Result<Vec<Vec<bool>>> {
    let names = StoredNames::parse(outs, loaded.outputs.iter().map(|(name, _)| name.as_str()))?;
    let stores = party_stores(dir, store_cap);
    refuse_shared_stores(&stores, &["CP1", "CP2", "CP3"])?;
    let all = stores
        .iter()
        .map(|s| s.read_all())
        .collect::<Result<Vec<_>>>()?;
    let mut outputs = Vec::new();
    for ((name, width), lane) in loaded.outputs.iter().zip(loaded.output_lanes()) {
        let stored = names.get(name);
        let shares: Vec<_> = stores
            .iter()
            .zip(&all)
            .map(|(store, values)| {
                values.get(stored).ok_or_else(|| {
                    anyhow::anyhow!(
                        "the store {} has no value `{stored}`",
                        store.dir().display()
                    )
                })
            })
            .collect::<Result<_>>()?;
        let kind = shares[0].kind;
        if shares
            .iter()
            .any(|s| s.kind != kind || s.bits.len() != *width as usize)
        {
            bail!(
                "the shares of `{stored}` differ in kind or width between the stores (output `{}` has {} bits)",
                name,
                *width as usize
            );
        }
        if let Some(p) = (1..3).find(|&p| shares[p].run != shares[0].run) {
            bail!(
                "the shares of `{stored}` in CP1's and CP{}'s stores come from different runs ({} and {}): a run that failed in one store leaves them so, and they do not combine to a value; rerun the program that made it",
                p + 1,
                hex(&shares[0].run),
                hex(&shares[p].run)
            );
        }
        if kind == ShareKind::Add {
            if let Some(p) = (0..3).find(|&p| shares[p].lane != lane) {
                bail!(
                    "output `{}` (stored as `{stored}`): CP{}'s additive share is in lanes of {} bits, but this program's output takes lanes of {lane} bits; reconstruct with the program that made it, loaded the same way (C source, not a circuit file)",
                    name,
                    p + 1,
                    shares[p].lane
                );
            }
        }
        let bits = [0, 1, 2].map(|p| shares[p].bits.as_slice());
        outputs.push(combine(kind, lane, bits));
    }
    Ok(outputs)
}
