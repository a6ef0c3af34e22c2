//! Reading a program from a file: Bristol Fashion (or old Bristol) text, the
//! binary format, or (by the `.c` extension) C source.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use twofold_circuit::bristol::read_bristol;
use twofold_circuit::{binary, InputValue, Party, Program};
use twofold_compiler::error::Exceeded;
use twofold_compiler::mixed::MixedCompiled;
use twofold_compiler::signature::read_signature;
use twofold_compiler::{
    compile, compile_file, compile_mixed, compile_mixed_file, CType, CompileError, CompileOptions,
    CompiledProgram, Limits, LoopVerdict, Watch,
};
use twofold_protocol::mixed::network::Network;

use crate::choice::{choose, Chosen, Comparison, CompileMixed, Parties, Protocol};
use crate::outrun::{from_mixed, outrun_by, why_stopped};

/// How the values of an input or output are written on the command line.
#[derive(Clone, Debug)]
pub enum ValueKind {
    /// An integer of the value's width (hex or decimal); bit k is wire k.
    Int,
    /// A value of a C type, written as a C initializer (`5`, `{1, 2}`).
    C(CType),
}

/// A loaded program and how to read and print its values.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The program as garbled circuits: `None` for a C program whose
    /// Boolean compilation stopped at a compile limit, or was outrun by
    /// its mixed compilation, where the mixed program compiled (`mixed` is
    /// then `Some`; see [`Loaded::garbled`] and [`crate::outrun`]).
    pub program: Option<Program>,
    /// Why `program` is `None`: the limit, or the outrunning.
    pub not_garbled: Option<String>,
    /// The input values: name, party and width, in order.
    pub inputs: Vec<InputValue>,
    /// The output values: name and width, in order.
    pub outputs: Vec<(String, u32)>,
    /// One entry per input value.
    pub input_kinds: Vec<ValueKind>,
    /// One entry per output value.
    pub output_kinds: Vec<ValueKind>,
    /// C only: how each loop was lowered.
    pub loops: Vec<LoopVerdict>,
    /// How long reading (and, for C, compiling) the program took.
    pub load_time: std::time::Duration,
    /// Whether the program was compiled from C.
    pub compiled: bool,
    /// C only: products of two secret words the program computes (0: no
    /// mixed program can help).
    pub secret_products: u64,
    /// C only: the mixed program to run instead of `program`, if chosen
    /// (`--protocol`).
    pub mixed: Option<Chosen>,
    /// C only, `--protocol auto`: the estimates of a mixed program weighed
    /// and declined for garbled circuits, if one was compiled.
    pub declined: Option<Comparison>,
}

impl Loaded {
    /// The program as garbled circuits, or why there is none (its mixed
    /// program runs instead).
    pub fn garbled(&self) -> Result<&Program> {
        self.program.as_ref().ok_or_else(|| self.no_garbled())
    }

    /// Puts the garbled program, if there is one, in the order it runs in
    /// (see [`twofold_circuit::prepare::into_prepared`]), in place: a
    /// session then runs it as it is, where it would prepare a copy and
    /// hold both. Returns how long that took.
    pub fn prepare_garbled(&mut self) -> std::time::Duration {
        let start = std::time::Instant::now();
        if let Some(program) = self.program.take() {
            self.program = Some(twofold_circuit::prepare::into_prepared(program));
        }
        start.elapsed()
    }

    /// [`Loaded::garbled`], consuming the loaded program.
    pub fn into_garbled(self) -> Result<Program> {
        let error = self.no_garbled();
        self.program.ok_or(error)
    }

    fn no_garbled(&self) -> anyhow::Error {
        anyhow::anyhow!(
            "the program has no garbled-circuit form: {} (its mixed program runs with --protocol mixed or auto)",
            self.not_garbled.as_deref().unwrap_or("not compiled")
        )
    }

    /// The AND gates the run garbles: the mixed program's Boolean steps'
    /// if one is chosen, else the garbled circuits'.
    pub fn and_gates(&self) -> u64 {
        match (&self.mixed, &self.program) {
            (Some(chosen), _) => (chosen.compiled.program.programs.iter())
                .map(|p| p.and_count())
                .sum(),
            (None, Some(program)) => program.and_count(),
            (None, None) => 0,
        }
    }

    /// The lane of each input value (see [`lane_of`]).
    pub fn input_lanes(&self) -> Vec<u32> {
        let widths = self.inputs.iter().map(|v| v.width);
        self.input_kinds
            .iter()
            .zip(widths)
            .map(|(kind, width)| lane_of(kind, width))
            .collect()
    }

    /// The lane of each output value (see [`lane_of`]).
    pub fn output_lanes(&self) -> Vec<u32> {
        let widths = self.outputs.iter().map(|(_, width)| *width);
        self.output_kinds
            .iter()
            .zip(widths)
            .map(|(kind, width)| lane_of(kind, width))
            .collect()
    }
}

/// The lane of a value of `kind` and `width` bits: additive shares of it
/// (hybrid mode) are taken modulo 2^lane in each lane of `lane` bits,
/// element by element as Sharemind shares arrays. The rule, the one used
/// everywhere:
/// - a C integer or `_Bool`, or a (nested) array of one such type: the
///   width of that element type (`int32_t[16][16]`: 32, each element
///   modulo 2^32; `uint8_t[4]`: 8; `_Bool[8]`: 1, each bit modulo 2,
///   which is its XOR);
/// - a struct (or array of structs) whose members all have one such
///   element width: that width (`struct { int32_t m[16][16]; }`: 32);
/// - anything else (a float, a struct of mixed widths, an array of
///   floats) and every value of a circuit file (Bristol or binary, whose
///   values have no type): the whole width, one lane.
///
/// A scalar's lane is its width. The lane is at least 1 bit and divides
/// the width.
pub fn lane_of(kind: &ValueKind, width: u32) -> u32 {
    fn element(t: &CType) -> Option<u32> {
        match t {
            CType::Bool => Some(1),
            CType::Int { bits, .. } => Some(*bits),
            CType::Array(e, _) => element(e),
            CType::Struct(def) => {
                let mut widths = def.fields.iter().map(|(_, t)| element(t));
                let first = widths.next()??;
                widths.all(|w| w == Some(first)).then_some(first)
            }
            _ => None,
        }
    }
    let lane = match kind {
        ValueKind::C(t) => element(t).unwrap_or(width),
        ValueKind::Int => width,
    };
    if lane == 0 || !width.is_multiple_of(lane) {
        return width.max(1);
    }
    lane
}

/// How to read a program file.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Reassigns input values to parties (by name).
    pub owners: Vec<(String, Party)>,
    /// C only: bound for loops whose exit depends on a secret (`--unwind`).
    pub unwind: Option<u32>,
    /// C only: do not turn independent loops into parallel regions.
    pub no_regions: bool,
    /// C only: unroll every loop.
    pub no_loops: bool,
    /// C only: the memory compiling may use (`--max-memory`; `None`: the
    /// compiler's default limits).
    pub max_memory: Option<u64>,
    /// C only: garbled circuits, a mixed program, or the cheaper of both.
    pub protocol: Protocol,
    /// C only: the network `--protocol auto` weighs for.
    pub network: Network,
    /// C only: who runs it (the estimates differ).
    pub parties: Parties,
}

/// Loads `path`: C source (by the `.c` extension), a binary program (by its
/// magic) or a Bristol circuit.
pub fn load(path: &Path, opts: &LoadOptions) -> Result<Loaded> {
    let start = std::time::Instant::now();
    let loaded = if path.extension().is_some_and(|e| e == "c") {
        compile_c(
            opts,
            |c| compile_file(path, c),
            |c| compile_mixed_file(path, c),
        )?
    } else {
        // A device or a pipe would be read without end.
        let file = crate::files::open_regular(path, "the program", u64::MAX)?;
        let cannot = || format!("cannot read {}", path.display());
        let mut file = std::io::BufReader::new(file);
        // The magic, if the file has as many bytes.
        let mut head = Vec::with_capacity(binary::MAGIC.len());
        (&mut file)
            .take(binary::MAGIC.len() as u64)
            .read_to_end(&mut head)
            .with_context(cannot)?;
        if twofold_circuit::mixed::format::is_mixed(&head) {
            bail!(
                "{0} is a mixed program: estimate it, or run it, with `twofold mixed {0}`",
                path.display()
            );
        }
        if binary::is_cut_magic(&head) {
            bail!(
                "{}: a truncated twofold binary program (it ends inside its first 8 bytes)",
                path.display()
            );
        }
        let mut file = head.as_slice().chain(file);
        if binary::is_binary(&head) {
            // Read as it comes: a flat program's file is as large as its
            // gates, and holding both doubled the peak memory.
            let invalid = || format!("{}: not a valid binary program", path.display());
            let program = binary::read_program(&mut file).with_context(invalid)?;
            let signature = read_signature(&mut file)
                .map_err(binary::truncated)
                .with_context(invalid)?;
            let mut loaded = from_circuit(program);
            if let Some(signature) = signature {
                signature
                    .check(&loaded.garbled()?.main)
                    .map_err(anyhow::Error::msg)
                    .with_context(invalid)?;
                let kinds = |values: Vec<(String, CType)>| {
                    values.into_iter().map(|(_, t)| ValueKind::C(t)).collect()
                };
                loaded.input_kinds = kinds(signature.inputs);
                loaded.output_kinds = kinds(signature.outputs);
            }
            loaded
        } else {
            let mut bytes = Vec::new();
            file.read_to_end(&mut bytes).with_context(cannot)?;
            let text = String::from_utf8(bytes).with_context(|| {
                format!("{}: neither a binary program nor text", path.display())
            })?;
            from_circuit(Program::from(read_bristol(
                &text,
                &path.display().to_string(),
            )?))
        }
    };
    finish(loaded, start, opts)
}

/// Loads a program from its text: C source if `name` ends in `.c`, else a
/// Bristol circuit; `name` stands for the file in errors (and C's
/// `#include "..."` resolves relative to its directory).
pub fn load_source(source: &str, name: &str, opts: &LoadOptions) -> Result<Loaded> {
    let start = std::time::Instant::now();
    let loaded = if name.ends_with(".c") {
        compile_c(
            opts,
            |c| compile(source, name, c),
            |c| compile_mixed(source, name, c),
        )?
    } else {
        from_circuit(Program::from(read_bristol(source, name)?))
    };
    finish(loaded, start, opts)
}

/// A C program compiled by `boolean` (to garbled circuits) and, where
/// `--protocol` asks for it, by `mixed`. With `--protocol mixed` both
/// programs are needed (the estimate compares them), so they compile at
/// once on two threads, each in half of the memory limit; if either needs
/// more, one after the other in all of it.
///
/// With `--protocol auto` the mixed program is needed only if the Boolean
/// compilation meets a product of two secret words: the mixed compilation
/// starts then, beside it, and the Boolean compilation may go on in half
/// of the memory limit (the mixed one has the other half). The garbled
/// run's estimate, known when the Boolean compilation ends, then bounds
/// the mixed compilation's gates (see [`choose`]).
fn compile_c(
    opts: &LoadOptions,
    boolean: impl Fn(&CompileOptions) -> Result<CompiledProgram, CompileError> + Sync,
    mixed: impl Fn(&CompileOptions) -> Result<MixedCompiled, CompileError> + Sync,
) -> Result<Loaded> {
    let c = c_options(opts);
    let error = |e: CompileError| anyhow::anyhow!("{e}");
    let half = CompileOptions {
        limits: Limits::for_memory(c.limits.max_memory / 2),
        ..c.clone()
    };
    if opts.protocol == Protocol::Mixed {
        let seen = Watch::new();
        let (compiled, early) = std::thread::scope(|s| {
            let early = s.spawn(|| {
                let compiled = mixed(&half);
                if let Ok(m) = &compiled {
                    outrun_by(&seen, m, opts);
                }
                compiled
            });
            let watched = CompileOptions {
                watch: Some(seen.clone()),
                ..half.clone()
            };
            (boolean(&watched), early.join())
        });
        let early = early.map_err(|_| anyhow::anyhow!("internal compiler error"))?;
        if let (Err(e), Ok(_)) = (&compiled, &early) {
            if e.exceeded.is_some() {
                let why = why_stopped(e, &seen, c.limits.max_memory);
                return from_mixed(early.map_err(error)?, why, opts);
            }
        }
        if !compiled.as_ref().is_err_and(exceeded) && !early.as_ref().is_err_and(exceeded) {
            let mut early = Some(early);
            return from_c(compiled.map_err(error)?, opts, |max, sums| {
                match early.take() {
                    Some(early) if sums.is_none() => early,
                    _ => mixed(&with_sums(&c, max, sums)),
                }
            });
        }
    }
    if opts.protocol == Protocol::Auto {
        if let Some(loaded) = compile_auto(opts, (&c, &half), &boolean, &mixed)? {
            return Ok(loaded);
        }
    }
    match boolean(&c).or_else(|e| unrolled_if_kept_too_long(&c, &boolean, e)) {
        Ok(compiled) => from_c(compiled, opts, |max, sums| mixed(&with_sums(&c, max, sums))),
        // (`auto` gets here only if the program has products of secrets.)
        Err(e) if e.exceeded.is_some() && opts.protocol != Protocol::Yao => {
            let compiled = mixed(&c).map_err(|_| error(e.clone()))?;
            from_mixed(compiled, e.to_string(), opts)
        }
        Err(e) => Err(error(e)),
    }
}

/// A Boolean compilation that kept loops and stopped (`e`) at the limit of
/// compile-time work compiled again with every loop unrolled: probing
/// iterations that differ (k-means's, whose 4.7 M AND gates compile flat
/// in 2 s) can take more work than unrolling them; else `e`. Its loops
/// say why they were unrolled.
fn unrolled_if_kept_too_long(
    c: &CompileOptions,
    boolean: &impl Fn(&CompileOptions) -> Result<CompiledProgram, CompileError>,
    e: CompileError,
) -> Result<CompiledProgram, CompileError> {
    match e.exceeded {
        Some(Exceeded::Steps { max }) if c.loops && max == c.limits.max_steps => {
            let mut compiled = boolean(&CompileOptions {
                loops: false,
                ..c.clone()
            })?;
            let why = format!(
                "keeping the loops took more than {max} steps of compile-time work, \
                 so the program was compiled again with every loop unrolled"
            );
            for l in &mut compiled.loops {
                l.why = Some(why.clone());
            }
            Ok(compiled)
        }
        _ => Err(e),
    }
}

/// Whether a compilation stopped at its memory or gate limit (so that it
/// may fit in a larger one).
fn exceeded(e: &CompileError) -> bool {
    matches!(
        e.exceeded,
        Some(Exceeded::Memory { .. } | Exceeded::Gates { .. })
    )
}

/// [`compile_c`] for `--protocol auto`, the mixed compilation beside the
/// Boolean one from its first product of secrets on. `None` if the Boolean
/// compilation needed more than half of the memory limit once the mixed one
/// started: then they compile one after the other. A mixed compilation that
/// needed more than its half compiles again, alone, in all of it.
fn compile_auto(
    opts: &LoadOptions,
    (c, half): (&CompileOptions, &CompileOptions),
    boolean: &(impl Fn(&CompileOptions) -> Result<CompiledProgram, CompileError> + Sync),
    mixed: &(impl Fn(&CompileOptions) -> Result<MixedCompiled, CompileError> + Sync),
) -> Result<Option<Loaded>> {
    let (seen, bound) = (Watch::new(), Watch::new());
    let failed = || anyhow::anyhow!("internal compiler error");
    std::thread::scope(|s| {
        let early = s.spawn(|| {
            if !seen.wait_for_product() {
                return None;
            }
            seen.set_max_memory(half.limits.max_memory);
            let compiled = mixed(&CompileOptions {
                watch: Some(bound.clone()),
                ..half.clone()
            });
            if let Ok(m) = &compiled {
                outrun_by(&seen, m, opts);
            }
            Some(compiled)
        });
        let compiled = {
            let _ended = Ended(&seen);
            boolean(&CompileOptions {
                watch: Some(seen.clone()),
                ..c.clone()
            })
        };
        // The mixed compilation, if it started, bounded by `max` gates
        // (0: stopped, not needed).
        let mut early = Some(early);
        let mut join = |max: u64| {
            bound.set_max_gates(max);
            early.take().map(|e| e.join().map_err(|_| failed()))
        };
        let compiled = match compiled {
            Ok(compiled) => compiled,
            // Past a compile limit the garbled circuits are out of reach:
            // the mixed program, if it compiles, is the one to run.
            Err(e) if e.exceeded.is_some() => {
                return match join(u64::MAX).transpose()?.flatten() {
                    Some(Ok(m)) => {
                        let why = why_stopped(&e, &seen, c.limits.max_memory);
                        from_mixed(m, why, opts).map(Some)
                    }
                    // Alone, in all of the memory limit: both, if the
                    // Boolean one may fit there.
                    Some(Err(_)) if exceeded(&e) => Ok(None),
                    Some(Err(_)) => {
                        let m = mixed(c).map_err(|_| anyhow::anyhow!("{e}"))?;
                        from_mixed(m, e.to_string(), opts).map(Some)
                    }
                    // No product of secrets met: garbled circuits only.
                    None => {
                        let compiled = unrolled_if_kept_too_long(c, boolean, e)
                            .map_err(|e| anyhow::anyhow!("{e}"))?;
                        from_c(compiled, opts, |max, sums| mixed(&with_sums(c, max, sums)))
                            .map(Some)
                    }
                };
            }
            Err(e) => {
                join(0).transpose()?;
                return Err(anyhow::anyhow!("{e}"));
            }
        };
        let loaded = from_c(compiled, opts, |max, sums| {
            if sums.is_some() {
                return mixed(&with_sums(c, max, sums));
            }
            let early = join(max.unwrap_or(u64::MAX))
                .transpose()
                .ok()
                .flatten()
                .flatten();
            match early {
                Some(e) if !e.as_ref().is_err_and(|e| exceeded(e) && !bounded(e, max)) => e,
                _ => mixed(&at_most(c, max)),
            }
        });
        join(0).transpose()?;
        loaded.map(Some)
    })
}

/// Marks a compilation ended when dropped, so that the thread waiting for
/// its first product of secrets wakes however it ended (a panic too).
struct Ended<'w>(&'w Watch);

impl Drop for Ended<'_> {
    fn drop(&mut self) {
        self.0.end();
    }
}

/// Whether `e` stopped at the gate bound `max` (not at a limit of its own).
fn bounded(e: &CompileError, max: Option<u64>) -> bool {
    matches!((&e.exceeded, max), (Some(Exceeded::Gates { max: m }), Some(b)) if *m == b)
}

/// `opts` making at most `max_gates` gates (if given).
fn at_most(opts: &CompileOptions, max_gates: Option<u64>) -> CompileOptions {
    let mut opts = opts.clone();
    if let Some(max) = max_gates {
        opts.limits.max_gates = opts.limits.max_gates.min(max);
    }
    opts
}

/// `opts` making at most `max_gates` gates (if given), the sums of
/// products `boolean_sums` names (if any) given their Boolean circuits.
pub fn with_sums(
    opts: &CompileOptions,
    max_gates: Option<u64>,
    boolean_sums: Option<Arc<[u32]>>,
) -> CompileOptions {
    CompileOptions {
        boolean_sums,
        ..at_most(opts, max_gates)
    }
}

/// The compiler's options for C source.
fn c_options(opts: &LoadOptions) -> CompileOptions {
    CompileOptions {
        unwind: opts.unwind,
        owners: opts.owners.clone(),
        regions: !opts.no_regions,
        loops: !opts.no_loops,
        limits: opts
            .max_memory
            .map_or_else(Limits::default, Limits::for_memory),
        // (Three computing parties hold every input as shares.)
        local_values: opts.parties == Parties::Two,
        ..CompileOptions::default()
    }
}

/// A program compiled from C, with its values' C types, and the mixed
/// program to run instead if `--protocol` chooses one (`mixed` compiles
/// it, making at most the gates it is given).
fn from_c(
    compiled: CompiledProgram,
    opts: &LoadOptions,
    mixed: impl CompileMixed,
) -> Result<Loaded> {
    let main = &compiled.program.main;
    let parties = with_lanes(
        &opts.parties,
        (
            &compiled.inputs,
            main.inputs.iter().map(|v| v.width).collect(),
        ),
        (
            &compiled.outputs,
            output_shapes(&compiled.program)
                .iter()
                .map(|o| o.1)
                .collect(),
        ),
    );
    let choice = choose(
        opts.protocol,
        (&opts.network, &parties),
        (&compiled.program, compiled.work),
        compiled.secret_products,
        mixed,
    )?;
    Ok(Loaded {
        load_time: std::time::Duration::ZERO,
        compiled: true,
        secret_products: compiled.secret_products,
        loops: compiled.loops,
        input_kinds: c_kinds(compiled.inputs),
        output_kinds: c_kinds(compiled.outputs),
        inputs: compiled.program.main.inputs.clone(),
        outputs: output_shapes(&compiled.program),
        program: Some(compiled.program),
        not_garbled: None,
        mixed: choice.chosen,
        declined: choice.declined,
    })
}

/// Who runs a C program: three parties' estimates take the lanes of its
/// values (their C types and widths: inputs, then outputs).
pub(crate) fn with_lanes(
    parties: &Parties,
    (inputs, input_widths): (&[(String, CType)], Vec<u32>),
    (outputs, output_widths): (&[(String, CType)], Vec<u32>),
) -> Parties {
    let lanes = |types: &[(String, CType)], widths: Vec<u32>| {
        let kinds = types.iter().map(|(_, t)| ValueKind::C(t.clone()));
        kinds.zip(widths).map(|(k, w)| lane_of(&k, w)).collect()
    };
    match parties {
        Parties::Two => Parties::Two,
        Parties::Three { .. } => Parties::Three {
            input_lanes: lanes(inputs, input_widths),
            output_lanes: lanes(outputs, output_widths),
        },
    }
}

/// The kinds of C values of these types.
pub(crate) fn c_kinds(values: Vec<(String, CType)>) -> Vec<ValueKind> {
    values.into_iter().map(|(_, t)| ValueKind::C(t)).collect()
}

/// Each output value of `program`: its name and width.
pub fn output_shapes(program: &Program) -> Vec<(String, u32)> {
    let outputs = program.main.outputs.iter();
    outputs
        .map(|v| (v.name.clone(), v.wires.len() as u32))
        .collect()
}

/// A program read from a circuit file: its values are integers.
fn from_circuit(program: Program) -> Loaded {
    Loaded {
        load_time: std::time::Duration::ZERO,
        compiled: false,
        secret_products: 0,
        loops: Vec::new(),
        input_kinds: vec![ValueKind::Int; program.main.inputs.len()],
        output_kinds: vec![ValueKind::Int; program.main.outputs.len()],
        inputs: program.main.inputs.clone(),
        outputs: output_shapes(&program),
        program: Some(program),
        not_garbled: None,
        mixed: None,
        declined: None,
    }
}

/// Records the load time since `start` and reassigns input values to
/// parties as `opts.owners` says.
fn finish(mut loaded: Loaded, start: std::time::Instant, opts: &LoadOptions) -> Result<Loaded> {
    loaded.load_time = start.elapsed();
    if opts.protocol == Protocol::Mixed && !loaded.compiled {
        bail!("--protocol mixed partitions C programs; this one is a circuit (run a .tfm with `twofold mixed`)");
    }
    for (name, party) in &opts.owners {
        let garbled = loaded.program.iter_mut().flat_map(|p| &mut p.main.inputs);
        for value in loaded.inputs.iter_mut().chain(garbled) {
            if &value.name == name {
                value.party = *party;
            }
        }
        if !loaded.inputs.iter().any(|v| &v.name == name) {
            bail!("--owner: the program has no input `{name}`");
        }
    }
    Ok(loaded)
}

/// Parses `--owner` lists: `0=a,1=b,2=a` (names or value numbers).
pub fn parse_owners(specs: &[String]) -> Result<Vec<(String, Party)>> {
    let mut owners = Vec::new();
    for spec in specs.iter().flat_map(|s| s.split(',')) {
        let (name, party) = spec
            .split_once('=')
            .with_context(|| format!("--owner `{spec}`: expected NAME=a or NAME=b"))?;
        owners.push((name.trim().to_string(), parse_party(party.trim())?));
    }
    Ok(owners)
}

/// `a` or `b` (either case).
pub fn parse_party(text: &str) -> Result<Party> {
    match text {
        "a" | "A" => Ok(Party::A),
        "b" | "B" => Ok(Party::B),
        other => bail!("`{other}` is not a party (a or b)"),
    }
}

#[cfg(test)]
mod tests;
