//! A C program whose garbled circuits are out of reach: its Boolean
//! compilation stopped at a compile limit, or was outrun by its mixed
//! compilation (it had worked longer than the mixed program takes to
//! compile and run), while the mixed program compiled. The mixed program
//! then runs alone, its values those of its C interface (docs/mixed.md,
//! "When garbled circuits are out of reach").

use anyhow::Result;
use twofold_circuit::size::show;
use twofold_circuit::InputValue;
use twofold_compiler::error::Exceeded;
use twofold_compiler::mixed::MixedCompiled;
use twofold_compiler::{CompileError, Watch};

use crate::choice::{work_outrunning, Chosen, Comparison, WORK_PER_SECOND};
use crate::load::{c_kinds, with_lanes, LoadOptions, Loaded};

/// A C program whose Boolean compilation stopped (`why`: at a compile
/// limit, or outrun by the mixed compilation) while its mixed program
/// compiled: the mixed program runs, all of its sums of products
/// arithmetic. Both parties reach it alike if their limits agree (if not,
/// the handshake finds their programs differ).
pub fn from_mixed(compiled: MixedCompiled, why: String, opts: &LoadOptions) -> Result<Loaded> {
    let (inputs, outputs) = values_of(&compiled);
    let estimate = mixed_estimate(&compiled, opts)?;
    Ok(Loaded {
        load_time: std::time::Duration::ZERO,
        compiled: true,
        secret_products: compiled.arithmetic_sums as u64,
        loops: Vec::new(),
        input_kinds: c_kinds(compiled.inputs.clone()),
        output_kinds: c_kinds(compiled.outputs.clone()),
        inputs,
        outputs,
        program: None,
        not_garbled: Some(why),
        mixed: Some(Chosen { compiled, estimate }),
        declined: None,
    })
}

/// The C program's input values (name, party, width) and output values
/// (name, width), as its mixed program takes and gives them.
fn values_of(compiled: &MixedCompiled) -> (Vec<InputValue>, Vec<(String, u32)>) {
    let inputs = (compiled.inputs.iter().zip(&compiled.input_parties))
        .map(|((name, t), party)| InputValue {
            name: name.clone(),
            party: *party,
            width: t.width(),
        })
        .collect();
    let outputs = (compiled.outputs.iter().zip(&compiled.output_bits))
        .map(|((name, _), bits)| (name.clone(), bits.len() as u32))
        .collect();
    (inputs, outputs)
}

/// The estimate of the mixed program alone (all of its sums of products
/// arithmetic) for the network and parties of `opts`.
fn mixed_estimate(compiled: &MixedCompiled, opts: &LoadOptions) -> Result<Comparison> {
    let (inputs, outputs) = values_of(compiled);
    let parties = with_lanes(
        &opts.parties,
        (&compiled.inputs, inputs.iter().map(|v| v.width).collect()),
        (&compiled.outputs, outputs.iter().map(|o| o.1).collect()),
    );
    let values = (inputs.as_slice(), outputs.as_slice());
    Comparison::mixed_only(compiled, values, &opts.network, &parties)
}

/// Bounds the work of the Boolean compilation `watch` watches by what
/// `mixed` takes to compile and run (see [`work_outrunning`]): past it,
/// the mixed program is faster whatever the garbled circuits cost, and
/// `choose` would choose it.
pub fn outrun_by(watch: &Watch, mixed: &MixedCompiled, opts: &LoadOptions) {
    if let Ok(estimate) = mixed_estimate(mixed, opts) {
        watch.set_max_work(work_outrunning(&estimate));
    }
}

/// Why the Boolean compilation `watch` watched stopped with `e`: outrun
/// by the mixed program (see [`outrun_by`]), at the part of the memory
/// limit (`max_memory`, as given) it had beside the mixed compilation,
/// or at another compile limit.
pub fn why_stopped(e: &CompileError, watch: &Watch, max_memory: u64) -> String {
    match e.exceeded {
        Some(Exceeded::Steps { max }) if max == watch.max_work() => format!(
            "compiling them took longer than the mixed program takes to compile and run ({max} steps of compile-time work, at least {:.3} s)",
            max as f64 / WORK_PER_SECOND
        ),
        Some(Exceeded::Memory { max, held }) if max < max_memory => format!(
            "{}:{}:{}: compiling them beside the mixed program would need more than the {} of --max-memory ({}) they have (about {} held while lowering)",
            e.file,
            e.line,
            e.col,
            show(max),
            show(max_memory),
            show(held)
        ),
        _ => e.to_string(),
    }
}
