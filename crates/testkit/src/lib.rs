//! Test support shared by twofold's crates: where the external test data lives,
//! the Bristol vectors of `shared/data/bristol/VECTORS.md`, and random circuits.

mod cfloats;
mod cloops;
mod cmixed;
mod mixed;
pub mod relay;

pub use cfloats::random_float_program;
pub use cloops::{
    random_loop_program, random_position_program, random_ranking_program,
    random_secret_exit_program,
};
pub use cmixed::random_mixed_c_program;
pub use mixed::{
    matmul_c, matrix_initializer, mixed_matmul, mixed_parts, mixed_party_inputs,
    random_mixed_inputs, random_mixed_program,
};

use std::path::PathBuf;

use rand::Rng;
use twofold_circuit::{
    Bit, Block, Body, Builder, Carried, Circuit, Gate, InputValue, OutputValue, Party,
    PendingBlock, Program, Segment, Wire, Wiring,
};

/// The shared test data folder (`../shared/data` from the project root, or
/// `$TWOFOLD_SHARED_DATA`), if it exists.
pub fn shared_data() -> Option<PathBuf> {
    let dir = match std::env::var_os("TWOFOLD_SHARED_DATA") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
    };
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipping: shared test data not found at {} (set TWOFOLD_SHARED_DATA)",
            dir.display()
        );
        None
    }
}

/// One known input/output vector of a Bristol circuit.
#[derive(Clone, Debug)]
pub struct Vector {
    /// Circuit file name (`adder64.txt`).
    pub circuit: String,
    /// Row number in its table.
    pub row: usize,
    /// Hex value of each input value.
    pub inputs: Vec<String>,
    /// Hex value of each output value.
    pub outputs: Vec<String>,
}

/// Every vector of `VECTORS.md` whose values are hex integers (rows such as
/// SHA-256's chained two-block example are left out: they are not one call).
pub fn bristol_vectors(data: &std::path::Path) -> Vec<Vector> {
    let text = std::fs::read_to_string(data.join("bristol/VECTORS.md")).expect("VECTORS.md");
    let mut circuit = String::new();
    let mut vectors = Vec::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("## ") {
            circuit = name.trim().to_string();
            continue;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 5 || !circuit.ends_with(".txt") {
            continue;
        }
        let Ok(row) = cells[1].parse::<usize>() else {
            continue;
        };
        let values = |cell: &str| -> Option<Vec<String>> {
            cell.split(',')
                .map(|v| {
                    let v = v.trim().trim_matches('`');
                    v.starts_with("0x").then(|| v.to_string())
                })
                .collect()
        };
        if let (Some(inputs), Some(outputs)) = (values(cells[2]), values(cells[3])) {
            vectors.push(Vector {
                circuit: circuit.clone(),
                row,
                inputs,
                outputs,
            });
        }
    }
    vectors
}

/// Shape of a random circuit.
#[derive(Clone, Debug)]
pub struct RandomShape {
    /// Number of input values (owners alternate A, B, A, …).
    pub inputs: usize,
    /// Largest input width.
    pub max_width: u32,
    /// Number of gates to attempt (folding may remove some).
    pub gates: usize,
    /// Number of output values.
    pub outputs: usize,
}

/// A random circuit: random XOR/AND/INV/OR/MUX over random earlier bits (so
/// fan-out is random), random constant bits mixed in, random outputs.
pub fn random_circuit(rng: &mut impl Rng, shape: &RandomShape) -> Circuit {
    let mut b = Builder::new();
    let mut bits = Vec::new();
    for k in 0..shape.inputs {
        let width = rng.gen_range(1..=shape.max_width);
        let party = if k % 2 == 0 { Party::A } else { Party::B };
        bits.extend(b.input(k.to_string(), party, width));
    }
    for _ in 0..shape.gates {
        let out = random_gate(&mut b, rng, &bits);
        bits.push(out);
    }
    for k in 0..shape.outputs {
        let width = rng.gen_range(1..=8usize);
        let out: Vec<_> = (0..width)
            .map(|_| bits[rng.gen_range(0..bits.len())])
            .collect();
        b.output(k.to_string(), &out);
    }
    b.finish().expect("random circuits have inputs")
}

/// A random XOR/AND/INV/OR/MUX gate over random bits of `bits` (now and then
/// a constant).
fn random_gate(b: &mut Builder, rng: &mut impl Rng, bits: &[Bit]) -> Bit {
    let x = bits[rng.gen_range(0..bits.len())];
    let y = if rng.gen_ratio(1, 20) {
        rng.gen::<bool>().into()
    } else {
        bits[rng.gen_range(0..bits.len())]
    };
    let z = bits[rng.gen_range(0..bits.len())];
    gate_of(b, rng.gen_range(0..5), x, y, z)
}

/// Gate kind `op` (0..5: XOR, AND, INV, OR, MUX) over `x`, `y` (and `z`).
fn gate_of(b: &mut Builder, op: u8, x: Bit, y: Bit, z: Bit) -> Bit {
    match op {
        0 => b.xor(x, y),
        1 => b.and(x, y),
        2 => b.not(x),
        3 => b.or(x, y),
        _ => b.mux(x, y, z),
    }
}

/// Up to `gates` random gates appended to `bits`.
fn random_gates(b: &mut Builder, rng: &mut impl Rng, bits: &mut Vec<Bit>, gates: usize) {
    for _ in 0..rng.gen_range(0..=gates) {
        let out = random_gate(b, rng, bits);
        bits.push(out);
    }
}

/// Builds a parallel block in `b`'s current frame: `body` run on the bits
/// `shared` (the same for every instance) followed by each entry of
/// `instances`; returns each instance's outputs (in the enclosing frame).
/// Constant bits are made into wires from the first wire given.
pub fn parallel_block(
    b: &mut Builder,
    shared: &[Bit],
    instances: &[Vec<Bit>],
    body: impl FnOnce(&mut Builder, &[Bit]) -> Vec<Bit>,
) -> Vec<Vec<Bit>> {
    let any = shared
        .iter()
        .chain(instances.iter().flatten())
        .find_map(|b| match b {
            Bit::Wire(w) => Some(*w),
            Bit::Const(_) => None,
        })
        .expect("some input bit is a wire");
    let wire = |b: &mut Builder, bit: Bit| match bit {
        Bit::Wire(w) => w,
        Bit::Const(v) => b.constant_wire(v, any),
    };
    let own = instances.first().map_or(0, Vec::len);
    let mark = b.begin_frame();
    let inputs: Vec<Wire> = (0..shared.len() + own).map(|_| b.fresh_wire()).collect();
    let local: Vec<Bit> = inputs.iter().map(|&w| Bit::Wire(w)).collect();
    let results = body(b, &local);
    let outs: Vec<Wire> = results
        .iter()
        .map(|&r| match r {
            Bit::Wire(w) => w,
            Bit::Const(v) => b.constant_wire(v, inputs[0]),
        })
        .collect();
    let (body, _) = b
        .end_frame(mark)
        .into_body(&inputs, &outs, &[])
        .expect("a body");
    let shared: Vec<Wire> = shared.iter().map(|&s| wire(b, s)).collect();
    let own_wires: Vec<Wire> = instances.iter().flatten().map(|&s| wire(b, s)).collect();
    let outputs: Vec<Wire> = (0..instances.len() * outs.len())
        .map(|_| b.fresh_wire())
        .collect();
    b.add_block(PendingBlock {
        position: 0,
        count: instances.len() as u64,
        parallel: true,
        body,
        shared,
        carried: Vec::new(),
        inputs: Wiring::compress(instances.len(), own, &own_wires),
        outputs: Wiring::compress(instances.len(), outs.len(), &outputs),
    });
    outputs
        .chunks(outs.len().max(1))
        .map(|c| c.iter().map(|&w| Bit::Wire(w)).collect())
        .collect()
}

/// A random program with parallel regions, built as the C compiler builds
/// one (frames in the builder, which reuses wire slots): random main gates,
/// then `regions` times a parallel block of 2–5 instances — each instance
/// one random recipe over a few shared bits and its own bits (a bit of the
/// loop's own input value XOR a random earlier bit) — followed by random
/// main gates that read the block's results or not; random outputs, one of
/// them the XOR of all block results. Up to `gates` gates between blocks
/// and per recipe.
pub fn random_program(rng: &mut impl Rng, regions: usize, gates: usize) -> Program {
    let mut b = Builder::new();
    let mut bits = b.input("a", Party::A, rng.gen_range(4..=16));
    bits.extend(b.input("b", Party::B, rng.gen_range(4..=16)));
    let mut loop_results = Vec::new();
    for r in 0..regions {
        random_gates(&mut b, rng, &mut bits, gates);
        let shared: Vec<Bit> = (0..rng.gen_range(0..3))
            .map(|_| bits[rng.gen_range(0..bits.len())])
            .collect();
        let candidates: Vec<Bit> = bits
            .iter()
            .filter(|b| b.as_const().is_none() && !shared.contains(b))
            .copied()
            .collect();
        let own = rng.gen_range(1..4);
        let iterations = rng.gen_range(2..6);
        let party = if r % 2 == 0 { Party::A } else { Party::B };
        let fresh = b.input(format!("loop{r}"), party, (iterations * own) as u32);
        // Each instance's own bits: a fresh input bit XOR a random main bit.
        let own_bits: Vec<Bit> = fresh
            .iter()
            .map(|&f| match candidates.len() {
                0 => f,
                n => b.xor(f, candidates[rng.gen_range(0..n)]),
            })
            .collect();
        let instances: Vec<Vec<Bit>> = own_bits.chunks(own).map(<[Bit]>::to_vec).collect();
        let steps = rng.gen_range(1..=gates.max(1));
        let recipe: Vec<(u8, usize, usize, usize)> = (0..steps)
            .map(|k| {
                let n = shared.len() + own + k;
                let op = rng.gen_range(0..5);
                // The first operand depends on the instance's own bits.
                let x = rng.gen_range(shared.len()..n);
                (op, x, rng.gen_range(0..n), rng.gen_range(0..n))
            })
            .collect();
        let results: Vec<usize> = (0..rng.gen_range(1..4))
            .map(|_| shared.len() + own + rng.gen_range(0..steps))
            .collect();
        let outputs: Vec<Bit> = parallel_block(&mut b, &shared, &instances, |b, inputs| {
            let mut local = inputs.to_vec();
            for &(op, x, y, z) in &recipe {
                let (x, y, z) = (local[x], local[y], local[z]);
                let out = gate_of(b, op, x, y, z);
                local.push(out);
            }
            results.iter().map(|&r| local[r]).collect()
        })
        .concat();
        loop_results.extend(&outputs);
        bits.extend(outputs);
    }
    random_gates(&mut b, rng, &mut bits, gates);
    // Every block result is used (a region must compute something used).
    let used = loop_results
        .iter()
        .fold(Bit::Const(false), |acc, &r| b.xor(acc, r));
    b.output("results", &[used]);
    for k in 0..rng.gen_range(1..4) {
        let out: Vec<Bit> = (0..rng.gen_range(1..=8))
            .map(|_| bits[rng.gen_range(0..bits.len())])
            .collect();
        b.output(k.to_string(), &out);
    }
    b.finish_program().expect("random programs have inputs")
}

/// A random program with blocks nested up to `depth` deep: random gates,
/// parallel blocks and sequential loops (carried values, values read from
/// arrays by affine or table wiring, per-iteration outputs, tapes where an
/// iteration reads what the previous one wrote), bodies compacted or not.
pub fn random_block_program(rng: &mut impl Rng, depth: usize) -> Program {
    let a = rng.gen_range(1..=12);
    let b = rng.gen_range(1..=12);
    let mut frame = RandomFrame::new(a + b);
    frame.fill(rng, depth);
    let outputs: Vec<Vec<Wire>> = (0..rng.gen_range(1..4))
        .map(|_| {
            let n = rng.gen_range(1..=8);
            frame.pick_many(rng, n)
        })
        .collect();
    let (main, blocks) = frame.finish(
        vec![
            InputValue {
                name: "a".into(),
                party: Party::A,
                width: a,
            },
            InputValue {
                name: "b".into(),
                party: Party::B,
                width: b,
            },
        ],
        outputs,
    );
    Program { main, blocks }
}

/// A frame being generated: gates in single assignment over wires
/// `0..next`, the wires defined so far, and blocks.
struct RandomFrame {
    next: Wire,
    inputs: Wire,
    defined: Vec<Wire>,
    gates: Vec<Gate>,
    blocks: Vec<Block>,
}

impl RandomFrame {
    fn new(inputs: Wire) -> RandomFrame {
        RandomFrame {
            next: inputs,
            inputs,
            defined: (0..inputs).collect(),
            gates: Vec::new(),
            blocks: Vec::new(),
        }
    }

    fn pick(&self, rng: &mut impl Rng) -> Wire {
        self.defined[rng.gen_range(0..self.defined.len())]
    }

    fn pick_many(&self, rng: &mut impl Rng, n: usize) -> Vec<Wire> {
        (0..n).map(|_| self.pick(rng)).collect()
    }

    /// A random gate over defined wires, writing a fresh wire.
    fn gate(&mut self, rng: &mut impl Rng) -> Wire {
        let (a, b, out) = (self.pick(rng), self.pick(rng), self.next);
        self.next += 1;
        self.gates.push(match rng.gen_range(0..3) {
            0 => Gate::Xor { a, b, out },
            1 => Gate::And { a, b, out },
            _ => Gate::Inv { a, out },
        });
        self.defined.push(out);
        out
    }

    /// `n` fresh consecutive wires, each a random gate (an array).
    fn array(&mut self, rng: &mut impl Rng, n: u32) -> Wire {
        let start = self.next;
        for _ in 0..n {
            self.gate(rng);
        }
        start
    }

    /// Random gates and blocks.
    fn fill(&mut self, rng: &mut impl Rng, depth: usize) {
        for _ in 0..rng.gen_range(1..6) {
            for _ in 0..rng.gen_range(0..12) {
                self.gate(rng);
            }
            if depth > 0 && rng.gen_ratio(2, 3) {
                self.block(rng, depth);
            }
        }
        for _ in 0..rng.gen_range(1..8) {
            self.gate(rng);
        }
    }

    fn block(&mut self, rng: &mut impl Rng, depth: usize) {
        let count = rng.gen_range(0..6u64);
        let parallel = rng.gen_bool(0.4);
        let n_carried = if parallel { 0 } else { rng.gen_range(0..4) };
        // At least one input bit, so the body has something to compute on.
        let n_shared = rng.gen_range(usize::from(n_carried == 0)..4);
        let shared = self.pick_many(rng, n_shared);
        let init = self.pick_many(rng, n_carried);
        let out_width = rng.gen_range(1..=4u32);
        let tape = !parallel && count > 0 && rng.gen_bool(0.3);
        let mut segments = Vec::new();
        for _ in 0..rng.gen_range(0..3) {
            let len = rng.gen_range(1..=3u32);
            segments.push(if rng.gen_bool(0.5) {
                let start = self.array(rng, len * count.max(1) as u32);
                Segment::Affine {
                    len,
                    start,
                    step: len as i64,
                }
            } else if rng.gen_bool(0.5) {
                Segment::Affine {
                    len: 1,
                    start: self.pick(rng),
                    step: 0,
                }
            } else if rng.gen_bool(0.5) {
                // A position computed from the counter: one of a few arrays.
                let arrays: Vec<Wire> = (0..3).map(|_| self.array(rng, len)).collect();
                let starts = (0..count).map(|_| arrays[rng.gen_range(0..3)]).collect();
                Segment::Ranges { len, starts }
            } else {
                let wires = (0..len as u64 * count).map(|_| self.pick(rng)).collect();
                Segment::Table { len, wires }
            });
        }
        // A tape: iteration k reads what iteration k - 1 wrote (the first
        // reads an array made before the loop).
        let outputs_at = if tape {
            let before = self.array(rng, out_width);
            segments.push(Segment::Affine {
                len: out_width,
                start: before,
                step: out_width as i64,
            });
            before + out_width
        } else {
            self.next
        };
        let inputs = Wiring { segments };
        let body_inputs = (shared.len() + n_carried + inputs.width()) as Wire;
        let mut body = RandomFrame::new(body_inputs);
        body.fill(rng, depth - 1);
        let outputs = vec![body.pick_many(rng, out_width as usize)];
        let next = body.pick_many(rng, n_carried);
        let (circuit, nested, next) = body.finish_body(rng, outputs, next);
        // Outputs: a fresh array of one row per iteration, or (sequential,
        // now and then) the same wires every iteration.
        let overwrite = !parallel && !tape && rng.gen_bool(0.3);
        let rows = if overwrite { 1 } else { count.max(1) as u32 };
        assert_eq!(outputs_at, self.next);
        self.next += out_width * rows;
        let output_wiring = Wiring {
            segments: vec![Segment::Affine {
                len: out_width,
                start: outputs_at,
                step: if overwrite { 0 } else { out_width as i64 },
            }],
        };
        let carried: Vec<Carried> = init
            .iter()
            .zip(next)
            .map(|(&init, next)| {
                let last = rng.gen_bool(0.7).then(|| {
                    self.next += 1;
                    self.next - 1
                });
                Carried { init, next, last }
            })
            .collect();
        if count > 0 {
            self.defined
                .extend(outputs_at..outputs_at + out_width * rows);
        }
        self.defined.extend(carried.iter().filter_map(|c| c.last));
        self.blocks.push(Block {
            position: self.gates.len(),
            count,
            parallel,
            body: Body {
                circuit,
                blocks: nested,
            },
            shared,
            carried,
            inputs,
            outputs: output_wiring,
        });
    }

    /// The body's circuit, blocks and carried wires; a body without blocks
    /// is compacted half of the time (its wire slots reused).
    fn finish_body(
        self,
        rng: &mut impl Rng,
        outputs: Vec<Vec<Wire>>,
        next: Vec<Wire>,
    ) -> (Circuit, Vec<Block>, Vec<Wire>) {
        let inputs = vec![InputValue {
            name: "in".into(),
            party: Party::A,
            width: self.inputs,
        }];
        let compact = self.blocks.is_empty() && rng.gen_bool(0.5);
        let mut all = outputs;
        all.push(next);
        let (mut circuit, blocks) = self.finish(inputs, all);
        if compact {
            circuit = circuit.compact();
        }
        let next = circuit.outputs.pop().expect("the carried values").wires;
        (circuit, blocks, next)
    }

    fn finish(self, inputs: Vec<InputValue>, outputs: Vec<Vec<Wire>>) -> (Circuit, Vec<Block>) {
        let circuit = Circuit {
            num_wires: self.next,
            inputs,
            outputs: outputs
                .into_iter()
                .enumerate()
                .map(|(k, wires)| OutputValue {
                    name: k.to_string(),
                    wires,
                })
                .collect(),
            gates: self.gates,
        };
        (circuit, self.blocks)
    }
}

/// Runs `circuit` and its `blocks` on plaintext `labels` (indexed by wire)
/// straight from the definition of a block, iteration after iteration: the
/// reference the walker is checked against.
pub fn plain_frame(circuit: &Circuit, blocks: &[Block], labels: &mut [bool]) {
    let mut at = 0;
    for b in blocks {
        twofold_circuit::eval_gates(&circuit.gates[at..b.position], labels);
        at = b.position;
        plain_block(b, labels);
    }
    twofold_circuit::eval_gates(&circuit.gates[at..], labels);
}

/// Runs one block on plaintext `labels` of its enclosing frame (see
/// [`plain_frame`]).
pub fn plain_block(b: &Block, labels: &mut [bool]) {
    let body = &b.body.circuit;
    let mut carried: Vec<bool> = b.carried.iter().map(|c| labels[c.init as usize]).collect();
    for k in 0..b.count {
        let mut frame = vec![false; body.num_wires as usize];
        let ins: Vec<bool> = b
            .shared
            .iter()
            .map(|&w| labels[w as usize])
            .chain(carried.iter().copied())
            .chain(b.inputs.wires(k).iter().map(|&w| labels[w as usize]))
            .collect();
        frame[..ins.len()].copy_from_slice(&ins);
        plain_frame(body, &b.body.blocks, &mut frame);
        for (w, o) in b.outputs.wires(k).into_iter().zip(body.output_wires()) {
            labels[w as usize] = frame[o as usize];
        }
        carried = b.carried.iter().map(|c| frame[c.next as usize]).collect();
    }
    for (c, v) in b.carried.iter().zip(carried) {
        if let Some(w) = c.last {
            labels[w as usize] = v;
        }
    }
}

/// Random input bits for `circuit`, one vector per input value.
pub fn random_inputs(rng: &mut impl Rng, circuit: &Circuit) -> Vec<Vec<bool>> {
    circuit
        .inputs
        .iter()
        .map(|v| (0..v.width).map(|_| rng.gen()).collect())
        .collect()
}

/// One party's share of `inputs`: its own values, `None` for the others'
/// (the form a two-party session takes).
pub fn party_inputs(
    circuit: &Circuit,
    inputs: &[Vec<bool>],
    party: Party,
) -> Vec<Option<Vec<bool>>> {
    circuit
        .inputs
        .iter()
        .zip(inputs)
        .map(|(v, bits)| (v.party == party).then(|| bits.clone()))
        .collect()
}

/// One party's inputs as a session takes them ([`party_inputs`]).
pub type OwnInputs = Vec<Option<Vec<bool>>>;

/// A random program of about 2,000 gates over two inputs of up to 16 bits
/// (from `seed`), with random inputs split into party A's and party B's.
pub fn random_session(seed: u64) -> (Program, OwnInputs, OwnInputs) {
    use rand::SeedableRng;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let shape = RandomShape {
        inputs: 2,
        max_width: 16,
        gates: 2000,
        outputs: 2,
    };
    let program = Program::from(random_circuit(&mut rng, &shape));
    let inputs = random_inputs(&mut rng, &program.main);
    let pick = |party| party_inputs(&program.main, &inputs, party);
    let (a, b) = (pick(Party::A), pick(Party::B));
    (program, a, b)
}
