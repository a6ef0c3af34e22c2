//! twofold-compiler: compiles a subset of C (CBMC-GC / HyCC conventions) to
//! a Boolean circuit of XOR, AND and INV gates for Yao's garbled circuits.
//!
//! # Conventions
//! - `mpc_main(InputA INPUT_A, InputB INPUT_B)` whose parameters are the
//!   parties' inputs (a parameter declared as an array of constant size,
//!   `int INPUT_A[8]`, is an input array, which the function sees through
//!   a pointer as in C) and whose return value is the output `"return"`; or
//!   local variables `INPUT_A_*`, `INPUT_B_*` (inputs) and `OUTPUT_*`
//!   (outputs, their values when the entry function ends) declared in the
//!   entry function (`mpc_main`, else `main`). Inputs whose names start with
//!   `INPUT_A` belong to party A, `INPUT_B` to party B; any other input needs
//!   an owner in [`CompileOptions::owners`].
//! - Values in a circuit are laid out scalar by scalar (struct members and
//!   array elements in order, bit 0 first), without padding; `_Bool` is one
//!   bit. Types follow gcc on x86-64: `char` is signed, `long` is 64-bit.
//!   `sizeof`, `memcpy` and `memset` use C's layout (with padding).
//! - Any object can be read and written byte by byte through `char`
//!   pointers (`unsigned char *p = (unsigned char *)&v; p[i]`), as gcc
//!   does on x86-64 (little-endian, structs with gcc's padding): such a
//!   pointer counts the bytes of the object's C layout, moved, compared
//!   and subtracted by bytes, at public or secret offsets within the
//!   object; a wider type read or written through a pointer into bytes of
//!   another layout (`*(uint32_t *)(buf + k)`) is those bytes. Padding
//!   holds 0 (twofold keeps none): reading back padding written as bytes
//!   at a public position is refused, and a write at a secret byte
//!   position leaves the padding it may reach as it is.
//!
//! # How it works
//! [`preprocess`] (built-in `<stdint.h>`, `<inttypes.h>`, `<stdbool.h>`,
//! `<string.h>`, `<stddef.h>`, `<stdlib.h>`, `<limits.h>`, `<math.h>`,
//! `<float.h>`, `<ctype.h>`, `<iso646.h>`; no system compiler needed) → [`lexer`] → [`parser`] ([`ast`], [`types`]) →
//! [`lower`]: the program is run symbolically. Public values are computed at
//! compile time; secret ones are words of circuit bits ([`value`]) built by
//! the word-level library [`gates`]. Calls are inlined and loops unrolled; a
//! branch on a secret condition runs both sides and merges what they wrote
//! with multiplexers. Additions and multiplications stay lazy sums of rows
//! until their bits are needed and are then reduced together with full
//! adders, so `sum += a[i] * b[i]` or `count += x != y` cost about one AND
//! gate per partial-product bit. Every word carries the range of its value
//! (interval analysis): bits a range proves constant are dropped, so `int`
//! counters and dynamic-programming cells are as narrow as their values.
//! The builder folds constants and hashes structurally; `finish` removes
//! dead gates. [`io`] converts inputs and outputs (C initializers, JSON).
//!
//! A `for` loop with a public trip count whose body uses its variable only
//! to index arrays and shift ([`loops`]) is *kept*: its iterations are
//! lowered one at a time as templates until two in a row are the same body
//! up to wiring, and the template is then checked against the rest without
//! lowering them (`lower::keep`); each run of alike iterations becomes a
//! block of the program, stored once. A loop whose iterations are
//! independent ([`regions`]: each writes only its own locals, the elements
//! of outer arrays at the loop variable's index, and scalars through
//! reductions or a min/max) becomes a *parallel* block: a reduction's
//! iterations each start from the operator's identity and the partials are
//! combined after the loop. Iterations that differ (their values' widths or
//! constants change) are unrolled; [`CompiledProgram::loops`] says which.
//!
//! # Semantics
//! C integer semantics to the bit, as `gcc -fwrapv`: promotions and the usual
//! arithmetic conversions, wrap-around, truncating `/` and `%`, short-circuit
//! `&&`/`||`. Choices where C leaves the behaviour undefined:
//! - Division by zero: unsigned `x / 0` is all ones and `x % 0 = x`;
//!   signed `x / 0` is -1 for `x >= 0` and 1 for `x < 0`, `x % 0 = x`.
//!   `INT_MIN / -1` wraps to `INT_MIN`, `INT_MIN % -1` is 0. Public
//!   operands give the same results at compile time.
//! - Shifts use the low log2(width) bits of the amount (as x86 does).
//! - A read at a secret index outside the array returns some element of the
//!   array (or of the object holding it); a write there changes at most such
//!   an element. A public index out of bounds is a compile error where
//!   every path runs; under a secret condition (a path that may never
//!   run, such as a merge's iteration past its end) it is read and
//!   written as a secret index is.
//! - Variables without an initializer start as zero.
//! - A loop whose exit depends on a secret value is unrolled at most
//!   `--unwind N` times (default: an error after
//!   [`DEFAULT_SECRET_ITERATIONS`](lower::DEFAULT_SECRET_ITERATIONS)
//!   iterations); later iterations are cut off, as CBMC does without
//!   unwinding assertions. An iteration counts if its condition is
//!   secret, or — once it was — if it runs on a secret path (the
//!   condition may have become true there for good); a loop without a
//!   condition (`for (;;)`, or a nonzero constant: `while (1)`) counts
//!   the iterations after a break on a secret path. A loop whose
//!   condition is a conjunction bounding counters (`i < n && j < m`)
//!   that every path going on steps towards their bounds, each a local
//!   whose address is never taken, public at the start, runs at most as
//!   many iterations as their distances allow (a merge: `n + m - 1`),
//!   with no `--unwind` needed. Recursion under a secret condition is cut off at
//!   `N` active calls of the same function likewise (default: an error past
//!   1000 nested calls). Inside a branch on a secret condition, locations
//!   merged on that condition (or on one it implies, or on its negation)
//!   take their value for that side, through merges of merges, so a loop
//!   counter stays public on the paths still running after a secret
//!   `break`, a `continue`, or a secret update (`if (x) found = 1; else
//!   i++;` under `while (i < n && !found)`), and comparisons that value
//!   ranges decide fold: such loops end by themselves. Where paths rejoin
//!   after some left (by `continue`, `break` or `return`), a merged value
//!   of a few bits that is the same on every path (tried on every value
//!   of the few wires it is computed from) is that constant, and one the
//!   same on every path going on to the next iteration is that there: a
//!   counter stepped inside secret branches that `continue` and after
//!   them (`if (x) { i++; continue; } i++;`) stays public too.
//!
//! Built-in functions: `memcpy`, `memmove`, `memset` (also as `__builtin_memcpy`…; over whole scalars,
//! public sizes), `abs`, `labs`, `llabs`, and `<math.h>`'s `sqrt`, `fabs`,
//! `floor`, `ceil`, `trunc`, `round`, `fmin`, `fmax`, `copysign` (and their
//! `float` forms), and GCC's integer built-ins `__builtin_popcount`,
//! `__builtin_parity`, `__builtin_ctz`, `__builtin_clz`, `__builtin_ffs`,
//! `__builtin_clrsb` (with their `l`/`ll` forms), `__builtin_bswap16/32/64`,
//! `__builtin_add_overflow`, `__builtin_sub_overflow`,
//! `__builtin_mul_overflow`, `__builtin_expect` and `__builtin_unreachable`
//! (`ctz` and `clz` of zero, undefined in gcc, are the operand's width);
//! the math and classification built-ins (`__builtin_fabs`,
//! `__builtin_isnan`, `__builtin_fpclassify`, ...), `__builtin_constant_p`
//! and `__builtin_choose_expr`.
//!
//! `__int128` and `unsigned __int128` (`__int128_t`, `__uint128_t`) are
//! gcc's 128-bit integers (size and alignment 16, `__SIZEOF_INT128__`
//! defined): arithmetic, shifts, comparisons and conversions, to and
//! from `float` and `double` as libgcc's. Their words are never narrowed
//! by value ranges (whose `i128` bounds do not bound them). They cannot
//! be inputs or outputs (use two 64-bit halves).
//!
//! `float` and `double` are IEEE-754 binary32 and binary64, bit for bit as
//! gcc's x86-64 SSE code computes them (`docs/floats.md`): rounding to
//! nearest even, subnormals, NaNs as SSE makes them, conversions to
//! integers out of range as `cvttsd2si` gives them.
//!
//! String literals are arrays of `char` (initializers of `char` arrays,
//! values), compound literals `(T){...}` unnamed objects, and
//! `_Static_assert` is checked where it stands. Wide and Unicode literals
//! take gcc's types (`L'x'` an `int`, `u'x'` an `unsigned short`, `U'x'`
//! an `unsigned int`; `L"..."`, `u"..."` (UTF-16), `U"..."` arrays of
//! them, `u8"..."` of `char`); `_Alignof` (and `<stdalign.h>`'s `alignof`)
//! gives x86-64 alignments, and `_Alignas` on a struct member changes the
//! layout as gcc's; `__FILE__` and `__LINE__` expand; `$` may appear in
//! names, as gcc allows. `typeof` (`__typeof__`) of an expression (not
//! evaluated) or a type; GNU statement expressions `({ ... })`, from which
//! nothing may jump out; `_Generic` (twofold's types do not tell `long`
//! from `long long`, `char` from `signed char`, nor record qualifiers: a
//! selection those decide is an error); `static` locals, one object each
//! for the whole program, initialized before the entry function runs; GNU
//! case ranges (`case 'a' ... 'z':`); universal character names;
//! old-style (K&R) definitions and implicit `int`; parameters of variably
//! modified type (`int a[n][n]`), made at each call; GNU `__auto_type`;
//! the attributes `packed` and `aligned` and `#pragma pack` lay structs
//! out as gcc's (attributes that change nothing computed are read over,
//! those that change types otherwise are errors). The
//! headers define part of the C library in C (`preprocess::libc`: string
//! lengths, comparisons and copies, `memcmp`, `div`, `atoi`, `<ctype.h>`).
//!
//! Function pointers (`lower::fnptr`): variables, parameters, arrays,
//! struct members, typedefs and returned values of function pointer type;
//! a function name decays to a pointer; `&f`, `*f`, `(*f)(x)`, `f(x)`,
//! `ops[i](x)`, `s.op(x)`, `p->op(x)`, `==`/`!=`, `sizeof` 8. A pointer is
//! public, so a call through one is a direct call; where its target
//! depends on a secret (`f = s > 0 ? add : mul`, or assigned in a secret
//! branch), the call runs each candidate under its condition, as
//! `if (s > 0) r = add(x, y); else r = mul(x, y);` does. One a secret
//! leaves null or not (`f = NULL; if (s) f = add;`) is tested by `if (f)`
//! and `f == NULL`; a call through it calls one of the functions it may
//! point to (a call through null is undefined in C). A call through a
//! pointer that is null where every path runs, or with the wrong number
//! of arguments, is an error. `qsort(base, n, size,
//! cmp)` with public `n` and `size` and `base` typed by its elements is
//! built in as Batcher's odd-even merge sort: each compare-swap calls
//! `cmp` and swaps when it returns more than 0. Like C's `qsort` it is
//! not stable: elements `cmp` finds equal may end in another order than
//! the C library's (results agree whenever no two distinct elements
//! compare equal). `bsearch` is refused: the element it points to
//! depends on the secret values, and pointers are public.
//!
//! Unsupported (reported as `file:line:col: error: ...`): `long double`,
//! `_Complex`, pointers in unions and unions as inputs or outputs, goto
//! (a label no goto names is accepted), variadic functions, `bsearch`,
//! `case` labels below a switch body's top
//! level (Duff's device), I/O and other library calls,
//! dynamic memory, pointers that leave their object or whose target object
//! depends on a secret (a secret position within one object is a secret
//! index), pointers read or written as bytes, 128-bit integers as inputs
//! or outputs, bit-fields wider than 32 bits (and as inputs or outputs),
//! `typeof(expression)` in a typedef, parameter or struct member, and
//! nested designators (`.a.b = 1`) in input values (in C they are
//! supported, as are designators naming a member of an anonymous member).

pub mod ast;
pub mod definitions;
pub mod error;
pub mod floats;
pub mod gates;
pub mod io;
pub mod lexer;
pub mod loops;
pub mod lower;
pub mod mixed;
pub mod parser;
pub mod preprocess;
pub mod range;
pub mod regions;
pub mod signature;
pub mod types;
pub mod value;
pub mod watch;

use std::path::Path;

pub use error::CompileError;
pub use io::CValue;
pub use twofold_circuit::{Circuit, Party, Program};
pub use types::CType;
pub use watch::Watch;

/// Options of a compilation.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    /// Bound for loops whose exit depends on a secret value and for
    /// recursion under a secret condition (`--unwind N`).
    pub unwind: Option<u32>,
    /// Owners of inputs whose names start with neither `INPUT_A` nor
    /// `INPUT_B` (`--owner INPUT_C=b`).
    pub owners: Vec<(String, Party)>,
    /// Whether loops with independent iterations become parallel regions
    /// (see [`regions`]); on by default, off with `--no-regions`.
    pub regions: bool,
    /// Whether loops are kept as loops where they can be (see [`loops`]);
    /// on by default, off with `--no-loops` (every loop unrolled).
    pub loops: bool,
    /// Folders searched for `#include "..."` after the including file's.
    pub include_dirs: Vec<std::path::PathBuf>,
    /// Bounds on the work a source may ask for.
    pub limits: Limits,
    /// Another thread's handle on this compilation: told of its first
    /// product of two secret words, and bounding its gates as it goes.
    pub watch: Option<Watch>,
    /// A mixed compilation for two parties: a word a sum reads whose bits
    /// depend on one party's inputs alone is that party's share, computed
    /// in the clear ([`mixed::LocalInput`]). Off for three computing
    /// parties, who hold every input as shares.
    pub local_values: bool,
    /// A mixed compilation: the sums of products of secret words, by
    /// their numbers ([`mixed::MixedCompiled::converted_sums`] names them), that
    /// get their Boolean circuit instead of running arithmetically.
    /// Sorted.
    pub boolean_sums: Option<std::sync::Arc<[u32]>>,
}

/// Bounds on the work of a compilation, so that any source — however
/// hostile — ends in a clear error instead of exhausting memory, stack or
/// time. The defaults are far above what the examples need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most gates held while compiling (every frame being built, counted
    /// when a loop iteration or a call starts).
    pub max_gates: u64,
    /// Most iterations of one loop at compile time.
    pub max_iterations: u64,
    /// Deepest nesting of expressions, statements, declarators and
    /// initializers in the source (parentheses, operands of a chain of
    /// binary operators, blocks, ...).
    pub max_nesting: usize,
    /// Most tokens the preprocessor may produce (bounds macro expansion).
    pub max_tokens: usize,
    /// Most steps of compile-time work: statements and expressions
    /// lowered, loop iterations checked against a template, gates asked of
    /// the builder while probing a loop's iterations (a few steps each).
    /// Bounds the time of loops that make no gates, or whose probes are
    /// thrown away; the default takes seconds (20 on a loaded 2-vCPU
    /// machine).
    pub max_steps: u64,
    /// Most bytes lowering may hold, as it estimates them: gates of the
    /// frames being built, range tapes, objects, and the templates of the
    /// loops being kept (`--max-memory`).
    pub max_memory: u64,
}

/// The default of [`Limits::max_steps`].
pub const DEFAULT_MAX_STEPS: u64 = 100_000_000;

/// The default of [`Limits::max_memory`]: 8 GiB.
pub const DEFAULT_MAX_MEMORY: u64 = 8 << 30;

impl Limits {
    /// The limits for a compilation that may use at most `bytes` of memory
    /// (`--max-memory`): the memory estimate is bounded by it, and the
    /// gates held by what they take.
    pub fn for_memory(bytes: u64) -> Limits {
        Limits {
            max_memory: bytes,
            max_gates: Limits::default().max_gates.min(bytes / lower::GATE_BYTES),
            ..Limits::default()
        }
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_gates: 1 << 26,
            max_iterations: twofold_circuit::program::MAX_ITERATIONS,
            max_nesting: 2000,
            max_tokens: 1 << 20,
            max_steps: DEFAULT_MAX_STEPS,
            max_memory: DEFAULT_MAX_MEMORY,
        }
    }
}

impl Default for CompileOptions {
    fn default() -> CompileOptions {
        CompileOptions {
            unwind: None,
            owners: Vec::new(),
            regions: true,
            loops: true,
            include_dirs: Vec::new(),
            limits: Limits::default(),
            watch: None,
            local_values: false,
            boolean_sums: None,
        }
    }
}

/// How a `for` loop of the source was lowered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopVerdict {
    /// The source file.
    pub file: String,
    /// The line of its `for`.
    pub line: u32,
    /// Iterations (of every time the loop ran, if it ran several times as
    /// part of the program; inside a kept loop's template, the last time).
    pub iterations: u64,
    /// The blocks it became: iterations each, and whether parallel.
    pub blocks: Vec<(u64, bool)>,
    /// Iterations unrolled.
    pub unrolled: u64,
    /// Iterations that do nothing (a public condition disabled them), so
    /// that no block has an instance for them.
    pub disabled: u64,
    /// Iterations of its blocks that an earlier block ran already (a loop
    /// run again over more of the same values: a block for each run goes
    /// on from where the last one ended).
    pub continued: u64,
    /// Why it was not kept, or not all of it.
    pub why: Option<String>,
}

impl LoopVerdict {
    /// Whether some of its iterations form a block.
    pub fn kept(&self) -> bool {
        !self.blocks.is_empty()
    }

    /// Whether it became a parallel region (its iterations in one
    /// parallel block).
    pub fn is_region(&self) -> bool {
        self.blocks.len() == 1 && self.blocks[0].1 && self.unrolled == 0
    }
}

/// A compiled program: the circuit with its parallel regions and the C
/// types of its inputs and outputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompiledProgram {
    /// The program: its main circuit's input values are named as in the
    /// source (`INPUT_A`, `INPUT_B_x`, ...), its outputs `return` or
    /// `OUTPUT_*`.
    pub program: Program,
    /// How each `for` loop was lowered, in source order.
    pub loops: Vec<LoopVerdict>,
    /// The C type of each circuit input, in the order of
    /// `program.main.inputs`.
    pub inputs: Vec<(String, CType)>,
    /// The C type of each circuit output, in the order of
    /// `program.main.outputs`.
    pub outputs: Vec<(String, CType)>,
    /// Products of two secret words the program computes (as lowering
    /// met them): 0 when an arithmetic sharing has nothing to do
    /// ([`compile_mixed`]).
    pub secret_products: u64,
    /// The compile-time effort lowering spent: its work as
    /// [`Limits::max_steps`] counts it, plus one step for every gate asked
    /// of the builder (reducing a long sum makes millions within one
    /// step). The same for every compilation of the program with the same
    /// options, on any machine; [`Watch::set_max_work`] bounds it.
    pub work: u64,
}

/// Why a loop was unrolled when [`CompileOptions::loops`] is off.
pub const NO_LOOPS: &str = "--no-loops";

/// Stack size of the compiling thread (deeply nested inlining recurses).
const STACK: usize = 256 << 20;

/// Compiles C source text; `file_name` names it in errors, and
/// `#include "..."` is resolved relative to its directory.
pub fn compile(
    source: &str,
    file_name: &str,
    opts: &CompileOptions,
) -> Result<CompiledProgram, CompileError> {
    on_compiler_thread(file_name, || compile_inner(source, file_name, opts))
}

/// Compiles C source text to a mixed program ([`mixed`]): every loop
/// unrolled, sums of products of secret words in the arithmetic sharing.
pub fn compile_mixed(
    source: &str,
    file_name: &str,
    opts: &CompileOptions,
) -> Result<mixed::MixedCompiled, CompileError> {
    on_compiler_thread(file_name, || compile_mixed_inner(source, file_name, opts))
}

/// Runs `f` on a thread of its own with a large stack (deeply nested
/// inlining recurses).
fn on_compiler_thread<T: Send>(
    file_name: &str,
    f: impl FnOnce() -> Result<T, CompileError> + Send,
) -> Result<T, CompileError> {
    let error = |message: String| CompileError {
        file: file_name.to_string(),
        line: 0,
        col: 0,
        message,
        exceeded: None,
    };
    std::thread::scope(|s| {
        let handle = std::thread::Builder::new()
            .name("twofold-compile".into())
            .stack_size(STACK)
            .spawn_scoped(s, f);
        match handle {
            Ok(h) => h
                .join()
                .unwrap_or_else(|_| Err(error("internal compiler error".into()))),
            Err(e) => Err(error(format!("cannot start the compiler thread: {e}"))),
        }
    })
}

/// Compiles a C file (a regular file of at most
/// [`preprocess::MAX_SOURCE_BYTES`]).
pub fn compile_file(path: &Path, opts: &CompileOptions) -> Result<CompiledProgram, CompileError> {
    let (source, name) = read_file(path)?;
    compile(&source, &name, opts)
}

/// [`compile_mixed`] of a C file.
pub fn compile_mixed_file(
    path: &Path,
    opts: &CompileOptions,
) -> Result<mixed::MixedCompiled, CompileError> {
    let (source, name) = read_file(path)?;
    compile_mixed(&source, &name, opts)
}

/// The text of a C file and its name for errors.
fn read_file(path: &Path) -> Result<(String, String), CompileError> {
    let name = path.display().to_string();
    let bytes = preprocess::read_source(path).map_err(|e| CompileError {
        file: name.clone(),
        line: 0,
        col: 0,
        message: format!("cannot read the file: {e}"),
        exceeded: None,
    })?;
    let source =
        preprocess::utf8(bytes, 0).map_err(|d| d.into_error(std::slice::from_ref(&name)))?;
    Ok((source, name))
}

/// Preprocesses, parses and lowers the source; also the names of the
/// files it read (for errors).
fn lowered(
    source: &str,
    file_name: &str,
    opts: &CompileOptions,
) -> Result<(lower::Lowered, Vec<String>), CompileError> {
    let dir = Path::new(file_name).parent();
    let (toks, files) = preprocess::preprocess(
        source,
        file_name,
        dir,
        &opts.include_dirs,
        opts.limits.max_tokens,
    )
    .map_err(|(d, files)| d.into_error(&files))?;
    // Library functions called without their header: the header is read
    // after the program.
    let wanted = preprocess::headers_called(&toks, &files);
    let (toks, files) = if wanted.is_empty() {
        (toks, files)
    } else {
        let includes: String = wanted.iter().map(|h| format!("\n#include <{h}>")).collect();
        preprocess::preprocess(
            &format!("{source}{includes}\n"),
            file_name,
            dir,
            &opts.include_dirs,
            opts.limits.max_tokens,
        )
        .map_err(|(d, files)| d.into_error(&files))?
    };
    let mut prog =
        parser::parse(&toks, opts.limits.max_nesting).map_err(|d| d.into_error(&files))?;
    definitions::choose(&mut prog, &files).map_err(|d| d.into_error(&files))?;
    let lowered = lower::lower(&prog, opts).map_err(|d| d.into_error(&files))?;
    Ok((lowered, files))
}

/// An error of the whole program, after lowering.
fn program_error(file_name: &str, message: String) -> CompileError {
    CompileError {
        file: file_name.to_string(),
        line: 0,
        col: 0,
        message,
        exceeded: None,
    }
}

fn compile_mixed_inner(
    source: &str,
    file_name: &str,
    opts: &CompileOptions,
) -> Result<mixed::MixedCompiled, CompileError> {
    let flat = CompileOptions {
        loops: false,
        regions: false,
        ..opts.clone()
    };
    mixed::notes::start(true, opts.watch.clone(), opts.boolean_sums.clone());
    let lowered = lowered(source, file_name, &flat);
    let (_, notes, boolean_sums) = mixed::notes::finish();
    let (lowered, _) = lowered?;
    mixed::partitioned(lowered, &notes, opts.local_values, boolean_sums)
        .map_err(|e| program_error(file_name, format!("cannot partition the program: {e}")))
}

fn compile_inner(
    source: &str,
    file_name: &str,
    opts: &CompileOptions,
) -> Result<CompiledProgram, CompileError> {
    mixed::notes::start(false, opts.watch.clone(), None);
    let lowered = lowered(source, file_name, opts);
    let (secret_products, ..) = mixed::notes::finish();
    let (lowered, files) = lowered?;
    let program = lowered
        .builder
        .finish_program()
        .map_err(|e| program_error(file_name, format!("cannot finish the circuit: {e}")))?;
    let loops = lowered
        .loops
        .into_iter()
        .map(|(loc, r)| LoopVerdict {
            file: files
                .get(loc.file as usize)
                .cloned()
                .unwrap_or_else(|| file_name.to_string()),
            line: loc.line,
            iterations: r.iterations,
            blocks: r.blocks,
            unrolled: r.unrolled,
            disabled: r.disabled,
            continued: r.continued,
            why: r.why,
        })
        .collect();
    Ok(CompiledProgram {
        program,
        loops,
        inputs: lowered.inputs,
        outputs: lowered.outputs,
        secret_products,
        work: lowered.work,
    })
}
