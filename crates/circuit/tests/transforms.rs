//! Builder folding, compaction, levelling and regions keep the function.

use rand::{Rng, SeedableRng};
use twofold_circuit::levels::gate_levels;
use twofold_circuit::value::{parse_int, to_hex};
use twofold_circuit::{Bit, Block, Builder, Circuit, CircuitStats, Party, Program};
use twofold_testkit::{random_circuit, random_inputs, RandomShape};

#[test]
fn compact_and_levelize_preserve_the_function() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    for _ in 0..500 {
        let shape = RandomShape {
            inputs: 3,
            max_width: 8,
            gates: rng.gen_range(0..200),
            outputs: 4,
        };
        let c = random_circuit(&mut rng, &shape);
        c.validate().unwrap();
        let levelled = c.levelize();
        levelled.validate().unwrap();
        assert!(levelled.num_wires <= c.ssa().num_wires);
        assert_eq!(CircuitStats::of(&levelled).and_gates, c.and_count());
        for _ in 0..4 {
            let inputs = random_inputs(&mut rng, &c);
            let want = c.eval(&inputs).unwrap();
            assert_eq!(levelled.eval(&inputs).unwrap(), want);
            assert_eq!(c.ssa().eval(&inputs).unwrap(), want);
            assert_eq!(Program::from(c.clone()).eval(&inputs).unwrap(), want);
        }
    }
}

#[test]
fn level_order_puts_independent_ands_together() {
    // A chain (depth 3) and three independent ANDs (depth 1).
    let mut b = Builder::new();
    let x = b.input("x", Party::A, 6);
    let c1 = b.and(x[0], x[1]);
    let c2 = b.and(c1, x[2]);
    let c3 = b.and(c2, x[3]);
    let i1 = b.and(x[4], x[5]);
    let i2 = b.and(x[3], x[5]);
    b.output("o", &[c3, i1, i2]);
    let c = b.finish().unwrap();
    let stats = CircuitStats::of(&c);
    assert_eq!(stats.and_depth, 3);
    assert_eq!(stats.ands_per_level, vec![3, 1, 1]);
    assert_eq!(stats.median_ands_per_level(), 1);
    let l = c.levelize();
    let levels = gate_levels(&l);
    assert!(levels.windows(2).all(|w| w[0] <= w[1]));
    // Each batch handed to an engine holds only independent AND runs.
    let mut batches = Vec::new();
    twofold_circuit::walk::for_each_batch(&l.gates, l.num_wires, |batch| {
        batches.push(batch.to_vec());
        Ok::<(), ()>(())
    })
    .unwrap();
    assert_eq!(batches.concat(), l.gates);
    assert!(
        batches.len() >= 3,
        "the three AND levels must not share a batch"
    );
    for batch in &batches {
        assert!(independent_and_runs(batch));
    }
}

#[test]
fn builder_folds_constants_and_hashes_structure() {
    let mut b = Builder::new();
    let x = b.input("x", Party::A, 2);
    let y = b.input("y", Party::B, 1);
    let (a, c) = (x[0], y[0]);
    assert_eq!(b.and(a, Bit::Const(false)), Bit::Const(false));
    assert_eq!(b.and(a, Bit::Const(true)), a);
    assert_eq!(b.xor(a, a), Bit::Const(false));
    let na = b.not(a);
    assert_eq!(b.not(na), a);
    assert_eq!(b.xor(a, na), Bit::Const(true));
    assert_eq!(b.and(a, na), Bit::Const(false));
    let g1 = b.and(a, c);
    let g2 = b.and(c, a);
    assert_eq!(g1, g2);
    assert_eq!(b.and_count(), 1);
    b.output("o", &[g1, Bit::Const(true), Bit::Const(false), x[1]]);
    let circuit = b.finish().unwrap();
    for v in 0..8u32 {
        let ins = vec![vec![v & 1 == 1, v & 2 == 2], vec![v & 4 == 4]];
        let out = circuit.eval(&ins).unwrap().remove(0);
        assert_eq!(out, vec![ins[0][0] & ins[1][0], true, false, ins[0][1]]);
    }
}

#[test]
fn constant_output_without_inputs_is_an_error() {
    let mut b = Builder::new();
    b.output("o", &[Bit::Const(true)]);
    assert!(b.finish().is_err());
}

#[test]
fn dead_gates_are_removed() {
    let mut b = Builder::new();
    let x = b.input("x", Party::A, 3);
    let _unused = b.and(x[0], x[1]);
    let used = b.and(x[1], x[2]);
    b.output("o", &[used]);
    assert_eq!(b.finish().unwrap().and_count(), 1);
}

/// A region (one 4-bit adder body, 3 instances) runs like the unrolled circuit.
#[test]
fn regions_run_like_their_unrolled_circuit() {
    let adder = |b: &mut Builder, x: &[Bit], y: &[Bit]| -> Vec<Bit> {
        let mut carry = Bit::Const(false);
        let mut out = Vec::new();
        for (&p, &q) in x.iter().zip(y) {
            let s = b.xor(p, q);
            out.push(b.xor(s, carry));
            let t1 = b.xor(p, carry);
            let t2 = b.xor(q, carry);
            let t = b.and(t1, t2);
            carry = b.xor(t, carry);
        }
        out
    };
    // Body: shared 4-bit y, dedicated 4-bit x -> x + y.
    let mut bb = Builder::new();
    let y = bb.input("shared", Party::A, 4);
    let x = bb.input("x", Party::A, 4);
    let s = adder(&mut bb, &x, &y);
    bb.output("s", &s);
    let body = bb.finish().unwrap();
    // Main: inputs a (12 bits, three values), b (4 bits); outputs the three sums
    // XORed with b afterwards.
    let mut mb = Builder::new();
    let a = mb.input("a", Party::A, 12);
    let bv = mb.input("b", Party::B, 4);
    let mut main = mb.finish().unwrap();
    main.num_wires = 16 + 12 + 12;
    let sums: Vec<u32> = (16..28).collect();
    let mut outs = Vec::new();
    for (k, &w) in sums.iter().enumerate() {
        let out = 28 + k as u32;
        main.gates.push(twofold_circuit::Gate::Xor {
            a: w,
            b: 12 + (k as u32 % 4),
            out,
        });
        outs.push(out);
    }
    main.outputs = vec![twofold_circuit::OutputValue {
        name: "o".into(),
        wires: outs,
    }];
    let _ = (a, bv);
    let program = Program {
        main,
        blocks: vec![Block::parallel(
            0,
            body,
            vec![12, 13, 14, 15],
            &(0..3)
                .map(|i| {
                    (
                        (4 * i..4 * i + 4).collect(),
                        (16 + 4 * i..20 + 4 * i).collect(),
                    )
                })
                .collect::<Vec<_>>(),
        )],
    };
    program.validate().unwrap();
    assert_eq!(program.and_count(), 3 * 4 - 3);
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    for _ in 0..50 {
        let (a, b): (u32, u32) = (rng.gen_range(0..4096), rng.gen_range(0..16));
        let out = program
            .eval(&[
                parse_int(&a.to_string(), 12).unwrap(),
                parse_int(&b.to_string(), 4).unwrap(),
            ])
            .unwrap();
        let want: u32 = (0..3)
            .map(|i| ((((a >> (4 * i)) & 15) + b) & 15 ^ b) << (4 * i))
            .sum();
        assert_eq!(to_hex(&out[0]), format!("{want:#x}"));
    }
    // A region reading a wire not yet written is rejected.
    let mut bad = program.clone();
    bad.blocks[0].shared[0] = 30;
    assert!(bad.validate().is_err());
}

#[test]
fn int_values_parse_and_print() {
    assert_eq!(to_hex(&parse_int("0x1f", 8).unwrap()), "0x1f");
    assert_eq!(to_hex(&parse_int("255", 8).unwrap()), "0xff");
    assert_eq!(to_hex(&parse_int("-1", 8).unwrap()), "0xff");
    assert_eq!(to_hex(&parse_int("-128", 8).unwrap()), "0x80");
    assert!(parse_int("-129", 8).is_err());
    assert!(parse_int("256", 8).is_err());
    assert!(parse_int("0x", 8).is_err());
    assert!(parse_int("12a", 8).is_err());
    assert_eq!(to_hex(&parse_int("0", 8).unwrap()), "0x0");
    let big = "0x102030405060708090a0b0c0d0e0f";
    assert_eq!(to_hex(&parse_int(big, 128).unwrap()), big);
    assert_eq!(
        to_hex(&parse_int("340282366920938463463374607431768211455", 128).unwrap()),
        "0xffffffffffffffffffffffffffffffff"
    );
    let _ = Circuit::default();
}

/// Whether no AND of a maximal run of consecutive ANDs reads a wire written
/// earlier in that run.
/// Whether no AND of a run of consecutive ANDs in `gates` reads or writes a
/// wire another AND of the run writes (what a batch guarantees: the ANDs of
/// a run can run at once, in place).
fn independent_and_runs(gates: &[twofold_circuit::Gate]) -> bool {
    let runs = gates.split(|g| !g.is_and());
    runs.into_iter().all(|run| {
        run.iter().enumerate().all(|(i, g)| {
            run.iter()
                .enumerate()
                .all(|(j, h)| i == j || (g.out() != h.out() && h.inputs().all(|w| w != g.out())))
        })
    })
}

/// The maximal runs of consecutive AND gates of `gates`, found gate by gate.
fn scanned_and_runs(gates: &[twofold_circuit::Gate]) -> Vec<std::ops::Range<usize>> {
    let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
    for (i, g) in gates.iter().enumerate() {
        match runs.last_mut() {
            Some(r) if g.is_and() && r.end == i => r.end = i + 1,
            _ if g.is_and() => runs.push(i..i + 1),
            _ => {}
        }
    }
    runs
}

#[test]
fn batches_split_dependent_and_runs_of_any_circuit() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    for _ in 0..200 {
        let shape = RandomShape {
            inputs: 2,
            max_width: 8,
            gates: rng.gen_range(0..300),
            outputs: 2,
        };
        let c = random_circuit(&mut rng, &shape);
        // Slots reused as soon as they are free (compact), and levelled.
        for circuit in [c.clone(), c.compact(), c.levelize()] {
            let mut all = Vec::new();
            twofold_circuit::walk::for_each_batch(&circuit.gates, circuit.num_wires, |batch| {
                assert!(independent_and_runs(&batch));
                // The batch knows its AND runs, and so does any slice of it.
                assert_eq!(
                    batch.and_runs().collect::<Vec<_>>(),
                    scanned_and_runs(&batch)
                );
                let (s, e) = (batch.len() / 3, batch.len() - batch.len() / 4);
                let slice = batch.slice(s..e);
                assert_eq!(
                    slice.and_runs().collect::<Vec<_>>(),
                    scanned_and_runs(&slice)
                );
                all.extend_from_slice(&batch);
                Ok::<(), ()>(())
            })
            .unwrap();
            assert_eq!(all, circuit.gates);
        }
    }
}

/// A levelled circuit's batches have one AND run per AND level, whole:
/// compaction reuses no slot inside an AND run, so no AND of a level writes
/// a slot another reads, and no run is cut.
#[test]
fn levelled_circuits_keep_every_and_level_in_one_run() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(6);
    for _ in 0..200 {
        let shape = RandomShape {
            inputs: 2,
            max_width: 8,
            gates: rng.gen_range(1..300),
            outputs: 2,
        };
        let circuit = random_circuit(&mut rng, &shape).levelize();
        let mut runs = 0;
        twofold_circuit::walk::for_each_batch(&circuit.gates, circuit.num_wires, |batch| {
            runs += batch.and_runs().count();
            Ok::<(), ()>(())
        })
        .unwrap();
        let levels = CircuitStats::of(&circuit).and_depth as usize;
        assert_eq!(runs, levels);
    }
}

#[test]
fn synthetic_programs_are_valid_and_evaluate() {
    let body = twofold_circuit::synthetic::layered(16, 5, 16, 9);
    body.validate().unwrap();
    assert_eq!(body.and_count(), 16 * 5);
    let program = twofold_circuit::synthetic::repeated(&body, 7);
    program.validate().unwrap();
    assert_eq!(program.and_count(), 16 * 5 * 7);
    // The program's output is the XOR of the body run on each instance's bits.
    let mut rng = rand::rngs::StdRng::seed_from_u64(2);
    let inputs = random_inputs(&mut rng, &program.main);
    let mut want = vec![false; 16];
    for i in 0..7 {
        let a = inputs[0][i * 8..(i + 1) * 8].to_vec();
        let b = inputs[1][i * 8..(i + 1) * 8].to_vec();
        let out = body.eval(&[a, b]).unwrap().remove(0);
        for (w, o) in want.iter_mut().zip(out) {
            *w ^= o;
        }
    }
    assert_eq!(program.eval(&inputs).unwrap(), vec![want]);
    assert_eq!(
        twofold_circuit::synthetic::layered(16, 5, 16, 9),
        body,
        "deterministic"
    );
}

/// A flat circuit of many independent instances (each on its own inputs,
/// their gates interleaved as a compiler may emit them) is levelled window
/// by window: the function is kept, AND runs stay independent, the live
/// labels stay few, and levelling again changes nothing.
#[test]
fn levelize_in_windows_keeps_the_function_and_few_labels() {
    use twofold_circuit::synthetic::{layered, repeated};
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    for seed in 0..6 {
        let body = layered(64, rng.gen_range(2..6), 16, seed);
        let instances = 256;
        let flat = repeated(&body, instances).unrolled();
        // The gates of each instance (those that depend on its inputs
        // only), then the XORs of the instances' outputs. The instances'
        // gates are interleaved a random number at a time, round after
        // round, each instance's in their order.
        let ssa = flat.ssa();
        let n = instances as usize;
        let w = body.input_bits() / 2;
        let mut of_wire: Vec<usize> = (0..ssa.input_bits()).map(|x| x % (n * w) / w).collect();
        let mut own = vec![Vec::new(); n];
        let mut rest = Vec::new();
        for g in &ssa.gates {
            let mut deps = g
                .inputs()
                .map(|x| of_wire.get(x as usize).copied().unwrap_or(n));
            let first = deps.next().unwrap();
            let instance = if deps.all(|d| d == first) { first } else { n };
            of_wire.push(instance);
            own.get_mut(instance).map_or(&mut rest, |v| v).push(*g);
        }
        let mut next = vec![0; n];
        let mut gates = Vec::with_capacity(ssa.gates.len());
        while gates.len() + rest.len() < ssa.gates.len() {
            for (at, own) in next.iter_mut().zip(&own) {
                let end = (*at + rng.gen_range(1..64)).min(own.len());
                gates.extend_from_slice(&own[*at..end]);
                *at = end;
            }
        }
        gates.extend(rest);
        let shuffled = Circuit { gates, ..ssa };
        shuffled.validate().unwrap();
        let levelled = shuffled.levelize();
        levelled.validate().unwrap();
        assert!(levelled.is_level_ordered());
        assert_eq!(levelled.levelize(), levelled, "levelling again is a no-op");
        assert!(independent_and_runs(&levelled.gates));
        // Windows: the levels are not sorted over the whole circuit, and
        // fewer labels are live than in level order over all of it.
        let levels = gate_levels(&levelled);
        assert!(levels.windows(2).any(|w| w[0] > w[1]));
        let levels = gate_levels(&shuffled);
        let mut order: Vec<usize> = (0..shuffled.gates.len()).collect();
        order.sort_by_key(|&i| (levels[i], !shuffled.gates[i].is_and()));
        let whole = Circuit {
            gates: order.iter().map(|&i| shuffled.gates[i]).collect(),
            ..shuffled.clone()
        }
        .compact();
        assert!(
            4 * levelled.num_wires < 3 * whole.num_wires,
            "seed {seed}: {} wires, {} in level order",
            levelled.num_wires,
            whole.num_wires
        );
        for _ in 0..4 {
            let inputs = random_inputs(&mut rng, &flat);
            assert_eq!(levelled.eval(&inputs).unwrap(), flat.eval(&inputs).unwrap());
        }
    }
}
