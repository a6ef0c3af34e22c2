//! Random mixed programs: arithmetic over Z_2^w mixed with garbled
//! comparisons and selections, for differential tests of the mixed
//! executor against plaintext evaluation.

use rand::Rng;
use twofold_circuit::mixed::eval::word_bits;
use twofold_circuit::{
    Bit, Builder, Kind, MixedInput, MixedOutput, MixedProgram, Party, Program, Step, ValueId,
};

/// The Boolean programs of random mixed programs, for `w`-bit words:
/// program 0 is `x < y` (unsigned, one bit out), program 1 `s ? x : y`.
pub fn mixed_parts(w: u32) -> Vec<Program> {
    vec![less_than(w), select(w)]
}

/// `x < y` (unsigned) of two `w`-bit values, one bit out.
fn less_than(w: u32) -> Program {
    let mut b = Builder::new();
    let x = b.input("x", Party::A, w);
    let y = b.input("y", Party::B, w);
    // The borrow out of x − y.
    let mut borrow = Bit::Const(false);
    for (&p, &q) in x.iter().zip(&y) {
        let np = b.not(p);
        let t = b.xor(np, borrow);
        let u = b.xor(q, borrow);
        let both = b.and(t, u);
        borrow = b.xor(borrow, both);
    }
    b.output("lt", &[borrow]);
    Program::from(b.finish().expect("a valid comparator"))
}

/// `s ? x : y` of two `w`-bit values.
fn select(w: u32) -> Program {
    let mut b = Builder::new();
    let s = b.input("s", Party::A, 1);
    let x = b.input("x", Party::A, w);
    let y = b.input("y", Party::B, w);
    let out: Vec<Bit> = x.iter().zip(&y).map(|(&p, &q)| b.mux(s[0], p, q)).collect();
    b.output("z", &out);
    Program::from(b.finish().expect("a valid selector"))
}

/// A random two-party mixed program over `w`-bit words: each party's word
/// inputs and one garbled input of B's, about `steps` steps (sums,
/// differences, negations, constants, products, dot products; A→Y into
/// comparisons and selections, Y→A and bit injection back, some into
/// 8-bit words beside the `w`-bit ones), and a few outputs of either
/// sharing.
pub fn random_mixed_program(rng: &mut impl Rng, w: u32, steps: usize) -> MixedProgram {
    let mut p = MixedProgram {
        parties: 2,
        programs: mixed_parts(w),
        ..MixedProgram::default()
    };
    for k in 0..rng.gen_range(2..5) {
        p.inputs
            .push(MixedInput::word(format!("w{k}"), (k % 2) as u8, w));
    }
    p.inputs.push(MixedInput {
        name: "g".into(),
        owner: 1,
        kind: Kind::Bits(w),
    });
    let mut words: Vec<ValueId> = (0..p.inputs.len() as ValueId - 1).collect();
    let mut bits: Vec<ValueId> = vec![p.inputs.len() as ValueId - 1];
    let mut next = p.inputs.len() as ValueId;
    let mut narrow: Vec<ValueId> = Vec::new();
    let constant = |rng: &mut dyn rand::RngCore| rng.gen::<u64>() & twofold_circuit::mixed::mask(w);
    for _ in 0..steps {
        let pick =
            |rng: &mut dyn rand::RngCore, from: &[ValueId]| from[rng.gen_range(0..from.len())];
        let (x, y) = (pick(rng, &words), pick(rng, &words));
        let step = match rng.gen_range(0..12) {
            0 => Step::Add(x, y),
            1 => Step::Sub(x, y),
            2 => Step::Neg(x),
            3 => Step::MulConst(x, constant(rng)),
            4 => Step::Const {
                width: w,
                value: constant(rng),
            },
            5 | 6 => Step::Mul(x, y),
            7 => {
                let n = rng.gen_range(1..5);
                let xs = (0..n).map(|_| pick(rng, &words)).collect();
                let ys = (0..n).map(|_| pick(rng, &words)).collect();
                Step::Dot(xs, ys)
            }
            8 => Step::ToYao(x),
            9 => Step::ToArith(pick(rng, &bits)),
            10 => Step::Boolean {
                program: 0,
                args: vec![pick(rng, &bits), pick(rng, &bits)],
            },
            _ => {
                // A comparison of two words, injected or used to select.
                let (gx, gy) = (next, next + 1);
                p.steps.push(Step::ToYao(x));
                p.steps.push(Step::ToYao(y));
                p.steps.push(Step::Boolean {
                    program: 0,
                    args: vec![gx, gy],
                });
                let lt = next + 2;
                next += 3;
                bits.extend([gx, gy]);
                if rng.gen() {
                    // The comparison as a byte too, converted back and
                    // forth beside the words of width w.
                    p.steps.push(Step::Inject { bit: lt, width: 8 });
                    p.steps.push(Step::ToYao(next));
                    p.steps.push(Step::ToArith(next + 1));
                    narrow.extend([next, next + 1, next + 2]);
                    next += 3;
                }
                if rng.gen() {
                    Step::Inject { bit: lt, width: w }
                } else {
                    Step::Boolean {
                        program: 1,
                        args: vec![lt, gx, gy],
                    }
                }
            }
        };
        let is_word = !matches!(step, Step::ToYao(_) | Step::Boolean { .. });
        let is_compare = matches!(step, Step::Boolean { program: 0, .. });
        p.steps.push(step);
        match (is_word, is_compare) {
            (true, _) => words.push(next),
            // A comparison's one bit only feeds an injection.
            (false, true) => p.steps.push(Step::Inject {
                bit: next,
                width: w,
            }),
            (false, false) => bits.push(next),
        }
        if is_compare {
            next += 1;
            words.push(next);
        }
        next += 1;
    }
    for k in 0..rng.gen_range(1..4) {
        let value = match rng.gen_range(0..4) {
            0 => bits[rng.gen_range(0..bits.len())],
            1 if !narrow.is_empty() => narrow[rng.gen_range(0..narrow.len())],
            _ => words[rng.gen_range(0..words.len())],
        };
        p.outputs.push(MixedOutput {
            name: format!("o{k}"),
            value,
        });
    }
    p
}

/// Random inputs of a mixed program, as bit vectors.
pub fn random_mixed_inputs(rng: &mut impl Rng, program: &MixedProgram) -> Vec<Vec<bool>> {
    program
        .inputs
        .iter()
        .map(|v| match v.kind {
            Kind::Word(w) => word_bits(rng.gen(), w),
            Kind::Bits(n) => (0..n).map(|_| rng.gen()).collect(),
        })
        .collect()
}

/// One party's part of mixed inputs: its own values, `None` for the others'.
pub fn mixed_party_inputs(
    program: &MixedProgram,
    inputs: &[Vec<bool>],
    owner: u8,
) -> Vec<Option<Vec<bool>>> {
    program
        .inputs
        .iter()
        .zip(inputs)
        .map(|(v, bits)| (v.owner == owner).then(|| bits.clone()))
        .collect()
}

/// The mixed program of `X·Y` for A's `n×n` matrix `X` and B's `Y` of
/// `w`-bit words (row-major inputs `x0…`, then `y0…`): one dot product
/// per element of the result, opened as outputs `z0…`.
pub fn mixed_matmul(n: usize, w: u32) -> MixedProgram {
    let word = |name: String, owner| MixedInput::word(name, owner, w);
    let mut inputs: Vec<MixedInput> = (0..n * n).map(|k| word(format!("x{k}"), 0)).collect();
    inputs.extend((0..n * n).map(|k| word(format!("y{k}"), 1)));
    let y0 = (n * n) as ValueId;
    let steps: Vec<Step> = (0..n * n)
        .map(|at| {
            let (i, j) = (at / n, at % n);
            Step::Dot(
                (0..n).map(|k| (i * n + k) as ValueId).collect(),
                (0..n).map(|k| y0 + (k * n + j) as ValueId).collect(),
            )
        })
        .collect();
    let first = 2 * y0;
    MixedProgram {
        parties: 2,
        inputs,
        programs: Vec::new(),
        steps,
        outputs: (0..n * n)
            .map(|k| MixedOutput {
                name: format!("z{k}"),
                value: first + k as ValueId,
            })
            .collect(),
    }
}

/// The C program of the `n×n` int32 matrix product of A's and B's
/// matrices (`mpc_main` over two `Matrix` structs).
pub fn matmul_c(n: usize) -> String {
    format!(
        "#include <stdint.h>\n#define N {n}\n\
         typedef struct {{ int32_t m[N][N]; }} Matrix;\n\
         Matrix mpc_main(Matrix INPUT_A, Matrix INPUT_B) {{\n\
           Matrix c;\n\
           for (int i = 0; i < N; i++)\n\
             for (int j = 0; j < N; j++) {{\n\
               int32_t acc = 0;\n\
               for (int k = 0; k < N; k++) acc += INPUT_A.m[i][k] * INPUT_B.m[k][j];\n\
               c.m[i][j] = acc;\n\
             }}\n\
           return c;\n\
         }}\n"
    )
}

/// An `n×n` matrix of 32-bit words as a C initializer of `matmul_c`'s
/// `Matrix`.
pub fn matrix_initializer(n: usize, m: &[u64]) -> String {
    let rows: Vec<String> = m
        .chunks(n)
        .map(|r| {
            let r: Vec<String> = r.iter().map(|&v| (v as u32 as i32).to_string()).collect();
            format!("{{{}}}", r.join(","))
        })
        .collect();
    format!("{{{{{}}}}}", rows.join(","))
}
