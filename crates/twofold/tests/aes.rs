//! `examples/aes128.c`, AES-128 written in C: FIPS-197's vectors through the
//! full two-party protocol (`run --local`, needs nothing outside the
//! repository), and the same function as the published Bristol circuit
//! (when `../shared` is there).

use std::path::PathBuf;

mod common;
use common::twofold_ok;
use rand::{Rng, SeedableRng};
use serde_json::Value;
use twofold::load::{load, LoadOptions};
use twofold_circuit::bristol::read_bristol_file;
use twofold_testkit::shared_data;

fn aes128() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/aes128.c"
    ))
}

fn bytes(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

fn initializer(bytes: &[u8]) -> String {
    let items: Vec<String> = bytes.iter().map(|b| format!("{b:#04x}")).collect();
    format!("{{{}}}", items.join(", "))
}

/// FIPS-197 Appendix B and Appendix C.1: (key, plaintext, ciphertext).
const FIPS197: [(&str, &str, &str); 2] = [
    (
        "2b7e151628aed2a6abf7158809cf4f3c",
        "3243f6a8885a308d313198a2e0370734",
        "3925841d02dc09fbdc118597196a0b32",
    ),
    (
        "000102030405060708090a0b0c0d0e0f",
        "00112233445566778899aabbccddeeff",
        "69c4e0d86a7b0430d8cdb78070b4c55a",
    ),
];

#[test]
fn fips197_vectors_through_the_two_party_protocol() {
    for (key, plaintext, ciphertext) in FIPS197 {
        let key = format!("INPUT_A_key={}", initializer(&bytes(key)));
        let plaintext = format!("INPUT_B_plaintext={}", initializer(&bytes(plaintext)));
        let out = twofold_ok(&[
            "run",
            aes128().to_str().unwrap(),
            "--local",
            "--json",
            "-i",
            &key,
            "-i",
            &plaintext,
        ]);
        let report: Value = serde_json::from_str(&out).unwrap();
        let got: Vec<u8> = report["outputs"]["OUTPUT_ciphertext"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as u8)
            .collect();
        assert_eq!(got, bytes(ciphertext), "{key}");
        // A compact S-box: 36 AND gates each, 200 of them.
        assert_eq!(report["and_gates"], 7200);
    }
}

/// The bits of 16 bytes as `examples/aes128.c` takes them (byte 0 first, each
/// least significant bit first) and as the published `aes_128.txt` does (the
/// bytes as one big-endian integer, least significant bit first: byte 15
/// first).
fn c_bits(bytes: &[u8]) -> Vec<bool> {
    bytes
        .iter()
        .flat_map(|b| (0..8).map(move |k| (b >> k) & 1 == 1))
        .collect()
}

fn bristol_bits(bytes: &[u8]) -> Vec<bool> {
    let reversed: Vec<u8> = bytes.iter().rev().copied().collect();
    c_bits(&reversed)
}

#[test]
fn same_function_as_the_published_bristol_circuit() {
    let Some(data) = shared_data() else { return };
    let bristol = read_bristol_file(&data.join("bristol/aes_128.txt")).unwrap();
    let c = load(&aes128(), &LoadOptions::default())
        .unwrap()
        .into_garbled()
        .unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(197);
    for _ in 0..64 {
        let key: [u8; 16] = rng.gen();
        let plaintext: [u8; 16] = rng.gen();
        let ours = c.eval(&[c_bits(&key), c_bits(&plaintext)]).unwrap();
        let theirs = bristol
            .eval(&[bristol_bits(&key), bristol_bits(&plaintext)])
            .unwrap();
        // The published circuit's ciphertext is big-endian too.
        let flipped: Vec<bool> = theirs[0].chunks(8).rev().flatten().copied().collect();
        assert_eq!(ours[0], flipped, "key {key:02x?}");
    }
}
