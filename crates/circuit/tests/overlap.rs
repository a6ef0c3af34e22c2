//! Main gates run during regions ([`MainOrder`]): a program run in the
//! overlapped order — each region reading its inputs when it starts, the
//! gates allowed during it running next, and the region writing its outputs
//! only then — computes what it computes in program order.

use rand::{Rng, SeedableRng};
use twofold_circuit::program::{flatten_inputs, split_outputs};
use twofold_circuit::{eval_gates, Builder, Gate, MainOrder, Party, Program};
use twofold_testkit::{random_inputs, random_program};

/// Plaintext run of `program` with its main gates arranged as `order`.
fn run_arranged(program: &Program, order: &MainOrder, inputs: &[Vec<bool>]) -> Vec<Vec<bool>> {
    let flat = flatten_inputs(&program.main, inputs).unwrap();
    let mut wires = vec![false; program.main.num_wires as usize];
    wires[..flat.len()].copy_from_slice(&flat);
    for (k, region) in program.blocks.iter().enumerate() {
        assert!(region.parallel && region.body.blocks.is_empty());
        eval_gates(&order.before[k], &mut wires);
        // The region starts: it reads its inputs now.
        let read: Vec<Vec<bool>> = (0..region.count)
            .map(|k| {
                let ins = region.shared.iter().copied().chain(region.inputs.wires(k));
                ins.map(|w| wires[w as usize]).collect()
            })
            .collect();
        eval_gates(&order.during[k], &mut wires);
        // The region ends: its outputs are written now.
        let body = &region.body.circuit;
        for (k, ins) in (0..region.count).zip(read) {
            let mut own = vec![false; body.num_wires as usize];
            own[..ins.len()].copy_from_slice(&ins);
            eval_gates(&body.gates, &mut own);
            for (dst, w) in region.outputs.wires(k).into_iter().zip(body.output_wires()) {
                wires[dst as usize] = own[w as usize];
            }
        }
    }
    eval_gates(&order.before[program.blocks.len()], &mut wires);
    let out: Vec<bool> = program
        .main
        .output_wires()
        .map(|w| wires[w as usize])
        .collect();
    split_outputs(&program.main, &out)
}

#[test]
fn overlapped_order_computes_what_program_order_computes() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let (mut moved, mut kept, mut regions) = (0, 0, 0);
    for round in 0..600 {
        let regions_wanted = rng.gen_range(1..4);
        let program = random_program(&mut rng, regions_wanted, 40);
        program.validate().unwrap();
        let order = program.main_overlapped();
        assert_eq!(order.before.len(), program.blocks.len() + 1);
        assert_eq!(order.during.len(), program.blocks.len());
        let total: usize = order.before.iter().map(|b| b.len()).sum::<usize>()
            + order.during.iter().map(|d| d.len()).sum::<usize>();
        assert_eq!(total, program.main.gates.len(), "round {round}");
        moved += order.during.iter().map(|d| d.len()).sum::<usize>();
        kept += order.before.iter().map(|b| b.len()).sum::<usize>();
        regions += program.blocks.len();
        let in_order = program.main_in_order();
        for _ in 0..4 {
            let inputs = random_inputs(&mut rng, &program.main);
            let want = program.eval(&inputs).unwrap();
            assert_eq!(
                run_arranged(&program, &order, &inputs),
                want,
                "round {round}"
            );
            assert_eq!(run_arranged(&program, &in_order, &inputs), want);
        }
    }
    // The random programs exercise both sides of every rule.
    assert!(regions > 600, "{regions} regions");
    assert!(moved > 1000 && kept > 1000, "moved {moved}, kept {kept}");
}

/// y = x*x (8-bit, low half) for each of 4 values of party A, a chain on
/// party B's value that needs none of it, and their XOR at the end.
fn squares_and_chain(chain_before_loop: bool) -> Program {
    let mut b = Builder::new();
    let xs = b.input("x", Party::A, 32);
    let k = b.input("k", Party::B, 8);
    let chain = |b: &mut Builder| {
        let mut acc = k.clone();
        for _ in 0..5 {
            let rotated: Vec<_> = (0..8).map(|i| acc[(i + 3) % 8]).collect();
            acc = (0..8).map(|i| b.and(acc[i], rotated[i])).collect();
            acc = (0..8).map(|i| b.xor(acc[i], k[i])).collect();
        }
        acc
    };
    let early = chain_before_loop.then(|| chain(&mut b));
    let mut mark = b.begin_loop();
    let mut squares = Vec::new();
    for i in 0..4 {
        b.begin_iteration(&mut mark);
        let x = &xs[8 * i..8 * i + 8];
        // Shift-and-add square, low 8 bits.
        let mut acc = vec![twofold_circuit::Bit::Const(false); 8];
        for (s, &xs_bit) in x.iter().enumerate() {
            let mut carry = twofold_circuit::Bit::Const(false);
            for j in s..8 {
                let p = b.and(x[j - s], xs_bit);
                let t = b.xor(acc[j], p);
                let sum = b.xor(t, carry);
                let c1 = b.and(acc[j], p);
                let c2 = b.and(t, carry);
                carry = b.or(c1, c2);
                acc[j] = sum;
            }
        }
        squares.push(acc);
    }
    b.end_loop(mark);
    let late = early.unwrap_or_else(|| chain(&mut b));
    let mut total = late.clone();
    for sq in &squares {
        total = (0..8).map(|i| b.xor(total[i], sq[i])).collect();
    }
    b.output("chain", &late);
    b.output("total", &total);
    b.finish_program().unwrap().0
}

#[test]
fn independent_work_before_or_after_a_region_runs_during_it() {
    for chain_before_loop in [false, true] {
        let program = squares_and_chain(chain_before_loop);
        assert_eq!(program.blocks.len(), 1);
        let order = program.main_overlapped();
        // The chain's 40 AND gates run during the region; the XORs of the
        // squares wait for it.
        assert_eq!(
            order.during_ands(0),
            40,
            "chain before: {chain_before_loop}"
        );
        assert!(order.before.iter().all(|b| b.iter().all(|g| !g.is_and())));
        assert!(!order.before[1].is_empty());
        let mut rng = rand::rngs::StdRng::seed_from_u64(2);
        for _ in 0..50 {
            let inputs = random_inputs(&mut rng, &program.main);
            assert_eq!(
                run_arranged(&program, &order, &inputs),
                program.eval(&inputs).unwrap()
            );
        }
    }
}

/// A one-bit NOT region at `position` reading wire `input` and writing wire
/// `output`, in a main circuit with input bits 0 and 1, `gates`, and wire 2
/// as its output.
fn not_region_program(position: usize, input: u32, output: u32, gates: Vec<Gate>) -> Program {
    use twofold_circuit::{Block, Circuit, InputValue, OutputValue};
    let body = Circuit {
        num_wires: 2,
        inputs: vec![InputValue {
            name: "x".into(),
            party: Party::A,
            width: 1,
        }],
        outputs: vec![OutputValue {
            name: "y".into(),
            wires: vec![1],
        }],
        gates: vec![Gate::Inv { a: 0, out: 1 }],
    };
    Program {
        main: Circuit {
            num_wires: 4,
            inputs: vec![InputValue {
                name: "a".into(),
                party: Party::A,
                width: 2,
            }],
            outputs: vec![OutputValue {
                name: "out".into(),
                wires: vec![2],
            }],
            gates,
        },
        blocks: vec![Block::parallel(
            position,
            body,
            Vec::new(),
            &[(vec![input], vec![output])],
        )],
    }
}

#[test]
fn overwritten_slots_keep_their_order() {
    let cases = [
        // The region writes wire 2, which nobody reads before a gate
        // overwrites it: that gate must wait for the region's end.
        not_region_program(0, 0, 2, vec![Gate::Xor { a: 0, b: 1, out: 2 }]),
        // A gate writes wire 2, a later gate overwrites it with what the
        // region reads (and the output shows): the first gate must not run
        // during the region.
        not_region_program(
            2,
            2,
            3,
            vec![Gate::Xor { a: 0, b: 1, out: 2 }, Gate::Inv { a: 0, out: 2 }],
        ),
    ];
    for program in cases {
        program.validate().unwrap();
        let order = program.main_overlapped();
        for a in 0..4u8 {
            let inputs = vec![vec![a & 1 == 1, a & 2 == 2]];
            assert_eq!(
                run_arranged(&program, &order, &inputs),
                program.eval(&inputs).unwrap(),
                "{program:?}"
            );
        }
    }
}
