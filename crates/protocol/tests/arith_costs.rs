//! The cost formulas of `arith::cost` against the bytes counted on the
//! channel and the messages counted by the parties, on random shapes.

mod common;

use common::pair;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use twofold_circuit::Party;
use twofold_crypto::{GarblingScheme, HalfGates, Scheme, ThreeHalves};
use twofold_net::Channel;
use twofold_ot::Extension;
use twofold_protocol::arith::cost::{self, Cost};
use twofold_protocol::arith::{Arith, Cross, Extensions, Factor, Width, YaoEvaluator, YaoGarbler};

/// Runs `party(A)` and `party(B)` over a fresh pair, each after its
/// arithmetic setup with the extensions `exts`, twice; returns what the second run measured: the
/// bytes both sent during it, and the messages party A counted. (The first
/// carries the end of the OT extensions' setup — SoftSpoken's receiver
/// sends its GGM corrections with its first batch — which
/// `twofold-ot`'s own tests count.)
fn measure(exts: &Extensions, party: impl Fn(Party, &mut Arith, &mut Channel) + Sync) -> Cost {
    let (mut ca, mut cb) = pair();
    let run = |p: Party, chan: &mut Channel| {
        let mut arith = Arith::setup_with(chan, p, b"costs", exts).unwrap();
        party(p, &mut arith, chan);
        let (bytes, flights) = (chan.bytes_sent(), arith.flights());
        party(p, &mut arith, chan);
        (chan.bytes_sent() - bytes, arith.flights() - flights)
    };
    let ((a, flights), (b, _)) = std::thread::scope(|s| {
        let hb = s.spawn(|| run(Party::B, &mut cb));
        (run(Party::A, &mut ca), hb.join().unwrap())
    });
    Cost {
        bytes: a + b,
        flights,
    }
}

fn rng() -> (StdRng, u64) {
    let seed: u64 = rand::thread_rng().gen();
    (StdRng::seed_from_u64(seed), seed)
}

/// IKNP or the default extension for each instance, at random.
fn random_extensions(rng: &mut StdRng) -> Extensions {
    let mut pick = || {
        if rng.gen() {
            Extension::Iknp
        } else {
            Extension::DEFAULT
        }
    };
    Extensions {
        a_vectors: pick(),
        b_vectors: pick(),
        garbling: pick(),
    }
}

#[test]
fn arithmetic_operations_cost_what_the_formulas_say() {
    let (mut rng, seed) = rng();
    let exts = random_extensions(&mut rng);
    let w = Width::new(rng.gen_range(1..=64)).unwrap();
    let a_lens: Vec<usize> = (0..rng.gen_range(0..40))
        .map(|_| rng.gen_range(0..9))
        .collect();
    let b_lens: Vec<usize> = (0..rng.gen_range(0..40))
        .map(|_| rng.gen_range(0..9))
        .collect();
    let got = measure(&exts, |p, arith, chan| {
        let (mine, theirs) = if p == Party::A {
            (&a_lens, &b_lens)
        } else {
            (&b_lens, &a_lens)
        };
        let vectors: Vec<Vec<u64>> = mine.iter().map(|&n| vec![1; n]).collect();
        let scalars = vec![3; theirs.len()];
        let layer = Cross {
            vectors: &vectors,
            scalars: &scalars,
            peer_lens: theirs,
        };
        arith.cross(chan, w, layer).unwrap();
    });
    let shape = |l: &[usize]| (l.len() as u64, l.iter().sum::<usize>() as u64);
    assert_eq!(
        got,
        cost::cross(w, shape(&a_lens), shape(&b_lens), &exts),
        "seed {seed}, {w}, {exts:?}"
    );

    let (n, m, p) = (
        rng.gen_range(1..9),
        rng.gen_range(1..9),
        rng.gen_range(1..9),
    );
    let got = measure(&exts, |party, arith, chan| {
        let (x, y) = (vec![2; n * m], vec![5; m * p]);
        let mine = if party == Party::A {
            Factor::Left(&x)
        } else {
            Factor::Right(&y)
        };
        arith.matmul(chan, w, (n, m, p), mine).unwrap();
    });
    assert_eq!(
        got,
        cost::matmul(w, (n as u64, m as u64, p as u64), &exts),
        "seed {seed}, {w}, {exts:?}"
    );

    let k = rng.gen_range(1..300);
    let got = measure(&exts, |_, arith, chan| {
        arith.triples(chan, w, k).unwrap();
    });
    assert_eq!(
        got,
        cost::triples(w, k as u64, &exts),
        "seed {seed}, {w}, {exts:?}"
    );
    let got = measure(&exts, |_, arith, chan| {
        let mut triples = arith.triples(chan, w, k).unwrap();
        let before = chan.bytes_sent();
        arith
            .mul(chan, w, &vec![1; k], &vec![2; k], &mut triples)
            .unwrap();
        arith.open(chan, w, &vec![7; k]).unwrap();
        arith.inject_bits(chan, w, &vec![true; k]).unwrap();
        assert!(chan.bytes_sent() > before);
    });
    let online =
        cost::mul(w, k as u64) + cost::open(w, k as u64) + cost::inject_bits(w, k as u64, &exts);
    assert_eq!(
        got,
        cost::triples(w, k as u64, &exts) + online,
        "seed {seed}, {w}, {exts:?}"
    );
}

/// The bytes of A→Y then Y→A of `n` values under `S`, with the
/// garbling's OT extension `ext`.
fn conversions<S: GarblingScheme>(w: Width, n: usize, ext: Extension) -> u64 {
    let (mut ca, mut cb) = pair();
    let shares = vec![9; n];
    std::thread::scope(|s| {
        let hb = s.spawn(|| {
            let mut yao = YaoEvaluator::<S>::setup_with(&mut cb, b"costs", ext).unwrap();
            let mut convert = |chan: &mut Channel| {
                let x = yao.from_shares(chan, w, &shares).unwrap();
                yao.to_shares(chan, w, &x).unwrap();
            };
            // (Measured the second time: see `measure`.)
            convert(&mut cb);
            let before = cb.bytes_sent();
            convert(&mut cb);
            cb.bytes_sent() - before
        });
        let mut yao = YaoGarbler::<S>::setup_with(&mut ca, b"costs", ext).unwrap();
        let mut convert = |chan: &mut Channel| {
            let x = yao.from_shares(chan, w, &shares).unwrap();
            yao.to_shares(chan, w, &x).unwrap();
        };
        convert(&mut ca);
        let before = ca.bytes_sent();
        convert(&mut ca);
        ca.bytes_sent() - before + hb.join().unwrap()
    })
}

#[test]
fn conversions_cost_what_the_formulas_say() {
    let (mut rng, seed) = rng();
    for bits in [8, 32, 64, rng.gen_range(1..=64)] {
        let w = Width::new(bits).unwrap();
        let n = rng.gen_range(1..50);
        let exts = random_extensions(&mut rng);
        let want = cost::to_yao(w, n as u64, Scheme::HalfGates, &exts)
            + cost::to_arith(w, n as u64, Scheme::HalfGates);
        assert_eq!(
            conversions::<HalfGates>(w, n, exts.garbling),
            want.bytes,
            "seed {seed}, {w}, {n} values, {exts:?}"
        );
    }
    // Three halves packs its control bits per garbling call: to within a
    // byte per call (the adders and subtractors run level by level).
    let (w, n) = (Width::W32, 20);
    let exts = Extensions::default();
    let want =
        cost::to_yao(w, n, Scheme::ThreeHalves, &exts) + cost::to_arith(w, n, Scheme::ThreeHalves);
    let got = conversions::<ThreeHalves>(w, n as usize, exts.garbling);
    assert!(
        got >= want.bytes && got <= want.bytes + 2 * 64,
        "{got} bytes, {} by the formula",
        want.bytes
    );
}
