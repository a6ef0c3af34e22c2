//! Helpers shared by the integration tests.
#![allow(dead_code)]

use twofold_compiler::{CType, CValue, CompiledProgram};

/// Flattens a value to its scalars with their widths.
pub fn leaves(ty: &CType, v: &CValue, out: &mut Vec<(u32, i128)>) {
    match (ty, v) {
        (CType::Array(e, _), CValue::List(items)) => {
            for it in items {
                leaves(e, it, out);
            }
        }
        (CType::Struct(s), CValue::List(items)) => {
            for ((_, t), it) in s.fields.iter().zip(items) {
                leaves(t, it, out);
            }
        }
        (t, CValue::Int(x)) => out.push((t.width(), *x)),
        _ => panic!("value does not match its type"),
    }
}

/// Evaluates a compiled program on inputs given as C initializers (by name).
pub fn run(p: &CompiledProgram, inputs: &[(String, String)]) -> Vec<Vec<bool>> {
    let mut bits = Vec::new();
    for (name, ty) in &p.inputs {
        let text = &inputs
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no value for input {name}"))
            .1;
        bits.push(ty.parse_value(text).unwrap_or_else(|e| panic!("bad value {text}: {e}")));
    }
    p.circuit.eval(&bits).expect("evaluation")
}

/// The scalars of all outputs, each reduced modulo 2^width.
pub fn output_scalars(p: &CompiledProgram, outs: &[Vec<bool>]) -> Vec<u128> {
    let mut v = Vec::new();
    for ((_, ty), bits) in p.outputs.iter().zip(outs) {
        let mut l = Vec::new();
        leaves(ty, &ty.json_value(bits), &mut l);
        for (w, x) in l {
            v.push(modw(x, w));
        }
    }
    v
}

/// `x` modulo `2^w`.
pub fn modw(x: i128, w: u32) -> u128 {
    (x as u128) & if w >= 128 { u128::MAX } else { (1u128 << w) - 1 }
}
