//! Main gates run during regions ([`MainOrder`]): a program run in the
//! overlapped order — each region reading its inputs when it starts, the
//! gates allowed during it running next, and the region writing its outputs
//! only then — computes what it computes in program order.

use rand::{Rng, SeedableRng};
use twofold_circuit::circuit::{flatten_inputs, split_outputs};
use twofold_circuit::{eval_gates, Builder, Gate, Item, MainOrder, Party, Program};
use twofold_testkit::{
    parallel_block, plain_block, plain_frame, random_block_program, random_inputs, random_program,
};

/// Runs the steps `items` of `program`'s main circuit on `wires`.
fn run_items(program: &Program, items: &[Item], wires: &mut [bool]) {
    for item in items {
        match item {
            Item::Gates(g) => eval_gates(g, wires),
            Item::Loop(b) => plain_block(&program.blocks[*b], wires),
        }
    }
}

/// Plaintext run of `program` with its main work arranged as `order`.
fn run_arranged(program: &Program, order: &MainOrder, inputs: &[Vec<bool>]) -> Vec<Vec<bool>> {
    let flat = flatten_inputs(&program.main, inputs).unwrap();
    let mut wires = vec![false; program.main.num_wires as usize];
    wires[..flat.len()].copy_from_slice(&flat);
    for (k, &b) in order.regions.iter().enumerate() {
        let region = &program.blocks[b];
        assert!(region.parallel);
        run_items(program, &order.before[k], &mut wires);
        // The region starts: it reads its inputs now.
        let read: Vec<Vec<bool>> = (0..region.count)
            .map(|k| {
                let ins = region.shared.iter().copied().chain(region.inputs.wires(k));
                ins.map(|w| wires[w as usize]).collect()
            })
            .collect();
        run_items(program, &order.during[k], &mut wires);
        // The region ends: its outputs are written now.
        let body = &region.body.circuit;
        for (k, ins) in (0..region.count).zip(read) {
            let mut own = vec![false; body.num_wires as usize];
            own[..ins.len()].copy_from_slice(&ins);
            plain_frame(body, &region.body.blocks, &mut own);
            for (dst, w) in region.outputs.wires(k).into_iter().zip(body.output_wires()) {
                wires[dst as usize] = own[w as usize];
            }
        }
    }
    run_items(program, &order.before[order.regions.len()], &mut wires);
    let out: Vec<bool> = program
        .main
        .output_wires()
        .map(|w| wires[w as usize])
        .collect();
    split_outputs(&program.main, &out)
}

/// Gates in a list of steps.
fn gates_in(items: &[Item]) -> usize {
    items
        .iter()
        .map(|i| match i {
            Item::Gates(g) => g.len(),
            Item::Loop(_) => 0,
        })
        .sum()
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
        let total: usize = order.before.iter().map(|b| gates_in(b)).sum::<usize>()
            + order.during.iter().map(|d| gates_in(d)).sum::<usize>();
        assert_eq!(total, program.main.gates.len(), "round {round}");
        moved += order.during.iter().map(|d| gates_in(d)).sum::<usize>();
        kept += order.before.iter().map(|b| gates_in(b)).sum::<usize>();
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

/// Programs with regions and sequential loops in their main circuit, nested
/// blocks inside: the overlapped order (loops move whole) computes what
/// program order computes.
#[test]
fn loops_move_around_regions_as_units() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(6);
    let mut moved_loops = 0;
    for round in 0..800 {
        let program = random_block_program(&mut rng, 2);
        let order = program.main_overlapped();
        moved_loops += order
            .during
            .iter()
            .flatten()
            .filter(|i| matches!(i, Item::Loop(_)))
            .count();
        for _ in 0..3 {
            let inputs = random_inputs(&mut rng, &program.main);
            assert_eq!(
                run_arranged(&program, &order, &inputs),
                program.eval(&inputs).unwrap(),
                "round {round}"
            );
        }
    }
    assert!(moved_loops > 50, "{moved_loops} loops ran during regions");
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
    let instances: Vec<Vec<twofold_circuit::Bit>> = xs.chunks(8).map(<[_]>::to_vec).collect();
    let squares = parallel_block(&mut b, &[], &instances, |b, x| {
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
        acc
    });
    let late = early.unwrap_or_else(|| chain(&mut b));
    let mut total = late.clone();
    for sq in &squares {
        total = (0..8).map(|i| b.xor(total[i], sq[i])).collect();
    }
    b.output("chain", &late);
    b.output("total", &total);
    b.finish_program().unwrap()
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
            order.during_ands(&program, 0),
            40,
            "chain before: {chain_before_loop}"
        );
        assert!(order.before.iter().flatten().all(|item| match item {
            Item::Gates(g) => g.iter().all(|g| !g.is_and()),
            Item::Loop(_) => false,
        }));
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
