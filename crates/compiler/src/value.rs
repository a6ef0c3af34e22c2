//! Values during lowering: words (public constants or secret bits),
//! pointers into objects, and the slots objects are made of.

use std::rc::Rc;

use twofold_circuit::{Bit, Builder};

use crate::gates::{self, Bits};
use crate::types::{CType, Scalar};

/// A scalar's bits: a public constant or secret (possibly partly constant)
/// bits. Always of a known width.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Word {
    /// A public value (masked to the width).
    Const {
        /// The bits.
        v: u64,
        /// Width in bits.
        w: u32,
    },
    /// Secret bits, bit 0 first.
    Bits(Rc<Bits>),
}

impl Word {
    /// A public constant of width `w` (masked).
    pub fn konst(v: u64, w: u32) -> Word {
        let m = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
        Word::Const { v: v & m, w }
    }

    /// Wraps bits, folding them into a constant when they all are.
    pub fn from_bits(bits: Bits) -> Word {
        match gates::const_value(&bits) {
            Some(v) if bits.len() <= 64 => Word::Const {
                v,
                w: bits.len() as u32,
            },
            _ => Word::Bits(Rc::new(bits)),
        }
    }

    /// Width in bits.
    pub fn width(&self) -> u32 {
        match self {
            Word::Const { w, .. } => *w,
            Word::Bits(b) => b.len() as u32,
        }
    }

    /// The bits (constants as constant bits).
    pub fn bits(&self) -> Bits {
        match self {
            Word::Const { v, w } => gates::konst(*v, *w as usize),
            Word::Bits(b) => b.as_ref().clone(),
        }
    }

    /// The public value, if any.
    pub fn as_const(&self) -> Option<u64> {
        match self {
            Word::Const { v, .. } => Some(*v),
            Word::Bits(_) => None,
        }
    }

    /// Converts a value of type `from` to type `to` (C conversion rules).
    pub fn convert(&self, b: &mut Builder, from: Scalar, to: Scalar) -> Word {
        if to.width == 1 {
            return match self {
                Word::Const { v, .. } => Word::konst((*v != 0) as u64, 1),
                Word::Bits(bits) => {
                    let nz = gates::nonzero(b, bits);
                    Word::from_bits(vec![nz])
                }
            };
        }
        match self {
            Word::Const { v, .. } => Word::konst(from.to_i128(*v) as u64, to.width),
            Word::Bits(bits) => {
                if bits.len() == to.width as usize {
                    return self.clone();
                }
                Word::from_bits(gates::extend(bits, to.width as usize, from.signed))
            }
        }
    }

    /// The single condition bit of a value: `value != 0`.
    pub fn truth(&self, b: &mut Builder) -> Bit {
        match self {
            Word::Const { v, .. } => Bit::Const(*v != 0),
            Word::Bits(bits) => gates::nonzero(b, bits),
        }
    }
}

/// `sel ? t : f` on words of equal width.
pub fn mux_word(b: &mut Builder, sel: Bit, t: &Word, f: &Word) -> Word {
    if t == f {
        return t.clone();
    }
    match sel {
        Bit::Const(true) => t.clone(),
        Bit::Const(false) => f.clone(),
        _ => Word::from_bits(gates::mux(b, sel, &t.bits(), &f.bits())),
    }
}

/// A secret index term of a location: element `idx` (of `count`), each
/// `stride` leaves apart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SecIdx {
    /// The index bits.
    pub idx: Rc<Bits>,
    /// Leaves per element.
    pub stride: usize,
    /// Number of candidate elements.
    pub count: usize,
}

/// A pointer: an object, a leaf position in it, and secret index terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ptr {
    /// The object (`usize::MAX` for the null pointer).
    pub obj: usize,
    /// Leaf index within the object (public part).
    pub leaf: i64,
    /// Secret index terms.
    pub sec: Vec<SecIdx>,
}

impl Ptr {
    /// The null pointer.
    pub fn null() -> Ptr {
        Ptr {
            obj: usize::MAX,
            leaf: 0,
            sec: Vec::new(),
        }
    }
}

/// What an object's leaf holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A scalar.
    Val(Word),
    /// A pointer.
    Ptr(Ptr),
}

/// An rvalue.
#[derive(Clone, Debug)]
pub enum Val {
    /// A scalar of a type.
    Int(Scalar, Word),
    /// A pointer to a type.
    Ptr(CType, Ptr),
    /// A struct (or array) value: its type and leaves.
    Agg(CType, Vec<Slot>),
    /// No value.
    Void,
}
