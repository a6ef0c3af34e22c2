//! The Bristol examples shipped in `examples/` are what they say they are.

use rand::{Rng, SeedableRng};
use twofold_circuit::bristol::{read_bristol, write_bristol};
use twofold_circuit::value::{parse_int, to_hex};
use twofold_circuit::{Bit, Builder, Party};

/// Yao's millionaires: 1 if A's 32-bit unsigned wealth exceeds B's. One AND
/// per bit: the borrow of `b - a` is `MAJ(!b_i, a_i, borrow)`.
fn millionaires() -> String {
    let mut bld = Builder::new();
    let a = bld.input("a", Party::A, 32);
    let b = bld.input("b", Party::B, 32);
    let mut borrow = Bit::Const(false);
    for (&x, &y) in b.iter().zip(&a) {
        let nx = bld.not(x);
        let p = bld.xor(nx, borrow);
        let q = bld.xor(y, borrow);
        let t = bld.and(p, q);
        borrow = bld.xor(borrow, t);
    }
    bld.output("richer", &[borrow]);
    let mut text = Vec::new();
    write_bristol(&bld.finish().unwrap(), &mut text).unwrap();
    String::from_utf8(text).unwrap()
}

#[test]
fn millionaires_example_is_the_comparator() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/millionaires.txt"
    );
    let generated = millionaires();
    if std::env::var_os("TWOFOLD_BLESS").is_some() {
        std::fs::write(path, &generated).unwrap();
    }
    let shipped = std::fs::read_to_string(path).expect("examples/millionaires.txt");
    assert_eq!(shipped, generated, "regenerate with TWOFOLD_BLESS=1");
    let circuit = read_bristol(&shipped, "millionaires.txt").unwrap();
    assert_eq!(circuit.and_count(), 32);
    let mut rng = rand::rngs::StdRng::seed_from_u64(8);
    for _ in 0..500 {
        let (a, b): (u32, u32) = if rng.gen() {
            (rng.gen(), rng.gen())
        } else {
            let x = rng.gen();
            (x, x)
        };
        let out = circuit
            .eval(&[
                parse_int(&a.to_string(), 32).unwrap(),
                parse_int(&b.to_string(), 32).unwrap(),
            ])
            .unwrap();
        assert_eq!(
            to_hex(&out[0]),
            if a > b { "0x1" } else { "0x0" },
            "{a} > {b}"
        );
    }
}
