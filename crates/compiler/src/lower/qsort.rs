//! `<stdlib.h>`'s `qsort` over a public number of elements: a
//! data-oblivious sorting network (Batcher's odd-even merge sort), whose
//! every compare-swap calls the comparator on the two elements and swaps
//! them when it returns more than 0. The network is not stable, nor is
//! C's `qsort`: the order of elements the comparator finds equal may
//! differ from a C library's.

use super::*;

/// The compare-swaps of Batcher's odd-even merge sort of `n` elements, in
/// order: each pair `(i, j)`, `i < j`, puts the lesser first. (The network
/// for the next power of two, without the compare-swaps that reach past
/// `n`: elements there would be greater than all others and never move.)
pub(crate) fn odd_even_merge_sort(n: usize) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    let mut p = 1;
    while p < n {
        let mut k = p;
        while k >= 1 {
            let mut j = k % p;
            while j + k < n {
                for i in 0..k.min(n - j - k) {
                    if (i + j) / (2 * p) == (i + j + k) / (2 * p) {
                        pairs.push((i + j, i + j + k));
                    }
                }
                j += 2 * k;
            }
            k /= 2;
        }
        p *= 2;
    }
    pairs
}

impl<'p> Lower<'p> {
    /// `qsort(base, n, size, cmp)`: `base` must point to the elements'
    /// type (twofold lays them out by it), `n` and `size` be known while
    /// compiling.
    pub(super) fn qsort_builtin(&mut self, args: &[Expr], loc: Loc) -> DResult<Val> {
        let [base, count, size, cmp] = args else {
            return err(loc, "'qsort' takes 4 arguments");
        };
        let elem = match self.static_type(base)? {
            CType::Array(t, _) | CType::Pointer(t) if *t != CType::Void => Arc::unwrap_or_clone(t),
            _ => {
                return err(
                    base.loc,
                    "qsort's first argument must be an array or a pointer to its elements' type \
                     (not a void pointer): twofold lays the elements out by their type",
                )
            }
        };
        let Val::Ptr(_, at) = self.eval(base)? else {
            return err(base.loc, "qsort's first argument is not a pointer");
        };
        if at.obj == usize::MAX || !at.sec.is_empty() {
            return err(
                base.loc,
                "qsort needs a pointer with a public offset into an object",
            );
        }
        let n = self.public_size(count, "number of elements")?;
        let bytes = self.public_size(size, "element size")?;
        if bytes != elem.size() as i128 {
            return err(
                size.loc,
                format!(
                    "qsort's element size {bytes} is not the size of {} ({})",
                    elem.name(),
                    elem.size()
                ),
            );
        }
        let compare = self.eval(cmp)?;
        let leaves = elem.leaves() as i64;
        let end = at.leaf + n as i64 * leaves;
        if at.leaf < 0 || end > self.objs[at.obj].slots.len() as i64 {
            return err(base.loc, "qsort's elements go past the end of the object");
        }
        for (i, j) in odd_even_merge_sort(n as usize) {
            let first = at.leaf + i as i64 * leaves;
            let second = at.leaf + j as i64 * leaves;
            let pointer = |leaf| {
                (
                    Val::Ptr(elem.clone(), Ptr::new(at.obj, leaf, Vec::new())),
                    loc,
                )
            };
            let vals = vec![pointer(first), pointer(second)];
            let order = self.call_through(compare.clone(), vals, cmp.loc, loc)?;
            let greater = self.binop(BinOp::Gt, order, Self::int(0, Scalar::INT), loc)?;
            let swap = self.truth(greater, loc)?;
            for k in 0..leaves {
                let (a, b) = ((first + k) as usize, (second + k) as usize);
                let (x, y) = (self.slot(at.obj, a), self.slot(at.obj, b));
                let lesser = self.merge_slot(swap, &y, &x, loc)?;
                let larger = self.merge_slot(swap, &x, &y, loc)?;
                self.write_slot(at.obj, a, lesser);
                self.write_slot(at.obj, b, larger);
            }
        }
        Ok(Val::Void)
    }

    /// The value of `e`, a count of qsort's (`what`) that must be known
    /// while compiling and not negative.
    fn public_size(&mut self, e: &Expr, what: &str) -> DResult<i128> {
        match self.eval(e)? {
            Val::Int(s, Word::Const { v, .. }) if !s.float && s.to_i128(v) >= 0 => Ok(s.to_i128(v)),
            _ => err(
                e.loc,
                format!("qsort's {what} must be known at compile time (and not negative)"),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::odd_even_merge_sort;

    /// The network sorts every sequence of 0s and 1s of each length up to
    /// 12 (so, by the 0-1 principle, every sequence).
    #[test]
    fn odd_even_merge_sort_sorts_every_zero_one_sequence() {
        for n in 0..=12 {
            let pairs = odd_even_merge_sort(n);
            assert!(pairs.iter().all(|&(i, j)| i < j && j < n));
            for bits in 0..1u32 << n {
                let mut v: Vec<u32> = (0..n).map(|k| bits >> k & 1).collect();
                for &(i, j) in &pairs {
                    if v[i] > v[j] {
                        v.swap(i, j);
                    }
                }
                assert!(v.windows(2).all(|w| w[0] <= w[1]), "n = {n}, {bits:b}");
            }
        }
    }
}
