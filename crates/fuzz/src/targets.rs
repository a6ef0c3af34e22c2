//! The fuzz targets: each takes arbitrary bytes, feeds them to one reader of
//! untrusted input the way the command line does, and goes on with what the
//! reader accepted (statistics, levels, evaluation) as far as a small budget
//! allows. A target returns whether the input was accepted; it must never
//! panic, hang or allocate without bound, whatever the bytes.

use std::path::PathBuf;

use rand::SeedableRng;
use std::sync::OnceLock;

use twofold::choice::Protocol;
use twofold::inputs::{assign, format_outputs, Givers};
use twofold::load::{load_source, LoadOptions, Loaded};
use twofold_circuit::bristol::read_bristol;
use twofold_circuit::mixed::format::write_mixed;
use twofold_circuit::prepare::prepare;
use twofold_circuit::walk::program_levels;
use twofold_circuit::{binary, CircuitStats, Program, Step};
use twofold_compiler::mixed::file::{read_compiled, write_compiled, MixedFile};
use twofold_compiler::mixed::MixedCompiled;
use twofold_compiler::signature::{read_signature, write_signature, Signature};
use twofold_compiler::{compile, compile_mixed, CompileOptions, Limits};
use twofold_protocol::mixed::cost::estimate;

/// Programs executing at most this many gates are also levelled, prepared
/// and evaluated by the targets.
const RUN_BUDGET: u64 = 1 << 16;

/// A fuzz target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Bristol Fashion text (`bristol::read_bristol`), then statistics,
    /// levels and evaluation.
    Bristol,
    /// The binary program format (`binary::read_program`) with the C values
    /// a program compiled from C has after it
    /// (`twofold_compiler::signature::read_signature`), then statistics,
    /// preparation and evaluation.
    Binary,
    /// C source through the whole front end: preprocessor, lexer, parser,
    /// lowering, then evaluation.
    C,
    /// `-i` values (`inputs::assign`, NUL-separated arguments) for a C
    /// program with structs and arrays and for a circuit with integer
    /// inputs, then evaluation and output formatting.
    Value,
    /// A share store file (`store::parse_store`).
    Store,
    /// The hellos a party reads from a peer: the two-party `Hello` and the
    /// hybrid mode's `HybridHello`.
    Hello,
    /// What a party reads from its peer after the hello: OT messages,
    /// labels, bits and garbled tables ([`crate::peer`]).
    Peer,
    /// Key files: `NAME.pub` and `NAME.key` (PEM) and a `--psk-file`.
    Keys,
    /// The mixed program format with a compiled program's C interface
    /// (`twofold_compiler::mixed::file::read_compiled`), then the hash, the
    /// two-party plan and cost estimate, evaluation, and the C interface's
    /// inputs and outputs.
    Mixed,
    /// Packed words of arithmetic shares from a peer
    /// (`arith::packed::recv`), and packed words round-tripped
    /// ([`crate::packed`]).
    Packed,
}

impl Target {
    /// Every target.
    pub const ALL: [Target; 10] = [
        Target::Bristol,
        Target::Binary,
        Target::C,
        Target::Value,
        Target::Store,
        Target::Hello,
        Target::Peer,
        Target::Keys,
        Target::Mixed,
        Target::Packed,
    ];

    /// The target's name (as the `fuzz` binary and the corpus folders spell
    /// it).
    pub fn name(self) -> &'static str {
        match self {
            Target::Bristol => "bristol",
            Target::Binary => "binary",
            Target::C => "c",
            Target::Value => "value",
            Target::Store => "store",
            Target::Hello => "hello",
            Target::Peer => "peer",
            Target::Keys => "keys",
            Target::Mixed => "mixed",
            Target::Packed => "packed",
        }
    }

    /// The target of that name.
    pub fn by_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Runs the target on one input; returns whether it was accepted.
    pub fn run(self, data: &[u8]) -> bool {
        match self {
            Target::Bristol => bristol(data),
            Target::Binary => binary(data),
            Target::C => c_source(data),
            Target::Value => value(data),
            Target::Store => twofold::store::parse_store(&String::from_utf8_lossy(data)).is_ok(),
            Target::Hello => hello(data),
            Target::Peer => crate::peer::peer(data),
            Target::Keys => keys(data),
            Target::Mixed => mixed(data),
            Target::Packed => crate::packed::packed(data),
        }
    }

    /// Seeds beyond the corpus folder: the examples' smallest C programs for
    /// the C front end, and for the binary loader random programs with
    /// nested parallel blocks and loops (files of those would be large) and
    /// one compiled from C with its C values.
    pub fn builtin_seeds(self) -> Vec<Vec<u8>> {
        match self {
            Target::C => {
                return [
                    include_str!("../../../examples/millionaires.c"),
                    include_str!("../../../examples/hamming900.c"),
                    // Products of secrets: partitioned into mixed programs.
                    include_str!("../../../examples/mult32.c"),
                    include_str!("../../../examples/mlp.c"),
                ]
                .map(|s| s.as_bytes().to_vec())
                .to_vec();
            }
            Target::Binary => {}
            Target::Bristol | Target::Value | Target::Store => return Vec::new(),
            Target::Hello => return hello_seeds(),
            Target::Peer => return crate::peer::peer_seeds(),
            Target::Keys => return keys_seeds(),
            Target::Mixed => return mixed_seeds(),
            Target::Packed => return crate::packed::packed_seeds(),
        }
        (0..8u64)
            .map(|seed| {
                let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
                let program = twofold_testkit::random_block_program(&mut rng, 2);
                let mut bytes = Vec::new();
                binary::write_program(&program, &mut bytes).expect("writes to memory");
                bytes
            })
            .chain([compiled_program_seed()])
            .collect()
    }

    /// Where the target's corpus lives: seeds, and under `regressions/` the
    /// inputs that once crashed it.
    pub fn corpus_dir(self) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("corpus")
            .join(self.name())
    }
}

/// Both hellos: accepted if either decodes.
fn hello(data: &[u8]) -> bool {
    use twofold_protocol::messages::{Hello, HybridHello};
    let two = Hello::decode(data).is_ok();
    HybridHello::decode(data).is_ok() || two
}

/// The key-file readers: accepted if any accepts the bytes.
fn keys(data: &[u8]) -> bool {
    use twofold_net::{KeyPair, PublicKey};
    let public = PublicKey::from_pem(data).is_ok();
    let pair = KeyPair::from_pem(data).is_ok();
    let psk = twofold_net::Psk::from_text(data)
        .and_then(|psk| KeyPair::from_psk(&psk, "a"))
        .is_ok();
    psk || public || pair
}

/// A key file and a public-key file (of a key derived from a public test
/// secret: no one's real key).
fn keys_seeds() -> Vec<Vec<u8>> {
    let text = format!("{}\n{}\n", twofold_net::PSK_HEADER, "5eed".repeat(16));
    let psk = twofold_net::Psk::from_text(text.as_bytes()).expect("a well-formed secret");
    let pair = twofold_net::KeyPair::from_psk(&psk, "a").expect("a key pair");
    vec![
        pair.to_pem().as_bytes().to_vec(),
        pair.public().to_pem().into_bytes(),
        text.into_bytes(),
    ]
}

/// A valid hello of each kind.
fn hello_seeds() -> Vec<Vec<u8>> {
    use twofold_protocol::messages::{Hello, HybridHello};
    use twofold_protocol::{IppMode, Reveal, Role, Schedule, ShareKind, PROTOCOL_VERSION};
    let two = Hello {
        version: PROTOCOL_VERSION,
        party: twofold_circuit::Party::B,
        program_hash: [3; 32],
        reveal: Reveal::A,
        threads: 2,
        schedule: Schedule::Cgp,
        ipp: IppMode::On,
        nonce: [9; 16],
        scheme: twofold_crypto::Scheme::ThreeHalves,
        fgp_min_ands: 1 << 20,
    };
    let three = HybridHello {
        version: PROTOCOL_VERSION,
        role: Role::Cp2,
        index: 1,
        program_hash: [4; 32],
        threads: 2,
        schedule: Schedule::Auto,
        scheme: twofold_crypto::Scheme::HalfGates,
        fgp_min_ands: 64,
        output_kind: ShareKind::Add,
        input_kinds: vec![ShareKind::Xor, ShareKind::Add, ShareKind::Xor],
        nonce: [7; 16],
        store_id: [5; 16],
        input_runs: vec![[1; 16], [2; 16], [3; 16]],
        input_lanes: vec![32, 8, 1],
        output_lanes: vec![16],
    };
    vec![two.encode(), three.encode()]
}

/// Evaluates `program` on all-zero inputs if it is small enough.
fn run_small(program: &Program) {
    if program.counts().gates > RUN_BUDGET {
        return;
    }
    let zeros: Vec<Vec<bool>> = program
        .main
        .inputs
        .iter()
        .map(|v| vec![false; v.width as usize])
        .collect();
    program_levels(program);
    prepare(program);
    program.eval(&zeros).expect("the widths are the program's");
}

fn bristol(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    let Ok(circuit) = read_bristol(&text, "fuzz.txt") else {
        return false;
    };
    CircuitStats::of(&circuit);
    run_small(&Program::from(circuit));
    true
}

fn binary(data: &[u8]) -> bool {
    let read = |r: &mut dyn std::io::BufRead| -> Result<_, twofold_circuit::CircuitError> {
        let program = binary::read_program(&mut &mut *r)?;
        Ok((program, read_signature(&mut &mut *r)?))
    };
    let Some((program, signature)) = read_alike(data, read) else {
        return false;
    };
    if let Some(signature) = signature {
        // C values that fit the program format its outputs.
        if signature.check(&program.main).is_ok() {
            for (v, (_, ty)) in program.main.outputs.iter().zip(&signature.outputs) {
                ty.format_value(&vec![false; v.wires.len()]);
            }
        }
    }
    program.hash();
    CircuitStats::of(&program.main);
    run_small(&program);
    true
}

/// Reads `data` with `read` whole, then as a file is read, a buffer at a
/// time (a buffer of 1 to 32 bytes, so that items lie across its end),
/// checking that both give the same (or both an error). Returns what was
/// read if it took every byte (bytes after it make a corrupt file, and
/// mutating them would only test the same input again).
fn read_alike<T: PartialEq + std::fmt::Debug, E: std::fmt::Debug>(
    data: &[u8],
    read: impl Fn(&mut dyn std::io::BufRead) -> Result<T, E>,
) -> Option<T> {
    let mut rest = data;
    let whole = read(&mut rest);
    let capacity = 1 + data.first().map_or(0, |&b| usize::from(b) % 32);
    let mut buffered = std::io::BufReader::with_capacity(capacity, data);
    match (&whole, read(&mut buffered)) {
        (Ok(one), Ok(again)) => assert_eq!(*one, again, "read in {capacity}-byte buffers"),
        (Err(_), Err(_)) => {}
        (one, other) => panic!("a slice read {one:?}, {capacity}-byte buffers {other:?}"),
    }
    whole.ok().filter(|_| rest.is_empty())
}

/// A program compiled from C with its C values after it.
fn compiled_program_seed() -> Vec<u8> {
    let source = "typedef struct { short v[2]; _Bool b; } S;
S mpc_main(S INPUT_A, int INPUT_B) { S s = INPUT_A; s.v[1] += INPUT_B; return s; }";
    let c = compile(source, "seed.c", &small_limits()).expect("the seed compiles");
    let signature = Signature {
        inputs: c.inputs,
        outputs: c.outputs,
    };
    let mut bytes = Vec::new();
    binary::write_program(&c.program, &mut bytes).expect("writes to memory");
    write_signature(&signature, &mut bytes).expect("writes to memory");
    bytes
}

/// Random mixed programs of every word width.
fn mixed_seeds() -> Vec<Vec<u8>> {
    (0..8u64)
        .map(|seed| {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let w = [8, 16, 32, 64][seed as usize % 4];
            let program = twofold_testkit::random_mixed_program(&mut rng, w, 12);
            let mut bytes = Vec::new();
            write_mixed(&program, &mut bytes).expect("writes to memory");
            bytes
        })
        .chain([compiled_seed()])
        .collect()
}

/// A mixed program compiled from C with its C interface: input slices,
/// words a party computes alone, outputs of several bits' sources.
fn compiled_seed() -> Vec<u8> {
    let source = "typedef struct { short v[3]; } V;
typedef struct { int sum; _Bool big; } Out;
Out mpc_main(V INPUT_A, V INPUT_B) {
    Out o = {0, 0};
    for (int i = 0; i < 3; i++) o.sum += (INPUT_A.v[i] > 9) * INPUT_B.v[i] * INPUT_A.v[i];
    o.big = o.sum > 99;
    return o;
}";
    let two = CompileOptions {
        local_values: true,
        ..small_limits()
    };
    let compiled = compile_mixed(source, "seed.c", &two).expect("the seed compiles");
    let mut bytes = Vec::new();
    write_compiled(&compiled, &mut bytes).expect("writes to memory");
    bytes
}

fn mixed(data: &[u8]) -> bool {
    let Some(file) = read_alike(data, |r| read_compiled(&mut &mut *r)) else {
        return false;
    };
    let program = file.program();
    program.hash();
    for reveal in twofold_protocol::Reveal::ALL {
        // Programs of three parties are refused by the two-party model.
        let _ = estimate(program, twofold_crypto::Scheme::default(), reveal);
    }
    let work: u64 = program
        .steps
        .iter()
        .map(|s| match s {
            Step::Boolean { program: p, .. } => program.programs[*p as usize].counts().gates,
            s => s.operands().len() as u64,
        })
        .fold(0, u64::saturating_add);
    let bits: u64 = program.inputs.iter().map(|v| v.kind.bits() as u64).sum();
    if work <= RUN_BUDGET && bits <= RUN_BUDGET {
        let zeros: Vec<Vec<bool>> = program
            .inputs
            .iter()
            .map(|v| vec![false; v.kind.bits() as usize])
            .collect();
        let outputs = program.eval(&zeros).expect("the widths are the program's");
        if let MixedFile::Compiled(c) = &file {
            c_interface(c, &outputs);
        }
    }
    true
}

/// A compiled program's C interface at work: C inputs of zeros (within
/// the budget) become words of the program's inputs' widths, and the
/// program's `outputs` become C outputs that format.
fn c_interface(c: &MixedCompiled, outputs: &[Vec<bool>]) {
    let widths = c.inputs.iter().map(|(_, t)| u64::from(t.width()));
    if widths.fold(0, u64::saturating_add) <= RUN_BUDGET {
        let zeros: Vec<Option<Vec<bool>>> = (c.inputs.iter())
            .map(|(_, t)| Some(vec![false; t.width() as usize]))
            .collect();
        let words = c.mixed_inputs(&zeros);
        for (word, v) in words.iter().zip(&c.program.inputs) {
            let width = word.as_ref().map(Vec::len);
            assert_eq!(width, Some(v.kind.bits() as usize), "input {}", v.name);
        }
    }
    for ((_, t), bits) in c.outputs.iter().zip(c.c_outputs(outputs)) {
        t.format_value(&bits);
    }
}

/// Compile options for fuzzing: the default limits scaled down so that one
/// input compiles in milliseconds.
fn small_limits() -> CompileOptions {
    CompileOptions {
        limits: Limits {
            max_gates: RUN_BUDGET,
            max_iterations: 1 << 12,
            max_tokens: 1 << 12,
            max_steps: 1 << 22,
            max_memory: 256 << 20,
            ..Limits::default()
        },
        ..CompileOptions::default()
    }
}

fn c_source(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    // Includes resolve against the seeds' folder, which holds a header.
    let name = Target::C.corpus_dir().join("seeds").join("fuzz.c");
    let name = name.display().to_string();
    match compile(&text, &name, &small_limits()) {
        Ok(compiled) => {
            run_small(&compiled.program);
            if compiled.secret_products > 0 {
                mixed_agrees(&text, &name, &compiled.program);
            }
            true
        }
        // The compiler turns a panic of its thread into this error.
        Err(e) if e.message == "internal compiler error" => panic!("{e}"),
        Err(_) => false,
    }
}

/// The program's partition into a mixed program (if it compiles within
/// the limits) gives the Boolean program's outputs on all-zero inputs.
fn mixed_agrees(text: &str, name: &str, boolean: &Program) {
    let mixed = match compile_mixed(text, name, &small_limits()) {
        Ok(mixed) => mixed,
        Err(e) if e.message == "internal compiler error" => panic!("{e}"),
        Err(_) => return,
    };
    if boolean.counts().gates > RUN_BUDGET {
        return;
    }
    let zeros: Vec<Option<Vec<bool>>> = boolean
        .main
        .inputs
        .iter()
        .map(|v| Some(vec![false; v.width as usize]))
        .collect();
    let want = boolean
        .eval(&zeros.iter().flatten().cloned().collect::<Vec<_>>())
        .expect("the widths are the program's");
    let inputs: Vec<Vec<bool>> = mixed.mixed_inputs(&zeros).into_iter().flatten().collect();
    let got = mixed.program.eval(&inputs).expect("the partition's widths");
    assert_eq!(mixed.c_outputs(&got), want, "the mixed program differs");
}

/// A C program whose inputs are structs with arrays, nested structs, a 2-D
/// array and a `_Bool`.
const VALUE_PROGRAM: &str = "
typedef struct { short g[3]; _Bool f; } Inner;
typedef struct { int a[2]; char b; Inner s[2]; char t[4]; } In;
typedef struct { unsigned long long m[2][2]; } Matrix;
int mpc_main(In INPUT_A, Matrix INPUT_B) {
    return INPUT_A.a[1] + INPUT_A.s[1].g[2] + (int)INPUT_B.m[1][0];
}";

/// The programs whose `-i` values the value target parses: the C program
/// above and a circuit with integer inputs (as Bristol and binary files have).
fn value_programs() -> &'static [Loaded; 2] {
    static PROGRAMS: OnceLock<[Loaded; 2]> = OnceLock::new();
    PROGRAMS.get_or_init(|| {
        let opts = LoadOptions {
            protocol: Protocol::Yao,
            ..LoadOptions::default()
        };
        let c = load_source(VALUE_PROGRAM, "value.c", &opts).expect("the value program compiles");
        let and = "1 3\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n";
        let int = load_source(and, "and.txt", &opts).expect("the AND circuit reads");
        [c, int]
    })
}

fn value(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    let args: Vec<String> = text.split('\0').map(str::to_string).collect();
    let mut accepted = false;
    for loaded in value_programs() {
        if let Ok(given) = assign(loaded, &args, Givers::Everyone) {
            let bits: Vec<Vec<bool>> = given.into_iter().flatten().collect();
            let outputs = (loaded.program.as_ref())
                .expect("compiled as garbled circuits")
                .eval(&bits)
                .expect("assign checks the widths");
            format_outputs(loaded, &outputs);
            accepted = true;
        }
    }
    accepted
}
