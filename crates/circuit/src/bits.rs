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

    /// Sets flags `start..end` (in range); calls `f(first, len)` on each
    /// run of them that was clear, in order. A word at a time.
    pub(crate) fn insert_range(
        &mut self,
        start: usize,
        end: usize,
        mut f: impl FnMut(usize, usize),
    ) {
        if end == start + 1 {
            // (A single flag: a block's shared or carried wire.)
            if self.insert(start) {
                f(start, 1);
            }
            return;
        }
        let mut run: Option<(usize, usize)> = None;
        let mut i = start;
        while i < end {
            let (w, lo) = (i / 64, i % 64);
            let hi = (end - w * 64).min(64);
            let clear = !self.words[w] & mask(lo, hi);
            self.words[w] |= mask(lo, hi);
            let mut rest = clear;
            while rest != 0 {
                let b = rest.trailing_zeros() as usize;
                let ones = (!(rest >> b)).trailing_zeros() as usize;
                let first = w * 64 + b;
                match &mut run {
                    Some((f0, len)) if *f0 + *len == first => *len += ones,
                    _ => {
                        if let Some((f0, len)) = run.replace((first, ones)) {
                            f(f0, len);
                        }
                    }
                }
                rest &= mask(b + ones, 64);
            }
            i = w * 64 + hi;
        }
        if let Some((f0, len)) = run {
            f(f0, len);
        }
    }

    /// Whether any of flags `start..end` (in range) is set.
    pub(crate) fn any_in_range(&self, start: usize, end: usize) -> bool {
        let mut i = start;
        while i < end {
            let (w, lo) = (i / 64, i % 64);
            let hi = (end - w * 64).min(64);
            if self.words[w] & mask(lo, hi) != 0 {
                return true;
            }
            i = w * 64 + hi;
        }
        false
    }
}

/// The bits `lo..hi` of a word (`lo <= hi <= 64`).
fn mask(lo: usize, hi: usize) -> u64 {
    let below_hi = if hi >= 64 { !0 } else { (1u64 << hi) - 1 };
    let from_lo = if lo >= 64 { 0 } else { !0u64 << lo };
    below_hi & from_lo
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

    /// Ranges set word by word report exactly the runs that were clear,
    /// and tell whether a range holds a set flag, as flag-by-flag work
    /// does.
    #[test]
    fn ranges_agree_with_single_flags() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for _ in 0..200 {
            let len = 1 + next(300);
            let (mut fast, mut slow) = (Bits::new(len), Bits::new(len));
            for _ in 0..1 + next(8) {
                let start = next(len);
                let end = start + next(len - start + 1);
                assert_eq!(
                    fast.any_in_range(start, end),
                    (start..end).any(|i| slow.get(i)),
                    "any in {start}..{end}"
                );
                let mut runs = Vec::new();
                fast.insert_range(start, end, |f, l| runs.push((f, l)));
                let mut want: Vec<(usize, usize)> = Vec::new();
                for i in start..end {
                    if slow.insert(i) {
                        match want.last_mut() {
                            Some((f, l)) if *f + *l == i => *l += 1,
                            _ => want.push((i, 1)),
                        }
                    }
                }
                assert_eq!(runs, want, "runs cleared in {start}..{end}");
                assert!((0..len).all(|i| fast.get(i) == slow.get(i)));
            }
        }
    }
}
