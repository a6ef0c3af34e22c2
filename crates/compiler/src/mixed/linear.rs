//! Linear combinations in the partition: a sum lowering reduced with no
//! product of two secret words (`t = a - b`) is, to a product that reads
//! its bits, the combination `Σ c·x mod 2^w` of its operands — computed
//! locally from shares when every operand is a constant, an input slice or
//! an arithmetic sum, instead of converted from the bits of its Boolean
//! circuit (Y→A). A product of combinations may be multiplied out when that
//! makes fewer products between the parties: `(a − b)²` with `a` A's and
//! `b` B's is `a² + b² − 2ab`, two local squares and one cross product,
//! where `(a − b)·(a − b)` is a product of two shared words (a Beaver
//! triple, about two cross products and an opening).

use std::cell::Cell;

use rustc_hash::FxHashMap as HashMap;

use super::partition::Operand;

/// Who holds shares of a word: bit 0 party A, bit 1 party B (0: public).
pub(super) type Holders = u8;

/// Both parties.
pub(super) const SHARED: Holders = 3;

impl Operand {
    /// The operands a combination reads (its leaves), or the operand itself.
    pub(super) fn leaves(&self) -> impl Iterator<Item = &Operand> {
        let (one, many) = match self {
            Operand::Linear(terms) => (None, terms.as_slice()),
            x => (Some(x), &[][..]),
        };
        one.into_iter().chain(many.iter().map(|(x, _)| x))
    }

    /// The combination's terms, or the operand once.
    fn terms(&self) -> Vec<(Operand, u64)> {
        match self {
            Operand::Linear(terms) => terms.clone(),
            x => vec![(x.clone(), 1)],
        }
    }
}

/// Terms collected with their coefficients modulo `2^w` (`mask`): equal
/// operands merged, constants folded into one, zeros dropped, in the order
/// they first came (so both parties build the same program).
struct Collect {
    mask: u64,
    terms: Vec<(Operand, u64)>,
    at: HashMap<Operand, usize>,
    constant: u64,
}

impl Collect {
    fn new(mask: u64) -> Collect {
        Collect {
            mask,
            terms: Vec::new(),
            at: HashMap::default(),
            constant: 0,
        }
    }

    /// Adds `c·x`, a combination's terms one by one.
    fn add(&mut self, x: &Operand, c: u64) {
        for (leaf, d) in x.terms() {
            let c = c.wrapping_mul(d) & self.mask;
            if let Operand::Const(v) = leaf {
                self.constant = self.constant.wrapping_add(c.wrapping_mul(v)) & self.mask;
                continue;
            }
            match self.at.get(&leaf) {
                Some(&i) => self.terms[i].1 = self.terms[i].1.wrapping_add(c) & self.mask,
                None => {
                    self.at.insert(leaf.clone(), self.terms.len());
                    self.terms.push((leaf, c));
                }
            }
        }
    }

    fn finish(mut self) -> Vec<(Operand, u64)> {
        self.terms.retain(|&(_, c)| c != 0);
        if self.constant != 0 {
            self.terms.push((Operand::Const(self.constant), 1));
        }
        self.terms
    }
}

/// The words `Σ c·x` of a sum with combinations among them multiplied out
/// (their terms merged), modulo `2^w` (`mask`).
pub(super) fn flatten(words: &[(Operand, u64)], mask: u64) -> Vec<(Operand, u64)> {
    let mut all = Collect::new(mask);
    for (x, c) in words {
        all.add(x, *c);
    }
    all.finish()
}

/// Terms the combinations of a program's linear sums may hold together,
/// beyond [`FREE_TERMS`] each. Each linear sum holds its combination,
/// multiplied out: a chain of sums, each a term of the next with a term of
/// its own (`t = (int16_t)(t + (y ^ i))` over many iterations, where each
/// `y ^ i` is a word of its own), held combinations that grew by a term a
/// link (4.8 GB compiling 5,000 links, out of memory at 20,000). Past the
/// budget, a longer combination's bits are converted instead.
pub(super) const COMBINATION_BUDGET: usize = 1 << 18;

/// Terms a combination may have without drawing on the budget.
const FREE_TERMS: usize = 64;

/// The operand a linear sum's bits stand for: the combination of its
/// words, unless one is gathered from a Boolean phase (then its bits are
/// converted, one conversion rather than one per gathered word) or it has
/// more than [`FREE_TERMS`] terms and `budget` (terms left, see
/// [`COMBINATION_BUDGET`]) has fewer (converted too).
pub(super) fn combination(
    words: &[(Operand, u64)],
    mask: u64,
    budget: &Cell<usize>,
) -> Option<Operand> {
    let terms = flatten(words, mask);
    if terms.iter().any(|(x, _)| matches!(x, Operand::Gathered(_))) {
        return None;
    }
    if terms.len() > FREE_TERMS {
        budget.set(budget.get().checked_sub(terms.len())?);
    }
    Some(match terms.as_slice() {
        [] => Operand::Const(0),
        [(x, 1)] => x.clone(),
        _ => Operand::Linear(terms),
    })
}

/// What a product of words of holders `x` and `y` costs between the
/// parties: 0 local (a public factor, or one party holds both), 1 a cross
/// product, 2 a product of two shared words (its triple is about two cross
/// products).
fn cost(x: Holders, y: Holders) -> u32 {
    if x == 0 || y == 0 || (x | y).count_ones() == 1 {
        0
    } else if x == SHARED && y == SHARED {
        2
    } else {
        1
    }
}

/// The most products a product of two combinations is multiplied out
/// into (to see what that costs); a larger one is kept whole. Multiplying
/// out pays where terms cancel (`(a + b)(a - b)`), which larger products
/// of combinations hardly do, and a party's own sum of 3,000 terms
/// squared took 4.5 million products to weigh (1.2 GB).
const MAX_EXPANDED: usize = 1 << 12;

/// A sum's products `c·x·y` and words `c·z` with combinations multiplied
/// out where that costs less between the parties (or as much, into one
/// product), given each operand's holders; the product of a combination
/// kept whole reads it as one word.
pub(super) fn expand(
    pairs: Vec<(Operand, Operand, u64)>,
    words: &mut Vec<(Operand, u64)>,
    mask: u64,
    holders: impl Fn(&Operand) -> Holders,
) -> Vec<(Operand, Operand, u64)> {
    let whole = |x: &Operand| x.leaves().fold(0, |h, l| h | holders(l));
    let mut out: Vec<(Operand, Operand, u64)> = Vec::new();
    let mut at: HashMap<(Operand, Operand), usize> = HashMap::default();
    for (x, y, c) in pairs {
        if !matches!(x, Operand::Linear(_)) && !matches!(y, Operand::Linear(_)) {
            out.push((x, y, c));
            continue;
        }
        let (x_terms, y_terms) = (x.terms(), y.terms());
        if x_terms.len() * y_terms.len() > MAX_EXPANDED {
            out.push((x, y, c));
            continue;
        }
        let mut terms: Vec<(Operand, Operand, u64)> = Vec::new();
        let mut term_at: HashMap<(Operand, Operand), usize> = HashMap::default();
        let mut linear = Vec::new();
        for (xi, ci) in x_terms {
            for (yj, dj) in y_terms.iter().cloned() {
                let k = c.wrapping_mul(ci).wrapping_mul(dj) & mask;
                match (&xi, &yj) {
                    (Operand::Const(v), z) | (z, Operand::Const(v)) => {
                        linear.push((z.clone(), k.wrapping_mul(*v) & mask))
                    }
                    _ => merge(&mut terms, &mut term_at, xi.clone(), yj.clone(), k, mask),
                }
            }
        }
        let expanded: u32 = terms
            .iter()
            .filter(|t| t.2 != 0)
            .map(|(a, b, _)| cost(holders(a), holders(b)))
            .sum();
        // (At the same cost, the fewer products: a party's own sum of
        // 3,000 terms squared is one local product, not 4.5 million.)
        let whole_cost = cost(whole(&x), whole(&y));
        if expanded < whole_cost || (expanded == whole_cost && terms.len() <= 1) {
            for (a, b, k) in terms {
                merge(&mut out, &mut at, a, b, k, mask);
            }
            words.extend(linear);
        } else {
            out.push((x, y, c));
        }
    }
    out.retain(|t| t.2 != 0);
    out
}

/// Adds `k·a·b` to `terms`, into an earlier `a·b` or `b·a` if there is one.
fn merge(
    terms: &mut Vec<(Operand, Operand, u64)>,
    at: &mut HashMap<(Operand, Operand), usize>,
    a: Operand,
    b: Operand,
    k: u64,
    mask: u64,
) {
    let found = at
        .get(&(a.clone(), b.clone()))
        .or_else(|| at.get(&(b.clone(), a.clone())))
        .copied();
    match found {
        Some(i) => terms[i].2 = terms[i].2.wrapping_add(k) & mask,
        None => {
            at.insert((a.clone(), b.clone()), terms.len());
            terms.push((a, b, k));
        }
    }
}
