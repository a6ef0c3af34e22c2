//! The two-party arithmetic protocol, both parties in one process over a
//! socketpair: every product, triple, dot product and bit injection on
//! random values of random widths reconstructs to the wrapping plaintext,
//! and a 32-bit product moves no more than the textbook bytes.

mod common;

use common::pair;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use twofold_circuit::Party;
use twofold_net::Channel;
use twofold_ot::Extension;
use twofold_protocol::arith::{Arith, Cross, Factor, Width};

/// Runs party A's `a` and party B's `b`, each in its own thread with an
/// [`Arith`] set up over its end of a fresh pair; returns their results.
fn both<RA: Send, RB: Send>(
    a: impl FnOnce(&mut Arith, &mut Channel) -> RA + Send,
    b: impl FnOnce(&mut Arith, &mut Channel) -> RB + Send,
) -> (RA, RB) {
    both_on((1, 1), a, b)
}

/// [`both`], A's products computed on `threads.0` threads and B's on
/// `threads.1`.
fn both_on<RA: Send, RB: Send>(
    threads: (usize, usize),
    a: impl FnOnce(&mut Arith, &mut Channel) -> RA + Send,
    b: impl FnOnce(&mut Arith, &mut Channel) -> RB + Send,
) -> (RA, RB) {
    let (mut ca, mut cb) = pair();
    std::thread::scope(|s| {
        let hb = s.spawn(move || {
            let mut arith = Arith::setup(&mut cb, Party::B, b"arith test").unwrap();
            arith.set_threads(threads.1);
            b(&mut arith, &mut cb)
        });
        let mut arith = Arith::setup(&mut ca, Party::A, b"arith test").unwrap();
        arith.set_threads(threads.0);
        let ra = a(&mut arith, &mut ca);
        (ra, hb.join().unwrap())
    })
}

/// A random generator whose seed is printed, to replay a failure.
fn rng() -> (StdRng, u64) {
    let seed: u64 = rand::thread_rng().gen();
    (StdRng::seed_from_u64(seed), seed)
}

fn words(rng: &mut StdRng, width: Width, n: usize) -> Vec<u64> {
    (0..n).map(|_| width.reduce(rng.gen())).collect()
}

fn vectors(rng: &mut StdRng, width: Width, lens: &[usize]) -> Vec<Vec<u64>> {
    lens.iter().map(|&n| words(rng, width, n)).collect()
}

/// Bytes both ends of `chan` moved so far (each byte counted once).
fn moved(chan: &Channel) -> u64 {
    chan.bytes_sent() + chan.bytes_received()
}

#[test]
fn cross_products_in_both_directions_reconstruct_to_the_plaintext() {
    let (mut rng, seed) = rng();
    let widths = [8, 16, 32, 64, rng.gen_range(1..64)].map(|b| Width::new(b).unwrap());
    let cases: Vec<_> = widths
        .iter()
        .map(|&width| {
            let a_lens: Vec<usize> = (0..rng.gen_range(0..6))
                .map(|_| rng.gen_range(0..5))
                .collect();
            let b_lens: Vec<usize> = (0..rng.gen_range(1..6))
                .map(|_| rng.gen_range(0..5))
                .collect();
            let a_vectors = vectors(&mut rng, width, &a_lens);
            let b_vectors = vectors(&mut rng, width, &b_lens);
            let a_scalars = words(&mut rng, width, b_lens.len());
            let b_scalars = words(&mut rng, width, a_lens.len());
            (width, a_vectors, a_scalars, b_vectors, b_scalars)
        })
        .collect();
    let lens = |v: &Vec<Vec<u64>>| v.iter().map(Vec::len).collect::<Vec<_>>();
    let (sa, sb) = both(
        |arith, chan| {
            let cases = cases.iter().map(|(width, av, as_, bv, _)| {
                let layer = Cross {
                    vectors: av,
                    scalars: as_,
                    peer_lens: &lens(bv),
                };
                arith.cross(chan, *width, layer).unwrap()
            });
            cases.collect::<Vec<_>>()
        },
        |arith, chan| {
            let cases = cases.iter().map(|(width, av, _, bv, bs)| {
                let layer = Cross {
                    vectors: bv,
                    scalars: bs,
                    peer_lens: &lens(av),
                };
                arith.cross(chan, *width, layer).unwrap()
            });
            cases.collect::<Vec<_>>()
        },
    );
    for ((case, a), b) in cases.iter().zip(&sa).zip(&sb) {
        let (width, av, as_, bv, bs) = case;
        let w = *width;
        for (g, x) in av.iter().enumerate() {
            for (k, &xk) in x.iter().enumerate() {
                let z = w.add(a.vectors[g][k], b.scalars[g][k]);
                assert_eq!(z, w.mul(xk, bs[g]), "seed {seed}, {w}, A's vector {g}[{k}]");
            }
        }
        for (g, x) in bv.iter().enumerate() {
            for (k, &xk) in x.iter().enumerate() {
                let z = w.add(b.vectors[g][k], a.scalars[g][k]);
                assert_eq!(
                    z,
                    w.mul(xk, as_[g]),
                    "seed {seed}, {w}, B's vector {g}[{k}]"
                );
            }
        }
    }
}

/// A layer whose corrections run to several chunks (a megabyte each),
/// vectors long enough that one is cut between chunks, computed on one
/// thread or several, each party its own number: the products reconstruct,
/// and the bytes are the same whatever the threads.
#[test]
fn a_layer_of_many_chunks_reconstructs_on_any_threads() {
    let (mut rng, seed) = rng();
    for bits in [32, 13, 64] {
        let w = Width::new(bits).unwrap();
        let mut lens: Vec<usize> = (0..3000).map(|_| rng.gen_range(0..3)).collect();
        lens.splice(1000..1000, [40_000 * 64 / bits as usize, 1, 25_001]);
        let x = vectors(&mut rng, w, &lens);
        let y = words(&mut rng, w, lens.len());
        let mut moved_by = Vec::new();
        for threads in [(1, 1), (3, 2)] {
            let ((za, bytes), zb) = both_on(
                threads,
                |arith, chan| {
                    let layer = Cross {
                        vectors: &x,
                        ..Cross::default()
                    };
                    let z = arith.cross(chan, w, layer).unwrap().vectors;
                    (z, moved(chan))
                },
                |arith, chan| {
                    let layer = Cross {
                        scalars: &y,
                        peer_lens: &lens,
                        ..Cross::default()
                    };
                    arith.cross(chan, w, layer).unwrap().scalars
                },
            );
            for (g, xg) in x.iter().enumerate() {
                for (k, &xk) in xg.iter().enumerate() {
                    assert_eq!(
                        w.add(za[g][k], zb[g][k]),
                        w.mul(xk, y[g]),
                        "seed {seed}, {w}, threads {threads:?}, vector {g}[{k}]"
                    );
                }
            }
            moved_by.push(bytes);
        }
        assert!(
            moved_by[0] > 2 << 20,
            "{} bytes: several chunks",
            moved_by[0]
        );
        assert_eq!(moved_by[0], moved_by[1], "{w}");
    }
}

#[test]
fn a_32_bit_product_moves_no_more_than_the_textbook_bytes() {
    // Gilboa: (κ' + ℓ)·ℓ bits per product, κ' the OT extension's bits per
    // OT (128 with IKNP: 640 bytes at ℓ = 32; 32 with SoftSpoken at k = 4:
    // 256 bytes); ours sends ℓ·κ' bits of OT lines and ℓ(ℓ+1)/2 bits of
    // corrections (578 bytes with IKNP, 194 with SoftSpoken).
    let kappa = Extension::DEFAULT.lines() as f64;
    let (textbook, needed) = ((kappa + 32.0) * 32.0 / 8.0, (32.0 * kappa + 528.0) / 8.0);
    const PRODUCTS: usize = 2048;
    let (mut rng, seed) = rng();
    let w = Width::W32;
    let x = words(&mut rng, w, PRODUCTS);
    let y = words(&mut rng, w, PRODUCTS);
    let xs: Vec<Vec<u64>> = x.iter().map(|&x| vec![x]).collect();
    let ((za, bytes, flights), zb) = both(
        |arith, chan| {
            let (before, flights) = (moved(chan), arith.flights());
            let layer = Cross {
                vectors: &xs,
                ..Cross::default()
            };
            let z = arith.cross(chan, w, layer).unwrap().vectors;
            (z, moved(chan) - before, arith.flights() - flights)
        },
        |arith, chan| {
            let ones = vec![1; PRODUCTS];
            let layer = Cross {
                scalars: &y,
                peer_lens: &ones,
                ..Cross::default()
            };
            arith.cross(chan, w, layer).unwrap().scalars
        },
    );
    for i in 0..PRODUCTS {
        assert_eq!(
            w.add(za[i][0], zb[i][0]),
            w.mul(x[i], y[i]),
            "seed {seed}, product {i}"
        );
    }
    let per_product = bytes as f64 / PRODUCTS as f64;
    println!("32-bit Gilboa product: {per_product:.1} bytes, {flights} messages a layer");
    assert!(per_product <= textbook, "{per_product} bytes per product");
    assert!(
        per_product >= needed,
        "{per_product} bytes per product: less than the OTs need"
    );
    assert_eq!(flights, 2);
}

#[test]
fn a_matrix_product_of_two_parties_matrices_reconstructs() {
    let (mut rng, seed) = rng();
    for (holder, bits) in [(Party::A, 32), (Party::B, rng.gen_range(1..=64))] {
        let w = Width::new(bits).unwrap();
        let (n, m, p) = (
            rng.gen_range(1..6),
            rng.gen_range(1..6),
            rng.gen_range(1..6),
        );
        let x = words(&mut rng, w, n * m);
        let y = words(&mut rng, w, m * p);
        let (left, right) = (Factor::Left(&x), Factor::Right(&y));
        let (mine_a, mine_b) = if holder == Party::A {
            (left, right)
        } else {
            (right, left)
        };
        let (za, zb) = both(
            |arith, chan| arith.matmul(chan, w, (n, m, p), mine_a).unwrap(),
            |arith, chan| arith.matmul(chan, w, (n, m, p), mine_b).unwrap(),
        );
        for i in 0..n {
            for j in 0..p {
                let row: Vec<u64> = (0..m).map(|k| x[i * m + k]).collect();
                let col: Vec<u64> = (0..m).map(|k| y[k * p + j]).collect();
                let got = w.add(za[i * p + j], zb[i * p + j]);
                assert_eq!(
                    got,
                    w.dot(&row, &col),
                    "seed {seed}, {w}, X from {holder}, Z[{i}][{j}]"
                );
            }
        }
    }
}

#[test]
fn shared_products_run_a_layer_per_depth_on_beaver_triples() {
    let (mut rng, seed) = rng();
    let w = Width::new([8, 16, 32, 64][rng.gen_range(0..4)]).unwrap();
    // A product chain of depth 3 over 5 lanes: ((x0·x1)·x2)·x3, each value
    // split at random between the parties.
    const LANES: usize = 5;
    let values: Vec<Vec<u64>> = (0..4).map(|_| words(&mut rng, w, LANES)).collect();
    let a_shares: Vec<Vec<u64>> = (0..4).map(|_| words(&mut rng, w, LANES)).collect();
    let b_shares: Vec<Vec<u64>> = values
        .iter()
        .zip(&a_shares)
        .map(|(v, a)| v.iter().zip(a).map(|(&v, &a)| w.sub(v, a)).collect())
        .collect();
    let chain = |arith: &mut Arith, chan: &mut Channel, shares: &[Vec<u64>]| {
        let mut triples = arith.triples(chan, w, 3 * LANES).unwrap();
        // Each triple's c is a·b: open a few and check.
        let start = arith.flights();
        let mut acc = shares[0].clone();
        for factor in &shares[1..] {
            acc = arith.mul(chan, w, &acc, factor, &mut triples).unwrap();
        }
        assert!(triples.is_empty());
        let flights = arith.flights() - start;
        (arith.open(chan, w, &acc).unwrap(), flights)
    };
    let ((za, flights), (zb, _)) = both(
        |arith, chan| chain(arith, chan, &a_shares),
        |arith, chan| chain(arith, chan, &b_shares),
    );
    assert_eq!(za, zb);
    for lane in 0..LANES {
        let want = (0..4).fold(1, |acc, k| w.mul(acc, values[k][lane]));
        assert_eq!(za[lane], want, "seed {seed}, {w}, lane {lane}");
    }
    // Two messages a layer of depth, whatever the number of lanes.
    assert_eq!(flights, 3 * 2);
}

#[test]
fn dot_products_of_shared_vectors_and_one_party_openings() {
    let (mut rng, seed) = rng();
    let w = Width::W32;
    let lens: Vec<usize> = (0..4).map(|_| rng.gen_range(1..20)).collect();
    let xs = vectors(&mut rng, w, &lens);
    let ys = vectors(&mut rng, w, &lens);
    let split = |rng: &mut StdRng, v: &[Vec<u64>]| -> (Vec<Vec<u64>>, Vec<Vec<u64>>) {
        let a: Vec<Vec<u64>> = v.iter().map(|v| words(rng, w, v.len())).collect();
        let b = v
            .iter()
            .zip(&a)
            .map(|(v, a)| v.iter().zip(a).map(|(&v, &a)| w.sub(v, a)).collect())
            .collect();
        (a, b)
    };
    let ((xa, xb), (ya, yb)) = (split(&mut rng, &xs), split(&mut rng, &ys));
    let terms: usize = lens.iter().sum();
    let run = |arith: &mut Arith, chan: &mut Channel, x: Vec<Vec<u64>>, y: Vec<Vec<u64>>| {
        let mut triples = arith.triples(chan, w, terms).unwrap();
        let pairs: Vec<_> = x.into_iter().zip(y).collect();
        let dots = arith.dot(chan, w, &pairs, &mut triples).unwrap();
        assert_eq!(dots.len(), pairs.len(), "one share per result");
        arith.open_to(chan, w, &dots, Party::B).unwrap()
    };
    let (to_a, to_b) = both(|a, c| run(a, c, xa, ya), |a, c| run(a, c, xb, yb));
    assert_eq!(to_a, None);
    let want: Vec<u64> = xs.iter().zip(&ys).map(|(x, y)| w.dot(x, y)).collect();
    assert_eq!(to_b.unwrap(), want, "seed {seed}");
}

#[test]
fn injected_bits_become_additive_shares_of_the_bits() {
    let (mut rng, seed) = rng();
    let w = Width::new(rng.gen_range(2..=64)).unwrap();
    let a_bits: Vec<bool> = (0..100).map(|_| rng.gen()).collect();
    let b_bits: Vec<bool> = (0..100).map(|_| rng.gen()).collect();
    let (sa, sb) = both(
        |arith, chan| arith.inject_bits(chan, w, &a_bits).unwrap(),
        |arith, chan| arith.inject_bits(chan, w, &b_bits).unwrap(),
    );
    for i in 0..a_bits.len() {
        let want = (a_bits[i] ^ b_bits[i]) as u64;
        assert_eq!(w.add(sa[i], sb[i]), want, "seed {seed}, {w}, bit {i}");
    }
}

#[test]
fn layers_of_different_shapes_end_in_errors_on_both_sides() {
    // A multiplies three vectors, B brings scalars for two: A's OT count
    // check fails, and B sees A leave, instead of either waiting forever.
    let w = Width::W16;
    let (ra, rb) = both(
        |arith, chan| {
            let vectors = vec![vec![1], vec![2], vec![3]];
            let layer = Cross {
                vectors: &vectors,
                ..Cross::default()
            };
            let result = arith.cross(chan, w, layer);
            drop(std::mem::replace(chan, pair().0));
            result
        },
        |arith, chan| {
            let layer = Cross {
                scalars: &[4, 5],
                peer_lens: &[1, 1],
                ..Cross::default()
            };
            arith.cross(chan, w, layer)
        },
    );
    let (ea, eb) = (ra.unwrap_err().to_string(), rb.unwrap_err().to_string());
    assert!(ea.contains("count mismatch"), "{ea}");
    assert!(eb.contains("closed the connection"), "{eb}");
}
