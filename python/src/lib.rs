//! The Python package `twofold` (its native part, `twofold._twofold`):
//! compile a C program or read a circuit, give inputs as Python ints,
//! numpy arrays and dicts, run both parties here or one party over the
//! network, and get the outputs back as Python values. The library is
//! called directly (no subprocess); errors keep the command line's
//! messages. `python/twofold/__init__.py` re-exports all of it.

mod background;
mod errors;
mod program;
mod values;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use pyo3::exceptions::{PyFileNotFoundError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use twofold::commands::keygen::{write_key_pair, write_psk};
use twofold::commands::reconstruct::reconstruct_outputs;
use twofold::commands::share::share_values;
use twofold::inputs::Givers;
use twofold::load::{load, load_source, parse_party, LoadOptions};
use twofold::memory::{default_max_memory, parse_max_memory};
use twofold::store::{parse_kind, store_cap};

use crate::background::Reporter;
use crate::errors::{compile_error, error};
use crate::program::Program;
use crate::values::{json_to_py, outputs_to_py, party_inputs};

/// The memory limit from a `max_memory` argument: bytes, or a size such as
/// `"4G"`; by default three quarters of the physical memory.
fn memory_limit(max_memory: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u64>> {
    let Some(value) = max_memory else {
        return Ok(default_max_memory());
    };
    if let Ok(bytes) = value.extract::<u64>() {
        return Ok(Some(bytes));
    }
    let text: String = value.extract()?;
    parse_max_memory(&text)
        .map(Some)
        .map_err(PyValueError::new_err)
}

/// Compiles C source or reads a Bristol (or binary) circuit: from `path`
/// (C by the `.c` extension), or from the text `source`, named `name` (C if
/// it ends in `.c`). `owner` reassigns inputs to parties (`{"INPUT_C":
/// "b"}`); `unwind`, `no_regions`, `no_loops` and `max_memory` are the
/// command line's options of those names.
#[pyfunction]
#[pyo3(signature = (path = None, *, source = None, name = None, owner = None, unwind = None, no_regions = false, no_loops = false, max_memory = None))]
#[allow(clippy::too_many_arguments)]
fn compile(
    py: Python<'_>,
    path: Option<PathBuf>,
    source: Option<String>,
    name: Option<String>,
    owner: Option<BTreeMap<String, String>>,
    unwind: Option<u32>,
    no_regions: bool,
    no_loops: bool,
    max_memory: Option<&Bound<'_, PyAny>>,
) -> PyResult<Program> {
    let owners = owner
        .unwrap_or_default()
        .into_iter()
        .map(|(input, party)| Ok((input, parse_party(&party)?)))
        .collect::<anyhow::Result<Vec<_>>>()
        .map_err(|e| PyValueError::new_err(format!("{e:#}")))?;
    let max_memory = memory_limit(max_memory)?;
    // As `twofold run` by default: a mixed program where it is faster on
    // a LAN, so that a party here meets one on the command line.
    let opts = LoadOptions {
        owners,
        unwind,
        no_regions,
        no_loops,
        max_memory,
        ..LoadOptions::default()
    };
    let (origin, job): (String, Box<dyn FnOnce() -> _ + Send>) = match (path, source) {
        (Some(path), None) => {
            if !path.exists() {
                return Err(PyFileNotFoundError::new_err(format!(
                    "{}: no such file",
                    path.display()
                )));
            }
            (
                path.display().to_string(),
                Box::new(move || load(&path, &opts)),
            )
        }
        (None, Some(source)) => {
            let name = name.unwrap_or_else(|| "input.c".into());
            (
                name.clone(),
                Box::new(move || load_source(&source, &name, &opts)),
            )
        }
        _ => return Err(PyValueError::new_err("give a path or source=, not both")),
    };
    let loaded =
        crate::background::run(py, &Reporter::new(None, 0), job)?.map_err(compile_error)?;
    Ok(Program {
        loaded: Arc::new(loaded),
        origin,
        max_memory,
    })
}

/// Splits input values of `program` (a dict keyed by input name; any of
/// its inputs) into three shares of `kind` (`"xor"`, or `"add"`: modulo
/// 2^lane per lane, an integer array element by element), one in each
/// computing party's store under `store` (`store/cp1`, `cp2`, `cp3`), for
/// `Program.run_parties3_local`. Returns the names stored.
#[pyfunction]
#[pyo3(signature = (program, inputs, store, *, kind = "xor"))]
fn share(
    program: &Program,
    inputs: &Bound<'_, PyDict>,
    store: PathBuf,
    kind: &str,
) -> PyResult<Vec<String>> {
    let kind = parse_kind(kind).map_err(|e| PyValueError::new_err(format!("{e:#}")))?;
    let given = party_inputs(&program.loaded, inputs, Givers::Any)?;
    let cap = store_cap(program.max_memory);
    share_values(&program.loaded, &given, kind, &store, cap).map_err(error)
}

/// Combines the three computing parties' shares of `program`'s outputs in
/// the stores under `store` into the values: a dict keyed by output name,
/// as a run returns it. `outs` maps an output to another stored name.
#[pyfunction]
#[pyo3(signature = (program, store, *, outs = None))]
fn reconstruct(
    py: Python<'_>,
    program: &Program,
    store: PathBuf,
    outs: Option<BTreeMap<String, String>>,
) -> PyResult<Py<PyDict>> {
    let specs: Vec<String> = outs
        .unwrap_or_default()
        .into_iter()
        .map(|(name, stored)| format!("{name}={stored}"))
        .collect();
    let cap = store_cap(program.max_memory);
    let outputs = reconstruct_outputs(&program.loaded, &store, &specs, cap).map_err(error)?;
    Ok(outputs_to_py(py, &program.loaded, &outputs)?.unbind())
}

/// Writes a key pair, `name.key` (private, mode 0600) and `name.pub` (to
/// give to the peer), or with `psk=True` a pre-shared secret `name.psk`;
/// existing files are replaced only with `force=True`. Returns the files
/// (and the public key's fingerprint), as `twofold keygen --json` does.
#[pyfunction]
#[pyo3(signature = (name, *, psk = false, force = false))]
fn keygen(py: Python<'_>, name: PathBuf, psk: bool, force: bool) -> PyResult<Py<PyAny>> {
    let name: &Path = &name;
    let report = if psk {
        write_psk(name, force).and_then(|r| Ok(serde_json::to_value(r)?))
    } else {
        write_key_pair(name, force).and_then(|r| Ok(serde_json::to_value(r)?))
    };
    json_to_py(py, &report.map_err(error)?)
}

/// The native module.
#[pymodule]
fn _twofold(module: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(module)?;
    module.add_class::<Program>()?;
    module.add_function(wrap_pyfunction!(compile, module)?)?;
    module.add_function(wrap_pyfunction!(share, module)?)?;
    module.add_function(wrap_pyfunction!(reconstruct, module)?)?;
    module.add_function(wrap_pyfunction!(keygen, module)?)?;
    Ok(())
}
