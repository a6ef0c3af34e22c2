//! C types: integers, `_Bool`, arrays, structs, pointers; sizes and layout.

use std::sync::Arc;

/// A struct type: its tag (if any) and members in order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StructDef {
    /// The struct tag, if it has one.
    pub name: Option<String>,
    /// Members: name and type, in declaration order.
    pub fields: Vec<(String, CType)>,
}

/// A C type of the supported subset.
///
/// Integer types are described by width and signedness (`char` is signed,
/// `long` is 64-bit, as with gcc on x86-64). In a circuit, a value is laid
/// out as its scalars (struct members and array elements in order, bit 0
/// first), without C padding; `_Bool` takes one bit.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CType {
    /// `void`.
    Void,
    /// `_Bool` (one bit in a circuit, one byte in C's layout).
    Bool,
    /// An integer type of 8, 16, 32 or 64 bits.
    Int {
        /// Width in bits.
        bits: u32,
        /// Signed or unsigned.
        signed: bool,
    },
    /// An array of a fixed number of elements.
    Array(Box<CType>, u32),
    /// A struct.
    Struct(Arc<StructDef>),
    /// A pointer (only inside the program, never an input or output).
    Pointer(Box<CType>),
}

/// A scalar's type as the lowering sees it: width and signedness
/// (`_Bool` is width 1, unsigned).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Scalar {
    /// Width in bits: 1, 8, 16, 32 or 64.
    pub width: u32,
    /// Signed or unsigned.
    pub signed: bool,
}

impl Scalar {
    /// `int`
    pub const INT: Scalar = Scalar {
        width: 32,
        signed: true,
    };
    /// `_Bool`
    pub const BOOL: Scalar = Scalar {
        width: 1,
        signed: false,
    };

    /// The C type of this scalar.
    pub fn ctype(self) -> CType {
        if self.width == 1 {
            CType::Bool
        } else {
            CType::Int {
                bits: self.width,
                signed: self.signed,
            }
        }
    }

    /// The integer promotion of this type.
    pub fn promote(self) -> Scalar {
        if self.width < 32 {
            Scalar::INT
        } else {
            self
        }
    }

    /// The common type of the usual arithmetic conversions.
    pub fn common(a: Scalar, b: Scalar) -> Scalar {
        let (a, b) = (a.promote(), b.promote());
        if a == b {
            return a;
        }
        if a.width != b.width {
            return if a.width > b.width { a } else { b };
        }
        Scalar {
            width: a.width,
            signed: false,
        }
    }

    /// Bit mask of the width.
    pub fn mask(self) -> u64 {
        if self.width >= 64 {
            u64::MAX
        } else {
            (1u64 << self.width) - 1
        }
    }

    /// A raw bit pattern of this type as a mathematical integer.
    pub fn to_i128(self, v: u64) -> i128 {
        let v = v & self.mask();
        if self.signed && self.width < 128 && (v >> (self.width - 1)) & 1 == 1 {
            v as i128 - (1i128 << self.width)
        } else {
            v as i128
        }
    }
}

impl std::fmt::Display for CType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

impl CType {
    /// `int`
    pub const INT: CType = CType::Int {
        bits: 32,
        signed: true,
    };

    /// Width in bits of a value of this type in a circuit (scalars packed in
    /// order, `_Bool` as one bit, no padding).
    pub fn width(&self) -> u32 {
        match self {
            CType::Void => 0,
            CType::Bool => 1,
            CType::Int { bits, .. } => *bits,
            CType::Array(e, n) => e.width().saturating_mul(*n),
            CType::Struct(s) => s.fields.iter().map(|(_, t)| t.width()).sum(),
            CType::Pointer(_) => 64,
        }
    }

    /// The scalar type, if this is an integer or `_Bool`.
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            CType::Bool => Some(Scalar::BOOL),
            CType::Int { bits, signed } => Some(Scalar {
                width: *bits,
                signed: *signed,
            }),
            _ => None,
        }
    }

    /// Number of scalar slots (leaves) in a value of this type.
    pub fn leaves(&self) -> usize {
        match self {
            CType::Void => 0,
            CType::Array(e, n) => e.leaves().saturating_mul(*n as usize),
            CType::Struct(s) => s.fields.iter().map(|(_, t)| t.leaves()).sum(),
            _ => 1,
        }
    }

    /// The leaf types in order (scalars and pointers).
    pub fn leaf_types(&self, out: &mut Vec<CType>) {
        match self {
            CType::Void => {}
            CType::Array(e, n) => {
                for _ in 0..*n {
                    e.leaf_types(out);
                }
            }
            CType::Struct(s) => {
                for (_, t) in &s.fields {
                    t.leaf_types(out);
                }
            }
            t => out.push(t.clone()),
        }
    }

    /// `sizeof` in bytes (C layout, LP64).
    pub fn size(&self) -> u64 {
        match self {
            CType::Void => 1,
            CType::Bool => 1,
            CType::Int { bits, .. } => (*bits / 8) as u64,
            CType::Array(e, n) => e.size() * *n as u64,
            CType::Struct(_) => self.struct_layout().1,
            CType::Pointer(_) => 8,
        }
    }

    /// Alignment in bytes.
    pub fn align(&self) -> u64 {
        match self {
            CType::Array(e, _) => e.align(),
            CType::Struct(s) => s.fields.iter().map(|(_, t)| t.align()).max().unwrap_or(1),
            t => t.size().max(1),
        }
    }

    /// Member byte offsets and total size of a struct.
    fn struct_layout(&self) -> (Vec<u64>, u64) {
        let CType::Struct(s) = self else {
            return (Vec::new(), self.size());
        };
        let mut offs = Vec::new();
        let mut at = 0u64;
        for (_, t) in &s.fields {
            let a = t.align();
            at = at.div_ceil(a) * a;
            offs.push(at);
            at += t.size();
        }
        let a = self.align();
        (offs, at.div_ceil(a) * a)
    }

    /// Byte offset of every leaf within a value of this type (C layout).
    pub fn leaf_offsets(&self, base: u64, out: &mut Vec<u64>) {
        match self {
            CType::Void => {}
            CType::Array(e, n) => {
                for k in 0..*n as u64 {
                    e.leaf_offsets(base + k * e.size(), out);
                }
            }
            CType::Struct(s) => {
                let (offs, _) = self.struct_layout();
                for ((_, t), o) in s.fields.iter().zip(offs) {
                    t.leaf_offsets(base + o, out);
                }
            }
            _ => out.push(base),
        }
    }

    /// Whether values of this type can be inputs or outputs of a circuit.
    pub fn is_data(&self) -> bool {
        match self {
            CType::Bool | CType::Int { .. } => true,
            CType::Array(e, _) => e.is_data(),
            CType::Struct(s) => s.fields.iter().all(|(_, t)| t.is_data()),
            _ => false,
        }
    }

    /// A C spelling of the type (for messages).
    pub fn name(&self) -> String {
        match self {
            CType::Void => "void".into(),
            CType::Bool => "_Bool".into(),
            CType::Int { bits, signed } => {
                let base = match bits {
                    8 => "char",
                    16 => "short",
                    32 => "int",
                    _ => "long long",
                };
                if *signed {
                    base.into()
                } else {
                    format!("unsigned {base}")
                }
            }
            CType::Array(e, n) => format!("{}[{n}]", e.name()),
            CType::Struct(s) => format!(
                "struct {}",
                s.name.clone().unwrap_or_else(|| "<anonymous>".into())
            ),
            CType::Pointer(e) => format!("{} *", e.name()),
        }
    }
}
