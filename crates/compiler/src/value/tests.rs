//! Unit tests of words and slots.

use super::*;

/// A word of wires `first..first + n`, in its natural range.
fn wires(first: u32, n: u32) -> Word {
    Word::from_bits((first..first + n).map(Bit::Wire).collect())
}

#[test]
fn remapping_bits_in_place_leaves_a_shared_copy_alone_and_folds_constants() {
    let shared = Slot::Val(wires(10, 4));
    let mut slot = shared.clone();
    slot.remap_bits(&mut |b| match b {
        Bit::Wire(w) => Bit::Wire(w + 100),
        c => c,
    });
    assert_eq!(slot, Slot::Val(wires(110, 4)));
    assert_eq!(
        shared,
        Slot::Val(wires(10, 4)),
        "the copy it shared bits with"
    );
    // Bits that all become constants fold to a public value.
    slot.remap_bits(&mut |b| match b {
        Bit::Wire(w) => Bit::Const(w % 2 == 1),
        c => c,
    });
    assert_eq!(slot, Slot::Val(Word::konst(0b1010, 4)));
}

#[test]
fn wide_constants_are_their_bits() {
    assert_eq!(Word::konst_wide(-3, 32), Word::konst(-3i64 as u64, 32));
    let mut b = Builder::new();
    let minus_one = Word::konst_wide(-1, 128).bits(&mut b);
    assert_eq!(minus_one, vec![Bit::Const(true); 128]);
    let high = Word::konst_wide(1 << 100, 128).bits(&mut b);
    assert!((0..128).all(|i| high[i] == Bit::Const(i == 100)));
}
