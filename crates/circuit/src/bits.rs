//! A fixed number of flags, one bit each: per-gate and per-wire flags of a
//! large circuit (is this value read, does this input die here) take a
//! sixty-fourth of the 32-bit step numbers they replace.

/// `len` flags, all clear at first.
pub(crate) struct Bits {
    words: Vec<u64>,
    len: usize,
}

impl Bits {
    /// `len` clear flags.
    pub(crate) fn new(len: usize) -> Bits {
        Bits {
            words: vec![0; len.div_ceil(64)],
            len,
        }
    }

    /// Number of flags.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether flag `i` is set.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> bool {
        self.words[i / 64] >> (i % 64) & 1 != 0
    }

    /// Sets flag `i`; whether it was clear.
    #[inline]
    pub(crate) fn insert(&mut self, i: usize) -> bool {
        let word = &mut self.words[i / 64];
        let bit = 1 << (i % 64);
        let clear = *word & bit == 0;
        *word |= bit;
        clear
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Flags are set one at a time, across words, and read back.
    #[test]
    fn sets_and_reads_flags() {
        let mut bits = Bits::new(200);
        for i in [0, 63, 64, 130, 199] {
            assert!(!bits.get(i));
            assert!(bits.insert(i));
            assert!(bits.get(i));
            assert!(!bits.insert(i));
        }
        let set: Vec<usize> = (0..200).filter(|&i| bits.get(i)).collect();
        assert_eq!(set, [0, 63, 64, 130, 199]);
        assert_eq!(bits.len(), 200);
        assert_eq!(Bits::new(0).len(), 0);
    }
}
