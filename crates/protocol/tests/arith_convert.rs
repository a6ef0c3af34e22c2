//! Conversions between arithmetic shares and garbled values, both parties
//! in one process over a socketpair: A→Y gives labels of the sum of the
//! shares, Y→A fresh shares of the garbled value, garbled gates run in
//! between, and Y→B with bit injection turns a garbled bit into a share.

use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use twofold_circuit::{Builder, Circuit, Party};
use twofold_crypto::{GarblingScheme, HalfGates, ThreeHalves};
use twofold_net::{Channel, ChannelOptions};
use twofold_protocol::arith::{Arith, Width, YaoEvaluator, YaoGarbler};

/// Runs the garbler's `a` and the evaluator's `b` in two threads over a
/// fresh in-process pair, each with its conversion side set up.
fn both<S: GarblingScheme, RA: Send, RB: Send>(
    a: impl FnOnce(&mut YaoGarbler<S>, &mut Channel) -> RA + Send,
    b: impl FnOnce(&mut YaoEvaluator<S>, &mut Channel) -> RB + Send,
) -> (RA, RB) {
    let opts = ChannelOptions {
        read_timeout: Duration::from_secs(20),
        write_timeout: Duration::from_secs(20),
        ..ChannelOptions::default()
    };
    let (mut ca, mut cb) = Channel::pair(&opts).unwrap();
    std::thread::scope(|s| {
        let hb = s.spawn(move || {
            let mut yao = YaoEvaluator::setup(&mut cb, b"convert test").unwrap();
            b(&mut yao, &mut cb)
        });
        let mut yao = YaoGarbler::setup(&mut ca, b"convert test").unwrap();
        let ra = a(&mut yao, &mut ca);
        (ra, hb.join().unwrap())
    })
}

fn words(rng: &mut StdRng, width: Width, n: usize) -> Vec<u64> {
    (0..n).map(|_| width.reduce(rng.gen())).collect()
}

fn word(bits: &[bool]) -> u64 {
    bits.iter().rev().fold(0, |acc, &b| acc << 1 | b as u64)
}

/// A→Y, reveal to the evaluator, Y→A, under scheme `S`, on random shares.
fn round_trip<S: GarblingScheme>(rng: &mut StdRng, seed: u64, width: Width) {
    const N: usize = 20;
    let (a, b) = (words(rng, width, N), words(rng, width, N));
    let ((ra, ands), (opened, rb)) = both::<S, _, _>(
        |yao, chan| {
            let x = yao.from_shares(chan, width, &a).unwrap();
            yao.reveal(chan, &x.concat()).unwrap();
            (yao.to_shares(chan, width, &x).unwrap(), yao.and_gates())
        },
        |yao, chan| {
            let x = yao.from_shares(chan, width, &b).unwrap();
            let opened = yao.reveal(chan, &x.concat()).unwrap();
            (opened, yao.to_shares(chan, width, &x).unwrap())
        },
    );
    let w = width.bits() as usize;
    let sums: Vec<u64> = (0..N).map(|i| width.add(a[i], b[i])).collect();
    let opened: Vec<u64> = opened.chunks(w).map(word).collect();
    assert_eq!(opened, sums, "seed {seed}, {width}: A→Y");
    for i in 0..N {
        assert_eq!(
            width.add(ra[i], rb[i]),
            sums[i],
            "seed {seed}, {width}: Y→A {i}"
        );
    }
    // Fresh shares: the garbler's are random masks, not its old shares.
    if width.bits() >= 8 {
        assert_ne!(ra, a, "seed {seed}");
    }
    // An adder and a subtractor of w − 1 AND gates a value.
    assert_eq!(ands, 2 * (N * (w - 1)) as u64);
}

#[test]
fn shares_become_labels_of_their_sum_and_labels_fresh_shares() {
    let seed: u64 = rand::thread_rng().gen();
    let mut rng = StdRng::seed_from_u64(seed);
    for bits in [8, 16, 32, 64, rng.gen_range(1..64)] {
        let width = Width::new(bits).unwrap();
        round_trip::<HalfGates>(&mut rng, seed, width);
    }
    round_trip::<ThreeHalves>(&mut rng, seed, Width::W32);
}

/// `x & y`, bit by bit, over two `w`-bit values.
fn and_circuit(w: u32) -> Circuit {
    let mut b = Builder::new();
    let x = b.input("x", Party::A, w);
    let y = b.input("y", Party::A, w);
    let z: Vec<_> = x.iter().zip(&y).map(|(&p, &q)| b.and(p, q)).collect();
    b.output("z", &z);
    b.finish().unwrap()
}

#[test]
fn garbled_gates_run_between_the_conversions_and_bits_inject_back() {
    let seed: u64 = rand::thread_rng().gen();
    let mut rng = StdRng::seed_from_u64(seed);
    let width = Width::new([16, 32, 64][rng.gen_range(0..3)]).unwrap();
    let (a, b) = (words(&mut rng, width, 2), words(&mut rng, width, 2));
    let circuit = and_circuit(width.bits());
    // Both parties also run the arithmetic protocol on the same channel.
    let ((and_a, msb_a), (and_b, msb_b)) = both::<HalfGates, _, _>(
        |yao, chan| {
            let xy = yao.from_shares(chan, width, &a).unwrap().concat();
            let z = yao.run(chan, &circuit, &xy).unwrap();
            let share = yao
                .to_shares(chan, width, std::slice::from_ref(&z))
                .unwrap();
            let msb = YaoGarbler::<HalfGates>::xor_shares(&z[z.len() - 1..]);
            let mut arith = Arith::setup(chan, Party::A, b"convert test").unwrap();
            (share, arith.inject_bits(chan, width, &msb).unwrap())
        },
        |yao, chan| {
            let xy = yao.from_shares(chan, width, &b).unwrap().concat();
            let z = yao.run(chan, &circuit, &xy).unwrap();
            let share = yao
                .to_shares(chan, width, std::slice::from_ref(&z))
                .unwrap();
            let msb = YaoEvaluator::<HalfGates>::xor_shares(&z[z.len() - 1..]);
            let mut arith = Arith::setup(chan, Party::B, b"convert test").unwrap();
            (share, arith.inject_bits(chan, width, &msb).unwrap())
        },
    );
    let (x, y) = (width.add(a[0], b[0]), width.add(a[1], b[1]));
    assert_eq!(width.add(and_a[0], and_b[0]), x & y, "seed {seed}: x & y");
    let msb = (x & y) >> (width.bits() - 1);
    assert_eq!(
        width.add(msb_a[0], msb_b[0]),
        msb,
        "seed {seed}: the top bit"
    );
}
