//! `twofold.Program`: a loaded program, its values' types, its statistics,
//! and its runs (both parties here, one party over the network, or the
//! three computing parties of the hybrid mode here).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use twofold::commands::channel_options;
use twofold::commands::mixed::stats_of_compiled;
use twofold::commands::run::parse_schedule;
use twofold::commands::run3::{run_three_parties, ThreeParties};
use twofold::commands::secure::SecureArgs;
use twofold::commands::stats::{levels_of, ProgramStats};
use twofold::inputs::{split, Givers};
use twofold::load::{parse_party, Loaded, ValueKind};
use twofold::memory::check_session;
use twofold::store::{parse_kind, store_cap};
use twofold_circuit::Party;
use twofold_crypto::Scheme;
use twofold_net::Security;
use twofold_protocol::mixed::network::Network;
use twofold_protocol::mixed::{run_mixed_local, MixedOptions};
use twofold_protocol::run_mixed_remote;
use twofold_protocol::{
    run_local, run_remote, Endpoint, HybridOptions, IppMode, ProtocolError, Reveal, SessionOptions,
};

use crate::background::{self, Reporter};
use crate::errors::{error, run_error};
use crate::values::{describe, json_to_py, outputs_to_py, party_inputs};

/// A program compiled from C or read from a circuit file, ready to run.
#[pyclass(frozen, module = "twofold")]
pub struct Program {
    /// The program and its values' types.
    pub loaded: Arc<Loaded>,
    /// What it was loaded from (a path or a name).
    pub origin: String,
    /// The memory a run may use (`None`: no limit).
    pub max_memory: Option<u64>,
}

/// The descriptions of values given as (name, width, owner) with their
/// kinds (see [`describe`]), each with its `name` and, for inputs, `party`.
fn describe_all<'py, 'a>(
    py: Python<'py>,
    values: impl Iterator<Item = (&'a str, u32, Option<Party>)>,
    kinds: &[ValueKind],
) -> PyResult<Bound<'py, PyList>> {
    let items = values.zip(kinds).map(|((name, width, party), kind)| {
        let dict = describe(py, kind, width)?;
        dict.set_item("name", name)?;
        if let Some(party) = party {
            dict.set_item("party", party.to_string().to_lowercase())?;
        }
        Ok(dict)
    });
    PyList::new(py, items.collect::<PyResult<Vec<_>>>()?)
}

/// The options of a two-party session from the keyword arguments.
/// The options of a mixed run that `opts` asks for (who learns the
/// outputs, the garbling scheme, the threads of the products).
fn mixed_options(opts: &SessionOptions) -> MixedOptions {
    MixedOptions {
        reveal: opts.reveal,
        scheme: opts.scheme,
        threads: opts.threads as usize,
    }
}

/// The AND gates `stats` and a run's progress count: those of the program's
/// garbled circuits (as `stats` gives them), or of its mixed program's
/// Boolean steps where it has no garbled circuits.
fn and_gates_of(loaded: &Loaded) -> u64 {
    (loaded.program.as_ref()).map_or_else(|| loaded.and_gates(), |p| p.and_count())
}

/// The garbled circuits `loaded` runs when no mixed program is chosen
/// (always compiled then).
fn garbled(loaded: &Loaded) -> Result<&twofold_circuit::Program, ProtocolError> {
    (loaded.program.as_ref()).ok_or_else(|| ProtocolError::Malformed("no garbled circuits".into()))
}

/// A mixed run reports no progress as it goes: the whole of the
/// program's AND gates once it has ended.
fn ended(opts: &SessionOptions, loaded: &Loaded) {
    if let Some(progress) = &opts.progress {
        progress(and_gates_of(loaded));
    }
}

fn session(
    threads: Option<u32>,
    schedule: &str,
    scheme: &str,
    reveal_to: Option<&str>,
    ipp: bool,
) -> PyResult<SessionOptions> {
    let reveal = match reveal_to
        .map(parse_party)
        .transpose()
        .map_err(value_error)?
    {
        None => Reveal::Both,
        Some(Party::A) => Reveal::A,
        Some(Party::B) => Reveal::B,
    };
    Ok(SessionOptions {
        reveal,
        schedule: parse_schedule(schedule).map_err(PyValueError::new_err)?,
        threads: threads_or_cores(threads)?,
        ipp: if ipp { IppMode::On } else { IppMode::Off },
        scheme: scheme.parse::<Scheme>().map_err(PyValueError::new_err)?,
        ..SessionOptions::default()
    })
}

/// `threads`, checked, or the number of cores.
fn threads_or_cores(threads: Option<u32>) -> PyResult<u32> {
    let threads = threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u32));
    twofold_protocol::options::check_threads(threads)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(threads)
}

/// A `ValueError` for a bad argument.
fn value_error(e: anyhow::Error) -> PyErr {
    PyValueError::new_err(format!("{e:#}"))
}

/// `seconds` as a timeout (at least a second).
fn timeout_of(seconds: f64) -> PyResult<Duration> {
    Duration::try_from_secs_f64(seconds.max(1.0))
        .map_err(|e| PyValueError::new_err(format!("timeout: {e}")))
}

impl Program {
    /// Fails if a session of `parties` parties here with `threads` threads
    /// each would not fit in the memory limit.
    fn check_memory(&self, threads: u32, parties: u32) -> PyResult<()> {
        match self.max_memory {
            Some(limit) => match &self.loaded.program {
                Some(program) => check_session(program, threads, parties, limit).map_err(error),
                // (A mixed program alone: its session is not estimated.)
                None => Ok(()),
            },
            None => Ok(()),
        }
    }

    /// The output values of a finished session as a dict, or `None` if this
    /// party does not learn them.
    /// The first of `outputs` there is, as a dict.
    fn outputs_of(
        &self,
        py: Python<'_>,
        outputs: impl IntoIterator<Item = Option<Vec<Vec<bool>>>>,
    ) -> PyResult<Option<Py<PyDict>>> {
        outputs
            .into_iter()
            .flatten()
            .next()
            .map(|out| outputs_to_py(py, &self.loaded, &out).map(Bound::unbind))
            .transpose()
    }
}

#[pymethods]
impl Program {
    /// The inputs, in order: each a dict with `name`, `party` (`"a"` or
    /// `"b"`), `type` (a numpy dtype name, `"struct"` or `"bits"`), `shape`,
    /// `ctype`, `width` and, for structs, `members`.
    #[getter]
    fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let values = self.loaded.inputs.iter();
        let named = values.map(|v| (v.name.as_str(), v.width, Some(v.party)));
        describe_all(py, named, &self.loaded.input_kinds)
    }

    /// The outputs, in order: each a dict as for `inputs`, without `party`.
    #[getter]
    fn outputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let values = self.loaded.outputs.iter();
        let named = values.map(|(name, width)| (name.as_str(), *width, None));
        describe_all(py, named, &self.loaded.output_kinds)
    }

    /// The program's size and shape, as `twofold stats --json` reports it
    /// (with `levels=True`, also the AND gates of every level).
    #[pyo3(signature = (*, levels = false))]
    fn stats(&self, py: Python<'_>, levels: bool) -> PyResult<Py<PyAny>> {
        let loaded = Arc::clone(&self.loaded);
        let stats = py.detach(move || {
            let network = Network::default();
            let Some(program) = &loaded.program else {
                // Only the mixed program compiled within the limits.
                let chosen = loaded.mixed.as_ref().context("no program compiled")?;
                let why = loaded.not_garbled.as_deref().unwrap_or("not compiled");
                let summary = stats_of_compiled(&chosen.compiled, why, &network)?;
                return Ok::<_, anyhow::Error>(serde_json::to_value(&summary)?);
            };
            let widths = levels_of(program, levels);
            let mut stats =
                ProgramStats::of_loaded((&loaded, program), widths.as_deref(), &network)?;
            if levels {
                stats.ands_per_level = widths;
            }
            Ok::<_, anyhow::Error>(serde_json::to_value(&stats)?)
        });
        json_to_py(py, &stats.map_err(error)?)
    }

    /// Runs both parties in this process (over socketpairs; nothing
    /// listens) on `inputs`, a dict of every input value keyed by name.
    /// Returns the outputs as a dict keyed by output name.
    #[pyo3(signature = (inputs, *, threads = None, schedule = "auto", scheme = "half-gates", reveal_to = None, ipp = false, progress = None))]
    #[allow(clippy::too_many_arguments)]
    fn run_local(
        &self,
        py: Python<'_>,
        inputs: &Bound<'_, PyDict>,
        threads: Option<u32>,
        schedule: &str,
        scheme: &str,
        reveal_to: Option<&str>,
        ipp: bool,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyDict>> {
        let all = party_inputs(&self.loaded, inputs, Givers::Everyone)?;
        let (a, b) = split(&self.loaded, &all);
        let mut opts = session(threads, schedule, scheme, reveal_to, ipp)?;
        self.check_memory(opts.threads, 2)?;
        let reporter = Reporter::new(progress, and_gates_of(&self.loaded));
        opts.progress = reporter.hook();
        let loaded = Arc::clone(&self.loaded);
        let channel = channel_options(Duration::from_secs(60), Security::Plain);
        let outputs = background::run(py, &reporter, move || match &loaded.mixed {
            Some(chosen) => {
                let c = &chosen.compiled;
                let (ra, rb) = run_mixed_local(
                    &c.program,
                    (&c.mixed_inputs(&a), &c.mixed_inputs(&b)),
                    &mixed_options(&opts),
                    &channel,
                )?;
                ended(&opts, &loaded);
                Ok([ra.outputs, rb.outputs].map(|o| o.map(|o| c.c_outputs(&o))))
            }
            None => {
                let (ra, rb) = run_local(garbled(&loaded)?, &a, &b, &opts, &channel)?;
                Ok([ra.outputs, rb.outputs])
            }
        })?
        .map_err(|e: twofold_protocol::ProtocolError| run_error(e.into()))?;
        self.outputs_of(py, outputs)?
            .ok_or_else(|| error(anyhow::anyhow!("no output was received")))
    }

    /// Runs one party (`"a"`, the garbler, or `"b"`, the evaluator) with its
    /// own `inputs`, the peer in another process: `listen` on an address
    /// or `connect` to the peer's. The connection is TLS with pinned keys
    /// (`key` and `peer_key` files from `twofold.keygen`) or a pre-shared
    /// secret (`psk_file`); `insecure=True` runs on plain TCP. Returns the
    /// outputs, or `None` if they are revealed to the other party only.
    #[pyo3(signature = (*, party, inputs, listen = None, connect = None, key = None, peer_key = None, psk_file = None, insecure = false, timeout = 60.0, threads = None, schedule = "auto", scheme = "half-gates", reveal_to = None, ipp = false, progress = None))]
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        py: Python<'_>,
        party: &str,
        inputs: &Bound<'_, PyDict>,
        listen: Option<String>,
        connect: Option<String>,
        key: Option<PathBuf>,
        peer_key: Option<String>,
        psk_file: Option<PathBuf>,
        insecure: bool,
        timeout: f64,
        threads: Option<u32>,
        schedule: &str,
        scheme: &str,
        reveal_to: Option<&str>,
        ipp: bool,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Option<Py<PyDict>>> {
        let party = parse_party(party).map_err(value_error)?;
        let endpoint = match (listen, connect) {
            (Some(addr), None) => Endpoint::Listen(addr),
            (None, Some(addr)) => Endpoint::Connect(addr),
            _ => return Err(PyValueError::new_err("give one of listen= and connect=")),
        };
        let ways = [
            key.is_some() || peer_key.is_some(),
            psk_file.is_some(),
            insecure,
        ];
        if ways.iter().filter(|&&w| w).count() > 1 {
            return Err(PyValueError::new_err(
                "key=/peer_key=, psk_file= and insecure= exclude each other",
            ));
        }
        let secure = SecureArgs {
            key,
            peer_keys: peer_key.into_iter().collect(),
            psk_file,
            insecure,
        };
        let security = secure.two_parties(party).map_err(error)?;
        let given = party_inputs(&self.loaded, inputs, Givers::Only(party))?;
        let mut opts = session(threads, schedule, scheme, reveal_to, ipp)?;
        self.check_memory(opts.threads, 1)?;
        let reporter = Reporter::new(progress, and_gates_of(&self.loaded));
        opts.progress = reporter.hook();
        let wait = timeout_of(timeout)?;
        let channel = channel_options(wait, security);
        let loaded = Arc::clone(&self.loaded);
        let outputs = background::run(py, &reporter, move || match &loaded.mixed {
            Some(chosen) => {
                let c = &chosen.compiled;
                let given = c.mixed_inputs(&given);
                let options = mixed_options(&opts);
                let r = run_mixed_remote(
                    &endpoint, wait, &channel, party, &c.program, &given, &options,
                )?;
                ended(&opts, &loaded);
                Ok(r.outputs.map(|o| c.c_outputs(&o)))
            }
            None => {
                let r = run_remote(
                    &endpoint,
                    wait,
                    &channel,
                    party,
                    garbled(&loaded)?,
                    &given,
                    &opts,
                )?;
                Ok(r.outputs)
            }
        })?
        .map_err(|e: twofold_protocol::ProtocolError| run_error(e.into()))?;
        self.outputs_of(py, [outputs])
    }

    /// The hybrid mode with all three computing parties in this process:
    /// reads the input shares from the stores under `store` (`store/cp1`,
    /// `cp2`, `cp3`, written by `twofold.share`), runs, and writes the
    /// output shares there (`kind` `"xor"` or `"add"`). `ins` and `outs`
    /// map an input or output name to another stored name. Returns the
    /// report (`stored`: each output's stored name; `parties`: figures).
    #[pyo3(signature = (*, store, ins = None, outs = None, kind = "xor", threads = None, schedule = "auto", scheme = "half-gates", timeout = 60.0, progress = None))]
    #[allow(clippy::too_many_arguments)]
    fn run_parties3_local(
        &self,
        py: Python<'_>,
        store: PathBuf,
        ins: Option<BTreeMap<String, String>>,
        outs: Option<BTreeMap<String, String>>,
        kind: &str,
        threads: Option<u32>,
        schedule: &str,
        scheme: &str,
        timeout: f64,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let specs = |pairs: Option<BTreeMap<String, String>>| -> Vec<String> {
            pairs
                .unwrap_or_default()
                .into_iter()
                .map(|(name, stored)| format!("{name}={stored}"))
                .collect()
        };
        let (ins, outs) = (specs(ins), specs(outs));
        let threads = threads_or_cores(threads)?;
        let reporter = Reporter::new(progress, and_gates_of(&self.loaded));
        let opts = HybridOptions {
            input_kinds: Vec::new(),
            input_lanes: Vec::new(),
            output_kind: parse_kind(kind).map_err(value_error)?,
            output_lanes: Vec::new(),
            threads,
            schedule: parse_schedule(schedule).map_err(PyValueError::new_err)?,
            scheme: scheme.parse::<Scheme>().map_err(PyValueError::new_err)?,
            fgp_min_ands: None,
            progress: reporter.hook(),
            input_runs: Vec::new(),
        };
        self.check_memory(threads, 3)?;
        let wait = timeout_of(timeout)?;
        let (loaded, cap) = (Arc::clone(&self.loaded), store_cap(self.max_memory));
        let report = background::run(py, &reporter, move || {
            let how = ThreeParties {
                role: None,
                security: Security::Plain,
                keys: [None; 3],
                peers: None,
                store: &store,
                store_cap: cap,
                ins: &ins,
                outs: &outs,
                timeout: wait,
                opts,
            };
            run_three_parties(&loaded, how)
                .and_then(|r| serde_json::to_value(&r).context("the report"))
        })?
        .map_err(run_error)?;
        json_to_py(py, &report)
    }

    fn __repr__(&self) -> String {
        let inputs: Vec<&str> = (self.loaded.inputs.iter())
            .map(|v| v.name.as_str())
            .collect();
        let outputs: Vec<&str> = (self.loaded.outputs.iter())
            .map(|(name, _)| name.as_str())
            .collect();
        format!(
            "<twofold.Program {} inputs=[{}] outputs=[{}] and_gates={}>",
            self.origin,
            inputs.join(", "),
            outputs.join(", "),
            and_gates_of(&self.loaded)
        )
    }
}
