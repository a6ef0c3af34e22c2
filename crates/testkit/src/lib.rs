//! Test support shared by twofold's crates: where the external test data lives,
//! the Bristol vectors of `shared/data/bristol/VECTORS.md`, and random circuits.

use std::path::PathBuf;

use rand::Rng;
use twofold_circuit::{Bit, Builder, Circuit, Party, Program};

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

/// A random program with parallel regions, built as the C compiler builds
/// one (the builder reuses wire slots): random main gates, then `regions`
/// times a loop of 2–5 alike, independent iterations proposed to the builder
/// — each iteration one random recipe over a few shared bits and its own
/// bits (a bit of the loop's own input value XOR a random earlier bit) —
/// followed by random main gates that read the loop's results or
/// not; random outputs, one of them the XOR of all loop results. Up to `gates` gates between loops and per recipe.
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
        // Each iteration's own bits: a fresh input bit XOR a random main bit
        // (a fresh bit keeps the builder from folding or sharing the
        // iteration's gates differently from the other iterations').
        let candidates: Vec<Bit> = bits
            .iter()
            .filter(|b| b.as_const().is_none() && !shared.contains(b))
            .copied()
            .collect();
        let own = rng.gen_range(1..4);
        let iterations = rng.gen_range(2..6);
        let party = if r % 2 == 0 { Party::A } else { Party::B };
        let fresh = b.input(format!("loop{r}"), party, (iterations * own) as u32);
        let steps = rng.gen_range(1..=gates.max(1));
        let recipe: Vec<(u8, usize, usize, usize)> = (0..steps)
            .map(|k| {
                let n = shared.len() + own + k;
                let op = rng.gen_range(0..5);
                // The first operand depends on the iteration's own bits.
                let x = rng.gen_range(shared.len()..n);
                (op, x, rng.gen_range(0..n), rng.gen_range(0..n))
            })
            .collect();
        let results: Vec<usize> = (0..rng.gen_range(1..4))
            .map(|_| shared.len() + own + rng.gen_range(0..steps))
            .collect();
        let mut mark = b.begin_loop();
        let mut outputs = Vec::new();
        for i in 0..iterations {
            b.begin_iteration(&mut mark);
            let mut local = shared.clone();
            for &f in &fresh[i * own..(i + 1) * own] {
                let own_bit = match candidates.len() {
                    0 => f,
                    n => b.xor(f, candidates[rng.gen_range(0..n)]),
                };
                local.push(own_bit);
            }
            for &(op, x, y, z) in &recipe {
                let (x, y, z) = (local[x], local[y], local[z]);
                let out = gate_of(&mut b, op, x, y, z);
                local.push(out);
            }
            outputs.extend(results.iter().map(|&r| local[r]));
        }
        b.end_loop(mark);
        loop_results.extend(&outputs);
        bits.extend(outputs);
    }
    random_gates(&mut b, rng, &mut bits, gates);
    // Every loop result is used (a region must compute something used).
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
    b.finish_program().expect("random programs have inputs").0
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
