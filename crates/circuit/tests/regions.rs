//! Parallel loops proposed to the builder: accepted when their iterations are
//! independent and alike, rejected otherwise, and the program computes what
//! the inline circuit computes.

use rand::{Rng, SeedableRng};
use twofold_circuit::{Bit, Builder, Party, Program, RegionVerdict};

/// Adds two 8-bit values (ripple carry).
fn add(b: &mut Builder, x: &[Bit], y: &[Bit]) -> Vec<Bit> {
    let mut carry = Bit::Const(false);
    x.iter()
        .zip(y)
        .map(|(&p, &q)| {
            let s = b.xor(p, q);
            let out = b.xor(s, carry);
            let t1 = b.xor(p, carry);
            let t2 = b.xor(q, carry);
            let t = b.and(t1, t2);
            carry = b.xor(t, carry);
            out
        })
        .collect()
}

/// out[i] = a[i] + key for i < n (independent), plus total = sum of out via
/// a chain after the loop. With `use_loop`, the loop is proposed.
fn program(n: usize, use_loop: bool, dependent: bool) -> (Program, Vec<RegionVerdict>) {
    let mut b = Builder::new();
    let a = b.input("a", Party::A, 8 * n as u32);
    let key = b.input("key", Party::B, 8);
    let mut mark = b.begin_loop();
    let mut outs: Vec<Vec<Bit>> = Vec::new();
    for i in 0..n {
        b.begin_iteration(&mut mark);
        // The same computation on a shared value in every iteration: the
        // builder must not reuse iteration 0's gates for it.
        let k2 = add(&mut b, &key, &key);
        let prev = if dependent && i > 0 {
            outs[i - 1].clone()
        } else {
            a[8 * i..8 * i + 8].to_vec()
        };
        let s = add(&mut b, &prev, &k2);
        outs.push(s);
    }
    if use_loop {
        b.end_loop(mark);
    } else {
        b.abandon_loop(mark);
    }
    let mut total = outs[0].clone();
    for o in &outs[1..] {
        total = add(&mut b, &total, o);
    }
    b.output("total", &total);
    b.output("last", &outs[n - 1]);
    b.finish_program().unwrap()
}

#[test]
fn independent_iterations_become_a_simd_region() {
    let (with, verdicts) = program(6, true, false);
    let (without, none) = program(6, false, false);
    assert!(none.is_empty());
    assert_eq!(verdicts.len(), 1);
    let RegionVerdict::Accepted {
        instances,
        and_gates_per_instance,
    } = verdicts[0]
    else {
        panic!("rejected: {verdicts:?}");
    };
    assert_eq!(instances, 6);
    assert_eq!(with.blocks.len(), 1);
    assert_eq!(with.blocks[0].body_ands() as usize, and_gates_per_instance);
    // The key doubling is an input computed per instance from the shared key.
    assert_eq!(with.blocks[0].shared.len(), 8);
    assert!(without.blocks.is_empty());
    assert_eq!(with.and_count(), without.and_count());
    with.validate().unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    for _ in 0..100 {
        let inputs = vec![
            (0..48).map(|_| rng.gen()).collect(),
            (0..8).map(|_| rng.gen()).collect(),
        ];
        assert_eq!(with.eval(&inputs).unwrap(), without.eval(&inputs).unwrap());
        assert_eq!(
            twofold_circuit::prepare::prepare(&with)
                .eval(&inputs)
                .unwrap(),
            without.eval(&inputs).unwrap()
        );
    }
    // Binary round trip keeps the regions.
    let mut bytes = Vec::new();
    twofold_circuit::binary::write_program(&with, &mut bytes).unwrap();
    assert_eq!(
        twofold_circuit::binary::read_program(&mut bytes.as_slice()).unwrap(),
        with
    );
}

#[test]
fn dependent_iterations_are_rejected() {
    let (p, verdicts) = program(4, true, true);
    assert!(
        matches!(&verdicts[0], RegionVerdict::Rejected(why) if why.contains("another iteration")),
        "{verdicts:?}"
    );
    assert!(p.blocks.is_empty());
    let (inline, _) = program(4, false, true);
    let inputs = vec![vec![true; 32], vec![false; 8]];
    assert_eq!(p.eval(&inputs).unwrap(), inline.eval(&inputs).unwrap());
}

#[test]
fn iterations_of_different_shape_are_rejected() {
    let mut b = Builder::new();
    let a = b.input("a", Party::A, 4);
    let mut mark = b.begin_loop();
    let mut outs = Vec::new();
    for i in 0..3 {
        b.begin_iteration(&mut mark);
        // Iteration 1 does an extra AND.
        let mut x = b.and(a[i], a[i + 1]);
        if i == 1 {
            x = b.and(x, a[0]);
        }
        outs.push(x);
    }
    b.end_loop(mark);
    b.output("o", &outs);
    let (p, verdicts) = b.finish_program().unwrap();
    assert!(
        matches!(&verdicts[0], RegionVerdict::Rejected(why) if why.contains("same circuit")),
        "{verdicts:?}"
    );
    assert!(p.blocks.is_empty());
    assert_eq!(
        p.eval(&[vec![true, true, true, false]]).unwrap(),
        vec![vec![true, true, false]]
    );
}

#[test]
fn nested_loops_keep_the_outermost() {
    let mut b = Builder::new();
    let a = b.input("a", Party::A, 16);
    let mut outer = b.begin_loop();
    let mut outs = Vec::new();
    for i in 0..4 {
        b.begin_iteration(&mut outer);
        let mut inner = b.begin_loop();
        let mut acc = Bit::Const(true);
        for j in 0..4 {
            b.begin_iteration(&mut inner);
            acc = b.and(acc, a[4 * i + j]);
        }
        b.end_loop(inner);
        outs.push(acc);
    }
    b.end_loop(outer);
    b.output("o", &outs);
    let (p, verdicts) = b.finish_program().unwrap();
    assert_eq!(
        verdicts,
        vec![RegionVerdict::Accepted {
            instances: 4,
            and_gates_per_instance: 3
        }]
    );
    let mut inputs = vec![true; 16];
    inputs[5] = false;
    assert_eq!(
        p.eval(&[inputs]).unwrap(),
        vec![vec![true, false, true, true]]
    );
}
