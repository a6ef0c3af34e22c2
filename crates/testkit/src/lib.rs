//! Test support shared by twofold's crates: where the external test data lives,
//! the Bristol vectors of `shared/data/bristol/VECTORS.md`, and random circuits.

use std::path::PathBuf;

use rand::Rng;
use twofold_circuit::{Builder, Circuit, Party};

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
        let x = bits[rng.gen_range(0..bits.len())];
        let y = if rng.gen_ratio(1, 20) {
            rng.gen::<bool>().into()
        } else {
            bits[rng.gen_range(0..bits.len())]
        };
        let z = bits[rng.gen_range(0..bits.len())];
        let out = match rng.gen_range(0..5) {
            0 => b.xor(x, y),
            1 => b.and(x, y),
            2 => b.not(x),
            3 => b.or(x, y),
            _ => b.mux(x, y, z),
        };
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
