//! Every available AES backend against the portable one.

use proptest::prelude::*;
use twofold_crypto::{Aes128, Backend, Block, Tccr, FIXED_KEY};

fn blocks(v: &[u128]) -> Vec<Block> {
    v.iter().map(|&x| Block(x)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn aes_backends_agree(key in any::<u128>(), data in prop::collection::vec(any::<u128>(), 0..300)) {
        let reference = Aes128::with_backend(Block(key), Backend::Portable).unwrap();
        let mut expect = blocks(&data);
        reference.encrypt_blocks(&mut expect);
        for backend in Backend::available() {
            let aes = Aes128::with_backend(Block(key), backend).unwrap();
            let mut got = blocks(&data);
            aes.encrypt_blocks(&mut got);
            prop_assert_eq!(&got, &expect, "{}", backend);
        }
    }

    #[test]
    fn tccr_backends_agree_with_definition(
        data in prop::collection::vec((any::<u128>(), any::<u128>()), 0..300),
    ) {
        let pi = Aes128::with_backend(FIXED_KEY, Backend::Portable).unwrap();
        let tweaks: Vec<Block> = data.iter().map(|&(_, t)| Block(t)).collect();
        let expect: Vec<Block> = data
            .iter()
            .map(|&(x, t)| {
                let px = pi.encrypt_block(Block(x));
                pi.encrypt_block(px ^ Block(t)) ^ px
            })
            .collect();
        for backend in Backend::available() {
            let h = Tccr::with_backend(backend).unwrap();
            let mut got: Vec<Block> = data.iter().map(|&(x, _)| Block(x)).collect();
            h.hash_in_place(&mut got, &tweaks).unwrap();
            prop_assert_eq!(&got, &expect, "{}", backend);
        }
    }
}

#[test]
fn detected_backends_are_reported() {
    let available = Backend::available();
    assert_eq!(available[0], Backend::Portable);
    assert_eq!(*available.last().unwrap(), Backend::best());
    // On x86-64 with AES-NI the hardware path must actually be exercised.
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("aes") {
        assert!(available.contains(&Backend::AesNi));
    }
}
