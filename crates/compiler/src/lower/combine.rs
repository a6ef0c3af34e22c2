//! Combining a region's partials once its loop is lowered: a sum's rows
//! all together (carry-save), any other operator with a balanced tree.
//!
//! Outside probes, a level of the tree with many pairs is one parallel
//! block whose instance combines one pair (a compare-select for a maximum),
//! not a copy of that circuit per pair in the frame: a running maximum of
//! 65,536 values made 65,535 compare-selects of main-circuit gates, which
//! took longer to compile and prepare than the sequential loop took in
//! all.

use super::region::Red;
use super::*;
use crate::gates::Range;
use crate::regions::RedOp;
use twofold_circuit::{PendingBlock, Segment, Wiring};

/// A level of a combining tree with at least this many pairs is a block.
const MIN_BLOCK_PAIRS: usize = 64;

impl<'p> Lower<'p> {
    /// Combines the partials of each reduction with a balanced tree and
    /// assigns the result.
    pub(super) fn combine(
        &mut self,
        reds: &[Red],
        partials: Vec<Vec<Word>>,
        loc: Loc,
    ) -> DResult<()> {
        for (r, parts) in reds.iter().zip(partials) {
            if r.op == RedOp::Add {
                // A sum stays lazy: all partials are reduced together with
                // full adders (a carry-save tree), as the loop would have.
                let Slot::Val(mut acc) = self.slot(r.obj, 0) else {
                    continue;
                };
                for p in parts {
                    acc = acc.add(&mut self.b, &p, false);
                    self.step(loc)?;
                }
                self.store(r.obj, 0, Val::Int(r.scalar, acc));
                continue;
            }
            let mut layer = parts;
            while layer.len() > 1 {
                layer = self.combine_level(r, layer, loc)?;
            }
            let Some(total) = layer.pop() else {
                continue;
            };
            let total = Val::Int(r.scalar, total);
            let Slot::Val(old) = self.slot(r.obj, 0) else {
                continue;
            };
            let new = if old.as_const().is_some() && old.as_const() == extreme(r.op, r.scalar) {
                // The minimum with the type's largest value (or the
                // maximum with its smallest) is the other operand.
                total
            } else {
                self.reduce_pair(r, Val::Int(r.scalar, old), total, loc)?
            };
            self.store(r.obj, 0, new);
        }
        Ok(())
    }

    /// One level of a combining tree: each pair of `layer` combined (as a
    /// block where it has many pairs, see [`Lower::level_block`]), an odd
    /// one out passed on.
    fn combine_level(&mut self, r: &Red, mut layer: Vec<Word>, loc: Loc) -> DResult<Vec<Word>> {
        let odd = (layer.len() % 2 == 1).then(|| layer.pop()).flatten();
        let block = match layer.len() / 2 >= MIN_BLOCK_PAIRS && self.probes.is_empty() {
            true => self.level_block(r, &layer, loc)?,
            false => None,
        };
        let mut next = match block {
            Some(next) => next,
            None => {
                let mut next = Vec::with_capacity(layer.len() / 2 + 1);
                let mut it = layer.into_iter();
                while let (Some(a), Some(b)) = (it.next(), it.next()) {
                    let (a, b) = (Val::Int(r.scalar, a), Val::Int(r.scalar, b));
                    next.push(self.reduced_word(r, a, b, loc)?);
                    self.step(loc)?;
                }
                next
            }
        };
        next.extend(odd);
        Ok(next)
    }

    /// `a op b` for a reduction, as a word of the variable's type.
    fn reduced_word(&mut self, r: &Red, a: Val, b: Val, loc: Loc) -> DResult<Word> {
        match self.reduce_pair(r, a, b, loc)? {
            Val::Int(_, w) => Ok(w),
            _ => err(loc, "internal: a reduction of integers gave no integer"),
        }
    }

    /// The pairs of `words` (an even number) combined by one parallel
    /// block, an instance a pair; `None` if the words are not all of the
    /// type's width. Bits that hold the same constant in every word stay
    /// constants in the block's body.
    fn level_block(&mut self, r: &Red, words: &[Word], loc: Loc) -> DResult<Option<Vec<Word>>> {
        let width = r.scalar.width as usize;
        let mut bits = Vec::with_capacity(words.len());
        let mut range: Option<Range> = None;
        for w in words {
            let b = w.bits(&mut self.b);
            if b.len() != width {
                return Ok(None);
            }
            bits.push(b);
            let wr = w.range(&mut self.b);
            range = Some(range.map_or(wr, |r| r.hull(wr)));
        }
        let Some(range) = range.map(|r| Range::new(r.lo, r.hi)) else {
            return Ok(None);
        };
        let fixed: Vec<Option<bool>> = (0..width)
            .map(|k| match bits[0][k] {
                Bit::Const(v) if bits.iter().all(|b| b[k] == Bit::Const(v)) => Some(v),
                _ => None,
            })
            .collect();
        // The body: one pair combined, from fresh wires where the words'
        // bits differ.
        let mark = self.b.begin_frame();
        let mut inputs = Vec::with_capacity(2 * width);
        let mut operand = |b: &mut Builder| -> Word {
            let bits: Bits = (fixed.iter())
                .map(|f| {
                    f.map_or_else(
                        || {
                            let w = b.fresh_wire();
                            inputs.push(w);
                            Bit::Wire(w)
                        },
                        Bit::Const,
                    )
                })
                .collect();
            Word::Bits(Rc::from(bits), range)
        };
        let (a, b) = (operand(&mut self.b), operand(&mut self.b));
        let made = self
            .reduced_word(r, Val::Int(r.scalar, a), Val::Int(r.scalar, b), loc)
            .map(|w| (w.bits(&mut self.b), w.range(&mut self.b)));
        let frame = self.b.end_frame(mark);
        let (out_bits, out_range) = made?;
        if out_bits.len() != width || out_bits.iter().all(|b| matches!(b, Bit::Const(_))) {
            return Ok(None);
        }
        // Each distinct output wire once, and where each bit is among them.
        let mut outputs: Vec<Wire> = Vec::new();
        let mut place = HashMap::default();
        for b in &out_bits {
            if let Bit::Wire(w) = *b {
                place.entry(w).or_insert_with(|| {
                    outputs.push(w);
                    outputs.len() as Wire - 1
                });
            }
        }
        let (body, _) = frame
            .into_body(&inputs, &outputs, &[])
            .map_err(|e| diag(loc, format!("internal: a combining block's body: {e}")))?;
        let pairs = words.len() / 2;
        let mut table = Vec::with_capacity(pairs * inputs.len());
        for word in &bits {
            for (&bit, f) in word.iter().zip(&fixed) {
                if f.is_none() {
                    table.push(self.wire_of(bit)?);
                }
            }
        }
        let out_width = outputs.len() as Wire;
        // The instances' outputs: consecutive fresh wires from `first`.
        let first = self.b.fresh_wire();
        for _ in 1..pairs as Wire * out_width {
            self.b.fresh_wire();
        }
        self.b.add_block(PendingBlock {
            position: 0,
            count: pairs as u64,
            parallel: true,
            body,
            shared: Vec::new(),
            carried: Vec::new(),
            inputs: Wiring::compress(pairs, inputs.len(), &table),
            outputs: Wiring {
                segments: vec![Segment::Affine {
                    len: out_width,
                    start: first,
                    step: out_width as i64,
                }],
            },
        });
        self.step(loc)?;
        let results = (0..pairs as Wire).map(|p| {
            let bits: Bits = (out_bits.iter())
                .map(|b| match b {
                    Bit::Wire(w) => Bit::Wire(first + p * out_width + place[w]),
                    c => *c,
                })
                .collect();
            Word::Bits(Rc::from(bits), out_range)
        });
        Ok(Some(results.collect()))
    }

    /// `a op b` for a reduction, in the variable's type.
    pub(super) fn reduce_pair(&mut self, r: &Red, a: Val, b: Val, loc: Loc) -> DResult<Val> {
        let v = match r.op {
            RedOp::Add => self.binop(BinOp::Add, a, b, loc)?,
            RedOp::Mul => self.binop(BinOp::Mul, a, b, loc)?,
            RedOp::Xor => self.binop(BinOp::Xor, a, b, loc)?,
            RedOp::Or => self.binop(BinOp::Or, a, b, loc)?,
            RedOp::And => self.binop(BinOp::And, a, b, loc)?,
            RedOp::Min | RedOp::Max => {
                let op = if r.op == RedOp::Min {
                    BinOp::Lt
                } else {
                    BinOp::Gt
                };
                let c = self.binop(op, b.clone(), a.clone(), loc)?;
                let c = self.truth(c, loc)?;
                self.select(c, b, a, loc)?
            }
        };
        self.convert(v, &r.ty, loc)
    }
}

/// The type's largest value for a minimum, its smallest for a maximum.
fn extreme(op: RedOp, t: Scalar) -> Option<u64> {
    let top = if t.signed { t.mask() >> 1 } else { t.mask() };
    match op {
        RedOp::Min => Some(top),
        RedOp::Max => Some(if t.signed { top + 1 } else { 0 }),
        _ => None,
    }
}
